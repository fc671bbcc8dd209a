// The built package inside a Worker in workerd, through Miniflare: the default entry counts
// the cross-runtime fixture like Node, errors keep their name and code, and the lite entry
// loads its vocabularies from Data modules (see worker.mjs).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import { Miniflare } from "miniflare";
import { countMessages, plan } from "ctxfold";
import { fixture, repoRoot } from "../support/paths.mjs";

let mf;
let llm;
const llmRequests = [];

before(async () => {
  // An OpenAI-compatible chat completions endpoint on 127.0.0.1 (a double for the LLM only).
  llm = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      llmRequests.push(JSON.parse(body));
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ choices: [{ message: { role: "assistant", content: "## Conversation Summary\n- **Decisions:** None\n- **Entities:** None\n- **Facts:** The user asked about turns.\n- **Open Items:** None" } }] }));
    });
  });
  await new Promise((resolve) => llm.listen(0, "127.0.0.1", resolve));
  mf = new Miniflare({
    modules: true,
    scriptPath: fileURLToPath(new URL("./worker.mjs", import.meta.url)),
    // Module names are paths below the repository, so the worker can reach pkg/.
    modulesRoot: repoRoot,
    // As wrangler's defaults: .js files are ES modules (Miniflare's own default is CommonJS).
    modulesRules: [
      { type: "ESModule", include: ["**/*.js", "**/*.mjs"] },
      { type: "CompiledWasm", include: ["**/*.wasm"] },
      { type: "Data", include: ["**/*.ctxv"] },
    ],
    // Not later than the workerd build date (Miniflare 4.20260730.0).
    compatibilityDate: "2026-07-01",
  });
  await mf.ready;
});

after(async () => {
  await mf?.dispose();
  llm?.close();
});

async function call(path, body) {
  const res = await mf.dispatchFetch(`http://localhost${path}`, body && { method: "POST", body: JSON.stringify(body) });
  const json = await res.json();
  assert.equal(res.status, 200, JSON.stringify(json));
  return json;
}

const texts = fixture.cases.map((c) => c.text);

test("countTokens in workerd equals the fixture (Node's numbers)", async () => {
  const { has, counts } = await call("/count", { texts });
  assert.deepEqual(has, [true, true]);
  fixture.cases.forEach(({ name, expected }, i) => assert.deepEqual(counts[i], expected, name));
});

test("errors in workerd have their name and code", async () => {
  const errors = await call("/errors");
  const shape = ({ name, code, isError, guard }) => ({ name, code, isError, guard });
  assert.deepEqual(shape(errors.unknown), { name: "CtxfoldError", code: "UNKNOWN_ENCODING", isError: true, guard: true });
  assert.deepEqual(shape(errors.notString), { name: "TypeError", code: "INVALID_ARGUMENT", isError: true, guard: true });
  assert.deepEqual(shape(errors.noOptions), { name: "TypeError", code: "INVALID_ARGUMENT", isError: true, guard: true });
});

test("ctxfold/lite in workerd loads vocabularies from Data modules", async () => {
  const r = await call("/lite", { texts });
  assert.deepEqual(r.before, [false, false]);
  assert.equal(r.notLoaded?.code, "VOCABULARY_NOT_LOADED", JSON.stringify(r.notLoaded));
  assert.equal(r.notLoaded.name, "CtxfoldError");
  assert.equal(r.noSource?.name, "TypeError", JSON.stringify(r.noSource));
  assert.equal(r.noSource.code, "INVALID_ARGUMENT");
  assert.equal(r.wrongEncoding?.code, "INVALID_VOCABULARY", JSON.stringify(r.wrongEncoding));
  assert.equal(r.corrupt?.code, "INVALID_VOCABULARY", JSON.stringify(r.corrupt));
  assert.deepEqual(r.stillMissing, [false, false]);
  assert.deepEqual(r.after, [true, true]);
  fixture.cases.forEach(({ name, expected }, i) => assert.deepEqual(r.counts[i], expected, name));
});

test("compact() in workerd summarizes through an HTTP summarizer and passes state back", async () => {
  const messages = [{ role: "system", content: "You help." }];
  for (let i = 0; i < 30; i++) messages.push({ role: i % 2 ? "assistant" : "user", content: `turn ${i} `.repeat(150) });
  messages.push({ role: "user", content: "The newest question." });
  const r = await call("/compact", { messages, llm: `http://127.0.0.1:${llm.address().port}/v1` });
  assert.equal(r.first.status, "summarized");
  assert.equal(r.first.fallback, null, "the HTTP summarizer's reply was used");
  assert.ok(r.first.tokensAfter <= r.first.budget.input);
  assert.ok(llmRequests.length >= 1 && llmRequests[0].messages[0].role === "system");
  assert.equal(r.again.status, "summarized");
  assert.equal(r.again.newChunks, 0, "the next turn reuses the summary");
  // Counts in workerd (messages sent once, then extended) equal Node's.
  assert.equal(r.counted, countMessages(messages, { encoding: "o200k_base" }).total);
  assert.equal(r.countedAgain, countMessages([...messages, { role: "user", content: "And what now?" }], { encoding: "o200k_base" }).total);
});

test("ctxfold/ai-sdk in workerd: a streamed call's prompt fits, its summary goes over fetch, its usage is kept", async () => {
  llmRequests.length = 0;
  const r = await call("/ai-sdk", { llm: `http://127.0.0.1:${llm.address().port}/v1` });
  const budget = plan([], { model: "gpt-4o", contextWindow: 8192 }).budget.input;
  const tokens = countMessages(r.sent, { model: "gpt-4o", format: "ai-sdk" }).total;
  assert.ok(tokens <= budget, `${tokens} tokens over ${budget}`);
  assert.equal(r.newestKept, true);
  assert.equal(r.streamedAsIs, true);
  assert.ok(r.summaries.length > 0 && llmRequests.length === r.summaries.length, "each summary was one request to the server");
  assert.ok(r.summaries.every((s) => s.maxOutputTokens === 512 && s.signal));
  assert.equal(llmRequests[0].max_tokens, 512);
  assert.equal(r.status.contextStatus, "summarized");
  assert.equal(r.status.usage.inputTokens, 4321);
  assert.equal(r.status.usage.estimate, tokens);
});
