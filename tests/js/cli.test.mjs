// The command line (pkg/bin/ctxfold.mjs) run as a user runs it, in a child process: every
// failure is one { error: { name, code, message } } object on stdout with --json, or one
// `ctxfold: message (CODE)` line on stderr without it, never a stack trace; usage errors exit
// 2, every other failure 1. The happy paths are checked too.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { startLlmServer } from "../support/llm-server.mjs";
import { pkgDir, repoRoot } from "../support/paths.mjs";

const execFileP = promisify(execFile);
const bin = join(pkgDir, "bin", "ctxfold.mjs");
const sample = join(repoRoot, "samples", "swe-agent-pydicom-1458.json");

let dir;
const at = (name) => join(dir, name);

const CONVERSATION = [
  { role: "system", content: "You are helpful." },
  { role: "user", content: "Hello there" },
  { role: "assistant", content: "Hi! How can I help?" },
];
const SUMMARY = `## Conversation Summary
- **Decisions:** None
- **Entities:** None
- **Facts:** The user fixed a bug.
- **Open Items:** None`;

before(() => {
  dir = mkdtempSync(join(tmpdir(), "ctxfold-cli-"));
  const files = {
    "conv.json": JSON.stringify(CONVERSATION),
    "notes.txt": "Hello, world! Just some notes.\n",
    // Truncated inside a string on line 3: the parser reports the position.
    "broken.json": '[\n  {"role": "user", "content": "hi"},\n  {"role": "assistant", "content": "hel',
    // A trailing comma: V8's message has no position, the CLI finds it (line 1, column 33).
    "trailing.json": '[{"role":"user","content":"hi"},]',
    "lines.jsonl": CONVERSATION.map((m) => JSON.stringify(m)).join("\n"),
    "settings.json": '{"model": "gpt-4o", "temperature": 0}',
    "syntax.mjs": "export default (\n",
    "no-default.mjs": "export async function summarize() { return 'x'; }\n",
    "default-number.mjs": "export default 42;\n",
    "throws.mjs": 'throw new Error("OPENAI_API_KEY is not set");\n',
    "good.mjs": `export default async () => ${JSON.stringify(SUMMARY)};\n`,
    // Breaks the CLI itself once the summarizer has loaded, as a bug would: the first
    // indented JSON.stringify (the CLI's --json output; the library never indents) or
    // Number#toLocaleString (the CLI's text output) throws, once.
    "trap.mjs": `const saved = { stringify: JSON.stringify, toLocaleString: Number.prototype.toLocaleString };
function spring() {
  JSON.stringify = saved.stringify;
  Number.prototype.toLocaleString = saved.toLocaleString;
  throw new TypeError("trap sprung");
}
JSON.stringify = function (value, replacer, space) {
  return space === undefined ? saved.stringify(value, replacer) : spring();
};
Number.prototype.toLocaleString = spring;
export default async () => "unused";
`,
    "state-text.json": "not json\n",
    "state-array.json": "[1, 2]",
    "state-null.json": "null",
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(at(name), text);
  mkdirSync(at("a-directory"));
});

after(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the CLI; resolves with its exit status and output whatever the status. */
async function cli(args, env = {}) {
  const { CTXFOLD_DEBUG, ...base } = process.env;
  try {
    const { stdout, stderr } = await execFileP(process.execPath, [bin, ...args], {
      env: { ...base, ...env },
      timeout: 60_000,
    });
    return { status: 0, stdout, stderr };
  } catch (err) {
    if (typeof err.code !== "number") throw err;
    return { status: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

function assertNoStack({ stdout, stderr }) {
  assert.doesNotMatch(stdout, /^ {4}at /m, `a stack trace on stdout:\n${stdout}`);
  assert.doesNotMatch(stderr, /^ {4}at /m, `a stack trace on stderr:\n${stderr}`);
}

/** A string in the message, or a pattern it matches. */
function assertMentions(message, parts) {
  for (const part of parts) {
    if (part instanceof RegExp) assert.match(message, part);
    else assert.ok(message.includes(part), `${JSON.stringify(message)} does not mention ${JSON.stringify(part)}`);
  }
}

/** The --json failure: exactly one { error: { name, code, message } } on stdout. */
function assertJsonError(result, { status, code, name, mentions = [] }) {
  assertNoStack(result);
  let out;
  assert.doesNotThrow(() => (out = JSON.parse(result.stdout)), `stdout is not one JSON value:\n${result.stdout}${result.stderr}`);
  assert.deepEqual(Object.keys(out), ["error"]);
  assert.deepEqual(Object.keys(out.error).sort(), ["code", "message", "name"]);
  assert.equal(out.error.code, code, out.error.message);
  assert.equal(result.status, status, out.error.message);
  if (name) assert.equal(out.error.name, name);
  else assert.equal(typeof out.error.name, "string");
  assertMentions(out.error.message, mentions);
  return out.error;
}

/** The text failure: nothing on stdout, `ctxfold: message (CODE)` first on stderr. */
function assertTextError(result, { status, code, mentions = [] }) {
  assertNoStack(result);
  assert.equal(result.status, status, result.stderr);
  assert.equal(result.stdout, "");
  const [first, ...rest] = result.stderr.split("\n");
  assert.match(first, new RegExp(`^ctxfold: .+ \\(${code}\\)$`));
  assertMentions(first, mentions);
  return rest.join("\n");
}

describe("usage errors exit 2", () => {
  test("--window must be a positive whole number, checked before the file is read", async () => {
    for (const value of ["abc", "1.5", "0", "-3", "1e3", "0x10", "12kb", "1.2345k", "0k", "5000m", "k", "8 k", "١٢"]) {
      const r = await cli(["compact", at("missing.json"), "--window", value, "--json"]);
      assertJsonError(r, { status: 2, code: "USAGE", name: "CliError", mentions: ["--window", JSON.stringify(value)] });
    }
    // An empty value (an unset shell variable) is a missing one, as `--window=` is.
    assertJsonError(await cli(["compact", at("missing.json"), "--window", "", "--json"]), { status: 2, code: "USAGE", mentions: ["--window needs a value"] });
    // count takes no window, but a bad one is still a bad command line.
    assertJsonError(await cli(["count", at("conv.json"), "--window", "abc", "--json"]), { status: 2, code: "USAGE", mentions: ["--window"] });
  });

  test("an unknown command, an unknown option, a missing FILE, an option without its value", async () => {
    assertJsonError(await cli(["frobnicate", "--json"]), { status: 2, code: "USAGE", mentions: ["frobnicate"] });
    assertJsonError(await cli(["count", at("conv.json"), "--bogus", "--json"]), { status: 2, code: "USAGE", mentions: ["--bogus"] });
    assertJsonError(await cli(["count", "--json"]), { status: 2, code: "USAGE", mentions: ["count", "FILE"] });
    assertJsonError(await cli(["compact", "--json"]), { status: 2, code: "USAGE", mentions: ["compact", "FILE"] });
    assertJsonError(await cli(["count", at("conv.json"), "--json", "--model"]), { status: 2, code: "USAGE", mentions: ["--model"] });
    // --json is found wherever it is, even when the error comes before it.
    assertJsonError(await cli(["count", at("conv.json"), "--model", "--json"]), { status: 2, code: "USAGE", mentions: ["--model"] });
    assertJsonError(await cli(["compact", at("conv.json"), "--text", "--json"]), { status: 2, code: "USAGE", mentions: ["--text"] });
    // A second FILE was ignored, and a missing one with it; no command printed the help with 0.
    assertJsonError(await cli(["count", at("conv.json"), at("missing.txt"), "--json"]), { status: 2, code: "USAGE", mentions: ["one FILE", "missing.txt"] });
    assertJsonError(await cli(["--json"]), { status: 2, code: "USAGE", mentions: ["no command"] });
  });

  test("without --json: one ctxfold: line with the code, then where the usage is, on stderr", async () => {
    const rest = assertTextError(await cli(["compact", at("conv.json"), "--window", "abc"]), {
      status: 2,
      code: "USAGE",
      mentions: ["--window", '"abc"'],
    });
    // Not the whole help: one line that says where it is, naming the command typed.
    assert.equal(rest, 'run "ctxfold help" (or ctxfold compact --help) for usage\n');
    for (const args of [["frobnicate"], [], ["--bogus"]]) {
      const r = await cli(args);
      assert.equal(assertTextError(r, { status: 2, code: "USAGE" }), 'run "ctxfold help" for usage\n', args.join(" "));
    }
    const r = await cli(["replay", at("conv.json"), "--text"]);
    assert.equal(assertTextError(r, { status: 2, code: "USAGE", mentions: ["replay does not take --text"] }), 'run "ctxfold help" (or ctxfold replay --help) for usage\n');
  });

  test("--window takes k (thousands) and m (millions), wherever a window is taken", async () => {
    const windows = { "8k": 8_000, "128k": 128_000, "128K": 128_000, "1m": 1_000_000, "1.5m": 1_500_000, "2.5k": 2_500, "200000": 200_000, "8192": 8_192 };
    for (const [value, tokens] of Object.entries(windows)) {
      const inspect = await cli(["inspect", at("conv.json"), "--window", value, "--json"]);
      assert.equal(inspect.status, 0, inspect.stdout);
      assert.equal(JSON.parse(inspect.stdout).budget.window, tokens, value);
    }
    const compact = JSON.parse((await cli(["compact", at("conv.json"), "--window=32k", "--json"])).stdout);
    assert.equal(compact.report.budget.window, 32_000);
    const replay = JSON.parse((await cli(["replay", at("conv.json"), "--window", "16k", "--json", "--quiet"])).stdout);
    assert.equal(replay.window, 16_000);
    // The help says which k it is.
    assert.match((await cli(["help"])).stdout, /8k is 8,000/);
    assert.match((await cli(["compact", "--help"])).stdout, /k is 1,000, not 1,024/);
  });
});

describe("reading files", () => {
  test("a missing FILE is READ_FAILED naming the path and ENOENT", async () => {
    for (const command of ["count", "compact", "inspect"]) {
      const r = await cli([command, at("missing.json"), "--json"]);
      assertJsonError(r, { status: 1, code: "READ_FAILED", name: "CliError", mentions: [at("missing.json"), "ENOENT"] });
    }
  });

  test("a directory as FILE is READ_FAILED with EISDIR", async () => {
    const r = await cli(["count", at("a-directory"), "--json"]);
    assertJsonError(r, { status: 1, code: "READ_FAILED", mentions: [at("a-directory"), "EISDIR"] });
  });

  test("without --json: one line on stderr, no usage", async () => {
    const rest = assertTextError(await cli(["count", at("missing.json")]), {
      status: 1,
      code: "READ_FAILED",
      mentions: [at("missing.json"), "ENOENT"],
    });
    assert.equal(rest, "");
  });
});

describe("count", () => {
  test("a truncated .json file is INVALID_JSON with the parser's position, not plain text", async () => {
    const r = await cli(["count", at("broken.json"), "--json"]);
    assertJsonError(r, { status: 1, code: "INVALID_JSON", name: "CliError", mentions: [at("broken.json"), /line 3, column \d+/] });
    assertTextError(await cli(["count", at("broken.json")]), { status: 1, code: "INVALID_JSON", mentions: [at("broken.json"), "line 3"] });
  });

  test("the position is given where V8's message has none (a trailing comma)", async () => {
    const r = await cli(["count", at("trailing.json"), "--json"]);
    const error = assertJsonError(r, { status: 1, code: "INVALID_JSON", mentions: [at("trailing.json"), "line 1, column 33", "Unexpected token ']'"] });
    assert.doesNotMatch(error.message, /is not valid JSON$/, "V8's quote of the text is dropped");
  });

  test("--text counts any file as plain text", async () => {
    for (const file of ["broken.json", "conv.json", "lines.jsonl"]) {
      const r = await cli(["count", at(file), "--text", "--json"]);
      assert.equal(r.status, 0, r.stderr);
      const out = JSON.parse(r.stdout);
      assert.equal(out.kind, "text", file);
      assert.ok(out.total > 0, file);
    }
  });

  test("a .jsonl file says JSON Lines is not supported and points to --text", async () => {
    const r = await cli(["count", at("lines.jsonl"), "--json"]);
    assertJsonError(r, { status: 1, code: "NOT_A_CONVERSATION", mentions: [at("lines.jsonl"), "JSON Lines", "--text"] });
  });

  test("happy paths: a conversation, plain text, JSON that is not a conversation", async () => {
    const conv = await cli(["count", at("conv.json"), "--json"]);
    assert.equal(conv.status, 0, conv.stderr);
    const counted = JSON.parse(conv.stdout);
    assert.equal(counted.kind, "messages");
    assert.ok(counted.total > 0);
    assert.equal(counted.messages.length, CONVERSATION.length);

    const text = await cli(["count", at("notes.txt")]);
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout, /notes\.txt: [\d,]+ tokens \(o200k_base \(exact\), plain text\)/);

    // Valid JSON in another shape is counted as its text, as before.
    const settings = JSON.parse((await cli(["count", at("settings.json"), "--json"])).stdout);
    assert.equal(settings.kind, "text");
  });

  test("errors from the library keep their name and code", async () => {
    const r = await cli(["count", at("conv.json"), "--encoding", "p50k_base", "--json"]);
    assertJsonError(r, { status: 1, code: "UNKNOWN_ENCODING", name: "CtxfoldError", mentions: ["p50k_base"] });
  });
});

describe("compact and inspect", () => {
  test("a file that is not JSON is INVALID_JSON, with its position", async () => {
    for (const command of ["compact", "inspect"]) {
      const r = await cli([command, at("notes.txt"), "--json"]);
      assertJsonError(r, { status: 1, code: "INVALID_JSON", mentions: [at("notes.txt"), "line 1, column 1"] });
    }
  });

  test("JSON that is not a conversation is NOT_A_CONVERSATION", async () => {
    for (const command of ["compact", "inspect"]) {
      const r = await cli([command, at("settings.json"), "--json"]);
      assertJsonError(r, { status: 1, code: "NOT_A_CONVERSATION", name: "CliError", mentions: [at("settings.json"), "messages"] });
    }
    const r = await cli(["compact", at("lines.jsonl"), "--json"]);
    assertJsonError(r, { status: 1, code: "NOT_A_CONVERSATION", mentions: [at("lines.jsonl"), "JSON Lines"] });
  });

  test("a --summarizer module that is missing, does not parse, throws or has no default export function", async () => {
    const cases = [
      ["missing.mjs", "Cannot find module"],
      ["syntax.mjs", "SyntaxError"],
      ["throws.mjs", "OPENAI_API_KEY is not set"],
      ["no-default.mjs", "default export"],
      ["default-number.mjs", "default export"],
    ];
    for (const [file, detail] of cases) {
      const r = await cli(["compact", at("conv.json"), "--summarizer", at(file), "--json"]);
      assertJsonError(r, { status: 1, code: "SUMMARIZER_MODULE", name: "CliError", mentions: ["--summarizer", at(file), detail] });
    }
  });

  test("a --state file that is not JSON, or not an object, is INVALID_STATE; a missing one READ_FAILED", async () => {
    const text = await cli(["compact", at("conv.json"), "--state", at("state-text.json"), "--json"]);
    assertJsonError(text, { status: 1, code: "INVALID_STATE", name: "CliError", mentions: ["--state", at("state-text.json"), "line 1, column 2"] });
    for (const file of ["state-array.json", "state-null.json"]) {
      const r = await cli(["inspect", at("conv.json"), "--state", at(file), "--json"]);
      assertJsonError(r, { status: 1, code: "INVALID_STATE", mentions: ["--state", at(file), "object"] });
    }
    const missing = await cli(["compact", at("conv.json"), "--state", at("missing-state.json"), "--json"]);
    assertJsonError(missing, { status: 1, code: "READ_FAILED", mentions: [at("missing-state.json"), "ENOENT"] });
    assertTextError(await cli(["compact", at("conv.json"), "--state", at("state-text.json")]), { status: 1, code: "INVALID_STATE" });
  });

  test("a --save-state file that cannot be written is WRITE_FAILED", async () => {
    const r = await cli(["compact", at("conv.json"), "--save-state", at("a-directory"), "--json"]);
    assertJsonError(r, { status: 1, code: "WRITE_FAILED", name: "CliError", mentions: ["--save-state", at("a-directory"), "EISDIR"] });
  });

  test("happy paths: compact --json gives the report; a summarizer module and a window are used", async () => {
    const small = await cli(["compact", at("conv.json"), "--json"]);
    assert.equal(small.status, 0, small.stderr);
    const out = JSON.parse(small.stdout);
    assert.equal(typeof out.report, "object");
    assert.equal(out.messages.length, CONVERSATION.length);

    const big = await cli(["compact", sample, "--window", "8192", "--summarizer", at("good.mjs"), "--save-state", at("state.json"), "--json"]);
    assert.equal(big.status, 0, big.stderr);
    const { report } = JSON.parse(big.stdout);
    assert.equal(report.budget.window, 8192);
    assert.ok(report.trigger, "the sample overflows 8k and is compacted");
    const next = await cli(["inspect", sample, "--window", "8192", "--state", at("state.json"), "--json"]);
    assert.equal(next.status, 0, next.stderr);
    assert.equal(JSON.parse(next.stdout).budget.window, 8192);
  });
});

describe("the command line as people type it", () => {
  test("- reads standard input, for count, compact and inspect", () => {
    const run = (args, input) => spawnSync(process.execPath, [bin, ...args], { input, encoding: "utf8", timeout: 60_000 });
    const text = run(["count", "-", "--json"], "hello world");
    assert.equal(text.status, 0, text.stderr);
    assert.equal(JSON.parse(text.stdout).kind, "text");
    assert.equal(JSON.parse(text.stdout).total, 2);
    for (const command of ["count", "compact", "inspect"]) {
      const r = run([command, "-", "--json"], JSON.stringify(CONVERSATION));
      assert.equal(r.status, 0, `${command}: ${r.stderr}${r.stdout}`);
      assert.doesNotThrow(() => JSON.parse(r.stdout), command);
    }
  });

  test("--option=value is --option value; a flag with a value is a usage error", async () => {
    const spaced = await cli(["inspect", sample, "--window", "8192", "--json"]);
    const joined = await cli(["inspect", sample, "--window=8192", "--model=gpt-4o", "--json"]);
    assert.equal(joined.status, 0, joined.stdout);
    assert.deepEqual(JSON.parse(joined.stdout), JSON.parse(spaced.stdout));
    assertJsonError(await cli(["inspect", sample, "--window=", "--json"]), { status: 2, code: "USAGE", mentions: ["--window needs a value"] });
    assertJsonError(await cli(["count", sample, "--json=yes"]), { status: 2, code: "USAGE", mentions: ["--json takes no value"] });
  });

  test("an option the command does not take is a usage error, not ignored", async () => {
    assertJsonError(await cli(["count", at("conv.json"), "--window", "8192", "--json"]), { status: 2, code: "USAGE", mentions: ["count does not take --window", "compact, inspect and replay do"] });
    assertJsonError(await cli(["inspect", at("conv.json"), "--summarizer", at("good.mjs"), "--json"]), { status: 2, code: "USAGE", mentions: ["inspect does not take --summarizer"] });
    assertJsonError(await cli(["compact", at("conv.json"), "--text", "--json"]), { status: 2, code: "USAGE", mentions: ["compact does not take --text", "(count does)"] });
  });

  test("--model with --encoding counts the model with that encoding", async () => {
    const r = await cli(["count", at("conv.json"), "--model", "claude-sonnet-4-5", "--encoding", "cl100k_base", "--json"]);
    assert.equal(r.status, 0, r.stdout);
    const plain = await cli(["count", at("conv.json"), "--encoding", "cl100k_base", "--json"]);
    assert.equal(JSON.parse(r.stdout).total, JSON.parse(plain.stdout).total);
  });

  test("found from outside at stop 23: UTF-16 files, unknown models, bounds, a noisy or lingering summarizer module, state and summary said, output read back", async () => {
    // UTF-16 with its byte-order mark, as Notepad and PowerShell write it.
    const utf16 = (text, be) => {
      const le = Buffer.from(`\ufeff${text}`, "utf16le");
      return be ? Buffer.from(le.map((_, k) => le[k ^ 1])) : le;
    };
    writeFileSync(at("hello16le.txt"), utf16("hello world"));
    writeFileSync(at("hello16be.txt"), utf16("hello world", true));
    writeFileSync(at("conv16.json"), utf16(JSON.stringify(CONVERSATION)));
    for (const f of ["hello16le.txt", "hello16be.txt"]) {
      const r = await cli(["count", at(f), "--json"]);
      assert.equal(JSON.parse(r.stdout).total, 2, f);
    }
    const conv16 = await cli(["count", at("conv16.json"), "--json"]);
    const conv8 = await cli(["count", at("conv.json"), "--json"]);
    assert.equal(JSON.parse(conv16.stdout).total, JSON.parse(conv8.stdout).total);
    // A model the registry does not know needs --window, and is said to be unknown with it.
    assertJsonError(await cli(["inspect", at("conv.json"), "--model", "gpt4o", "--json"]), { status: 1, code: "UNKNOWN_MODEL", mentions: ['"gpt-4o"', "--window"] });
    const typo = await cli(["inspect", at("conv.json"), "--model", "gpt4o", "--window", "8k"]);
    assert.match(typo.stdout, /gpt4o \(unknown model: an estimated count\), window 8,000/);
    // The largest window, and one past it: a usage error, as any bad --window.
    assert.equal((await cli(["inspect", at("conv.json"), "--window", String(2 ** 32 - 1), "--json"])).status, 0);
    assertJsonError(await cli(["inspect", at("conv.json"), "--window", String(2 ** 32), "--json"]), { status: 2, code: "USAGE", mentions: ["--window"] });
    // `--model ""` (an empty shell variable) is a missing value for every command.
    for (const command of ["count", "inspect"]) {
      assertJsonError(await cli([command, at("conv.json"), "--model", "", "--json"]), { status: 2, code: "USAGE", mentions: ["--model needs a value"] });
    }
    // A summarizer module that logs, and one that leaves a timer running.
    writeFileSync(at("noisy.mjs"), `export default async () => { console.log("calling the model"); return ${JSON.stringify(SUMMARY)}; };\n`);
    writeFileSync(at("timer.mjs"), `setInterval(() => {}, 1000);\nexport default async () => ${JSON.stringify(SUMMARY)};\n`);
    const noisy = await cli(["compact", sample, "--window", "8192", "--summarizer", at("noisy.mjs"), "--json"]);
    assert.equal(noisy.status, 0, noisy.stderr);
    assert.ok(JSON.parse(noisy.stdout).report.trigger);
    assert.match(noisy.stderr, /calling the model/);
    const lingering = await cli(["compact", sample, "--window", "8192", "--summarizer", at("timer.mjs")]);
    assert.equal(lingering.status, 0, lingering.stderr);
    // The summary it wrote is printed, and a state that does not fit is said to be ignored.
    assert.match(lingering.stdout, /## Conversation Summary/);
    const saved = await cli(["compact", sample, "--window", "8192", "--save-state", at("sample-state.json")]);
    assert.equal(saved.status, 0, saved.stderr);
    const elsewhere = await cli(["compact", at("conv.json"), "--state", at("sample-state.json")]);
    assert.match(elsewhere.stdout, /state {8}ignored: /);
    // What compact --json printed for an Anthropic request reads back as a conversation.
    const request = { system: "sys", messages: [{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }] };
    writeFileSync(at("anthropic-in.json"), JSON.stringify(request));
    writeFileSync(at("anthropic-out.json"), (await cli(["compact", at("anthropic-in.json"), "--model", "claude-sonnet-4-5", "--json"])).stdout);
    const back = await cli(["count", at("anthropic-out.json"), "--model", "claude-sonnet-4-5", "--json"]);
    assert.equal(JSON.parse(back.stdout).kind, "messages", back.stdout);
  });

  test("inspect on an Anthropic request says its head is the top-level system prompt", async () => {
    const request = { system: "sys", messages: [{ role: "user", content: "hi" }] };
    writeFileSync(at("anthropic.json"), JSON.stringify(request));
    const r = await cli(["inspect", at("anthropic.json"), "--model", "claude-sonnet-4-5"]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /head {7}no messages \(the top-level system prompt\)/);
    assert.doesNotMatch(r.stdout, /0\.\.-1/);
  });
});

describe("unexpected errors", () => {
  test("a bug in the CLI is INTERNAL, exit 1, without a stack", async () => {
    const json = await cli(["compact", at("conv.json"), "--summarizer", at("trap.mjs"), "--json"]);
    assertJsonError(json, { status: 1, code: "INTERNAL", name: "TypeError", mentions: ["trap sprung", "CTXFOLD_DEBUG"] });
    assertTextError(await cli(["compact", at("conv.json"), "--summarizer", at("trap.mjs")]), {
      status: 1,
      code: "INTERNAL",
      mentions: ["trap sprung"],
    });
  });

  test("CTXFOLD_DEBUG=1 adds the stack on stderr; stdout stays one JSON object", async () => {
    const r = await cli(["compact", at("conv.json"), "--summarizer", at("trap.mjs"), "--json"], { CTXFOLD_DEBUG: "1" });
    assert.equal(r.status, 1);
    assert.equal(JSON.parse(r.stdout).error.code, "INTERNAL");
    assert.match(r.stderr, /^ {4}at /m);
  });
});

test("help lists the error codes and the exit statuses", async () => {
  const r = await cli(["help"]);
  assert.equal(r.status, 0);
  for (const code of ["USAGE", "READ_FAILED", "WRITE_FAILED", "INVALID_JSON", "NOT_A_CONVERSATION", "SUMMARIZER_MODULE", "NO_API_KEY", "STORE_MISMATCH", "INVALID_STATE", "INTERNAL"]) {
    assert.match(r.stdout, new RegExp(`^ +${code} `, "m"), code);
  }
  assert.match(r.stdout, /exit status/i);
  assert.match(r.stdout, /--text/);
});

test("COMMAND --help and help COMMAND print that command's usage and its options only", async () => {
  for (const args of [["compact", "--help"], ["help", "compact"], ["compact", "-h"]]) {
    const r = await cli(args);
    assert.equal(r.status, 0, args.join(" "));
    assert.equal(r.stderr, "");
    assert.match(r.stdout, /^usage:\n {2}ctxfold compact FILE /);
    for (const option of ["--save-state FILE", "--summarizer S", "--api-key-env NAME", "--window N"]) assert.ok(r.stdout.includes(option), option);
    // Not another command's, nor an option compact does not take.
    assert.doesNotMatch(r.stdout, /ctxfold count|--text/);
  }
  const replay = await cli(["replay", "--help"]);
  assert.match(replay.stdout, /^usage:\n {2}ctxfold replay FILE /);
  for (const option of ["--store DIR", "--until K", "--summarizer S", "--api-key-env NAME", "--window N", "--quiet"]) assert.ok(replay.stdout.includes(option), option);
  assert.doesNotMatch(replay.stdout, /ctxfold compact|--save-state|--text/);
  const count = await cli(["count", "--help"]);
  assert.match(count.stdout, /ctxfold count FILE/);
  assert.doesNotMatch(count.stdout, /^ {2}--window|ctxfold compact|ctxfold replay/m);
  assertJsonError(await cli(["help", "frobnicate", "--json"]), { status: 2, code: "USAGE", mentions: ["frobnicate", "replay"] });
});

test("compact --summarizer URL: an OpenAI-compatible API, its key from $OPENAI_API_KEY or --api-key-env", async () => {
  const llm = await startLlmServer();
  try {
    const { openai, requests } = llm.scenario([{ reply: "ok" }]);
    const r = await cli(["compact", sample, "--window", "8k", "--summarizer", openai, "--summarizer-model", "small", "--api-key-env", "CTXFOLD_TEST_KEY", "--json"], { CTXFOLD_TEST_KEY: "sk-test" });
    assert.equal(r.status, 0, r.stdout);
    const { report } = JSON.parse(r.stdout);
    assert.equal(report.fallback, null);
    assert.ok(requests.length >= 1);
    assert.equal(requests[0].body.model, "small");
    assert.equal(requests[0].headers.authorization, "Bearer sk-test");
    assertJsonError(await cli(["compact", sample, "--summarizer", openai, "--api-key-env", "CTXFOLD_TEST_UNSET", "--json"]), { status: 1, code: "NO_API_KEY", mentions: ["CTXFOLD_TEST_UNSET"] });
    assertJsonError(await cli(["compact", sample, "--api-key-env", "CTXFOLD_TEST_KEY", "--json"]), { status: 2, code: "USAGE", mentions: ["--api-key-env goes with --summarizer URL"] });
    assertJsonError(await cli(["compact", sample, "--summarizer", "ftp://example.test/", "--json"]), { status: 2, code: "USAGE", mentions: ["http://"] });
  } finally {
    await llm.close();
  }
});
