// The README's Node quick start, beyond "it runs" (tests/js/docs.test.mjs runs every block of
// the docs): a whole turn against a double of the remote model on 127.0.0.1 (the LLM only),
// over real HTTP: the question prepared with its tool definitions, the tool call committed,
// its result prepared, the answer committed; then the same code on a long conversation, which
// compacts with the summarizer it names. The README's other blocks are run by the test their
// check line names (Chromium, workerd, the AI SDK layer).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { testsDir } from "../support/paths.mjs";
import { blocksUnder, withAssertions } from "../support/doc-blocks.mjs";
import { startModelDouble, REPLY } from "../support/model-double.mjs";

const run = promisify(execFile);
const [quickStart] = blocksUnder("README.md", "Quick start: Node");
let model;
let dir;

before(async () => {
  model = await startModelDouble();
  dir = mkdtempSync(join(testsDir, ".readme-"));
});

after(async () => {
  await model.close();
  rmSync(dir, { recursive: true, force: true });
});

async function runModule(name, code) {
  const file = join(dir, name);
  writeFileSync(file, withAssertions(code));
  const env = { ...process.env, OPENAI_BASE_URL: model.openai, OPENAI_API_KEY: "test-key" };
  return run(process.execPath, [file], { env, timeout: 60_000 });
}

test("the Node quick start makes a whole turn: a tool call committed, its result prepared, the answer", async () => {
  assert.match(quickStart, /compactor\.prepare\(/);
  assert.match(quickStart, /compactor\.commit\("chat-42", choices\[0\]\.message, usage\)/);
  const before = model.requests.length;
  const { stdout } = await runModule("node-quick-start.mjs", quickStart);
  assert.equal(stdout.trim(), REPLY);
  const calls = model.requests.slice(before);
  assert.equal(calls.length, 2, "two model calls: the question, then the tool's result");
  assert.equal(calls[0].headers.authorization, "Bearer test-key");
  assert.deepEqual(calls[0].body.messages, [{ role: "user", content: "What port does config.toml set?" }]);
  assert.equal(calls[0].body.tools[0].function.name, "read_file");
  // The second input: the question, the call the model made, and its result; the tools again.
  const second = calls[1].body.messages;
  assert.deepEqual(second.map((m) => m.role), ["user", "assistant", "tool"]);
  assert.equal(second[2].tool_call_id, second[1].tool_calls[0].id);
  assert.equal(second[2].content, "port = 8080 (config.toml)");
  assert.deepEqual(calls[1].body.tools, calls[0].body.tools);
});

test("the Node quick start compacts a long conversation with the summarizer it names, and says so", async () => {
  const history = Array.from({ length: 40 }, (_, i) => ({
    role: i % 2 ? "assistant" : "user",
    content: `turn ${i}: about the billing service retries `.repeat(60),
  }));
  const long = quickStart
    .replace('model: "gpt-4o",\n  // Who', 'model: "gpt-4o",\n  contextWindow: 8000,\n  // Who')
    .replace(
      'messages: [{ role: "user", content: "What port does config.toml set?" }],',
      `messages: [...${JSON.stringify(history)}, { role: "user", content: "What port does config.toml set?" }],`,
    )
    .replace(/^.*\/\/ \d+$/gm, "");
  assert.ok(long.includes("contextWindow: 8000") && long.includes("turn 39"), "the quick start changed: update this test");
  const before = model.requests.length;
  const { stdout } = await runModule("node-quick-start-long.mjs", long);
  assert.match(stdout, /^Compacted \(\d[\d.,k]* -> \d[\d.,k]*\)/m, stdout);
  const calls = model.requests.slice(before);
  const summaries = calls.filter((r) => r.summary);
  assert.ok(summaries.length >= 1, "the summarizer was called over HTTP");
  assert.ok(summaries.every((r) => r.body.model === "gpt-4o-mini"));
  const chats = calls.filter((r) => !r.summary);
  assert.equal(chats.length, 2);
  assert.ok(chats[0].body.messages.length < 41, `${chats[0].body.messages.length} messages: the first input was compacted`);
  assert.match(JSON.stringify(chats[0].body.messages), /Conversation Summary/);
});
