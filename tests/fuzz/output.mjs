// Reading compact()'s output back against its input: which output message is which input
// message (the caller's own object, or one of the copies the report documents: a pruned
// tool result, a truncated message, the message a summary was merged into), which ones
// ctxfold inserted (a summary or the truncation marker), and whether every input message
// is accounted for.
import { wireEqual as deepEqual } from "./materialize.mjs";

export const HEADER = "## Conversation Summary";
export const MARKER = "[Earlier messages truncated]";
/** The line that ends a summary merged at the start of another message. */
const CLOSE = "(End of the summary.)";

const startsSummary = (t) => typeof t === "string" && (t.startsWith(HEADER) || t.startsWith(MARKER));

function omit(o, keys) {
  if (o === null || typeof o !== "object") return o;
  return Object.fromEntries(Object.keys(o).filter((k) => !keys.includes(k)).map((k) => [k, o[k]]));
}

function preview(v) {
  let s;
  try {
    s = JSON.stringify(v);
  } catch {
    s = String(v);
  }
  return s === undefined ? String(v) : s.length > 160 ? `${s.slice(0, 160)}...` : s;
}

/** The text of a merged summary part: `{ type, text }`. */
const partText = (p) => (p && typeof p === "object" ? p.text : undefined);

/**
 * The text of a content that is one text part: `[{ type: "text", text }]`, as AI SDK
 * messages written with arrays of parts only (the provider-level prompt) get it.
 */
const onePartText = (c) => (Array.isArray(c) && c.length === 1 && c[0]?.type === "text" ? partText(c[0]) : undefined);

/** Whether a content part is text, in any of the four formats. */
const isTextPart = (p) => p !== null && typeof p === "object" && ["text", "input_text", "output_text"].includes(p.type);
/** The parts of a content that are not text (images, files), in order. */
const nonText = (parts) => parts.filter((p) => !isTextPart(p));

/** Whether `o` is the message ctxfold adds: a summary or the marker, as a text message. */
export function isInserted(o) {
  if (o === null || typeof o !== "object") return false;
  const extra = Object.keys(o).filter((k) => !["role", "content", "type"].includes(k));
  if (extra.length !== 0) return false;
  if (Array.isArray(o.content)) return Object.keys(o.content[0] ?? {}).length === 2 && startsSummary(onePartText(o.content));
  return startsSummary(o.content);
}

/** Why `o` is not `orig` with its tool results' text replaced (null if it is). */
function prunedCopyProblem(format, orig, o) {
  switch (format) {
    case "openai":
      return typeof o.content === "string" ? null : "a pruned OpenAI tool message's content is not a string";
    case "openai-responses":
      if (typeof o.output === "string") return null;
      // An output in parts keeps its images and files, in order, beside one text part.
      if (!Array.isArray(orig.output) || !Array.isArray(o.output)) return "a pruned function output is neither a string nor parts";
      if (!deepEqual(nonText(orig.output), nonText(o.output))) return "a pruned function output lost or changed its images or files";
      return o.output.filter(isTextPart).length === 1 ? null : "a pruned function output in parts has not one text part";
    default: {
      const a = orig.content;
      const b = o.content;
      if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return "a pruned message's parts changed in number";
      for (let i = 0; i < a.length; i++) {
        if (deepEqual(a[i], b[i])) continue;
        const idKey = format === "anthropic" ? "tool_use_id" : "toolCallId";
        const type = format === "anthropic" ? "tool_result" : "tool-result";
        if (a[i]?.type !== type || b[i]?.type !== type || a[i][idKey] !== b[i][idKey]) return `part ${i} changed and is not a tool result`;
        const rest = format === "anthropic" ? ["content"] : ["output", "result"];
        if (!deepEqual(omit(a[i], rest), omit(b[i], rest))) return `tool result part ${i} changed beyond its output`;
      }
      return null;
    }
  }
}

/** Why `o` is not `orig` with a summary put at the start of its content (null if it is). */
function mergedCopyProblem(orig, o) {
  const a = orig.content;
  const b = o.content;
  if (typeof a === "string") return typeof b === "string" && b.endsWith(`\n\n${a}`) && startsSummary(b) ? null : "the merged content is not summary + blank line + the original";
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || b.length !== a.length + 1) return "the merged content is not the summary part + the original parts";
    if (!startsSummary(partText(b[0]))) return "the merged content's first part is not the summary";
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i + 1])) return `original part ${i} changed in the merged copy: ${preview(b[i + 1])}`;
    return null;
  }
  return startsSummary(b) ? null : "the merged content is not the summary";
}

/** Whether `o` can be a copy of `orig`: everything but the content (or output) the same. */
function sameFrame(orig, o) {
  if (orig === null || typeof orig !== "object" || o === null || typeof o !== "object") return false;
  const base = ["content", "output"];
  return deepEqual(omit(orig, base), omit(o, base));
}

/**
 * Why `o` is not `orig`'s text cut around a truncation marker (null if it is): the start
 * of the original, a line `[... truncated ...]`, the end of the original.
 */
function truncatedCopyProblem(format, orig, o) {
  // Several text parts are cut as one text, joined by line breaks.
  let text = typeof orig.content === "string" ? orig.content : Array.isArray(orig.content) ? orig.content.filter(isTextPart).map(partText).join("\n") : undefined;
  // AI SDK messages keep their shape: an array's one text part is cut in place, its other
  // fields (providerOptions) kept.
  let cutText = o.content;
  if (Array.isArray(orig.content) && orig.content.some((p) => !isTextPart(p))) {
    // Images or files beside the text: the text parts, as one, are cut into one text part;
    // the others stay, in order.
    if (!Array.isArray(o.content)) return "a truncated copy with images or files is not an array of parts";
    if (!deepEqual(nonText(orig.content), nonText(o.content))) return "a truncated copy lost or changed its images or files";
    const texts = o.content.filter(isTextPart);
    if (texts.length !== 1) return "a truncated copy with images or files has not one text part";
    text = orig.content.filter(isTextPart).map(partText).join("\n");
    cutText = partText(texts[0]);
  } else if (format === "ai-sdk" && Array.isArray(orig.content)) {
    cutText = onePartText(o.content);
    if (!deepEqual(omit(orig.content[0], ["text"]), omit(o.content[0], ["text"]))) return "a truncated part lost its other fields";
  }
  if (typeof cutText !== "string" || typeof text !== "string") return "a truncated copy's content is not text";
  const cut = /\n\[… truncated [^\n]*\]\n/.exec(cutText);
  if (!cut) return "a truncated copy without a marker line";
  const head = cutText.slice(0, cut.index);
  const tail = cutText.slice(cut.index + cut[0].length);
  // A cut text went through UTF-8: a lone surrogate of the original is U+FFFD in it.
  const whole = text.toWellFormed();
  if (whole.length > 0 && head.length === 0 && tail.length === 0) return "a truncated copy that keeps none of the original's words, only the marker";
  return whole.startsWith(head) && whole.endsWith(tail) ? null : "a truncated copy that is not the original's start and end";
}

/**
 * `o` without the summary merged at its start (the summary's closing line, or the marker,
 * and a blank line), or null when it does not start so.
 */
function withoutMergedSummary(o) {
  const strip = (t) => {
    if (!startsSummary(t)) return null;
    const end = t.startsWith(MARKER) ? `${MARKER}\n\n` : `\n${CLOSE}\n\n`;
    const at = t.indexOf(end);
    return at < 0 ? null : t.slice(at + end.length);
  };
  if (typeof o.content === "string") {
    const rest = strip(o.content);
    return rest === null ? null : { ...o, content: rest };
  }
  // Parts: the summary is at the start of the first (the only text part once cut; images
  // and files stay beside it).
  if (!Array.isArray(o.content) || !isTextPart(o.content[0])) return null;
  const rest = strip(partText(o.content[0]));
  return rest === null ? null : { ...o, content: [{ ...o.content[0], text: rest }, ...o.content.slice(1)] };
}

/** Why `o` is not a documented copy of input `j` (null if it is one). */
function copyProblem(format, orig, o, j, report) {
  const why = [];
  if (report.summaryMergedInto === j) why.push(mergedCopyProblem(orig, o));
  if (report.truncatedMessages.includes(j)) why.push(truncatedCopyProblem(format, orig, o));
  if (report.summaryMergedInto === j && report.truncatedMessages.includes(j)) {
    // The summary merged at the start, whole, and the message's own text cut after it.
    const rest = withoutMergedSummary(o);
    why.push(rest === null ? "a merged and truncated copy that does not start with the summary" : truncatedCopyProblem(format, orig, rest));
  }
  if (report.pruned.messages.includes(j)) why.push(prunedCopyProblem(format, orig, o));
  if (why.length === 0) return "not documented as copied";
  return why.includes(null) ? null : why.join("; ");
}

/**
 * Maps output items to input indexes. Returns `{ present: Map(input index -> output
 * index), inserted: [output index], problems: [string] }`.
 */
export function mapOutput(format, inItems, outItems, report) {
  const positions = new Map();
  inItems.forEach((m, i) => {
    if (m !== null && typeof m === "object") positions.set(m, [...(positions.get(m) ?? []), i]);
  });
  const copied = [...new Set([...report.pruned.messages, ...report.truncatedMessages, ...(report.summaryMergedInto === null ? [] : [report.summaryMergedInto])])].sort((a, b) => a - b);
  const present = new Map();
  const inserted = [];
  const problems = [];
  let next = 0;
  outItems.forEach((o, k) => {
    const same = positions.get(o);
    if (same) {
      const i = same.find((x) => x >= next);
      if (i === undefined) {
        problems.push(`output[${k}] is messages[${same.join(",")}] out of order (after messages[${next - 1}])`);
        return;
      }
      present.set(i, k);
      next = i + 1;
      return;
    }
    // A documented copy: the first later one with the same frame. A copy whose content is
    // not what the report says still stands for its message (so one wrong copy does not
    // also read as a lost message).
    // (A summary has the frame of any plain text message, and a caller's message may start
    // like a summary: a copy that checks out wins, then a summary, then a wrong copy.)
    const frames = copied.filter((x) => x >= next && sameFrame(inItems[x], o));
    const good = frames.find((x) => copyProblem(format, inItems[x], o, x, report) === null);
    if (good === undefined && isInserted(o)) {
      inserted.push(k);
      return;
    }
    const j = good ?? frames[0];
    if (j !== undefined) {
      const why = copyProblem(format, inItems[j], o, j, report);
      if (why !== null) problems.push(`output[${k}], the copy of messages[${j}], is wrong: ${why}`);
      else if (deepEqual(o, inItems[j])) problems.push(`output[${k}] is an unchanged copy of messages[${j}], not the caller's object`);
      present.set(j, k);
      next = j + 1;
      return;
    }
    problems.push(`output[${k}] is neither a caller's message, a documented copy, nor a summary: ${preview(o)}`);
  });
  return { present, inserted, problems };
}
