// Chat commands, answered without calling the model: parseCommand(text) reads one, and
// compactor.command(id, text) runs it (lib/compactor.js calls runCommand here with what only
// the Compactor has: its options and the stateless compact()). Each result carries a short
// `text` line for a chat UI.

import { headline, tokens, percent } from "./notices.js";
import { invalidArgument, kindOf } from "./values.js";

/** @typedef {import("./types.d.ts").ParsedCommand} ParsedCommand */
/** @typedef {import("./types.d.ts").CommandResult} CommandResult */
/** @typedef {import("./types.d.ts").Compactor} Compactor */
/** @typedef {import("./types.d.ts").CompactOptions} CompactOptions */
/**
 * What runCommand needs that only the Compactor has: its options for compact() (its
 * summarizer included), and the stateless compact().
 * @typedef {{ options: CompactOptions, compact: (messages: unknown, options: CompactOptions) => Promise<import("./types.d.ts").CompactResult<unknown[] | { messages: unknown[] }>> }} Internals
 */

/** The commands, with what each takes after its name. */
const COMMANDS = {
  compact: "instructions",
  status: null,
  prune: null,
  undo: null,
  new: null,
  resume: "id",
};
const USAGE = Object.entries(COMMANDS)
  .map(([name, arg]) => (arg ? `/${name} [${arg}]` : `/${name}`))
  .join(", ");

/** The user message /new appends to the old history, so that everything before it is summarized. */
const HANDOFF = "(This conversation continues in a new one.)";

/**
 * @param {string} argument
 * @param {string} expected
 * @param {unknown} value
 */
const typeError = (argument, expected, value) => invalidArgument(argument, `${expected}, got ${kindOf(value)}`);

/**
 * Reads a chat command: `/name` at the start of the text (after spaces), then whitespace or
 * the end, then its argument. Text that is not a command (`hello`, `/etc/hosts is gone`,
 * `//`) is `null`, for the model. A name that is not a command is `{ command: "unknown" }`,
 * and arguments to a command that takes none `{ command: "invalid" }`: results, not errors,
 * since they are what a user typed.
 * @param {unknown} text
 * @returns {ParsedCommand | null}
 */
export function parseCommand(text) {
  if (typeof text !== "string") throw typeError("text", "a string", text);
  const m = /^\s*\/([A-Za-z][\w-]*)(?:\s+([\s\S]*))?$/.exec(text);
  if (!m) return null;
  const name = m[1].toLowerCase();
  const rest = (m[2] ?? "").trim();
  if (!Object.hasOwn(COMMANDS, name)) return { command: "unknown", name };
  switch (name) {
    case "compact":
      return { command: "compact", instructions: rest === "" ? null : rest };
    case "resume":
      return { command: "resume", id: rest === "" ? null : rest };
    default:
      if (rest !== "") return { command: "invalid", name, reason: `/${name} takes no arguments` };
      return /** @type {ParsedCommand} */ ({ command: name }); // status, prune, undo or new
  }
}

/**
 * @param {number} n
 * @param {string} one
 */
const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * `23.4k/128k tokens (18 %), 42 messages, 2 compactions`.
 * @param {import("./types.d.ts").ConversationStatus} s
 */
function statusLine(s) {
  const window = s.plan.budget.window;
  const parts = [`${tokens(s.estimate.tokens)}/${tokens(window)} tokens (${percent(s.estimate.tokens, window)})`, plural(s.length, "message")];
  if (s.chunks > 0) parts.push(plural(s.chunks, "summary chunk"));
  parts.push(plural(s.compactions, "compaction"));
  if (s.plan.trigger) parts.push("the next message compacts");
  const g = s.guards;
  if (g && g.turn < g.backoff.until) parts.push(`backing off until turn ${g.backoff.until} (now ${g.turn})`);
  if (g && g.breaker.openUntil !== null && g.turn < g.breaker.openUntil) parts.push(`summarizer circuit open until turn ${g.breaker.openUntil}`);
  return parts.join(", ");
}

/**
 * A conversation id for /new that the store does not hold yet.
 * @param {string} previous
 */
function freshId(previous) {
  const random =
    typeof globalThis.crypto?.randomUUID === "function"
      ? globalThis.crypto.randomUUID()
      : `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
  return `${previous}/${random}`;
}

/**
 * The new conversation /new starts from `id`: the old one's head (its system prompt) and a
 * summary of everything after it, made by a manual compaction of the old history followed by
 * a hand-off message, so that nothing before that message stays out (`bufferTurns: 0`). The
 * summary is the new conversation's first message after the system prompt, in the role
 * compact() gives a summary (`summaryRole`; by default a user message there), never merged
 * into the system prompt. Nothing is stored in the old conversation.
 * @param {Compactor} compactor
 * @param {string} id
 * @param {Internals} internals
 * @returns {Promise<{ messages: unknown[] | { system?: unknown, tools?: unknown[], messages: unknown[] }, summarized: boolean }>}
 */
async function handoff(compactor, id, { options, compact }) {
  const data = await compactor.export(id);
  const anthropic = data.meta.format === "anthropic";
  const bye = { role: "user", content: HANDOFF };
  const history = [...data.messages, bye];
  /** @type {CompactOptions} */
  const knobs = { ...options, manual: true, state: data.meta.state, bufferTurns: 0, alternateRoles: false, format: data.meta.format };
  delete knobs.keepRecentTokens;
  // What the old conversation sends beside its messages: counted, and carried to the new one.
  /** @type {{ system?: unknown, tools?: unknown[] }} */
  const around = {};
  if (anthropic && data.meta.system != null) around.system = data.meta.system;
  if (data.meta.tools != null) around.tools = data.meta.tools;
  const wrapped = Object.keys(around).length > 0;
  const out = await compact(wrapped ? { ...around, messages: history } : history, knobs);
  // compact() answers in the shape it was given: an array, or { system?, tools?, messages }.
  const messages = (Array.isArray(out.messages) ? out.messages : out.messages.messages).filter((m) => m !== bye);
  return { messages: wrapped ? { ...around, messages } : messages, summarized: out.report.summaryChunks > 0 };
}

/**
 * Runs the command in `text` on `id` through the Compactor's own methods. `null` when the
 * text is not a command. `internals`: `{ options, compact }` (the Compactor's options for
 * compact(), its summarizer included, and the stateless compact()).
 * @param {Compactor} compactor
 * @param {string} id
 * @param {string} text
 * @param {Internals} internals
 * @returns {Promise<CommandResult | null>}
 */
export async function runCommand(compactor, id, text, internals) {
  const parsed = parseCommand(text);
  if (parsed === null) return null;
  /** @param {unknown} e  what a Compactor call threw */
  const unknownConversation = (e) => /** @type {{ code?: unknown } | null | undefined} */ (e)?.code === "UNKNOWN_CONVERSATION";
  switch (parsed.command) {
    case "unknown":
      return { command: "unknown", ok: false, conversationId: id, name: parsed.name, text: `Unknown command /${parsed.name} (commands: ${USAGE})` };
    case "invalid":
      return { command: "invalid", ok: false, conversationId: id, name: parsed.name, reason: parsed.reason, text: `${parsed.reason} (commands: ${USAGE})` };
    case "compact": {
      let result;
      try {
        result = await compactor.compact(id, parsed.instructions === null ? undefined : { instructions: parsed.instructions });
      } catch (e) {
        if (!unknownConversation(e)) throw e;
        return { command: "compact", ok: false, conversationId: id, result: null, text: `No conversation ${JSON.stringify(id)} to compact` };
      }
      const ok = result.record !== null;
      const text = ok ? headline(result.record) : `Nothing to compact (${tokens(result.report.tokensAfter)} tokens; the newest turns stay as they are)`;
      return { command: "compact", ok, conversationId: id, result, text };
    }
    case "prune": {
      let result;
      try {
        result = await compactor.prune(id);
      } catch (e) {
        if (!unknownConversation(e)) throw e;
        return { command: "prune", ok: false, conversationId: id, result: null, text: `No conversation ${JSON.stringify(id)} to prune` };
      }
      const { report, prunedTokens, record } = result;
      const lines = [];
      // The boundary may move over outputs too small to prune: then nothing was.
      if (report.pruned.advanced && report.pruned.tokensSaved > 0)
        lines.push(
          headline({ type: "pruned", conversationId: id, pruned: report.pruned, prunedTokens, tokensAfter: report.tokensAfter, budget: report.budget }),
        );
      if (record) lines.push(`${headline(record)}: pruned, it still did not fit`);
      const ok = lines.length > 0;
      if (!ok)
        lines.push(
          `Nothing to prune (${tokens(report.tokensAfter)} tokens; only tool outputs before the recent turns, and larger than toolOutputMaxBytes, are)`,
        );
      return { command: "prune", ok, conversationId: id, result, text: lines.join("; ") };
    }
    case "undo": {
      const undone = await compactor.undo(id);
      const text = undone ? `Undid compaction #${undone.compaction} (${plural(undone.chunks, "summary chunk")} in force now)` : "Nothing to undo";
      return { command: "undo", ok: undone !== null, conversationId: id, undone, text };
    }
    case "status": {
      const status = await compactor.status(id);
      const text = status ? `Context: ${statusLine(status)}` : `No conversation ${JSON.stringify(id)}`;
      return { command: "status", ok: status !== null, conversationId: id, status, text };
    }
    case "resume": {
      if (parsed.id === null) {
        const conversations = await compactor.list();
        const shown = conversations.slice(0, 20).join(", ");
        const more = conversations.length > 20 ? `, and ${conversations.length - 20} more` : "";
        const text = conversations.length === 0 ? "No conversations" : `${plural(conversations.length, "conversation")}: ${shown}${more}`;
        return { command: "resume", ok: conversations.length > 0, conversationId: null, conversations, status: null, text };
      }
      const status = await compactor.status(parsed.id);
      const text = status ? `Resumed ${parsed.id}: ${statusLine(status)}` : `No conversation ${JSON.stringify(parsed.id)}`;
      return { command: "resume", ok: status !== null, conversationId: parsed.id, conversations: null, status, text };
    }
    case "new": {
      const next = freshId(id);
      /** @type {Awaited<ReturnType<typeof handoff>>} */
      let carried = { messages: [], summarized: false };
      try {
        carried = await handoff(compactor, id, internals);
      } catch (e) {
        if (!unknownConversation(e)) throw e;
      }
      const result = await compactor.prepare(next, carried.messages);
      const size = `${tokens(result.report.tokensAfter)} tokens`;
      const text = carried.summarized ? `New conversation ${next} (${size}, with the summary of ${id})` : `New conversation ${next}`;
      return { command: "new", ok: true, conversationId: next, previous: id, summarized: carried.summarized, result, text };
    }
    default:
      throw new Error(`unhandled command ${/** @type {{ command: string }} */ (parsed).command}`);
  }
}
