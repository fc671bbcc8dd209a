// The conversation list on the left: every conversation the IndexedDB store holds
// (`compactor.list()`), newest first, each titled by its first user message, with its size
// and compactions from the stored meta.
import { $, h, plural, ago, titleOf } from "./dom.js";

/**
 * A question in a dialog: resolves to the `value` of the button pressed (`"cancel"` for Cancel
 * or Escape). `buttons`: `[{ value, label, kind }]`, the last one the default.
 */
export function ask(title, text, buttons) {
  const dialog = $("confirm");
  $("confirm-title").textContent = title;
  $("confirm-text").textContent = text;
  $("confirm-buttons").replaceChildren(
    h("button.ghost", { value: "cancel" }, "Cancel"),
    ...buttons.map((b) => h(`button.${b.kind ?? "primary"}`, { value: b.value, id: `confirm-${b.value}` }, b.label)),
  );
  dialog.returnValue = "cancel";
  dialog.showModal();
  return new Promise((resolve) => dialog.addEventListener("close", () => resolve(dialog.returnValue || "cancel"), { once: true }));
}

export class ConversationList {
  /** `select(id)` switches to a conversation, `remove(id)` deletes one (after asking). */
  constructor({ select, remove }) {
    this.el = $("conversations");
    this.titles = new Map();
    this.select = select;
    this.remove = remove;
  }

  /** A conversation's title, read once from its stored messages (the store's own `messages`). */
  async title(store, id) {
    if (this.titles.has(id)) return this.titles.get(id);
    const title = titleOf(await store.messages(id, 0));
    if (title !== null) this.titles.set(id, title);
    return title;
  }

  forget(id) {
    this.titles.delete(id);
  }

  /**
   * Lists the stored conversations; `current` is marked, and shown even before it is stored
   * (a new chat with nothing sent yet).
   */
  async draw(compactor, current) {
    const store = compactor.store;
    const ids = await compactor.list();
    const rows = await Promise.all(
      ids.map(async (id) => {
        const meta = await store.load(id);
        return { id, meta, title: await this.title(store, id) };
      }),
    );
    rows.sort((a, b) => String(b.meta?.updatedAt ?? "").localeCompare(String(a.meta?.updatedAt ?? "")) || a.id.localeCompare(b.id));
    if (current !== null && !ids.includes(current)) rows.unshift({ id: current, meta: null, title: null });
    this.el.replaceChildren(
      ...rows.map(({ id, meta, title }) => {
        const sub = meta ? [plural(meta.length, "message"), meta.compactions ? plural(meta.compactions, "compaction") : null, ago(meta.updatedAt)].filter(Boolean).join(" · ") : "nothing sent yet";
        return h(
          "li",
          { class: id === current ? "current" : null, dataset: { id } },
          h("button.conv", { type: "button", onclick: () => this.select(id), title: id, "aria-current": id === current ? "true" : null }, h("span.conv-title", { text: title ?? "New chat" }), h("span.conv-sub", { text: sub })),
          meta ? h("button.icon.conv-delete", { type: "button", onclick: () => this.remove(id), "aria-label": `Delete ${title ?? id}`, title: "Delete" }, "✕") : null,
        );
      }),
    );
    return rows;
  }
}
