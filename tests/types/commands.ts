// Commands, notices and Anthropic's cache breakpoints, type-checked against the package's
// .d.ts like usage.ts: typed uses, and `@ts-expect-error` lines for what must not compile.
import {
  Compactor,
  parseCommand,
  notify,
  sse,
  applyAnthropicCacheControl,
  type CommandResult,
  type CompactionRecord,
  type CompactionSseData,
  type CompactorEvent,
  type ParsedCommand,
  type PrunedTokens,
} from "ctxfold";
import { parseCommand as liteParseCommand, applyAnthropicCacheControl as liteApply } from "ctxfold/lite";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function expectType<T extends true>(): T | void {}

interface ChatMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string;
}

export async function commands(compactor: Compactor<ChatMessage>, id: string, input: string): Promise<string> {
  const parsed: ParsedCommand | null = parseCommand(input);
  if (parsed?.command === "compact") {
    const instructions: string | null = parsed.instructions;
    void instructions;
  }
  if (parsed?.command === "resume") {
    const target: string | null = parsed.id;
    void target;
  }
  if (parsed?.command === "invalid") {
    const why: string = parsed.reason;
    void why;
  }
  // @ts-expect-error: a status command has no instructions
  if (parsed?.command === "status") void parsed.instructions;
  // @ts-expect-error: the text is a string
  parseCommand(42);

  const answer = await compactor.command(id, input);
  if (answer === null) return "send to the model";
  expectType<Equal<typeof answer, CommandResult<ChatMessage>>>();
  const line: string = answer.text;
  const ok: boolean = answer.ok;
  switch (answer.command) {
    case "compact":
    case "prune": {
      const messages: ChatMessage[] | undefined = answer.result?.messages;
      const tokens: PrunedTokens | undefined = answer.result?.prunedTokens;
      void messages, tokens;
      break;
    }
    case "new": {
      const next: string = answer.conversationId;
      const from: string = answer.previous;
      const input: ChatMessage[] = answer.result.messages;
      void next, from, input;
      break;
    }
    case "resume": {
      const ids: string[] | null = answer.conversations;
      const length: number | undefined = answer.status?.length;
      void ids, length;
      break;
    }
    case "undo":
      void answer.undone?.compaction;
      break;
    case "status":
      void answer.status?.estimate.tokens;
      break;
    case "unknown":
    case "invalid":
      void answer.name;
      break;
  }
  // @ts-expect-error: the text is a string
  await compactor.command(id, { text: "/status" });
  const pruned = await compactor.prune(id);
  const before: number = pruned.prunedTokens.before;
  void before, ok;
  return line;
}

export function notices(compactor: Compactor, record: CompactionRecord, write: (chunk: string) => void): void {
  const text: string = notify(record);
  void text;
  const after: number | undefined = record.after?.total;
  void after;
  compactor.on("compactionEnd", (e) => {
    expectType<Equal<typeof e.type, "compactionEnd">>();
    write(notify(e));
    write(sse(e));
  });
  compactor.on("pruned", (e) => {
    const saved: number = e.prunedTokens.before - e.prunedTokens.after;
    const window: number = e.budget.window;
    void saved, window;
    write(sse(e));
  });
  compactor.on("compactionStart", (e) => write(sse(e)));
  compactor.on("fallback", (e) => write(notify(e)));
  const any: CompactorEvent = { type: "fallback", conversationId: "c", fallback: { kind: "marker", reason: "x" }, record: null };
  write(sse(any));
  const data = JSON.parse(sse(record).slice(6)) as CompactionSseData;
  if (data.event === "compaction" && data.phase === "end") {
    const n: number = data.tokensAfter;
    void n;
  }
  // @ts-expect-error: notify takes a record or an event
  notify({ tokens: 3 });
  // @ts-expect-error: an event's type is one of the four
  sse({ type: "compacted", conversationId: "c" });
}

export async function anthropic(compactor: Compactor, id: string): Promise<void> {
  const { system, messages, report } = await compactor.prepare(id, [{ role: "user", content: "hi" }]);
  // What prepare returns goes in as it is (the README's snippet, strict).
  const body = applyAnthropicCacheControl({ model: "claude-sonnet-4-5", max_tokens: 1024, system, messages }, report);
  const model: string = body.model;
  const count: number = body.messages.length;
  const blocks: number | undefined = body.system?.length;
  void model, count, blocks;
  applyAnthropicCacheControl({ messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }] });
  liteApply({ system: "s", messages: [] }, { cacheBreakpoints: [] });
  void liteParseCommand("/status");
  // @ts-expect-error: a request has messages
  applyAnthropicCacheControl({ system: "s" });
  // @ts-expect-error: messages are an array
  applyAnthropicCacheControl({ messages: "hi" });
  // @ts-expect-error: the report's breakpoints are numbers
  applyAnthropicCacheControl({ messages: [] }, { cacheBreakpoints: ["1"] });
}
