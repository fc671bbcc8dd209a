// What the command line reads, and how it fails: its own error codes (CliError), files and
// standard input as text (UTF-8 or UTF-16 with a byte-order mark), JSON with the position where
// it stops being JSON, and the conversation inside it in the shapes the commands take.
import { readFileSync, writeFileSync } from "node:fs";
import { getSystemErrorMap } from "node:util";

/**
 * The codes of the failures the CLI finds itself; the library's errors keep their own.
 * Declared once: `help` lists these lines and CliError accepts only these codes.
 */
export const CLI_ERRORS = Object.freeze({
  USAGE: "bad command line: no command, an unknown command or option, a missing or second FILE, a missing or bad value (--window, --until, --summarizer)",
  READ_FAILED: "a file cannot be read; the message names it and the errno code (ENOENT, ...)",
  WRITE_FAILED: "the --save-state file cannot be written, or the --store DIR cannot be made",
  INVALID_JSON: "FILE is not JSON (a .json FILE of count, any FILE of compact, inspect and replay)",
  NOT_A_CONVERSATION: "FILE of compact, inspect or replay is JSON but not messages or { messages } (or replay's has none); any FILE is JSON Lines (.jsonl)",
  SUMMARIZER_MODULE: "the --summarizer module is missing, fails to load, or has no default function",
  NO_API_KEY: "--api-key-env names an environment variable that is not set",
  STORE_MISMATCH: "the --store DIR holds a conversation under replay's id whose history is not the start of FILE's",
  INVALID_STATE: "the --state file is not a JSON object (from the library: not a ctxfold state)",
  INTERNAL: "a bug in ctxfold; CTXFOLD_DEBUG=1 also prints the stack",
});

/** @typedef {keyof typeof CLI_ERRORS} CliErrorCode */
/**
 * A conversation as the commands take it: messages, or `{ system, messages }`.
 * @typedef {unknown[] | { system: unknown, messages: unknown[] }} Conversation
 */
/**
 * A failed file operation's error, as Node's fs throws it.
 * @typedef {NodeJS.ErrnoException & { code: string }} FsError
 */

/** A failure the CLI found itself: `code` is a key of CLI_ERRORS. */
export class CliError extends Error {
  /**
   * @param {CliErrorCode} code
   * @param {string} message
   */
  constructor(code, message) {
    super(message);
    if (!Object.hasOwn(CLI_ERRORS, code)) throw new TypeError(`undeclared CLI error code ${code}`);
    this.name = "CliError";
    /** @type {CliErrorCode} */
    this.code = code;
  }
}

/** @param {string} message */
export const usageError = (message) => new CliError("USAGE", message);

/**
 * "ENOENT (no such file or directory)" for a failed file operation.
 * @param {FsError} err
 */
export function errno(err) {
  const description = err.errno === undefined ? undefined : getSystemErrorMap().get(err.errno)?.[1];
  return description ? `${err.code} (${description})` : err.code;
}

/**
 * A file's text (`-`: standard input); `label` says which option named it ("--state "), if any.
 * @param {string} path
 * @returns {string}
 */
export function readText(path, label = "") {
  try {
    return decode(readFileSync(path === "-" && label === "" ? 0 : path));
  } catch (/** @type {any} */ err) {
    if (typeof err?.code !== "string") throw err;
    throw new CliError("READ_FAILED", `cannot read ${label}${path}: ${errno(err)}`);
  }
}

/**
 * UTF-8, or UTF-16 with its byte-order mark (what Notepad and PowerShell's `>` write).
 * @param {Buffer} bytes
 */
function decode(bytes) {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder("utf-16le").decode(bytes.subarray(2));
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder("utf-16be").decode(bytes.subarray(2));
  return bytes.toString("utf8");
}

/**
 * @param {string} path
 * @param {string} text
 */
export function writeText(path, text, label = "") {
  try {
    writeFileSync(path, text);
  } catch (/** @type {any} */ err) {
    if (typeof err?.code !== "string") throw err;
    throw new CliError("WRITE_FAILED", `cannot write ${label}${path}: ${errno(err)}`);
  }
}

// Editors on Windows may start a UTF-8 file with a byte order mark, which JSON.parse refuses.
/** @param {string} text */
export const withoutBom = (text) => (text.startsWith("\uFEFF") ? text.slice(1) : text);

/**
 * JSON.parse, or a CliError with `code` that says where `what` stops being JSON.
 * @param {string} text
 * @param {string} what
 * @param {CliErrorCode} code
 * @returns {unknown}
 */
export function parseJson(text, what, code) {
  const body = withoutBom(text);
  try {
    return JSON.parse(body);
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    // Where it stops being JSON is found by scanning the text (engines word their messages
    // differently, and V8 gives no position for "Unexpected token"); the message, which may
    // quote the text around it (dropped here), is only shown.
    const offset = jsonErrorOffset(body);
    const reason = err.message.replace(/, (?:\.\.\.)?"[\s\S]*"(?:\.\.\.)? is not valid JSON$/, "").replace(/ at position \d+[\s\S]*$/, "");
    const where = offset === null ? "" : ` at ${lineColumn(body, offset)}`;
    throw new CliError(code, `${what} is not valid JSON${where}: ${reason}`);
  }
}

/**
 * @param {string} text
 * @param {number} offset
 */
function lineColumn(text, offset) {
  const before = text.slice(0, offset);
  return `line ${before.split("\n").length}, column ${offset - before.lastIndexOf("\n")}`;
}

/**
 * The offset at which `text` stops being JSON (RFC 8259), or null if it does not.
 * @param {string} text
 * @returns {number | null}
 */
function jsonErrorOffset(text) {
  let i = 0;
  const stop = () => {
    throw i;
  };
  const space = () => {
    while (i < text.length && " \t\n\r".includes(text[i])) i++;
  };
  /** @param {string} chars */
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

/**
 * The messages of parsed JSON in a conversation's shape, or null.
 * @param {any} json  parsed JSON
 * @returns {Conversation | null}
 */
export function messagesOf(json) {
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

/** @param {string} path */
export function jsonLinesError(path, hint = "") {
  return new CliError(
    "NOT_A_CONVERSATION",
    `${path}: JSON Lines (.jsonl) is not supported: give a JSON array of messages, or an object with a "messages" array${hint}`,
  );
}

/**
 * count's input: a conversation or plain text. A .json file must parse; another file is
 * plain text unless it parses as a conversation; --text makes any file plain text.
 * @param {string} path
 * @param {{ text: boolean }} args
 * @returns {{ kind: "text", text: string } | { kind: "messages", messages: Conversation }}
 */
export function countInput(path, args) {
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

/** @param {unknown} value */
export function kindOf(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return /^[aeiou]/.test(typeof value) ? `an ${typeof value}` : `a ${typeof value}`;
}

/**
 * compact's and inspect's input: the conversation in FILE.
 * @param {string} path
 */
export function conversationInput(path) {
  return conversationFile(path).conversation;
}

/**
 * The conversation in FILE (messages, or `{ system, messages }`), and the `id` a corpus file
 * gives it, if any.
 * @param {string} path
 * @returns {{ conversation: Conversation, id: string | null }}
 */
export function conversationFile(path) {
  const text = readText(path);
  if (/\.jsonl$/i.test(path)) throw jsonLinesError(path);
  const json = /** @type {any} */ (parseJson(text, path, "INVALID_JSON"));
  const conversation = messagesOf(json);
  if (!conversation) {
    throw new CliError("NOT_A_CONVERSATION", `${path} is not a conversation: expected a JSON array of messages, or an object with a "messages" array`);
  }
  const id = json && typeof json === "object" && typeof json.id === "string" && json.id !== "" ? json.id : null;
  return { conversation, id };
}
