// `ctxfold replay FILE`: a conversation replayed turn by turn through a Compactor, as a chat
// app drives one. A turn is a model call, made before each reply (an assistant message; in the
// Responses format a run of output items: reasoning, function calls, a message) and once at
// the end; at each, the previous reply is committed and what came after it (tool results, the
// next user message) prepared. Each input is counted again and held against its budget, and so
// is the whole history, as it would have been sent without ctxfold.
import { mkdirSync } from "node:fs";
import { basename } from "node:path";
import { performance } from "node:perf_hooks";
import * as ctxfold from "../node.js";
import { FileStore } from "./file-store.mjs";
import { CliError, conversationFile, errno } from "./input.mjs";
import { progress, summary, table } from "./replay-output.mjs";

/** @typedef {import("./args.mjs").Args} Args */
/** @typedef {import("./replay-output.mjs").Output} Output */
/** @typedef {import("./replay-output.mjs").Run} Run */
/** @typedef {import("../node.js").CompactorStore} CompactorStore */
/** @typedef {import("../node.js").CompactionRecord} CompactionRecord */
/** @typedef {import("../node.js").CountMessagesOptions} CountMessagesOptions */
/**
 * A call a chat app makes: a prepare of messages from..to-1 before turn `turn`'s model call,
 * or the commit of a reply.
 * @typedef {{ kind: "prepare", from: number, to: number, turn: number } | { kind: "commit", from: number, to: number, turn?: undefined }} Step
 */
/**
 * The conversation replayed: its messages, its top-level system (Anthropic's), its id.
 * @typedef {{ messages: unknown[], system: unknown, id: string }} Replayed
 */

/** Responses items the model writes (a reply's part); the rest are the caller's input. */
const OUTPUT_ITEMS = new Set([
  "reasoning",
  "function_call",
  "custom_tool_call",
  "web_search_call",
  "file_search_call",
  "computer_call",
  "code_interpreter_call",
  "image_generation_call",
  "local_shell_call",
  "mcp_call",
  "mcp_list_tools",
  "mcp_approval_request",
]);

/**
 * @param {any} m  a message, in any format
 * @param {string} format
 */
function isReply(m, format) {
  if (m?.role === "assistant") return true;
  return format === "openai-responses" && m?.role === undefined && OUTPUT_ITEMS.has(m?.type);
}

/**
 * The calls a chat app makes over `messages`: `{ kind: "prepare", from, to, turn }` before
 * each model call (what is new since the last reply), `{ kind: "commit", from, to }` for each
 * reply. The first message is never a reply (a conversation may start with the assistant's
 * greeting; it goes with the first input), and the last step is always a prepare.
 * @param {unknown[]} messages
 * @param {string} format
 */
export function replaySteps(messages, format) {
  /** @type {Step[]} */
  const steps = [];
  let from = 0;
  let turn = 0;
  for (let k = 1; k < messages.length; ) {
    if (!isReply(messages[k], format)) {
      k++;
      continue;
    }
    steps.push({ kind: "prepare", from, to: k, turn: ++turn });
    let end = k + 1;
    if (format === "openai-responses") while (end < messages.length && isReply(messages[end], format)) end++;
    steps.push({ kind: "commit", from: k, to: end });
    from = k = end;
  }
  steps.push({ kind: "prepare", from, to: messages.length, turn: ++turn });
  return steps;
}

/** @param {unknown} v */
const json = (v) => JSON.stringify(v);

/**
 * Where a conversation the store holds `held` messages of goes on: the steps not done yet
 * (the first cut to start at `held`). A store that holds anything but the start of
 * `messages` is STORE_MISMATCH.
 * @param {Step[]} steps
 * @param {unknown[]} messages
 * @param {unknown[]} held
 * @param {string} where
 * @returns {Step[]}
 */
function remaining(steps, messages, held, where) {
  if (held.length > messages.length || held.some((m, i) => json(m) !== json(messages[i]))) {
    const at = held.findIndex((m, i) => json(m) !== json(messages[i]));
    const why = at >= 0 && at < messages.length ? `its message ${at} differs from FILE's` : `it holds ${held.length} messages, FILE has ${messages.length}`;
    throw new CliError("STORE_MISMATCH", `${where} is not the start of FILE's conversation: ${why}; give another --id or --store`);
  }
  return steps.filter((s) => s.to > held.length).map((s) => (s.from < held.length ? { ...s, from: held.length } : s));
}

/**
 * The request a chat app would send: Anthropic's system and the tools beside the messages.
 * @param {unknown[]} messages
 * @param {{ system?: unknown, tools?: unknown }} beside
 */
function requestOf(messages, { system, tools }) {
  if (system === undefined && tools === undefined) return messages;
  return { ...(system === undefined ? {} : { system }), ...(tools === undefined ? {} : { tools }), messages };
}

/**
 * `--store DIR`: the directory, made if missing.
 * @param {string} dir
 */
function storeAt(dir) {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (/** @type {any} */ err) {
    if (typeof err?.code !== "string") throw err;
    throw new CliError("WRITE_FAILED", `cannot use --store ${dir}: ${errno(err)}`);
  }
  return new FileStore(dir);
}

/**
 * `store` with the time its calls take added up in `timed.ms`, so a turn's time can say how much was the store's.
 * @param {CompactorStore} store
 * @returns {{ store: CompactorStore, timed: { ms: number } }}
 */
function timedStore(store) {
  const timed = { ms: 0 };
  /** @type {Record<string, (...args: unknown[]) => Promise<unknown>>} */
  const wrapped = {};
  const methods = /** @type {typeof wrapped} */ (/** @type {unknown} */ (store));
  for (const method of /** @type {const} */ (["load", "messages", "write", "summaries", "records", "list", "delete"])) {
    wrapped[method] = async (...args) => {
      const started = performance.now();
      try {
        return await methods[method](...args);
      } finally {
        timed.ms += performance.now() - started;
      }
    };
  }
  return { store: /** @type {CompactorStore} */ (/** @type {unknown} */ (wrapped)), timed };
}

/**
 * The conversation in FILE: its messages, its system (Anthropic's, top-level), its id.
 * @param {string} file
 * @param {Args} args
 * @returns {Replayed}
 */
function conversationOf(file, args) {
  const { conversation, id } = conversationFile(file);
  const messages = Array.isArray(conversation) ? conversation : conversation.messages;
  if (messages.length === 0) throw new CliError("NOT_A_CONVERSATION", `${file} has no messages to replay`);
  return {
    messages,
    system: Array.isArray(conversation) ? undefined : conversation.system,
    id: args.id ?? id ?? (file === "-" ? "conversation" : basename(file).replace(/\.json$/i, "")),
  };
}

/**
 * The steps this run makes: what the store does not hold yet, up to `--until`'s turn. Says on
 * `out` where a conversation the store held goes on.
 * @param {Step[]} steps
 * @param {Replayed} c
 * @param {unknown[]} held
 * @param {Args} args
 * @param {Output} out
 */
function planRun(steps, c, held, args, out) {
  const where = `--store ${args.store} holds conversation ${json(c.id)}, which`;
  let todo = remaining(steps, c.messages, held, where);
  const turns = steps.filter((s) => s.kind === "prepare").length;
  const fromTurn = todo.find((s) => s.kind === "prepare")?.turn ?? null;
  if (held.length > 0) {
    out.note(
      fromTurn === null
        ? `--store ${args.store} holds all ${held.length} messages of ${json(c.id)}: nothing to replay`
        : `--store ${args.store} holds ${held.length} of ${c.messages.length} messages of ${json(c.id)}: replaying the rest, from turn ${fromTurn} of ${turns}`,
    );
  }
  if (args.until !== undefined && fromTurn !== null) {
    if (fromTurn > args.until) {
      out.note(`the store is past turn ${args.until}: nothing to replay up to it`);
      todo = [];
    }
    // Up to turn K's prepare: its reply is the next run's first commit.
    const until = args.until;
    const last = todo.findIndex((s) => s.kind === "prepare" && s.turn >= until);
    if (last >= 0) todo = todo.slice(0, last + 1);
  }
  return { todo, turns, resumed: held.length > 0 ? { storedMessages: held.length, fromTurn } : null };
}

/**
 * Makes the steps' calls on `compactor`, as a chat app would, and measures each turn: the
 * input sent and the whole history counted again, the budget, the time (the commit before
 * it included, and how much of it the store took).
 * @param {import("../node.js").Compactor} compactor
 * @param {Replayed} c
 * @param {ReturnType<typeof planRun>} plan
 * @param {{ tokenizer: CountMessagesOptions, timed: { ms: number }, out: Output }} how
 * @returns {Promise<Run>}
 */
async function drive(compactor, c, plan, { tokenizer, timed, out }) {
  /** @type {Run} */
  const run = { turns: [], records: [], current: null };
  compactor.on("compactionEnd", ({ record }) => {
    run.records.push({ turn: run.current, record });
    out.compaction(run.current, plan.turns, record);
  });
  let pending = { ms: 0, storeMs: 0 };
  for (const step of plan.todo) {
    run.current = step.turn ?? run.current;
    const slice = c.messages.slice(step.from, step.to);
    const started = performance.now();
    const storeBefore = timed.ms;
    let r;
    try {
      if (step.kind === "commit") await compactor.commit(c.id, slice);
      else r = await compactor.prepare(c.id, step.from === 0 && c.system !== undefined ? { system: c.system, messages: slice } : slice);
    } catch (err) {
      // Which turn failed, in the error's one line; its name and code stay the library's.
      if (err instanceof Error) err.message = `turn ${run.current ?? 1}/${plan.turns} (${step.kind} of messages ${step.from}-${step.to - 1}): ${err.message}`;
      throw err;
    }
    pending = { ms: pending.ms + performance.now() - started, storeMs: pending.storeMs + timed.ms - storeBefore };
    if (step.kind === "commit") continue;
    const prepared = /** @type {import("../node.js").PrepareResult} */ (r); // (the step was a prepare)
    const input = ctxfold.countMessages(requestOf(prepared.messages, { system: prepared.system, tools: prepared.tools }), tokenizer).total;
    const history = ctxfold.countMessages(requestOf(c.messages.slice(0, step.to), { system: c.system }), tokenizer).total;
    const { budget } = prepared.report;
    run.turns.push({
      turn: step.turn,
      messages: step.to,
      input,
      history,
      budget: budget.input,
      window: budget.window,
      compacted: prepared.record !== null,
      status: prepared.contextStatus,
      ...pending,
    });
    pending = { ms: 0, storeMs: 0 };
    out.turn(run.turns[run.turns.length - 1], plan.turns, run.records.length);
  }
  out.done();
  return run;
}

/**
 * Runs the replay. `options` are the Compactor's (model, window, summarizer, ...); `about`
 * says in words who summarizes, for the table.
 * @param {Args} args
 * @param {{ options: import("./ctxfold.mjs").CliCompactOptions, about: string, print: (value: unknown) => void }} how
 */
export async function replayCommand(args, { options, about, print }) {
  const [file] = args.positional;
  const c = conversationOf(file, args);
  const tokenizer = {
    model: options.model,
    ...(options.encoding ? { encoding: options.encoding } : {}),
    ...(options.format ? { format: options.format } : {}),
  };
  // The format decides what a reply is (and the messages are checked before anything is stored).
  const { format } = ctxfold.countMessages(requestOf(c.messages, { system: c.system }), tokenizer);
  const { store, timed } = timedStore(args.store ? storeAt(args.store) : new ctxfold.MemoryStore());
  const compactor = new ctxfold.Compactor({ ...options, store });
  const out = progress({ quiet: args.quiet });
  const steps = replaySteps(c.messages, format);
  const plan = planRun(
    steps,
    c,
    (await compactor.history(c.id)).map((e) => e.message),
    args,
    out,
  );
  const run = await drive(compactor, c, plan, { tokenizer, timed, out });

  const history = (await compactor.history(c.id)).map((e) => e.message);
  const stored = {
    messages: history.length,
    compactions: (await compactor.records(c.id)).length,
    summaries: (await compactor.summaries(c.id)).length,
    complete: json(history) === json(c.messages),
  };
  const result = summary({
    file,
    id: c.id,
    options,
    about,
    store: args.store ?? null,
    turns: plan.turns,
    fileMessages: c.messages.length,
    resumed: plan.resumed,
    run,
    stored,
    until: args.until ?? null,
  });
  if (args.json) print(result);
  else console.log(table(result));
}
