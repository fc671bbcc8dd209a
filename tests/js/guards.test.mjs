// The Compactor's guards through the package: the idempotency guard suppresses a repeat
// (`suppressed`), a conversation built to refill at once backs off (`backoff`, fewer
// compactions than turns), a summarizer that keeps failing opens the circuit breaker
// (`breakerOpen`) and one that works again closes it after the cool-down (`breakerClosed`);
// no input exceeds the budget; the state is in the store (another Compactor over it sees it).
import { test } from "node:test";
import assert from "node:assert/strict";
import { Compactor, MemoryStore, notify, sse } from "ctxfold";

const WINDOW = { model: "gpt-4o", contextWindow: 10_000, toolOutputMaxBytes: 100_000 };
const OFF = { idempotencySeconds: 0, backoffTurns: 0, breakerFailures: 0 };
const SUMMARY = "## Conversation Summary\n- **Decisions:** None\n- **Entities:** None\n- **Facts:** Work went on.\n- **Open Items:** None";

/** An agent whose every step is a tool call and a result of `lines` lines (80: about 0.15 of the window). */
function refilling(steps, lines = 80) {
  const m = [
    { role: "system", content: "You are a coding agent. Work in /srv/app." },
    { role: "user", content: "Read every module under /srv/app and list its values." },
  ];
  for (let t = 0; t < steps; t++) {
    const id = `call_${t}`;
    m.push({ role: "assistant", content: `Reading mod_${t}.py.`, tool_calls: [{ id, type: "function", function: { name: "read_file", arguments: `{"path":"/srv/app/mod_${t}.py"}` } }] });
    const body = Array.from({ length: lines }, (_, k) => `line ${k} of mod_${t}.py: value_${t}_${k} = compute(${k}, host='db-${t}.internal:5432')\n`).join("");
    m.push({ role: "tool", tool_call_id: id, content: body });
  }
  m.push({ role: "assistant", content: "Done." });
  return m;
}

/** Replays `messages` through `compactor` (a prepare before each assistant message, its commit after); `each(result)` per turn. */
async function replay(compactor, id, messages, each = () => {}) {
  let seen = 0;
  for (let i = 1; i < messages.length; i++) {
    if (messages[i].role !== "assistant") continue;
    const result = await compactor.prepare(id, messages.slice(seen, i));
    assert.ok(result.report.tokensAfter <= result.report.budget.input, `turn ${i}: ${result.report.tokensAfter} tokens sent, budget ${result.report.budget.input}`);
    await each(result, i);
    await compactor.commit(id, messages[i]);
    seen = i + 1;
  }
}

/** Every event of `compactor`, by type. */
function listen(compactor) {
  const seen = { suppressed: [], backoff: [], breakerOpen: [], breakerClosed: [], compactionEnd: [] };
  for (const name of Object.keys(seen)) compactor.on(name, (e) => seen[name].push(e));
  return seen;
}

test("the idempotency guard suppresses a repeat of a compaction just undone", async () => {
  const compactor = new Compactor({ ...WINDOW, thresholdRatio: 0.6, guards: { idempotencySeconds: 2 } });
  const events = listen(compactor);
  // Small steps: the input passes the threshold well within the budget.
  const messages = refilling(30, 20);
  let compacted = null;
  let seen = 0;
  for (let i = 1; i < messages.length && compacted === null; i++) {
    if (messages[i].role !== "assistant") continue;
    const r = await compactor.prepare("i", messages.slice(seen, i));
    compacted = r.record;
    if (compacted === null) await compactor.commit("i", messages[i]);
    seen = i + 1;
  }
  assert.ok(compacted, "the conversation compacted");
  assert.equal((await compactor.undo("i")).compaction, compacted.seq);
  const again = await compactor.prepare("i", []);
  assert.equal(again.record, null);
  assert.equal(again.guards.suppressed.guard, "idempotency");
  assert.equal(again.guards.suppressed.of, compacted.seq);
  assert.ok(again.report.tokensAfter > again.estimate.threshold && again.report.tokensAfter <= again.report.budget.input);
  assert.equal(events.suppressed.length, 1);
  assert.deepEqual(events.suppressed[0].suppressed, again.guards.suppressed);
  assert.match(notify(events.suppressed[0]), /^Compaction skipped \(idempotency, /);
  assert.equal(JSON.parse(sse(events.suppressed[0]).slice(6)).event, "suppressed");
  assert.equal((await compactor.records("i")).length, 1, "a suppressed compaction is no record");
  assert.equal((await compactor.status("i")).guards.suppressed, 1);
  // Once the window passed, the compaction runs; its record counts the suppressed one.
  await new Promise((r) => setTimeout(r, 2100));
  const later = await compactor.prepare("i", []);
  assert.deepEqual(later.record.evicted, compacted.evicted);
  assert.equal(later.record.guards.suppressedBefore, 1);
});

test("a conversation that refills at once backs off: fewer compactions than turns", async () => {
  const messages = refilling(40);
  const count = async (guards) => {
    const compactor = new Compactor({ ...WINDOW, thresholdRatio: 0.6, guards });
    const events = listen(compactor);
    let turns = 0;
    await replay(compactor, "b", messages, () => turns++);
    return { turns, compactions: (await compactor.records("b")).length, events };
  };
  const off = await count(OFF);
  const on = await count(undefined);
  console.log(`refilling conversation: ${on.turns} turns; ${off.compactions} compactions without the guards, ${on.compactions} with the back-off`);
  assert.ok(off.compactions * 4 > off.turns, "the conversation thrashes without the guards");
  assert.ok(on.compactions < off.compactions && on.compactions < on.turns);
  assert.equal(off.events.backoff.length, 0);
  const grew = on.events.backoff.filter((e) => e.backoff.level > 0);
  assert.ok(grew.some((e) => e.backoff.level >= 2), "the back-off grows");
  assert.match(notify(grew[0]), /^Backing off: .*skipped for 2 turns/);
  assert.ok(on.events.suppressed.length > 0 && on.events.suppressed.every((e) => e.suppressed.guard === "backoff"));
});

test("three failing summarizer calls open the breaker; after the cool-down a working one closes it", async () => {
  const store = new MemoryStore();
  let failing = true;
  let calls = 0;
  const summarizer = async () => {
    calls++;
    if (failing) throw new Error("503 Service Unavailable");
    return SUMMARY;
  };
  const options = { ...WINDOW, store, summarizer, guards: { breakerCooldownTurns: 6 } };
  const compactor = new Compactor(options);
  const events = listen(compactor);
  const messages = refilling(60);
  let openedAt = null;
  let callsWhenOpened = 0;
  let skipped = 0;
  let reloaded = null;
  const steps = [];
  let seen = 0;
  for (let i = 1; i < messages.length; i++) {
    if (messages[i].role !== "assistant") continue;
    const c = reloaded ?? compactor;
    const r = await c.prepare("k", messages.slice(seen, i));
    steps.push(r);
    if (r.guards.breaker?.change === "skipped") {
      skipped++;
      assert.match(r.record.fallback.reason, /circuit breaker open/);
    }
    if (events.breakerOpen.length === 1 && openedAt === null) {
      openedAt = steps.length;
      callsWhenOpened = calls;
      failing = false;
      const answer = await compactor.command("k", "/status");
      assert.match(answer.text, /, summarizer circuit open until turn \d+$/);
      // Another Compactor over the same store (a reload, another tab) goes on from here.
      reloaded = new Compactor(options);
      for (const name of ["breakerClosed", "compactionEnd"]) reloaded.on(name, (e) => events[name].push(e));
    }
    await c.commit("k", messages[i]);
    seen = i + 1;
    if (events.breakerClosed.length > 0) break;
  }
  assert.ok(openedAt !== null, "the breaker opened");
  assert.equal(callsWhenOpened, 3, "after three failing calls");
  const open = events.breakerOpen[0];
  assert.equal(open.breaker.failures, 3);
  assert.equal(open.record.fallback.kind, "extractive");
  assert.match(notify(open), /^Summarizer circuit open: /);
  assert.ok(skipped >= 1, "a compaction used the fallback without calling the summarizer");
  assert.equal(events.breakerClosed.length, 1, "closed after the cool-down");
  assert.equal(calls, callsWhenOpened + 1, "one call tried the summarizer again");
  assert.ok(steps.length - openedAt >= 6, "not before the cool-down");
  assert.equal(events.breakerClosed[0].record.fallback, null);
  assert.match(notify(events.breakerClosed[0]), /^Summarizer circuit closed: /);
  const data = JSON.parse(sse(events.breakerClosed[0]).slice("data: ".length));
  assert.deepEqual([data.event, data.conversationId, data.breaker.change], ["breakerClosed", "k", "closed"]);
  const status = await reloaded.status("k");
  assert.deepEqual([status.guards.breaker.failures, status.guards.breaker.openUntil], [0, null]);
  console.log(`breaker: opened after ${callsWhenOpened} failing calls at turn ${openedAt}, ${skipped} compaction(s) without the summarizer, closed at turn ${steps.length}`);
});

test("guard options are checked where they are given", () => {
  assert.throws(() => new Compactor({ ...WINDOW, guards: { idempotencyCoverage: 2 } }), (e) => e.code === "OUT_OF_RANGE" && /options\.guards\.idempotencyCoverage/.test(e.message));
  assert.throws(() => new Compactor({ ...WINDOW, guards: { breakerFailure: 3 } }), (e) => e.code === "INVALID_ARGUMENT" && /breakerFailure/.test(e.message));
  assert.throws(() => new Compactor({ ...WINDOW, guards: 3 }), (e) => e.code === "INVALID_ARGUMENT");
  assert.throws(() => new Compactor({ ...WINDOW, guards: null }), (e) => e.code === "INVALID_ARGUMENT" && /options\.guards/.test(e.message));
  assert.ok(new Compactor({ ...WINDOW, guards: undefined }));
  assert.ok(new Compactor({ ...WINDOW, guards: OFF }));
});
