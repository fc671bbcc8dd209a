// Small helpers the page's modules share: building elements, numbers, and reading any
// message format ctxfold takes (OpenAI Chat Completions and Responses, Anthropic, AI SDK)
// well enough to show it.

export const $ = (id) => document.getElementById(id);

/** `h("div.msg.user", { title: "x" }, child, "text")`: an element with classes, attributes and children. */
export function h(tag, attrs = {}, ...children) {
  const [name, ...classes] = tag.split(".");
  const el = document.createElement(name || "div");
  if (classes.length) el.className = classes.join(" ");
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "dataset") Object.assign(el.dataset, v);
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "text") el.textContent = v;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(c);
  return el;
}

const number = new Intl.NumberFormat("en-US");
/** `12345` -> `"12,345"`. */
export const fmt = (n) => (typeof n === "number" && Number.isFinite(n) ? number.format(n) : "–");
/** `12400` -> `"12.4k"`. */
export function short(n) {
  if (typeof n !== "number" || !Number.isFinite(n)) return "–";
  if (Math.abs(n) < 1000) return String(Math.round(n));
  if (Math.abs(n) < 100_000) return `${(n / 1000).toFixed(1).replace(/\.0$/, "")}k`;
  return `${Math.round(n / 1000)}k`;
}
export const plural = (n, word, many = `${word}s`) => `${fmt(n)} ${n === 1 ? word : many}`;
export const pct = (part, whole) => (whole > 0 ? `${((100 * part) / whole).toFixed(1).replace(/\.0$/, "")} %` : "–");

/** `[3,4,5,9,10]` -> `"3–5, 9–10"`. */
export function ranges(indexes) {
  const sorted = [...indexes].sort((a, b) => a - b);
  const out = [];
  for (let i = 0; i < sorted.length; i++) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    out.push(i === j ? String(sorted[i]) : `${sorted[i]}–${sorted[j]}`);
    i = j;
  }
  return out.join(", ");
}

/** "just now", "5 min ago", or the date. */
export function ago(iso) {
  if (!iso) return "";
  const then = Date.parse(iso);
  if (!Number.isFinite(then)) return "";
  const s = (Date.now() - then) / 1000;
  if (s < 45) return "just now";
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86_400) return `${Math.round(s / 3600)} h ago`;
  return new Date(then).toLocaleDateString(undefined, { month: "short", day: "numeric" });
}

const TEXT_PARTS = new Set(["text", "input_text", "output_text", "reasoning", "summary_text"]);

/** The text of a content value: a string, or its text parts. */
export function textOf(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((p) => (typeof p === "string" ? p : TEXT_PARTS.has(p?.type) && typeof p.text === "string" ? p.text : ""))
    .filter(Boolean)
    .join("\n");
}

const stringify = (v) => (typeof v === "string" ? v : JSON.stringify(v, null, 1) ?? "");

/**
 * A message as the page shows it: `{ role, text, calls: [{ name, args }], result }` (`role`
 * is `tool` for a tool result, whatever the format calls it).
 */
export function describe(m) {
  if (m === null || typeof m !== "object") return { role: "?", text: stringify(m), calls: [] };
  // OpenAI Responses items.
  if (m.type === "function_call" || m.type === "custom_tool_call") return { role: "assistant", text: "", calls: [{ name: m.name, args: m.arguments ?? m.input }] };
  if (m.type === "function_call_output" || m.type === "custom_tool_call_output") return { role: "tool", text: stringify(m.output), calls: [] };
  if (m.type === "reasoning") return { role: "assistant", text: textOf(m.summary ?? m.content), calls: [] };
  const calls = [];
  let role = m.role ?? m.type ?? "?";
  if (role === "developer") role = "system";
  let text = "";
  if (Array.isArray(m.content)) {
    const parts = [];
    let results = 0;
    for (const p of m.content) {
      if (p?.type === "tool_use" || p?.type === "tool-call") calls.push({ name: p.name ?? p.toolName, args: p.input ?? p.args });
      else if (p?.type === "tool_result" || p?.type === "tool-result") {
        results++;
        parts.push(textOf(p.content) || stringify(p.output ?? p.result ?? p.content ?? ""));
      } else if (p?.type === "image" || p?.type === "image_url" || p?.type === "input_image") parts.push("[image]");
      else if (p?.type === "file" || p?.type === "document") parts.push("[file]");
      else {
        const t = textOf([p]);
        if (t) parts.push(t);
      }
    }
    if (results > 0 && results === m.content.length) role = "tool";
    text = parts.join("\n");
  } else {
    text = typeof m.content === "string" ? m.content : m.content == null ? "" : stringify(m.content);
  }
  for (const c of m.tool_calls ?? []) calls.push({ name: c.function?.name ?? c.name, args: c.function?.arguments ?? c.arguments });
  return { role, text, calls };
}

/** Whether a message is the model's (an assistant message, or a Responses item the model made). */
export function isReply(m) {
  if (m?.role === "assistant") return true;
  return typeof m?.type === "string" && m.role === undefined && (m.type.endsWith("_call") || m.type === "reasoning");
}

/** Whether a model-input message is a summary ctxfold made. */
export function isSummary(m) {
  const { text } = describe(m);
  return text.startsWith("## Conversation Summary") || text.startsWith("[Earlier messages truncated]");
}

/** A conversation's title: the first line of its first user message that reads as one (not a
 * summary ctxfold made, which a conversation /new started opens with). */
export function titleOf(messages) {
  for (const m of messages) {
    const d = describe(m);
    if (d.role !== "user" || isSummary(m)) continue;
    const lines = d.text
      .replace(/<[^>\n]{1,60}>/g, " ")
      .split("\n")
      .map((l) => l.replace(/\s+/g, " ").trim())
      .filter(Boolean);
    const line = lines.find((l) => !l.endsWith(":") && l.length > 3) ?? lines[0];
    if (line) return line.length > 72 ? `${line.slice(0, 70).trimEnd()}…` : line;
  }
  return null;
}

/** The error as one line: `CtxfoldError (INVALID_MESSAGE): ...`. */
export const errorLine = (e) => `${e?.name ?? "Error"}${e?.code ? ` (${e.code})` : ""}: ${e?.message ?? String(e)}`;
