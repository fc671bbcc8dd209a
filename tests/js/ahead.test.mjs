// prepareAhead through the package: every corpus conversation replayed with the summary made
// in the background after each commit past the soft threshold gives, turn for turn, the input
// the inline path gives (the summary made when the turn passes the threshold), and the turns
// that compact find their summary made; a summary prepared for a span that then changed is
// not applied; a summary that failed ahead is asked for again; waitUntil gets the work. And
// compactWhenCold: a turn after the provider's cache lifetime compacts at a lower threshold.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { Compactor } from "ctxfold";
import { modelCalls } from "../support/compactor-suite.mjs";
import { conversations as corpusConversations } from "../support/corpus.mjs";

const WINDOW = 8192;

/** A summarizer double: a summary that says which span it was given (its length), and the calls it got. */
function summarizer() {
  const calls = [];
  const fn = async ({ prompt }) => {
    calls.push(prompt.length);
    return `## Conversation Summary\n- **Decisions:** None\n- **Entities:** None\n- **Facts:** The span summarized held ${prompt.length} characters.\n- **Open Items:** None`;
  };
  return { fn, calls };
}

/**
 * Replays `messages` as a chat app (and bench/compaction) drives a Compactor: before each
 * assistant message the previous reply is committed and what came after it is prepared; a
 * refused turn (CONTEXT_OVERFLOW: nothing stored) sends its messages again with the next.
 * `ahead`: wait for the background work after each commit (the user reading the reply).
 */
async function replay(compactor, id, messages, ahead) {
  const inputs = [];
  let stored = 0;
  let replied = false;
  for (const k of modelCalls(messages)) {
    if (replied) {
      await compactor.commit(id, messages[stored]);
      if (ahead) await compactor.whenPrepared(id);
      stored++;
    }
    replied = false;
    let r;
    try {
      r = await compactor.prepare(id, messages.slice(stored, k));
    } catch (e) {
      if (e.code !== "CONTEXT_OVERFLOW") throw e;
      inputs.push({ k, messages: e.code, compacted: false, preparedAhead: 0 });
      continue;
    }
    stored = k;
    replied = true;
    inputs.push({ k, messages: JSON.stringify(r.messages), compacted: r.record !== null, preparedAhead: r.preparedAhead });
  }
  return inputs;
}

describe("prepareAhead", () => {
  test("every corpus conversation: the input equals the inline path's on every turn, and compacting turns find their summary made", async () => {
    const conversations = corpusConversations();
    assert.ok(conversations.length >= 30, `${conversations.length} conversations`);
    const total = { turns: 0, compacting: 0, answered: 0, fromAhead: 0, inlineCalls: 0, aheadCalls: 0 };
    for (const c of conversations) {
      const inline = summarizer();
      const ahead = summarizer();
      const a = await replay(new Compactor({ model: "gpt-4o", contextWindow: WINDOW, summarizer: inline.fn }), c.name, c.messages, false);
      const b = await replay(new Compactor({ model: "gpt-4o", contextWindow: WINDOW, summarizer: ahead.fn, prepareAhead: true }), c.name, c.messages, true);
      assert.equal(b.length, a.length);
      for (let t = 0; t < a.length; t++) {
        assert.equal(b[t].messages, a[t].messages, `${c.name}: the input at message ${a[t].k} differs from the inline path's`);
        assert.equal(b[t].compacted, a[t].compacted, `${c.name} at ${a[t].k}`);
      }
      total.turns += a.length;
      total.compacting += a.filter((t) => t.compacted).length;
      total.answered += b.filter((t) => t.compacted && t.preparedAhead > 0).length;
      total.fromAhead += b.reduce((s, t) => s + t.preparedAhead, 0);
      total.inlineCalls += inline.calls.length;
      total.aheadCalls += ahead.calls.length;
    }
    console.log(
      `prepareAhead at ${WINDOW}: ${conversations.length} conversations, ${total.turns} turns, inputs identical to the inline path's on every one; ` +
        `${total.answered} of ${total.compacting} compacting turns found their summary made ahead (${total.fromAhead} requests); ` +
        `summarizer calls ${total.aheadCalls} with prepareAhead against ${total.inlineCalls} inline`,
    );
    assert.ok(total.compacting > 50, `${total.compacting} compacting turns: the replay must compact`);
    // The cut does not depend on the user's next message, so nearly every compacting turn
    // finds its summary (a message too large for the tail it was planned with does not).
    assert.ok(total.answered >= 0.9 * total.compacting, `${total.answered} of ${total.compacting} compacting turns answered ahead`);
  });

  test("a summary made for a span that then changed is not applied", async () => {
    // Two Compactors in step, one with prepareAhead: their inputs are equal on every turn.
    const [a, b] = [summarizer(), summarizer()];
    const ahead = new Compactor({ model: "gpt-4o", contextWindow: 4096, summarizer: a.fn, prepareAhead: true });
    const inline = new Compactor({ model: "gpt-4o", contextWindow: 4096, summarizer: b.fn });
    const both = async (f) => {
      const [x, y] = [await f(ahead), await f(inline)];
      assert.equal(JSON.stringify(x?.messages), JSON.stringify(y?.messages));
      return x;
    };
    let compactions = 0;
    let t = 0;
    for (; t < 200; t++) {
      const user = { role: "user", content: `Question ${t}: what does step ${t} of the deployment of service-${t} do? ${"Tell me in detail. ".repeat(6)}` };
      const r = await both((c) => c.prepare("c", [user]));
      if (r.record !== null) compactions++;
      const made = a.calls.length;
      await both((c) => c.commit("c", { role: "assistant", content: `Step ${t} deploys service-${t} to cluster-${t % 3}. ${"It runs the migration first, then the rollout. ".repeat(5)}` }));
      await ahead.whenPrepared("c");
      // A summary was made ahead after a compaction: undo that compaction, which moves the
      // boundary back, so the span the next compaction evicts is another one.
      if (compactions > 0 && a.calls.length > made) break;
    }
    assert.ok(t < 200, "no summary was made ahead after a compaction");
    const asked = a.calls.length;
    await both((c) => c.undo("c"));
    const r = await both((c) => c.prepare("c", [{ role: "user", content: "And the rollback?" }]));
    assert.notEqual(r.record, null, "the turn after the undo did not compact");
    assert.equal(r.preparedAhead, 0, "a summary made for another span was applied");
    assert.ok(a.calls.length > asked, "the summarizer was not asked for the span the turn evicts");
  });

  test("a summary that failed ahead is asked for again when the turn needs it; waitUntil gets the background work", async () => {
    // Every call made ahead (after a commit) fails; a call the turn makes works.
    let fail = false;
    const calls = [];
    const waited = [];
    const compactor = new Compactor({
      model: "gpt-4o",
      contextWindow: 4096,
      prepareAhead: { threshold: 0.3 },
      waitUntil: (p) => waited.push(p),
      summarizer: async ({ prompt }) => {
        calls.push(fail);
        if (fail) throw new Error("provider down");
        return `## Conversation Summary\n- **Decisions:** None\n- **Entities:** None\n- **Facts:** ${prompt.length} characters.\n- **Open Items:** None`;
      },
    });
    const line = "The deployment of the billing service went through staging and then production. ";
    let r;
    for (let t = 0; t < 80; t++) {
      fail = false;
      r = await compactor.prepare("f", [{ role: "user", content: `Turn ${t}: ${line.repeat(4)}` }]);
      if (r.record !== null) break;
      fail = true;
      await compactor.commit("f", { role: "assistant", content: `Noted ${t}. ${line.repeat(3)}` });
      await compactor.whenPrepared("f");
    }
    assert.ok(waited.length > 0 && waited.every((p) => p instanceof Promise), "waitUntil was not given the work");
    assert.notEqual(r.record, null, "the chat never compacted");
    assert.equal(r.record.fallback, null, "the turn fell back instead of asking again");
    assert.ok(r.preparedAhead >= 1, "the turn did not find the request made ahead");
    assert.ok(calls.includes(true) && calls.includes(false));
  });

  test("a commit that comes while the summaries ahead are still asked for plans at once: the turns that cross find theirs", async () => {
    const SUMMARY = "## Conversation Summary\n- **Decisions:** none\n- **Entities:** none\n- **Facts:** f\n- **Open Items:** none";
    const words = (n, tag) => Array.from({ length: n }, (_, i) => `${tag}${i}`).join(" ");
    // A summarizer slower than the user: each turn comes 100 ms after the reply, a summary takes 300.
    const slow = async () => {
      await new Promise((r) => setTimeout(r, 300));
      return SUMMARY;
    };
    const compactor = new Compactor({ model: "gpt-4o", contextWindow: 8000, summarizer: slow, prepareAhead: true });
    const crossing = [];
    for (let i = 0; i < 30; i++) {
      const r = await compactor.prepare("a", [{ role: "user", content: `turn ${i} ${words(150 + ((i * 37) % 250), "w")}` }]);
      if (r.record) crossing.push(r.preparedAhead);
      await compactor.commit("a", { role: "assistant", content: `reply ${i} ${words(200, "r")}` });
      await new Promise((r) => setTimeout(r, 100));
    }
    await compactor.whenPrepared("a");
    assert.ok(crossing.length >= 3, `${crossing.length} compactions`);
    // Each crossing turn's summary was asked for after the commit before it, not after the
    // summaries of the commit before that (then most turns made their own).
    assert.ok(crossing.filter((n) => n > 0).length >= crossing.length - 1, JSON.stringify(crossing));
  });

  test("bad options are typed errors", () => {
    assert.throws(() => new Compactor({ model: "gpt-4o", prepareAhead: "yes" }), (e) => e.code === "INVALID_ARGUMENT" && /options\.prepareAhead/.test(e.message));
    assert.throws(() => new Compactor({ model: "gpt-4o", prepareAhead: { threshold: 2 } }), (e) => /options\.prepareAhead\.threshold/.test(e.message));
    assert.throws(() => new Compactor({ model: "gpt-4o", prepareAhead: { soft: 0.5 } }), (e) => /options\.prepareAhead/.test(e.message));
    assert.throws(() => new Compactor({ model: "gpt-4o", waitUntil: 1 }), (e) => e.code === "INVALID_ARGUMENT" && /options\.waitUntil/.test(e.message));
  });
});

describe("compactWhenCold", () => {
  test("a turn after the cache lifetime compacts at the lower threshold; a warm turn does not", async () => {
    const options = { model: "gpt-4o", contextWindow: 4096 };
    const cold = new Compactor({ ...options, compactWhenCold: { ttlSeconds: 1, thresholdRatio: 0.3 } });
    const warm = new Compactor(options);
    const turn = (t) => [
      { role: "user", content: `Question ${t}: which region hosts shard-${t}? ${"Please be precise. ".repeat(5)}` },
      { role: "assistant", content: `Shard-${t} lives in region eu-west-${t % 3}. ${"It fails over to us-east-1. ".repeat(5)}` },
    ];
    let tokens = 0;
    let t = 0;
    // Up to about 0.4 of the window, quickly: every turn is warm.
    for (; tokens < 0.4 * 4096; t++) {
      const [user, reply] = turn(t);
      for (const c of [cold, warm]) {
        const r = await c.prepare("x", [user]);
        assert.equal(r.record, null, `turn ${t} compacted while warm`);
        assert.equal(r.guards.coldCache, null);
        tokens = r.report.tokensAfter;
        await c.commit("x", reply);
      }
    }
    await new Promise((r) => setTimeout(r, 1100));
    const [user, reply] = turn(t);
    const r = await cold.prepare("x", [user]);
    const control = await warm.prepare("x", [user]);
    assert.equal(control.record, null, "without the option the turn does not compact");
    assert.notEqual(r.record, null, "the cold turn did not compact");
    assert.ok(r.guards.coldCache.idleSeconds >= 1, JSON.stringify(r.guards.coldCache));
    assert.equal(r.guards.coldCache.threshold, Math.floor(0.3 * 4096));
    assert.deepEqual(r.record.guards.coldCache, r.guards.coldCache);
    assert.ok(r.report.tokensAfter < tokens, `${r.report.tokensAfter} tokens after, ${tokens} before`);
    // The next turn comes at once: warm, no compaction.
    await cold.commit("x", reply);
    const next = await cold.prepare("x", [turn(t + 1)[0]]);
    assert.equal(next.record, null);
    assert.equal(next.guards.coldCache, null);
  });

  test("bad options are typed errors", () => {
    assert.throws(() => new Compactor({ model: "gpt-4o", compactWhenCold: {} }), (e) => /options\.compactWhenCold/.test(e.message) && /ttlSeconds/.test(e.message));
    assert.throws(() => new Compactor({ model: "gpt-4o", compactWhenCold: { ttlSeconds: 0 } }), (e) => /options\.compactWhenCold\.ttlSeconds/.test(e.message));
    assert.throws(() => new Compactor({ model: "gpt-4o", compactWhenCold: null }), (e) => /options\.compactWhenCold/.test(e.message));
  });
});
