#!/usr/bin/env node
// The ctxfold command line. `ctxfold help` lists the commands.
import { readFileSync, writeFileSync } from "node:fs";
import { basename, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { getSystemErrorMap } from "node:util";
import * as ctxfold from "../node.js";

/**
 * The codes of the failures the CLI finds itself; the library's errors keep their own.
 * Declared once: `help` lists these lines and CliError accepts only these codes.
 */
const CLI_ERRORS = Object.freeze({
  USAGE: "bad command line: no command, an unknown command or option, a missing or second FILE, a missing value, a bad --window",
  READ_FAILED: "a file cannot be read; the message names it and the errno code (ENOENT, ...)",
  WRITE_FAILED: "the --save-state file cannot be written",
  INVALID_JSON: "FILE is not JSON (a .json FILE of count, any FILE of compact and inspect)",
  NOT_A_CONVERSATION: "FILE of compact or inspect is JSON but not messages or { messages }; any FILE is JSON Lines (.jsonl)",
  SUMMARIZER_MODULE: "the --summarizer module is missing, fails to load, or has no default function",
  INVALID_STATE: "the --state file is not a JSON object (from the library: not a ctxfold state)",
  INTERNAL: "a bug in ctxfold; CTXFOLD_DEBUG=1 also prints the stack",
});

const USAGE = `usage:
  ctxfold count FILE [--model M] [--encoding E] [--format F] [--text] [--json]
      Counts the tokens of FILE: plain text, or a conversation (a JSON array of
      messages, or an object with a "messages" array, such as a corpus file or an
      Anthropic request). Prints the total and a per-role breakdown. A .json FILE must
      parse; JSON in another shape, or a FILE that does not parse, is counted as text.
  ctxfold compact FILE [--model M] [--encoding E] [--format F] [--window N]
                       [--summarizer extractive|PATH.mjs] [--state FILE]
                       [--save-state FILE] [--preset P] [--json]
      Fits the conversation in FILE into the model's window (default gpt-4o) and prints
      what happened. A .mjs summarizer is a module whose default export is
      async (request) => summaryText; without one the built-in extractive summary runs.
  ctxfold inspect FILE [--model M] [--encoding E] [--format F] [--window N]
                       [--state FILE] [--preset P] [--json]
      The plan compaction would follow, without calling a model: token breakdown,
      trigger, cut points, pruning.
  ctxfold help

FILE is a path, or - for standard input. An option's value may follow it (--window 8192)
or an = (--window=8192); an option a command does not take is a usage error.

options:
  --encoding E   o200k_base (default) or cl100k_base: exact counts (with --model: the
                 model's window, counted with E)
  --model M      a model id (e.g. gpt-4o, claude-sonnet-4-5): its encoding or calibrated estimate
  --format F     openai | openai-responses | anthropic | ai-sdk (default: detected)
  --text         count: FILE is plain text, even if it is JSON
  --window N     the context window in tokens, a positive whole number in digits (e.g. 8192);
                 default: the model's
  --summarizer S extractive (default), or a .mjs module exporting the summarize function
  --state FILE   state from an earlier compact (--save-state) to continue from
  --preset P     off | default | conservative | aggressive
  --json         machine-readable output; errors as { "error": { name, code, message } }

exit status: 0 success, 1 failure, 2 usage error.
errors: with --json, one { "error": { "name", "code", "message" } } on stdout; otherwise
"ctxfold: message (CODE)" on stderr. The library's errors keep their name and code
(CtxfoldError, TypeError or RangeError; UNKNOWN_ENCODING, INVALID_MESSAGE, ...); the
command line's own are named CliError:
${Object.entries(CLI_ERRORS)
  .map(([code, meaning]) => `  ${code.padEnd(20)}${meaning}`)
  .join("\n")}`;

/** A failure the CLI found itself: `code` is a key of CLI_ERRORS. */
class CliError extends Error {
  constructor(code, message) {
    super(message);
    if (!Object.hasOwn(CLI_ERRORS, code)) throw new TypeError(`undeclared CLI error code ${code}`);
    this.name = "CliError";
    this.code = code;
  }
}

const usageError = (message) => new CliError("USAGE", message);

/** The options each command takes (`help` takes any). */
const TAKES = {
  count: ["--model", "--encoding", "--format", "--text", "--json"],
  compact: ["--model", "--encoding", "--format", "--window", "--summarizer", "--state", "--save-state", "--preset", "--json"],
  inspect: ["--model", "--encoding", "--format", "--window", "--state", "--preset", "--json"],
};
const FLAGS = new Set(["--json", "--text"]);

function parseArgs(argv) {
  const args = { positional: [], json: false, text: false, given: [] };
  for (let i = 0; i < argv.length; i++) {
    let a = argv[i];
    // `--window=8192` is `--window 8192`.
    let inline = null;
    const eq = a.startsWith("--") ? a.indexOf("=") : -1;
    if (eq > 2) [a, inline] = [a.slice(0, eq), a.slice(eq + 1)];
    if (inline !== null && FLAGS.has(a)) throw usageError(`${a} takes no value`);
    if (a.startsWith("--")) args.given.push(a);
    const value = () => {
      if (inline !== null) {
        if (inline === "") throw usageError(`${a} needs a value`);
        return inline;
      }
      // `--model --json` is a missing value, not a model named "--json"; so is `--model ""`
      // (an empty shell variable).
      if (i + 1 >= argv.length || argv[i + 1].startsWith("--") || argv[i + 1] === "") throw usageError(`${a} needs a value`);
      return argv[++i];
    };
    if (a === "--json") args.json = true;
    else if (a === "--text") args.text = true;
    else if (a === "--model") args.model = value();
    else if (a === "--encoding") args.encoding = value();
    else if (a === "--format") args.format = value();
    else if (a === "--window") args.window = parseWindow(value());
    else if (a === "--summarizer") args.summarizer = value();
    else if (a === "--state") args.state = value();
    else if (a === "--save-state") args.saveState = value();
    else if (a === "--preset") args.preset = value();
    else if (a === "-h" || a === "--help") args.positional.unshift("help");
    else if (a.startsWith("--")) throw usageError(`unknown option ${a}`);
    else args.positional.push(a);
  }
  return args;
}

/** An option given that `command` does not take is a usage error, not ignored. */
function checkTaken(command, args) {
  const takes = TAKES[command];
  if (!takes) return;
  for (const option of args.given) {
    if (!takes.includes(option)) {
      const by = Object.keys(TAKES).filter((c) => TAKES[c].includes(option));
      throw usageError(`${command} does not take ${option}${by.length ? ` (${by.join(" and ")} do${by.length === 1 ? "es" : ""})` : ""}`);
    }
  }
}

/** The largest context window ctxfold takes (a u32). */
const MAX_WINDOW = 2 ** 32 - 1;

/** Digits only: Number() would also take "1e3", "0x10" and "", which are refused. */
function parseWindow(raw) {
  const n = Number(raw);
  if (/^[0-9]+$/.test(raw) && n > 0 && n <= MAX_WINDOW) return n;
  throw usageError(`--window needs a positive whole number of tokens up to ${MAX_WINDOW}, such as 8192; got ${JSON.stringify(raw)}`);
}

/** "ENOENT (no such file or directory)" for a failed file operation. */
function errno(err) {
  const description = getSystemErrorMap().get(err.errno)?.[1];
  return description ? `${err.code} (${description})` : err.code;
}

/** A file's text (`-`: standard input); `label` says which option named it ("--state "), if any. */
function readText(path, label = "") {
  try {
    return decode(readFileSync(path === "-" && label === "" ? 0 : path));
  } catch (err) {
    if (typeof err?.code !== "string") throw err;
    throw new CliError("READ_FAILED", `cannot read ${label}${path}: ${errno(err)}`);
  }
}

/** UTF-8, or UTF-16 with its byte-order mark (what Notepad and PowerShell's `>` write). */
function decode(bytes) {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder("utf-16le").decode(bytes.subarray(2));
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder("utf-16be").decode(bytes.subarray(2));
  return bytes.toString("utf8");
}

function writeText(path, text, label = "") {
  try {
    writeFileSync(path, text);
  } catch (err) {
    if (typeof err?.code !== "string") throw err;
    throw new CliError("WRITE_FAILED", `cannot write ${label}${path}: ${errno(err)}`);
  }
}

// Editors on Windows may start a UTF-8 file with a byte order mark, which JSON.parse refuses.
const withoutBom = (text) => (text.startsWith("\uFEFF") ? text.slice(1) : text);

/** JSON.parse, or a CliError with `code` that says where `what` stops being JSON. */
function parseJson(text, what, code) {
  const body = withoutBom(text);
  try {
    return JSON.parse(body);
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    // V8 gives the position for most errors but not for "Unexpected token" (a trailing comma,
    // plain text); its message then quotes the text around it, which is dropped here.
    const given = /at position (\d+)/.exec(err.message);
    const offset = given ? Number(given[1]) : jsonErrorOffset(body);
    const reason = err.message
      .replace(/, (?:\.\.\.)?"[\s\S]*"(?:\.\.\.)? is not valid JSON$/, "")
      .replace(/ at position \d+[\s\S]*$/, "");
    const where = offset === null ? "" : ` at ${lineColumn(body, offset)}`;
    throw new CliError(code, `${what} is not valid JSON${where}: ${reason}`);
  }
}

function lineColumn(text, offset) {
  const before = text.slice(0, offset);
  return `line ${before.split("\n").length}, column ${offset - before.lastIndexOf("\n")}`;
}

/** The offset at which `text` stops being JSON (RFC 8259), or null if it does not. */
function jsonErrorOffset(text) {
  let i = 0;
  const stop = () => {
    throw i;
  };
  const space = () => {
    while (i < text.length && " \t\n\r".includes(text[i])) i++;
  };
  const expect = (chars) => {
    for (const c of chars) {
      if (text[i] !== c) stop();
      i++;
    }
  };
  const string = () => {
    i++;
    for (;;) {
      const c = text[i];
      if (c === undefined || c < " ") stop();
      i++;
      if (c === '"') return;
      if (c !== "\\") continue;
      if (text[i] === "u") {
        i++;
        for (let k = 0; k < 4; k++, i++) if (!/[0-9a-fA-F]/.test(text[i] ?? "")) stop();
      } else if (text[i] !== undefined && '"\\/bfnrt'.includes(text[i])) i++;
      else stop();
    }
  };
  const number = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
  const value = () => {
    space();
    const open = text[i];
    if (open === "{" || open === "[") {
      const close = open === "{" ? "}" : "]";
      i++;
      space();
      if (text[i] === close) return void i++;
      for (;;) {
        if (open === "{") {
          space();
          if (text[i] !== '"') stop();
          string();
          space();
          expect(":");
        }
        value();
        space();
        if (text[i] !== ",") return expect(close);
        i++;
      }
    }
    if (open === '"') return string();
    for (const word of ["true", "false", "null"]) if (open === word[0]) return expect(word);
    number.lastIndex = i;
    if (!number.test(text)) stop();
    i = number.lastIndex;
  };
  try {
    value();
    space();
    if (i < text.length) stop();
    return null;
  } catch (offset) {
    // Anything else is nesting too deep for this stack: no position then.
    return typeof offset === "number" ? offset : null;
  }
}

/** The messages of parsed JSON in a conversation's shape, or null. */
function messagesOf(json) {
  if (Array.isArray(json)) return json;
  if (json && typeof json === "object" && Array.isArray(json.messages)) {
    // A corpus file carries id, source and probes beside the messages; an Anthropic
    // request carries system and other fields the count needs.
    const { messages, system } = json;
    return system === undefined ? messages : { system, messages };
  }
  // What `compact --json` printed for an Anthropic request: { messages: { system, messages }, ... }.
  if (json && typeof json === "object" && json.messages && typeof json.messages === "object") return messagesOf(json.messages);
  return null;
}

function jsonLinesError(path, hint = "") {
  return new CliError(
    "NOT_A_CONVERSATION",
    `${path}: JSON Lines (.jsonl) is not supported: give a JSON array of messages, or an object with a "messages" array${hint}`,
  );
}

/**
 * count's input: a conversation or plain text. A .json file must parse; another file is
 * plain text unless it parses as a conversation; --text makes any file plain text.
 */
function countInput(path, args) {
  const text = readText(path);
  if (args.text) return { kind: "text", text };
  if (/\.jsonl$/i.test(path)) throw jsonLinesError(path, ", or --text to count it as plain text");
  let json;
  if (/\.json$/i.test(path)) json = parseJson(text, path, "INVALID_JSON");
  else {
    try {
      json = JSON.parse(withoutBom(text));
    } catch {
      return { kind: "text", text };
    }
  }
  const messages = messagesOf(json);
  return messages ? { kind: "messages", messages } : { kind: "text", text };
}

const fmt = (n) => n.toLocaleString("en-US");

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

/** Options for compact and inspect from the command line. */
async function compactOptions(args) {
  const options = { model: args.model ?? "gpt-4o" };
  if (args.encoding) options.encoding = args.encoding;
  if (args.format) options.format = args.format;
  if (args.window) options.contextWindow = args.window;
  if (args.preset) options.preset = args.preset;
  if (args.state) options.state = readState(args.state);
  if (args.summarizer && args.summarizer !== "extractive") options.summarizer = await loadSummarizer(args.summarizer);
  return options;
}

/** A --state file: JSON and an object; the library checks the rest of its shape. */
function readState(path) {
  const state = parseJson(readText(path, "--state "), `--state ${path}`, "INVALID_STATE");
  if (state === null || typeof state !== "object" || Array.isArray(state)) {
    throw new CliError("INVALID_STATE", `--state ${path} is not a ctxfold state: expected an object, got ${kindOf(state)}`);
  }
  return state;
}

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

function kindOf(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return /^[aeiou]/.test(typeof value) ? `an ${typeof value}` : `a ${typeof value}`;
}

function conversationInput(path) {
  const text = readText(path);
  if (/\.jsonl$/i.test(path)) throw jsonLinesError(path);
  const messages = messagesOf(parseJson(text, path, "INVALID_JSON"));
  if (!messages) {
    throw new CliError(
      "NOT_A_CONVERSATION",
      `${path} is not a conversation: expected a JSON array of messages, or an object with a "messages" array`,
    );
  }
  return messages;
}

async function compactCommand(args) {
  const [file] = args.positional;
  if (!file) throw usageError("compact needs a FILE");
  const messages = conversationInput(file);
  const options = await compactOptions(args);
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
  if (summary) console.log(`\n${indent(summaryText(summary))}`);
}

function summaryText(m) {
  const text = typeof m?.content === "string" ? m.content : Array.isArray(m?.content) && typeof m.content[0]?.text === "string" ? m.content[0].text : null;
  return text && (text.startsWith("## Conversation Summary") || text.startsWith("[Earlier messages truncated]")) ? text : null;
}

const indent = (text) => text.split("\n").map((l) => `  ${l}`).join("\n");

async function inspectCommand(args) {
  const [file] = args.positional;
  if (!file) throw usageError("inspect needs a FILE");
  const messages = conversationInput(file);
  const options = await compactOptions(args);
  const p = ctxfold.plan(messages, options);
  if (args.json) return print(p);
  const t = p.tokens;
  const range = (list) => (list.length ? `${list[0]}..${list[list.length - 1]}` : "-");
  console.log(`${basename(file)}: ${modelLine(options)}, window ${fmt(p.budget.window)}
  budget     reserved output ${fmt(p.budget.reservedOutput)} · input ${fmt(p.budget.input)} · threshold ${fmt(p.budget.threshold)}
  tokens     ${fmt(t.total)} = head ${fmt(t.head)} + summaries ${fmt(t.summaries)} + middle ${fmt(t.middle)} + tail ${fmt(t.tail)} + framing ${fmt(t.framing)} (tool results ${fmt(t.tools)})
  trigger    ${p.trigger ? `${p.trigger} (${fmt(t.total)} > ${fmt(p.budget.threshold)})` : `none (${fmt(t.total)} <= ${fmt(p.budget.threshold)})`}
  head       ${p.headEnd > 0 ? `messages 0..${p.headEnd - 1}` : "no messages"}${Array.isArray(messages) ? "" : messages.system !== undefined ? " (the top-level system prompt)" : ""}
  evict      ${p.trigger ? `${fmt(p.evict.length)} messages (${range(p.evict)}) in ${p.summarizerCalls} summarizer call(s)` : "-"}
  tail       from message ${p.tailStart}${p.pinned !== null ? `, with user message ${p.pinned} pinned` : ""}
  prune      ${fmt(p.pruned.messages.length)} tool outputs before message ${p.pruned.boundary}${p.pruned.advanced ? " (boundary advances now)" : ""}, saving ${fmt(p.pruned.tokensSaved)} tokens${p.stateReset ? `\n  state      ignored: ${p.stateReset}` : ""}`);
}

/** The model as compact and inspect say it: one the registry does not know is said so. */
function modelLine(options) {
  const m = ctxfold.getModel(options.model);
  return m.known === false ? `${options.model} (unknown model: a ${fmt(m.contextWindow)}-token window and an estimated count; see --window)` : options.model;
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
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

async function main(argv) {
  // Known before parsing, so that a bad command line is reported as JSON too.
  const json = argv.some((a) => a === "--json" || a.startsWith("--json="));
  // With --json, stdout holds one JSON document: what a summarizer module logs goes to stderr.
  if (json) console.log = console.error;
  try {
    const args = parseArgs(argv);
    const [command] = args.positional.splice(0, 1);
    if (command === undefined) throw usageError("no command given");
    checkTaken(command, args);
    if (command !== "help" && args.positional.length > 1) {
      throw usageError(`${command} takes one FILE, got ${args.positional.length}: ${args.positional.join(" ")}`);
    }
    switch (command) {
      case "count":
        return count(args);
      case "compact":
        return await compactCommand(args);
      case "inspect":
        return await inspectCommand(args);
      case "help":
        console.log(USAGE);
        return;
      default:
        throw usageError(`unknown command ${command}`);
    }
  } catch (err) {
    report(err, json);
  }
}

/** Every failure, expected or not, as one { error } object or one stderr line; never a stack. */
function report(err, json) {
  const known = err instanceof CliError || ctxfold.isCtxfoldError(err);
  const error = known
    ? { name: err.name, code: err.code, message: err.message }
    : {
        name: typeof err?.name === "string" ? err.name : "Error",
        code: "INTERNAL",
        message: `${err instanceof Error ? err.message : String(err)} (a bug in ctxfold: please report it; CTXFOLD_DEBUG=1 prints the stack)`,
      };
  error.message = error.message.replace(/\s*\n\s*/g, " ");
  if (json) print({ error });
  else console.error(`ctxfold: ${error.message} (${error.code})${error.code === "USAGE" ? `\n\n${USAGE}` : ""}`);
  if (process.env.CTXFOLD_DEBUG) console.error(err instanceof Error ? err.stack : err);
  process.exitCode = error.code === "USAGE" ? 2 : 1;
}

await main(process.argv.slice(2));
// Done: a summarizer module's timer or open socket does not keep the command running.
process.stdout.write("", () => process.exit());
