// The corpus (tests/corpus, or one of the same layout passed as --corpus), and what the
// benchmark precomputes per conversation: each message's text, its identity key, its exact
// token count, which identifiers and which probe answers it holds.

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { countMessages } from "ctxfold";
import { CORPUS_DIR, conversationFiles, conversationPath } from "../../../tests/support/corpus.mjs";

/** `explicit` (a corpus laid out as tests/corpus is), or the repository's own corpus. */
export function corpusDir(explicit) {
  const dir = explicit ?? CORPUS_DIR;
  if (!existsSync(join(dir, "conversations")) || !existsSync(join(dir, "identifiers.json"))) {
    throw new Error(`${dir} is not a corpus: it needs conversations/<source>/*.json and identifiers.json`);
  }
  return dir;
}

/** Every conversation file name, sorted. */
export function listConversations(dir) {
  return conversationFiles(dir).map((f) => f.file);
}

export const COUNT_OPTIONS = { model: "gpt-4o" }; // o200k_base, exact, with per-message framing
export const REPLY_PRIMING = 3;

/** The text a message carries: its content, and each tool call's name and arguments. */
export function messageText(m) {
  let t = typeof m.content === "string" ? m.content : "";
  for (const c of m.tool_calls ?? []) t += "\n" + c.function.name + "\n" + c.function.arguments;
  return t;
}

/** A key that is equal for two OpenAI chat messages exactly when they say the same thing. */
export function messageKey(m) {
  let k = m.role + "\u0001" + (m.content ?? "") + "\u0001" + (m.tool_call_id ?? "");
  for (const c of m.tool_calls ?? []) k += "\u0001" + c.id + "\u0002" + c.function.name + "\u0002" + c.function.arguments;
  return k;
}

/**
 * Exact o200k_base tokens of single messages, with the per-message framing that ctxfold's
 * countMessages({ model: "gpt-4o" }) adds: a request's input tokens are the sum over its
 * messages plus REPLY_PRIMING. countMessages rejects a tool result without its call, so a
 * tool message is counted after a minimal assistant call with its id (only its own count is
 * used). Cached by object and by content.
 */
export class TokenCounter {
  constructor() {
    this.byObject = new WeakMap();
    this.byKey = new Map();
  }
  /** Seeds the cache with the per-message counts of a whole (valid) conversation. */
  seed(messages, keys) {
    const counted = countMessages(messages, COUNT_OPTIONS);
    if (counted.messages.length !== messages.length) throw new Error("countMessages returned a different number of messages");
    let sum = 0;
    messages.forEach((m, i) => {
      const t = counted.messages[i].tokens;
      sum += t;
      this.byObject.set(m, t);
      this.byKey.set(keys[i], t);
    });
    if (sum + REPLY_PRIMING !== counted.total) throw new Error(`per-message counts add up to ${sum} + ${REPLY_PRIMING}, not ${counted.total}`);
    return counted.total;
  }
  /** Tokens of one OpenAI chat message. */
  tokens(m, key) {
    let t = this.byObject.get(m);
    if (t !== undefined) return t;
    key ??= messageKey(m);
    t = this.byKey.get(key);
    if (t === undefined) {
      if (m.role === "tool") {
        const call = { role: "assistant", content: "", tool_calls: [{ id: m.tool_call_id, type: "function", function: { name: "f", arguments: "{}" } }] };
        t = countMessages([call, m], COUNT_OPTIONS).messages[1].tokens;
      } else {
        t = countMessages([m], COUNT_OPTIONS).messages[0].tokens;
      }
      this.byKey.set(key, t);
    }
    this.byObject.set(m, t);
    return t;
  }
  /** A request's input tokens. */
  total(messages) {
    let s = REPLY_PRIMING;
    for (const m of messages) if (m) s += this.tokens(m);
    return s;
  }
  clear() {
    this.byObject = new WeakMap();
    this.byKey = new Map();
  }
}

/** Splits a probe answer into the items that must all be found: "A, B, C" -> [a, b, c]. */
export function answerItems(answer) {
  return String(answer)
    .split(/,\s*/)
    .map((s) => s.replace(/\s+/g, " ").trim().toLowerCase())
    .filter((s) => s.length > 0);
}

/**
 * Loads one conversation and precomputes what every method's measurement needs.
 * Identifiers come from identifiers.json (kind -> identifier -> { first, count }); an
 * identifier "occurs in" a message when the message's text contains it.
 */
export function loadConversation(dir, file, identifiersAll) {
  const conv = JSON.parse(readFileSync(conversationPath(file, dir), "utf8"));
  const messages = conv.messages;
  const n = messages.length;
  const text = messages.map(messageText);
  const lower = text.map((t) => t.toLowerCase());
  const keys = messages.map(messageKey);
  const indexByObject = new WeakMap(messages.map((m, i) => [m, i]));
  const indexesByKey = new Map();
  keys.forEach((k, i) => {
    const list = indexesByKey.get(k);
    if (list) list.push(i);
    else indexesByKey.set(k, [i]);
  });

  // Identifiers: where each occurs.
  const kinds = identifiersAll[conv.id] ?? {};
  const ids = [];
  for (const [kind, table] of Object.entries(kinds)) for (const id of Object.keys(table)) ids.push({ id, kind, occ: [] });
  for (const rec of ids) for (let i = 0; i < n; i++) if (text[i].includes(rec.id)) rec.occ.push(i);
  const idsMissing = ids.filter((r) => r.occ.length === 0).length;

  // Probes whose answer can be checked as strings: every item of the answer occurs in one
  // of its evidence messages (LoCoMo's adversarial "Not answerable" and paraphrased answers
  // cannot be, and are left out).
  const probes = [];
  let probesTotal = 0;
  for (const p of conv.probes ?? []) {
    probesTotal++;
    const ev = (p.evidence_message_indexes ?? []).filter((i) => Number.isInteger(i) && i >= 0 && i < n);
    if (ev.length === 0) continue;
    const items = answerItems(p.answer);
    if (items.length === 0) continue;
    if (!items.every((it) => ev.some((i) => lower[i].includes(it)))) continue;
    probes.push({
      question: p.question,
      answer: p.answer,
      origin: p.origin?.startsWith("dataset") ? "locomo" : "derived",
      evidence: ev,
      lastEvidence: Math.max(...ev),
      items: items.map((it) => ({ text: it, occ: lower.flatMap((t, i) => (t.includes(it) ? [i] : [])) })),
    });
    // "Unique": every item of the answer occurs only in the evidence messages, so no other
    // message kept verbatim can hold it by coincidence.
    const last = probes[probes.length - 1];
    last.unique = last.items.every((it) => it.occ.every((i) => ev.includes(i)));
  }

  // Model calls: before every assistant message, and once at the end.
  const calls = [];
  for (let k = 1; k < n; k++) if (messages[k].role === "assistant") calls.push(k);
  if (calls[calls.length - 1] !== n) calls.push(n);

  return {
    id: conv.id,
    file,
    source: file.split("__")[0],
    messages,
    text,
    lower,
    keys,
    indexByObject,
    indexesByKey,
    ids,
    idsMissing,
    probes,
    probesTotal,
    calls,
    bytes: text.reduce((s, t) => s + t.length, 0),
  };
}
