
/**
 * What a provider reported about a call's input: its usage object as it came (or a number).
 * One without the input tokens is set aside (the commit's `usageIgnored` says so); a count
 * that is not a non-negative integer is an `INVALID_ARGUMENT`, and the commit stores nothing.
 */
export type ProviderUsage =
  | number
  | {
      /** OpenAI Chat Completions. */
      prompt_tokens?: number;
      /** OpenAI Responses; Anthropic (without the cached part, added from the next two). */
      input_tokens?: number;
      /** Anthropic: input read from its prompt cache. */
      cache_read_input_tokens?: number | null;
      /** Anthropic: input written to its prompt cache. */
      cache_creation_input_tokens?: number | null;
      /** The AI SDK (`{ total }` in its provider-level usage). */
      inputTokens?: number | { total?: number | undefined } | undefined;
      /** Gemini. */
      promptTokenCount?: number;
      /** A whole response: its `usage`. */
      usage?: ProviderUsage | null;
      /** A whole Gemini response: its `usageMetadata`. */
      usageMetadata?: ProviderUsage | null;
      /** What else the provider reports (output tokens, details). */
      [other: string]: unknown;
    };

/** The events of a `Compactor`, by name, with what each handler gets (`CompactorEvent` says what each is). */
export type CompactorEvents = { [E in CompactorEventName]: Extract<CompactorEvent, { type: E }> };

/**
 * The options of a `Compactor` that only JavaScript holds (the rest, `CompactorOptions`, are
 * read by the core).
 */
export interface CompactorJsOptions {
  /** Where conversations are kept. Default: a new `MemoryStore`. */
  store?: CompactorStore;
  /** Handlers to add at once, as `on(name, handler)` adds them. */
  on?: { [E in keyof CompactorEvents]?: (event: CompactorEvents[E]) => void };
  /**
   * Keeps background work (`prepareAhead`) alive past the response: in a Worker or Durable
   * Object, `ctx.waitUntil.bind(ctx)`. Without it, the work runs while the runtime does.
   */
  waitUntil?: (promise: Promise<unknown>) => void;
}

/** The input `prepare` and `compact` return: send `messages` (and `system`, for Anthropic, and `tools`). */
export interface PrepareResult<M = unknown> extends PrepareOutcome {
  /** The model input: your stored messages where kept, new ones (summaries, pruned tool outputs) in your format. */
  messages: M[];
  /** Anthropic's top-level `system`, when the conversation has one. */
  system?: unknown;
  /** The tool definitions `prepare` was last given, when it was given any. */
  tools?: unknown[];
  /** Summarizer requests this call answered with summaries `prepareAhead` made before it (0: none). */
  preparedAhead: number;
}

/**
 * Conversations that remember: each `prepare` appends what is new to the stored history,
 * compacts when the input passes the threshold, stores what the compaction made, and
 * returns the model input; `commit` appends the reply and learns from the provider's usage.
 * Calls on one conversation run one after another (across tabs too, for a store with a
 * `lockName`, through `navigator.locks`); the store's version check keeps any other writer
 * from losing anything.
 *
 * ```ts
 * const compactor = new Compactor({ model: "gpt-4o", summarizer: mySummarizer });
 * const { messages } = await compactor.prepare("chat-42", [{ role: "user", content: "Hi!" }]);
 * const reply = await openai.chat.completions.create({ model: "gpt-4o", messages });
 * await compactor.commit("chat-42", reply.choices[0].message, reply.usage);
 * ```
 */
export declare class Compactor<M = unknown> {
  constructor(options: CompactorOptions);
  /** The store. */
  readonly store: CompactorStore;
  /**
   * Appends `newMessages` (what is new since the last call: the user's message, tool results)
   * to the stored history, compacts if the input passes the threshold, and returns the model
   * input `[head] [summaries] [tail] [new]`. For Anthropic pass `{ system, messages }`: the
   * `system` is kept (and replaced when another is passed). The request's tool definitions,
   * passed as `{ tools, messages }`, are kept the same way and counted with the input (`null`
   * removes them).
   *
   * ```ts
   * const { messages, contextStatus, report } = await compactor.prepare(id, [userMessage]);
   * ```
   */
  prepare(conversationId: string, newMessages: readonly M[] | { messages: readonly M[]; system?: unknown; tools?: readonly unknown[] | null }): Promise<PrepareResult<M>>;
  /**
   * Appends the model's reply (a message, or several: an assistant message with tool calls,
   * then the next step's), and with the provider's `usage` corrects the next trigger
   * decision: ctxfold's count of the input `prepare` returned against what the provider says.
   *
   * ```ts
   * await compactor.commit(id, response.choices[0].message, response.usage);
   * ```
   */
  commit(conversationId: string, reply: M | readonly M[], usage?: ProviderUsage | null): Promise<CommitOutcome>;
  /**
   * Resolves when the summaries `prepareAhead` is making in the background for the
   * conversation are made (at once when there are none), with how many it made. A test, a
   * benchmark or a server shutting down waits on it; a chat turn need not.
   */
  whenPrepared(conversationId: string): Promise<number>;
  /**
   * Compacts now, whatever the threshold (`/compact`), with `instructions` for the
   * summarizer; a summarizer that fails is an error (`SUMMARIZER_FAILED`), not a fallback.
   *
   * ```ts
   * const { report } = await compactor.compact(id, { instructions: "keep the API decisions" });
   * ```
   */
  compact(conversationId: string, options?: ManualCompactOptions): Promise<PrepareResult<M>>;
  /**
   * Prunes old tool outputs now (`/prune`), without a summary: those outside the recent
   * turns (`bufferTurns`) larger than `toolOutputMaxBytes` become their start and end (or a
   * stub, as `toolPolicies` say), as pruning under pressure would make them; the next turns
   * keep them so. It compacts only an input that does not fit even pruned. With nothing to
   * prune it stores nothing (`report.pruned.advanced` is false).
   *
   * ```ts
   * const { report, prunedTokens } = await compactor.prune(id); // prunedTokens: { before: 12400, after: 2100 }
   * ```
   */
  prune(conversationId: string): Promise<PrepareResult<M>>;
  /**
   * The provider refused the input the last `prepare` returned as too long for its window
   * (OpenAI's `context_length_exceeded`, Anthropic's `prompt is too long`, Gemini's, vLLM's,
   * llama.cpp's, Ollama's, LM Studio's): its count corrects the estimate for this
   * conversation and its limit caps the budget (both kept, for every later turn), and the
   * input is planned again strictly below the limit; send it once more. A refusal of that
   * input is `CONTEXT_OVERFLOW` (`providerTokens`, `providerLimit`, `estimate`). An error
   * that is no such refusal rejects as it was.
   *
   * ```ts
   * let input = await compactor.prepare(id, [userMessage]);
   * let reply;
   * try { reply = await callModel(input.messages); }
   * catch (e) { input = await compactor.overflowed(id, e); reply = await callModel(input.messages); }
   * ```
   */
  overflowed(conversationId: string, error: unknown): Promise<PrepareResult<M>>;
  /**
   * Runs a chat command (`/compact [instructions]`, `/status`, `/prune`, `/undo`, `/new`,
   * `/resume [id]`) without calling the model; `null` when `text` is not a command (send it
   * to the model). `/new` starts a conversation whose head carries a summary of this one
   * (this one is not changed) and resolves with its id.
   *
   * ```ts
   * const answer = await compactor.command(id, input.value);
   * if (answer) chat.note(answer.text); else await send(id, input.value);
   * ```
   */
  command(conversationId: string, text: string): Promise<CommandResult<M> | null>;
  /**
   * Undoes the latest compaction: its summaries drop out and the boundaries it moved come
   * back (the history is intact). The next `prepare` builds the input that turn would have
   * built without it, unless the threshold makes it compact again. `null` when there is
   * nothing to undo.
   *
   * ```ts
   * const undone = await compactor.undo(id); // { compaction: 3, chunks: 2, boundary: 41 }
   * ```
   */
  undo(conversationId: string): Promise<UndoOutcome | null>;
  /** The full history, each message with its index and the compaction that summarized it. */
  history(conversationId: string): Promise<HistoryEntry<M>[]>;
  /** Every summary made, oldest first (folded and undone ones too). */
  summaries(conversationId: string): Promise<StoredSummary[]>;
  /** One record per compaction, oldest first (`undone` set for those undone). */
  records(conversationId: string): Promise<CompactionRecord[]>;
  /**
   * Where the conversation stands: the window's use by part, the latest compaction, the
   * estimate's error per model. `null` for a conversation the store does not hold.
   *
   * ```ts
   * const s = await compactor.status(id);
   * meter.value = s.estimate.tokens / s.estimate.input;
   * ```
   */
  status(conversationId: string): Promise<ConversationStatus | null>;
  /**
   * The stored messages that best match `query`, best first (BM25 over words, identifiers
   * matched exactly and weighted more, ties newest first), each with its index, role, a
   * snippet and whether the model's input holds it now. Summarized messages are found too:
   * the history is whole. An empty array for a conversation the store does not hold.
   *
   * ```ts
   * const hits = await compactor.search(id, "which port did the proxy use?", { limit: 3 });
   * const evicted = hits.filter((h) => !h.inInput);
   * ```
   */
  search(conversationId: string, query: string, options?: SearchOptions): Promise<SearchHit[]>;
  /**
   * What the model asked the recall tool for: the stored messages the model's input does not
   * hold now (summarized away) that best match `args.query`, at most `args.limit` (1 to 20,
   * default 5), each whole or a passage of it, and the same as `text`, framed as data, ready
   * to be the tool's result. Within the `recall` option's `maxTokens` (default 1000), counted
   * with the conversation's counter. `args` is the model's: a bad one is a `TypeError` or
   * `RangeError` naming it (`args.query`).
   *
   * ```ts
   * const call = reply.tool_calls[0];
   * const { text } = await compactor.recall(id, JSON.parse(call.function.arguments));
   * messages.push({ role: "tool", tool_call_id: call.id, content: text });
   * ```
   */
  recall(conversationId: string, args: RecallArgs): Promise<Recalled>;
  /**
   * The recall tool's definition for an API's `tools`: OpenAI Chat Completions (`"openai"`),
   * OpenAI Responses, Anthropic, or the AI SDK (`"ai-sdk"`: an entry for
   * `generateText({ tools: { recall } })` whose `execute` calls `recall` on this
   * conversation; pass the SDK's `jsonSchema`). Give the Compactor `recall: true` so the
   * summary tells the model it can recall.
   *
   * ```ts
   * import { jsonSchema } from "ai";
   * const tools = { recall: compactor.recallTool(id, { format: "ai-sdk", jsonSchema }) };
   * ```
   */
  recallTool(conversationId: string, options: { format: "openai" }): RecallToolOpenAI;
  recallTool(conversationId: string, options: { format: "openai-responses" }): RecallToolOpenAIResponses;
  recallTool(conversationId: string, options: { format: "anthropic" }): RecallToolAnthropic;
  recallTool<S>(conversationId: string, options: { format: "ai-sdk"; jsonSchema: (schema: RecallToolSchema) => S }): RecallToolAiSdk<S>;
  /** The ids of the stored conversations. */
  list(): Promise<string[]>;
  /** Removes a conversation from the store. */
  delete(conversationId: string): Promise<void>;
  /** The whole conversation as JSON-serialisable data, for `import`. */
  export(conversationId: string): Promise<ExportedConversation>;
  /** Stores an exported conversation (under `options.id`, or its own); resolves to its id. */
  import(data: ExportedConversation, options?: ImportOptions): Promise<string>;
  /**
   * Adds an event handler; returns a function that removes it.
   *
   * ```ts
   * const stop = compactor.on("compactionStart", () => spinner.show());
   * compactor.on("compactionEnd", ({ record }) => toast(`Compacted (${record.tokensBefore} -> ${record.tokensAfter})`));
   * ```
   */
  on<E extends keyof CompactorEvents>(name: E, handler: (event: CompactorEvents[E]) => void): () => void;
  /** Removes an event handler. */
  off<E extends keyof CompactorEvents>(name: E, handler: (event: CompactorEvents[E]) => void): void;
}

/** What `durableObjectStore` uses of a Durable Object's `ctx.storage`. */
export interface DurableObjectStorageLike {
  get(key: string): Promise<unknown>;
  get(keys: string[]): Promise<Map<string, unknown>>;
  list(options?: { prefix?: string; start?: string }): Promise<Map<string, unknown>>;
  transaction<T>(closure: (txn: DurableObjectTransactionLike) => Promise<T>): Promise<T>;
}

/** What `durableObjectStore` uses of a Durable Object storage transaction. */
export interface DurableObjectTransactionLike {
  get(key: string): Promise<unknown>;
  get(keys: string[]): Promise<Map<string, unknown>>;
  put(entries: Record<string, unknown>): Promise<void>;
  delete(keys: string[]): Promise<number>;
  list(options?: { prefix?: string; start?: string }): Promise<Map<string, unknown>>;
}

/**
 * A store over a Durable Object's storage (`ctx.storage`): one `write` is one
 * `storage.transaction`. One Durable Object per conversation is how this scales past one
 * machine; one object may also hold many. Values larger than Durable Object storage takes
 * are split across keys.
 *
 * ```ts
 * export class Chat extends DurableObject {
 *   compactor = new Compactor({ model: "claude-sonnet-4-5", store: durableObjectStore(this.ctx.storage) });
 * }
 * ```
 */
export function durableObjectStore(storage: DurableObjectStorageLike, options?: { prefix?: string }): CompactorStore;

/** The AI SDK's `jsonSchema` helper, as `recallTool` calls it: the schema in, the SDK's schema object out. */
export type RecallJsonSchema = (schema: RecallToolSchema) => unknown;

/** The JSON schema of the recall tool's arguments ({@link RecallArgs}). */
export interface RecallToolSchema {
  type: "object";
  properties: { query: { type: "string"; description: string }; limit: { type: "integer"; minimum: number; maximum: number; description: string } };
  required: ["query"];
  additionalProperties: false;
}

/** The recall tool in OpenAI Chat Completions' `tools`. */
export interface RecallToolOpenAI {
  type: "function";
  function: { name: "recall"; description: string; parameters: RecallToolSchema };
}

/** The recall tool in OpenAI Responses' `tools`. */
export interface RecallToolOpenAIResponses {
  type: "function";
  name: "recall";
  description: string;
  parameters: RecallToolSchema;
}

/** The recall tool in Anthropic Messages' `tools`. */
export interface RecallToolAnthropic {
  name: "recall";
  description: string;
  input_schema: RecallToolSchema;
}

/** The recall tool as an AI SDK tool (`tools: { recall }`); `S` is what `jsonSchema` made. */
export interface RecallToolAiSdk<S> {
  description: string;
  inputSchema: S;
  /** Runs `compactor.recall` on the conversation; resolves to its framed `text`. */
  execute(args: RecallArgs, options?: unknown): Promise<string>;
}
