// Runs one case against the package and checks every result by recounting it
// independently. Runs inside a worker (worker.mjs); returns the failures found.
//
// Failure kinds: trap (a WebAssembly.RuntimeError), untyped-error (anything thrown that is
// not an Error with a documented code and name that isCtxfoldError accepts),
// rejected-valid (a typed error on a valid input, other than the documented
// CONTEXT_OVERFLOW and SUMMARIZER_FAILED), accepted-invalid, wrong-code,
// broken-after-error (the canary conversation counts differently, or fails, after an
// error), and invariant (a broken property of a result; `check` names which).
import { readFileSync } from "node:fs";
import * as ctxfold from "ctxfold";
import { Tiktoken } from "js-tiktoken/lite";
import o200kRanks from "js-tiktoken/ranks/o200k_base";
import cl100kRanks from "js-tiktoken/ranks/cl100k_base";
import { Random } from "./random.mjs";
import { referenceFriendly } from "./text.mjs";
import { deepClone, deepEqual, freshCanary, materialize, snapshot } from "./materialize.mjs";
import { INJECTED, INVENTED, knownBad } from "./summarizers.mjs";
import { holdsCompaction, inspect, itemsOf, pairingProblems, toldFormat } from "./formats.mjs";
import { mapOutput } from "./output.mjs";

const { countTokens, countMessages, plan, compact, getModel, isCtxfoldError } = ctxfold;

/** The error codes, as the package's own types declare them (`CtxfoldErrorCode`). */
export const CODES = (() => {
  const dts = readFileSync(new URL("./dist/full/ctxfold.d.ts", import.meta.resolve("ctxfold")), "utf8");
  const union = /export type CtxfoldErrorCode =[\s\S]*?\| "[A-Z_]+";/.exec(dts)[0];
  return [...union.matchAll(/"([A-Z_]+)"/g)].map((m) => m[1]);
})();
const NAMES = ["CtxfoldError", "TypeError", "RangeError"];

/**
 * js-tiktoken with OpenAI's split patterns read as tiktoken reads them: `\s` is Unicode
 * White_Space. A JS regex's `\s` also matches U+FEFF and misses U+0085, so stock
 * js-tiktoken splits (and counts) texts holding those differently from tiktoken; this one
 * agreed with tiktoken-rs 0.12.1 on 3,004 generated texts, those characters included.
 */
function tiktokenEncoder(ranks) {
  const pat = ranks.pat_str.replaceAll("\\s", "\\p{White_Space}").replaceAll("\\S", "\\P{White_Space}");
  return new Tiktoken({ ...ranks, pat_str: pat });
}
const ranks = { o200k_base: o200kRanks, cl100k_base: cl100kRanks };
const encoders = {};
/** The reference count, special-token strings as ordinary text (as providers count content). */
export function reference(text, encoding) {
  encoders[encoding] ??= tiktokenEncoder(ranks[encoding]);
  return encoders[encoding].encode(text, [], []).length;
}

function describeError(e) {
  if (e instanceof Error) return `${e.name}${e.code === undefined ? "" : ` [${e.code}]`}: ${e.message.slice(0, 300)}`;
  try {
    return `non-Error thrown: ${typeof e} ${String(e).slice(0, 200)}`;
  } catch {
    return `non-Error thrown: ${typeof e}`;
  }
}

/** The failure list of one case, and the helpers that add to it. */
class Findings {
  constructor() {
    this.failures = [];
    this.step = "";
    this.recycle = false; // the module may be left broken: the worker is replaced
    this.seen = new Set(); // what the case exercised, for the run's coverage line
  }

  fail(kind, check, message) {
    if (this.failures.length >= 20) return;
    if (kind === "trap" || kind === "broken-after-error") this.recycle = true;
    this.failures.push({ kind, check, step: this.step, message: String(message).slice(0, 2000) });
  }

  check(ok, check, message) {
    if (!ok) this.fail("invariant", check, typeof message === "function" ? message() : message);
    return ok;
  }

  /**
   * Classifies a thrown value: a wasm trap, an untyped error, or a typed error whose code
   * is (or is not) one of `allowed`. Returns the code, or null if it was not typed.
   */
  thrown(e, allowed, kindIfNotAllowed) {
    if (e instanceof WebAssembly.RuntimeError) {
      this.fail("trap", "wasm trap", describeError(e));
      return null;
    }
    const typed = e instanceof Error && typeof e.code === "string" && CODES.includes(e.code) && NAMES.includes(e.name) && isCtxfoldError(e) === true;
    if (!typed) {
      this.fail("untyped-error", e instanceof Error && e.code === undefined ? "no code" : "not a typed error", describeError(e));
      return null;
    }
    if (!allowed.includes(e.code)) this.fail(kindIfNotAllowed, e.code, describeError(e));
    else this.seen.add(e.code);
    return e.code;
  }
}

/** A result without what legitimately differs between equal calls (times, dates, cache hits). */
function normalized(result) {
  return JSON.stringify(result, (k, v) => (k === "timings" || k === "createdAt" || k === "cached" ? undefined : v));
}

/** The canary: counted, planned and compacted before and after every error. */
class Canary {
  constructor(precount) {
    this.objects = freshCanary();
    const copy = deepClone(this.objects);
    this.count = normalized(countMessages(copy, { model: "gpt-4o" }));
    this.plan = normalized(plan(copy, Canary.planOptions));
    this.copy = copy;
    if (precount) countMessages(this.objects, { model: "gpt-4o" });
  }

  static planOptions = { model: "gpt-4o", contextWindow: 2000, manual: true };

  async baselineCompact() {
    this.compact ??= normalized(await compact(deepClone(this.copy), Canary.planOptions));
    return this.compact;
  }

  /** After an error: the same calls on the same objects give the same results. */
  check(f) {
    const was = f.step;
    f.step = `${was} -> canary`;
    try {
      const c = normalized(countMessages(this.objects, { model: "gpt-4o" }));
      if (c !== this.count) f.fail("broken-after-error", "countMessages differs", `${c.slice(0, 300)} != ${this.count.slice(0, 300)}`);
      const p = normalized(plan(this.objects, Canary.planOptions));
      if (p !== this.plan) f.fail("broken-after-error", "plan differs", `${p.slice(0, 300)} != ${this.plan.slice(0, 300)}`);
    } catch (e) {
      f.fail("broken-after-error", "the canary throws", describeError(e));
    }
    f.step = was;
  }

  async checkCompact(f) {
    const was = f.step;
    f.step = `${was} -> canary compact`;
    try {
      const base = await this.baselineCompact();
      const c = normalized(await compact(this.objects, Canary.planOptions));
      if (c !== base) f.fail("broken-after-error", "compact differs", `${c.slice(0, 300)} != ${base.slice(0, 300)}`);
    } catch (e) {
      f.fail("broken-after-error", "the canary's compact throws", describeError(e));
    }
    f.step = was;
  }
}

/** The encoding an exact counting option stands for, or null for an estimate. */
function exactEncoding(count) {
  if (count.encoding) return count.encoding;
  const t = getModel(count.model).tokenizer;
  return t.kind === "exact" ? t.encoding : null;
}

const counting = (o) => (o.encoding ? { encoding: o.encoding } : { model: o.model });

function strings(v, out = []) {
  if (typeof v === "string") out.push(v);
  else if (Array.isArray(v)) v.forEach((x) => strings(x, out));
  else if (v && typeof v === "object") Object.values(v).forEach((x) => strings(x, out));
  return out;
}

// ------------------------------------------------------------------------ text cases

function runText(desc, f) {
  for (const [k, t] of desc.texts.entries()) {
    f.step = `countTokens(texts[${k}])`;
    const friendly = referenceFriendly(t);
    for (const encoding of ["o200k_base", "cl100k_base"]) {
      try {
        const n = countTokens(t, { encoding });
        if (friendly) {
          const want = reference(t, encoding);
          f.check(n === want, "countTokens equals js-tiktoken", () => `${encoding}: ${n}, js-tiktoken ${want}, for ${JSON.stringify(t.slice(0, 120))} (${t.length} units)`);
        }
      } catch (e) {
        f.thrown(e, [], "rejected-valid");
      }
    }
    for (const model of desc.models) {
      try {
        const n = countTokens(t, { model });
        const enc = exactEncoding({ model });
        if (enc && friendly) {
          const want = reference(t, enc);
          f.check(n === want, "countTokens equals js-tiktoken", () => `${model}: ${n}, js-tiktoken ${want}`);
        } else {
          f.check(Number.isInteger(n) && n >= 0 && (t !== "" || n === 0), "an estimate is a count", () => `${model}: ${n} for ${t.length} units`);
        }
      } catch (e) {
        f.thrown(e, [], "rejected-valid");
      }
    }
  }
}

// --------------------------------------------------------------------- invalid cases

async function runInvalid(desc, f) {
  const canary = new Canary(desc.canary?.precount);
  const env = { canary: canary.objects, summarizers: [] };
  const options = materialize(desc.options, env);
  f.step = `${desc.call} (${desc.what})`;
  let threw = false;
  try {
    if (desc.call === "countTokens") countTokens(materialize(desc.text, env), options);
    else {
      const messages = materialize(desc.messages, env);
      if (desc.call === "countMessages") countMessages(messages, options);
      else if (desc.call === "plan") plan(messages, options);
      else {
        let promise;
        try {
          promise = compact(messages, options);
        } catch (e) {
          f.fail("invariant", "compact throws synchronously", `compact() threw instead of rejecting: ${describeError(e)}`);
          throw e;
        }
        await promise;
      }
    }
  } catch (e) {
    threw = true;
    f.thrown(e, desc.expect, "wrong-code");
  }
  if (!threw) f.fail("accepted-invalid", desc.call, `${desc.call} accepted ${desc.what}`);
  canary.check(f);
  await canary.checkCompact(f);
}

// ---------------------------------------------------------------- conversation cases

/** The input's items, and Anthropic's envelope around them. */
function withItems(messages, items) {
  return Array.isArray(messages) ? items : { ...messages, messages: items };
}

function checkCount(desc, f, messages, res, state) {
  const items = itemsOf(messages);
  const sum = res.messages.reduce((s, m) => s + m.tokens, 0);
  f.check(res.total === sum + res.replyPriming, "countMessages total is the sum", () => `total ${res.total}, messages ${sum} + priming ${res.replyPriming}`);
  const system = res.messages.filter((m) => m.index === null).length;
  f.check(res.messages.length === items.length + system, "countMessages counts every message", () => `${res.messages.length} counts for ${items.length} messages`);
  if (!desc.count.format) {
    const told = toldFormat(desc.format, messages);
    const envelopeSystem = desc.format === "anthropic" && !Array.isArray(messages) && "system" in messages;
    const expected = told ?? (envelopeSystem ? "anthropic" : null);
    f.check(expected === null || res.format === expected, "format detection", () => `a ${desc.format} conversation (${told ? "with messages only that format has" : "with a top-level system"}) was read as ${res.format}`);
  }
  // Counted again from fresh copies (never seen by the cache): the same counts.
  if (!state.cloneChecked) {
    state.cloneChecked = true;
    const again = countMessages(deepClone(messages), desc.count);
    f.check(normalized(again) === normalized(res), "counts of fresh copies equal", () => `fresh copies: ${again.format}, ${again.total} tokens; these objects: ${res.format}, ${res.total} tokens`);
  }
}

function checkExactSample(desc, f, messages) {
  const enc = exactEncoding(desc.count);
  if (!enc || !desc.sampleTexts) return;
  const all = strings(desc.messages).filter((s) => s.length > 0 && referenceFriendly(s));
  const r = new Random(desc.index ?? 0);
  for (let k = 0; k < desc.sampleTexts && all.length; k++) {
    const t = all[r.int(0, all.length - 1)];
    f.step = "countTokens(sample)";
    try {
      const n = countTokens(t, counting(desc.count));
      const want = reference(t, enc);
      f.check(n === want, "countTokens equals js-tiktoken", () => `${JSON.stringify(desc.count)}: ${n}, js-tiktoken ${want}, for ${JSON.stringify(t.slice(0, 120))}`);
    } catch (e) {
      f.thrown(e, [], "rejected-valid");
    }
  }
}

function checkPlan(f, p, count) {
  const t = p.tokens;
  f.check(t.total === t.head + t.summaries + t.middle + t.tail + t.framing, "plan tokens add up", () => JSON.stringify(t));
  if (count !== null) f.check(t.total === count, "plan total equals countMessages", () => `plan ${t.total}, countMessages ${count}`);
}

/** Checks one successful compact() result against its input and options. */
function checkCompact(desc, f, { messages, options, result, detected, planned, summ, callsBefore, evictedBefore }) {
  const { report, state } = result;
  const seen = (what, yes) => yes && f.seen.add(what);
  seen("compacted", report.evicted.length > 0);
  seen("fallback", report.fallback !== null);
  seen("merged", report.summaryMergedInto !== null);
  seen("pruned", report.pruned.messages.length > 0);
  seen("truncated", report.truncatedMessages.length > 0);
  seen("folded", report.folded);
  seen("state used", options.state && report.stateReset === null && state.chunks.length > 0);
  seen("state reset", report.stateReset !== null);
  const inItems = itemsOf(messages);
  const out = result.messages;
  if (!f.check(Array.isArray(messages) ? Array.isArray(out) : out && Array.isArray(out.messages), "output shape", () => `output is ${typeof out}`)) return;
  const outItems = itemsOf(out);
  const preset = options.preset ?? "default";

  // Fits (every preset, "off" included: over the budget it throws CONTEXT_OVERFLOW or
  // truncates), and the report's count is the output's count.
  f.check(report.tokensAfter <= report.budget.input, "fits the input budget", () => `tokensAfter ${report.tokensAfter} > budget.input ${report.budget.input}`);
  try {
    const recount = countMessages(out, { ...counting(options), format: detected });
    f.check(recount.total === report.tokensAfter, "tokensAfter equals a recount", () => `countMessages(output) ${recount.total}, report.tokensAfter ${report.tokensAfter}`);
  } catch (e) {
    f.fail("invariant", "output parses again", `countMessages(output, { format: ${JSON.stringify(detected)} }) threw ${describeError(e)}`);
  }
  if (!options.format) {
    try {
      countMessages(out, counting(options));
    } catch (e) {
      f.fail("invariant", "output parses again (format detected)", `countMessages(output) without a format threw ${describeError(e)}`);
    }
  }

  // Every call has its result and every result its call (the input's own gaps aside).
  const inputProblems = new Set(pairingProblems(detected, inItems).map((p) => p.replace(/^output\[\d+\] /, "")));
  const problems = pairingProblems(detected, outItems).filter((p) => !inputProblems.has(p.replace(/^output\[\d+\] /, "")));
  f.check(problems.length === 0, "tool calls paired", () => problems.slice(0, 3).join("; "));

  // Which output message is which input message; order; identity; accounting.
  const mapped = mapOutput(detected, inItems, outItems, report);
  for (const p of mapped.problems.slice(0, 3)) f.fail("invariant", "output messages are the caller's, in order", p);
  // A message is in the output, or evicted this turn, or (with the state passed back and
  // used) evicted in an earlier turn of this history.
  const evicted = new Set(report.evicted);
  const stateUsed = options.state && report.stateReset === null && preset !== "off";
  const earlier = stateUsed ? evictedBefore : new Set();
  const missing = [];
  const both = [];
  inItems.forEach((_, i) => {
    if (mapped.present.has(i) && evicted.has(i)) both.push(i);
    if (!mapped.present.has(i) && !evicted.has(i) && !earlier.has(i)) missing.push(i);
  });
  f.check(missing.length === 0, "every message kept or evicted", () => `messages ${missing.slice(0, 10).join(", ")}${missing.length > 10 ? ", ..." : ""} of ${inItems.length} are neither in the output nor in report.evicted (evicted: ${report.evicted.length}, ${earlier.size} in earlier turns)`);
  f.check(both.length === 0, "evicted messages are not kept", () => `messages ${both.slice(0, 10).join(", ")} are in report.evicted and in the output`);
  f.check(mapped.inserted.length <= 1, "at most one summary message", () => `${mapped.inserted.length} inserted messages`);

  // What a provider's own compaction left goes whole in every output: never evicted,
  // summarized, cut or merged.
  const outJson = new Set(outItems.map((m) => JSON.stringify(m)));
  const lost = inItems.flatMap((m, i) => (holdsCompaction(detected, m) && !outJson.has(JSON.stringify(m)) ? [i] : []));
  seen("provider compaction", inItems.some((m) => holdsCompaction(detected, m)));
  f.check(lost.length === 0, "provider compaction kept whole", () => `messages ${lost.slice(0, 10).join(", ")} hold a provider's compaction and are not in the output as they came`);

  // The head and the newest user message stay; the request never ends with the summary.
  const infos = inItems.map((m) => inspect(detected, m));
  for (let i = 0; i < infos.length && infos[i].role === "system"; i++) {
    f.check(mapped.present.has(i), "head kept", () => `system message ${i} is not in the output`);
  }
  const newest = infos.findLastIndex((x) => x.startsTurn);
  if (newest >= 0) {
    f.check(mapped.present.has(newest), "newest user message kept", () => `messages[${newest}] is not in the output`);
    f.check(!mapped.inserted.includes(outItems.length - 1), "the request does not end with the summary", "the last output message is the summary");
  }

  // The report agrees with itself, with plan(), and with the state.
  f.check(report.summaryChunks === state.chunks.length, "summaryChunks is the state's chunks", () => `${report.summaryChunks} != ${state.chunks.length}`);
  if (result.contextStatus === "full") f.check(report.summaryChunks === 0 && report.truncatedMessages.length === 0, "contextStatus full means nothing summarized", () => JSON.stringify(report.truncatedMessages));
  f.check(["full", "summarized", "truncated"].includes(result.contextStatus), "contextStatus", result.contextStatus);
  if (report.trigger === null) f.check(report.evicted.length === 0, "nothing evicted without a trigger", () => `${report.evicted.length} evicted`);
  if (planned) {
    f.check(report.tokensBefore === planned.tokens.given, "tokensBefore is the input plan was given", () => `${report.tokensBefore} != ${planned.tokens.given}`);
    const want = planned.trigger && planned.evict.length ? planned.evict : [];
    f.check(deepEqual(report.evicted, want), "evicted is what plan said", () => `compact evicted [${report.evicted.slice(0, 12)}], plan [${want.slice(0, 12)}]`);
  }
  let plainState;
  try {
    plainState = JSON.parse(JSON.stringify(state));
  } catch (e) {
    plainState = e;
  }
  f.check(deepEqual(plainState, state), "state is plain JSON", "state does not survive JSON.stringify");

  // The summarizer: what it was asked, and what became of its replies.
  if (summ) {
    const calls = summ.log.calls.slice(callsBefore).filter((c) => c.kind === "summarize");
    const covered = new Set(calls.flatMap((c) => c.request.covers));
    if (report.evicted.length) {
      f.check(calls.length > 0, "evicted messages are summarized", `${report.evicted.length} messages evicted, no summarizer call`);
      f.check(deepEqual([...covered].sort((a, b) => a - b), [...report.evicted].sort((a, b) => a - b)), "summarizer calls cover the evicted messages", () => `covers [${[...covered].slice(0, 12)}], evicted [${report.evicted.slice(0, 12)}]`);
    }
    for (const c of calls) {
      const q = c.request;
      if (options.summaryMaxTokens !== undefined) f.check(q.maxTokens === options.summaryMaxTokens, "request.maxTokens is summaryMaxTokens", () => `${q.maxTokens} != ${options.summaryMaxTokens}`);
      f.check(q.timeoutMs === (options.summarizerTimeoutMs ?? 25000), "request.timeoutMs", () => `${q.timeoutMs}`);
      f.check(q.signal instanceof AbortSignal, "request.signal", "not an AbortSignal");
      if (c.behaviour === "never") f.check(q.signal.aborted, "the deadline aborts the signal", "a summarizer that never answered still has a live signal");
    }
    const bad = calls.some((c) => knownBad(c.behaviour, options.summaryMaxTokens));
    if (bad) {
      if (options.manual || options.fallback === "error") f.fail("invariant", "a failed summary throws", `a ${options.manual ? "manual" : 'fallback: "error"'} compaction used a summarizer that answered ${calls.map((c) => c.behaviour).join(", ")} and did not throw`);
      else f.check(report.fallback?.kind === (options.fallback ?? "extractive"), "a failed summary falls back", () => `summarizer answered ${calls.map((c) => c.behaviour).join(", ")}; report.fallback ${JSON.stringify(report.fallback)}`);
    }
    if (calls.length && !bad && report.fallback === null) {
      // An identifier an earlier summary holds (passed back in the state, or kept in a
      // history built from an earlier output) is part of the conversation now.
      const known = JSON.stringify(options.state ?? null).includes(INVENTED[0]) || snapshot(messages).includes(INVENTED[0]);
      if (!known && calls.some((c) => c.behaviour === "unknown-ids")) f.check(report.unsupportedIds.includes(INVENTED[0]), "invented identifiers reported", () => `unsupportedIds ${JSON.stringify(report.unsupportedIds)}`);
      if (calls.some((c) => c.behaviour === "injection")) f.check(report.droppedSummaryLines.includes(INJECTED), "injected lines dropped and reported", () => `droppedSummaryLines ${JSON.stringify(report.droppedSummaryLines).slice(0, 300)}`);
    }
    f.check(!state.chunks.some((c) => c.text.includes("zq-inject-4417")), "no injected line in a summary", "a summary chunk holds the injected instruction");
  } else if (report.evicted.length) {
    f.check(report.fallback === null, "the extractive summary never falls back", () => JSON.stringify(report.fallback));
  }
}

const COMPACT_ERRORS = (options) => ["CONTEXT_OVERFLOW", ...(options.manual || options.fallback === "error" ? ["SUMMARIZER_FAILED"] : [])];

async function runConversation(desc, f) {
  const canary = new Canary(false);
  const env = { canary: canary.objects, summarizers: [] };
  let messages = materialize(desc.messages, env);
  const baseOptions = materialize(desc.options, env);
  const summ = env.summarizers[0] ?? null;
  let state = baseOptions.state;
  const memo = {};
  let first = null; // turn 0's compact result, for the concurrency check
  let last = null; // the previous turn's result
  let evictedBefore = new Set(); // indexes evicted in earlier turns of this history

  if (desc.prime) {
    // The same leading plain messages (these very objects), counted first in a
    // conversation of another format.
    f.step = `countMessages(the first messages in a ${desc.prime.format} conversation)`;
    const plain = (m) => m && typeof m === "object" && (m.role === "user" || m.role === "assistant") && typeof m.content === "string" && Object.keys(m).length === 2;
    const items = itemsOf(messages);
    const end = items.findIndex((m) => !plain(m));
    const lead = items.slice(0, end < 0 ? items.length : end);
    const other = [...lead, ...materialize(desc.prime.append, env)];
    try {
      countMessages(other, { model: "gpt-4o" });
    } catch (e) {
      f.thrown(e, [], "rejected-valid");
    }
  }

  for (let turn = 0; turn <= desc.followups.length; turn++) {
    const tag = turn === 0 ? "" : ` (turn ${turn})`;
    if (turn > 0) {
      const fu = desc.followups[turn - 1];
      const more = materialize(fu.append, env);
      const items = itemsOf(messages);
      if (fu.edit && typeof items[fu.edit.index]?.content === "string") items[fu.edit.index].content = fu.edit.content;
      if (fu.mode === "push" || fu.mode === "edit") items.push(...more);
      else if (fu.mode === "copy") messages = withItems(messages, [...items, ...more]);
      else if (fu.mode === "output" && last) {
        // A caller that keeps the compacted messages as its history from now on.
        messages = withItems(last.messages, [...itemsOf(last.messages), ...more]);
        evictedBefore = new Set(); // a new history: its indexes mean other messages
      } else messages = deepClone(withItems(messages, [...items, ...more]));
    }
    const options = turn === 0 ? baseOptions : { ...baseOptions, state: state === undefined ? undefined : JSON.parse(JSON.stringify(state)) };
    if (turn > 0 && state === undefined) delete options.state;
    const before = snapshot(messages);
    const optionsBefore = snapshot(options);

    f.step = `countMessages${tag}`;
    let detected = desc.count.format ?? null;
    let total = null;
    try {
      const res = countMessages(messages, desc.count);
      detected = res.format;
      total = res.total;
      checkCount(desc, f, messages, res, memo);
    } catch (e) {
      f.thrown(e, [], "rejected-valid");
      canary.check(f);
      return;
    }
    if (turn === 0) checkExactSample(desc, f, messages);

    f.step = `plan${tag}`;
    let planned = null;
    try {
      planned = plan(messages, options);
      const unpruned = !options.state && planned.pruned.messages.length === 0 && (options.preset ?? "default") !== "off";
      checkPlan(f, planned, unpruned ? total : null);
    } catch (e) {
      f.thrown(e, ["CONTEXT_OVERFLOW"], "rejected-valid");
      canary.check(f);
    }

    f.step = `compact${tag}`;
    const callsBefore = summ ? summ.log.calls.length : 0;
    let result;
    try {
      let promise;
      try {
        promise = compact(messages, options);
      } catch (e) {
        f.fail("invariant", "compact throws synchronously", `compact() threw instead of rejecting: ${describeError(e)}`);
        throw e;
      }
      result = await promise;
    } catch (e) {
      const code = f.thrown(e, COMPACT_ERRORS(options), "rejected-valid");
      if (code === "SUMMARIZER_FAILED" && summ) {
        const calls = summ.log.calls.slice(callsBefore).filter((c) => c.kind === "summarize");
        if (calls.length && calls.every((c) => c.behaviour === "reject" || c.behaviour === "throw")) {
          f.check(summ.log.errors.includes(e.cause), "the summarizer's error is the cause", () => `cause: ${describeError(e.cause)}`);
        }
      }
      canary.check(f);
      await canary.checkCompact(f);
      break;
    }
    checkCompact(desc, f, { messages, options, result, detected, planned, summ, callsBefore, evictedBefore });
    for (const i of result.report.evicted) evictedBefore.add(i);
    f.step = `after compact${tag}`;
    f.check(snapshot(messages) === before, "the input is not mutated", "the messages passed in changed");
    f.check(snapshot(options) === optionsBefore, "the options are not mutated", "the options passed in changed");
    state = result.state;
    last = result;
    if (turn === 0) first = result;
  }

  if (desc.concurrent && first) {
    f.step = `${desc.concurrent} concurrent compact()`;
    f.seen.add("concurrent");
    const m0 = materialize(desc.messages, env);
    const o0 = materialize(desc.options, env);
    try {
      const seq = await compact(m0, o0);
      const all = await Promise.allSettled(Array.from({ length: desc.concurrent }, () => compact(m0, o0)));
      const want = normalized(seq);
      const mine = new Set(itemsOf(m0));
      const seqItems = itemsOf(seq.messages);
      const differs = (v) => normalized(v) !== want || itemsOf(v.messages).some((m, i) => mine.has(seqItems[i]) && m !== seqItems[i]);
      const bad = all.findIndex((s) => s.status === "rejected" || differs(s.value));
      if (bad >= 0) {
        const s = all[bad];
        f.fail("invariant", "concurrent equals sequential", s.status === "rejected" ? `call ${bad} rejected: ${describeError(s.reason)}` : `call ${bad} differs: ${normalized(s.value).slice(0, 300)} vs ${want.slice(0, 300)}`);
      }
    } catch (e) {
      f.thrown(e, COMPACT_ERRORS(o0), "rejected-valid");
    }
  }
}

/** Runs a case. Returns `{ failures, recycle, size }`. */
export async function runCase(desc) {
  const f = new Findings();
  if (desc.kind === "text") runText(desc, f);
  else if (desc.kind === "invalid") await runInvalid(desc, f);
  else await runConversation(desc, f);
  return { failures: f.failures, recycle: f.recycle, seen: [...f.seen] };
}

/** How big a case is: messages and bytes of JSON. */
export function caseSize(desc) {
  if (desc.kind === "text") return { messages: 0, bytes: (desc.texts ?? []).reduce((s, t) => s + String(t).length, 0) };
  let bytes = 0;
  try {
    bytes = JSON.stringify(desc.messages ?? desc.text ?? null)?.length ?? 0;
  } catch {
    bytes = -1;
  }
  const m = desc.messages;
  const items = Array.isArray(m) ? m : Array.isArray(m?.messages) ? m.messages : [];
  const more = (desc.followups ?? []).reduce((s, fu) => s + (fu?.append?.length ?? 0), 0);
  return { messages: items.length + more, bytes };
}
