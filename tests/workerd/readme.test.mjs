// The docs' Workers example for the Compactor (the README's and docs/workers-durable-objects.md's,
// each block marked <!-- check: workerd tests/workerd/readme.test.mjs -->), run as written in
// workerd (Miniflare): its
// Durable Object keeps each conversation through durableObjectStore, and calls an Anthropic
// Messages API double on 127.0.0.1 (a double for the remote LLM only), which answers with
// about as many input tokens as a provider would count.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { writeFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Miniflare } from "miniflare";
import { repoRoot } from "../support/paths.mjs";
import { checkedBy, where } from "../support/doc-blocks.mjs";

const examples = checkedBy("tests/workerd/readme.test.mjs");

let llm;
const requests = [];

before(async () => {
  llm = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const parsed = JSON.parse(body);
      requests.push({ url: req.url, key: req.headers["x-api-key"], body: parsed });
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify({
          id: "msg_1",
          type: "message",
          role: "assistant",
          model: "claude-sonnet-4-5",
          content: [{ type: "text", text: `reply ${requests.length}` }],
          usage: { input_tokens: Math.ceil(JSON.stringify(parsed.messages).length / 4), output_tokens: 3, cache_read_input_tokens: 0 },
        }),
      );
    });
  });
  await new Promise((resolve) => llm.listen(0, "127.0.0.1", resolve));
});

after(() => llm?.close());

/** A docs Worker (`code`), with `edit` applied, in Miniflare. */
async function worker(code, name, edit = (c) => c) {
  const file = join(repoRoot, "tests", "workerd", `.readme-${name}.mjs`);
  // Miniflare does not resolve packages: "ctxfold" is the workerd entry wrangler would pick.
  writeFileSync(file, edit(code).replace('from "ctxfold"', 'from "../../pkg/workerd.js"'));
  const mf = new Miniflare({
    modules: true,
    scriptPath: file,
    modulesRoot: repoRoot,
    modulesRules: [
      { type: "ESModule", include: ["**/*.js", "**/*.mjs"] },
      { type: "CompiledWasm", include: ["**/*.wasm"] },
    ],
    durableObjects: { CONVERSATION: "Conversation" },
    bindings: { ANTHROPIC_BASE_URL: `http://127.0.0.1:${llm.address().port}`, ANTHROPIC_API_KEY: "test-key" },
    // Not later than the workerd build date (Miniflare 4.20260730.0).
    compatibilityDate: "2026-07-01",
  });
  await mf.ready;
  return {
    send: async (conversation, text) => {
      const res = await mf.dispatchFetch(`http://localhost/?conversation=${conversation}`, { method: "POST", body: JSON.stringify({ text }) });
      const body = await res.text();
      assert.equal(res.status, 200, body);
      return JSON.parse(body);
    },
    dispose: async () => {
      await mf.dispose();
      rmSync(file, { force: true });
    },
  };
}

for (const [i, example] of examples.entries()) {
test(`${where(example)}: the Worker keeps each conversation in its Durable Object`, async () => {
  const w = await worker(example.code, `compactor-worker-${i}`);
  try {
    requests.length = 0;
    const a1 = await w.send("a", "Hello, I am Ada.");
    const b1 = await w.send("b", "Hello, I am Bob.");
    const a2 = await w.send("a", "What is my name?");
    assert.deepEqual([a1.reply, b1.reply, a2.reply], ["reply 1", "reply 2", "reply 3"]);
    assert.equal(requests[0].key, "test-key");
    assert.equal(requests[0].url, "/v1/messages");
    // The third call's input is conversation a's history: nothing of b's.
    assert.deepEqual(requests[2].body.messages, [
      { role: "user", content: "Hello, I am Ada." },
      { role: "assistant", content: [{ type: "text", text: "reply 1" }] },
      { role: "user", content: "What is my name?" },
    ]);
    assert.equal(requests[1].body.messages.length, 1);
  } finally {
    await w.dispose();
  }
});

test(`${where(example)}: the Worker compacts a long conversation (a small window), across requests`, async () => {
  const w = await worker(example.code, `compactor-worker-long-${i}`, (code) => code.replace('model: "claude-sonnet-4-5", format', 'model: "claude-sonnet-4-5", contextWindow: 8000, format'));
  try {
    requests.length = 0;
    for (let i = 0; i < 30; i++) await w.send("long", `message ${i}: ${"about the billing service retries ".repeat(40)}`);
    const last = requests.at(-1).body.messages;
    assert.ok(last.length < 59, `${last.length} messages: the input was compacted`);
    const summary = JSON.stringify(last);
    assert.match(summary, /Conversation Summary/);
    assert.ok(requests.every((r) => Math.ceil(JSON.stringify(r.body.messages).length / 4) < 8000));
  } finally {
    await w.dispose();
  }
});
}
