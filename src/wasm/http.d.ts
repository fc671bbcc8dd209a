
/** Options of `openAISummarizer`. Unknown keys are errors. */
export type OpenAISummarizerOptions = SummarizerOptions;

/** Options of `anthropicSummarizer` (all of `SummarizerOptions` but OpenAI's `maxTokensField`). Unknown keys are errors. */
export type AnthropicSummarizerOptions = Omit<SummarizerOptions, "maxTokensField">;

/** What a built-in summarizer reads from a request (a `SummaryRequest` has it all). `signal` aborts the request; without one, `timeoutMs` does. */
export type HttpSummaryRequest = Pick<SummaryRequest, "system" | "prompt" | "maxTokens"> & Partial<Pick<SummaryRequest, "signal" | "timeoutMs">>;

/** A built-in summarizer's reply. `compact` puts `model` and `usage` in the summary chunk it makes (`state.chunks[i]`). */
export interface HttpSummary {
  /** The summary text. */
  text: string;
  /** The model, as the provider named it in its reply. */
  model?: string;
  /** The provider's usage, as it gave it (`prompt_tokens`, `completion_tokens`, ... or `input_tokens`, `output_tokens`, ...). */
  usage?: Record<string, unknown>;
}

/** A summarizer that calls an LLM over HTTP: pass it to `compact` as `summarizer`, or call it yourself. It rejects with the signal's reason when aborted, and with an `HTTP_ERROR` (`status`, `excerpt`) when the request fails. */
export type HttpSummarizer = (request: HttpSummaryRequest) => Promise<HttpSummary>;

/**
 * A summarizer for any OpenAI-compatible Chat Completions endpoint: OpenAI, Ollama, vLLM,
 * LM Studio, OpenRouter, ... It sends `request.system` and `request.prompt` as a system
 * and a user message with `max_tokens: request.maxTokens`, aborts with `request.signal`,
 * retries rate limits and server errors within the deadline, and returns the text with the
 * reply's `model` and `usage`. Failures are `HTTP_ERROR`s that never contain the key.
 * Options are checked here: a bad one throws a `TypeError` or `RangeError` at once.
 *
 * ```ts
 * const summarizer = openAISummarizer({ model: "gpt-4o-mini", apiKey: process.env.OPENAI_API_KEY });
 * const { messages, state } = await compact(history, { model: "gpt-4o", summarizer });
 * // Ollama: openAISummarizer({ baseURL: "http://localhost:11434/v1", model: "llama3.1" })
 * ```
 */
export function openAISummarizer(options: OpenAISummarizerOptions): HttpSummarizer;

/**
 * A summarizer for Anthropic's Messages API: `request.system` as `system`, `request.prompt`
 * as the user message, `max_tokens: request.maxTokens`; aborts with `request.signal`,
 * retries rate limits, overloads and server errors within the deadline, and returns the
 * text blocks joined, with the reply's `model` and `usage`. Failures are `HTTP_ERROR`s that
 * never contain the key. Options are checked here: a bad one throws at once.
 *
 * ```ts
 * const summarizer = anthropicSummarizer({ model: "claude-haiku-4-5", apiKey: process.env.ANTHROPIC_API_KEY });
 * const { messages, state } = await compact(history, { model: "claude-sonnet-4-5", summarizer });
 * ```
 */
export function anthropicSummarizer(options: AnthropicSummarizerOptions): HttpSummarizer;
