// Generated from the Rust types by src/typescript.rs: do not edit. Regenerate with
// `CTXFOLD_BLESS=1 cargo test --test typescript`.

/** The stable code of every error ctxfold throws. */
export type CtxfoldErrorCode =
  /** An encoding other than `o200k_base` / `cl100k_base`. */
  | "UNKNOWN_ENCODING"
  /** The lite build counting before `loadVocabulary` (for a model: unless `allowEstimate: true`). */
  | "VOCABULARY_NOT_LOADED"
  /** Vocabulary bytes that are not the `.ctxv` file ctxfold ships for that encoding. */
  | "INVALID_VOCABULARY"
  /** A `format` other than `openai`, `openai-responses`, `anthropic`, `ai-sdk`. */
  | "UNKNOWN_FORMAT"
  /** A malformed message, with its path (`messages[12].tool_call_id: missing`). */
  | "INVALID_MESSAGE"
  /** An argument of the wrong type, an unknown option key, or messages that cannot be read (a `TypeError`). */
  | "INVALID_ARGUMENT"
  /** An option out of range, `NaN` and `Infinity` included (a `RangeError`). */
  | "OUT_OF_RANGE"
  /** The head and the newest user message alone exceed the input budget, or a provider refused the input as too long again after one retry (`providerTokens`, `providerLimit`, `estimate`). */
  | "CONTEXT_OVERFLOW"
  /** The summarizer failed where the options say to throw (`fallback: "error"`, a manual compaction), with its error as `cause`. */
  | "SUMMARIZER_FAILED"
  /** `options.state` that is not a ctxfold state. */
  | "INVALID_STATE"
  /** A vocabulary source that cannot be read or fetched, with the original error as `cause`. */
  | "VOCABULARY_UNAVAILABLE"
  /** A built-in summarizer's HTTP request failed (an error status after retries, no answer, or a reply that is not the API's), with `status` and `excerpt` (the key redacted). */
  | "HTTP_ERROR"
  /** A bug in ctxfold: the WebAssembly module trapped and was made afresh, so the next call works. */
  | "INTERNAL"
  /** The module trapped and no fresh instance could be made: every later call fails with this. */
  | "MODULE_POISONED"
  /** A store refused a write because another writer (a tab, a Worker isolate) changed the conversation first, and the `Compactor` ran out of attempts (or a store reports it). */
  | "STALE_WRITE"
  /** A store method rejected (its error is the `cause`) or returned data that breaks the store contract. */
  | "STORE_ERROR"
  /** The browser's storage quota refused a store write (`IndexedDBStore`), with its `QuotaExceededError` as `cause`. Nothing was written. */
  | "QUOTA_EXCEEDED"
  /** `compact()` or `export()` of a conversation the store does not hold. */
  | "UNKNOWN_CONVERSATION"
  /** `import()` of a conversation the store already holds (without `overwrite: true`). */
  | "CONVERSATION_EXISTS"
  /** A model whose context window ctxfold cannot know (not in its table, or served by a local server such as Ollama) and no `contextWindow`: the message names the closest known ids. */
  | "UNKNOWN_MODEL";

/**
 * A BPE encoding ctxfold counts exactly.
 */
export type Encoding = "o200k_base" | "cl100k_base";

/**
 * A message format. Output always comes back in the format it came in.
 */
export type MessageFormat = "openai" | "openai-responses" | "anthropic" | "ai-sdk";

/**
 * Who a message is from. Anthropic user messages holding only tool results count as `"tool"`.
 */
export type MessageRole = "system" | "user" | "assistant" | "tool";

/**
 * Options of `countTokens`: an encoding, or a model (its encoding, or its calibrated
 * estimate).
 */
export type CountOptions = {
  /**
   * An exact encoding: `"o200k_base"` (GPT-4o, GPT-4.1, GPT-5, o-series) or
   * `"cl100k_base"` (GPT-4, GPT-3.5).
   */
  encoding?: Encoding;
  /**
   * A model id, e.g. `"gpt-4o"`, `"claude-sonnet-4-5"`, `"gemini-2.5-pro"`. Unknown ids get
   * the documented default.
   */
  model?: string;
  /**
   * Count with the model's calibrated estimate when its exact vocabulary is not loaded
   * (`ctxfold/lite` before `loadVocabulary`), not `VOCABULARY_NOT_LOADED`. Default false.
   */
  allowEstimate?: boolean;
};

/**
 * Options of `countMessages`: `CountOptions` and the messages' format.
 */
export type CountMessagesOptions = {
  /**
   * An exact encoding (see `CountOptions`).
   */
  encoding?: Encoding;
  /**
   * A model id (see `CountOptions`).
   */
  model?: string;
  /**
   * Count with the model's estimate when its vocabulary is not loaded (see `CountOptions`).
   */
  allowEstimate?: boolean;
  /**
   * The messages' format; detected when omitted.
   */
  format?: MessageFormat;
};

/**
 * One message's tokens.
 */
export type MessageCount = {
  /**
   * Index in the array passed in; `null` for Anthropic's top-level `system`.
   */
  index: number | null;
  /**
   * The message's role.
   */
  role: MessageRole;
  /**
   * Its tokens, framing included.
   */
  tokens: number;
};

/**
 * Tokens by role.
 */
export type ByRole = {
  /**
   * System and developer messages.
   */
  system: number;
  /**
   * User messages.
   */
  user: number;
  /**
   * Assistant messages (text, reasoning, tool calls).
   */
  assistant: number;
  /**
   * Tool results.
   */
  tool: number;
};

/**
 * A conversation's count.
 */
export type MessagesCountBreakdown = {
  /**
   * Every message plus reply priming: the request's input tokens.
   */
  total: number;
  /**
   * The format the messages were read in.
   */
  format: MessageFormat;
  /**
   * Per message, in order (Anthropic's system first).
   */
  messages: Array<MessageCount>;
  /**
   * Tokens per role.
   */
  byRole: ByRole;
  /**
   * The reply-priming tokens included in `total`.
   */
  replyPriming: number;
  /**
   * How many message counts came from the cache (content-hash keyed).
   */
  cached: number;
};

/**
 * Whether counts are exact.
 */
export type CountMethod = "exact" | "estimate";

/**
 * The result of `countMessages`.
 */
export type MessagesCount = {
  /**
   * `"exact"`, or `"estimate"` for a model without a public (or loaded) tokenizer.
   */
  method: CountMethod;
  /**
   * The model counted for, as the registry resolved it (with `options.model`).
   */
  model?: ModelInfoResolved;
  /**
   * Every message plus reply priming: the request's input tokens.
   */
  total: number;
  /**
   * The format the messages were read in.
   */
  format: MessageFormat;
  /**
   * Per message, in order (Anthropic's system first).
   */
  messages: Array<MessageCount>;
  /**
   * Tokens per role.
   */
  byRole: ByRole;
  /**
   * The reply-priming tokens included in `total`.
   */
  replyPriming: number;
  /**
   * How many message counts came from the cache (content-hash keyed).
   */
  cached: number;
};

/**
 * Who serves (or published) a model.
 */
export type Provider = "openai" | "anthropic" | "google" | "meta" | "mistral" | "unknown";

/**
 * How `resolve` found a model.
 */
export type MatchedBy = "override" | "exact" | "prefix" | "default";

/**
 * A model family whose tokenizer ctxfold estimates instead of running.
 */
export type Family = "claude" | "gemini" | "llama" | "mistral" | "mistralSpm" | "generic";

/**
 * How a model's tokens are counted: exactly with an encoding, or estimated for a family.
 *
 * In JSON: `{"kind": "exact", "encoding": "o200k_base"}` or
 * `{"kind": "estimate", "family": "claude"}`.
 */
export type ModelTokenizer =
  | { "kind": "exact", encoding: Encoding, }
  | { "kind": "estimate", family: Family, };

/**
 * A model's limits and tokenizer: a built-in entry, or one given to `register`.
 */
export type ModelInfo = {
  /**
   * The canonical id, e.g. `"claude-sonnet-4-5"`. Matching ignores case and provider
   * prefixes, and a registered id also matches ids it is a prefix of.
   */
  id: string;
  /**
   * Who serves the model.
   */
  provider?: Provider;
  /**
   * Input plus output tokens the model accepts.
   */
  contextWindow: number;
  /**
   * The most output tokens one response may have, where the provider publishes a limit
   * separate from the window.
   */
  maxOutputTokens?: number | null;
  /**
   * A cap on input tokens below `contextWindow - maxOutputTokens`, where the provider
   * has one (GPT-5: 272,000 of a 400,000 window).
   */
  maxInputTokens?: number | null;
  /**
   * How to count the model's tokens.
   */
  tokenizer?: ModelTokenizer;
};

/**
 * A model as the registry resolved an id (what `getModel` returns).
 */
export type ModelInfoResolved = {
  /**
   * The id as asked.
   */
  requested: string;
  /**
   * The canonical id of the model matched; for the default, the asked id normalized
   * (lower case, without provider prefix).
   */
  id: string;
  /**
   * Who serves it.
   */
  provider: Provider;
  /**
   * Input plus output tokens.
   */
  contextWindow: number;
  /**
   * The most output tokens per response, if the provider publishes a limit.
   */
  maxOutputTokens: number | null;
  /**
   * A cap on input below `contextWindow - maxOutputTokens`, if the provider has one.
   */
  maxInputTokens: number | null;
  /**
   * How its tokens are counted.
   */
  tokenizer: ModelTokenizer;
  /**
   * How the id matched: `override`, `exact`, `prefix`, or `default` (unknown).
   */
  matchedBy: MatchedBy;
  /**
   * False when nothing matched and the default was used.
   */
  known: boolean;
};

/**
 * A named set of defaults.
 */
export type Preset = "off" | "default" | "conservative" | "aggressive";

/**
 * How summaries accumulate.
 */
export type Strategy = "additive" | "rolling";

/**
 * What a failed summary falls back to.
 */
export type Fallback = "extractive" | "marker" | "error";

/**
 * The role the summary message is given.
 */
export type SummaryRole = "assistant" | "user" | "system";

/**
 * What to do with one tool's old outputs.
 */
export type ToolPolicy = "keep" | "truncate" | "stub" | "summarize";

/**
 * What to do when even the head and the newest user message do not fit.
 */
export type Overflow = "error" | "truncate";

/**
 * Options of `compact` and `plan`. Every knob has a default; unknown keys are errors. Give a
 * `model`, or a `contextWindow` (counted as an unknown model, unless `encoding` is given).
 */
export type CompactOptions = {
  /**
   * The model: its window, output cap and tokenizer (exact or calibrated estimate).
   */
  model?: string;
  /**
   * Count with this encoding instead of the model's.
   */
  encoding?: Encoding;
  /**
   * Count with the model's calibrated estimate when its exact vocabulary is not loaded
   * (`ctxfold/lite` before `loadVocabulary`), not `VOCABULARY_NOT_LOADED`. Default false.
   */
  allowEstimate?: boolean;
  /**
   * The messages' format; detected when omitted.
   */
  format?: MessageFormat;
  /**
   * Who writes summaries: your LLM (a function), or the built-in extractive summary
   * (default).
   */
  summarizer?: Summarizer | "extractive";
  /**
   * What the previous turn returned, for stateless callers. Kept as JSON text here and
   * read by the driver (`INVALID_STATE` at its path when it is not a ctxfold state).
   */
  state?: CompactState | null;
  /**
   * Compact now, whatever the threshold (`/compact`); a failing summarizer then throws.
   */
  manual?: boolean;
  /**
   * `off`, `default`, `conservative` or `aggressive`.
   */
  preset?: Preset;
  /**
   * Compact above `max(tokenFloor, thresholdRatio x contextWindow)`, at most the input
   * budget. Default 1: compact when the input would not fit the input budget (the
   * window less `reservedOutputTokens`).
   */
  thresholdRatio?: number;
  /**
   * Never compact below this many tokens. Default 4096.
   */
  tokenFloor?: number;
  /**
   * The context window, overriding the model's.
   */
  contextWindow?: number;
  /**
   * Tokens kept free for the reply. Default: 1/16 of the window, at least 1024 (but at most
   * half), at most the model's output cap (a quarter of the window for an unknown model).
   */
  reservedOutputTokens?: number;
  /**
   * After a compaction the input lands near this share of the input budget: the head,
   * the summaries with their identifier ledgers, and as many recent turns as fit.
   * Default 0.55.
   */
  targetRatio?: number;
  /**
   * Recent turns kept verbatim whatever the target (a floor), degrading to fewer when
   * they do not fit the budget; the newest complete exchange is kept whenever it fits.
   * Default 4.
   */
  bufferTurns?: number;
  /**
   * The verbatim tail never takes more than this share of the window. Default: no cap
   * (the target decides); 0.1 in the conservative preset, 0.2 in the aggressive one.
   */
  bufferMaxRatio?: number;
  /**
   * Instead of `targetRatio` and `bufferTurns`: keep as many recent turns as fit this
   * many tokens (at least the newest one).
   */
  keepRecentTokens?: number;
  /**
   * Pin the first user message (the task) in the head, before the summary, once a later
   * user message exists (until then it is the newest user message, which always follows
   * the summary). Default false.
   */
  pinFirstUserTurn?: boolean;
  /**
   * Old tool outputs larger than this are pruned. Default 4096.
   */
  toolOutputMaxBytes?: number;
  /**
   * Pruning runs when old tool output passes this many tokens. Default 1/20 of the
   * window.
   */
  pruneThresholdTokens?: number;
  /**
   * Old tool outputs are pruned only under pressure: once the input passes this share of
   * the context window (a prune trigger, like Anthropic's context editing). Default 0.6.
   */
  pruneRatio?: number;
  /**
   * Policy for tools not in `toolPolicies`. Default `truncate`.
   */
  defaultToolPolicy?: ToolPolicy;
  /**
   * Per tool name.
   */
  toolPolicies?: { [key in string]: ToolPolicy };
  /**
   * Hard cap on one summary's tokens (a model is asked for about 200 words). Default:
   * 1/16 of the window, from 512 to 4096, at most a quarter of the input budget (a small
   * window keeps its newest turns). Below 64 the schema's empty frame would not fit.
   */
  summaryMaxTokens?: number;
  /**
   * Budget for the identifier ledger line. Default: the room the summaries leave within
   * `targetRatio`, at least 1/8 of the target and 1/50 of the window (160 tokens or
   * more; in a small window, at least 1/8 of the input budget), which a compaction
   * reserves.
   */
  ledgerMaxTokens?: number;
  /**
   * Summarizer deadline in milliseconds. Default 25000.
   */
  summarizerTimeoutMs?: number;
  /**
   * Largest input of one summarizer call, system prompt included; a fold's too (two
   * summaries at least). Default: the input budget less the summary cap and 1024, ≤ 120000.
   */
  summarizerInputTokens?: number;
  /**
   * The summary's role. Default `assistant` (a user message when it would come first).
   */
  summaryRole?: SummaryRole;
  /**
   * Keep user and assistant messages alternating: a summary that would sit next to a
   * message of its own side (two user or two assistant messages in a row) goes at the
   * start of that message's content instead, in a copy (your object is untouched). For
   * providers and chat templates that require strict alternation. Default false.
   */
  alternateRoles?: boolean;
  /**
   * Keep identifiers a summary names that occur nowhere in the conversation (invented,
   * or misremembered) in its text. By default they are removed from it; either way the
   * report lists them in `unsupportedIds`. Default false.
   */
  keepUnsupportedIds?: boolean;
  /**
   * A secret (at least 16 characters) that signs the returned `state` (HMAC-SHA256), for a
   * state kept where others can change it (a cookie, a client): a state passed back
   * without a matching signature is discarded (`report.stateReset` says so) and the full
   * history compacted afresh, so an edited or forged summary never reaches the model.
   */
  stateKey?: string;
  /**
   * `additive` (default) or `rolling`.
   */
  strategy?: Strategy;
  /**
   * Chunks fold past this share of the window (times threshold / input if lower). Default 0.3.
   */
  foldRatio?: number;
  /**
   * What a failed summary falls back to. Default `extractive`.
   */
  fallback?: Fallback;
  /**
   * When even the head and the newest user message do not fit. Default `error`.
   */
  overflow?: Overflow;
  /**
   * A domain prompt added to the summarizer's instructions.
   */
  summaryPrompt?: string;
  /**
   * Per-call instructions (e.g. from `/compact focus on the API`).
   */
  instructions?: string;
  /**
   * The model has the recall tool (`compactor.recallTool`, the AI SDK middleware's
   * `recall`): the summary says in one line that earlier messages can be read again with
   * it. `true`, or `{ maxTokens }` (one recall's budget, default 1000). Default: off, and
   * the summary is what it is without it.
   */
  recall?: boolean | RecallOptions;
};

/**
 * Options of `compactor.compact(id, options)`: a manual compaction.
 */
export type ManualCompactOptions = {
  /**
   * Added to the summarizer's instructions for this compaction (`/compact focus on the
   * API`).
   */
  instructions?: string;
};

/**
 * Options of `compactor.import(data, options)`.
 */
export type ImportOptions = {
  /**
   * The id to import under. Default: the id it was exported with.
   */
  id?: string;
  /**
   * Replace a conversation the store holds under that id (it is deleted first). Default
   * false: importing over one is a `CONVERSATION_EXISTS` error.
   */
  overwrite?: boolean;
};

/**
 * Options of `compactor.search(id, query, options)`.
 */
export type SearchOptions = {
  /**
   * How many messages at most, best first: a whole number from 1 to
   * `SearchOptions::MAX_LIMIT` (default `SearchOptions::DEFAULT_LIMIT`).
   */
  limit?: number;
};

/**
 * Why a compaction ran.
 */
export type Trigger = "threshold" | "manual";

/**
 * What made a summary chunk: a compaction, or a fold of earlier chunks into one.
 */
export type ChunkTrigger = "threshold" | "manual" | "fold";

/**
 * What stood in for a summary the summarizer did not give.
 */
export type FallbackKind = "extractive" | "marker";

/**
 * What a fallback replaced, and why.
 */
export type FallbackUsed = {
  /**
   * `extractive` or `marker`.
   */
  kind: FallbackKind;
  /**
   * Why the summarizer's reply was not used.
   */
  reason: string;
};

/**
 * A summary made by one compaction.
 */
export type SummaryChunk = {
  /**
   * 1 for the first compaction of a conversation, then counting up (a fold takes the
   * next number).
   */
  generation: number;
  /**
   * The summary text, ledger included.
   */
  text: string;
  /**
   * Index of the last message this chunk covers.
   */
  through: number;
  /**
   * Its tokens.
   */
  tokens: number;
  /**
   * When it was made (ISO 8601), if the caller's clock was known.
   */
  createdAt?: string;
  /**
   * The summarizer's model, if it said.
   */
  model?: string;
  /**
   * `threshold`, `manual` or `fold`.
   */
  trigger: ChunkTrigger;
  /**
   * The summarizer's usage report, as it gave it.
   */
  usage?: unknown;
  /**
   * Identifiers of the evicted messages that the chunk keeps.
   */
  keptIds: Array<string>;
  /**
   * Identifiers of the evicted messages that did not fit.
   */
  lostIds: Array<string>;
  /**
   * `null`, or the fallback used and why: `{ kind, reason }`.
   */
  fallback?: FallbackUsed;
};

/**
 * A position in the history, with a check on the messages before it.
 */
export type StateMark = {
  /**
   * A message index.
   */
  index: number;
  /**
   * A running hash of messages `0..index`, in hex.
   */
  check: string;
};

/**
 * A step whose tool outputs were cut in place to fit (`CompactState::step_cuts`).
 */
export type StepCut = {
  /**
   * The step's first message.
   */
  step: number;
  /**
   * Just after its last message (the check covers the step).
   */
  end: StateMark;
  /**
   * The tokens the step was cut to.
   */
  room: number;
};

/**
 * What to pass back as `options.state` next turn: small, JSON-serialisable.
 */
export type CompactState = {
  /**
   * `VERSION`.
   */
  version: number;
  /**
   * The summaries, oldest first.
   */
  chunks: Array<SummaryChunk>;
  /**
   * Messages from here on are sent verbatim (pruned where `pruneBoundary` says).
   */
  boundary: StateMark | null;
  /**
   * Tool outputs before this are pruned.
   */
  pruneBoundary: StateMark | null;
  /**
   * Just after the user message kept verbatim although it lies before `boundary` (the
   * newest user message, when its own turn had to be split).
   */
  pinned: StateMark | null;
  /**
   * The steps whose tool outputs earlier turns cut to fit (each the newest step then),
   * oldest first: each is cut alike while it is sent, so the prefix a provider caches
   * stays byte-identical. A state written before there could be several, with one
   * `stepCut`, reads as a list of that one.
   */
  stepCuts?: Array<StepCut>;
  /**
   * With `stateKey`: the HMAC-SHA256 of the chunks' texts and the marks, in hex. A state
   * that comes back without it, or with one that does not match, is discarded.
   */
  signature?: string;
};

/**
 * The token budget.
 */
export type Budget = {
  /**
   * The model's context window.
   */
  window: number;
  /**
   * Tokens kept free for the reply.
   */
  reservedOutput: number;
  /**
   * What the input may take: window minus reserved output.
   */
  input: number;
  /**
   * Compaction starts above this: `max(tokenFloor, thresholdRatio x window)`, at most `input`.
   */
  threshold: number;
};

/**
 * Where tokens are, before any new compaction.
 */
export type PlanTokens = {
  /**
   * Everything that would be sent now: the request's input tokens (old tool outputs
   * pruned where pruning runs).
   */
  total: number;
  /**
   * The request's input tokens as given: nothing pruned or summarized this call (the
   * summaries of earlier compactions applied). The report's `tokensBefore`.
   */
  given: number;
  /**
   * What is always sent: the system prompt(s), the tool definitions a request sends
   * (its `tools`) and pinned messages.
   */
  head: number;
  /**
   * The tool definitions among the head: a request's `tools` (for Anthropic with the
   * tool-use system prompt it adds). 0 without tools.
   */
  toolDefinitions: number;
  /**
   * The summary message of earlier compactions.
   */
  summaries: number;
  /**
   * Messages that a compaction now would summarize.
   */
  middle: number;
  /**
   * Messages kept verbatim (tail and pinned newest user message).
   */
  tail: number;
  /**
   * Tool results among the messages sent (after pruning).
   */
  toolResults: number;
  /**
   * Reply priming.
   */
  framing: number;
};

/**
 * What pruning does.
 */
export type PruneReport = {
  /**
   * Tool outputs before this message index are pruned.
   */
  boundary: number;
  /**
   * Whether the boundary moved this turn.
   */
  advanced: boolean;
  /**
   * Messages whose tool outputs are pruned.
   */
  messages: Array<number>;
  /**
   * Bytes removed from tool outputs.
   */
  bytesRemoved: number;
  /**
   * Tokens saved.
   */
  tokensSaved: number;
  /**
   * Identifiers pruned outputs no longer hold (the rest are listed in their truncation
   * markers).
   */
  lostIds: Array<string>;
};

/**
 * What `plan` returns: the decisions `compact` would make, without calling a model.
 */
export type CompactPlan = {
  /**
   * The budget.
   */
  budget: Budget;
  /**
   * Tokens by part, before any new compaction.
   */
  tokens: PlanTokens;
  /**
   * `"threshold"` or `"manual"` if a compaction would run, else `null`.
   */
  trigger: Trigger | null;
  /**
   * The first message after the head.
   */
  headEnd: number;
  /**
   * The first message sent verbatim now (after earlier summaries).
   */
  boundary: number;
  /**
   * Where the verbatim tail would start.
   */
  tailStart: number;
  /**
   * The newest user message kept although its turn is split.
   */
  pinned: number | null;
  /**
   * Messages a compaction would summarize.
   */
  evict: Array<number>;
  /**
   * Summarizer calls a compaction would make (before any fold): an upper bound from the
   * cached counts; the rendered middle may need fewer (the report's `newChunks` says how
   * many).
   */
  summarizerCalls: number;
  /**
   * Pruning.
   */
  pruned: PruneReport;
  /**
   * Why `options.state` was not used, if it was not.
   */
  stateReset: string | null;
};

/**
 * What a summarizer call is for.
 */
export type RequestKind = "summarize" | "fold";

/**
 * One summarizer call (what `SummaryRequest` carries besides `messages` and `signal`).
 */
export type SummaryRequestFields = {
  /**
   * `"summarize"`: evicted messages; `"fold"`: earlier summaries merged into one.
   */
  kind: RequestKind;
  /**
   * The summarizer's instructions: the schema, the rules, your domain prompt and per-call
   * instructions.
   */
  system: string;
  /**
   * The text to summarize.
   */
  prompt: string;
  /**
   * The output cap to pass to the model (`max_tokens`).
   */
  maxTokens: number;
  /**
   * The deadline in milliseconds; `signal` aborts when it passes.
   */
  timeoutMs: number;
  /**
   * `[index, of]` when the evicted span needs several calls.
   */
  part: [number, number];
  /**
   * Indexes (in the array passed to `compact`) of the messages this call covers.
   */
  covers: Array<number>;
};

/**
 * `full`, `summarized` or `truncated`.
 */
export type ContextStatus = "full" | "summarized" | "truncated";

/**
 * The role the summary message went out with.
 */
export type SummaryRoleUsed = "assistant" | "user" | "system";

/**
 * Milliseconds spent in one call.
 */
export type Timings = {
  /**
   * Reading the input and planning.
   */
  planMs: number;
  /**
   * Waiting for summarizers.
   */
  summarizeMs: number;
  /**
   * The whole call.
   */
  totalMs: number;
};

/**
 * What a compaction did.
 */
export type CompactReport = {
  /**
   * Input tokens of the request as given: before this call's pruning and compaction
   * (earlier summaries applied).
   */
  tokensBefore: number;
  /**
   * Input tokens of the request returned.
   */
  tokensAfter: number;
  /**
   * The budget.
   */
  budget: Budget;
  /**
   * `"threshold"` or `"manual"` when messages were summarized this turn, else `null`.
   */
  trigger: Trigger | null;
  /**
   * Indexes of the messages summarized this turn.
   */
  evicted: Array<number>;
  /**
   * Summary chunks in the output.
   */
  summaryChunks: number;
  /**
   * Summary chunks made this turn.
   */
  newChunks: number;
  /**
   * Whether the chunks were folded into one this turn.
   */
  folded: boolean;
  /**
   * Identifiers of this turn's evicted messages that the output keeps.
   */
  keptIds: Array<string>;
  /**
   * Identifiers of this turn's evicted messages that the ledger budget could not keep.
   */
  lostIds: Array<string>;
  /**
   * Identifiers in new summaries found nowhere in the conversation (hallucinated or
   * injected).
   */
  unsupportedIds: Array<string>;
  /**
   * The fallback used this turn, if any.
   */
  fallback: FallbackUsed | null;
  /**
   * Summary lines dropped: outside the schema, or reading as instructions to the model.
   */
  droppedSummaryLines: Array<string>;
  /**
   * The summary message's role.
   */
  summaryRole: SummaryRoleUsed | null;
  /**
   * With `alternateRoles`: the index (in your messages) of the message the summary was put
   * at the start of, or `null` when it went out as a message of its own.
   */
  summaryMergedInto: number | null;
  /**
   * Indexes in the returned messages after which a prompt-cache breakpoint belongs: after
   * the head, after the summary (and the newest user message when it follows the
   * summary), at the prune boundary.
   */
  cacheBreakpoints: Array<number>;
  /**
   * Pruning.
   */
  pruned: PruneReport;
  /**
   * Why `options.state` was not used, if it was not.
   */
  stateReset: string | null;
  /**
   * Messages cut to fit (`overflow: "truncate"` only).
   */
  truncatedMessages: Array<number>;
  /**
   * Milliseconds spent: planning, waiting for summarizers, and in all (set by the caller,
   * which has the clock).
   */
  timings: Timings;
};

/**
 * The result of a compaction (what `compact` returns besides `messages`).
 */
export type CompactOutcome = {
  /**
   * `full`, `summarized`, or `truncated`: the marker stands in for earlier turns (a marker
   * fallback, which `report.fallback` names, or a window with no room for any summary) or
   * a message was cut to fit (`overflow: "truncate"`).
   */
  contextStatus: ContextStatus;
  /**
   * What happened.
   */
  report: CompactReport;
  /**
   * Pass back as `options.state` next turn.
   */
  state: CompactState;
};

/**
 * The body field that carries the output cap.
 */
export type MaxTokensField = "max_tokens" | "max_completion_tokens";

/**
 * Options of `openAISummarizer` and `anthropicSummarizer` (`maxTokensField` is OpenAI's
 * only). Unknown keys are errors.
 */
export type SummarizerOptions = {
  /**
   * The model that writes the summaries: `"gpt-4o-mini"`, `"llama3.1"` (Ollama),
   * `"qwen/qwen3-8b"` (OpenRouter), `"claude-haiku-4-5"`, ...
   */
  model: string;
  /**
   * The API's base URL. OpenAI-compatible: `/chat/completions` is appended; default
   * `https://api.openai.com/v1` (Ollama: `http://localhost:11434/v1`; vLLM:
   * `http://localhost:8000/v1`; LM Studio: `http://localhost:1234/v1`; OpenRouter:
   * `https://openrouter.ai/api/v1`). Anthropic: `/v1/messages` is appended (`/messages` to
   * one that ends in `/v1`); default `https://api.anthropic.com`.
   */
  baseURL?: string;
  /**
   * Sent as `Authorization: Bearer <apiKey>` (OpenAI-compatible; leave it out for servers
   * that need none) or `x-api-key` (Anthropic). Never part of an error.
   */
  apiKey?: string;
  /**
   * Headers for every request, replacing the defaults of the same name (Anthropic's
   * `anthropic-version` is `2023-06-01` unless set here; from a browser page, Anthropic's
   * API wants `"anthropic-dangerous-direct-browser-access": "true"`). Values of credential
   * headers (`authorization`, `cookie`, and names with `key`, `token`, `secret`, `auth` or
   * `password` in them) are kept out of errors as the key is.
   */
  headers?: Record<string, string> | [string, string][] | Headers;
  /**
   * Extra request fields, e.g. `{ temperature: 0 }` or `{ reasoning_effort: "minimal" }`.
   * The summarizer's own (`model`, `messages`, `system`, the token cap, `stream`) cannot
   * be set here.
   */
  body?: Record<string, unknown>;
  /**
   * OpenAI-compatible only: the field that carries the request's `maxTokens`:
   * `"max_tokens"` (default; every compatible server takes it) or
   * `"max_completion_tokens"` (OpenAI's reasoning models require it).
   */
  maxTokensField?: MaxTokensField;
  /**
   * Retries after a 408, 409, 429 or 5xx answer (Anthropic's 529 "overloaded" among them)
   * or a failed connection, 0 to 10. A retry waits as the server's `retry-after-ms` /
   * `retry-after` asks (up to 60 s; a longer wait fails the call), or backs off from
   * 0.5 s, doubling up to 8 s; a wait that would pass the request's deadline (`timeoutMs`)
   * is not started, and one its `signal` ends fails with the answer it had. Default 2.
   */
  maxRetries?: number;
};

/**
 * `guards` of a `Compactor`: each guard's knobs (`0` turns a guard off where it says so).
 */
export type GuardOptions = {
  /**
   * An automatic compaction is suppressed when it repeats one made this many seconds ago
   * or less (the caller's clock). Default 60; 0 turns the idempotency guard off.
   */
  idempotencySeconds?: number;
  /**
   * The share of that compaction's span the new one must cover to be a repeat. Default 0.7.
   */
  idempotencyCoverage?: number;
  /**
   * A compaction freeing less than this share of the window starts (or grows) the
   * back-off. Default 0.1.
   */
  backoffFreedRatio?: number;
  /**
   * The input passing the threshold again within this many turns of a compaction starts
   * (or grows) the back-off. Default 2; 0: refills do not.
   */
  backoffRefillTurns?: number;
  /**
   * Turns without automatic compactions when the back-off starts, doubling each time it
   * grows. Default 2; 0 turns the back-off off.
   */
  backoffTurns?: number;
  /**
   * The most turns the back-off skips. Default 32.
   */
  backoffMaxTurns?: number;
  /**
   * Consecutive summarizer failures that open the circuit breaker. Default 3; 0 turns it
   * off.
   */
  breakerFailures?: number;
  /**
   * Turns the breaker stays open (compactions use the fallback without calling the
   * summarizer) before one call tries the summarizer again. Default 10.
   */
  breakerCooldownTurns?: number;
};

/**
 * The name of a `Compactor` event (`on(name, handler)`).
 */
export type CompactorEventName =
  | "compactionStart"
  | "compactionEnd"
  | "compactionFailed"
  | "pruned"
  | "fallback"
  | "suppressed"
  | "backoff"
  | "breakerOpen"
  | "breakerClosed";

/**
 * One event of a `Compactor`, as its handlers get it (`type` is its name: `notify` and
 * `sse` read it).
 */
export type CompactorEvent =
  | { "type": "compactionStart" } & CompactionStartEvent
  | { "type": "compactionEnd" } & CompactionEndEvent
  | { "type": "compactionFailed" } & CompactionFailedEvent
  | { "type": "pruned" } & PrunedEvent
  | { "type": "fallback" } & FallbackEvent
  | { "type": "suppressed" } & SuppressedEvent
  | { "type": "backoff" } & BackoffEvent
  | { "type": "breakerOpen" } & BreakerOpenEvent
  | { "type": "breakerClosed" } & BreakerClosedEvent;

/**
 * A compaction is about to call the summarizer, or, the breaker open, to use its fallback
 * (show progress).
 */
export type CompactionStartEvent = {
  /**
   * The conversation.
   */
  conversationId: string;
  /**
   * What the compaction does, with the window's budget.
   */
  plan: CompactPlan;
};

/**
 * A compaction was stored: its record.
 */
export type CompactionEndEvent = {
  /**
   * The conversation.
   */
  conversationId: string;
  /**
   * Its record.
   */
  record: CompactionRecord;
};

/**
 * A compaction whose `compactionStart` was sent did not land. `retried`: another writer got
 * there first (`error` is the `STALE_WRITE`) and the call goes on from what it wrote, which
 * may compact again (another `compactionStart`); otherwise the call rejects with `error` (a
 * manual `compact` whose summarizer failed, a store error). Every `compactionStart` is
 * followed by one `compactionEnd` or one `compactionFailed`.
 */
export type CompactionFailedEvent = {
  /**
   * The conversation.
   */
  conversationId: string;
  /**
   * The write went stale and the call goes on (otherwise the call fails).
   */
  retried: boolean;
  /**
   * The error the call rejects with, or the store's `STALE_WRITE` when `retried` (a
   * JavaScript value: the face puts it here, the core has none to give).
   */
  error: unknown;
};

/**
 * The prune boundary moved: old tool outputs were shortened.
 */
export type PrunedEvent = {
  /**
   * The conversation.
   */
  conversationId: string;
  /**
   * The report's `pruned`.
   */
  pruned: PruneReport;
  /**
   * The pruned messages' tokens, whole and as sent.
   */
  prunedTokens: PrunedTokens;
  /**
   * The input's tokens now.
   */
  tokensAfter: number;
  /**
   * The report's budget.
   */
  budget: Budget;
};

/**
 * A fallback stood in for a summary the summarizer did not give.
 */
export type FallbackEvent = {
  /**
   * The conversation.
   */
  conversationId: string;
  /**
   * Which, and why.
   */
  fallback: FallbackUsed;
  /**
   * The compaction's record, if one was stored.
   */
  record: CompactionRecord | null;
};

/**
 * A guard suppressed an automatic compaction the input did not need (it passed the
 * threshold but fits the budget): the idempotency guard (a repeat of one made within
 * `idempotencySeconds`) or the back-off.
 */
export type SuppressedEvent = {
  /**
   * The conversation.
   */
  conversationId: string;
  /**
   * Which guard, and why.
   */
  suppressed: Suppression;
};

/**
 * The back-off started or grew (`backoff.level` > 0: automatic compactions are skipped for
 * `backoff.turns` turns), or ended (`level` 0).
 */
export type BackoffEvent = {
  /**
   * The conversation.
   */
  conversationId: string;
  /**
   * Its level and turns.
   */
  backoff: BackoffNote;
  /**
   * The compaction's record, if one was stored.
   */
  record: CompactionRecord | null;
};

/**
 * The circuit breaker opened: compactions use the fallback without calling the summarizer
 * until turn `breaker.untilTurn`.
 */
export type BreakerOpenEvent = {
  /**
   * The conversation.
   */
  conversationId: string;
  /**
   * The breaker's note.
   */
  breaker: BreakerNote;
  /**
   * The compaction's record, if one was stored.
   */
  record: CompactionRecord | null;
};

/**
 * A summarizer call succeeded after the breaker had opened: it is closed.
 */
export type BreakerClosedEvent = {
  /**
   * The conversation.
   */
  conversationId: string;
  /**
   * The breaker's note.
   */
  breaker: BreakerNote;
  /**
   * The compaction's record, if one was stored.
   */
  record: CompactionRecord | null;
};

/**
 * `prepareAhead` of a `Compactor` (`true`: these defaults).
 */
export type PrepareAheadOptions = {
  /**
   * After a `commit` that leaves the input past this share of the window, the summary
   * the next compaction needs is made in the background. Default 0.6.
   */
  threshold?: number;
};

/**
 * `compactWhenCold` of a `Compactor`.
 */
export type CompactWhenColdOptions = {
  /**
   * The provider's prompt-cache lifetime in seconds (Anthropic's default is 300): a
   * `prepare` this long or longer after the conversation's last call finds it cold.
   */
  ttlSeconds: number;
  /**
   * The compaction threshold while the cache is cold, a share of the window (it only
   * ever lowers the threshold). Default 0.6.
   */
  thresholdRatio?: number;
};

/**
 * The options of a `Compactor` beyond `compact()`'s.
 */
export type CompactorOwnOptions = {
  /**
   * How many times a call loads again and redoes its work after a `STALE_WRITE` (another
   * tab or isolate wrote first). From 0 to 100. Default 4.
   */
  writeRetries?: number;
  /**
   * How many conversations' histories are kept in memory, parsed and counted, between
   * calls; the least recently used go first, and their next call reads the history from
   * the store again. Each takes memory about five times its history's JSON size: a server
   * with many long conversations sets this lower. From 1 to 1000000. Default 100.
   */
  maxCachedConversations?: number;
  /**
   * How long a store call may take, in milliseconds: one that gives no answer by then
   * fails the Compactor's call with `STORE_ERROR`, and the conversation's next call goes on
   * (a write that lands later is caught by the version check). From 1 to 2147483647.
   * Default 30000.
   */
  storeTimeoutMs?: number;
  /**
   * The guards (idempotency, back-off, circuit breaker): their knobs, each with its
   * default; `0` turns a guard off where its doc says so.
   */
  guards?: GuardOptions;
  /**
   * Makes the summary the next compaction needs in the background, after a `commit` that
   * leaves the input past a soft threshold (default 0.6 of the window), so the turn that
   * passes the compaction threshold does not wait for the summarizer. A prepared summary
   * is used only for the very request it answers (the same span, instructions and cap):
   * it changes when the summary is made, never what is sent. `true`: the defaults.
   * Default: off.
   */
  prepareAhead?: boolean | PrepareAheadOptions;
  /**
   * Compacts early when the provider's prompt cache is cold anyway: a `prepare` that comes
   * `ttlSeconds` or more after the conversation's last call (the cache's lifetime: 300 for
   * Anthropic's default) compacts at `thresholdRatio` (0.6) of the window, since its whole
   * prefix is paid again either way. The outcome's and the record's `guards.coldCache` say
   * so. Default: off.
   */
  compactWhenCold?: CompactWhenColdOptions;
};

/**
 * Options of a `Compactor`: `compact()`'s (without `state`, `manual` and `stateKey`), its own,
 * and the values only JavaScript holds.
 */
export type CompactorOptions = Omit<CompactOptions, "state" | "manual" | "stateKey"> & CompactorOwnOptions & CompactorJsOptions;

/**
 * A `prepare` that found the provider's cache cold: the threshold it compacted at.
 */
export type ColdCacheNote = {
  /**
   * Seconds since the conversation's last call.
   */
  idleSeconds: number;
  /**
   * The threshold in force for this call (tokens).
   */
  threshold: number;
};

/**
 * What the guards keep in the meta (`meta.guards`; a meta stored before them reads as
 * this type's defaults).
 */
export type GuardState = {
  /**
   * `prepare` calls so far: the guards count turns in them.
   */
  turn: number;
  /**
   * The latest compactions (at most 4), oldest first.
   */
  recent: Array<RecentCompaction>;
  /**
   * The back-off.
   */
  backoff: BackoffState;
  /**
   * The circuit breaker.
   */
  breaker: BreakerState;
  /**
   * Automatic compactions suppressed since the latest compaction.
   */
  suppressed: number;
  /**
   * The latest suppression.
   */
  lastSuppressed: Suppression | null;
};

/**
 * A compaction, as the guards remember it.
 */
export type RecentCompaction = {
  /**
   * Its record's `seq`.
   */
  seq: number;
  /**
   * The turn it was made in.
   */
  turn: number;
  /**
   * When (ISO 8601, the caller's clock).
   */
  at: string | null;
  /**
   * The history indexes whose text its summarizer read, as `[from, to)` ranges.
   */
  span: Array<[number, number]>;
  /**
   * Input tokens it freed.
   */
  freed: number;
  /**
   * It freed at least `backoffFreedRatio` of the window.
   */
  enough: boolean;
  /**
   * The input passed the threshold again within `backoffRefillTurns` after it.
   */
  refilled: boolean;
  /**
   * Made by the threshold, not by `compact(id)`.
   */
  automatic: boolean;
  /**
   * `undo` undid it: the input passing the threshold again after it is no refill (it
   * still counts for the idempotency guard: redoing it at once is a repeat).
   */
  undone: boolean;
};

/**
 * The back-off: level 0 is none.
 */
export type BackoffState = {
  /**
   * How many times it grew since it last ended.
   */
  level: number;
  /**
   * Automatic compactions are skipped while the turn is below this.
   */
  until: number;
  /**
   * Why it last grew.
   */
  reason: string | null;
};

/**
 * The circuit breaker: closed unless `openUntil` is set.
 */
export type BreakerState = {
  /**
   * Consecutive compactions whose summarizer failed.
   */
  failures: number;
  /**
   * Open: compactions use the fallback without calling the summarizer while the turn is
   * below this; from this turn on it is half-open (the next compaction calls it).
   */
  openUntil: number | null;
  /**
   * When it last opened (ISO 8601).
   */
  openedAt: string | null;
};

/**
 * Which guard suppressed a compaction.
 */
export type GuardKind = "idempotency" | "backoff";

/**
 * An automatic compaction a guard suppressed (or, as `overridden`, would have suppressed
 * had the input fit the budget without it).
 */
export type Suppression = {
  /**
   * `idempotency` or `backoff`.
   */
  guard: GuardKind;
  /**
   * Why, in a sentence.
   */
  reason: string;
  /**
   * The input's tokens (ctxfold's count).
   */
  tokens: number;
  /**
   * The threshold it passed.
   */
  threshold: number;
  /**
   * The input budget (a suppressed input is at most this).
   */
  input: number;
  /**
   * Idempotency: the `seq` of the compaction it would repeat.
   */
  of: number | null;
  /**
   * Idempotency: the share of that compaction's span it covers.
   */
  coverage: number | null;
  /**
   * Idempotency: seconds since that compaction.
   */
  seconds: number | null;
  /**
   * Back-off: the turn from which automatic compactions run again.
   */
  untilTurn: number | null;
};

/**
 * The back-off started, grew (`level` > 0) or ended (`level` 0).
 */
export type BackoffNote = {
  /**
   * Its level now (0: ended).
   */
  level: number;
  /**
   * Turns it skips automatic compactions for (0: ended).
   */
  turns: number;
  /**
   * The turn from which automatic compactions run again.
   */
  untilTurn: number;
  /**
   * Why, in a sentence.
   */
  reason: string;
};

/**
 * What the circuit breaker did.
 */
export type BreakerChange = "opened" | "closed" | "skipped";

/**
 * The circuit breaker on a call.
 */
export type BreakerNote = {
  /**
   * `opened`, `closed` or `skipped`.
   */
  change: BreakerChange;
  /**
   * Consecutive summarizer failures.
   */
  failures: number;
  /**
   * While open: the turn from which the summarizer is tried again.
   */
  untilTurn: number | null;
  /**
   * Why, in a sentence.
   */
  reason: string;
};

/**
 * What the guards did on a call (`prepare`'s outcome) or a compaction (its record).
 */
export type GuardNotes = {
  /**
   * The automatic compaction a guard suppressed on this call (none ran; the input passed
   * the threshold but fits the budget): a `suppressed` event.
   */
  suppressed: Suppression | null;
  /**
   * The guard that would have suppressed this compaction had the input fit the budget:
   * it ran, since a guard never makes an input exceed the budget.
   */
  overridden: Suppression | null;
  /**
   * The back-off started, grew or ended: a `backoff` event.
   */
  backoff: BackoffNote | null;
  /**
   * The circuit breaker opened, closed, or stood in for the summarizer.
   */
  breaker: BreakerNote | null;
  /**
   * Automatic compactions the guards suppressed between the previous compaction and this
   * one (records only).
   */
  suppressedBefore: number;
  /**
   * The provider's prompt cache was cold (`compactWhenCold`): the threshold was lowered.
   */
  coldCache: ColdCacheNote | null;
};

/**
 * A conversation's meta: small, read on every call, replaced by every write.
 */
export type StoredMeta = {
  /**
   * The layout of this object (2; 1 before the guards).
   */
  schema: number;
  /**
   * The conversation's id.
   */
  id: string;
  /**
   * Counts the writes: a write is refused unless the stored version is the one it
   * expects, and its meta has that version plus one (the first write's, `first_version`).
   */
  version: number;
  /**
   * Set when the conversation is made (or imported): a conversation deleted and made
   * again under the same id has another, so no cache of the old one is used for it.
   */
  epoch: string;
  /**
   * History items stored (the next one's index).
   */
  length: number;
  /**
   * The messages' format.
   */
  format: MessageFormat;
  /**
   * Anthropic's top-level `system`, when the conversation has one.
   */
  system: unknown;
  /**
   * The tool definitions `prepare` was last given, when it was given any.
   */
  tools?: unknown[];
  /**
   * The compaction state in force: summary chunks, boundary, prune boundary, pinned
   * message.
   */
  state: CompactState;
  /**
   * What `undo` restores: the state before the latest compaction.
   */
  undo: UndoPoint | null;
  /**
   * Compaction records written (the next record's `seq`).
   */
  compactions: number;
  /**
   * Summaries written (the next summary's `seq`).
   */
  summaries: number;
  /**
   * The `seq` of every compaction undone.
   */
  undone: Array<number>;
  /**
   * The input the latest `prepare` returned, to pair with the usage the next `commit`
   * reports.
   */
  lastInput: LastInput | null;
  /**
   * Per model: the provider's reported input against ctxfold's count of it.
   */
  anchors: Array<UsageAnchor>;
  /**
   * The latest compaction, in short.
   */
  lastCompaction: LastCompaction | null;
  /**
   * When the conversation was made (ISO 8601).
   */
  createdAt: string | null;
  /**
   * When it was last written (ISO 8601).
   */
  updatedAt: string | null;
  /**
   * The guards' state: turns, the latest compactions, the back-off, the circuit breaker
   * (schema 2; a schema-1 meta reads as none of them yet).
   */
  guards: GuardState;
};

/**
 * The state before a compaction, kept so `undo` can restore it.
 */
export type UndoPoint = {
  /**
   * The `seq` of the compaction this undoes.
   */
  compaction: number;
  /**
   * The state in force before it.
   */
  state: CompactState;
};

/**
 * The input a `prepare` returned, as ctxfold counted it.
 */
export type LastInput = {
  /**
   * The model it was counted for (`""` with only a `contextWindow`).
   */
  model: string;
  /**
   * ctxfold's count of the input (`report.tokensAfter`).
   */
  tokens: number;
  /**
   * The history's length after that `prepare`: a `commit` pairs its usage with this input
   * only if nothing was appended in between.
   */
  length: number;
  /**
   * The correction the trigger decision used (`null`: none yet).
   */
  ratio: number | null;
  /**
   * Planned again after a provider refused the input before it as too long
   * (`overflowed`): a refusal of this one is `CONTEXT_OVERFLOW`.
   */
  replanned: boolean;
};

/**
 * What the provider reported against what ctxfold counted, for one model.
 */
export type UsageAnchor = {
  /**
   * The model (`""` with only a `contextWindow`).
   */
  model: string;
  /**
   * The provider's input tokens for the latest input reported.
   */
  reported: number;
  /**
   * ctxfold's count of that input.
   */
  counted: number;
  /**
   * `reported / counted`: the next trigger decision multiplies ctxfold's counts by this.
   */
  ratio: number;
  /**
   * Reports taken so far.
   */
  reports: number;
  /**
   * The plain estimate's error on the latest report: `counted / reported - 1`.
   */
  error: number;
  /**
   * The corrected estimate's error on the latest report (`counted x` the ratio in force
   * then, `/ reported - 1`); `null` on the first report, which had no correction.
   */
  correctedError: number | null;
  /**
   * Mean of `|error|` over every report.
   */
  meanAbsError: number;
  /**
   * Mean of `|correctedError|` over every report that had a correction.
   */
  meanAbsCorrectedError: number | null;
  /**
   * When the latest report came (ISO 8601).
   */
  at: string | null;
  /**
   * The provider's limit, as its latest refusal of an input as too long said (`null`:
   * none said one): every later input is planned below it.
   */
  limit: number | null;
};

/**
 * A conversation's correction after a refusal, for a caller that plans with `compact()`
 * (the AI SDK middleware): what it has learned, and the window and reserved output to plan
 * with so the input lands below the provider's limit.
 */
export type Correction = {
  /**
   * The provider's tokens per ctxfold token (1: no correction).
   */
  ratio: number;
  /**
   * The provider's limit (`null`: none said).
   */
  limit: number | null;
  /**
   * The window ctxfold planned with before any correction.
   */
  window: number;
  /**
   * The output reserved in it.
   */
  reservedOutput: number;
  /**
   * `contextWindow` to plan with now (ctxfold's tokens).
   */
  contextWindow: number;
  /**
   * `reservedOutputTokens` to plan with now.
   */
  reservedOutputTokens: number;
};

/**
 * The latest compaction, in short (its record has everything).
 */
export type LastCompaction = {
  /**
   * Its record's `seq`.
   */
  seq: number;
  /**
   * `threshold` or `manual`.
   */
  trigger: Trigger;
  /**
   * Input tokens before (ctxfold's count).
   */
  tokensBefore: number;
  /**
   * Input tokens after.
   */
  tokensAfter: number;
  /**
   * When (ISO 8601).
   */
  createdAt: string | null;
  /**
   * Whether `undo` undid it (its record says so too).
   */
  undone: boolean;
};

/**
 * A summary chunk as stored: the chunk, and which compaction made it.
 */
export type StoredSummary = {
  /**
   * Its place among the conversation's summaries: 0, 1, 2, ... (unique; a store may key
   * summaries by it).
   */
  seq: number;
  /**
   * The `seq` of the compaction that made it.
   */
  compaction: number;
  /**
   * 1 for the first compaction of a conversation, then counting up (a fold takes the
   * next number).
   */
  generation: number;
  /**
   * The summary text, ledger included.
   */
  text: string;
  /**
   * Index of the last message this chunk covers.
   */
  through: number;
  /**
   * Its tokens.
   */
  tokens: number;
  /**
   * When it was made (ISO 8601), if the caller's clock was known.
   */
  createdAt?: string;
  /**
   * The summarizer's model, if it said.
   */
  model?: string;
  /**
   * `threshold`, `manual` or `fold`.
   */
  trigger: ChunkTrigger;
  /**
   * The summarizer's usage report, as it gave it.
   */
  usage?: unknown;
  /**
   * Identifiers of the evicted messages that the chunk keeps.
   */
  keptIds: Array<string>;
  /**
   * Identifiers of the evicted messages that did not fit.
   */
  lostIds: Array<string>;
  /**
   * `null`, or the fallback used and why: `{ kind, reason }`.
   */
  fallback?: FallbackUsed;
};

/**
 * One compaction, as it happened.
 */
export type CompactionRecord = {
  /**
   * Its place among the conversation's compactions: 0, 1, 2, ... (unique; a store may
   * key records by it).
   */
  seq: number;
  /**
   * `threshold` (the input passed the threshold) or `manual` (`compact()`).
   */
  trigger: Trigger;
  /**
   * `additive` or `rolling`.
   */
  strategy: Strategy;
  /**
   * Input tokens before (ctxfold's count of what would have been sent).
   */
  tokensBefore: number;
  /**
   * Input tokens after.
   */
  tokensAfter: number;
  /**
   * The budget it worked to (in ctxfold's counts: with a usage correction, the window's
   * input divided by the ratio).
   */
  budget: Budget;
  /**
   * History indexes (the messages' stable ids) of the messages it summarized.
   */
  evicted: Array<number>;
  /**
   * The first history index sent verbatim after it.
   */
  boundary: number;
  /**
   * The history's length when it ran.
   */
  length: number;
  /**
   * Generations of the summary chunks it made (a fold's included).
   */
  generations: Array<number>;
  /**
   * Whether it folded the chunks into one.
   */
  folded: boolean;
  /**
   * Identifiers of the evicted messages the summaries keep.
   */
  keptIds: Array<string>;
  /**
   * Identifiers of the evicted messages lost.
   */
  lostIds: Array<string>;
  /**
   * Identifiers in the summaries found nowhere in the conversation.
   */
  unsupportedIds: Array<string>;
  /**
   * Summary lines dropped (outside the schema, or instructions to the model).
   */
  droppedSummaryLines: Array<string>;
  /**
   * The fallback used, if any, and why.
   */
  fallback: FallbackUsed | null;
  /**
   * The summarizer's model, as it said.
   */
  model: string | null;
  /**
   * Each summarizer call's usage, as it reported it.
   */
  usage: unknown[];
  /**
   * The per-call instructions of a manual compaction.
   */
  instructions: string | null;
  /**
   * Milliseconds: planning, waiting for the summarizer, the whole call.
   */
  timings: Timings;
  /**
   * The input after it, by part (head, summaries, kept messages, tool outputs): what a
   * notice's breakdown shows. Absent from records stored before ctxfold kept it.
   */
  after?: PlanTokens;
  /**
   * What the guards did: a guard it overrode (the input did not fit without it), the
   * back-off it started, the breaker, the automatic compactions suppressed before it.
   * Absent from records stored before the guards.
   */
  guards?: GuardNotes;
  /**
   * When (ISO 8601).
   */
  createdAt: string | null;
  /**
   * Whether `undo` undid it (set when read through the `Compactor`; stored `false`).
   */
  undone: boolean;
};

/**
 * What one call writes, as one transaction.
 */
export type WriteBatch = {
  /**
   * The history index of `messages[0]`: the stored meta's `length`.
   */
  start: number;
  /**
   * History items to append, in order.
   */
  messages: unknown[];
  /**
   * Summaries to add.
   */
  summaries: StoredSummary[];
  /**
   * Compaction records to add (one per compaction; several only in `import`).
   */
  records: CompactionRecord[];
  /**
   * The new meta, whose `version` is the expected one plus one.
   */
  meta: StoredMeta;
};

/**
 * A conversation as `export()` gives it and `import()` takes it.
 */
export type ExportedConversation = {
  /**
   * `"ctxfold.conversation"`.
   */
  kind: string;
  /**
   * The layout of this object (1).
   */
  exportVersion: number;
  /**
   * The meta.
   */
  meta: StoredMeta;
  /**
   * The whole history.
   */
  messages: unknown[];
  /**
   * Every summary.
   */
  summaries: StoredSummary[];
  /**
   * Every compaction record.
   */
  records: CompactionRecord[];
};

/**
 * One message of a conversation's full history.
 */
export type HistoryEntry<M = unknown> = {
  /**
   * Its index: the message's stable id (the history is append-only).
   */
  index: number;
  /**
   * The message, as stored.
   */
  message: M;
  /**
   * The `seq` of the compaction that summarized it (`null`: never summarized, or only by an
   * undone one).
   */
  summarizedBy: number | null;
};

/**
 * How the trigger decision saw the input, in the provider's tokens where a usage report
 * corrected ctxfold's count.
 */
export type InputEstimate = {
  /**
   * ctxfold's count of the input before any compaction this turn (`report.tokensBefore`).
   */
  counted: number;
  /**
   * The correction from the latest usage report of this model (`null`: none yet).
   */
  ratio: number | null;
  /**
   * `counted x ratio` (or `counted`): what the trigger decision compared with `threshold`.
   */
  tokens: number;
  /**
   * The threshold, in the provider's tokens.
   */
  threshold: number;
  /**
   * The input budget (window minus reserved output), in the provider's tokens.
   */
  input: number;
};

/**
 * The tokens of the messages whose tool outputs are pruned, whole and as sent (a `pruned`
 * notice: `Tool outputs pruned (12.4k -> 2.1k, -83 %)`).
 */
export type PrunedTokens = {
  /**
   * Their tokens with nothing pruned.
   */
  before: number;
  /**
   * Their tokens as sent (`before - report.pruned.tokensSaved`).
   */
  after: number;
};

/**
 * What `prepare` and `compact` return besides the messages.
 */
export type PrepareOutcome = {
  /**
   * `full`, `summarized`, or `truncated` after a marker fallback.
   */
  contextStatus: ContextStatus;
  /**
   * What happened (as `compact()` reports it; indexes are history indexes, except
   * `cacheBreakpoints`, which index the returned messages).
   */
  report: CompactReport;
  /**
   * How the trigger decision saw the input.
   */
  estimate: InputEstimate;
  /**
   * The record of the compaction this call made, if it made one.
   */
  record: CompactionRecord | null;
  /**
   * The messages whose tool outputs are pruned in this input (`report.pruned.messages`):
   * their tokens whole and as sent.
   */
  prunedTokens: PrunedTokens;
  /**
   * What the guards did on this call: a compaction suppressed, a back-off, the breaker.
   */
  guards: GuardNotes;
};

/**
 * What `commit` returns.
 */
export type CommitOutcome = {
  /**
   * History items stored now.
   */
  length: number;
  /**
   * The model's anchor after this report, when the usage was taken.
   */
  anchor: UsageAnchor | null;
  /**
   * Why the usage given was not taken (no `prepare` came just before this `commit`, or
   * the report is not plausibly this input's), else `null`.
   */
  usageIgnored: string | null;
};

/**
 * What `undo` returns when it undid a compaction.
 */
export type UndoOutcome = {
  /**
   * The `seq` of the compaction undone.
   */
  compaction: number;
  /**
   * Summary chunks in force now.
   */
  chunks: number;
  /**
   * The first history index sent verbatim now (after the head), `null` with no summary.
   */
  boundary: number | null;
};

/**
 * What `status` returns.
 */
export type ConversationStatus = {
  /**
   * The conversation's id.
   */
  id: string;
  /**
   * The stored version.
   */
  version: number;
  /**
   * History items stored.
   */
  length: number;
  /**
   * The messages' format.
   */
  format: MessageFormat;
  /**
   * `summarized` when summaries are in force, `truncated` when a marker stands in for
   * earlier turns, else `full`.
   */
  contextStatus: ContextStatus;
  /**
   * The window's use by part (head, summaries, tail, tools) if the model were called now,
   * and whether the next `prepare` would compact.
   */
  plan: CompactPlan;
  /**
   * How the trigger decision sees the input now.
   */
  estimate: InputEstimate;
  /**
   * Summary chunks in force.
   */
  chunks: number;
  /**
   * Compactions so far (undone ones included).
   */
  compactions: number;
  /**
   * The latest compaction, in short.
   */
  lastCompaction: LastCompaction | null;
  /**
   * Whether `undo` has a compaction to undo.
   */
  canUndo: boolean;
  /**
   * Per model: the estimate's error against the provider's reports, and the correction.
   */
  usage: Array<UsageAnchor>;
  /**
   * The guards' state: the turn count, the back-off, the circuit breaker, the latest
   * suppression.
   */
  guards: GuardState;
  /**
   * When the conversation was made (ISO 8601).
   */
  createdAt: string | null;
  /**
   * When it was last written (ISO 8601).
   */
  updatedAt: string | null;
};

/**
 * Options of `new IndexedDBStore()`.
 */
export type IndexedDBStoreOptions = {
  /**
   * The IndexedDB database's name. Default `"ctxfold"`.
   */
  database?: string;
  /**
   * The deadline of each call (opening the database included), in milliseconds: a call
   * that has not settled by then is aborted (nothing is written) and rejects with
   * `STORE_ERROR`. Default 10000.
   */
  timeoutMs?: number;
};

/**
 * One message `search` found.
 */
export type SearchHit = {
  /**
   * Its index in the stored history.
   */
  index: number;
  /**
   * Who it is from.
   */
  role: MessageRole;
  /**
   * The passage around the best match (`…` where it was cut).
   */
  snippet: string;
  /**
   * Whether the model's input holds it verbatim now (not summarized away).
   */
  inInput: boolean;
  /**
   * Its BM25 score: higher is better, comparable within one search only.
   */
  score: number;
};

/**
 * The options of `recall`.
 */
export type RecallOptions = {
  /**
   * The most tokens one recall gives back, its framing included (passages are cut to fit,
   * counted with the conversation's counter). From 100 to 100000. Default 1000.
   */
  maxTokens?: number;
};

/**
 * The arguments the model calls the tool with (the JSON schema of `parameters`).
 */
export type RecallArgs = {
  /**
   * What to look for: words, names or identifiers the message would contain.
   */
  query: string;
  /**
   * How many messages at most, best first: a whole number from 1 to 20 (default 5).
   */
  limit?: number;
};

/**
 * Options of `compactor.recallTool(id, options)`.
 */
export type RecallToolOptions = {
  /**
   * The API the definition is for: `"openai"` (Chat Completions), `"openai-responses"`,
   * `"anthropic"`, `"ai-sdk"` (an object for `generateText({ tools: { recall } })`, with
   * `execute`) or `"ai-sdk-model"` (a language-model middleware's `params.tools` entry).
   */
  format: RecallToolFormat;
  /**
   * With `"ai-sdk"`, required: the AI SDK's `jsonSchema` helper (`import { jsonSchema }
   * from "ai"`), which wraps the schema the way the SDK's tools take it (ctxfold never
   * imports the SDK).
   */
  jsonSchema?: RecallJsonSchema;
};

/**
 * The API a tool definition is shaped for.
 */
export type RecallToolFormat = "openai" | "openai-responses" | "anthropic" | "ai-sdk" | "ai-sdk-model";

/**
 * A message a recall found.
 */
export type RecallMatch = {
  /**
   * Its index in the stored history (`history()`).
   */
  index: number;
  /**
   * Who it is from.
   */
  role: MessageRole;
  /**
   * Its text, or a passage of it around the best match when the budget is short.
   */
  text: string;
  /**
   * Whether `text` is a passage (`…` where it was cut), not the whole message.
   */
  cut: boolean;
};

/**
 * What `compactor.recall` gives back.
 */
export type Recalled = {
  /**
   * The messages found, best first: none that the model's input holds now.
   */
  matches: Array<RecallMatch>;
  /**
   * The same as one text, framed as data: what the tool call answers.
   */
  text: string;
  /**
   * `text`'s tokens, counted with the conversation's counter: at most the budget.
   */
  tokens: number;
};
