// ctxfold/ai-sdk's declarations, type-checked without the AI SDK installed (the package does
// not depend on it): the middleware is a plain structural type. tests/ai-sdk/types checks it
// against ai 5, 6 and 7's own wrapLanguageModel.
import {
  compactionMiddleware,
  type CompactionEvent,
  type CompactionMiddleware,
  type CompactionMiddlewareOptions,
  type ConversationStatus,
  type LanguageModelCallOptions,
  type LanguageModelLike,
  type UsageRecord,
} from "ctxfold/ai-sdk";
import { notify, type CompactReport, type CompactState } from "ctxfold";

const conversationKey = (params: LanguageModelCallOptions): string | undefined => {
  const id = params.providerOptions?.ctxfold?.conversationId;
  return typeof id === "string" ? id : undefined;
};
const options: CompactionMiddlewareOptions = {
  model: "gpt-4o",
  contextWindow: 8192,
  thresholdRatio: 0.7,
  summarizer: "same-model",
  conversationKey,
  maxConversations: 100,
  onReport: (event: CompactionEvent) => {
    const report: CompactReport = event.report;
    const key: string | null = event.key;
    // notify takes the event (and its report) as it comes.
    const line: string = notify(event) + notify(event.report);
    void [report, key, line];
  },
};
const middleware: CompactionMiddleware = compactionMiddleware(options);
const head = compactionMiddleware({ conversationKey: "head", summarizer: async (req) => ({ text: req.prompt, model: "m" }) });
const stateless = compactionMiddleware();
// "same-model" is keyed by the head unless told otherwise; null keeps every call stateless.
const sameModelStateless: CompactionMiddleware = compactionMiddleware({ summarizer: "same-model", conversationKey: null });
void sameModelStateless;

const status: ConversationStatus | undefined = middleware.status("chat-42");
const state: CompactState | null | undefined = status?.state;
const usage: UsageRecord | null | undefined = status?.usage;
const input: number | null | undefined = usage?.inputTokens;
const estimate: number | undefined = usage?.estimate;
// After a refusal: the window and reserve the conversation's calls are planned with.
const corrected: number | undefined = status?.correction?.contextWindow;
const limit: number | null | undefined = status?.correction?.limit;
void [corrected, limit];
const forgotten: boolean = head.forget("chat-42");

// transformParams gives back the type it was given (the SDK's own call options).
async function prepare(model: LanguageModelLike): Promise<void> {
  const params = { prompt: [{ role: "user" as const, content: [{ type: "text", text: "hi" }] }], temperature: 0 };
  const out = await stateless.transformParams({ type: "generate", params, model });
  const t: number = out.temperature;
  void t;
}

// @ts-expect-error: the middleware keeps the state per conversation
compactionMiddleware({ state: null });
// @ts-expect-error: the format is always the provider-level prompt's
compactionMiddleware({ format: "openai" });
// @ts-expect-error: not a summarizer
compactionMiddleware({ summarizer: "gpt-4o-mini" });
// @ts-expect-error: a key is "head" or a function
compactionMiddleware({ conversationKey: "prompt" });
// @ts-expect-error: the key function returns a string (or nothing)
compactionMiddleware({ conversationKey: () => 42 });
// @ts-expect-error: status takes a key
middleware.status(42);

void [state, input, estimate, forgotten, prepare];
