// The conversation in the middle column: the stored history (summarized messages dimmed, each
// compaction a divider where it ran), the progress card while a summary is being made, and
// the notices (commands' answers, pruning, errors). The history is drawn incrementally: a
// message's element is made once and only its "summarized" mark changes afterwards.
import { $, h, fmt, short, plural, describe, isSummary } from "./dom.js";

/** A long text's start: at most `chars` characters and `lines` lines, or `null` when it is short. */
function start(text, chars, lines) {
  let cut = Math.min(text.length, chars);
  let at = -1;
  for (let n = 0; n < lines; n++) {
    at = text.indexOf("\n", at + 1);
    if (at < 0 || at >= cut) break;
    if (n === lines - 1) cut = at;
  }
  return cut < text.length ? `${text.slice(0, cut).trimEnd()}…` : null;
}

/** A text that folds when long: its start, and a button for the rest. */
function folding(tag, text, chars = 900, lines = 14) {
  const head = start(text, chars, lines);
  const el = h(tag, { text: head ?? text });
  if (head === null) return el;
  const more = h("button.link", { type: "button" }, "Show all");
  more.addEventListener("click", () => {
    const open = more.dataset.open === "true";
    el.textContent = open ? head : text;
    more.textContent = open ? "Show all" : "Show less";
    more.dataset.open = String(!open);
  });
  return [el, more];
}

function callLine(c) {
  let args = c.args;
  if (typeof args === "string") {
    try {
      args = JSON.parse(args);
    } catch {
      /* shown as it is */
    }
  }
  const values = args && typeof args === "object" ? Object.values(args) : [args];
  const shown = values.length === 1 && typeof values[0] === "string" ? values[0] : JSON.stringify(args ?? {});
  return h("div.call", {}, h("span.call-name", { text: c.name ?? "tool" }), h("div.call-args", {}, folding("code", shown, 400, 6)));
}

const ROLE = { user: "You", assistant: "Assistant", tool: "Tool output", system: "System prompt" };

function messageEl(entry) {
  const d = describe(entry.message);
  const role = ROLE[d.role] ? d.role : "other";
  return h(
    `article.msg.${role}`,
    { dataset: { index: String(entry.index) } },
    h("header", {}, h("span.who", { text: ROLE[d.role] ?? d.role }), h("span.idx.muted", { text: `#${entry.index}` }), h("span.tag")),
    d.text ? folding(role === "tool" ? "pre.text.mono" : "div.text", d.text) : null,
    d.calls.map(callLine),
  );
}

function dividerEl(record, open) {
  const el = h(
    "div.divider",
    { dataset: { seq: String(record.seq) } },
    h("span.line"),
    h(
      "button.divider-label",
      { type: "button", onclick: () => open(record) },
      `Compaction #${record.seq}: ${short(record.tokensBefore)} → ${short(record.tokensAfter)}, ${plural(record.evicted.length, "message")} summarized`,
      record.fallback ? ` (fallback: ${record.fallback.kind})` : "",
    ),
    h("span.line"),
  );
  return el;
}

/** The chat column of one conversation. `open(record)` opens a compaction's record. */
export class ChatView {
  constructor({ open, empty }) {
    this.el = $("messages");
    this.open = open;
    this.emptyEl = empty;
    this.reset(null);
  }

  /** Starts over for another conversation. */
  reset(id) {
    this.id = id;
    this.messages = new Map();
    this.dividers = new Map();
    this.notices = [];
    this.progress = null;
    this.length = 0;
    this.el.replaceChildren();
  }

  /** Draws the history and the compactions (records) of the conversation; the view follows the newest message if it was at the bottom. */
  draw(history, records) {
    const follow = this.atBottom();
    this.length = history.length;
    const desired = [];
    const byLength = new Map();
    for (const r of records) {
      if (!this.dividers.has(r.seq)) this.dividers.set(r.seq, dividerEl(r, this.open));
      const d = this.dividers.get(r.seq);
      d.classList.toggle("undone", r.undone);
      d.querySelector(".divider-label").onclick = () => this.open(r);
      byLength.set(r.length, [...(byLength.get(r.length) ?? []), d]);
    }
    const notes = (at) => this.notices.filter((n) => n.at === at).map((n) => n.el);
    for (let i = 0; i <= history.length; i++) {
      desired.push(...notes(i));
      if (i < history.length) {
        const e = history[i];
        let el = this.messages.get(e.index);
        if (!el) this.messages.set(e.index, (el = messageEl(e)));
        const by = e.summarizedBy;
        if (el.dataset.summarizedBy !== String(by)) {
          el.dataset.summarizedBy = String(by);
          el.classList.toggle("summarized", by !== null);
          el.querySelector(".tag").textContent = by === null ? "" : `summarized in #${by}`;
        }
        desired.push(el);
      }
      desired.push(...(byLength.get(i + 1) ?? []));
    }
    for (const [length, els] of byLength) if (length > history.length) desired.push(...els);
    desired.push(...this.notices.filter((n) => n.at > history.length).map((n) => n.el));
    if (this.progress) desired.push(this.progress);
    if (history.length === 0 && this.notices.length === 0 && !this.progress) desired.push(this.emptyEl);
    this.reconcile(desired);
    if (follow) this.el.scrollTop = this.el.scrollHeight;
  }

  atBottom() {
    return this.el.scrollHeight - this.el.scrollTop - this.el.clientHeight < 120;
  }

  reconcile(desired) {
    const keep = new Set(desired);
    for (const child of [...this.el.children]) if (!keep.has(child)) child.remove();
    desired.forEach((el, k) => {
      if (this.el.children[k] !== el) this.el.insertBefore(el, this.el.children[k] ?? null);
    });
  }

  stickToBottom() {
    this.el.scrollTop = this.el.scrollHeight;
  }

  /** A line in the chat after the messages stored so far (not stored: gone after a reload). */
  notice(text, kind = "info") {
    const el = h(`div.notice.${kind}`, {}, h("pre", { text }));
    this.notices.push({ at: this.length, el });
    if (this.emptyEl.isConnected) this.emptyEl.remove();
    this.el.append(el);
    this.stickToBottom();
    return el;
  }

  /** Shows that a compaction started: what it summarizes, with a running clock. */
  compacting(plan) {
    this.done();
    const started = performance.now();
    const clock = h("span.clock.muted", { text: "0.0 s" });
    this.progress = h(
      "div.progress",
      { role: "status" },
      h("div.progress-text", {}, h("strong", { text: "Summarizing earlier messages" }), ` · ${plural(plan.evict.length, "message")}, ${fmt(plan.tokens.total)} tokens in the input `, clock),
      h("div.bar", {}, h("div.bar-fill")),
    );
    this.timer = setInterval(() => (clock.textContent = `${((performance.now() - started) / 1000).toFixed(1)} s`), 100);
    if (this.emptyEl.isConnected) this.emptyEl.remove();
    this.el.append(this.progress);
    this.stickToBottom();
  }

  /** The compaction ended (the record's divider takes its place) or failed (`error`). */
  done(error) {
    clearInterval(this.timer);
    if (this.progress) this.progress.remove();
    this.progress = null;
    if (error !== undefined) this.notice(error, "error");
  }
}

/** The model input of the last turn, each message with its tokens. */
export function drawInput(messages, counts) {
  const list = $("input");
  if (!messages) {
    list.replaceChildren(h("p.muted.small", { text: "Nothing sent yet in this page." }));
    $("input-note").textContent = "What the model was sent on the last turn.";
    return;
  }
  const total = counts?.total;
  $("input-note").textContent = `What the model was sent on the last turn: ${plural(messages.length, "message")}${total ? `, ${fmt(total)} tokens` : ""}.`;
  list.replaceChildren(
    ...messages.map((m, i) => {
      const d = describe(m);
      const summary = isSummary(m);
      const text = [d.text, ...d.calls.map((c) => `→ ${c.name}`)].filter(Boolean).join("\n");
      return h(
        `div.input-msg.${d.role}${summary ? ".summary" : ""}`,
        {},
        h("header", {}, h("span.who", { text: summary ? "Summary" : ROLE[d.role] ?? d.role }), h("span.muted", { text: counts ? `${fmt(counts.messages.find((c) => c.index === i)?.tokens)} tokens` : "" })),
        h("div.text", { text: text.length > 420 ? `${text.slice(0, 420)}…` : text }),
      );
    }),
  );
}
