#!/usr/bin/env node
// The ctxfold command line. `ctxfold help` lists the commands.
import { basename, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import * as ctxfold from "../node.js";
import { checkTaken, commandUsage, COMMANDS, parseArgs, usage, usagePointer } from "./args.mjs";
import { CliError, conversationInput, countInput, kindOf, parseJson, readText, usageError, writeText } from "./input.mjs";
import { replayCommand } from "./replay.mjs";

/** @typedef {import("./args.mjs").Args} Args */
/** @typedef {import("../node.js").CompactOptions} CompactOptions */
/** @typedef {import("../node.js").CountOptions} CountOptions */
/** @typedef {import("../node.js").MessagesCount} MessagesCount */
/** @typedef {import("../node.js").Summarizer} Summarizer */
/**
 * The options compact, inspect and replay call the library with: a model always.
 * @typedef {CompactOptions & { model: string }} CliCompactOptions
 */

/** @param {number} n */
const fmt = (n) => n.toLocaleString("en-US");

/** @param {Args} args */
function count(args) {
  const [file] = args.positional;
  if (!file) throw usageError("count needs a FILE");
  const input = countInput(file, args);
  const tokenizer = args.model ? { model: args.model, ...(args.encoding ? { encoding: args.encoding } : {}) } : { encoding: args.encoding ?? "o200k_base" };
  if (input.kind === "text") {
    const total = ctxfold.countTokens(input.text, tokenizer);
    if (args.json) return print({ file, kind: "text", ...tokenizer, total });
    return console.log(`${basename(file)}: ${fmt(total)} tokens (${describe(tokenizer)}, plain text)`);
  }
  const options = { ...tokenizer, ...(args.format ? { format: args.format } : {}) };
  const result = ctxfold.countMessages(input.messages, options);
  if (args.json) return print({ file, kind: "messages", ...tokenizer, ...result });
  const roles = Object.entries(result.byRole)
    .map(([role, n]) => `${role} ${fmt(n)}`)
    .join(" · ");
  console.log(`${basename(file)}
  format     ${result.format}${args.format ? "" : " (detected)"}
  tokenizer  ${describe(tokenizer, result)}
  messages   ${fmt(result.messages.length)}
  total      ${fmt(result.total)} tokens (including ${result.replyPriming} reply priming)
  by role    ${roles}`);
}

/**
 * Options for compact, inspect and replay from the command line.
 * @param {Args} args
 * @returns {Promise<{ options: CliCompactOptions, about: string }>}
 */
async function compactOptions(args) {
  /** @type {CliCompactOptions} */
  const options = { model: args.model ?? "gpt-4o" };
  if (args.encoding) options.encoding = args.encoding;
  if (args.format) options.format = args.format;
  if (args.window) options.contextWindow = args.window;
  if (args.preset) options.preset = args.preset;
  if (args.state) options.state = /** @type {import("../node.js").CompactState} */ (readState(args.state));
  const summarizer = await summarizerOf(args, options.model);
  if (summarizer.use) options.summarizer = summarizer.use;
  return { options, about: summarizer.about };
}

/**
 * The --summarizer: the built-in extractive summary, an OpenAI-compatible API through
 * openAISummarizer, or a module's default export; `about` says which in words.
 * @param {Args} args
 * @param {string} model
 * @returns {Promise<{ use: Summarizer | null, about: string }>}
 */
async function summarizerOf(args, model) {
  const spec = args.summarizer ?? { kind: "extractive" };
  if (spec.kind !== "url") {
    for (const option of ["--summarizer-model", "--api-key-env"]) {
      if (args.given.includes(option)) throw usageError(`${option} goes with --summarizer URL`);
    }
  }
  if (spec.kind === "extractive") return { use: null, about: "extractive summaries" };
  if (spec.kind === "module") return { use: await loadSummarizer(spec.path), about: `summaries by ${spec.path}` };
  const summarizerModel = args.summarizerModel ?? model;
  const baseURL = spec.url.replace(/\/chat\/completions\/?$/, "");
  const apiKey = keyFrom(args.apiKeyEnv);
  const use = ctxfold.openAISummarizer({ model: summarizerModel, baseURL, ...(apiKey ? { apiKey } : {}) });
  return { use, about: `summaries by ${summarizerModel} at ${baseURL}${apiKey ? "" : " (no key)"}` };
}

/**
 * The API key: from --api-key-env's variable (which must be set), else $OPENAI_API_KEY if set.
 * @param {string | undefined} name
 */
function keyFrom(name) {
  if (name === undefined) return process.env.OPENAI_API_KEY || null;
  const key = process.env[name];
  if (!key) throw new CliError("NO_API_KEY", `--api-key-env ${name}: the environment variable ${name} is not set`);
  return key;
}

/**
 * A --state file: JSON and an object; the library checks the rest of its shape.
 * @param {string} path
 * @returns {object}
 */
function readState(path) {
  const state = parseJson(readText(path, "--state "), `--state ${path}`, "INVALID_STATE");
  if (state === null || typeof state !== "object" || Array.isArray(state)) {
    throw new CliError("INVALID_STATE", `--state ${path} is not a ctxfold state: expected an object, got ${kindOf(state)}`);
  }
  return state;
}

/**
 * @param {string} spec  the module's path
 * @returns {Promise<Summarizer>}
 */
async function loadSummarizer(spec) {
  const path = resolve(spec);
  let mod;
  try {
    mod = await import(pathToFileURL(path).href);
  } catch (err) {
    const why = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    throw new CliError("SUMMARIZER_MODULE", `--summarizer ${path} cannot be loaded: ${why}`);
  }
  if (typeof mod.default !== "function") {
    const has = mod.default === undefined ? "it has none" : `it is ${kindOf(mod.default)}`;
    throw new CliError("SUMMARIZER_MODULE", `--summarizer ${path} needs a default export function: ${has}`);
  }
  return mod.default;
}

/** @param {Args} args */
async function compactCommand(args) {
  const [file] = args.positional;
  if (!file) throw usageError("compact needs a FILE");
  const messages = conversationInput(file);
  const { options } = await compactOptions(args);
  const result = await ctxfold.compact(messages, options);
  if (args.saveState) writeText(args.saveState, JSON.stringify(result.state), "--save-state ");
  if (args.json) return print({ messages: result.messages, contextStatus: result.contextStatus, report: result.report });
  const r = result.report;
  const out = Array.isArray(result.messages) ? result.messages : result.messages.messages;
  const summary = r.trigger || r.fallback ? out.find((m) => summaryText(m)) : undefined;
  const ids = `${fmt(r.keptIds.length)} kept, ${fmt(r.lostIds.length)} lost to the ledger budget, ${fmt(r.unsupportedIds.length)} unsupported`;
  console.log(`${basename(file)}: ${modelLine(options)}, window ${fmt(r.budget.window)}
  status       ${result.contextStatus}
  tokens       ${fmt(r.tokensBefore)} -> ${fmt(r.tokensAfter)} (input budget ${fmt(r.budget.input)}, threshold ${fmt(r.budget.threshold)})
  evicted      ${r.trigger ? `${fmt(r.evicted.length)} messages, ${r.newChunks} summary chunk(s)${r.folded ? ", folded" : ""} (${r.trigger})` : "none"}
  identifiers  ${r.trigger ? ids : "-"}
  pruned       ${fmt(r.pruned.messages.length)} tool outputs, ${fmt(r.pruned.bytesRemoved)} bytes, ${fmt(r.pruned.tokensSaved)} tokens
  fallback     ${r.fallback ? `${r.fallback.kind}: ${r.fallback.reason}` : "none"}
  messages     ${fmt(out.length)} out of ${fmt(Array.isArray(messages) ? messages.length : messages.messages.length)}; cache breakpoints after ${r.cacheBreakpoints.join(", ") || "-"}
  time         ${r.timings.totalMs.toFixed(1)} ms (summarizer ${r.timings.summarizeMs.toFixed(1)} ms)${r.stateReset ? `\n  state        ignored: ${r.stateReset}` : ""}`);
  // (found by summaryText, so it has one)
  if (summary) console.log(`\n${indent(/** @type {string} */ (summaryText(summary)))}`);
}

/**
 * @param {any} m  a message of the result, in any format
 * @returns {string | null}
 */
function summaryText(m) {
  const text = typeof m?.content === "string" ? m.content : Array.isArray(m?.content) && typeof m.content[0]?.text === "string" ? m.content[0].text : null;
  return text && (text.startsWith("## Conversation Summary") || text.startsWith("[Earlier messages truncated]")) ? text : null;
}

/** @param {string} text */
const indent = (text) =>
  text
    .split("\n")
    .map((l) => `  ${l}`)
    .join("\n");

/** @param {Args} args */
async function inspectCommand(args) {
  const [file] = args.positional;
  if (!file) throw usageError("inspect needs a FILE");
  const messages = conversationInput(file);
  const { options } = await compactOptions(args);
  const p = ctxfold.plan(messages, options);
  if (args.json) return print(p);
  const t = p.tokens;
  /** @param {number[]} list */
  const range = (list) => (list.length ? `${list[0]}..${list[list.length - 1]}` : "-");
  console.log(`${basename(file)}: ${modelLine(options)}, window ${fmt(p.budget.window)}
  budget     reserved output ${fmt(p.budget.reservedOutput)} · input ${fmt(p.budget.input)} · threshold ${fmt(p.budget.threshold)}
  tokens     ${fmt(t.total)} = head ${fmt(t.head)} + summaries ${fmt(t.summaries)} + middle ${fmt(t.middle)} + tail ${fmt(t.tail)} + framing ${fmt(t.framing)} (tool definitions ${fmt(t.toolDefinitions)} in the head, tool results ${fmt(t.toolResults)})
  trigger    ${p.trigger ? `${p.trigger} (${fmt(t.total)} > ${fmt(p.budget.threshold)})` : `none (${fmt(t.total)} <= ${fmt(p.budget.threshold)})`}
  head       ${p.headEnd > 0 ? `messages 0..${p.headEnd - 1}` : "no messages"}${Array.isArray(messages) ? "" : messages.system !== undefined ? " (the top-level system prompt)" : ""}
  evict      ${p.trigger ? `${fmt(p.evict.length)} messages (${range(p.evict)}) in ${p.summarizerCalls} summarizer call(s)` : "-"}
  tail       from message ${p.tailStart}${p.pinned !== null ? `, with user message ${p.pinned} pinned` : ""}
  prune      ${fmt(p.pruned.messages.length)} tool outputs before message ${p.pruned.boundary}${p.pruned.advanced ? " (boundary advances now)" : ""}, saving ${fmt(p.pruned.tokensSaved)} tokens${p.stateReset ? `\n  state      ignored: ${p.stateReset}` : ""}`);
}

/**
 * The model as compact and inspect say it: one the registry does not know is said so.
 * @param {CliCompactOptions} options
 */
function modelLine(options) {
  const m = ctxfold.getModel(options.model);
  // Without --window an unknown model is UNKNOWN_MODEL: here the window is --window's.
  return m.known === false ? `${options.model} (unknown model: an estimated count)` : options.model;
}

/**
 * @param {CountOptions} tokenizer
 * @param {MessagesCount} [result]
 */
function describe(tokenizer, result) {
  if (result?.model) {
    const m = result.model;
    const how = m.tokenizer?.kind === "exact" ? `exact ${m.tokenizer.encoding}` : "calibrated estimate";
    return `${m.id} (${how}${m.known === false ? ", unknown model: defaults" : ""})`;
  }
  return tokenizer.model ? tokenizer.model : `${tokenizer.encoding} (exact)`;
}

/** @param {unknown} value */
function print(value) {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** @param {Args} args */
async function replay(args) {
  if (!args.positional[0]) throw usageError("replay needs a FILE");
  const { options, about } = await compactOptions(args);
  await replayCommand(args, { options, about, print });
}

/** @type {Record<string, (args: Args) => unknown>} */
const RUN = { count, compact: compactCommand, inspect: inspectCommand, replay };

/** @param {Args} args */
function help(args) {
  const [topic] = args.positional;
  if (topic === undefined || topic === "help") return console.log(usage());
  if (!Object.hasOwn(COMMANDS, topic)) throw usageError(`no command ${topic} to show the usage of (the commands: ${Object.keys(COMMANDS).join(", ")})`);
  console.log(commandUsage(topic));
}

/** @param {string[]} argv */
async function main(argv) {
  // Known before parsing, so that a bad command line is reported as JSON too.
  const json = argv.some((a) => a === "--json" || a.startsWith("--json="));
  // With --json, stdout holds one JSON document: what a summarizer module logs goes to stderr.
  if (json) console.log = console.error;
  // The command as typed first, for the pointer a usage error ends with.
  let command = Object.hasOwn(COMMANDS, argv[0] ?? "") ? argv[0] : undefined;
  try {
    const args = parseArgs(argv);
    [command] = args.positional.splice(0, 1);
    if (command === undefined) throw usageError("no command given");
    if (!Object.hasOwn(COMMANDS, command)) throw usageError(`unknown command ${command}`);
    checkTaken(command, args);
    if (command === "help") return help(args);
    if (args.positional.length > 1) {
      throw usageError(`${command} takes one FILE, got ${args.positional.length}: ${args.positional.join(" ")}`);
    }
    await RUN[command](args);
  } catch (err) {
    report(err, json, command);
  }
}

/**
 * Every failure, expected or not, as one { error } object or one stderr line; never a stack.
 * @param {any} err  what was thrown
 * @param {boolean} json
 * @param {string | undefined} command
 */
function report(err, json, command) {
  const known = err instanceof CliError || ctxfold.isCtxfoldError(err);
  const error = known
    ? { name: err.name, code: err.code, message: err.message }
    : {
        name: typeof err?.name === "string" ? err.name : "Error",
        code: "INTERNAL",
        message: `${err instanceof Error ? err.message : String(err)} (a bug in ctxfold: please report it; CTXFOLD_DEBUG=1 prints the stack)`,
      };
  error.message = error.message.replace(/\s*\n\s*/g, " ");
  // The core names the option; on the command line it is --window.
  if (error.code === "UNKNOWN_MODEL") error.message = error.message.replace("pass contextWindow", "pass --window");
  if (json) print({ error });
  else console.error(`ctxfold: ${error.message} (${error.code})${error.code === "USAGE" ? `\n${usagePointer(command)}` : ""}`);
  if (process.env.CTXFOLD_DEBUG) console.error(err instanceof Error ? err.stack : err);
  process.exitCode = error.code === "USAGE" ? 2 : 1;
}

await main(process.argv.slice(2));
// Done: a summarizer module's timer or open socket does not keep the command running.
process.stdout.write("", () => process.exit());
