
/**
 * A chat command as `parseCommand` reads it. `unknown`: a `/name` that is no command;
 * `invalid`: arguments to a command that takes none.
 */
export type ParsedCommand =
  | { command: "compact"; /** Instructions for this compaction's summarizer (`/compact keep the API decisions`). */ instructions: string | null }
  | { command: "status" }
  | { command: "prune" }
  | { command: "undo" }
  | { command: "new" }
  | { command: "resume"; /** The conversation to resume; `null`: list them. */ id: string | null }
  | { command: "unknown"; /** The name typed, lowercased, without the slash. */ name: string }
  | { command: "invalid"; name: string; /** What was wrong (`/status takes no arguments`). */ reason: string };

/**
 * Reads a chat command: `/compact [instructions]`, `/status`, `/prune`, `/undo`, `/new`,
 * `/resume [id]` (`/name` at the start, then a space or the end; case-insensitive). `null`
 * for text that is not a command (`hello`, `/etc/hosts is gone`): send that to the model.
 * A `/name` that is no command is `{ command: "unknown" }`, and arguments to a command that
 * takes none `{ command: "invalid" }`; only a non-string throws (`TypeError`).
 *
 * ```ts
 * parseCommand("/compact keep the API decisions"); // { command: "compact", instructions: "keep the API decisions" }
 * parseCommand("hello"); // null
 * ```
 */
export function parseCommand(text: string): ParsedCommand | null;

/** What every command result holds: `text` is one line for the chat. */
export interface CommandResultBase {
  /** Whether the command did what it asks (`false`: nothing to compact, prune or undo, no such conversation, not a command). */
  ok: boolean;
  /** A short line to show (`Compacted (157k -> 9.1k)`, `Nothing to undo`). */
  text: string;
}

/** What `compactor.command(id, text)` resolves to (`null` when `text` is not a command). */
export type CommandResult<M = unknown> =
  | (CommandResultBase & {
      command: "compact";
      conversationId: string;
      /** The manual compaction's input and record (`null`: no such conversation). */
      result: PrepareResult<M> | null;
    })
  | (CommandResultBase & {
      command: "prune";
      conversationId: string;
      /** The input with old tool outputs pruned (`null`: no such conversation). */
      result: PrepareResult<M> | null;
    })
  | (CommandResultBase & { command: "undo"; conversationId: string; undone: UndoOutcome | null })
  | (CommandResultBase & { command: "status"; conversationId: string; status: ConversationStatus | null })
  | (CommandResultBase & {
      command: "new";
      /** The new conversation's id. */
      conversationId: string;
      /** The conversation it continues. */
      previous: string;
      /** Whether its head carries a summary of the previous one. */
      summarized: boolean;
      /** The new conversation's first input (its head). */
      result: PrepareResult<M>;
    })
  | (CommandResultBase & {
      command: "resume";
      /** The conversation to resume (`null`: the ids were listed). */
      conversationId: string | null;
      /** `/resume` without an id: the stored conversations' ids. */
      conversations: string[] | null;
      /** `/resume id`: its status (`null`: no such conversation, or a list). */
      status: ConversationStatus | null;
    })
  | (CommandResultBase & { command: "unknown"; conversationId: string; name: string })
  | (CommandResultBase & { command: "invalid"; conversationId: string; name: string; reason: string });

/**
 * The notice for a compaction record or a Compactor event, as coding agents show them: a
 * record (or `compactionEnd`) with its breakdown, `pruned` with the context's use,
 * `compactionStart`, `fallback` and the guards' events (`suppressed`, `backoff`,
 * `breakerOpen`, `breakerClosed`) as one line; also `compact()`'s report and the AI SDK
 * middleware's `onReport` event (`Compacted (18.6k -> 10.4k)` and its total, the pruning,
 * or `Context: 5.2k/8.2k (64 %)` when it did neither).
 *
 * ```ts
 * compactor.on("compactionEnd", (e) => chat.note(notify(e)));
 * // Compacted (157k -> 9.1k)
 * //   System: 1.8k tokens
 * //   Summary: 3.2k tokens
 * //   Kept context: 2.7k tokens
 * //   Tool outputs: 1.4k tokens
 * //   Total: 9.1k/150k (6 %)
 * compactor.on("pruned", (e) => chat.note(notify(e)));
 * // Tool outputs pruned (12.4k -> 2.1k, -83 %)
 * //   Context: 18.5k/150k (12 %)
 * ```
 */
export function notify(record: CompactionRecord | CompactorEvent | CompactReport | { report: CompactReport; type: "generate" | "stream" }): string;

/** What `sse` puts on its `data:` line (as JSON). `text` is the notice's first line. */
export type CompactionSseData =
  | {
      event: "compaction";
      phase: "start";
      conversationId: string | null;
      /** The input's tokens before, as given (the record's `tokensBefore`). */
      tokens: number | null;
      window: number | null;
      /** Messages to summarize. */
      evict: number;
      text: string;
    }
  | {
      event: "compaction";
      phase: "end";
      conversationId: string | null;
      seq: number;
      trigger: Trigger | null;
      tokensBefore: number;
      tokensAfter: number;
      window: number | null;
      /** Messages summarized. */
      evicted: number;
      fallback: FallbackKind | null;
      text: string;
    }
  | {
      event: "compaction";
      phase: "failed";
      conversationId: string | null;
      /** Another writer compacted first; the call goes on. */
      retried: boolean;
      /** The error's code, if it has one (`STALE_WRITE`, `SUMMARIZER_FAILED`, ...). */
      code: string | null;
      text: string;
    }
  | {
      event: "pruned";
      conversationId: string | null;
      /** The pruned messages' tokens whole (`null`: not known). */
      before: number | null;
      /** Their tokens as sent. */
      after: number | null;
      tokensSaved: number;
      /** Messages whose outputs are pruned. */
      messages: number;
      /** The input's tokens now. */
      tokensAfter: number | null;
      window: number | null;
      text: string;
    }
  | { event: "fallback"; conversationId: string | null; kind: FallbackKind; reason: string; text: string }
  | { event: "suppressed"; conversationId: string | null; suppressed: Suppression; text: string }
  | { event: "backoff"; conversationId: string | null; backoff: BackoffNote; text: string }
  | { event: "breakerOpen" | "breakerClosed"; conversationId: string | null; breaker: BreakerNote; text: string };

/**
 * One server-sent event for a streaming response: `data: {"event":"compaction",...}\n\n`
 * (`CompactionSseData` as JSON on one line).
 *
 * ```ts
 * compactor.on("compactionStart", (e) => res.write(sse(e)));
 * compactor.on("compactionEnd", (e) => res.write(sse(e)));
 * ```
 */
export function sse(event: CompactorEvent | CompactionRecord): string;

/**
 * What `applyAnthropicCacheControl` reads of an Anthropic Messages request; other keys pass
 * through. `system` and `messages` are as `Compactor.prepare` returns them (checked when the
 * function runs: `system` a string or blocks, each message a `role` and a string or blocks).
 */
export interface AnthropicRequestLike {
  /** A string, or text blocks. */
  system?: unknown;
  messages: readonly unknown[];
  tools?: readonly unknown[];
  [key: string]: unknown;
}

/**
 * An Anthropic Messages request with up to 4 `cache_control: { type: "ephemeral" }`
 * breakpoints (counting those it has): after the system prompt, where the report says the
 * prefix is stable (after the head, after the summaries, at the prune boundary), and on the
 * last message; when fewer are free, the later ones. Only on text, image, tool_use,
 * tool_result and document blocks (a string `system` or content becomes a text block where
 * one goes). One added before a `ttl: "1h"` marker of yours gets `ttl: "1h"` too (Anthropic
 * wants 1-hour entries before 5-minute ones). Returns a new request; the input is not changed.
 *
 * ```ts
 * const { system, messages, report } = await compactor.prepare(id, [userMessage]);
 * const body = applyAnthropicCacheControl({ model: "claude-sonnet-4-5", max_tokens: 1024, system, messages }, report);
 * ```
 */
export function applyAnthropicCacheControl<R extends AnthropicRequestLike>(
  request: R,
  report?: Pick<CompactReport, "cacheBreakpoints"> | null,
): Omit<R, "system" | "messages"> & {
  /** The system prompt: blocks where a breakpoint went, else as it was (absent: none). */
  system?: string | unknown[] | null;
  /** The messages: those given a breakpoint with blocks for content, the others as they were. */
  messages: (R["messages"][number] | { role: string; content: unknown[] })[];
};
