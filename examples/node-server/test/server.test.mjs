// The server as it runs (`node server.js`, a process of its own, over a database file), against a
// stand-in for the model on 127.0.0.1 (the repository's LLM double, tests/support/llm-server.mjs):
// a tool call run in the loop, a conversation compacted at an 8k window with every request
// within the budget, and a restart over the same file that keeps everything.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { countMessages, plan } from "ctxfold";
import { startLlmServer, isSummaryRequest, SUMMARY } from "../../../tests/support/llm-server.mjs";

const here = fileURLToPath(new URL("..", import.meta.url));
const MODEL = "gpt-4o";
const WINDOW = 8192;
const BUDGET = plan([], { model: MODEL, contextWindow: WINDOW }).budget.input;

let llm;
let scenario;
let dir;

/**
 * The stand-in: a user asking for a word count gets a word_count call; a tool result gets an
 * answer quoting it; anything else an echo. Summaries are SUMMARY.
 */
function reply(body) {
  const tokens = countMessages(body.messages, { model: MODEL }).total;
  const usage = { prompt_tokens: tokens, completion_tokens: 7, total_tokens: tokens + 7 };
  if (isSummaryRequest(body)) return { content: SUMMARY, usage };
  const last = body.messages.at(-1);
  if (last.role === "tool") return { content: `The text has ${last.content} words.`, usage };
  const ask = /^count the words: (.*)$/s.exec(last.content);
  if (ask) return { toolCalls: [{ id: `call_${body.messages.length}`, name: "word_count", arguments: { text: ask[1] } }], usage };
  return { content: `You said ${String(last.content).length} characters.`, usage };
}

before(async () => {
  llm = await startLlmServer();
  scenario = llm.scenario([{ chat: reply }]);
  dir = mkdtempSync(join(tmpdir(), "ctxfold-node-server-"));
});

after(async () => {
  await llm?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `node server.js` on a free port over `db`, once it says where it listens. */
async function startServer(db) {
  const child = spawn(process.execPath, [join(here, "server.js")], {
    cwd: here,
    env: { ...process.env, OPENAI_BASE_URL: scenario.openai, OPENAI_API_KEY: "test-key", MODEL, CONTEXT_WINDOW: String(WINDOW), DB_PATH: db, HOST: "127.0.0.1", PORT: "0" },
  });
  let output = "";
  child.stderr.on("data", (d) => (output += d));
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start:\n${output}`)), 30_000);
    child.stdout.on("data", (d) => {
      output += d;
      const m = /listening on (http:\/\/\S+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.on("exit", (code) => reject(new Error(`the server exited ${code}:\n${output}`)));
  });
  return {
    url,
    output: () => output,
    async call(method, path, body) {
      const res = await fetch(`${url}${path}`, { method, headers: { "content-type": "application/json" }, ...(body ? { body: JSON.stringify(body) } : {}) });
      return { status: res.status, body: await res.json() };
    },
    async ok(method, path, body) {
      const r = await this.call(method, path, body);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body;
    },
    /** SIGTERM, as a process manager stops it; resolves with its exit code. */
    stop: () => new Promise((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once("exit", resolve), child.kill("SIGTERM"))),
  };
}

test("a tool call in the loop, compactions within the budget, and a restart that keeps everything", async () => {
  const db = join(dir, "conversations.db");
  const first = await startServer(db);
  let kept;
  try {
    // The model calls word_count; the server runs it and sends the result back.
    const counted = await first.ok("POST", "/conversations/c1/messages", { content: "count the words: the quick brown fox jumps" });
    assert.equal(counted.steps, 2);
    assert.equal(counted.reply, "The text has 5 words.");
    const afterTool = scenario.requests.at(-1).body;
    assert.deepEqual(afterTool.tools.map((t) => t.function.name), ["word_count", "current_time"]);
    assert.deepEqual(afterTool.messages.slice(-2).map((m) => m.role), ["assistant", "tool"]);
    assert.equal(afterTool.messages.at(-1).content, "5");

    // Long turns until the conversation has been compacted twice.
    const note = (k) => Array.from({ length: 90 }, (_, i) => `item ${k}.${i}: the billing service retries twice`).join("; ");
    for (let k = 0; (await first.ok("GET", "/conversations/c1/compactions")).length < 2; k++) {
      assert.ok(k < 40, "no second compaction after 40 turns");
      await first.ok("POST", "/conversations/c1/messages", { content: k % 5 === 4 ? `count the words: ${note(k)}` : note(k) });
    }
    for (const r of scenario.requests.filter((r) => !isSummaryRequest(r.body))) {
      const tokens = countMessages(r.body.messages, { model: MODEL }).total;
      assert.ok(tokens <= BUDGET, `${tokens} tokens sent, over the budget of ${BUDGET}`);
      assert.equal(r.headers.authorization, "Bearer test-key");
    }
    kept = await first.ok("GET", "/conversations/c1");
    kept.records = await first.ok("GET", "/conversations/c1/compactions");
    assert.ok(kept.history.some((h) => h.message.role === "tool"));
  } finally {
    assert.equal(await first.stop(), 0, first.output());
  }

  // A new process over the same file: the same history, summaries' use and records.
  const second = await startServer(db);
  try {
    const again = await second.ok("GET", "/conversations/c1");
    assert.deepEqual(again.history, kept.history);
    assert.deepEqual(await second.ok("GET", "/conversations/c1/compactions"), kept.records);
    assert.deepEqual(again.status.estimate, kept.status.estimate);
    // And it goes on from there: the next input starts with the summary the first process made.
    const before = scenario.requests.length;
    await second.ok("POST", "/conversations/c1/messages", { content: "And what did we decide?" });
    const sent = scenario.requests.slice(before).find((r) => !isSummaryRequest(r.body)).body.messages;
    assert.match(JSON.stringify(sent), /Conversation Summary/);
    assert.equal(sent.at(-1).content, "And what did we decide?");
    const { history } = await second.ok("GET", "/conversations/c1");
    assert.equal(history.length, kept.history.length + 2);

    const undone = await second.ok("POST", "/conversations/c1/undo");
    assert.equal(undone.compaction, kept.records.at(-1).seq);
    assert.equal((await second.call("POST", "/conversations/c1/messages", { content: "" })).status, 400);
    assert.equal((await second.call("GET", "/conversations/nobody")).status, 404);
  } finally {
    assert.equal(await second.stop(), 0, second.output());
  }
});
