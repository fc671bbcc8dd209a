// The README's JavaScript examples run as written. Lines of the form `expr; // N` become
// assertions that `expr` equals N. The summarizer example talks to an OpenAI-compatible
// server on 127.0.0.1 (a double for the remote LLM only), over real HTTP.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { repoRoot, testsDir } from "../support/paths.mjs";
import { startLlmServer, REPLY_MODEL } from "../support/llm-server.mjs";
import { KEY } from "../support/summarizer-cases.mjs";

const run = promisify(execFile);
const readme = readFileSync(join(repoRoot, "README.md"), "utf8");

/** The ```js blocks that follow a heading. */
function blocks(heading) {
  const at = readme.indexOf(`\n${heading}\n`);
  assert.ok(at >= 0, `README has no "${heading}" section`);
  const rest = readme.slice(at + heading.length + 2);
  const end = rest.search(/\n#{2,3} /);
  return [...rest.slice(0, end < 0 ? undefined : end).matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
}

/** `expr; // 4 (...)` -> `assert.equal(expr, 4);` */
function withAssertions(code) {
  const lines = code.split("\n").map((line) => {
    const m = line.match(/^(\s*)(.+?);\s*\/\/ (\d+)\b/);
    return m ? `${m[1]}assert.equal(${m[2]}, ${m[3]}, ${JSON.stringify(m[2])});` : line;
  });
  return `import assert from "node:assert/strict";\n${lines.join("\n")}`;
}

let server;
let requests = [];
let dir;

before(async () => {
  // An OpenAI-compatible chat completions endpoint that answers with a schema'd summary.
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const parsed = JSON.parse(body);
      requests.push({ url: req.url, auth: req.headers.authorization, body: parsed });
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({
        choices: [{ message: { role: "assistant", content: "## Conversation Summary\n- **Decisions:** None\n- **Entities:** None\n- **Facts:** The user asked about France.\n- **Open Items:** None" } }],
        // About what a provider counts: a token per four characters of the messages.
        usage: { prompt_tokens: Math.ceil(JSON.stringify(parsed.messages).length / 4), completion_tokens: 30 },
      }));
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  // Modules written here resolve "ctxfold" through tests/node_modules, as a user's would.
  dir = mkdtempSync(join(testsDir, ".readme-"));
});

after(() => {
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function runModule(name, code, env = {}) {
  const file = join(dir, name);
  writeFileSync(file, withAssertions(code));
  return run(process.execPath, [file], { env: { ...process.env, ...env }, timeout: 60_000 });
}

test("the Node quick start runs, and its numbers are right", async () => {
  const [code] = blocks("### Node");
  assert.match(code, /countTokens\("Hello, world!"/);
  await runModule("node-quick-start.mjs", code, {
    OPENAI_BASE_URL: `http://127.0.0.1:${server.address().port}/v1`,
    OPENAI_API_KEY: "test-key",
  });
});

test("the Node quick start's summarizer works against an OpenAI-compatible server", async () => {
  const [code] = blocks("### Node");
  // The same code on a conversation long enough to compact.
  const long = code.replace(
    'const history = [',
    'const history = [...Array.from({ length: 40 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `turn ${i} `.repeat(400) })), ',
  ).replace('model: "gpt-4o",\n  state,', 'model: "gpt-4o",\n  contextWindow: 16000,\n  state,');
  requests = [];
  await runModule("node-summarizer.mjs", long.replace(/^.*\/\/ \d+.*$/gm, "") + "\nif (contextStatus !== 'summarized' || report.fallback) throw new Error(JSON.stringify(report));\n", {
    OPENAI_BASE_URL: `http://127.0.0.1:${server.address().port}/v1`,
    OPENAI_API_KEY: "test-key",
  });
  assert.ok(requests.length >= 1, "the summarizer was called over HTTP");
  assert.equal(requests[0].url, "/v1/chat/completions");
  assert.equal(requests[0].auth, "Bearer test-key");
  assert.equal(requests[0].body.messages[0].role, "system");
  assert.equal(requests[0].body.max_tokens, 1000); // 1/16 of the window
});

test("the built-in summarizers' examples run against both APIs, and a 401 shows no key", async () => {
  const [openaiBlock, anthropicBlock] = blocks("### Built-in summarizers");
  assert.match(openaiBlock, /openAISummarizer\(/);
  assert.match(anthropicBlock, /anthropicSummarizer\(/);
  const llm = await startLlmServer();
  try {
    // Long enough for gpt-4o's 128k window to compact (about 140k tokens, past its input
    // budget), in one summarizer call.
    const long = Array.from({ length: 80 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `turn ${i} about the billing service retries `.repeat(220) }));
    long.push({ role: "user", content: "What did we decide?" });
    const history = `const history = ${JSON.stringify(long)};\n`;
    const openai = llm.scenario([{ reply: "ok" }]);
    const first = await runModule("builtin-openai.mjs", history + openaiBlock, { OPENAI_BASE_URL: openai.openai, OPENAI_API_KEY: KEY });
    assert.match(first.stdout, new RegExp(`^null ${REPLY_MODEL.openai} \\{ .*prompt_tokens: 1234`), first.stdout);
    assert.ok(openai.requests.length >= 1);
    assert.equal(openai.requests[0].headers.authorization, `Bearer ${KEY}`);

    const anthropic = llm.scenario([{ reply: "ok" }]);
    const env = { ANTHROPIC_BASE_URL: anthropic.anthropic, ANTHROPIC_API_KEY: KEY };
    const second = await runModule("builtin-anthropic.mjs", anthropicBlock, env);
    assert.match(second.stdout, new RegExp(`^${REPLY_MODEL.anthropic} \\{ .*input_tokens: 1234`), second.stdout);
    assert.equal(anthropic.requests[0].headers["x-api-key"], KEY);

    // The same block against a server that answers 401 and repeats the key in its body.
    const refusing = llm.scenario([{ echoKey: true }]);
    const third = await runModule("builtin-anthropic-401.mjs", anthropicBlock, { ...env, ANTHROPIC_BASE_URL: refusing.anthropic });
    assert.match(third.stderr, /^401 Anthropic API request to .* failed: HTTP 401; body: .*Incorrect API key provided: \[redacted\]/, third.stderr);
    assert.ok(!third.stderr.includes(KEY) && !third.stdout.includes(KEY), third.stderr);
  } finally {
    await llm.close();
  }
});

test("the Compactor quick start runs, and its numbers are right", async () => {
  const [code] = blocks("### Conversations that remember: `Compactor`");
  assert.match(code, /new Compactor\(/);
  requests = [];
  await runModule("compactor-quick-start.mjs", code, {
    OPENAI_BASE_URL: `http://127.0.0.1:${server.address().port}/v1`,
    OPENAI_API_KEY: "test-key",
  });
  assert.equal(requests.length, 1, "one chat call, no summary yet");
  assert.deepEqual(requests[0].body.messages, [{ role: "user", content: "What is the capital of France?" }]);
});

test("the Compactor quick start compacts a long chat with its summarizer, and says so", async () => {
  const [code] = blocks("### Conversations that remember: `Compactor`");
  // The same app with a smaller window and thirty long messages.
  const long = code
    .replace('model: "gpt-4o",\n  store', 'model: "gpt-4o",\n  contextWindow: 8000,\n  store')
    .replace(/^await send\("chat-42".*$/m, 'for (let i = 0; i < 30; i++) await send("chat-42", `message ${i}: ` + "about the billing service retries ".repeat(40));')
    .replace(/^.*\/\/ \d+.*$/gm, "");
  assert.notEqual(long, code);
  requests = [];
  const { stdout } = await runModule("compactor-long.mjs", long, {
    OPENAI_BASE_URL: `http://127.0.0.1:${server.address().port}/v1`,
    OPENAI_API_KEY: "test-key",
  });
  assert.match(stdout, /^Summarizing earlier messages\.\.\.\nCompacted \(\d+ -> \d+\)$/m, stdout);
  const summaries = requests.filter((r) => r.body.model === "gpt-4o-mini");
  assert.ok(summaries.length >= 1, "the summarizer was called over HTTP");
  assert.match(summaries[0].body.messages[0].content, /Conversation Summary/);
  const chats = requests.filter((r) => r.body.model === "gpt-4o");
  assert.equal(chats.length, 30);
  assert.ok(chats.at(-1).body.messages.length < 59, "the last call's input was compacted");
});

test("the store of the Compactor stores section keeps the store contract", async () => {
  const [code] = blocks("### Compactor stores");
  const check = `\nconst { checkStore } = await import("ctxfold/testing");\nconst results = await checkStore(() => store);\nconsole.log(JSON.stringify(results));\n`;
  const { stdout } = await runModule("compactor-store.mjs", code + check);
  const results = JSON.parse(stdout);
  assert.ok(results.length >= 10);
  for (const r of results) assert.ok(r.ok, `${r.name}: ${r.error}`);
});

test("the chat commands example runs, and its numbers are right", async () => {
  const [code] = blocks("### Chat commands, notices and prompt caching");
  assert.match(code, /applyAnthropicCacheControl/);
  const { stdout } = await runModule("commands.mjs", code);
  // The line the README shows in a comment is the one printed.
  const shown = /\/\/ (Context: .*)$/m.exec(code)[1];
  assert.equal(stdout.trim(), shown);
});

test("the lite example runs", async () => {
  const [code] = blocks("### Lite build");
  await runModule("lite.mjs", code);
});

test("the README's report paragraph and error table name every report field and every error code", async () => {
  const { compact, plan } = await import("ctxfold");
  const history = Array.from({ length: 40 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `turn ${i} `.repeat(400) }));
  const { report } = await compact(history, { model: "gpt-4o", contextWindow: 16000 });
  const paragraph = readme.slice(readme.indexOf("The report: `tokensBefore`"), readme.indexOf("## Errors"));
  for (const key of Object.keys(report)) assert.ok(paragraph.includes(`\`${key}\``), `the README's report list lacks ${key}`);
  assert.ok(Object.keys(plan(history, { model: "gpt-4o" })).length > 0);
  // The error table: every code the .d.ts declares.
  const dts = readFileSync(join(repoRoot, "pkg", "dist", "full", "ctxfold.d.ts"), "utf8");
  // The union, to its last member (each member has a doc comment, which may hold a ";").
  const union = /export type CtxfoldErrorCode =[\s\S]*?\| "[A-Z_]+";/.exec(dts)[0];
  const codes = [...union.matchAll(/"([A-Z_]+)"/g)].map((m) => m[1]);
  assert.ok(codes.length >= 13, codes.join(" "));
  const table = readme.slice(readme.indexOf("## Errors"), readme.indexOf("## Runtimes"));
  for (const code of codes) assert.ok(table.includes(`| \`${code}\` |`), `the README's error table lacks ${code}`);
});
