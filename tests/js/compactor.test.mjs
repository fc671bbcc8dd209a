// The Compactor in Node, through the package as users import it: every tool-using corpus
// conversation replayed turn by turn (MemoryStore, and a plain-JS store of the tests' own),
// 50 concurrent prepares on one conversation, two Compactors racing over one store, undo,
// events, export/import, errors, and a trap in the middle of a call.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import * as ctxfold from "ctxfold";
import { Compactor, MemoryStore, compact, countMessages } from "ctxfold";
import { pkgDir } from "../support/paths.mjs";
import { replay, modelCalls } from "../support/compactor-suite.mjs";
import { mapStore } from "./compactor-store.test.mjs";
import { toolConversations } from "../support/corpus.mjs";
import { typed } from "../support/errors.mjs";

/** A conversation of `turns` user turns, each a tool call and a large result. */
function agent(turns, tag = "a") {
  const m = [{ role: "system", content: "You are a coding agent." }];
  for (let t = 0; t < turns; t++) {
    m.push({ role: "user", content: `Task ${tag}-${t}: look at /srv/${tag}/file_${t}.py` });
    m.push({ role: "assistant", content: "", tool_calls: [{ id: `${tag}_${t}`, type: "function", function: { name: "read", arguments: `{"path":"/srv/${tag}/file_${t}.py"}` } }] });
    m.push({ role: "tool", tool_call_id: `${tag}_${t}`, content: Array.from({ length: 80 }, (_, k) => `line ${k} of file_${t}: x_${t}_${k} = ${k * t}`).join("\n") });
    m.push({ role: "assistant", content: `file_${t}.py computes x_${t}_*; done with task ${tag}-${t}.` });
  }
  return m;
}

describe("corpus replay at 16k, extractive summaries", () => {
  const conversations = toolConversations();

  for (const [label, makeStore] of [
    ["MemoryStore", () => new MemoryStore()],
    ["a plain-JS store", mapStore],
  ]) {
    test(`${label}: every input within budget, the history equal to the conversation, the prefix stable between compactions`, async () => {
      assert.ok(conversations.length >= 20, `${conversations.length} tool-using conversations`);
      const total = { turns: 0, compactions: 0, between: 0, identical: 0, followUps: 0, identicalAll: 0 };
      for (const c of conversations) {
        const r = await replay(ctxfold, { store: makeStore(), messages: c.messages, window: 16384 });
        assert.deepEqual(r.overBudget, [], `${c.name}: inputs over budget`);
        assert.deepEqual(r.countMismatch, [], `${c.name}: report.tokensAfter differs from countMessages`);
        assert.ok(r.historyEqual, `${c.name}: the stored history is not the conversation`);
        assert.deepEqual(r.prefix.broken, [], `${c.name}: prefix changed on turns that neither compacted nor pruned`);
        assert.equal(r.events.filter((e) => e === "compactionEnd").length, r.compactions, `${c.name}: one compactionEnd per record`);
        total.turns += r.turns;
        total.compactions += r.compactions;
        for (const k of ["between", "identical", "followUps", "identicalAll"]) total[k] += r.prefix[k];
      }
      const pct = (a, b) => `${((100 * a) / b).toFixed(1)} %`;
      console.log(
        `${label}: ${conversations.length} conversations, ${total.turns} turns, ${total.compactions} compactions; ` +
          `prefix up to the last cache breakpoint byte-identical on ${total.identical}/${total.between} turns between compactions (${pct(total.identical, total.between)}), ` +
          `on ${total.identicalAll}/${total.followUps} of all follow-up turns (${pct(total.identicalAll, total.followUps)})`,
      );
      assert.ok(total.compactions > 20, `${total.compactions} compactions: the replay must compact`);
      assert.equal(total.identical, total.between);
    });
  }

  test("each input equals what compact() gives a stateless caller that passes state back", async () => {
    for (const c of conversations) {
      const compactor = new Compactor({ model: "gpt-4o", contextWindow: 16384 });
      let state = null;
      let seen = 0;
      let last = null;
      for (const k of modelCalls(c.messages)) {
        if (last !== null) {
          await compactor.commit(c.name, c.messages[last]);
          seen = last + 1;
        }
        const mine = await compactor.prepare(c.name, c.messages.slice(seen, k));
        const theirs = await compact(c.messages.slice(0, k), { model: "gpt-4o", contextWindow: 16384, state });
        state = theirs.state;
        assert.equal(JSON.stringify(mine.messages), JSON.stringify(theirs.messages), `${c.name} at ${k}`);
        assert.equal(mine.report.tokensAfter, theirs.report.tokensAfter);
        seen = k;
        last = k < c.messages.length ? k : null;
      }
    }
  });
});

describe("one compaction at a time", () => {
  /**
   * A conversation under the threshold, and a user message that takes it over: the
   * conversation's turns while they stay under, then a message as long as the room left.
   */
  async function nearThreshold(compactor, id) {
    const m = agent(40);
    let n = 2;
    while (n + 4 <= m.length && !ctxfold.plan(m.slice(0, n + 4), { model: "gpt-4o", contextWindow: 16384 }).trigger) n += 4;
    await compactor.prepare(id, m.slice(0, n));
    const { estimate } = await compactor.status(id);
    assert.equal((await compactor.records(id)).length, 0);
    assert.ok(estimate.tokens <= estimate.threshold);
    const over = { role: "user", content: "word ".repeat(estimate.threshold - estimate.tokens + 20) };
    return { before: m.slice(0, n), over };
  }

  test("50 concurrent prepare calls on one conversation: exactly one compaction, no message lost", async () => {
    const store = new MemoryStore();
    let summarizing = 0;
    let most = 0;
    const compactor = new Compactor({
      model: "gpt-4o",
      contextWindow: 16384,
      store,
      summarizer: async (request) => {
        summarizing++;
        most = Math.max(most, summarizing);
        await new Promise((r) => setTimeout(r, 20));
        summarizing--;
        return `## Conversation Summary\n- **Facts:** ${request.covers.length} messages about /srv/a.`;
      },
    });
    const { before, over } = await nearThreshold(compactor, "c");
    const news = Array.from({ length: 50 }, (_, i) => (i === 0 ? over : { role: "user", content: `concurrent message ${i}` }));
    const results = await Promise.all(news.map((m) => compactor.prepare("c", [m])));
    assert.equal(results.length, 50);
    const records = await compactor.records("c");
    assert.equal(records.length, 1, "exactly one compaction");
    assert.equal(results.filter((r) => r.record !== null).length, 1);
    assert.equal(most, 1, "never two summaries at once");
    const history = (await compactor.history("c")).map((e) => e.message);
    assert.equal(history.length, before.length + 50);
    assert.deepEqual(history.slice(0, before.length), before);
    // Every message once, in the order the calls were made.
    assert.deepEqual(history.slice(before.length), news);
    // Each call's input ends with its own message, and holds every one before it.
    results.forEach((r, i) => assert.deepEqual(r.messages.at(-1), news[i]));
  });

  test("two Compactors over one store (two tabs without Web Locks): the version check keeps one compaction and every message", async () => {
    const inner = new MemoryStore();
    let stale = 0;
    let summaries = 0;
    const store = {
      ...Object.fromEntries(["load", "messages", "summaries", "records", "list", "delete"].map((m) => [m, (...a) => inner[m](...a)])),
      write: (...a) =>
        inner.write(...a).catch((e) => {
          stale += e.code === "STALE_WRITE";
          throw e;
        }),
    };
    const slow = async (request) => {
      summaries++;
      await new Promise((r) => setTimeout(r, 30));
      return `## Conversation Summary\n- **Facts:** ${request.covers.length} messages.`;
    };
    const a = new Compactor({ model: "gpt-4o", contextWindow: 16384, store, summarizer: slow });
    const b = new Compactor({ model: "gpt-4o", contextWindow: 16384, store, summarizer: slow });
    const { before, over } = await nearThreshold(a, "c");
    const calls = [];
    for (let i = 0; i < 10; i++) {
      // Both start with a message that takes the conversation over the threshold.
      const pad = i === 0 ? over.content : "";
      calls.push(a.prepare("c", [{ role: "user", content: `${pad}from a ${i}` }]));
      calls.push(b.prepare("c", [{ role: "user", content: `${pad}from b ${i}` }]));
    }
    await Promise.all(calls);
    const records = await a.records("c");
    assert.equal(records.length, 1, "one compaction: the loser of the race loaded again and found it done");
    assert.ok(stale > 0, "the two raced: some writes were refused as stale");
    assert.equal(summaries, 2, "both summarized once; only one compaction was stored");
    const history = (await b.history("c")).map((e) => e.message.content.replace(/^(word )+/, ""));
    assert.equal(history.length, before.length + 20);
    for (let i = 0; i < 10; i++) {
      assert.ok(history.includes(`from a ${i}`) && history.includes(`from b ${i}`), `message ${i}`);
      assert.ok(history.indexOf(`from a ${i}`) < (history.indexOf(`from a ${i + 1}`) === -1 ? Infinity : history.indexOf(`from a ${i + 1}`)));
    }
    assert.deepEqual(history.slice(0, before.length), before.map((x) => x.content));
    assert.equal(new Set(history.slice(before.length)).size, 20, "no message twice");
  });
});

describe("undo", () => {
  // What "restores exactly the input of the turn before the undone compaction" means, here
  // and in the docs: after undo, the state in force is the one the compacting call started
  // from, so the next prepare returns the input the turn before the compaction returned,
  // followed by every message appended since, byte for byte the input of a twin
  // conversation in which the compaction never happened. (A threshold compaction undone
  // is redone by the next prepare if the input still passes the threshold: then, with the
  // deterministic extractive summary, the same input as the compacting turn gave.)
  test("after a manual compaction: the next input is the twin's, the previous turn's input plus what came since", async () => {
    const m = agent(6);
    const a = new Compactor({ model: "gpt-4o", bufferTurns: 1 });
    const twin = new Compactor({ model: "gpt-4o", bufferTurns: 1 });
    const first = await a.prepare("c", m.slice(0, 16));
    await twin.prepare("c", m.slice(0, 16));
    const compacted = await a.compact("c", { instructions: "keep the file names" });
    assert.ok(compacted.record, "the manual compaction summarized something");
    assert.equal(compacted.contextStatus, "summarized");
    assert.ok(compacted.messages.length < first.messages.length);
    assert.equal((await a.status("c")).lastCompaction.undone, false);
    const undone = await a.undo("c");
    assert.deepEqual(undone, { compaction: 0, chunks: 0, boundary: null });
    assert.equal(await a.undo("c"), null, "a compaction is undone once");
    const last = (await a.status("c")).lastCompaction;
    assert.deepEqual([last.seq, last.undone], [0, true], "status says the latest compaction was undone");
    const next = m.slice(16, 20);
    const mine = await a.prepare("c", next);
    const theirs = await twin.prepare("c", next);
    assert.equal(JSON.stringify(mine.messages), JSON.stringify(theirs.messages));
    assert.equal(JSON.stringify(mine.messages), JSON.stringify([...first.messages, ...next]));
    assert.equal(mine.contextStatus, "full");
    const records = await a.records("c");
    assert.equal(records.length, 1);
    assert.equal(records[0].undone, true);
    assert.equal(records[0].instructions, "keep the file names");
    assert.equal((await a.summaries("c")).length, 1, "the undone summary stays in the store");
    assert.ok((await a.history("c")).every((e) => e.summarizedBy === null), "nothing summarized by an undone compaction");
  });

  test("after a threshold compaction: the state before it comes back, and the next prepare redoes it", async () => {
    const m = agent(40);
    const a = new Compactor({ model: "gpt-4o", contextWindow: 16384 });
    let before = null;
    let compacting = null;
    let seen = 0;
    for (let k = 1; k <= m.length && compacting === null; k++) {
      if (m[k]?.role !== "user" && k !== m.length) continue;
      const r = await a.prepare("c", m.slice(seen, k));
      seen = k;
      if (r.record) compacting = r;
      else before = r;
    }
    assert.ok(compacting && before);
    const status = await a.status("c");
    assert.equal(status.canUndo, true);
    await a.undo("c");
    const after = await a.status("c");
    assert.equal(after.canUndo, false);
    assert.equal(after.plan.tokens.total, compacting.report.tokensBefore, "the input as it stood before the compaction");
    assert.equal(after.plan.trigger, "threshold");
    const redo = await a.prepare("c", []);
    assert.equal(JSON.stringify(redo.messages), JSON.stringify(compacting.messages));
    assert.equal((await a.records("c")).map((r) => r.undone).join(), "true,false");
  });
});

describe("events", () => {
  test("compactionStart before the summarizer, then fallback, then compactionEnd with the record", async () => {
    const order = [];
    const compactor = new Compactor({
      model: "gpt-4o",
      contextWindow: 8192,
      summarizer: async () => {
        order.push("summarizer");
        throw new Error("the model is down");
      },
      on: { compactionStart: (e) => order.push(["compactionStart", e]) },
    });
    compactor.on("fallback", (e) => order.push(["fallback", e]));
    compactor.on("compactionEnd", (e) => order.push(["compactionEnd", e]));
    const stop = compactor.on("pruned", (e) => order.push(["pruned", e]));
    const r = await compactor.prepare("c", agent(12));
    const names = order.map((o) => (Array.isArray(o) ? o[0] : o));
    assert.ok(r.record, "compacted");
    assert.equal(names[0], "compactionStart");
    assert.equal(names[1], "summarizer");
    assert.deepEqual(names.slice(-2), ["fallback", "compactionEnd"]);
    const start = order[0][1];
    assert.equal(start.conversationId, "c");
    assert.equal(start.plan.trigger, "threshold");
    const end = order.at(-1)[1];
    assert.deepEqual(end.record, r.record);
    assert.deepEqual(end.record, { ...(await compactor.records("c"))[0] });
    assert.match(order.at(-2)[1].fallback.reason, /the model is down/);
    assert.equal(order.at(-2)[1].record.fallback.kind, "extractive");
    if (r.report.pruned.advanced) assert.ok(names.includes("pruned"));
    stop();
    compactor.off("fallback", () => {});
    assert.throws(() => compactor.on("compacted", () => {}), typed("TypeError", "INVALID_ARGUMENT", /compactionStart/));
    assert.throws(() => compactor.on("pruned", "no"), typed("TypeError", "INVALID_ARGUMENT"));
  });

  test("pruned fires when the prune boundary moves; a throwing handler does not fail the call", async () => {
    const seen = [];
    const errors = [];
    const original = globalThis.reportError;
    globalThis.reportError = (e) => errors.push(e);
    try {
      // pruneRatio: a small conversation in a 128k window is under pressure only this low.
      const compactor = new Compactor({ model: "gpt-4o", contextWindow: 128000, toolOutputMaxBytes: 256, pruneThresholdTokens: 500, pruneRatio: 0.01 });
      compactor.on("pruned", (e) => {
        seen.push(e);
        throw new Error("a handler's bug");
      });
      const r = await compactor.prepare("c", agent(6));
      assert.equal(r.report.pruned.advanced, true);
      assert.equal(seen.length, 1);
      assert.deepEqual(seen[0].pruned, r.report.pruned);
      assert.equal(errors.length, 1);
    } finally {
      globalThis.reportError = original;
    }
  });
});

describe("the rest of the API", () => {
  test("status, usage anchoring, export and import, delete, list", async () => {
    const store = new MemoryStore();
    const compactor = new Compactor({ model: "gpt-4o", contextWindow: 16384, store });
    const m = agent(12);
    const r = await compactor.prepare("c", m.slice(0, 20));
    const committed = await compactor.commit("c", { role: "assistant", content: "ok" }, { prompt_tokens: Math.round(r.report.tokensAfter * 1.05) });
    assert.equal(committed.length, 21);
    assert.ok(Math.abs(committed.anchor.ratio - 1.05) < 0.001);
    const next = await compactor.prepare("c", [{ role: "user", content: "more" }]);
    assert.equal(next.estimate.ratio, committed.anchor.ratio);
    const status = await compactor.status("c");
    assert.equal(status.length, 22);
    assert.equal(status.usage[0].model, "gpt-4o");
    assert.equal(status.usage[0].reports, 1);
    assert.equal(status.plan.tokens.total, next.report.tokensAfter);
    assert.equal(await compactor.status("nobody"), null);

    const data = await compactor.export("c");
    assert.equal(data.kind, "ctxfold.conversation");
    assert.deepEqual(data.messages, [...m.slice(0, 20), { role: "assistant", content: "ok" }, { role: "user", content: "more" }]);
    const copy = JSON.parse(JSON.stringify(data));
    assert.equal(await compactor.import(copy, { id: "d" }), "d");
    await assert.rejects(compactor.import(copy, { id: "d" }), typed("CtxfoldError", "CONVERSATION_EXISTS"));
    assert.equal(await compactor.import(copy, { id: "d", overwrite: true }), "d");
    const [pc, pd] = [await compactor.prepare("c", [{ role: "user", content: "x" }]), await compactor.prepare("d", [{ role: "user", content: "x" }])];
    assert.equal(JSON.stringify(pc.messages), JSON.stringify(pd.messages));
    assert.deepEqual((await compactor.list()).sort(), ["c", "d"]);
    await compactor.delete("d");
    assert.deepEqual(await compactor.list(), ["c"]);
    assert.deepEqual(await compactor.history("d"), []);
    await assert.rejects(compactor.export("d"), typed("CtxfoldError", "UNKNOWN_CONVERSATION"));
    await assert.rejects(compactor.import({ kind: "x" }), typed("TypeError", "INVALID_ARGUMENT", /data/));
    // A conversation made again after a delete starts over (no cache of the old one).
    await compactor.delete("c");
    const fresh = await compactor.prepare("c", [{ role: "user", content: "new start" }]);
    assert.deepEqual(fresh.messages, [{ role: "user", content: "new start" }]);
  });

  test("maxCachedConversations: the conversations used last stay parsed; the others read their history again, and give the same inputs", async () => {
    const inner = new MemoryStore();
    const reads = [];
    const store = {
      ...Object.fromEntries(["load", "write", "summaries", "records", "list", "delete"].map((m) => [m, (...a) => inner[m](...a)])),
      messages: (id, from) => {
        reads.push([id, from]);
        return inner.messages(id, from);
      },
    };
    const small = new Compactor({ model: "gpt-4o", contextWindow: 8192, store, maxCachedConversations: 1 });
    const large = new Compactor({ model: "gpt-4o", contextWindow: 8192 });
    const [a, b] = [agent(8, "a"), agent(8, "b")];
    for (let k = 0; k < a.length; k += 4) {
      for (const [id, m] of [["a", a], ["b", b]]) {
        const x = await small.prepare(id, m.slice(k, k + 4));
        const y = await large.prepare(id, m.slice(k, k + 4));
        assert.equal(JSON.stringify(x.messages), JSON.stringify(y.messages), `${id} at ${k}`);
      }
    }
    // Each call found the other conversation's history cached, not its own: read from 0.
    assert.ok(reads.length >= 2 * (a.length / 4) - 2, JSON.stringify(reads));
    assert.ok(reads.every(([, from]) => from === 0));
    assert.throws(() => new Compactor({ model: "gpt-4o", maxCachedConversations: 0 }), typed("RangeError", "OUT_OF_RANGE"));
  });

  test("Anthropic: { system, messages } in, the system kept and returned", async () => {
    const compactor = new Compactor({ model: "claude-sonnet-4-5" });
    const r = await compactor.prepare("c", { system: "Be brief.", messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }] });
    assert.equal(r.system, "Be brief.");
    // Anthropic's input_tokens leaves out what was read from its cache: the two are summed.
    const read = Math.floor(r.report.tokensAfter / 2);
    await compactor.commit("c", { role: "assistant", content: [{ type: "text", text: "hello" }] }, { input_tokens: r.report.tokensAfter - read, cache_read_input_tokens: read, output_tokens: 2 });
    const s = await compactor.status("c");
    assert.equal(s.format, "anthropic");
    assert.equal(s.usage[0].reported, r.report.tokensAfter);
    const again = await compactor.prepare("c", [{ role: "user", content: "and?" }]);
    assert.equal(again.system, "Be brief.");
    assert.equal(again.messages.length, 3);
  });

  test("tools: { tools, messages } in, kept, counted as compact() counts them, and returned", async () => {
    const tools = Array.from({ length: 40 }, (_, k) => ({ type: "function", function: { name: `tool_${k}`, description: `Tool ${k} reads the file it is given.`, parameters: { type: "object", properties: { path: { type: "string" } } } } }));
    const compactor = new Compactor({ model: "gpt-4o", contextWindow: 32000 });
    const hi = [{ role: "system", content: "You are a coding agent." }, { role: "user", content: "hi" }];
    const r = await compactor.prepare("t", { tools, messages: hi });
    assert.deepEqual(r.tools, tools);
    // The same count compact() gives the same request.
    const stateless = await compact({ messages: hi, tools }, { model: "gpt-4o", contextWindow: 32000 });
    assert.equal(r.report.tokensAfter, stateless.report.tokensAfter);
    const bare = await compact(hi, { model: "gpt-4o", contextWindow: 32000 });
    assert.ok(r.report.tokensAfter > bare.report.tokensAfter + 500, `${r.report.tokensAfter} against ${bare.report.tokensAfter}`);
    // Kept without being passed again, in the export, and through a fresh Compactor on the store.
    const again = await compactor.prepare("t", [{ role: "user", content: "and?" }]);
    assert.deepEqual(again.tools, tools);
    assert.deepEqual((await compactor.export("t")).meta.tools, tools);
    const cold = await new Compactor({ model: "gpt-4o", contextWindow: 32000, store: compactor.store }).prepare("t", []);
    assert.equal(cold.report.tokensAfter, again.report.tokensAfter);
    // null removes them.
    const none = await compactor.prepare("t", { tools: null, messages: [] });
    assert.equal(none.tools, undefined);
    assert.ok(none.report.tokensAfter < again.report.tokensAfter - 500);
    await assert.rejects(compactor.prepare("t", { tools: { name: "x" }, messages: [] }), typed("TypeError", "INVALID_ARGUMENT", /newMessages\.tools: expected an array of tool definitions/));
    await assert.rejects(compactor.prepare("t", { tool: [], messages: [] }), typed("TypeError", "INVALID_ARGUMENT", /newMessages\.tool: expected an array of messages, or \{ messages, system\?, tools\? \}/));
    assert.equal((await compactor.history("t")).length, 3);
  });

  test("bad arguments are typed errors, and change nothing", async () => {
    assert.throws(() => new Compactor({ model: "gpt-4o", state: null }), typed("TypeError", "INVALID_ARGUMENT", /options\.state/));
    assert.throws(() => new Compactor({ model: "gpt-4o", manual: true }), typed("TypeError", "INVALID_ARGUMENT", /options\.manual/));
    assert.throws(() => new Compactor({ model: "gpt-4o", thresholdRatio: 2 }), typed("RangeError", "OUT_OF_RANGE"));
    assert.throws(() => new Compactor({ model: "gpt-4o", store: {} }), typed("TypeError", "INVALID_ARGUMENT", /options\.store\.load/));
    assert.throws(() => new Compactor({ model: "gpt-4o", writeRetries: -1 }), typed("RangeError", "OUT_OF_RANGE"));
    // A value of the wrong kind is a TypeError, as in compact()'s options; a number out of range a RangeError.
    for (const [key, value] of [["writeRetries", "3"], ["maxCachedConversations", "10"], ["storeTimeoutMs", null], ["writeRetries", true]]) {
      assert.throws(() => new Compactor({ model: "gpt-4o", [key]: value }), typed("TypeError", "INVALID_ARGUMENT", new RegExp(`options\\.${key}: expected an integer from`)));
    }
    assert.throws(() => new Compactor({ model: "gpt-4o", storeTimeoutMs: 1.5 }), typed("RangeError", "OUT_OF_RANGE", /options\.storeTimeoutMs/));
    // An unknown option lists the Compactor's own, not the ones it refuses.
    assert.throws(() => new Compactor({ model: "gpt-4o", stor: {} }), (e) => {
      const known = e.message.match(/known: ([^)]*)\)/)[1].split(", ");
      return e.code === "INVALID_ARGUMENT" && known.includes("store") && known.includes("writeRetries") && !known.includes("stateKey") && !known.includes("manual");
    });
    assert.throws(() => new Compactor({ model: "gpt-4o", on: { compactionEnd: 5 } }), typed("TypeError", "INVALID_ARGUMENT", /options\.on\.compactionEnd: expected a function, got number/));
    assert.throws(() => new Compactor({ model: "gpt-4o", on: { bogus: () => {} } }), typed("TypeError", "INVALID_ARGUMENT", /options\.on\.bogus: expected no such event/));
    assert.throws(() => new Compactor({ model: "gpt-4o", on: [] }), typed("TypeError", "INVALID_ARGUMENT", /options\.on/));
    for (const storage of [null, undefined, "storage"]) {
      assert.throws(() => ctxfold.durableObjectStore(storage), typed("TypeError", "INVALID_ARGUMENT", /argument storage: expected a Durable Object's ctx\.storage/));
    }
    assert.throws(() => ctxfold.durableObjectStore({}), typed("TypeError", "INVALID_ARGUMENT", /storage\.get: expected a function/));
    const storage = { get() {}, list() {}, transaction() {} };
    assert.throws(() => ctxfold.durableObjectStore(storage, { prefx: "a" }), typed("TypeError", "INVALID_ARGUMENT", /options\.prefx: expected no such option \(known: prefix\)/));
    const compactor = new Compactor({ model: "gpt-4o" });
    await assert.rejects(compactor.prepare("", []), typed("TypeError", "INVALID_ARGUMENT", /conversationId/));
    await assert.rejects(compactor.prepare("c", "hello"), typed("TypeError", "INVALID_ARGUMENT", /newMessages/));
    await compactor.prepare("c", [{ role: "user", content: "hi" }]);
    await assert.rejects(
      compactor.prepare("c", [{ role: "user", content: "ok" }, { role: "tool", tool_call_id: "x", content: "orphan" }]),
      typed("CtxfoldError", "INVALID_MESSAGE", /newMessages\[1\]/),
    );
    await assert.rejects(compactor.commit("c", { role: "assistant", content: "a" }, { prompt_tokens: "5" }), typed("TypeError", "INVALID_ARGUMENT", /usage/));
    await assert.rejects(compactor.compact("nobody"), typed("CtxfoldError", "UNKNOWN_CONVERSATION"));
    await assert.rejects(compactor.compact("c", { instructions: 5 }), typed("TypeError", "INVALID_ARGUMENT", /instructions/));
    assert.deepEqual((await compactor.history("c")).map((e) => e.message.content), ["hi"]);
    const ok = await compactor.prepare("c", [{ role: "user", content: "next" }]);
    assert.equal(ok.messages.length, 2);
  });

  test("a store that fails: STORE_ERROR with the store's error as cause; STALE_WRITE after the retries", async () => {
    const inner = new MemoryStore();
    const broken = Object.create(inner);
    for (const m of ["load", "messages", "write", "summaries", "records", "list", "delete"]) broken[m] = (...a) => inner[m](...a);
    broken.write = async () => {
      throw new Error("disk full");
    };
    const a = new Compactor({ model: "gpt-4o", store: broken });
    await assert.rejects(a.prepare("c", [{ role: "user", content: "hi" }]), (e) => {
      typed("CtxfoldError", "STORE_ERROR", /store\.write\("c"\) failed: Error: disk full/)(e);
      assert.equal(e.cause.message, "disk full");
      return true;
    });
    let writes = 0;
    broken.write = async (id, expect) => {
      writes++;
      throw ctxfold.staleWriteError(id, expect, expect + 1);
    };
    const b = new Compactor({ model: "gpt-4o", store: broken, writeRetries: 2 });
    await assert.rejects(b.prepare("c", [{ role: "user", content: "hi" }]), typed("CtxfoldError", "STALE_WRITE", /gave up after 3 attempts/));
    assert.equal(writes, 3);
    assert.deepEqual(await inner.list(), [], "nothing written");
  });

  test("a store that gives no answer: STORE_ERROR at storeTimeoutMs, and the conversation's next call goes on (a write that lands late is caught as stale)", async () => {
    const inner = new MemoryStore();
    const store = Object.create(inner);
    for (const m of ["load", "messages", "write", "summaries", "records", "list", "delete"]) store[m] = (...a) => inner[m](...a);
    const compactor = new Compactor({ model: "gpt-4o", store, storeTimeoutMs: 100 });
    await compactor.prepare("c", [{ role: "user", content: "one" }]);
    await compactor.commit("c", [{ role: "assistant", content: "two" }]);

    // A load that never answers (a fresh Compactor has to load): the call fails at the deadline.
    const never = () => new Promise(() => {});
    store.load = never;
    store.list = never;
    const fresh = new Compactor({ model: "gpt-4o", store, storeTimeoutMs: 100 });
    let t = performance.now();
    await assert.rejects(fresh.prepare("c", [{ role: "user", content: "three" }]), typed("CtxfoldError", "STORE_ERROR", /store\.load\("c"\) failed: no answer within 100 ms \(options\.storeTimeoutMs\)/));
    assert.ok(performance.now() - t < 5_000);
    await assert.rejects(fresh.list(), typed("CtxfoldError", "STORE_ERROR", /no answer within 100 ms/));
    // Its lock was released: the next call on the conversation runs, once the store answers.
    store.load = (...a) => inner.load(...a);
    const next = await fresh.prepare("c", [{ role: "user", content: "three" }]);
    assert.deepEqual(next.messages.map((m) => m.content), ["one", "two", "three"]);

    // A write held back past its deadline, which then lands: the call failed, and the next
    // call's write (from the version before) is refused as stale, loads again and goes on.
    let release;
    store.write = (...a) =>
      new Promise((resolve, reject) => {
        release = () => inner.write(...a).then(resolve, reject);
      });
    t = performance.now();
    await assert.rejects(fresh.commit("c", [{ role: "assistant", content: "four" }]), typed("CtxfoldError", "STORE_ERROR", /store\.write\("c"\) failed: no answer within 100 ms/));
    assert.ok(performance.now() - t < 5_000);
    store.write = (...a) => inner.write(...a);
    await release();
    assert.deepEqual((await inner.messages("c", 0)).map((m) => m.content), ["one", "two", "three", "four"], "the late write landed");
    const after = await fresh.prepare("c", [{ role: "user", content: "five" }]);
    assert.deepEqual(after.messages.map((m) => m.content), ["one", "two", "three", "four", "five"]);
    assert.deepEqual((await fresh.history("c")).map((e) => e.message.content), ["one", "two", "three", "four", "five"]);

    for (const bad of [0, -1, 1.5, 2 ** 31]) {
      assert.throws(() => new Compactor({ model: "gpt-4o", storeTimeoutMs: bad }), typed("RangeError", "OUT_OF_RANGE", /storeTimeoutMs/));
    }
    assert.throws(() => new Compactor({ model: "gpt-4o", storeTimeoutMs: "100" }), typed("TypeError", "INVALID_ARGUMENT", /storeTimeoutMs/));
  });

  test("a trap while a call waits for its summarizer: INTERNAL, then the next call reads the history again and goes on", async () => {
    const bindings = await import(pathToFileURL(join(pkgDir, "dist", "full", "ctxfold.js")).href);
    const { guard } = await import(pathToFileURL(join(pkgDir, "lib", "guard.js")).href);
    const trap = guard(bindings).wrap(bindings.__ctxfoldTestPanic);
    const store = new MemoryStore();
    let trapNow = false;
    const compactor = new Compactor({
      model: "gpt-4o",
      contextWindow: 8192,
      store,
      summarizer: async () => {
        if (trapNow) assert.throws(() => trap("a panic elsewhere"), typed("CtxfoldError", "INTERNAL"));
        return "## Conversation Summary\n- **Facts:** files were read.";
      },
    });
    const m = agent(20);
    await compactor.prepare("c", m.slice(0, 4));
    trapNow = true;
    const error = console.error;
    console.error = () => {};
    try {
      await assert.rejects(compactor.prepare("c", m.slice(4, 60)), typed("CtxfoldError", "INTERNAL", /restarted/));
    } finally {
      console.error = error;
    }
    trapNow = false;
    assert.equal((await compactor.history("c")).length, 4, "the call that trapped wrote nothing");
    const r = await compactor.prepare("c", m.slice(4, 60));
    assert.ok(r.record);
    assert.equal((await compactor.history("c")).length, 60);
    assert.equal(countMessages(r.messages, { model: "gpt-4o" }).total, r.report.tokensAfter);
  });
});
