// Notices: notify's lines (seed 004's formats) from hand-made records and events, and from
// what a Compactor really emits; sse's one-line `data:` events for a streaming response.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Compactor, notify, sse } from "ctxfold";
import { agent } from "../support/compactor-page.mjs";

const budget = { window: 150_000, reservedOutput: 8000, input: 142_000, threshold: 105_000 };
const record = {
  seq: 3,
  trigger: "threshold",
  strategy: "additive",
  tokensBefore: 157_000,
  tokensAfter: 9100,
  budget,
  evicted: [1, 2, 3],
  boundary: 4,
  length: 9,
  generations: [1],
  folded: false,
  keptIds: [],
  lostIds: [],
  unsupportedIds: [],
  droppedSummaryLines: [],
  fallback: null,
  model: null,
  usage: [],
  instructions: null,
  timings: { planMs: 1, summarizeMs: 2, totalMs: 3 },
  // The tail holds the tool outputs (toolResults is a part of it): the lines add up to the total.
  after: { total: 9100, head: 1800, toolDefinitions: 0, summaries: 3200, middle: 0, tail: 4097, toolResults: 1400, framing: 3 },
  createdAt: null,
  undone: false,
};

test("notify: the lines of seed 004, from a record and from each event", () => {
  const lines = ["Compacted (157k -> 9.1k)", "  System: 1.8k tokens", "  Summary: 3.2k tokens", "  Kept context: 2.7k tokens", "  Tool outputs: 1.4k tokens", "  Total: 9.1k/150k (6 %)"];
  assert.equal(notify(record), lines.join("\n"));
  assert.equal(notify({ type: "compactionEnd", conversationId: "c", record }), lines.join("\n"));
  // A record stored before the tool definitions were counted apart: `tools` for the outputs.
  const { toolDefinitions: _, toolResults: outputs, ...before } = record.after;
  assert.equal(notify({ ...record, after: { ...before, tools: outputs } }), lines.join("\n"));
  // With tool definitions in the head, they are shown apart from the system prompt.
  const withTools = notify({ ...record, after: { ...record.after, toolDefinitions: 600 } }).split("\n");
  assert.deepEqual(withTools.slice(1, 3), ["  System: 1.2k tokens", "  Tool definitions: 600 tokens"]);
  // A record stored before the breakdown was kept; an undone one; one with a fallback.
  const { after, ...old } = record;
  assert.equal(notify(old), "Compacted (157k -> 9.1k)\n  Total: 9.1k/150k (6 %)");
  assert.equal(notify({ ...old, undone: true }).split("\n")[0], "Compacted (157k -> 9.1k) (undone)");
  assert.equal(notify({ ...old, fallback: { kind: "extractive", reason: "the summarizer rejected: 503" } }), "Compacted (157k -> 9.1k)\n  Summary fallback: extractive (the summarizer rejected: 503)\n  Total: 9.1k/150k (6 %)");

  const pruned = { boundary: 40, advanced: true, messages: [3, 7, 11], bytesRemoved: 40_000, tokensSaved: 10_300, lostIds: [] };
  const event = { type: "pruned", conversationId: "c", pruned, prunedTokens: { before: 12_400, after: 2100 }, tokensAfter: 18_500, budget };
  assert.equal(notify(event), "Tool outputs pruned (12.4k -> 2.1k, -83 %)\n  Context: 18.5k/150k (12 %)");
  assert.equal(notify({ ...event, prunedTokens: { before: 0, after: 0 }, pruned: { ...pruned, tokensSaved: 0 } }).split("\n")[0], "Tool outputs pruned (none was over the size limit)");

  const plan = { budget, tokens: { total: 150_000, given: 157_000 }, evict: [1, 2, 3] };
  assert.equal(notify({ type: "compactionStart", conversationId: "c", plan }), "Compacting 157k tokens (3 messages to summarize)");
  assert.equal(notify({ type: "fallback", conversationId: "c", fallback: { kind: "marker", reason: "timed out" }, record: null }), "Summary fallback: marker (timed out)");
  // Sizes as coding agents print them.
  const size = (n) => notify({ ...old, tokensBefore: n }).split("\n")[0].slice("Compacted (".length).split(" ")[0];
  assert.deepEqual([300, 999, 1000, 1049, 1050, 12_449, 99_949, 99_950, 157_400, 999_499, 999_500, 1_250_000].map(size), ["300", "999", "1k", "1k", "1.1k", "12.4k", "99.9k", "100k", "157k", "999k", "1M", "1.3M"]);

  for (const bad of [null, 3, "x", {}, { type: "nope" }, { type: "pruned" }, { type: "compactionEnd", record: {} }]) {
    assert.throws(() => notify(bad), (e) => e instanceof TypeError && e.code === "INVALID_ARGUMENT", JSON.stringify(bad));
    assert.throws(() => sse(bad), (e) => e instanceof TypeError && e.code === "INVALID_ARGUMENT", JSON.stringify(bad));
  }
});

/** The JSON of one `data:` event, checked to be one line ending in a blank line. */
function parseEvent(text) {
  assert.match(text, /^data: [^\n]*\n\n$/);
  return JSON.parse(text.slice("data: ".length));
}

test("sse: one data line per event, with the notice's first line", () => {
  assert.deepEqual(parseEvent(sse({ type: "compactionEnd", conversationId: "c", record })), {
    event: "compaction",
    phase: "end",
    conversationId: "c",
    seq: 3,
    trigger: "threshold",
    tokensBefore: 157_000,
    tokensAfter: 9100,
    window: 150_000,
    evicted: 3,
    fallback: null,
    text: "Compacted (157k -> 9.1k)",
  });
  assert.equal(parseEvent(sse(record)).conversationId, null);
  const pruned = { boundary: 40, advanced: true, messages: [3, 7], bytesRemoved: 1, tokensSaved: 10_300, lostIds: [] };
  assert.deepEqual(parseEvent(sse({ type: "pruned", conversationId: "c", pruned, prunedTokens: { before: 12_400, after: 2100 }, tokensAfter: 18_500, budget })), {
    event: "pruned",
    conversationId: "c",
    before: 12_400,
    after: 2100,
    tokensSaved: 10_300,
    messages: 2,
    tokensAfter: 18_500,
    window: 150_000,
    text: "Tool outputs pruned (12.4k -> 2.1k, -83 %)",
  });
  const fallback = parseEvent(sse({ type: "fallback", conversationId: "c", fallback: { kind: "extractive", reason: "line one\nline two" }, record: null }));
  assert.deepEqual(fallback, { event: "fallback", conversationId: "c", kind: "extractive", reason: "line one\nline two", text: "Summary fallback: extractive (line one\nline two)" });
});

test("what a Compactor emits reads as notices and events", async () => {
  let calls = 0;
  const compactor = new Compactor({
    model: "gpt-4o",
    contextWindow: 16_384,
    toolOutputMaxBytes: 1024,
    summarizer: async () => {
      // The first compaction's summarizer fails: its fallback stands in.
      if (calls++ === 0) throw new Error("model overloaded");
      return "## Conversation Summary\n- **Decisions:** None\n- **Entities:** None\n- **Facts:** work on /srv/a.\n- **Open Items:** None";
    },
  });
  const seen = [];
  for (const name of ["compactionStart", "compactionEnd", "pruned", "fallback"]) compactor.on(name, (e) => seen.push(e));
  const m = agent(30);
  await compactor.prepare("c", m.slice(0, 2));
  for (let i = 2; i < m.length; i += 4) {
    await compactor.commit("c", m.slice(i, i + 3));
    if (i + 3 < m.length) await compactor.prepare("c", [m[i + 3]]);
  }
  const types = new Set(seen.map((e) => e.type));
  assert.deepEqual([...types].sort(), ["compactionEnd", "compactionStart", "fallback", "pruned"]);
  const records = await compactor.records("c");
  let started = null;
  for (const e of seen) {
    const text = notify(e);
    const data = parseEvent(sse(e));
    assert.equal(data.text, text.split("\n")[0]);
    assert.equal(data.conversationId, "c");
    if (e.type === "compactionEnd") {
      const r = records[e.record.seq];
      assert.deepEqual(r.after, e.record.after);
      const lines = text.split("\n");
      assert.equal(lines.length, 5 + (e.record.after.toolResults > 0 ? 1 : 0) + (e.record.fallback ? 1 : 0));
      assert.match(lines[0], /^Compacted \(\d+(\.\d)?k -> \d+(\.\d)?k\)$/);
      assert.match(lines.at(-1), /^ {2}Total: \d+(\.\d)?k\/16\.4k \(\d+ %\)$/);
      assert.equal(e.record.after.total, e.record.tokensAfter);
      assert.deepEqual([data.event, data.phase, data.tokensAfter], ["compaction", "end", e.record.tokensAfter]);
    }
    if (e.type === "pruned") {
      assert.equal(e.prunedTokens.before - e.prunedTokens.after, e.pruned.tokensSaved);
      assert.deepEqual([data.event, data.tokensSaved], ["pruned", e.pruned.tokensSaved]);
    }
    if (e.type === "fallback") assert.match(text, /^Summary fallback: extractive \(the summarizer rejected: model overloaded\)$/);
    if (e.type === "compactionStart") {
      assert.match(text, /^Compacting \d+(\.\d)?k tokens \(\d+ messages to summarize\)$/);
      started = { text, data };
    }
    // One compaction's two notices say the same count before it: the record's tokensBefore.
    if (e.type === "compactionEnd" && started !== null) {
      const before = text.match(/^Compacted \((\S+) ->/)[1];
      assert.equal(started.text.match(/^Compacting (\S+) tokens/)[1], before, `${started.text} / ${text.split("\n")[0]}`);
      assert.equal(started.data.tokens, e.record.tokensBefore);
      started = null;
    }
  }
  assert.equal(records.length > 0 && started, null, "every start was followed by its end");
});

test("notify takes compact()'s report and the AI SDK middleware's onReport event", async () => {
  const { compact } = await import("ctxfold");
  const { compactionMiddleware } = await import("ctxfold/ai-sdk");
  const text = (t) => [{ type: "text", text: t }];
  const prompt = [{ role: "system", content: "You are an SRE assistant." }];
  for (let i = 0; i < 30; i++) {
    prompt.push({ role: "user", content: text(`Turn ${i}: why did deploy ${i} of payments-api fail? `.repeat(12)) });
    prompt.push({ role: "assistant", content: text(`Deploy ${i} failed on db-prod-1:5432 with ECONNREFUSED. `.repeat(12)) });
  }
  prompt.push({ role: "user", content: text("And now?") });
  const options = { model: "gpt-4o", contextWindow: 4096 };
  const events = [];
  const middleware = compactionMiddleware({ ...options, onReport: (e) => events.push(e) });
  await middleware.transformParams({ type: "generate", params: { prompt }, model: { modelId: "gpt-4o" } });
  await middleware.transformParams({ type: "stream", params: { prompt: prompt.slice(0, 3) }, model: { modelId: "gpt-4o" } });
  const [compacted, small] = events;
  assert.equal(compacted.report.trigger, "threshold");
  const { report } = await compact(prompt, { ...options, format: "ai-sdk" });
  const lines = notify(compacted).split("\n");
  assert.match(lines[0], /^Compacted \(\d+(\.\d)?k -> \d+(\.\d)?k\)$/);
  assert.equal(lines.at(-1), `  Total: ${lines[0].match(/-> (\S+)\)/)[1]}/4.1k (${Math.round((100 * compacted.report.tokensAfter) / 4096)} %)`);
  assert.equal(notify(report), notify(compacted), "compact()'s report reads the same");
  // A call that compacted nothing says how full the window is.
  assert.equal(small.report.trigger, null);
  assert.match(notify(small), /^Context: \d+\/4.1k \(\d+ %\)$/);
});

test("tool definitions are named as such: not the system prompt, and not the tool results", async () => {
  const { plan } = await import("ctxfold");
  const tools = Array.from({ length: 8 }, (_, k) => ({ type: "function", function: { name: `tool_${k}`, description: `Tool ${k} reads the file it is given.`, parameters: { type: "object", properties: { path: { type: "string" } } } } }));
  // No system prompt: the head is the tool definitions alone.
  const m = agent(30).slice(1);
  const p = plan({ tools, messages: m }, { model: "gpt-4o", contextWindow: 16_384 });
  assert.ok(p.tokens.toolDefinitions > 100, JSON.stringify(p.tokens));
  assert.equal(p.tokens.head, p.tokens.toolDefinitions, "the head holds only the definitions");
  assert.ok(p.tokens.toolResults > 0 && p.tokens.tools === undefined, JSON.stringify(p.tokens));
  const bare = plan(m, { model: "gpt-4o", contextWindow: 16_384 });
  assert.equal(bare.tokens.toolDefinitions, 0);
  assert.equal(bare.tokens.toolResults, p.tokens.toolResults);
  // A record's notice says so: no "System:" line without a system prompt.
  const compactor = new Compactor({ model: "gpt-4o", contextWindow: 16_384 });
  const records = [];
  compactor.on("compactionEnd", (e) => records.push(e.record));
  await compactor.prepare("t", { tools, messages: m });
  const text = notify(records[0]);
  assert.match(text, /\n {2}Tool definitions: \d+ tokens\n/);
  assert.doesNotMatch(text, /System:/);
  assert.equal(records[0].after.toolDefinitions, p.tokens.toolDefinitions);
});
