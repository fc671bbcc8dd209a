// The example as it deploys: `wrangler deploy --dry-run` bundles it, and that bundle runs in
// workerd (Miniflare) with the bindings wrangler.toml declares (the Durable Object, its SQLite
// backend from the migration, the vars), the model's URL pointed at a stand-in for the model on
// 127.0.0.1 (the repository's LLM double, tests/support/llm-server.mjs).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Miniflare } from "miniflare";
import { unstable_getMiniflareWorkerOptions } from "wrangler";
import { countMessages, plan } from "ctxfold";
import { startLlmServer, isSummaryRequest, SUMMARY } from "../../../tests/support/llm-server.mjs";
import { readConversation } from "../../../tests/support/corpus.mjs";

const here = fileURLToPath(new URL("..", import.meta.url));
const MODEL = "gpt-4o";
const WINDOW = 8192;
const BUDGET = plan([], { model: MODEL, contextWindow: WINDOW }).budget.input;
// An agent transcript (MIT, mini-swe-agent's public SWE-bench runs): 74 messages, ~40k tokens.
const CORPUS = "mini-swe-agent-gemini-3-pro__astropy__astropy-13398.json";

let llm;
let requests;
let out;
let mf;
/** What the stand-in does with the next chat request (summary requests get SUMMARY). */
let answer = () => ({ content: "ok" });
/** The order things happened in, across the client and the stand-in. */
const timeline = [];

before(async () => {
  llm = await startLlmServer();
  const scenario = llm.scenario([
    {
      chat: (body) => {
        const tokens = countMessages(body.messages, { model: MODEL }).total;
        const usage = { prompt_tokens: tokens, completion_tokens: 5, total_tokens: tokens + 5 };
        if (isSummaryRequest(body)) {
          timeline.push("summarizer request");
          return { content: SUMMARY, usage };
        }
        return { ...answer(body), usage };
      },
    },
  ]);
  requests = scenario.requests;
  out = await mkdtemp(join(tmpdir(), "ctxfold-example-worker-"));
  await promisify(execFile)(process.execPath, [join(here, "node_modules/wrangler/bin/wrangler.js"), "deploy", "--dry-run", "--outdir", out], {
    cwd: here,
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" },
    timeout: 120_000,
  });
  const { workerOptions } = unstable_getMiniflareWorkerOptions(join(here, "wrangler.toml"));
  assert.equal(workerOptions.durableObjects.CONVERSATION.className, "Conversation");
  assert.equal(workerOptions.durableObjects.CONVERSATION.useSQLite, true, "the migration gives the class the SQLite backend");
  mf = new Miniflare({
    modules: true,
    scriptPath: join(out, "index.js"),
    modulesRoot: out,
    modulesRules: [
      { type: "ESModule", include: ["**/*.js"] },
      { type: "CompiledWasm", include: ["**/*.wasm"] },
    ],
    compatibilityDate: workerOptions.compatibilityDate,
    compatibilityFlags: workerOptions.compatibilityFlags,
    durableObjects: workerOptions.durableObjects,
    // The vars as wrangler.toml has them, the model's URL and a small window for the test, and
    // the key as `wrangler secret put` would give it.
    bindings: { ...workerOptions.bindings, OPENAI_BASE_URL: scenario.openai, CONTEXT_WINDOW: String(WINDOW), OPENAI_API_KEY: "test-key" },
  });
  await mf.ready;
});

after(async () => {
  await mf?.dispose();
  await llm?.close();
  if (out) await rm(out, { recursive: true, force: true });
});

async function call(method, path, body) {
  const res = await mf.dispatchFetch(`http://example.test${path}`, {
    method,
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function ok(method, path, body) {
  const r = await call(method, path, body);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body;
}

const chatRequests = (from = 0) => requests.slice(from).filter((r) => !isSummaryRequest(r.body));
const asReply = (m) => ({ content: m.content, toolCalls: (m.tool_calls ?? []).map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments })) });

test("a long agent transcript, posted message by message: every request to the model fits the window", async () => {
  const { messages } = readConversation(CORPUS);
  const from = requests.length;
  const turns = [];
  let pending = [];
  for (const m of messages) {
    if (m.role !== "assistant") {
      pending.push(m);
      continue;
    }
    // What is new (the task, or the tool results) goes in; the stand-in answers with the
    // transcript's next assistant message.
    answer = () => asReply(m);
    turns.push(await ok("POST", "/conversations/astropy/messages", { messages: pending }));
    pending = [];
  }
  const sent = chatRequests(from);
  assert.equal(sent.length, turns.length);
  assert.ok(countMessages(messages, { model: MODEL }).total > 4 * WINDOW, "the transcript is far over the window");
  for (const [k, r] of sent.entries()) {
    const tokens = countMessages(r.body.messages, { model: MODEL }).total;
    assert.ok(tokens <= BUDGET, `request ${k}: ${tokens} tokens, over the budget of ${BUDGET}`);
    assert.equal(r.headers.authorization, "Bearer test-key");
  }
  // Each reply the worker got is the one it returned and stored.
  assert.deepEqual(turns.at(-1).message.tool_calls?.map((c) => c.id), messages.findLast((m) => m.role === "assistant").tool_calls?.map((c) => c.id));
  const compacted = turns.filter((t) => t.compaction);
  assert.ok(compacted.length >= 2, `${compacted.length} compactions`);
  // prepareAhead, kept alive by waitUntil, made summaries ahead of the turns that needed them.
  assert.ok(turns.some((t) => t.preparedAhead > 0), "no turn found its summary made ahead");
  for (const r of requests.slice(from).filter((r) => isSummaryRequest(r.body))) {
    const tokens = countMessages(r.body.messages, { model: MODEL }).total;
    assert.ok(tokens + r.body.max_tokens <= WINDOW, `a summarizer request of ${tokens} tokens (and ${r.body.max_tokens} out) is over the window`);
  }

  const conversation = await ok("GET", "/conversations/astropy");
  const posted = messages.slice(0, messages.findLastIndex((m) => m.role === "assistant") + 1);
  assert.equal(conversation.history.length, posted.length);
  assert.deepEqual(conversation.history.map((h) => h.message.role), posted.map((m) => m.role));
  assert.equal(conversation.status.usage[0].reports, turns.length);
  const records = await ok("GET", "/conversations/astropy/compactions");
  assert.equal(records.length, compacted.length);
  assert.deepEqual(records.map((r) => r.seq), compacted.map((t) => t.compaction.seq));
});

test("POST /compact compacts now, POST /undo undoes it", async () => {
  const before = await ok("GET", "/conversations/astropy/compactions");
  const { record } = await ok("POST", "/conversations/astropy/compact", { instructions: "keep the file paths" });
  assert.equal(record.seq, before.at(-1).seq + 1);
  const undone = await ok("POST", "/conversations/astropy/undo");
  assert.equal(undone.compaction, record.seq);
  const after = await ok("GET", "/conversations/astropy/compactions");
  assert.equal(after.length, before.length + 1);
  assert.equal(after.at(-1).undone, true);
});

test("20 concurrent posts to one conversation run one after another, and keep all 20", async () => {
  answer = (body) => ({ content: `reply to ${body.messages.at(-1).content}` });
  const texts = Array.from({ length: 20 }, (_, k) => `message ${k}`);
  const turns = await Promise.all(texts.map((content) => ok("POST", "/conversations/busy/messages", { content })));
  assert.deepEqual(turns.map((t) => t.message.content).sort(), texts.map((t) => `reply to ${t}`).sort());
  const { history } = await ok("GET", "/conversations/busy");
  assert.equal(history.length, 40);
  assert.deepEqual(history.filter((h) => h.message.role === "user").map((h) => h.message.content).sort(), [...texts].sort());
  // Turn by turn: each user message is followed by its own reply.
  for (let k = 0; k < 40; k += 2) {
    assert.equal(history[k].message.role, "user");
    assert.equal(history[k + 1].message.content, `reply to ${history[k].message.content}`);
  }
});

/** A streamed post: each event as it arrives, `compaction` ones also on the timeline. */
async function stream(path, body) {
  const res = await mf.dispatchFetch(`http://example.test${path}?stream=1`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type"), /^text\/event-stream/);
  const events = [];
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of res.body) {
    buffer += decoder.decode(chunk, { stream: true });
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = JSON.parse(/^data: (.*)$/m.exec(block)[1]);
      if (event === "compaction") timeline.push(`sse compaction ${data.phase}`);
      events.push({ event, data });
    }
  }
  return events;
}

test("streamed: the compaction event comes before the summarizer is asked, then the reply's pieces", async () => {
  answer = () => ({ content: "The retries are capped at two, as decided." });
  // About half the window (under prepareAhead's soft threshold, so nothing is made ahead), then
  // a message that takes the input past the budget: this turn calls the summarizer.
  const words = (n, k) => Array.from({ length: n }, (_, i) => `note ${k}.${i} about the billing service`).join("; ");
  for (let k = 0; k < 4; k++) await ok("POST", "/conversations/live/messages", { content: words(100, k) });
  const status = (await ok("GET", "/conversations/live")).status;
  assert.ok(status.estimate.tokens < 0.6 * WINDOW, `${status.estimate.tokens} tokens before the streamed turn`);
  const content = words(400, 9);
  assert.ok(status.estimate.tokens + countMessages([{ role: "user", content }], { model: MODEL }).total > BUDGET);
  timeline.length = 0;
  const events = await stream("/conversations/live/messages", { content });
  const names = events.map((e) => (e.event === "compaction" ? `compaction ${e.data.phase}` : e.event));
  assert.equal(names[0], "compaction start", names.join(", "));
  assert.ok(names.indexOf("compaction end") < names.indexOf("delta"));
  assert.equal(names.at(-1), "done");
  assert.equal(events.filter((e) => e.event === "delta").map((e) => e.data.content).join(""), "The retries are capped at two, as decided.");
  const done = events.at(-1).data;
  assert.equal(done.message.content, "The retries are capped at two, as decided.");
  assert.equal(done.compaction.trigger, events.find((e) => e.data.phase === "end").data.trigger);
  assert.equal(done.preparedAhead, 0);
  // The client heard of the compaction before the stand-in got the summarizer's request.
  assert.deepEqual(timeline.slice(0, 2), ["sse compaction start", "summarizer request"]);
  const last = chatRequests().at(-1);
  assert.ok(countMessages(last.body.messages, { model: MODEL }).total <= BUDGET);
  assert.equal(last.body.stream, true);
});

test("bad requests are 400s and unknown routes 404s", async () => {
  assert.equal((await call("POST", "/conversations/x/messages", { text: "no content field" })).status, 400);
  assert.equal((await call("GET", "/conversations/never-seen")).status, 404);
  assert.equal((await call("GET", "/nowhere")).status, 404);
  assert.equal((await call("POST", "/conversations/never-seen/undo")).status, 409);
});
