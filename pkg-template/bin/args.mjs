// The command line's grammar, declared once: the commands, the options each takes, what each
// option means and how its value is read. `help` and `COMMAND --help` print it, the parser
// follows it, and an option a command does not take is refused from the same table.
import { CLI_ERRORS, usageError } from "./input.mjs";

/** @typedef {import("../node.js").Encoding} Encoding */
/** @typedef {import("../node.js").MessageFormat} MessageFormat */
/** @typedef {import("../node.js").Preset} Preset */
/**
 * What --summarizer names.
 * @typedef {{ kind: "extractive" } | { kind: "url", url: string } | { kind: "module", path: string }} SummarizerSpec
 */
/**
 * The command line, parsed: the options by their key in OPTIONS. Values the library reads
 * (--encoding, --format, --preset) are as given: the library refuses a bad one.
 * @typedef {{
 *   positional: string[], given: string[], json: boolean, text: boolean, quiet: boolean,
 *   model?: string, encoding?: Encoding, format?: MessageFormat, window?: number,
 *   summarizer?: SummarizerSpec, summarizerModel?: string, apiKeyEnv?: string, state?: string,
 *   saveState?: string, preset?: Preset, store?: string, id?: string, until?: number,
 * }} Args
 */
/**
 * An option: its value's name (none: a flag), the key it sets in Args, how its value is read.
 * @typedef {{ value?: string, key: string, parse?: (raw: string) => unknown, about: string }} Option
 */
/**
 * A command: the options it takes (null: any), its arguments' synopsis (default FILE).
 * @typedef {{ takes: string[] | null, args?: string, about: string }} Command
 */

/** The largest context window ctxfold takes (a u32). */
const MAX_WINDOW = 2 ** 32 - 1;

/** @type {Record<string, number>} */
const SUFFIX = { "": 1, k: 1_000, m: 1_000_000 };

/**
 * A window in tokens: digits (`200000`), or a number with k (thousands) or m (millions):
 * `8k` 8,000, `128k` 128,000, `1.5m` 1,500,000. Vendors quote "128k" for 128,000 (OpenAI) and
 * for 131,072 (Llama); the decimal reading is the smaller, so a window given this way is never
 * larger than the model's (a larger one would let an input through that the server refuses).
 * Number() alone would also take "1e3", "0x10" and "", which are refused.
 * @param {string} raw
 * @returns {number}
 */
export function parseWindow(raw) {
  const m = /^([0-9]+)(?:\.([0-9]+))?([kKmM]?)$/.exec(raw);
  // A fraction only with a suffix, and only one that makes whole tokens (1.5k, not 1.2345k).
  if (m && (m[2] === undefined || m[3] !== "")) {
    const digits = m[2] ?? "";
    const scaled = BigInt(m[1] + digits) * BigInt(SUFFIX[m[3].toLowerCase()]);
    const unit = 10n ** BigInt(digits.length);
    const n = scaled / unit;
    if (scaled % unit === 0n && n > 0n && n <= BigInt(MAX_WINDOW)) return Number(n);
  }
  throw usageError(
    `--window needs a positive whole number of tokens up to ${MAX_WINDOW}, such as 8192, 8k (8,000) or 1m (1,000,000); got ${JSON.stringify(raw)}`,
  );
}

/**
 * A turn number: a positive whole number in digits.
 * @param {string} raw
 * @returns {number}
 */
function parseTurn(raw) {
  if (/^[0-9]+$/.test(raw) && Number(raw) > 0 && Number(raw) <= Number.MAX_SAFE_INTEGER) return Number(raw);
  throw usageError(`--until needs a turn number (1, 2, ...), got ${JSON.stringify(raw)}`);
}

/**
 * extractive, an http(s) URL, or a module path; anything else is a usage error.
 * @param {string} raw
 * @returns {SummarizerSpec}
 */
function parseSummarizer(raw) {
  if (raw === "extractive") return { kind: "extractive" };
  if (/^https?:\/\//i.test(raw)) {
    try {
      return { kind: "url", url: new URL(raw).href };
    } catch {
      throw usageError(`--summarizer ${JSON.stringify(raw)} is not a valid URL`);
    }
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) throw usageError(`--summarizer takes an http:// or https:// URL, got ${JSON.stringify(raw)}`);
  return { kind: "module", path: raw };
}

/** Every option: its value's name (none: a flag), where the parser puts it, and what it means. */
/** @type {Record<string, Option>} */
export const OPTIONS = {
  "--model": { value: "M", key: "model", about: "a model id (e.g. gpt-4o, claude-sonnet-4-5): its encoding or calibrated estimate, and its window" },
  "--encoding": { value: "E", key: "encoding", about: "o200k_base (default) or cl100k_base: exact counts (with --model: the model's window, counted with E)" },
  "--format": { value: "F", key: "format", about: "openai | openai-responses | anthropic | ai-sdk (default: detected)" },
  "--text": { key: "text", about: "count: FILE is plain text, even if it is JSON" },
  "--window": {
    value: "N",
    key: "window",
    parse: parseWindow,
    about:
      "the context window in tokens (default: the model's): digits (200000), or with k for thousands or m for millions: 8k is 8,000, 128k 128,000, 1.5m 1,500,000. k is 1,000, not 1,024: vendors quote 128k for both 128,000 and 131,072, and the smaller never lets through an input the model refuses; write 131072 for the other",
  },
  "--summarizer": {
    value: "S",
    key: "summarizer",
    parse: parseSummarizer,
    about:
      "who writes the summaries: extractive (default, built in, no model call); the URL of an OpenAI-compatible API (https://api.openai.com/v1, http://localhost:11434/v1 for Ollama: /chat/completions is appended), its key from $OPENAI_API_KEY or --api-key-env; or a .mjs module whose default export is async (request) => summaryText",
  },
  "--summarizer-model": { value: "M", key: "summarizerModel", about: "the model a --summarizer URL is asked for (default: --model's)" },
  "--api-key-env": {
    value: "NAME",
    key: "apiKeyEnv",
    about: "the environment variable holding a --summarizer URL's key (default OPENAI_API_KEY; when that is unset, no key is sent, as local servers want)",
  },
  "--state": { value: "FILE", key: "state", about: "state from an earlier compact (--save-state) to continue from" },
  "--save-state": { value: "FILE", key: "saveState", about: "write the state compact ends with to FILE" },
  "--preset": { value: "P", key: "preset", about: "off | default | conservative | aggressive" },
  "--store": {
    value: "DIR",
    key: "store",
    about:
      "keep the conversation in DIR (made if missing; one folder per conversation, each write atomic): a second run with the same DIR continues from what the store holds, replaying only the messages it does not",
  },
  "--id": { value: "ID", key: "id", about: "the conversation's id in the store (default: FILE's \"id\" field, else its name without .json)" },
  "--until": {
    value: "K",
    key: "until",
    parse: parseTurn,
    about: "stop after turn K: its input prepared, its reply not yet committed (a later run with --store goes on from there)",
  },
  "--quiet": { key: "quiet", about: "no progress or notices on stderr (errors still go there)" },
  "--json": { key: "json", about: 'machine-readable output on stdout; errors as { "error": { name, code, message } }' },
};

const TOKENS = ["--model", "--encoding", "--format"];

/** The commands: what each does and the options it takes (help takes any). */
/** @type {Record<string, Command>} */
export const COMMANDS = {
  count: {
    takes: [...TOKENS, "--text", "--json"],
    about:
      'Counts the tokens of FILE: plain text, or a conversation (a JSON array of messages, or an object with a "messages" array, such as a corpus file or an Anthropic request). Prints the total and a per-role breakdown. A .json FILE must parse; JSON in another shape, or a FILE that does not parse, is counted as text.',
  },
  compact: {
    takes: [...TOKENS, "--window", "--summarizer", "--summarizer-model", "--api-key-env", "--state", "--save-state", "--preset", "--json"],
    about:
      "Fits the conversation in FILE into the model's window (default gpt-4o) in one stateless call and prints what happened: tokens before and after, what was evicted, the identifiers kept, the summary.",
  },
  inspect: {
    takes: [...TOKENS, "--window", "--state", "--preset", "--json"],
    about: "The plan compaction would follow, without calling a model: token breakdown, trigger, cut points, pruning.",
  },
  replay: {
    takes: [...TOKENS, "--window", "--preset", "--summarizer", "--summarizer-model", "--api-key-env", "--store", "--id", "--until", "--quiet", "--json"],
    about:
      "Replays the conversation in FILE turn by turn through a Compactor, as a chat app drives one. A turn is a model call: before each assistant message, and once at the end; at each, the previous reply is committed and what came after it (tool results, the next user message) is prepared. On stderr: a progress bar (plain lines every 10 % when stderr is not a terminal) and a line per compaction with the turn and what it evicted. On stdout: turns, compactions and fallbacks, the tokens sent with ctxfold and without it (the whole history every turn), the largest input against the input budget (PASS: never over), identifiers kept and lost, and the time per turn.",
  },
  help: { takes: null, args: "[COMMAND]", about: "Prints this; with a COMMAND, that command's usage (so does ctxfold COMMAND --help)." },
};

/**
 * `text` broken into lines of at most `width` characters, each after `indent`.
 * @param {string} text
 * @param {string} indent
 */
function wrap(text, indent, width = 92) {
  const lines = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line !== "" && indent.length + line.length + 1 + word.length > width) {
      lines.push(indent + line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  if (line !== "") lines.push(indent + line);
  return lines.join("\n");
}

/** @param {string} name  a key of COMMANDS */
function synopsis(name) {
  const c = COMMANDS[name];
  const parts = [`ctxfold ${name}`, c.args ?? "FILE", ...(c.takes ?? []).map((o) => (OPTIONS[o].value ? `[${o} ${OPTIONS[o].value}]` : `[${o}]`))];
  const head = `  ${parts[0]} ${parts[1]}`;
  const indent = " ".repeat(head.length + 1);
  const lines = [];
  let line = head;
  for (const part of parts.slice(2)) {
    if (line.length + 1 + part.length > 92) {
      lines.push(line);
      line = indent + part;
    } else line += ` ${part}`;
  }
  lines.push(line);
  return lines.join("\n");
}

/** @param {string[]} names  keys of OPTIONS */
function optionLines(names) {
  return names
    .map((o) => {
      const left = `  ${o}${OPTIONS[o].value ? ` ${OPTIONS[o].value}` : ""}`;
      const about = wrap(OPTIONS[o].about, " ".repeat(24));
      return left.length < 23 ? `${left.padEnd(24)}${about.trimStart()}` : `${left}\n${about}`;
    })
    .join("\n");
}

const NOTES = `FILE is a path, or - for standard input. An option's value may follow it (--window 8192)
or an = (--window=8192); an option a command does not take is a usage error.`;

const EXIT = "exit status: 0 success, 1 failure, 2 usage error.";

/** `ctxfold help`: every command, every option, the error codes. */
export function usage() {
  const commands = Object.keys(COMMANDS)
    .map((name) => `${synopsis(name)}\n${wrap(COMMANDS[name].about, "      ")}`)
    .join("\n");
  const codes = Object.entries(CLI_ERRORS)
    .map(([code, meaning]) => `  ${code.padEnd(20)}${wrap(meaning, " ".repeat(22)).trimStart()}`)
    .join("\n");
  return `usage:
${commands}

${NOTES}

options:
${optionLines(Object.keys(OPTIONS))}

${EXIT}
errors: with --json, one { "error": { "name", "code", "message" } } on stdout; otherwise
"ctxfold: message (CODE)" on stderr. The library's errors keep their name and code
(CtxfoldError, TypeError or RangeError; UNKNOWN_ENCODING, INVALID_MESSAGE, STORE_ERROR, ...);
the command line's own are named CliError:
${codes}`;
}

/**
 * `ctxfold COMMAND --help`: that command and its options.
 * @param {string} name  a key of COMMANDS
 */
export function commandUsage(name) {
  const c = COMMANDS[name];
  return `usage:
${synopsis(name)}
${wrap(c.about, "      ")}

${NOTES}

options:
${optionLines(c.takes ?? [])}

${EXIT} "ctxfold help" lists the error codes.`;
}

/**
 * The line a usage error ends with: where to read the usage.
 * @param {string | undefined} command
 */
export function usagePointer(command) {
  return command !== undefined && Object.hasOwn(COMMANDS, command) && command !== "help"
    ? `run "ctxfold help" (or ctxfold ${command} --help) for usage`
    : `run "ctxfold help" for usage`;
}

/**
 * The command line as `{ positional, given, [key]: value }`; a usage error if it does not parse.
 * @param {string[]} argv
 * @returns {Args}
 */
export function parseArgs(argv) {
  /** @type {Args & Record<string, unknown>} */
  const args = { positional: [], json: false, text: false, quiet: false, given: [] };
  for (let i = 0; i < argv.length; i++) {
    let a = argv[i];
    // `--window=8192` is `--window 8192`.
    /** @type {string | null} */
    let inline = null;
    const eq = a.startsWith("--") ? a.indexOf("=") : -1;
    if (eq > 2) [a, inline] = [a.slice(0, eq), a.slice(eq + 1)];
    if (a === "-h" || a === "--help") {
      args.positional.unshift("help");
      continue;
    }
    if (!a.startsWith("--")) {
      args.positional.push(a);
      continue;
    }
    const option = Object.hasOwn(OPTIONS, a) ? OPTIONS[a] : null;
    if (!option) throw usageError(`unknown option ${a}`);
    args.given.push(a);
    if (!option.value) {
      if (inline !== null) throw usageError(`${a} takes no value`);
      args[option.key] = true;
      continue;
    }
    let raw;
    if (inline !== null) raw = inline;
    // `--model --json` is a missing value, not a model named "--json"; so is `--model ""`
    // (an empty shell variable).
    else if (i + 1 < argv.length && !argv[i + 1].startsWith("--")) raw = argv[++i];
    if (raw === undefined || raw === "") throw usageError(`${a} needs a value`);
    args[option.key] = option.parse ? option.parse(raw) : raw;
  }
  return args;
}

/**
 * An option given that `command` does not take is a usage error, not ignored.
 * @param {string} command
 * @param {Args} args
 */
export function checkTaken(command, args) {
  const takes = COMMANDS[command]?.takes;
  if (!takes) return;
  for (const option of args.given) {
    if (!takes.includes(option)) {
      const by = Object.keys(COMMANDS).filter((c) => COMMANDS[c].takes?.includes(option));
      const list = by.length > 1 ? `${by.slice(0, -1).join(", ")} and ${by.at(-1)}` : by[0];
      throw usageError(`${command} does not take ${option}${by.length ? ` (${list} do${by.length === 1 ? "es" : ""})` : ""}`);
    }
  }
}
