// The Compactor, its stores and what its calls return, type-checked against the package's
// .d.ts like usage.ts: typed uses, and `@ts-expect-error` lines for what must not compile.
import {
  Compactor,
  MemoryStore,
  durableObjectStore,
  staleWriteError,
  isCtxfoldError,
  type CommitOutcome,
  type CompactionRecord,
  type CompactorEvents,
  type CompactorOptions,
  type CompactorStore,
  type ConversationStatus,
  type ExportedConversation,
  type SearchHit,
  type Recalled,
  type RecallMatch,
  type RecallToolOpenAI,
  type RecallToolAnthropic,
  type RecallToolOpenAIResponses,
  type RecallToolAiSdk,
  type RecallToolSchema,
  type HistoryEntry,
  type PrepareResult,
  type StoredMeta,
  type StoredSummary,
  type UndoOutcome,
  type WriteBatch,
} from "ctxfold";
// Every entry exports the same.
import { Compactor as LiteCompactor, MemoryStore as LiteMemoryStore, durableObjectStore as liteDurableObjectStore } from "ctxfold/lite";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function expectType<T extends true>(): T | void {}

/** A message type of the app's own. */
interface ChatMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string;
}

/** A store over a Map, as the README writes it. */
const rows = new Map<string, { meta: StoredMeta; messages: unknown[]; summaries: StoredSummary[]; records: CompactionRecord[] }>();
const mapStore: CompactorStore = {
  async load(id) {
    return rows.get(id)?.meta ?? null;
  },
  async messages(id, from) {
    return rows.get(id)?.messages.slice(from) ?? [];
  },
  async write(id, expect, batch: WriteBatch) {
    const row = rows.get(id);
    if ((row?.meta.version ?? 0) !== expect) throw staleWriteError(id, expect, row?.meta.version ?? null);
    rows.set(id, { meta: batch.meta, messages: [...(row?.messages ?? []), ...batch.messages], summaries: [], records: [] });
  },
  async summaries(id) {
    return rows.get(id)?.summaries ?? [];
  },
  async records(id) {
    return rows.get(id)?.records ?? [];
  },
  async list() {
    return [...rows.keys()];
  },
  async delete(id) {
    rows.delete(id);
  },
  lockName: "my-app",
};

async function chatApp(): Promise<void> {
  const options: CompactorOptions = {
    model: "gpt-4o",
    store: new MemoryStore(),
    summarizer: async (request) => `## Conversation Summary\n- **Facts:** ${request.prompt.length}`,
    on: { compactionEnd: ({ record }) => void record.tokensAfter },
    writeRetries: 2,
    maxCachedConversations: 50,
    storeTimeoutMs: 10_000,
    thresholdRatio: 0.6,
    guards: { idempotencySeconds: 30, backoffTurns: 0, breakerFailures: 5, breakerCooldownTurns: 20 },
  };
  const compactor = new Compactor<ChatMessage>(options);
  const result: PrepareResult<ChatMessage> = await compactor.prepare("chat-1", [{ role: "user", content: "hi" }]);
  const messages: ChatMessage[] = result.messages;
  const tokens: number = result.report.tokensAfter;
  const estimate: number = result.estimate.tokens;
  const record: CompactionRecord | null = result.record;
  const committed: CommitOutcome = await compactor.commit("chat-1", { role: "assistant", content: "hello" }, { prompt_tokens: 20, completion_tokens: 2 });
  await compactor.commit("chat-1", [{ role: "assistant", content: "a" }], { input_tokens: 3, cache_read_input_tokens: 12 });
  await compactor.commit("chat-1", { role: "assistant", content: "b" }, { inputTokens: { total: 12 } });
  await compactor.commit("chat-1", { role: "assistant", content: "c" }, { usageMetadata: { promptTokenCount: 9 } });
  const manual: PrepareResult<ChatMessage> = await compactor.compact("chat-1", { instructions: "keep the decisions" });
  const undone: UndoOutcome | null = await compactor.undo("chat-1");
  // After a provider's refusal: the input planned again, as prepare returns it.
  const replanned: PrepareResult<ChatMessage> = await compactor.overflowed("chat-1", new Error("context_length_exceeded"));
  const overflow = replanned.record === null ? null : await compactor.overflowed("chat-1", { responseBody: "{}" }).catch((e: unknown) => (isCtxfoldError(e) ? e.providerLimit : undefined));
  void overflow;
  const history: HistoryEntry<ChatMessage>[] = await compactor.history("chat-1");
  const first: ChatMessage = history[0].message;
  const by: number | null = history[0].summarizedBy;
  const status: ConversationStatus | null = await compactor.status("chat-1");
  const use: number | undefined = status?.plan.tokens.toolResults;
  const definitions: number | undefined = status?.plan.tokens.toolDefinitions;
  void definitions;
  const hits: SearchHit[] = await compactor.search("chat-1", "staging proxy port", { limit: 3 });
  const evicted: boolean = !hits[0].inInput;
  const at: number = hits[0].index;
  void [evicted, at];
  // @ts-expect-error: the limit is a number
  await compactor.search("chat-1", "port", { limit: "3" });
  // @ts-expect-error: no such option
  await compactor.search("chat-1", "port", { max: 3 });
  const recalled: Recalled = await compactor.recall("chat-1", { query: "staging proxy port", limit: 3 });
  const match: RecallMatch | undefined = recalled.matches[0];
  const toolResult: string = recalled.text;
  const spent: number = recalled.tokens;
  void [match?.cut, match?.role, toolResult, spent];
  // @ts-expect-error: the query is required
  await compactor.recall("chat-1", { limit: 3 });
  // @ts-expect-error: no such argument
  await compactor.recall("chat-1", { query: "port", k: 3 });
  const chat: RecallToolOpenAI = compactor.recallTool("chat-1", { format: "openai" });
  const chatName: "recall" = chat.function.name;
  const responses: RecallToolOpenAIResponses = compactor.recallTool("chat-1", { format: "openai-responses" });
  const anthropic: RecallToolAnthropic = compactor.recallTool("chat-1", { format: "anthropic" });
  const required: ["query"] = anthropic.input_schema.required;
  const wrapped = compactor.recallTool("chat-1", { format: "ai-sdk", jsonSchema: (schema) => ({ wrapped: schema }) });
  expectType<Equal<typeof wrapped, RecallToolAiSdk<{ wrapped: RecallToolSchema }>>>();
  const out: Promise<string> = wrapped.execute({ query: "port" });
  void [chatName, responses, required, out];
  // @ts-expect-error: the AI SDK's shape needs the SDK's jsonSchema
  compactor.recallTool("chat-1", { format: "ai-sdk" });
  // @ts-expect-error: no such format
  compactor.recallTool("chat-1", { format: "gemini" });
  new Compactor({ model: "gpt-4o", recall: true });
  new Compactor({ model: "gpt-4o", recall: { maxTokens: 500 } });
  // @ts-expect-error: recall is a boolean or { maxTokens }
  new Compactor({ model: "gpt-4o", recall: "on" });
  const data: ExportedConversation = await compactor.export("chat-1");
  const id: string = await compactor.import(data, { id: "chat-2", overwrite: true });
  const ids: string[] = await compactor.list();
  const stop: () => void = compactor.on("compactionStart", (e) => void e.plan.trigger);
  compactor.on("fallback", (e) => void e.fallback.reason);
  compactor.on("compactionFailed", (e) => void (e.retried satisfies boolean));
  compactor.on("suppressed", (e) => void (e.suppressed.guard satisfies "idempotency" | "backoff"));
  compactor.on("backoff", (e) => void (e.backoff.turns + e.backoff.level));
  compactor.on("breakerOpen", (e) => void e.breaker.untilTurn);
  compactor.on("breakerClosed", (e) => void (e.breaker.change satisfies "opened" | "closed" | "skipped"));
  const suppressed: boolean = result.guards.suppressed !== null;
  const before: number | undefined = record?.guards?.suppressedBefore;
  const failures: number | undefined = status?.guards.breaker.failures;
  compactor.off("pruned", (e) => void e.pruned.boundary);
  expectType<Equal<Parameters<Parameters<typeof compactor.on<"compactionEnd">>[1]>[0], CompactorEvents["compactionEnd"]>>();
  try {
    await compactor.prepare("chat-1", { system: "Be brief.", messages: [] });
  } catch (e) {
    if (isCtxfoldError(e) && e.code === "STALE_WRITE") void e.message;
  }
  // @ts-expect-error: the Compactor keeps the state
  new Compactor({ model: "gpt-4o", state: null });
  // @ts-expect-error: a manual compaction is compact(id)
  new Compactor({ model: "gpt-4o", manual: true });
  // @ts-expect-error: the state stays in the store, unsigned
  new Compactor({ model: "gpt-4o", stateKey: "secret" });
  // @ts-expect-error: not a store
  new Compactor({ model: "gpt-4o", store: new Map() });
  // @ts-expect-error: messages of another type
  await compactor.prepare("chat-1", [{ role: "user", text: "hi" }]);
  // @ts-expect-error: not an event
  compactor.on("compacted", () => {});
  // @ts-expect-error: not a guard knob
  new Compactor({ model: "gpt-4o", guards: { breakerFailure: 3 } });
  // @ts-expect-error: not usage
  await compactor.commit("chat-1", { role: "assistant", content: "x" }, "12 tokens");
  // @ts-expect-error: instructions are a string
  await compactor.compact("chat-1", { instructions: 5 });
  // @ts-expect-error: overflowed takes the conversation's id first
  await compactor.overflowed(new Error("x"));
  // @ts-expect-error: undo resolves to an outcome or null
  const wrong: UndoOutcome = await compactor.undo("chat-1");
  void [messages, tokens, estimate, record, committed, manual, undone, first, by, use, id, ids, stop, wrong, suppressed, before, failures];
}

/** Cloudflare's DurableObjectStorage, as @cloudflare/workers-types declares what is used of it. */
interface DurableObjectTransaction {
  get<T = unknown>(key: string): Promise<T | undefined>;
  get<T = unknown>(keys: string[]): Promise<Map<string, T>>;
  put<T>(key: string, value: T): Promise<void>;
  put<T>(entries: Record<string, T>): Promise<void>;
  delete(key: string): Promise<boolean>;
  delete(keys: string[]): Promise<number>;
  list<T = unknown>(options?: { start?: string; startAfter?: string; end?: string; prefix?: string; reverse?: boolean; limit?: number }): Promise<Map<string, T>>;
  rollback(): void;
}
interface DurableObjectStorage extends DurableObjectTransaction {
  transaction<T>(closure: (txn: DurableObjectTransaction) => Promise<T>): Promise<T>;
  deleteAll(): Promise<void>;
}

function worker(storage: DurableObjectStorage): CompactorStore {
  const store = durableObjectStore(storage, { prefix: "chats" });
  // @ts-expect-error: not a Durable Object's storage
  durableObjectStore(new Map());
  // @ts-expect-error: unknown option
  durableObjectStore(storage, { prefx: "x" });
  new LiteCompactor({ model: "gpt-4o", allowEstimate: true, store: liteDurableObjectStore(storage) });
  void new LiteMemoryStore();
  return store;
}

void [chatApp, worker, mapStore];
