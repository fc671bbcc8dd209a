// The timeline of compactions (`compactor.records(id)`, oldest first, drawn newest first) and
// the record dialog: what a compaction evicted (with those messages from `history()`), the
// identifiers it kept and lost, tokens before and after, the fallback, the guards, the
// timings and the summary it made; the latest one can be undone from there. Compactions are
// numbered by their record's `seq` (from 0), as `summarizedBy` and the `/undo` command name them.
import { $, h, fmt, short, plural, pct, ranges, ago, describe } from "./dom.js";

/** Whether `record` is the one `undo` would undo now. */
export const undoable = (record, status) => Boolean(status?.canUndo && status.lastCompaction?.seq === record.seq && !record.undone);

function badges(r) {
  return [
    r.trigger === "manual" ? h("span.badge", { text: "manual" }) : null,
    r.folded ? h("span.badge", { text: "folded" }) : null,
    r.fallback ? h("span.badge.warn", { text: `fallback: ${r.fallback.kind}` }) : null,
    r.undone ? h("span.badge.undone", { text: "undone" }) : null,
  ];
}

/** Draws the timeline. `open(record)` opens a record; `undo()` undoes the latest compaction. */
export function drawTimeline(records, status, { open, undo }) {
  const list = $("timeline");
  $("timeline-count").textContent = records.length ? plural(records.length, "compaction") : "";
  if (records.length === 0) {
    list.replaceChildren(h("li.empty.muted", { text: "None yet. When the input passes the threshold, the middle of the conversation is summarized; each compaction shows here." }));
    return;
  }
  list.replaceChildren(
    ...[...records].reverse().map((r) =>
      h(
        "li.entry",
        { dataset: { seq: String(r.seq), undone: String(r.undone) }, class: r.undone ? "entry undone" : null },
        h(
          "button.entry-open",
          { type: "button", onclick: () => open(r), "aria-label": `Open compaction #${r.seq}` },
          h("span.seq", { text: `#${r.seq}` }),
          h("span.entry-main", {}, h("span.tokens", { text: `${short(r.tokensBefore)} → ${short(r.tokensAfter)}` }), h("span.entry-sub.muted", { text: `${plural(r.evicted.length, "message")} summarized · ${ago(r.createdAt)}` })),
          h("span.badges", {}, badges(r)),
        ),
        undoable(r, status) ? h("button.ghost.small.undo", { type: "button", onclick: undo, title: "Undo this compaction: its summary drops out, the messages it summarized are sent again" }, "Undo") : null,
      ),
    ),
  );
}

/** A compaction under way (`compactionStart`): first in the timeline until the next redraw lists its record (from the count its record's tokensBefore will be). */
export function showPending(plan) {
  const list = $("timeline");
  list.querySelector(".empty")?.remove();
  list.querySelector(".pending")?.remove();
  list.prepend(
    h("li.entry.pending", {}, h("span.entry-open", {}, h("span.seq", { text: "…" }), h("span.entry-main", {}, h("span.tokens", { text: `${short(plan.tokens.given)} → …` }), h("span.entry-sub.muted", { text: `summarizing ${plural(plan.evict.length, "message")}` })))),
  );
}

/** A record's `after` by part (a record stored before toolResults says `tools`). */
function afterParts(a) {
  const outputs = a.toolResults ?? a.tools;
  const definitions = a.toolDefinitions ?? 0;
  const head = definitions > 0 ? `head ${fmt(a.head - definitions)} · tool definitions ${fmt(definitions)}` : `head ${fmt(a.head)}`;
  return `${head} · summaries ${fmt(a.summaries)} · kept ${fmt(Math.max(0, a.middle + a.tail - outputs))} · tool output ${fmt(outputs)}`;
}

const chips = (ids, kind) => (ids.length === 0 ? h("p.muted.small", { text: "none" }) : h(`div.chips.${kind}`, {}, ids.map((id) => h("code.chip", { text: id }))));

const field = (label, value) => h("div.field", {}, h("dt", { text: label }), h("dd", {}, value));

function guardsOf(g) {
  if (!g) return "not recorded (a record stored before the guards)";
  const lines = [];
  if (g.overridden) lines.push(`overrode the ${g.overridden.guard} guard: ${g.overridden.reason}`);
  if (g.backoff) lines.push(g.backoff.level > 0 ? `back-off level ${g.backoff.level}: ${g.backoff.reason}` : `back-off ended: ${g.backoff.reason}`);
  if (g.breaker) lines.push(`circuit breaker ${g.breaker.change}: ${g.breaker.reason}`);
  if (g.suppressedBefore > 0) lines.push(`${plural(g.suppressedBefore, "automatic compaction")} suppressed before it`);
  if (g.coldCache) lines.push(`cold cache after ${fmt(g.coldCache.idleSeconds)} s: threshold ${fmt(g.coldCache.threshold)}`);
  return lines.length ? lines.join("; ") : "none acted";
}

function evictedMessages(record, history) {
  const wanted = new Set(record.evicted);
  return h(
    "ol.evicted-list",
    {},
    history
      .filter((e) => wanted.has(e.index))
      .map((e) => {
        const d = describe(e.message);
        const calls = d.calls.map((c) => `→ ${c.name}(${typeof c.args === "string" ? c.args : JSON.stringify(c.args ?? {})})`).join("\n");
        const text = [d.text, calls].filter(Boolean).join("\n");
        return h("li", { dataset: { index: String(e.index) } }, h("span.idx", { text: `${e.index}` }), h(`span.role.${d.role}`, { text: d.role }), h("span.snippet", { text: text.length > 600 ? `${text.slice(0, 600)}…` : text }));
      }),
  );
}

/**
 * Fills and opens the record dialog. `ctx`: `{ status, history(), summaries(), undo() }`.
 */
export async function openRecord(record, ctx) {
  const r = record;
  $("record-title").replaceChildren(`Compaction #${r.seq}`, h("span.badges", {}, badges(r)));
  const body = $("record-body");
  const freed = r.tokensBefore - r.tokensAfter;
  const summaries = (await ctx.summaries()).filter((s) => s.compaction === r.seq);
  const showButton = h("button.ghost.small", { type: "button", id: "record-show-evicted" }, `Show the ${plural(r.evicted.length, "message")}`);
  const evictedBox = h("div.evicted", {});
  showButton.addEventListener("click", async () => {
    showButton.disabled = true;
    evictedBox.replaceChildren(evictedMessages(r, await ctx.history()));
    showButton.remove();
  });
  const canUndo = undoable(r, ctx.status);
  const undo = h("button.primary", { type: "button", id: "record-undo", disabled: !canUndo, title: canUndo ? "" : r.undone ? "Already undone" : "Only the latest compaction can be undone" }, r.undone ? "Undone" : "Undo this compaction");
  undo.addEventListener("click", async () => {
    undo.disabled = true;
    await ctx.undo();
    $("record").close();
  });
  body.replaceChildren(
    h(
      "div.stats",
      {},
      h("div.stat", {}, h("span.big", { id: "record-before", text: fmt(r.tokensBefore) }), h("span.muted", { text: "tokens before" })),
      h("div.stat", {}, h("span.big", { id: "record-after", text: fmt(r.tokensAfter) }), h("span.muted", { text: "tokens after" })),
      h("div.stat", {}, h("span.big", { text: pct(freed, r.tokensBefore) }), h("span.muted", { text: `freed (${fmt(freed)})` })),
      h("div.stat", {}, h("span.big", { id: "record-evicted-count", text: fmt(r.evicted.length) }), h("span.muted", { text: "messages summarized" })),
    ),
    h(
      "dl.fields",
      {},
      field("Trigger", `${r.trigger} · ${r.strategy}${r.instructions ? ` · instructions: “${r.instructions}”` : ""}`),
      field("When", r.createdAt ? new Date(r.createdAt).toLocaleString() : "–"),
      field("Evicted", h("span", { id: "record-evicted", text: r.evicted.length ? `messages ${ranges(r.evicted)}` : "none (pruning only)" })),
      field("Kept verbatim from", `message ${fmt(r.boundary)} of ${fmt(r.length)}`),
      field("Budget", `${fmt(r.budget.input)} input of a ${fmt(r.budget.window)} window, threshold ${fmt(r.budget.threshold)}`),
      field("After, by part", r.after ? afterParts(r.after) : "not recorded"),
      field("Summarizer", `${r.model ?? "extractive (built in)"}${r.generations.length ? ` · generation ${r.generations.join(", ")}` : ""}`),
      field("Fallback", h("span", { id: "record-fallback", text: r.fallback ? `${r.fallback.kind}: ${r.fallback.reason}` : "none" })),
      field("Guards", h("span", { id: "record-guards", text: guardsOf(r.guards) })),
      field("Timings", h("span", { id: "record-timings", text: `plan ${r.timings.planMs.toFixed(1)} ms · summarizer ${r.timings.summarizeMs.toFixed(1)} ms · total ${r.timings.totalMs.toFixed(1)} ms` })),
    ),
    h("div.evicted-head", {}, showButton),
    evictedBox,
    h("h3", {}, `Identifiers kept `, h("span.muted", { id: "record-kept-count", text: `(${fmt(r.keptIds.length)})` })),
    h("div", { id: "record-kept" }, chips(r.keptIds, "kept")),
    h("h3", {}, `Identifiers lost `, h("span.muted", { id: "record-lost-count", text: `(${fmt(r.lostIds.length)})` })),
    h("div", { id: "record-lost" }, chips(r.lostIds, "lost")),
    r.unsupportedIds.length ? [h("h3", { text: "Named by the summary, found nowhere in the conversation (removed)" }), chips(r.unsupportedIds, "lost")] : null,
    r.droppedSummaryLines.length ? [h("h3", { text: "Summary lines dropped" }), h("pre.summary", { text: r.droppedSummaryLines.join("\n") })] : null,
    summaries.length ? [h("h3", { text: summaries.length === 1 ? "The summary it made" : "The summaries it made" }), ...summaries.map((s) => h("pre.summary", { text: s.text }))] : null,
    h("div.dialog-actions", {}, undo),
  );
  body.dataset.seq = String(r.seq);
  if (!$("record").open) $("record").showModal();
}
