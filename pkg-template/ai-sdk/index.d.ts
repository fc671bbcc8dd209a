// ctxfold/ai-sdk: compaction as a Vercel AI SDK language-model middleware. The AI SDK's
// types are not imported (the package does not depend on `ai`): the shapes below are the
// parts of its provider specification (LanguageModelV2 to V4) the middleware reads, written
// structurally, so the middleware is assignable to the middleware type of ai 5, 6 and 7.
import type { CompactOptions, CompactReport, CompactState, ContextStatus, Correction, Summarizer } from "../index.js";

/** Provider options: `{ [provider]: { [option]: JSON } }`, passed through untouched. */
export type ProviderOptions = Record<string, Record<string, unknown>>;

/**
 * A part of a provider-level prompt message: `text`, `file`, `reasoning`, `tool-call`,
 * `tool-result`, `tool-approval-response`, ... with the other fields its spec version gives it.
 */
export interface LanguageModelPromptPart {
  /** The part's kind. */
  type: string;
  /** The caller's provider options, kept as they are. */
  providerOptions?: ProviderOptions;
}

/** One message of the provider-level prompt (`LanguageModelV2Prompt`, `V3Prompt`, `V4Prompt`): a system message's content is a string, every other message's an array of parts. */
export type LanguageModelPromptMessage =
  | {
      /** System instructions. */
      role: "system";
      /** Their text. */
      content: string;
      /** The caller's provider options, kept as they are. */
      providerOptions?: ProviderOptions;
    }
  | {
      /** Who the message is from. */
      role: "user" | "assistant" | "tool";
      /** Its parts. */
      content: ReadonlyArray<LanguageModelPromptPart>;
      /** The caller's provider options, kept as they are. */
      providerOptions?: ProviderOptions;
    };

/** The call options a middleware sees (`LanguageModelV2CallOptions` to `V4CallOptions`), as far as ctxfold reads them. */
export interface LanguageModelCallOptions {
  /** The provider-level prompt: what `transformParams` compacts. */
  prompt: ReadonlyArray<LanguageModelPromptMessage>;
  /** The output cap of the call: the room it takes in the window (`reservedOutputTokens` for this call, unless the middleware was given a larger one). */
  maxOutputTokens?: number;
  /** The caller's abort signal; it also aborts a summary made for the call (the signal your summarizer's request carries, or a `"same-model"` call), and the call stops waiting for it. */
  abortSignal?: AbortSignal;
  /** Extra HTTP headers of the call; a `"same-model"` summary is sent with them too. */
  headers?: Record<string, string | undefined>;
  /** The call's provider options (a place for a conversation id, see `conversationKey`). */
  providerOptions?: ProviderOptions;
}

/** A token usage as a language model reports it: V2's numbers, or V3's and V4's `{ total, ... }` objects. */
export type LanguageModelUsage =
  | {
      /** Input tokens (V2). */
      inputTokens: number | undefined;
      /** Output tokens (V2). */
      outputTokens: number | undefined;
      /** Cached input tokens (V2). */
      cachedInputTokens?: number | undefined;
    }
  | {
      /** Input tokens: in all, not cached, read from and written to the cache (V3, V4). */
      inputTokens: { total: number | undefined; noCache: number | undefined; cacheRead: number | undefined; cacheWrite: number | undefined };
      /** Output tokens (V3, V4). */
      outputTokens: { total: number | undefined };
    };

/** What `doGenerate` returns, as far as ctxfold reads it. */
export interface LanguageModelGenerateResult {
  /** The content parts; a `"same-model"` summary is the text of the `text` parts. */
  content: ReadonlyArray<{ type: string }>;
  /** The provider's usage: kept with the conversation. */
  usage: LanguageModelUsage;
}

/** A stream part; the `finish` part carries the usage. */
export interface LanguageModelStreamPart {
  /** The part's kind. */
  type: string;
}

/** What `doStream` returns, as far as ctxfold reads it. */
export interface LanguageModelStreamResult {
  /** The parts, passed through unchanged. */
  stream: ReadableStream<LanguageModelStreamPart>;
}

/** The wrapped model, as the middleware uses it. */
export interface LanguageModelLike {
  /** Its id: the `model` ctxfold counts for, unless `options.model` says otherwise. */
  readonly modelId: string;
  /** Called by a `"same-model"` summarizer, with the summary request as the prompt, and again after a refusal. */
  doGenerate(options: LanguageModelCallOptions): PromiseLike<LanguageModelGenerateResult>;
  /** Called again after a refusal of a streamed call's prompt. */
  doStream?(options: LanguageModelCallOptions): PromiseLike<LanguageModelStreamResult>;
}

/** What ctxfold did to one call's prompt: passed to `onReport`. */
export interface CompactionEvent {
  /** The conversation's key, or `null` for a stateless call. */
  key: string | null;
  /** `"generate"` or `"stream"`. */
  type: "generate" | "stream";
  /** The compaction report of the call. */
  report: CompactReport;
  /** `full` (nothing summarized), `summarized`, or `truncated` after a marker fallback. */
  contextStatus: ContextStatus;
}

/** The provider's usage for the last call of a conversation that reported one, beside ctxfold's count of the same prompt. */
export interface UsageRecord {
  /** Input tokens the provider counted (V3 and V4: `inputTokens.total`), or `null` if it did not say. */
  inputTokens: number | null;
  /** Output tokens. */
  outputTokens: number | null;
  /** Input tokens read from the provider's prompt cache. */
  cacheReadTokens: number | null;
  /** Input tokens written to the provider's prompt cache (V3 and V4). */
  cacheWriteTokens: number | null;
  /** ctxfold's count of the prompt that call sent (`report.tokensAfter`): compare with `inputTokens`. */
  estimate: number;
  /** The usage object as the model returned it. */
  raw: LanguageModelUsage;
}

/** What the middleware keeps about one conversation (`status(key)`). */
export interface ConversationStatus {
  /** The key. */
  key: string;
  /** Model calls whose prompt the middleware prepared. */
  calls: number;
  /** Calls whose usage came back (a stream reports it at its end). */
  reported: number;
  /** What the next call passes to `compact` as `state`: the summaries and boundaries so far. */
  state: CompactState | null;
  /** The last call's compaction report. */
  report: CompactReport | null;
  /** The last call's context status. */
  contextStatus: ContextStatus | null;
  /** The last usage reported, with ctxfold's count of the same prompt. */
  usage: UsageRecord | null;
  /** After a provider refused a prompt as too long: the ratio of its tokens to ctxfold's, its limit, and the window and reserve every later call of the conversation is planned with (`null`: no refusal yet). */
  correction: Correction | null;
  /** When the record last changed (ISO 8601). */
  updatedAt: string | null;
}

/**
 * Options of `compactionMiddleware`: every option of `compact` (the model, window, threshold,
 * tail, pruning, summary and fallback settings), except those it sets per call (`state`,
 * `format`, `manual`, `instructions`), and how to key conversations. Unknown keys are errors.
 */
export interface CompactionMiddlewareOptions extends Omit<CompactOptions, "summarizer" | "state" | "format" | "manual" | "instructions"> {
  /** Who writes summaries: your function, the built-in extractive summary (default, no model call), or `"same-model"`: the wrapped model itself, asked through `doGenerate` with the summary request as the prompt, its `maxTokens` as `maxOutputTokens`, and a signal that aborts at the deadline or with the call. */
  summarizer?: Summarizer | "extractive" | "same-model";
  /** How calls are grouped into conversations, whose summaries, last report and usage are kept: a function of the call's params returning a key (`null` or `undefined`: this call is stateless), `"head"`: a hash of the prompt's leading system messages and first user message, or `null`: every call is stateless. Default: `"head"` with `summarizer: "same-model"` (so a tool loop's steps reuse the summaries instead of asking the model for them again), otherwise none, every call stateless (it compacts the prompt it is given, and nothing is kept). Calls on one key run one after another. */
  conversationKey?: "head" | ((params: LanguageModelCallOptions) => string | null | undefined) | null;
  /** The most conversations kept in memory; the least recently used go first. Default 1000. */
  maxConversations?: number;
  /** Called after each call's prompt is prepared, with what ctxfold did. */
  onReport?: (event: CompactionEvent) => void;
  /**
   * `true` or `{ maxTokens }`: each generate call is given the recall tool beside its own
   * tools (counted with them), the summary says the model can recall earlier messages, and the
   * middleware answers the model's recall calls itself from the call's whole prompt (the
   * messages the compacted prompt does not hold, within `maxTokens`, default 1000), then asks
   * the model again: the SDK's tool loop never sees the tool. Stream calls go without it.
   * Default: off.
   */
  recall?: CompactOptions["recall"];
}

/** The middleware: pass it to `wrapLanguageModel` (ai 5, 6 or 7). */
export interface CompactionMiddleware {
  /** The middleware specification it follows (V3; ai 5 ignores it, ai 7 takes V3 middleware). */
  readonly specificationVersion: "v3";
  /** Compacts `params.prompt` to the window and returns the params with the compacted prompt (your own message objects where kept). */
  transformParams<P extends LanguageModelCallOptions>(options: { type: "generate" | "stream"; params: P; model: LanguageModelLike }): Promise<P>;
  /** Calls the model and keeps the usage of its result with the conversation; the result comes back as it is, unless the model called the recall tool (`recall`), which the middleware answers and asks the model again (at most 3 times), giving back the answer after it. A provider's refusal of the prompt as too long is retried once, the prompt compacted again below the limit the refusal gave (`model`'s `doGenerate`); a second refusal is `CONTEXT_OVERFLOW`. */
  wrapGenerate<R extends LanguageModelGenerateResult>(options: { doGenerate: () => PromiseLike<R>; params: LanguageModelCallOptions; model?: LanguageModelLike }): Promise<R>;
  /** Calls the model and keeps the usage of the stream's `finish` part with the conversation; every part comes through as it is. A refusal (a rejected `doStream`, before any part) is retried once as `wrapGenerate`'s is, through `model`'s `doStream`. */
  wrapStream<S extends LanguageModelStreamResult>(options: { doStream: () => PromiseLike<S>; params: LanguageModelCallOptions; model?: LanguageModelLike }): Promise<S>;
  /** What is kept about a conversation, or `undefined` for a key never seen (or forgotten). */
  status(key: string): ConversationStatus | undefined;
  /** Drops a conversation's record; `true` if there was one. */
  forget(key: string): boolean;
}

/**
 * A language-model middleware that keeps every call inside the model's context window: before
 * each call it compacts the provider-level prompt (prunes old tool output, summarizes the
 * middle, keeps the head and the recent turns, never separates a tool call from its result),
 * and after it keeps the provider's usage with the conversation. Works with `wrapLanguageModel`
 * of `ai` 5, 6 and 7, in Node, browsers and Workers. Options are checked when the middleware
 * is made (without `model` or `contextWindow`, what depends on the window at the first call).
 *
 * ```ts
 * import { generateText, wrapLanguageModel } from "ai";
 * import { openai } from "@ai-sdk/openai";
 * import { compactionMiddleware } from "ctxfold/ai-sdk";
 *
 * const middleware = compactionMiddleware({
 *   summarizer: "same-model",
 *   conversationKey: ({ providerOptions }) => {
 *     const id = providerOptions?.ctxfold?.conversationId;
 *     return typeof id === "string" ? id : undefined;
 *   },
 * });
 * const model = wrapLanguageModel({ model: openai("gpt-4o"), middleware });
 * const { text } = await generateText({ model, messages, providerOptions: { ctxfold: { conversationId: "chat-42" } } });
 * middleware.status("chat-42")?.usage; // { inputTokens, estimate, ... }
 * ```
 */
export declare function compactionMiddleware(options?: CompactionMiddlewareOptions): CompactionMiddleware;
