// ctxfold/ai-sdk: a language-model middleware for the Vercel AI SDK's wrapLanguageModel
// (ai 5: LanguageModelV2Middleware; ai 6: V3; ai 7: its LanguageModelMiddleware, which takes
// V3 middleware and hands it V4 call options). The SDK's packages are never imported: the
// middleware reads the provider-level prompt, the usage and the stream parts by their
// documented shapes, which the three versions share where it matters.
//
// transformParams: compact() over `params.prompt` in the "ai-sdk" format, which the core reads
// as it comes (content always an array, provider options, tool-result outputs, approvals), so
// the messages kept are the SDK's own objects and counts are those of the prompt sent.
// wrapGenerate / wrapStream: the provider's usage for that very prompt (the result's, or the
// stream's `finish` part's), kept with the conversation's record next to ctxfold's own count.
//
// Conversations: stateless by default (each call compacts the prompt it is given). With
// `conversationKey`, compact()'s state, the last report and the last usage are kept per key in
// a bounded map, and calls on one key run one after another, so a summary made in one step of
// a tool loop is reused by the next instead of being made again. With `summarizer:
// "same-model"` the default key is "head" (`conversationKey: null` keeps every call stateless).
//
// Recall (`recall: true` or `{ maxTokens }`, a compact() option): generate calls are given the
// recall tool beside the caller's tools (counted with them), and the summary says so. The
// prompt the SDK passes is the whole conversation, so the middleware answers the model's recall
// calls itself, in wrapGenerate, from that prompt and the state compact() gave for it (the
// core's recallOver: the messages that state's input does not hold), and asks the model again
// with the call and its result; the SDK never sees the tool. A stream's call goes without it
// (its parts would have to be held back to find the call), and its summary without the line.
//
// The seam for what comes next: everything a call needs from a conversation goes through
// `prepare` (before the model call: the key's state in, the compacted prompt out) and `settle`
// (after it: the provider's usage for that prompt, with ctxfold's count of it). A stateful
// Compactor (its own store, history and usage anchoring) takes the map's place in those two:
// prepare -> compactor.prepare(key, what the prompt adds to its history), settle ->
// compactor.commit(key, ..., usage); status(key) stays what the caller reads.

import { guard } from "./guard.js";
import { recentKeys } from "./recent.js";
import { refusalsWith } from "./refusal.js";
import { serial } from "./serial.js";
import { ctxfoldError, kindOf, withOwnOptions } from "./values.js";

/** @typedef {import("./types.d.ts").Raw} Raw */
/** @typedef {import("./types.d.ts").Guard} Guard */
/** @typedef {import("./types.d.ts").CompactReport} CompactReport */
/** @typedef {import("./types.d.ts").CompactState} CompactState */
/** @typedef {import("./types.d.ts").ContextStatus} ContextStatus */
/** @typedef {import("./types.d.ts").SummaryRequest} SummaryRequest */
/** @typedef {import("./types.d.ts").Correction} Correction */
/** @typedef {(request: SummaryRequest) => unknown} Summarizer */
/**
 * The call options a middleware sees, as far as it reads them (the SDK's own object: every
 * other field passes through).
 * @typedef {{ prompt: unknown, tools?: unknown, maxOutputTokens?: unknown, abortSignal?: AbortSignal, headers?: unknown } & Record<string, unknown>} Params
 */
/**
 * The wrapped model, as far as the middleware uses it.
 * @typedef {{ modelId?: unknown, provider?: unknown, doGenerate(options: Record<string, unknown>): PromiseLike<GenerateResult>, doStream?(options: Record<string, unknown>): PromiseLike<{ stream: ReadableStream<unknown> }> }} Model
 */
/** @typedef {{ content?: unknown, usage?: unknown, response?: { modelId?: unknown } }} GenerateResult */
/**
 * What compact() gives back, as far as the middleware reads it.
 * @typedef {{ messages: unknown, contextStatus: ContextStatus, report: CompactReport, state: CompactState }} Compacted
 */
/**
 * The main entry's compact() and plan().
 * @typedef {{ compact: (input: unknown, options: Record<string, unknown>) => Promise<Compacted>, plan: (messages: unknown[], options: Record<string, unknown>) => unknown }} Ctxfold
 */
/**
 * The usage of one call, read (`raw`: the object as it came).
 * @typedef {{ inputTokens: number | null, outputTokens: number | null, cacheReadTokens: number | null, cacheWriteTokens: number | null, raw: object }} Usage
 */
/**
 * What is kept about one conversation (`status(key)` gives a copy, with its key).
 * @typedef {{ calls: number, reported: number, state: CompactState | null, report: CompactReport | null, contextStatus: ContextStatus | null, usage: (Usage & { estimate: number }) | null, correction: Correction | null, updatedAt: string | null }} Kept
 */
/**
 * The middleware's options, read.
 * @typedef {{ compactOptions: Record<string, unknown>, conversationKey: "head" | ((params: Params) => unknown) | undefined, maxConversations: number, onReport: ((event: object) => void) | undefined, summarizer: Summarizer | "extractive" | "same-model" | undefined }} Read
 */

const OWN_OPTIONS = new Set(["conversationKey", "maxConversations", "onReport"]);
/**
 * compact() options the middleware sets per call.
 * @type {Record<string, string>}
 */
const PER_CALL = {
  state: "kept per conversation by the middleware (see conversationKey)",
  format: 'always "ai-sdk" (the provider-level prompt)',
  manual: "a per-call choice, not a middleware setting",
  instructions: "a per-call choice, not a middleware setting (summaryPrompt applies to every summary)",
};

/**
 * compact()'s unknown-option error with the middleware's options as the known ones.
 * @param {unknown} e
 */
const ownWords = (e) => withOwnOptions(e, new Set(Object.keys(PER_CALL)), [...OWN_OPTIONS, "summarizer"]);

/**
 * The middleware's options, checked: compact()'s among them are checked as compact() checks
 * them (through `plan`), where the window is known without the wrapped model; otherwise their
 * names and kinds now, and what depends on the window at the first call.
 * @param {unknown} given
 * @param {Ctxfold["plan"]} plan
 * @returns {Read}
 */
function readOptions(given, plan) {
  if (given === null || typeof given !== "object" || Array.isArray(given)) {
    throw argumentError("options", `expected an object, got ${kindOf(given)}`);
  }
  const options = /** @type {Record<string, unknown>} */ (given);
  /** @type {Record<string, unknown>} */
  const compactOptions = { format: "ai-sdk" };
  for (const [key, value] of Object.entries(options)) {
    if (key in PER_CALL) throw argumentError(`options.${key}`, PER_CALL[key]);
    if (!OWN_OPTIONS.has(key) && key !== "summarizer") compactOptions[key] = value;
  }
  const { maxConversations = 1000, onReport, summarizer } = options;
  const key = options.conversationKey;
  if (key !== undefined && key !== null && key !== "head" && typeof key !== "function") {
    throw argumentError("options.conversationKey", `expected "head", a function of the call's params, or null (every call stateless), got ${kindOf(key)}`);
  }
  // "same-model" asks the wrapped model for every summary: without a key, each call of a
  // tool loop would summarize the whole middle again (88 summaries for 20 steps where a key
  // makes 9). So its conversations are keyed by their head unless told otherwise.
  const conversationKey = key === undefined && summarizer === "same-model" ? "head" : (key ?? undefined);
  if (typeof maxConversations !== "number" || !Number.isInteger(maxConversations) || maxConversations < 1) {
    throw rangeError("options.maxConversations", `expected an integer from 1, got ${String(maxConversations)}`);
  }
  if (onReport !== undefined && typeof onReport !== "function") {
    throw argumentError("options.onReport", `expected a function, got ${kindOf(onReport)}`);
  }
  if (summarizer !== undefined && typeof summarizer !== "function" && summarizer !== "extractive" && summarizer !== "same-model") {
    throw argumentError(
      "options.summarizer",
      `expected a function, "extractive" or "same-model", got ${typeof summarizer === "string" ? JSON.stringify(summarizer) : kindOf(summarizer)}`,
    );
  }
  if (summarizer !== undefined && summarizer !== "same-model") compactOptions.summarizer = summarizer;
  // Every other option is checked now, as compact() checks it, where the window is known
  // without the wrapped model (its id is the default `model`); otherwise their names and
  // kinds now (against a stand-in window), and what depends on the window at the first call.
  try {
    const known = options.model !== undefined || options.contextWindow !== undefined;
    plan([], known ? compactOptions : { ...compactOptions, contextWindow: 1_000_000 });
  } catch (e) {
    throw ownWords(e);
  }
  return {
    compactOptions,
    conversationKey: /** @type {Read["conversationKey"]} */ (conversationKey),
    maxConversations,
    onReport: /** @type {Read["onReport"]} */ (onReport),
    summarizer: /** @type {Read["summarizer"]} */ (summarizer),
  };
}

/**
 * A prepared call: its conversation's record (`null`: a stateless call), ctxfold's count of
 * the prompt, and what planning it again takes (the call as transformParams got it, the
 * budget, the correction it was planned with).
 * @typedef {{ record: Kept | null, estimate: number, key: string | null, type: unknown, params: Params, model: Model, budget: CompactReport["budget"], correction: Correction | null }} Prepared
 */
/**
 * The params a transformParams returned -> the call they were prepared for.
 * @typedef {WeakMap<object, Prepared>} Calls
 */
/**
 * The params a transformParams returned with the recall tool -> what its calls are answered
 * from: the call's whole prompt, and compact()'s options with the state it gave.
 * @typedef {WeakMap<object, { prompt: unknown, options: Record<string, unknown> }>} Recalls
 */
/**
 * What one middleware's calls share.
 * @typedef {Read & { compact: Ctxfold["compact"], conversations: Conversations, calls: Calls, queues: Map<string, Promise<unknown>>, refusals: ReturnType<typeof refusalsWith>, recalls: Recalls, recallTool: Record<string, unknown> | null }} Middleware
 */

/**
 * The conversation a call belongs to (`null`: a stateless call).
 * @param {Read["conversationKey"]} conversationKey
 * @param {Params} params
 */
function keyOf(conversationKey, params) {
  if (conversationKey === undefined) return null;
  const key = conversationKey === "head" ? headKey(params.prompt) : conversationKey(params);
  if (key === null || key === undefined) return null;
  if (typeof key !== "string") {
    throw argumentError("options.conversationKey", `must return a string, null or undefined, returned ${kindOf(key)}`);
  }
  return key;
}

/**
 * Compacts one call's prompt with the conversation's state, and records what it did.
 * @param {Middleware} m
 * @param {string | null} key
 * @param {unknown} type
 * @param {Params} params
 * @param {Model} model
 * @param {Correction | null} [correction]  a refusal's, for this call (else the conversation's)
 */
async function prepare(m, key, type, params, model, correction) {
  const { compactOptions, summarizer, onReport } = m;
  const record = key === null ? null : m.conversations.get(key);
  const corrected = correction ?? record?.correction ?? null;
  /** @type {Record<string, unknown>} */
  const callOptions = { ...compactOptions, state: record?.state ?? null };
  // Counted as the wrapped model unless told otherwise ("gpt-4o", "openai/gpt-4o", ...).
  if (callOptions.model === undefined && typeof model?.modelId === "string" && model.modelId.trim() !== "") callOptions.model = modelIdOf(model);
  if (summarizer === "same-model") callOptions.summarizer = sameModel(model, params);
  else if (typeof summarizer === "function") callOptions.summarizer = abortedWith(summarizer, params.abortSignal);
  // The call's output cap takes its room in the window (a larger reservedOutputTokens
  // given to the middleware stays): the prompt and the reply fit together.
  const cap = params.maxOutputTokens;
  if (typeof cap === "number" && Number.isSafeInteger(cap) && cap > 0) {
    const given = compactOptions.reservedOutputTokens;
    callOptions.reservedOutputTokens = Math.max(cap, typeof given === "number" ? given : 0);
  }
  // After a provider's refusal: the window and reserve that put the prompt below its limit.
  if (corrected !== null) {
    callOptions.contextWindow = corrected.contextWindow;
    callOptions.reservedOutputTokens = corrected.reservedOutputTokens;
  }
  // The call's tool definitions take their room beside the prompt (counted with it), the
  // recall tool's among them; a stream's call goes without it, and its summary without the line.
  const recall = m.recallTool !== null && type === "generate";
  if (m.recallTool !== null && !recall) callOptions.recall = false;
  const given = Array.isArray(params.tools) && params.tools.length > 0 ? params.tools : null;
  if (recall && given?.some((t) => t?.name === RECALL)) {
    throw argumentError("params.tools", `a tool named "${RECALL}" beside the middleware's own (the recall option): rename yours or leave recall off`);
  }
  const tools = recall ? [...(given ?? []), m.recallTool] : given;
  const input = tools === null ? params.prompt : { messages: params.prompt, tools };
  const { messages: output, contextStatus, report, state } = await m.compact(input, callOptions);
  const messages = tools === null ? output : /** @type {{ messages: unknown }} */ (output).messages;
  if (record !== null) {
    record.calls += 1;
    record.state = state;
    record.report = report;
    record.contextStatus = contextStatus;
    record.updatedAt = new Date().toISOString();
  }
  if (onReport !== undefined) onReport({ key, type, report, contextStatus });
  /** @type {Params} */
  const out = { ...params, prompt: messages };
  if (recall) {
    out.tools = tools;
    // Counted and bounded as the compaction was, over the state it gave (no summarizer).
    /** @type {Record<string, unknown>} */
    const options = { ...callOptions, state };
    delete options.summarizer;
    m.recalls.set(out, { prompt: params.prompt, options });
  }
  m.calls.set(out, { record, estimate: report.tokensAfter, key, type, params, model, budget: report.budget, correction: corrected });
  return out;
}

/**
 * The wrapped model's call (`first`), and once more (`again`) after a provider refused its
 * prompt as too long: the prompt compacted again with the refusal's correction (kept with
 * the conversation for its later calls). Another error, or a call the middleware did not
 * prepare, rejects as it was; a second refusal is CONTEXT_OVERFLOW.
 * @template R
 * @param {Middleware} m
 * @param {object} params
 * @param {() => PromiseLike<R>} first
 * @param {((params: Params) => PromiseLike<R>) | null} again  (`null`: no model to call again)
 * @returns {Promise<{ result: R, params: object }>}
 */
async function withRetry(m, params, first, again) {
  try {
    return { result: await first(), params };
  } catch (e) {
    const call = m.calls.get(params);
    const refusal = call === undefined || again === null ? null : m.refusals.read(e);
    if (call === undefined || again === null || refusal === null) throw e;
    const { record, estimate, key, type, model, budget } = call;
    const correction = m.refusals.correct(refusal, estimate, call.correction, budget);
    if (record !== null) record.correction = correction;
    const run = () => prepare(m, key, type, call.params, model, correction);
    const retry = await (key === null ? run() : serial(m.queues, key, run));
    try {
      return { result: await again(retry), params: retry };
    } catch (e2) {
      const second = m.refusals.read(e2);
      if (second === null) throw e2;
      const sent = m.calls.get(retry)?.estimate ?? 0;
      throw m.refusals.again(second, sent * correction.ratio, e2);
    }
  }
}

/**
 * The provider's usage for the prompt `params` carried, into its conversation's record.
 * @param {Calls} calls
 * @param {object} params
 * @param {unknown} usage
 */
function settle(calls, params, usage) {
  const call = calls.get(params);
  if (call === undefined || call.record === null) return;
  calls.delete(params);
  const read = readUsage(usage);
  if (read === null) return;
  call.record.usage = { ...read, estimate: call.estimate };
  call.record.reported += 1;
  call.record.updatedAt = new Date().toISOString();
}

/**
 * @param {Ctxfold} ctxfold  the package's main entry: its compact() and plan()
 * @param {Raw} raw  the module that entry instantiated (for the core's rule of which
 *   conversations to keep)
 */
export function middlewareFor({ compact, plan }, raw) {
  const g = guard(raw);
  const refusals = refusalsWith(raw, g);
  /** @param {unknown} [options] */
  return function compactionMiddleware(options = {}) {
    const read = readOptions(options, plan);
    const conversations = new Conversations(raw, g, read.maxConversations);
    /** @type {Calls} */
    const calls = new WeakMap();
    /** @type {Recalls} */
    const recalls = new WeakMap();
    const on = read.compactOptions.recall !== undefined && read.compactOptions.recall !== false;
    const recallTool = on ? g.wrap(() => raw.CompactorCore.recallTool({ format: "ai-sdk-model" }))() : null;
    /**
     * Per key: the calls queued (one after another).
     * @type {Map<string, Promise<unknown>>}
     */
    const queues = new Map();
    /** @type {Middleware} */
    const m = { ...read, compact, conversations, calls, queues, refusals, recalls, recallTool };

    return {
      specificationVersion: "v3",

      /** @param {{ type: unknown, params: Params, model: Model }} options */
      async transformParams({ type, params, model }) {
        const key = keyOf(read.conversationKey, params);
        const run = () => prepare(m, key, type, params, model);
        return key === null ? run() : serial(queues, key, run);
      },

      /**
       * @template {GenerateResult} R
       * @param {{ doGenerate: () => PromiseLike<R>, params: object, model?: Model }} options
       */
      async wrapGenerate({ doGenerate, params: given, model }) {
        const again = model === undefined ? null : (/** @type {Params} */ p) => /** @type {PromiseLike<R>} */ (model.doGenerate(p));
        const { result, params } = await withRetry(m, given, doGenerate, again);
        settle(calls, params, result?.usage);
        const recall = recalls.get(params);
        return recall === undefined || model === undefined ? result : answerRecalls(raw, g, recall, /** @type {Params} */ (params), model, result);
      },

      /**
       * A refusal comes as a rejected doStream, before any part: that is the one retried.
       * @template {{ stream: ReadableStream<unknown> }} S
       * @param {{ doStream: () => PromiseLike<S>, params: object, model?: Model }} options
       */
      async wrapStream({ doStream, params: given, model }) {
        const stream = model?.doStream?.bind(model);
        const again = stream === undefined ? null : (/** @type {Params} */ p) => /** @type {PromiseLike<S>} */ (/** @type {unknown} */ (stream(p)));
        const { result, params } = await withRetry(m, given, doStream, again);
        if (calls.get(params)?.record == null) return result;
        // The parts go through as they are; the finish part's usage is read on the way.
        const watch = new TransformStream({
          transform(part, controller) {
            const p = /** @type {{ type?: unknown, usage?: unknown } | null} */ (part);
            if (p !== null && typeof p === "object" && p.type === "finish") settle(calls, params, p.usage);
            controller.enqueue(part);
          },
        });
        return { ...result, stream: result.stream.pipeThrough(watch) };
      },

      /** @param {string} key */
      status(key) {
        const record = conversations.peek(key);
        return record === undefined ? undefined : snapshot(key, record);
      },

      /** @param {string} key */
      forget(key) {
        return conversations.delete(key);
      },
    };
  };
}

/** The recall tool's name, as the core declares it. */
const RECALL = "recall";
/** How many times one call answers recall before it gives the model's answer back as it is. */
const RECALL_ROUNDS = 3;

/**
 * The model's recall calls answered (each from the call's whole prompt, as the core says),
 * then the model asked again with them and their results, until it answers without one.
 * @template {GenerateResult} R
 * @param {Raw} raw
 * @param {Guard} g
 * @param {{ prompt: unknown, options: Record<string, unknown> }} recall
 * @param {Params} params
 * @param {Model} model
 * @param {R} first
 * @returns {Promise<R>}
 */
async function answerRecalls(raw, g, recall, params, model, first) {
  let result = first;
  let prompt = /** @type {unknown[]} */ (params.prompt);
  const over = g.wrap((/** @type {unknown} */ args) => raw.__ctxfoldRecallOver(recall.prompt, args, recall.options));
  for (let round = 0; round < RECALL_ROUNDS; round++) {
    /** @type {{ type?: unknown, toolName?: unknown, toolCallId?: unknown, input?: unknown }[]} */
    const parts = Array.isArray(result?.content) ? result.content : [];
    const asked = parts.filter((p) => p?.type === "tool-call" && p.toolName === RECALL);
    if (asked.length === 0) break;
    const answers = asked.map((c) => {
      try {
        const args = typeof c.input === "string" ? JSON.parse(c.input) : c.input;
        return { call: c, args, output: { type: "text", value: /** @type {{ text: string }} */ (over(args)).text } };
      } catch (e) {
        // The model's bad arguments go back to it, as a tool's error.
        return { call: c, args: c.input, output: { type: "error-text", value: e instanceof Error ? e.message : String(e) } };
      }
    });
    prompt = [
      ...prompt,
      { role: "assistant", content: answers.map((a) => ({ type: "tool-call", toolCallId: a.call.toolCallId, toolName: RECALL, input: a.args })) },
      { role: "tool", content: answers.map((a) => ({ type: "tool-result", toolCallId: a.call.toolCallId, toolName: RECALL, output: a.output })) },
    ];
    result = /** @type {R} */ (await model.doGenerate({ ...params, prompt }));
  }
  return result;
}

/**
 * Local servers, by the first part of the provider name their AI SDK providers give
 * (`ollama.chat`; `lmstudio.chat` for createOpenAICompatible({ name: "lmstudio" })).
 */
const LOCAL_PROVIDERS = new Set(["ollama", "lmstudio", "lm-studio", "lm_studio", "vllm", "llamacpp", "llama-cpp", "llama_cpp"]);

/**
 * The wrapped model's id as the core reads it: with the local server's name in front
 * (`ollama/llama3.1`) when a local server serves it, so that a window the table gives for
 * the model is not taken for the one the server serves (the core then asks for contextWindow).
 * @param {Model} model  one whose `modelId` is a string
 */
function modelIdOf(model) {
  const id = /** @type {string} */ (model.modelId);
  const server = typeof model.provider === "string" ? model.provider.split(".", 1)[0].toLowerCase() : "";
  return LOCAL_PROVIDERS.has(server) ? `${server}/${id}` : id;
}

/**
 * Per-conversation records, at most `max`: the core's rule says which to drop (the one used
 * least recently), and the map drops exactly those.
 */
class Conversations {
  /**
   * @param {Raw} raw
   * @param {Guard} g
   * @param {number} max
   */
  constructor(raw, g, max) {
    /** @type {Map<string, Kept>} */
    this.records = new Map();
    this.recent = recentKeys(raw, g, max, () => this.records.keys());
  }

  /**
   * @param {string} key
   * @returns {Kept}
   */
  get(key) {
    let record = this.records.get(key);
    if (record === undefined) {
      record = { calls: 0, reported: 0, state: null, report: null, contextStatus: null, usage: null, correction: null, updatedAt: null };
      this.records.set(key, record);
    }
    for (const dropped of this.recent.use(key)) this.records.delete(dropped);
    return record;
  }

  /** @param {string} key */
  peek(key) {
    return this.records.get(key);
  }

  /** @param {string} key */
  delete(key) {
    this.recent.forget(key);
    return this.records.delete(key);
  }
}

/**
 * @param {string} key
 * @param {Kept} r
 */
function snapshot(key, r) {
  return {
    key,
    calls: r.calls,
    reported: r.reported,
    state: r.state,
    report: r.report,
    contextStatus: r.contextStatus,
    usage: r.usage === null ? null : { ...r.usage },
    correction: r.correction === null ? null : { ...r.correction },
    updatedAt: r.updatedAt,
  };
}

/**
 * A summarizer that asks the wrapped model itself: the summary request as a prompt, with the
 * request's output cap, aborted at its deadline or when the caller's own call is aborted.
 * @param {Model} model
 * @param {Params} params
 * @returns {Summarizer}
 */
function sameModel(model, params) {
  return async (request) => {
    const { signal, release } = eitherSignal(request.signal, params.abortSignal);
    try {
      // The caller gave up (or the deadline passed) before this part's turn: ask nothing.
      signal.throwIfAborted();
      /** @type {Record<string, unknown>} */
      const call = {
        prompt: [
          { role: "system", content: request.system },
          { role: "user", content: [{ type: "text", text: request.prompt }] },
        ],
        maxOutputTokens: request.maxTokens,
        abortSignal: signal,
      };
      if (params.headers !== undefined) call.headers = params.headers;
      const result = await model.doGenerate(call);
      let text = "";
      /** @type {{ type?: unknown, text?: unknown }[]} */
      const parts = Array.isArray(result?.content) ? result.content : [];
      for (const part of parts) if (part?.type === "text") text += part.text;
      /** @type {{ text: string, model: unknown, usage?: unknown }} */
      const reply = { text, model: result?.response?.modelId ?? model.modelId };
      if (result?.usage !== undefined) reply.usage = result.usage;
      return reply;
    } finally {
      release();
    }
  };
}

/**
 * Your summarizer, for one call: its request's signal aborts when the caller's call is aborted
 * too, and the call does not wait for a summarizer that goes on regardless (the summary falls
 * back, and the model call that follows rejects with the caller's abort).
 * @param {Summarizer} summarizer
 * @param {AbortSignal | undefined} abortSignal
 * @returns {Summarizer}
 */
function abortedWith(summarizer, abortSignal) {
  if (!abortSignal) return summarizer;
  return async (request) => {
    const { signal, release } = eitherSignal(request.signal, abortSignal);
    /** @type {() => void} */
    let stop = () => {};
    const aborted = new Promise((_, reject) => {
      stop = () => reject(signal.reason);
      signal.addEventListener("abort", stop, { once: true });
    });
    try {
      signal.throwIfAborted();
      return await Promise.race([summarizer({ ...request, signal }), aborted]);
    } finally {
      signal.removeEventListener("abort", stop);
      release();
    }
  };
}

/**
 * A signal that aborts when either does (AbortSignal.any is not everywhere ctxfold runs).
 * @param {AbortSignal} a
 * @param {AbortSignal | undefined} b
 */
function eitherSignal(a, b) {
  if (!b) return { signal: a, release() {} };
  const controller = new AbortController();
  const abortA = () => controller.abort(a.reason);
  const abortB = () => controller.abort(b.reason);
  if (a.aborted) abortA();
  else if (b.aborted) abortB();
  a.addEventListener("abort", abortA, { once: true });
  b.addEventListener("abort", abortB, { once: true });
  return {
    signal: controller.signal,
    release() {
      a.removeEventListener("abort", abortA);
      b.removeEventListener("abort", abortB);
    },
  };
}

/**
 * The usage of one call, as LanguageModelV2 reports it (`inputTokens` a number,
 * `cachedInputTokens`) or V3 / V4 (`inputTokens: { total, noCache, cacheRead, cacheWrite }`);
 * `raw` is the object as it came.
 * @param {unknown} given
 * @returns {Usage | null}
 */
function readUsage(given) {
  if (given === null || typeof given !== "object") return null;
  const u = /** @type {{ inputTokens?: unknown, outputTokens?: unknown, cachedInputTokens?: unknown }} */ (given);
  /** @param {unknown} v */
  const n = (v) => (typeof v === "number" && Number.isFinite(v) ? v : null);
  if (u.inputTokens !== null && typeof u.inputTokens === "object") {
    const input = /** @type {{ total?: unknown, cacheRead?: unknown, cacheWrite?: unknown }} */ (u.inputTokens);
    const output = /** @type {{ total?: unknown } | null | undefined} */ (u.outputTokens);
    return {
      inputTokens: n(input.total),
      outputTokens: n(output?.total),
      cacheReadTokens: n(input.cacheRead),
      cacheWriteTokens: n(input.cacheWrite),
      raw: u,
    };
  }
  return {
    inputTokens: n(u.inputTokens),
    outputTokens: n(u.outputTokens),
    cacheReadTokens: n(u.cachedInputTokens),
    cacheWriteTokens: null,
    raw: u,
  };
}

/**
 * A key for the conversation a prompt belongs to: a hash of its leading system messages and
 * its first user message (binary data by its length and a sample of its bytes).
 * @param {unknown} prompt
 */
function headKey(prompt) {
  if (!Array.isArray(prompt)) throw argumentError("params.prompt", `expected an array, got ${kindOf(prompt)}`);
  /** @type {unknown[]} */
  const head = [];
  for (const m of prompt) {
    if (m?.role === "system") {
      head.push(m);
      continue;
    }
    if (m?.role === "user") {
      head.push(m);
      break;
    }
  }
  const text = JSON.stringify(head, (_k, v) => {
    if (v instanceof ArrayBuffer) v = new Uint8Array(v);
    if (ArrayBuffer.isView(v)) {
      const bytes = new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
      let h = 0x811c9dc5;
      const step = Math.max(1, Math.floor(bytes.length / 4096));
      for (let i = 0; i < bytes.length; i += step) h = Math.imul(h ^ bytes[i], 0x01000193);
      return { $bytes: bytes.length, sample: h >>> 0 };
    }
    return v;
  });
  return `head:${hash53(text)}`;
}

/**
 * cyrb53: a fast 53-bit string hash, as hex.
 * @param {string} s
 */
function hash53(s) {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16).padStart(14, "0");
}

/**
 * @param {string} where
 * @param {string} what
 */
function argumentError(where, what) {
  return ctxfoldError("INVALID_ARGUMENT", `invalid argument ${where}: ${what}`, { argument: where });
}

/**
 * @param {string} where
 * @param {string} what
 */
function rangeError(where, what) {
  return ctxfoldError("OUT_OF_RANGE", `${where} out of range: ${what}`, { argument: where });
}
