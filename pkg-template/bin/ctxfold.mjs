#!/usr/bin/env node
// The ctxfold command line. `ctxfold help` lists the commands.
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import * as ctxfold from "../node.js";

const USAGE = `usage:
  ctxfold count FILE [--model M | --encoding E] [--format F] [--json]
      Counts the tokens of FILE: plain text, or a conversation (a JSON array of
      messages, or an object with a "messages" array, such as a corpus file or an
      Anthropic request). Prints the total and a per-role breakdown.
  ctxfold help

options:
  --encoding E   o200k_base (default) or cl100k_base: exact counts
  --model M      a model id (e.g. gpt-4o, claude-sonnet-4-5): its encoding or calibrated estimate
  --format F     openai | openai-responses | anthropic | ai-sdk (default: detected)
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

function main(argv) {
  let args;
  try {
    args = parseArgs(argv);
    const [command] = args.positional.splice(0, 1);
    switch (command) {
      case "count":
        return count(args);
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

main(process.argv.slice(2));
