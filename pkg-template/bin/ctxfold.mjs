#!/usr/bin/env node
// The ctxfold command line. `ctxfold help` lists the commands.
import { readFileSync, writeFileSync } from "node:fs";
import { basename, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import * as ctxfold from "../node.js";

const USAGE = `usage:
  ctxfold count FILE [--model M | --encoding E] [--format F] [--json]
      Counts the tokens of FILE: plain text, or a conversation (a JSON array of
      messages, or an object with a "messages" array, such as a corpus file or an
      Anthropic request). Prints the total and a per-role breakdown.
  ctxfold compact FILE [--model M] [--window N] [--summarizer extractive|PATH.mjs]
                       [--state FILE] [--save-state FILE] [--preset P] [--json]
      Fits the conversation in FILE into the model's window (default gpt-4o) and prints
      what happened. A .mjs summarizer is a module whose default export is
      async (request) => summaryText; without one the built-in extractive summary runs.
  ctxfold inspect FILE [--model M] [--window N] [--state FILE] [--json]
      The plan compaction would follow, without calling a model: token breakdown,
      trigger, cut points, pruning.
  ctxfold help

options:
  --encoding E   o200k_base (default) or cl100k_base: exact counts
  --model M      a model id (e.g. gpt-4o, claude-sonnet-4-5): its encoding or calibrated estimate
  --format F     openai | openai-responses | anthropic | ai-sdk (default: detected)
  --window N     the context window in tokens (default: the model's)
  --summarizer S extractive (default), or a .mjs module exporting the summarize function
  --state FILE   state from an earlier compact (--save-state) to continue from
  --preset P     off | default | conservative | aggressive
  --json         machine-readable output; errors as { "error": { name, code, message } }`;

class UsageError extends Error {}

function parseArgs(argv) {
  const args = { positional: [], json: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new UsageError(`${a} needs a value`);
      return argv[++i];
    };
    if (a === "--json") args.json = true;
    else if (a === "--model") args.model = value();
    else if (a === "--encoding") args.encoding = value();
    else if (a === "--format") args.format = value();
    else if (a === "--window") args.window = Number(value());
    else if (a === "--summarizer") args.summarizer = value();
    else if (a === "--state") args.state = value();
    else if (a === "--save-state") args.saveState = value();
    else if (a === "--preset") args.preset = value();
    else if (a === "-h" || a === "--help") args.positional.unshift("help");
    else if (a.startsWith("--")) throw new UsageError(`unknown option ${a}`);
    else args.positional.push(a);
  }
  if (args.model && args.encoding) throw new UsageError("give --model or --encoding, not both");
  return args;
}

/** A conversation (array or object with messages) or plain text. */
function readInput(path) {
  const text = readFileSync(path, "utf8");
  try {
    const json = JSON.parse(text);
    if (Array.isArray(json)) return { kind: "messages", messages: json };
    if (json && typeof json === "object" && Array.isArray(json.messages)) {
      // A corpus file carries id, source and probes beside the messages; an Anthropic
      // request carries system and other fields the count needs.
      const { messages, system } = json;
      return { kind: "messages", messages: system === undefined ? messages : { system, messages } };
    }
  } catch {
    // Not JSON: plain text.
  }
  return { kind: "text", text };
}

const fmt = (n) => n.toLocaleString("en-US");

function count(args) {
  const [file] = args.positional;
  if (!file) throw new UsageError("count needs a FILE");
  const input = readInput(file);
  const tokenizer = args.model ? { model: args.model } : { encoding: args.encoding ?? "o200k_base" };
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

/** Options for compact and inspect from the command line. */
async function compactOptions(args) {
  if (args.window !== undefined && !(Number.isInteger(args.window) && args.window > 0)) {
    throw new UsageError("--window needs a positive integer");
  }
  const options = { model: args.model ?? "gpt-4o" };
  if (args.encoding) options.encoding = args.encoding;
  if (args.format) options.format = args.format;
  if (args.window) options.contextWindow = args.window;
  if (args.preset) options.preset = args.preset;
  if (args.state) options.state = JSON.parse(readFileSync(args.state, "utf8"));
  if (args.summarizer && args.summarizer !== "extractive") {
    const mod = await import(pathToFileURL(resolve(args.summarizer)).href);
    if (typeof mod.default !== "function") {
      throw new UsageError(`${args.summarizer} has no default export function`);
    }
    options.summarizer = mod.default;
  }
  return options;
}

function conversationInput(file) {
  const input = readInput(file);
  if (input.kind !== "messages") throw new UsageError(`${file} is not a conversation (a JSON array of messages, or { messages })`);
  return input.messages;
}

async function compactCommand(args) {
  const [file] = args.positional;
  if (!file) throw new UsageError("compact needs a FILE");
  const messages = conversationInput(file);
  const options = await compactOptions(args);
  const result = await ctxfold.compact(messages, options);
  if (args.saveState) writeFileSync(args.saveState, JSON.stringify(result.state));
  if (args.json) return print({ messages: result.messages, contextStatus: result.contextStatus, report: result.report });
  const r = result.report;
  const out = Array.isArray(result.messages) ? result.messages : result.messages.messages;
  const summary = out.find((m, i) => r.cacheBreakpoints.includes(i) && summaryText(m));
  const ids = `${fmt(r.keptIds.length)} kept, ${fmt(r.lostIds.length)} lost to the ledger budget, ${fmt(r.unsupportedIds.length)} unsupported`;
  console.log(`${basename(file)}: ${options.model}, window ${fmt(r.budget.window)}
  status       ${result.contextStatus}
  tokens       ${fmt(r.tokensBefore)} -> ${fmt(r.tokensAfter)} (input budget ${fmt(r.budget.input)}, threshold ${fmt(r.budget.threshold)})
  evicted      ${r.trigger ? `${fmt(r.evicted.length)} messages, ${r.newChunks} summary chunk(s)${r.folded ? ", folded" : ""} (${r.trigger})` : "none"}
  identifiers  ${r.trigger ? ids : "-"}
  pruned       ${fmt(r.pruned.messages.length)} tool outputs, ${fmt(r.pruned.bytesRemoved)} bytes, ${fmt(r.pruned.tokensSaved)} tokens
  fallback     ${r.fallback ? `${r.fallback.kind}: ${r.fallback.reason}` : "none"}
  messages     ${fmt(out.length)} out of ${fmt(Array.isArray(messages) ? messages.length : messages.messages.length)}; cache breakpoints after ${r.cacheBreakpoints.join(", ") || "-"}
  time         ${r.timings.totalMs.toFixed(1)} ms (summarizer ${r.timings.summarizeMs.toFixed(1)} ms)`);
  if (summary) console.log(`\n${indent(summaryText(summary))}`);
}

function summaryText(m) {
  const text = typeof m.content === "string" ? m.content : null;
  return text && (text.startsWith("## Conversation Summary") || text.startsWith("[Earlier messages truncated]")) ? text : null;
}

const indent = (text) => text.split("\n").map((l) => `  ${l}`).join("\n");

async function inspectCommand(args) {
  const [file] = args.positional;
  if (!file) throw new UsageError("inspect needs a FILE");
  const messages = conversationInput(file);
  const options = await compactOptions(args);
  const p = ctxfold.plan(messages, options);
  if (args.json) return print(p);
  const t = p.tokens;
  const range = (list) => (list.length ? `${list[0]}..${list[list.length - 1]}` : "-");
  console.log(`${basename(file)}: ${options.model}, window ${fmt(p.budget.window)}
  budget     reserved output ${fmt(p.budget.reservedOutput)} · input ${fmt(p.budget.input)} · threshold ${fmt(p.budget.threshold)}
  tokens     ${fmt(t.total)} = head ${fmt(t.head)} + summaries ${fmt(t.summaries)} + middle ${fmt(t.middle)} + tail ${fmt(t.tail)} + framing ${fmt(t.framing)} (tool results ${fmt(t.tools)})
  trigger    ${p.trigger ? `${p.trigger} (${fmt(t.total)} > ${fmt(p.budget.threshold)})` : `none (${fmt(t.total)} <= ${fmt(p.budget.threshold)})`}
  head       messages 0..${p.headEnd - 1}
  evict      ${p.trigger ? `${fmt(p.evict.length)} messages (${range(p.evict)}) in ${p.summarizerCalls} summarizer call(s)` : "-"}
  tail       from message ${p.tailStart}${p.pinned !== null ? `, with user message ${p.pinned} pinned` : ""}
  prune      ${fmt(p.pruned.messages.length)} tool outputs before message ${p.pruned.boundary}${p.pruned.advanced ? " (boundary advances now)" : ""}, saving ${fmt(p.pruned.tokensSaved)} tokens${p.stateReset ? `\n  state      ignored: ${p.stateReset}` : ""}`);
}

function describe(tokenizer, result) {
  if (result?.model) {
    const m = result.model;
    const how = m.tokenizer?.kind === "exact" ? `exact ${m.tokenizer.encoding}` : "calibrated estimate";
    return `${m.id} (${how}${m.known === false ? ", unknown model: defaults" : ""})`;
  }
  return tokenizer.model ? tokenizer.model : `${tokenizer.encoding} (exact)`;
}

function print(value) {
  console.log(JSON.stringify(value, null, 2));
}

async function main(argv) {
  let args;
  try {
    args = parseArgs(argv);
    const [command] = args.positional.splice(0, 1);
    switch (command) {
      case "count":
        return count(args);
      case "compact":
        return await compactCommand(args);
      case "inspect":
        return await inspectCommand(args);
      case "help":
      case undefined:
        console.log(USAGE);
        return;
      default:
        throw new UsageError(`unknown command ${command}`);
    }
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`ctxfold: ${err.message}\n\n${USAGE}`);
      process.exitCode = 2;
      return;
    }
    if (ctxfold.isCtxfoldError(err)) {
      if (args?.json) print({ error: { name: err.name, code: err.code, message: err.message } });
      else console.error(`ctxfold: ${err.message} (${err.code})`);
      process.exitCode = 1;
      return;
    }
    if (err?.syscall) {
      // A file that cannot be read.
      console.error(`ctxfold: cannot read ${err.path ?? "the input"}: ${err.code}`);
      process.exitCode = 1;
      return;
    }
    throw err;
  }
}

await main(process.argv.slice(2));
