// The demo page: the package in a browser, as users import it (see the import map).
import { countMessages, compact, plan } from "ctxfold";

const $ = (id) => document.getElementById(id);
let state = null;

function options() {
  return { model: $("model").value.trim() || "gpt-4o", contextWindow: Number($("window").value) || undefined };
}

function input() {
  const value = JSON.parse($("input").value);
  return Array.isArray(value) ? value : value.messages && value.system === undefined ? value.messages : value;
}

const fmt = (n) => n.toLocaleString("en-US");
const plural = (n, word) => `${fmt(n)} ${word}${n === 1 ? "" : "s"}`;

/** The meter: tokens of what would be sent, against the threshold and the input budget. */
function meter(messages) {
  const p = plan(messages, { ...options(), state });
  const { total } = p.tokens;
  const share = Math.min(1, total / p.budget.input);
  $("fill").style.width = `${(share * 100).toFixed(1)}%`;
  $("fill").className = total > p.budget.input ? "over" : total > p.budget.threshold ? "near" : "";
  $("threshold").style.left = `${((p.budget.threshold / p.budget.input) * 100).toFixed(1)}%`;
  $("reading").textContent =
    `${fmt(total)} of ${fmt(p.budget.input)} input tokens (window ${fmt(p.budget.window)}, ` +
    `${fmt(p.budget.reservedOutput)} kept for the reply); compaction above ${fmt(p.budget.threshold)}` +
    (p.trigger ? ": would compact now" : "");
  const count = countMessages(messages, { model: options().model });
  $("roles").textContent = Object.entries(count.byRole).map(([r, n]) => `${r} ${fmt(n)}`).join(" · ") +
    ` (${count.method === "exact" ? "exact" : "estimated"})`;
  return p;
}

function show(result) {
  const list = Array.isArray(result.messages) ? result.messages : result.messages.messages;
  $("messages").replaceChildren(...list.map((m) => {
    const div = document.createElement("div");
    const text = typeof m.content === "string" ? m.content : JSON.stringify(m.content ?? m, null, 1);
    div.className = "msg" + (text?.startsWith("## Conversation Summary") ? " summary" : "");
    div.innerHTML = `<span class="role"></span> `;
    div.firstChild.textContent = m.role ?? m.type;
    div.append(text ?? "");
    return div;
  }));
}

function logCompaction(turn, r) {
  const li = document.createElement("li");
  const rep = r.report;
  li.textContent =
    `${turn}: Compacted (${fmt(rep.tokensBefore)} -> ${fmt(rep.tokensAfter)}), ${plural(rep.evicted.length, "message")} summarized` +
    `, ${rep.keptIds.length} identifiers kept, ${rep.lostIds.length} lost` +
    (rep.pruned.messages.length ? `, ${rep.pruned.messages.length} tool outputs pruned` : "") +
    (rep.fallback ? `, fallback ${rep.fallback.kind}: ${rep.fallback.reason}` : "");
  $("log").append(li);
}

async function compactNow() {
  const messages = input();
  const r = await compact(messages, { ...options(), state, manual: true });
  state = r.state;
  if (r.report.trigger) logCompaction("manual", r);
  show(r);
  meter(messages);
}

/** Feeds the conversation one model call at a time, passing state back, as an app would. */
async function replay() {
  const all = input();
  const list = Array.isArray(all) ? all : all.messages;
  state = null;
  $("log").replaceChildren();
  for (let k = 1; k <= list.length; k++) {
    const next = list[k];
    if (k < list.length && (next.role ?? "assistant") !== "assistant") continue;
    const prefix = Array.isArray(all) ? list.slice(0, k) : { ...all, messages: list.slice(0, k) };
    const r = await compact(prefix, { ...options(), state });
    state = r.state;
    if (r.report.trigger) logCompaction(`turn ${k}`, r);
    show(r);
    meter(prefix);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  document.body.dataset.replayed = "true";
}

async function loadSample() {
  const res = await fetch("../samples/swe-agent-pydicom-1458.json");
  const { messages } = await res.json();
  $("input").value = JSON.stringify(messages, null, 1);
  state = null;
  meter(messages);
}

$("sample").onclick = () => loadSample().catch(report);
$("compact").onclick = () => compactNow().catch(report);
$("replay").onclick = () => replay().catch(report);
// JSON that does not parse yet is still being typed; messages ctxfold refuses are said at once.
$("input").oninput = () => {
  try {
    state = null;
    meter(input());
  } catch (e) {
    if (e instanceof SyntaxError) $("reading").textContent = "(not JSON yet)";
    else report(e);
  }
};
$("window").onchange = $("model").onchange = () => { try { state = null; meter(input()); } catch (e) { report(e); } };

function report(err) {
  $("reading").textContent = `${err.name}${err.code ? ` (${err.code})` : ""}: ${err.message}`;
}

await loadSample();
document.body.dataset.ready = "true";
