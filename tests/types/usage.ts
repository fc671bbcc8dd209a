// Type-checked against the built package's .d.ts (scripts/test.sh runs tsc --noEmit with
// tsconfig.json, moduleResolution "bundler", and tsconfig.node16.json). Every export is
// used with its intended types; each `@ts-expect-error` line proves a wrong use is rejected
// (tsc fails if the line below it compiles).
import {
  anthropicSummarizer,
  compact,
  openAISummarizer,
  countMessages,
  countTokens,
  plan,
  hasVocabulary,
  isCtxfoldError,
  loadVocabulary,
  type CompactOptions,
  type CompactPlan,
  type CompactReport,
  type AnthropicSummarizerOptions,
  type CompactResult,
  type HttpSummarizer,
  type HttpSummary,
  type OpenAISummarizerOptions,
  type Summarizer,
  type CountOptions,
  type CtxfoldError,
  type CtxfoldErrorCode,
  type Encoding,
  type VocabularySource,
} from "ctxfold";
import * as lite from "ctxfold/lite";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function expectType<T extends true>(): T | void {}

const encoding: Encoding = "o200k_base";
const options: CountOptions = { encoding };
const n: number = countTokens("Hello, world!", options);
const m: number = countTokens("Hello, world!", { encoding: "cl100k_base" });
const available: boolean = hasVocabulary("cl100k_base");
const loading: Promise<void> = loadVocabulary("o200k_base");
expectType<Equal<Encoding, "o200k_base" | "cl100k_base">>();
expectType<Equal<ReturnType<typeof countTokens>, number>>();
expectType<Equal<Parameters<typeof countTokens>[1], CountOptions>>();

async function sources(bytes: Uint8Array, buffer: ArrayBuffer, response: Response): Promise<void> {
  const all: VocabularySource[] = [bytes, buffer, response, new URL("https://example.test/o200k_base.ctxv"), "/vocab/x"];
  for (const source of all) await lite.loadVocabulary("o200k_base", source);
  await lite.loadVocabulary("cl100k_base");
  const k: number = lite.countTokens("hello", { encoding: "cl100k_base" });
  const has: boolean = lite.hasVocabulary("o200k_base");
  void [k, has];
}

function handle(e: unknown): CtxfoldErrorCode | undefined {
  if (isCtxfoldError(e)) {
    const err: CtxfoldError = e;
    const asError: Error = err;
    void asError;
    switch (err.code) {
      case "UNKNOWN_ENCODING":
      case "VOCABULARY_NOT_LOADED":
      case "INVALID_VOCABULARY":
      case "INVALID_ARGUMENT":
        return err.code;
      // @ts-expect-error: not one of the codes
      case "NOT_A_CODE":
        return undefined;
    }
  }
  if (lite.isCtxfoldError(e)) return e.code;
  return undefined;
}

async function chat(history: { role: string; content: string }[]): Promise<number | null> {
  const opts: CompactOptions = { model: "gpt-4o", alternateRoles: true, summaryMaxTokens: 1024 };
  const { report } = await compact(history, opts);
  const into: number | null = report.summaryMergedInto;
  // @ts-expect-error: alternateRoles is a boolean
  const wrong: CompactOptions = { model: "gpt-4o", alternateRoles: "yes" };
  void wrong;
  return into;
}

// compact() resolves to its result (not a promise of a promise), typed by what was passed:
// the caller's message type comes back, for arrays (readonly too) and for envelopes.
type ChatMessage = { role: "system" | "user" | "assistant"; content: string };
async function typedCompact(history: readonly ChatMessage[]): Promise<void> {
  const options: CompactOptions = { model: "gpt-4o" };
  const pending = compact(history, options);
  expectType<Equal<typeof pending, Promise<CompactResult<readonly ChatMessage[]>>>>();
  const report: CompactReport = await compact(history, options).then((r) => r.report);
  const result = await pending;
  expectType<Equal<typeof result.messages, ChatMessage[]>>();
  const first: ChatMessage | undefined = result.messages[0];
  // A mutable array works the same.
  const mutable: ChatMessage[] = [...history];
  expectType<Equal<(typeof mutable)[number], (Awaited<ReturnType<typeof compact<ChatMessage[]>>>)["messages"][number]>>();
  // An Anthropic request: its other fields come back with it.
  const request = { system: "You help.", max_tokens: 1024, messages: history };
  const out = await compact(request, { model: "claude-sonnet-4-5" });
  expectType<Equal<typeof out.messages.messages, ChatMessage[]>>();
  expectType<Equal<typeof out.messages.max_tokens, number>>();
  // plan and countMessages take readonly arrays too.
  const p: CompactPlan = plan(history, options);
  const total: number = countMessages(history, { model: "gpt-4o" }).total;
  // @ts-expect-error: the result is not a promise once awaited
  const wrong: Promise<unknown> = result;
  // @ts-expect-error: messages are the caller's type, not strings
  const notStrings: string[] = result.messages;
  void [report, first, p, total, wrong, notStrings];
}

// The built-in HTTP summarizers: options typed, the result usable as compact()'s summarizer
// and callable with a request of your own; an HTTP_ERROR carries status and excerpt.
async function httpSummarizers(history: { role: "user" | "assistant"; content: string }[]): Promise<void> {
  const openaiOptions: OpenAISummarizerOptions = {
    model: "llama3.1",
    baseURL: "http://localhost:11434/v1",
    headers: [["x-title", "app"]],
    body: { temperature: 0 },
    maxTokensField: "max_completion_tokens",
    maxRetries: 0,
  };
  const local: HttpSummarizer = openAISummarizer(openaiOptions);
  const anthropicOptions: AnthropicSummarizerOptions = { model: "claude-haiku-4-5", apiKey: "k", headers: new Headers() };
  const claude = anthropicSummarizer(anthropicOptions);
  const asCallback: Summarizer = claude;
  const { state } = await compact(history, { model: "gpt-4o", summarizer: local });
  const made: HttpSummary = await claude({ system: "Summarize.", prompt: "text", maxTokens: 256, timeoutMs: 5000 });
  const text: string = made.text;
  const model: string | undefined = made.model;
  try {
    await local({ system: "s", prompt: "p", maxTokens: 64, signal: AbortSignal.timeout(1000) });
  } catch (e) {
    if (isCtxfoldError(e) && e.code === "HTTP_ERROR") {
      const status: number | null | undefined = e.status;
      const excerpt: string | undefined = e.excerpt;
      void [status, excerpt];
    }
  }
  // @ts-expect-error: a model is required
  openAISummarizer({ baseURL: "http://localhost:11434/v1" });
  // @ts-expect-error: maxTokensField is OpenAI's
  anthropicSummarizer({ model: "m", maxTokensField: "max_tokens" });
  // @ts-expect-error: not a field name the API takes
  openAISummarizer({ model: "m", maxTokensField: "tokens" });
  // @ts-expect-error: a request needs its prompt
  void local({ system: "s", maxTokens: 64 });
  // @ts-expect-error: the reply is not a string
  const notText: string = await local({ system: "s", prompt: "p", maxTokens: 64 });
  void [asCallback, state, text, model, notText];
}

// @ts-expect-error: text must be a string
countTokens(42, { encoding: "o200k_base" });
// @ts-expect-error: options are required
countTokens("x");
// @ts-expect-error: not an encoding ctxfold knows
countTokens("x", { encoding: "p50k_base" });
// @ts-expect-error: unknown option
countTokens("x", { encoding: "o200k_base", encodng: "cl100k_base" });
// @ts-expect-error: the count is a number
const s: string = countTokens("x", options);
// @ts-expect-error: not an encoding ctxfold knows
hasVocabulary("gpt2");
// @ts-expect-error: not a vocabulary source
void loadVocabulary("o200k_base", 42);
// @ts-expect-error: not a vocabulary source
void lite.loadVocabulary("o200k_base", { bytes: new Uint8Array() });
// @ts-expect-error: loadVocabulary resolves to nothing
const loaded: Promise<number> = loadVocabulary("o200k_base");
// @ts-expect-error: not a code
const code: CtxfoldErrorCode = "ENOENT";

void [n, m, available, loading, sources, handle, chat, s, loaded, code, typedCompact, httpSummarizers];
