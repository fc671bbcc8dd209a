// The Compactor in workerd (Miniflare) with a real Durable Object: durableObjectStore over its
// ctx.storage, on the key-value and the SQLite storage backends, through the store conformance
// cases and the corpus replay suite that Node runs over MemoryStore (tests/js/compactor.test.mjs);
// then a chat whose every turn is a request with a Compactor made afresh (reading what the
// last one stored), concurrent requests on one object, and prepareAhead kept alive by the
// object's waitUntil.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { Miniflare } from "miniflare";
import { repoRoot } from "../support/paths.mjs";
import { modelCalls, usesTools } from "../support/compactor-suite.mjs";
import { readFileSync } from "node:fs";
import { conversationFiles, toolConversations } from "../support/corpus.mjs";
import { Compactor as NodeCompactor } from "ctxfold";
import { recallProbe } from "../support/recall-probe.mjs";

const backends = { kv: null, sqlite: null };

async function start(useSQLite) {
  const mf = new Miniflare({
    modules: true,
    scriptPath: fileURLToPath(new URL("./compactor-worker.mjs", import.meta.url)),
    modulesRoot: repoRoot,
    modulesRules: [
      { type: "ESModule", include: ["**/*.js", "**/*.mjs"] },
      { type: "CompiledWasm", include: ["**/*.wasm"] },
    ],
    durableObjects: { CHAT: { className: "Chat", useSQLite } },
    // Not later than the workerd build date (Miniflare 4.20260730.0).
    compatibilityDate: "2026-07-01",
  });
  await mf.ready;
  return mf;
}

before(async () => {
  backends.kv = await start(false);
  backends.sqlite = await start(true);
});

after(async () => {
  await backends.kv?.dispose();
  await backends.sqlite?.dispose();
});

async function call(mf, object, path, body) {
  const res = await mf.dispatchFetch(`http://localhost${path}?object=${encodeURIComponent(object)}`, { method: "POST", body: JSON.stringify(body ?? {}) });
  const text = await res.text();
  assert.equal(res.status, 200, text.slice(0, 2000));
  return JSON.parse(text);
}

for (const backend of ["kv", "sqlite"]) {
  describe(`durableObjectStore on ${backend === "kv" ? "key-value" : "SQLite"} storage`, () => {
    test("keeps the store contract", async () => {
      const results = await call(backends[backend], "conformance", "/conformance", {});
      assert.ok(results.length >= 10, JSON.stringify(results));
      for (const r of results) assert.ok(r.ok, `${r.name}: ${r.error}`);
    });

    test("the corpus replay suite at 16k: every input within budget, the history equal, the prefix stable between compactions", async () => {
      const conversations = toolConversations();
      const total = { turns: 0, compactions: 0, between: 0, identical: 0 };
      for (const c of conversations) {
        // One Durable Object per conversation, as the README advises.
        const r = await call(backends[backend], c.name, "/replay", { messages: c.messages, window: 16384, id: c.name });
        assert.ok(!r.error, JSON.stringify(r.error));
        assert.deepEqual(r.overBudget, [], `${c.name}: inputs over budget`);
        assert.deepEqual(r.countMismatch, [], `${c.name}: report.tokensAfter differs from countMessages`);
        assert.ok(r.historyEqual, `${c.name}: the stored history is not the conversation`);
        assert.deepEqual(r.prefix.broken, [], `${c.name}: prefix changed between compactions`);
        total.turns += r.turns;
        total.compactions += r.compactions;
        total.between += r.prefix.between;
        total.identical += r.prefix.identical;
      }
      console.log(
        `workerd, ${backend}: ${conversations.length} conversations, ${total.turns} turns, ${total.compactions} compactions; ` +
          `prefix byte-identical on ${total.identical}/${total.between} turns between compactions`,
      );
      assert.ok(total.compactions > 20);
    });
  });
}

test("a chat whose every turn is a request with a new Compactor: each reads what the last one stored", async () => {
  const mf = backends.sqlite;
  // The longest tool-using conversation: it compacts at 16k.
  const c = toolConversations().reduce((a, b) => (JSON.stringify(b.messages).length > JSON.stringify(a.messages).length ? b : a));
  let seen = 0;
  let last = null;
  let compactions = 0;
  for (const k of modelCalls(c.messages)) {
    const reply = last === null ? undefined : c.messages[last];
    if (last !== null) seen = last + 1;
    const r = await call(mf, "turns", "/turn", { id: "t", reply, messages: c.messages.slice(seen, k) });
    assert.ok(!r.error, JSON.stringify(r.error));
    assert.ok(r.tokensAfter <= r.budget);
    assert.equal(r.length, k, "the stored history is the conversation so far");
    compactions += r.record !== null;
    seen = k;
    last = k < c.messages.length ? k : null;
  }
  const read = await call(mf, "turns", "/read", { id: "t" });
  assert.deepEqual(read.history.map((e) => e.message), c.messages);
  assert.equal(read.records.length, compactions);
  assert.ok(compactions > 0, "the conversation compacted at 16k");
  assert.deepEqual(read.list, ["t"]);
});

test("concurrent requests on one object: one compaction, every message once", async () => {
  const mf = backends.kv;
  const c = toolConversations().find((x) => x.name.startsWith("swe-agent__gpt4"));
  // Under the threshold first, then 20 requests at once, each adding a message; the first
  // takes the input over the threshold (the input budget: 16384 less 1024 for the reply).
  const first = await call(mf, "concurrent", "/turn", { id: "c", messages: c.messages.slice(0, 8) });
  assert.equal(first.record, null);
  const room = 16384 - 1024 - first.tokensAfter;
  assert.ok(room > 100, `${room} tokens of room`);
  const news = Array.from({ length: 20 }, (_, i) => ({ role: "user", content: i === 0 ? "word ".repeat(room + 50) : `message ${i}` }));
  const results = await Promise.all(news.map((m) => call(mf, "concurrent", "/shared-turn", { id: "c", messages: [m] })));
  for (const r of results) assert.ok(!r.error, JSON.stringify(r.error));
  const read = await call(mf, "concurrent", "/read", { id: "c" });
  assert.equal(read.records.length, 1, "one compaction");
  const added = read.history.slice(8).map((e) => e.message.content);
  assert.deepEqual([...added].sort(), news.map((m) => m.content).sort());
  assert.deepEqual(results.map((r) => r.last.content), news.map((m) => m.content));
});

test("prepareAhead in a Durable Object: the summary is made after the commit's response (waitUntil), and the turn that compacts does not wait for it", async () => {
  const mf = backends.sqlite;
  const line = "It runs the migration first, then the rollout. ";
  let crossings = 0;
  for (let t = 0; t < 60 && crossings < 2; t++) {
    const r = await call(mf, "ahead", "/ahead-prepare", { id: "a", messages: [{ role: "user", content: `Question ${t}: what does step ${t} of deploying service-${t} do? ${"Tell me more. ".repeat(8)}` }] });
    assert.ok(!r.error, JSON.stringify(r.error));
    assert.equal(r.ahead.messages, r.inline.messages, `turn ${t}: the input differs from the inline path's`);
    if (r.inline.compacted) {
      crossings++;
      assert.ok(r.ahead.preparedAhead > 0, `turn ${t}: the crossing turn found no summary made ahead`);
      // The inline path waited for its 300 ms summarizer; this one did not.
      assert.ok(r.inline.ms >= 300, `inline ${r.inline.ms} ms`);
      assert.ok(r.ahead.ms < 150, `with prepareAhead the crossing turn took ${r.ahead.ms} ms`);
    }
    const c = await call(mf, "ahead", "/ahead-commit", { id: "a", reply: { role: "assistant", content: `Step ${t} deploys service-${t}. ${line.repeat(8)}` } });
    assert.ok(!c.error, JSON.stringify(c.error));
    // The user reads the reply: the object finishes what waitUntil keeps alive.
    await new Promise((r) => setTimeout(r, 450));
  }
  assert.equal(crossings, 2, "the chat did not compact twice");
});

test("recall in a Durable Object, from a cold start over durableObjectStore: what Node gives over MemoryStore, nothing the input holds", async () => {
  const mf = backends.sqlite;
  // The first tool transcript (in file order) with a probe whose answer Node's recall at 16k
  // brings back: what is checked here is that workerd gives the same.
  const candidates = conversationFiles()
    .map(({ path }) => JSON.parse(readFileSync(path, "utf8")))
    .filter((c) => usesTools(c.messages));
  const { conversation: c, probe, recalled: expected } = await recallProbe(NodeCompactor, { window: 16384, candidates });
  const args = { query: probe.question };
  await call(mf, "recall", "/recall", { id: "r", messages: c.messages, args });
  // Another request: another Compactor, whose first call reads the stored history.
  const { recalled, hits } = await call(mf, "recall", "/recall", { id: "r", args });
  assert.deepEqual(recalled, expected);
  const inInput = new Set(hits.filter((h) => h.inInput).map((h) => h.index));
  assert.ok(recalled.matches.length > 0 && recalled.matches.every((m) => !inInput.has(m.index)), JSON.stringify(recalled.matches.map((m) => m.index)));
  assert.ok(recalled.tokens <= 1000);
  assert.ok(recalled.text.includes(probe.answer), "the probe's answer comes back");
});
