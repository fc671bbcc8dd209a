// compactor.search: the stored history searched through the package, over a MemoryStore, as a
// chat app calls it; what it finds after compaction, after an undo and from a cold start.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Compactor, MemoryStore } from "ctxfold";
import { typed } from "../support/errors.mjs";

const filler = (i) => `Turn ${i}: the nightly build ran, the queue drained and the dashboards stayed green. `.repeat(12);

/** A conversation of `turns` turns whose second user message holds one fact, driven turn by turn. */
async function converse(compactor, id, turns) {
  for (let i = 0; i < turns; i++) {
    const text = i === 1 ? "Note for later: the staging proxy listens on port 48213 behind haproxy-edge-7." : filler(i);
    await compactor.prepare(id, [{ role: "user", content: text }]);
    await compactor.commit(id, { role: "assistant", content: `Noted, turn ${i}.` });
  }
}

test("search finds a message the summary evicted, says it is out of the input, and an undo brings it back", async () => {
  const store = new MemoryStore();
  const compactor = new Compactor({ model: "gpt-4o", contextWindow: 8192, store });
  await compactor.prepare("c", [{ role: "system", content: "You are a build assistant." }]);
  await converse(compactor, "c", 40);
  assert.ok((await compactor.records("c")).length > 0, "the conversation compacted");

  const hits = await compactor.search("c", "which port does the staging proxy listen on?");
  assert.ok(hits.length >= 1 && hits.length <= 5);
  const [best] = hits;
  assert.equal(best.role, "user");
  assert.match(best.snippet, /48213/);
  assert.equal((await compactor.history("c"))[best.index].message.content.includes("48213"), true);
  assert.equal(best.inInput, false, "evicted into the summary");
  // An identifier is matched exactly, alone.
  assert.equal((await compactor.search("c", "haproxy-edge-7", { limit: 1 }))[0].index, best.index);

  // A cold start over the same store answers the same.
  const cold = new Compactor({ model: "gpt-4o", contextWindow: 8192, store });
  assert.deepEqual(await cold.search("c", "staging proxy port"), await compactor.search("c", "staging proxy port"));

  while ((await compactor.undo("c")) !== null);
  assert.equal((await compactor.search("c", "staging proxy port", { limit: 1 }))[0].inInput, true);
});

test("search: ties go to the newest message, the limit holds, and an unknown conversation has no hits", async () => {
  const compactor = new Compactor({ model: "gpt-4o", contextWindow: 128_000 });
  for (const text of ["deploy the parser", "deploy the parser", "unrelated words"]) {
    await compactor.prepare("t", [{ role: "user", content: text }]);
    await compactor.commit("t", { role: "assistant", content: "ok" });
  }
  const hits = await compactor.search("t", "parser deploy", { limit: 2 });
  assert.deepEqual(hits.map((h) => h.index), [2, 0]);
  assert.ok(hits.every((h) => h.inInput));
  assert.deepEqual(await compactor.search("t", "nothing matches zzzq"), []);
  assert.deepEqual(await compactor.search("nobody", "parser"), []);
});

test("search: a query that is not a string or a bad limit is a typed error naming it, and the next call works", async () => {
  const compactor = new Compactor({ model: "gpt-4o", contextWindow: 128_000 });
  await compactor.prepare("e", [{ role: "user", content: "the parser" }]);
  await assert.rejects(compactor.search("e", 5), typed("TypeError", "INVALID_ARGUMENT", /query/));
  await assert.rejects(compactor.search("e", "parser", { limit: 0 }), typed("TypeError", "INVALID_ARGUMENT", /options\.limit/));
  await assert.rejects(compactor.search("e", "parser", { limit: 2.5 }), typed("TypeError", "INVALID_ARGUMENT", /options\.limit/));
  await assert.rejects(compactor.search("e", "parser", { limt: 2 }), typed("TypeError", "INVALID_ARGUMENT", /options\.limt.*known: limit/));
  assert.equal((await compactor.search("e", "parser")).length, 1);
});
