
/**
 * An error thrown by ctxfold. `name` is `"CtxfoldError"` for domain errors, and
 * `"TypeError"` / `"RangeError"` for arguments of the wrong type or out of range.
 */
export interface CtxfoldError extends Error {
  /** Branch on this, not on the message. */
  code: CtxfoldErrorCode;
  /** `INVALID_ARGUMENT` and `OUT_OF_RANGE`: the argument the error is about, with its path (`options.toolPolicies.bash`, `options.guards.backoffTurns`). */
  argument?: string;
  /** An unknown option (`INVALID_ARGUMENT`): every option the call takes, so a caller can suggest the one meant. */
  known?: string[];
  /** `INVALID_MESSAGE` and `INVALID_STATE`: where in the messages or the state (`messages[3].content[0]`, `options.state.chunks[0].text`). */
  path?: string;
  /** `HTTP_ERROR` only: the answer's HTTP status, or `null` when no answer came (a failed connection). */
  status?: number | null;
  /** `HTTP_ERROR` only: the start of the answer's body (at most 240 characters; the API key and credential headers redacted). */
  excerpt?: string;
  /** `STALE_WRITE` only: the version the write expected. */
  expected?: number;
  /** `STALE_WRITE` only: the version the store holds, or `null` when it holds no conversation. */
  found?: number | null;
  /** `CONTEXT_OVERFLOW` from a provider's second refusal: the input tokens it counted, or `null` when it did not say. */
  providerTokens?: number | null;
  /** `CONTEXT_OVERFLOW` from a provider's second refusal: its limit, or `null` when it did not say. */
  providerLimit?: number | null;
  /** `CONTEXT_OVERFLOW` from a provider's second refusal: ctxfold's estimate of the refused input, in the provider's tokens. */
  estimate?: number;
}

/** A conversation: an array of messages, or an object with a `messages` array (an Anthropic request with its `system`). */
export type Conversation<M = unknown> = readonly M[] | { readonly messages: readonly M[]; readonly system?: unknown };

/** One summarizer call. Pass `messages` (or `system` and `prompt`) to your LLM with `maxTokens`, and honour `signal`. */
export interface SummaryRequest extends SummaryRequestFields {
  /** `system` and `prompt` as chat messages, ready for an OpenAI-compatible API. */
  messages: [{ role: "system"; content: string }, { role: "user"; content: string }];
  /** Aborts at the deadline. */
  signal: AbortSignal;
}

/** What a summarizer returns: the summary text, or the text with the model and its usage. */
export type SummaryResult = string | { text: string; model?: string; usage?: unknown };

/** Your LLM, summarizing: `request.messages` in, the summary text out. */
export type Summarizer = (request: SummaryRequest) => Promise<SummaryResult> | SummaryResult;

/** The result of `compact`: `M` is what was passed in (an array of your message type, or an object with a `messages` array), and `messages` comes back in that shape. */
export interface CompactResult<M = unknown[]> extends CompactOutcome {
  /** The input to send, in the format and shape the messages came in: your own objects where kept, new ones (summaries, pruned outputs) in your format. */
  messages: M extends readonly (infer E)[] ? E[] : M extends { readonly messages: readonly (infer E)[] } ? Omit<M, "messages"> & { messages: E[] } : M;
}

/**
 * Fits a conversation into the model's window: prunes old tool outputs, summarizes the
 * middle through `options.summarizer` (your LLM, or the built-in extractive summary), keeps
 * the head and recent turns verbatim, and reports what it did. Under the threshold the
 * messages come back unchanged. A failing summarizer falls back (see `fallback`); only
 * `CONTEXT_OVERFLOW`, bad input, or `fallback: "error"` / `manual` compactions reject.
 * Never throws synchronously: every error is a rejection.
 *
 * ```ts
 * const { messages: input, state } = await compact(history, {
 *   model: "gpt-4o",
 *   summarizer: async (req) => (await llm(req.messages, { max_tokens: req.maxTokens, signal: req.signal })).text,
 *   state: previousState,
 * });
 * ```
 */
export function compact<M extends Conversation>(messages: M, options: CompactOptions): Promise<CompactResult<M>>;
