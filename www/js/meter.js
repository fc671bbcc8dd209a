// The meter: the context window to scale, split as `plan()` splits the input the next call
// would send (`compactor.status(id).plan`: the stored history under the state in force). Its
// parts are the plan's own numbers: the head less the tool definitions among it
// (`tokens.head - tokens.toolDefinitions`), the tool definitions, `tokens.summaries`, the kept
// messages (`middle + tail`) less the tool results among them (`tokens.toolResults`, which the
// plan counts inside those messages, as `notify()` shows them), `tokens.framing` (reply
// priming), the free space left of `budget.input`, and `budget.reservedOutput`.
import { $, h, fmt, pct } from "./dom.js";

const PARTS = [
  ["head", "Head", "the system prompt and pinned messages, always sent"],
  ["definitions", "Tool definitions", "the tools the request offers the model, always sent"],
  ["summaries", "Summaries", "what compactions made of earlier turns"],
  ["recent", "Recent turns", "user and assistant messages kept verbatim"],
  ["tools", "Tool output", "tool results among the kept messages"],
  ["framing", "Reply priming", "the tokens every request ends with"],
  ["free", "Free", "room left in the input budget"],
  ["reserved", "Reserved", "kept free for the model's reply"],
];

/** The meter's parts for a plan: `[{ part, label, note, tokens }]`, adding up to the window (unless over). */
export function partsOf(plan) {
  const { budget, tokens: t } = plan;
  const tools = Math.max(0, t.toolResults);
  const definitions = Math.max(0, t.toolDefinitions);
  const value = {
    head: Math.max(0, t.head - definitions),
    definitions,
    summaries: t.summaries,
    recent: Math.max(0, t.middle + t.tail - tools),
    tools,
    framing: t.framing,
    free: Math.max(0, budget.input - t.total),
    reserved: budget.reservedOutput,
  };
  return PARTS.map(([part, label, note]) => ({ part, label, note, tokens: value[part] }));
}

/** Draws the meter for a conversation's status (`null`: nothing stored yet) and the settings' window. */
export function drawMeter(status, settings) {
  const meter = $("meter");
  const legend = $("legend");
  if (status === null) {
    meter.replaceChildren(h("div.seg.empty", { style: "flex-basis:100%" }));
    meter.dataset.total = "0";
    legend.replaceChildren();
    $("meter-total").textContent = `${fmt(settings.window)} window`;
    $("meter-note").textContent = "Nothing stored yet: the first message starts the conversation.";
    return;
  }
  const { plan, estimate } = status;
  const { budget, tokens } = plan;
  const parts = partsOf(plan);
  const over = Math.max(0, tokens.total - budget.input);
  const scale = Math.max(budget.window, tokens.total + budget.reservedOutput);
  const tip = (p) => `${p.label}: ${fmt(p.tokens)} tokens (${pct(p.tokens, budget.window)} of the window)\n${p.note}`;
  const segs = parts.map((p) =>
    h(`div.seg.${p.part}`, { dataset: { part: p.part, tokens: String(p.tokens), tip: tip(p) }, tabindex: p.tokens > 0 ? "0" : null, style: `flex-basis:${((100 * p.tokens) / scale).toFixed(3)}%` }),
  );
  const threshold = h("div.threshold", { dataset: { tip: `Compaction threshold: ${fmt(budget.threshold)} tokens\nthe next prepare compacts above it` }, style: `left:${((100 * budget.threshold) / scale).toFixed(3)}%` });
  meter.replaceChildren(...segs, threshold);
  meter.dataset.total = String(tokens.total);
  meter.dataset.input = String(budget.input);
  meter.dataset.window = String(budget.window);
  meter.classList.toggle("over", over > 0);
  meter.setAttribute("aria-label", `${fmt(tokens.total)} of ${fmt(budget.input)} input tokens`);
  legend.replaceChildren(
    ...parts
      .filter((p) => (p.part !== "framing" && p.part !== "definitions") || p.tokens > 0)
      .map((p) => h("li", { dataset: { part: p.part, tip: tip(p) } }, h(`span.dot.${p.part}`), h("span.name", { text: p.label }), h("span.num", { text: fmt(p.tokens) }))),
  );
  $("meter-total").textContent = `${fmt(tokens.total)} / ${fmt(budget.input)} input · ${fmt(budget.window)} window`;
  const notes = [];
  if (over > 0) notes.push(`${fmt(over)} tokens over the input budget: the next turn compacts.`);
  else if (plan.trigger) notes.push(`Past the threshold: the next turn compacts (${fmt(plan.evict.length)} messages to summarize).`);
  else notes.push(`Compacts above ${fmt(budget.threshold)} tokens: ${fmt(Math.max(0, budget.threshold - tokens.total))} to go.`);
  if (plan.pruned.messages.length > 0 && plan.pruned.tokensSaved > 0) notes.push(`${fmt(plan.pruned.messages.length)} old tool outputs pruned (−${fmt(plan.pruned.tokensSaved)} tokens).`);
  if (estimate.ratio !== null) notes.push(`The provider counts ×${estimate.ratio.toFixed(3)} of ctxfold's count: the trigger sees ${fmt(estimate.tokens)}.`);
  $("meter-note").textContent = notes.join(" ");
}

/** Hover and focus tips for every element with `data-tip`. */
export function tooltips() {
  const tip = $("tooltip");
  const show = (el) => {
    tip.textContent = el.dataset.tip;
    tip.hidden = false;
    const r = el.getBoundingClientRect();
    const t = tip.getBoundingClientRect();
    const left = Math.min(window.innerWidth - t.width - 8, Math.max(8, r.left + r.width / 2 - t.width / 2));
    const top = r.bottom + 8 + t.height > window.innerHeight ? r.top - t.height - 8 : r.bottom + 8;
    tip.style.left = `${left}px`;
    tip.style.top = `${top}px`;
  };
  const hide = () => (tip.hidden = true);
  for (const kind of ["mouseover", "focusin"]) {
    document.addEventListener(kind, (e) => {
      const el = e.target.closest?.("[data-tip]");
      if (el) show(el);
      else hide();
    });
  }
  document.addEventListener("mouseleave", hide);
  document.addEventListener("scroll", hide, true);
}
