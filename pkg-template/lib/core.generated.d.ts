// Generated from the Rust types by src/typescript.rs: do not edit. Regenerate with
// `CTXFOLD_BLESS=1 cargo test --test typescript`.

/**
 * What the face needs of a `Compactor`'s options to await its calls, defaults applied
 * (`CompactorCore`'s `settings`; declared for the package's own JavaScript only).
 */
export type CompactorSettings = {
  /**
   * Writes tried before `STALE_WRITE` (`writeRetries` + 1).
   */
  attempts: number;
  /**
   * Conversations whose histories are kept parsed.
   */
  maxCachedConversations: number;
  /**
   * A store call's deadline, in milliseconds.
   */
  storeTimeoutMs: number;
  /**
   * Whether `prepareAhead` is on.
   */
  prepareAhead: boolean;
  /**
   * The keys that are not `compact()`'s options: the Compactor's own and the set-aside ones.
   */
  ownKeys: Array<string>;
};

/**
 * What a refusal said: the provider's count of the input and its limit, each when it
 * gave it.
 */
export type Refusal = {
  /**
   * The input tokens the provider counted (the messages, and tool definitions where it
   * counts them with the messages; without the completion vLLM adds).
   */
  tokens: bigint | null;
  /**
   * The provider's limit: its context window (input and output, for most), or its input
   * limit (Gemini).
   */
  limit: bigint | null;
};
