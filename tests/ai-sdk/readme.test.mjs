// The docs' AI SDK examples (the README's quick start and docs/ai-sdk.md, each block marked
// <!-- check: ai-sdk tests/ai-sdk/readme.test.mjs -->) run as written, with `ai` 7 and @ai-sdk/openai (pinned in
// package.json) against an OpenAI-compatible server on 127.0.0.1 over real HTTP (the double
// for the remote LLM only). Lines `expr; // N` become assertions that `expr` equals N. Then
// the same code over a long corpus conversation at an 8k window: every request the server
// gets fits, and the summaries are asked of the same model.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { countMessages, plan } from "ctxfold";
import { toolConversations, toModelMessage } from "./lib/corpus.mjs";
import { checkedBy, where, withAssertions } from "../support/doc-blocks.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const run = promisify(execFile);
const examples = checkedBy("tests/ai-sdk/readme.test.mjs");

const SUMMARY =
  "## Conversation Summary\n- **Decisions:** None\n- **Entities:** None\n- **Facts:** The agent worked through the task.\n- **Open Items:** None";
let server;
let requests = [];
let dir;

before(async () => {
  // OpenAI's Chat Completions, as far as @ai-sdk/openai's chat model uses it. prompt_tokens
  // is counted as OpenAI counts gpt-4o's chat input (ctxfold's count, which the exactness
  // tests hold to tiktoken's).
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const request = JSON.parse(body);
      const summary = request.messages[0]?.role === "system" && request.messages[0].content.includes("## Conversation Summary");
      const promptTokens = countMessages(request.messages, { model: "gpt-4o" }).total;
      requests.push({ url: req.url, auth: req.headers.authorization, body: request, summary, promptTokens });
      const content = summary ? SUMMARY : "Paris.";
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify({
          id: `chatcmpl-${requests.length}`,
          object: "chat.completion",
          created: 0,
          model: request.model,
          choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
          usage: { prompt_tokens: promptTokens, completion_tokens: 2, total_tokens: promptTokens + 2 },
        }),
      );
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  // Modules written here resolve "ai" and "@ai-sdk/openai" through tests/ai-sdk/node_modules
  // and "ctxfold" through tests/node_modules, as a user's would.
  dir = mkdtempSync(join(here, ".readme-"));
});

after(() => {
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function runModule(name, code) {
  const file = join(dir, name);
  writeFileSync(file, code);
  const env = { ...process.env, OPENAI_BASE_URL: `http://127.0.0.1:${server.address().port}/v1`, OPENAI_API_KEY: "test-key" };
  return run(process.execPath, [file], { env, timeout: 60_000 });
}

for (const example of examples) {
const code = example.code;
test(`${where(example)}: the AI SDK example runs, and its numbers are right`, async () => {
  assert.match(code, /compactionMiddleware\(/);
  requests = [];
  await runModule("ai-sdk-quick-start.mjs", withAssertions(code));
  assert.equal(requests.length, 1);
  assert.equal(requests[0].url, "/v1/chat/completions");
  assert.equal(requests[0].auth, "Bearer test-key");
  assert.deepEqual(requests[0].body.messages, [{ role: "user", content: "What is the capital of France?" }]);
});

test(`${where(example)}: the same code over a long corpus conversation at an 8k window: every request fits`, async () => {
  // The tool-using conversation with the longest history before a user message, as a chat
  // app's model messages (ai 7 takes system prompts as `instructions`, not as messages: the
  // quick start has none).
  const upToLastUser = (c) => c.messages.slice(1, c.messages.findLastIndex((m) => m.role === "user") + 1);
  const tokens = (c) => countMessages(upToLastUser(c), { model: "gpt-4o" }).total;
  const c = toolConversations().reduce((a, b) => (tokens(b) > tokens(a) ? b : a));
  const names = new Map();
  const history = upToLastUser(c).map((m) => toModelMessage(m, names));
  const long = code
    .replace(/^.*\/\/ \d+.*$/gm, "")
    .replace('summarizer: "same-model",', 'contextWindow: 8192,\n  summarizer: "same-model",')
    .replace(/^const messages = \[.*\];$/m, () => `const messages = ${JSON.stringify(history)};`);
  assert.notEqual(long, code);
  requests = [];
  const { stdout } = await runModule(
    "ai-sdk-long.mjs",
    `${long}\nconsole.log(JSON.stringify({ text, status: middleware.status("chat-42") }));\n`,
  );
  const { text, status } = JSON.parse(stdout);
  const budget = plan([], { model: "gpt-4o", contextWindow: 8192 }).budget.input;
  const summaries = requests.filter((r) => r.summary);
  const calls = requests.filter((r) => !r.summary);
  assert.equal(text, "Paris.");
  assert.ok(countMessages(history, { model: "gpt-4o" }).total > 4 * 8192, "the history is far over the window");
  assert.equal(calls.length, 1);
  assert.ok(calls[0].promptTokens <= budget, `${calls[0].promptTokens} tokens over ${budget}`);
  assert.ok(summaries.length > 0, "the same model was asked for the summary");
  for (const s of summaries) {
    assert.equal(s.body.model, "gpt-4o");
    assert.equal(s.body.max_tokens, 512); // summaryMaxTokens: 1/16 of an 8k window, at least 512
  }
  assert.equal(status.contextStatus, "summarized");
  assert.equal(status.usage.inputTokens, calls[0].promptTokens);
  assert.equal(status.usage.estimate, status.report.tokensAfter);
});
}
