// One case per (seed, index): a valid conversation with random options and follow-up
// turns, an invalid call that must fail with a typed error, or texts to count against
// js-tiktoken. A case is plain JSON (see materialize.mjs for its `$`-tags).
import { Random } from "./random.mjs";
import { text, textContext, textSize } from "./text.mjs";
import { FORMATS, abstractConversation, conversationState, moreTurns, render, turnCount } from "./conversation.mjs";
import { BEHAVIOURS, MIXABLE } from "./summarizers.mjs";
import { invalidCase } from "./invalid.mjs";

export const EXACT_MODELS = ["gpt-4o", "gpt-4o-mini", "gpt-4.1", "gpt-4", "gpt-3.5-turbo", "gpt-5", "o3-mini"];
export const ESTIMATED_MODELS = [
  "claude-sonnet-4-5",
  "claude-3-5-haiku-20241022",
  "claude-opus-4-1",
  "gemini-2.5-pro",
  "gemini-2.0-flash",
  "llama-3.1-70b-instruct",
  "meta-llama/Llama-3.3-70B-Instruct",
  "mistral-large-latest",
  "unknown-model-xyz",
];
export const ENCODINGS = ["o200k_base", "cl100k_base"];

/** Which tokenizer counts: `{ model }` or `{ encoding }`. */
function counting(r) {
  return r.weighted([
    [40, () => ({ model: r.pick(EXACT_MODELS) })],
    [40, () => ({ model: r.pick(ESTIMATED_MODELS) })],
    [20, () => ({ encoding: r.pick(ENCODINGS) })],
  ])();
}

/** A summarizer: none (the built-in extractive one), "extractive", or a JS function. */
function summarizerSpec(r) {
  return r.weighted([
    [25, null],
    [8, "extractive"],
    [60, { kind: r.weighted([[20, "good"], [15, "mixed"], ...Object.keys(BEHAVIOURS).filter((k) => k !== "good").map((k) => [4, k])]) }],
    [7, { kind: "by-part", kinds: [r.pick(MIXABLE), r.pick(MIXABLE), r.pick(MIXABLE)].slice(0, r.int(2, 3)) }],
  ]);
}

/**
 * Compaction options. The window is often sized against the conversation (about its
 * size, so compaction triggers) and otherwise anywhere from tiny to large.
 */
function compactOptions(r, format, approxTokens, count, summarizer) {
  // A tight profile: a window below the conversation's size, where summaries, markers,
  // merges into neighbours and truncation all happen at once.
  if (r.chance(0.12)) return tightOptions(r, format, approxTokens, count, summarizer);
  const o = { ...count };
  const sized = () => Math.max(200, Math.round(approxTokens * Math.exp(r.next() * Math.log(15)) / 5));
  const window = r.weighted([
    // No window: the model's own (an encoding, or a model ctxfold does not know, needs one).
    [count.encoding || count.model === "unknown-model-xyz" ? 0 : 25, null],
    [30, sized],
    [10, () => r.int(300, 1500)],
    [15, () => r.int(1500, 8000)],
    [12, () => r.int(8000, 40000)],
    [8, () => r.int(64000, 1_100_000)],
  ]);
  if (window) o.contextWindow = window();
  const w = o.contextWindow ?? 128000;
  const maybe = (p, key, value) => {
    if (r.chance(p)) o[key] = value();
  };
  maybe(0.35, "format", () => format);
  maybe(0.1, "preset", () => r.pick(["off", "default", "conservative", "aggressive"]));
  maybe(0.2, "thresholdRatio", () => r.pick([0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 1]));
  maybe(0.3, "tokenFloor", () => r.pick([0, 1, 50, 500, 4096, 50000]));
  if (o.contextWindow) maybe(0.12, "reservedOutputTokens", () => r.int(0, Math.floor(w / 2)));
  if (r.chance(0.15)) o.keepRecentTokens = r.logInt(0, w);
  else maybe(0.2, "bufferTurns", () => r.int(0, 8));
  maybe(0.1, "bufferMaxRatio", () => r.pick([0.01, 0.1, 0.3, 0.8, 1]));
  maybe(0.1, "pinFirstUserTurn", () => r.chance(0.7));
  maybe(0.2, "toolOutputMaxBytes", () => r.logInt(1, 20000));
  maybe(0.12, "pruneThresholdTokens", () => r.logInt(0, 5000));
  maybe(0.1, "defaultToolPolicy", () => r.pick(["keep", "truncate", "stub", "summarize"]));
  maybe(0.08, "toolPolicies", () => ({ [r.pick(["bash", "read_file", "search", "ツール"])]: r.pick(["keep", "truncate", "stub", "summarize"]) }));
  maybe(0.2, "summaryMaxTokens", () => r.weighted([[3, r.int(64, 300)], [2, r.int(300, 4096)], [1, r.int(4096, 32768)]]));
  maybe(0.1, "ledgerMaxTokens", () => r.logInt(0, 3000));
  // Small summarizer inputs split the middle into many calls and make the chunker elide.
  maybe(count.model && ESTIMATED_MODELS.includes(count.model) ? 0.4 : 0.25, "summarizerInputTokens", () => r.weighted([[3, r.int(256, 700)], [2, r.int(700, 20000)], [1, r.int(20000, 500000)]]));
  maybe(0.12, "summaryRole", () => r.pick(["assistant", "user", "system"]));
  maybe(0.2, "alternateRoles", () => r.chance(0.8));
  maybe(0.15, "strategy", () => r.pick(["additive", "rolling"]));
  maybe(0.1, "foldRatio", () => r.pick([0.001, 0.05, 0.15, 0.5, 1]));
  maybe(0.25, "fallback", () => r.pick(["extractive", "marker", "error"]));
  maybe(0.2, "overflow", () => r.pick(["error", "truncate"]));
  maybe(0.05, "summaryPrompt", () => text(r, { unicode: 1, control: 0, lone: 0, injection: 1 }, r.int(0, 300)));
  maybe(0.05, "instructions", () => text(r, { unicode: 1, control: 0, lone: 0, injection: 1 }, r.int(0, 100)));
  maybe(0.12, "manual", () => r.chance(0.9));
  if (summarizer !== null) o.summarizer = summarizer === "extractive" ? "extractive" : { $summarizer: summarizer };
  const timing = summarizer?.kind && BEHAVIOURS[summarizer.kind]?.timing;
  if (timing) o.summarizerTimeoutMs = 50;
  else maybe(0.15, "summarizerTimeoutMs", () => r.pick([1000, 5000, 25000]));
  if (r.chance(0.03)) o.state = null;
  return o;
}

function tightOptions(r, format, approxTokens, count, summarizer) {
  const o = { ...count, contextWindow: Math.max(300, Math.round(approxTokens * (0.1 + r.next() * 0.9))) };
  o.alternateRoles = r.chance(0.7);
  o.fallback = r.pick(["extractive", "marker", "marker", "error"]);
  if (r.chance(0.4)) o.overflow = "truncate";
  if (r.chance(0.3)) o.bufferTurns = r.int(0, 2);
  if (r.chance(0.3)) o.summaryMaxTokens = r.int(64, 200);
  if (r.chance(0.2)) o.pinFirstUserTurn = true;
  if (r.chance(0.3)) o.format = format;
  if (summarizer !== null) o.summarizer = summarizer === "extractive" ? "extractive" : { $summarizer: summarizer };
  if (summarizer?.kind && BEHAVIOURS[summarizer.kind]?.timing) o.summarizerTimeoutMs = 50;
  return o;
}

/** Items of a rendered conversation (the array, or the envelope's messages). */
const itemsOf = (m) => (Array.isArray(m) ? m : m.messages);

/** A valid conversation, compacted over several turns. */
function conversationCase(r, format) {
  const ctx = textContext(r);
  const turns = turnCount(r);
  if (turns > 30) ctx.scale = Math.min(ctx.scale, 0.3); // hundreds of messages, chat-sized
  const st = conversationState(r, ctx);
  const { messages } = render(r, st, format, abstractConversation(r, st, turns));
  const bytes = JSON.stringify(messages).length;
  const count = counting(r);
  const summarizer = summarizerSpec(r);
  const options = compactOptions(r, format, bytes / 4, count, summarizer);
  const followups = [];
  for (let k = r.weighted([[50, 0], [30, 1], [15, r.int(2, 3)], [5, r.int(4, 6)]]); k > 0; k--) {
    const rendered = render(r, st, format, moreTurns(r, st, r.int(1, 3))).messages;
    const mode = r.weighted([[45, "push"], [20, "copy"], [15, "clone"], [10, "edit"], [10, "output"]]);
    const f = { mode, append: itemsOf(rendered) };
    if (mode === "edit") {
      // An edited history: a plain message's text changed in place (the state no longer holds).
      const all = itemsOf(messages);
      const plain = all.map((m, i) => [m, i]).filter(([m]) => typeof m.content === "string" && !Object.keys(m).some((k) => k.startsWith("$")));
      if (plain.length) f.edit = { index: r.pick(plain)[1], content: text(r, ctx, r.int(0, 200)) };
      else f.mode = "push";
    }
    followups.push(f);
  }
  // Sometimes the cache has already seen this conversation's first plain messages, in a
  // conversation of another format (a chat app that switched provider mid-history).
  let prime = null;
  if (r.chance(0.08)) {
    const other = r.pick(FORMATS.filter((x) => x !== format));
    const pst = conversationState(r, ctx);
    pst.nextId = 100000;
    pst.exotic = false;
    pst.huge = false;
    prime = { format: other, append: itemsOf(render(r, pst, other, moreTurns(r, pst, r.int(1, 2))).messages) };
  }
  const timing = summarizer?.kind && BEHAVIOURS[summarizer.kind]?.timing;
  return {
    kind: "conversation",
    prime,
    format,
    messages,
    options,
    count: { ...count, ...(options.format ? { format } : {}) },
    followups,
    concurrent: !timing && bytes < 150_000 && r.chance(0.04) ? 50 : 0,
    sampleTexts: r.int(0, 4),
  };
}

/** Texts counted against js-tiktoken: mixed, dense, huge, with lone surrogates. */
function textCase(r) {
  const ctx = textContext(r);
  ctx.lone = r.chance(0.3) ? 1 : ctx.lone;
  const texts = [];
  for (let k = r.int(1, 8); k > 0; k--) texts.push(text(r, ctx, textSize(r, r.pick([0.3, 1, 2]))));
  return { kind: "text", texts, models: [r.pick(EXACT_MODELS), r.pick(ESTIMATED_MODELS)] };
}

/**
 * The case at `index` of a run seeded `seed`, in `format` only if one is given.
 * Pure: the parent regenerates a case that hung or crashed its worker.
 */
export function generateCase(seed, index, format) {
  const r = Random.forCase(seed, index, format);
  const kind = r.weighted([
    [72, "conversation"],
    [18, "invalid"],
    [format ? 0 : 10, "text"],
  ]);
  const f = format ?? r.pick(FORMATS);
  const c = kind === "conversation" ? conversationCase(r, f) : kind === "invalid" ? invalidCase(r, f) : textCase(r);
  return { v: 1, seed, index, filter: format ?? null, ...c };
}
