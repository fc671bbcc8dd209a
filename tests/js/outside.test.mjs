// Cases found by trying the package from outside (tests/fuzz/findings.md, "Found from
// outside"): binary parts kept through any store, a provider report that cannot grow an
// exact count's budget, an agent's turn through /compact, async event handlers, lone
// surrogates, what a store that breaks its contract gets said of it, and argument errors
// that say the bound, or keep a password out.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { Compactor, MemoryStore, compact, countMessages, countTokens, getModel, notify, openAISummarizer, plan, registerModel, sse, staleWriteError } from "ctxfold";

const typed = (code, message) => (e) => {
  assert.equal(e.code, code, `${e.code}: ${e.message}`);
  if (message) assert.match(e.message, message);
  return true;
};

/** A store that keeps everything as JSON text, as a file, KV or server store would. */
function jsonStore() {
  const rows = new Map();
  const through = (v) => JSON.parse(JSON.stringify(v));
  return {
    async load(id) {
      return rows.has(id) ? through(rows.get(id).meta) : null;
    },
    async messages(id, from) {
      return through(rows.get(id)?.messages.slice(from) ?? []);
    },
    async write(id, expect, batch) {
      const row = rows.get(id) ?? { meta: null, messages: [], summaries: [], records: [] };
      if ((row.meta?.version ?? 0) !== expect) throw staleWriteError(id, expect, row.meta?.version ?? null);
      const b = through(batch);
      row.messages.push(...b.messages);
      row.summaries.push(...b.summaries);
      row.records.push(...b.records);
      row.meta = b.meta;
      rows.set(id, row);
    },
    async summaries(id) {
      return through(rows.get(id)?.summaries ?? []);
    },
    async records(id) {
      return through(rows.get(id)?.records ?? []);
    },
    async list() {
      return [...rows.keys()];
    },
    async delete(id) {
      rows.delete(id);
    },
  };
}

describe("binary parts (AI SDK images and files)", () => {
  const png = Uint8Array.from({ length: 300 }, (_, i) => (i * 37) % 256);
  const pdf = Buffer.from("%PDF-1.7 a small file");
  const turn = [
    {
      role: "user",
      content: [
        { type: "text", text: "What is in this picture and this file?" },
        { type: "image", image: png, mediaType: "image/png" },
        { type: "file", data: pdf, mediaType: "application/pdf" },
      ],
    },
  ];

  for (const [name, store] of [
    ["MemoryStore", () => new MemoryStore()],
    ["a store that keeps JSON text", jsonStore],
  ]) {
    test(`keep their bytes through ${name}: in the model input, history() and an export's import`, async () => {
      const compactor = new Compactor({ model: "gpt-4o", format: "ai-sdk", store: store() });
      const bytesOf = (messages) => {
        const parts = messages.find((m) => Array.isArray(m.content) && m.content.some((p) => p.type === "image")).content;
        return [parts[1].image, parts[2].data];
      };
      const check = ([image, file], where) => {
        assert.ok(image instanceof Uint8Array, `${where}: the image is ${Object.prototype.toString.call(image)}`);
        assert.deepEqual([...image], [...png], where);
        assert.ok(file instanceof Uint8Array, `${where}: the file is ${Object.prototype.toString.call(file)}`);
        assert.deepEqual([...file], [...pdf], where);
      };
      check(bytesOf((await compactor.prepare("c", turn)).messages), "first prepare");
      await compactor.commit("c", { role: "assistant", content: "A gradient, and a PDF." });
      check(bytesOf((await compactor.prepare("c", [{ role: "user", content: "Thanks." }])).messages), "next prepare");
      // A Compactor made afresh reads it all from the store.
      const fresh = new Compactor({ model: "gpt-4o", format: "ai-sdk", store: compactor.store });
      check(bytesOf((await fresh.prepare("c", [{ role: "user", content: "And now?" }])).messages), "after a cold load");
      check(bytesOf((await fresh.history("c")).map((h) => h.message)), "history()");
      // An export is JSON: it keeps the bytes as base64, and its import gives them back.
      const data = JSON.parse(JSON.stringify(await fresh.export("c")));
      await fresh.import(data, { id: "d" });
      check(bytesOf((await fresh.prepare("d", [{ role: "user", content: "Again?" }])).messages), "imported");
    });
  }

  test("are sized as compact() sizes them", async () => {
    const compactor = new Compactor({ model: "gpt-4o", format: "ai-sdk" });
    const r = await compactor.prepare("c", turn);
    assert.equal(r.report.tokensAfter, countMessages(turn, { model: "gpt-4o", format: "ai-sdk" }).total);
  });
});

test("a provider report below ctxfold's exact count never takes the input past the window", async () => {
  const window = 4096;
  const compactor = new Compactor({ model: "gpt-4o", contextWindow: window });
  let budget = null;
  for (let t = 0; t < 30; t++) {
    const r = await compactor.prepare("c", [{ role: "user", content: `Question ${t}: ${"what about the retry policy of the queue ".repeat(12)}` }]);
    budget ??= r.report.budget.input;
    assert.ok(r.report.budget.input <= budget, `turn ${t}: a budget of ${r.report.budget.input}, over ${budget}`);
    const tokens = countMessages(r.messages, { model: "gpt-4o" }).total;
    assert.ok(tokens <= budget, `turn ${t}: ${tokens} tokens, over the budget of ${budget}`);
    // Each report 0.6x of the count: what a usage that leaves cached input out looks like.
    const c = await compactor.commit("c", { role: "assistant", content: `Answer ${t}: ${"retry with backoff ".repeat(20)}` }, { prompt_tokens: Math.round(0.6 * tokens) });
    assert.equal(c.usageIgnored, null);
  }
  // A report under half the count is set aside, and says why.
  await compactor.prepare("c", [{ role: "user", content: "one more" }]);
  const c = await compactor.commit("c", { role: "assistant", content: "ok" }, { prompt_tokens: 10 });
  assert.match(c.usageIgnored, /ratio/);
});

test("a usage report without the input tokens stores the reply and says it learned nothing; a malformed one stores nothing", async () => {
  // The AI SDK's usage when a provider leaves the input out, and other reports without it.
  for (const usage of [{ inputTokens: undefined, outputTokens: 5 }, { inputTokens: { total: undefined } }, {}, { output_tokens: 3 }]) {
    const compactor = new Compactor({ model: "gpt-4o" });
    await compactor.prepare("c", [{ role: "user", content: "What is the capital of France?" }]);
    const c = await compactor.commit("c", { role: "assistant", content: "Paris." }, usage);
    assert.match(c.usageIgnored, /no input tokens/, JSON.stringify(usage));
    assert.equal(c.anchor, null);
    assert.equal((await compactor.history("c")).length, 2, JSON.stringify(usage));
  }
  const compactor = new Compactor({ model: "gpt-4o" });
  await compactor.prepare("c", [{ role: "user", content: "hi" }]);
  await assert.rejects(compactor.commit("c", { role: "assistant", content: "hello" }, { prompt_tokens: "12" }), (e) => e.code === "INVALID_ARGUMENT" && /usage/.test(e.message));
  assert.equal((await compactor.history("c")).length, 1);
});

test("/compact keeps the newest steps of an agent's turn too large to keep whole", async () => {
  const compactor = new Compactor({ model: "gpt-4o", contextWindow: 16000 });
  const output = (i) => `make output ${i}\n` + "cc -O2 -c src/module.c -o build/module.o warning: unused variable\n".repeat(60);
  await compactor.prepare("a", [{ role: "system", content: "You are a build agent." }, { role: "user", content: "Fix the build in ~/proj" }]);
  for (let t = 0; t < 8; t++) {
    await compactor.commit("a", { role: "assistant", content: null, tool_calls: [{ id: `call_${t}`, type: "function", function: { name: "run", arguments: '{"cmd":"make"}' } }] });
    await compactor.prepare("a", [{ role: "tool", tool_call_id: `call_${t}`, content: output(t) }]);
  }
  const answer = "Fixed: the missing header was include/config.h.";
  await compactor.commit("a", { role: "assistant", content: answer });
  await compactor.prepare("a", [{ role: "user", content: "Thanks. Now add a test." }]);
  const r = await compactor.compact("a");
  assert.ok(r.report.tokensAfter < r.report.tokensBefore, `${r.report.tokensBefore} -> ${r.report.tokensAfter}`);
  assert.ok(r.report.summaryChunks > 0);
  const contents = r.messages.map((m) => m.content);
  assert.ok(contents.includes(answer), "the agent's answer was summarized away");
  assert.equal(contents.at(-1), "Thanks. Now add a test.");
  // Never a result without its call.
  const calls = new Set(r.messages.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id)));
  for (const m of r.messages) if (m.role === "tool") assert.ok(calls.has(m.tool_call_id), m.tool_call_id);
});

test("an agent turn compacted again and again keeps its user's request, right after the summary", async () => {
  for (const format of ["openai", "anthropic"]) {
    const compactor = new Compactor({ model: "claude-sonnet-4-5", format, contextWindow: 8000 });
    const task = "Fix the failing build in repo foo";
    const first = format === "anthropic" ? { system: "You are an agent", messages: [{ role: "user", content: task }] } : [{ role: "system", content: "You are an agent" }, { role: "user", content: task }];
    await compactor.prepare("a", first);
    const out = (k) => Array.from({ length: 50 }, (_, i) => `row ${i} /var/log/app-${k}.log code E${1000 + i}`).join("\n");
    let compactions = 0;
    for (let step = 0; step < 16; step++) {
      const call = format === "anthropic"
        ? { role: "assistant", content: [{ type: "tool_use", id: `t${step}`, name: "read", input: { step } }] }
        : { role: "assistant", content: null, tool_calls: [{ id: `t${step}`, type: "function", function: { name: "read", arguments: `{"step":${step}}` } }] };
      const result = format === "anthropic"
        ? { role: "user", content: [{ type: "tool_result", tool_use_id: `t${step}`, content: out(step) }] }
        : { role: "tool", tool_call_id: `t${step}`, content: out(step) };
      await compactor.commit("a", call);
      const r = await compactor.prepare("a", [result]);
      if (r.record) compactions++;
      const at = r.messages.findIndex((m) => m.content === task);
      assert.ok(at >= 0, `${format}, step ${step}: the request is gone from the input`);
    }
    assert.ok(compactions >= 2, `${format}: ${compactions} compactions`);
  }
});

test("a tool result's images are counted, and stay when its text is cut or pruned", async () => {
  // A screenshot tool (a computer-use agent): each result is a long text and an image.
  const image = { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } };
  const log = (k) => Array.from({ length: 400 }, (_, i) => `line ${i} of step ${k}: GET /api/items/${i} 200`).join("\n");
  const messages = [{ role: "user", content: "Check the page at http://localhost:5173/items" }];
  for (let k = 0; k < 4; k++) {
    messages.push({ role: "assistant", content: [{ type: "tool_use", id: `s${k}`, name: "screenshot", input: { k } }] });
    messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: `s${k}`, content: [{ type: "text", text: log(k) }, image] }] });
  }
  const one = (m) => countMessages({ messages: [messages.at(-2), m] }, { model: "claude-sonnet-4-5" }).total;
  const last = messages.at(-1);
  const without = { ...last, content: [{ ...last.content[0], content: [last.content[0].content[0]] }] };
  assert.ok(one(last) - one(without) >= 500, `an image counted as ${one(last) - one(without)} tokens`);
  const r = await compact({ messages }, { model: "claude-sonnet-4-5", contextWindow: 4000, format: "anthropic" });
  assert.ok(r.report.tokensAfter <= r.report.budget.input, `${r.report.tokensAfter} > ${r.report.budget.input}`);
  const results = r.messages.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b) => b.type === "tool_result");
  const newest = results.find((b) => b.tool_use_id === "s3");
  assert.ok(newest, "the newest result is in the input");
  assert.ok(Array.isArray(newest.content), `its content became ${typeof newest.content}`);
  assert.deepEqual(newest.content.filter((b) => b.type === "image"), [image]);
  assert.match(newest.content.find((b) => b.type === "text").text, /cut to fit the context window/);
  // Whatever else of a result is kept keeps its image too.
  for (const b of results) assert.equal(b.content.filter((x) => x.type === "image").length, 1, b.tool_use_id);
});

test("overflow: \"truncate\" cuts the text of a message with an image beside it, in every format", async () => {
  const text = "Please review this log:\n" + Array.from({ length: 4000 }, (_, i) => `line ${i} ok`).join("\n");
  const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
  const cases = [
    [{ system: "s", messages: [{ role: "user", content: [{ type: "text", text }, { type: "image", source: { type: "base64", media_type: "image/png", data: png } }] }] }, "claude-sonnet-4-5", ["text", "image"]],
    [[{ role: "user", content: [{ type: "text", text }, { type: "image_url", image_url: { url: `data:image/png;base64,${png}` } }] }], "gpt-4o", ["text", "image_url"]],
    [[{ type: "message", role: "user", content: [{ type: "input_text", text }, { type: "input_image", image_url: `data:image/png;base64,${png}` }] }], "gpt-4o", ["input_text", "input_image"]],
    [[{ role: "user", content: [{ type: "text", text }, { type: "image", image: png, mediaType: "image/png" }] }], "gpt-4o", ["text", "image"]],
  ];
  for (const [conversation, model, parts] of cases) {
    const r = await compact(conversation, { model, contextWindow: 8192, overflow: "truncate" });
    assert.ok(r.report.tokensAfter <= r.report.budget.input);
    // The image is counted in what goes out, as a recount counts it.
    assert.equal(countMessages(r.messages, { model }).total, r.report.tokensAfter, model);
    const last = (r.messages.messages ?? r.messages).at(-1);
    assert.deepEqual(last.content.map((p) => p.type), parts, model);
    assert.match(last.content[0].text, /truncated \d+ characters/);
  }
});

test("an identifier the summary lost but the newest message repeats is kept, not lost", async () => {
  const filler = (n) => Array.from({ length: n }, (_, i) => ["alpha", "beta", "gamma", "delta"][i % 4]).join(" ");
  const paths = Array.from({ length: 80 }, (_, i) => `/srv/app/module_${i}/handler_${i}.ts`);
  const messages = [{ role: "system", content: "sys" }, { role: "user", content: `Files touched: ${paths.join(", ")}. Ticket PAY-4821.` }];
  for (let t = 0; t < 8; t++) messages.push({ role: "assistant", content: `Answer ${t}: ${filler(250)}` }, { role: "user", content: `Q${t + 1}: ${filler(250)}` });
  messages.push({ role: "assistant", content: "ok" }, { role: "user", content: "Is PAY-4821 fixed?" });
  const summarizer = async () => "## Conversation Summary\n- **Decisions:** None\n- **Entities:** None\n- **Facts:** Many files were touched.\n- **Open Items:** None";
  const r = await compact(messages, { model: "gpt-4o", contextWindow: 4096, summarizer, ledgerMaxTokens: 160 });
  assert.ok(r.report.lostIds.length > 0, "the test needs identifiers the ledger could not hold");
  assert.ok(!r.report.lostIds.includes("PAY-4821"));
  assert.ok(r.report.keptIds.includes("PAY-4821"));
});

test("a summary's short SHA and relative path of what the conversation says are not invented", async () => {
  const filler = (n) => Array.from({ length: n }, (_, i) => ["alpha", "beta", "gamma", "delta"][i % 4]).join(" ");
  const messages = [{ role: "system", content: "You are a support engineer assistant." }];
  for (let t = 0; t < 8; t++) {
    messages.push({ role: "user", content: t === 2 ? "The regression landed in commit 3f9c2a7d1e5b4c8f0a6d2e9b7c1f4a3d5e8b0c2f; see /srv/app/src/billing/invoice_renderer.ts." : `Question ${t}: ${filler(200)}` });
    messages.push({ role: "assistant", content: `Answer ${t}: ${filler(200)}` });
  }
  messages.push({ role: "user", content: "What should I do next?" });
  const summarizer = async () => "## Conversation Summary\n- **Decisions:** Revert commit 3f9c2a7 (the regression); check 9e9e9e9.\n- **Entities:** src/billing/invoice_renderer.ts\n- **Facts:** None\n- **Open Items:** Deploy the revert.";
  const r = await compact(messages, { model: "gpt-4o", contextWindow: 8192, manual: true, summarizer });
  assert.deepEqual(r.report.unsupportedIds, ["9e9e9e9"]);
  const summary = r.messages.find((m) => m.content.includes("Conversation Summary")).content;
  assert.match(summary, /Revert commit 3f9c2a7 \(the regression\)/);
  assert.match(summary, /src\/billing\/invoice_renderer\.ts/);
});

test("a request object's tools take their room: the input with them fits", async () => {
  const tools = Array.from({ length: 60 }, (_, i) => ({ name: `tool_${i}`, description: `Does task ${i} on the repository: ${"reads files, runs commands, reports back. ".repeat(4)}`, input_schema: { type: "object", properties: { path: { type: "string" }, mode: { type: "string", enum: ["a", "b"] } } } }));
  const messages = [];
  for (let i = 0; i < 30; i++) messages.push({ role: "user", content: `Question ${i}: ${"what about the build? ".repeat(20)}` }, { role: "assistant", content: `Answer ${i}: ${"it passes now. ".repeat(25)}` });
  messages.push({ role: "user", content: "And now?" });
  const request = { model: "claude-sonnet-4-5", max_tokens: 1024, system: "You are an agent.", tools, messages };
  const bare = countMessages({ system: request.system, messages }, { model: "claude-sonnet-4-5" }).total;
  const whole = countMessages(request, { model: "claude-sonnet-4-5" }).total;
  assert.ok(whole - bare > 5000, `the tools counted ${whole - bare} tokens`);
  const r = await compact(request, { model: "claude-sonnet-4-5", contextWindow: 16000 });
  assert.equal(r.messages.tools, tools);
  assert.ok(r.report.tokensAfter <= r.report.budget.input, `${r.report.tokensAfter} > ${r.report.budget.input}`);
  assert.equal(countMessages(r.messages, { model: "claude-sonnet-4-5" }).total, r.report.tokensAfter);
});

test("options.encoding with options.model counts the model with that encoding", async () => {
  const messages = [{ role: "user", content: "Count me with cl100k, in Claude's window." }];
  const counted = countMessages(messages, { model: "claude-sonnet-4-5", encoding: "cl100k_base" });
  assert.equal(counted.total, countMessages(messages, { encoding: "cl100k_base" }).total);
  const p = plan(messages, { model: "claude-sonnet-4-5", encoding: "cl100k_base" });
  assert.ok(p.budget.window >= 200_000, `${p.budget.window}`);
});

describe("every compactionStart is closed once: by compactionEnd or compactionFailed", () => {
  const SUMMARY = "## Conversation Summary\n- **Decisions:** None\n- **Entities:** None\n- **Facts:** talk\n- **Open Items:** None";
  const line = (i, role) => ({ role, content: `${role} ${i}: ${"the deployment pipeline failed again on the staging cluster. ".repeat(6)}` });
  /** The events of `c` in order, and a check that each start is closed once before the next. */
  const watch = (c, name, events) => {
    for (const type of ["compactionStart", "compactionEnd", "compactionFailed"]) c.on(type, (e) => events.push({ name, type, e }));
  };
  const paired = (events, name) => {
    let open = false;
    for (const { type } of events.filter((x) => x.name === name)) {
      if (type === "compactionStart") assert.ok(!open, `${name}: a second start before the first was closed`);
      else assert.ok(open, `${name}: ${type} without a start`);
      open = type === "compactionStart";
    }
    assert.ok(!open, `${name}: a start never closed`);
  };

  test("two Compactors over one store compact at once: the one that lost says so, and goes on", async () => {
    const store = new MemoryStore();
    const seed = new Compactor({ model: "gpt-4o", contextWindow: 100_000, store });
    for (let i = 0; i < 22; i++) {
      await seed.prepare("c", [line(i, "user")]);
      await seed.commit("c", line(i, "assistant"));
    }
    const events = [];
    const make = (name) => {
      const c = new Compactor({ model: "gpt-4o", contextWindow: 4096, store, summarizer: async () => (await new Promise((r) => setTimeout(r, 50)), SUMMARY) });
      watch(c, name, events);
      return c;
    };
    const [a, b] = [make("A"), make("B")];
    await Promise.all([a.prepare("c", [line(100, "user")]), b.prepare("c", [line(101, "user")])]);
    paired(events, "A");
    paired(events, "B");
    const failed = events.filter((x) => x.type === "compactionFailed");
    assert.equal(failed.length, 1, events.map((x) => `${x.name}:${x.type}`).join(", "));
    assert.equal(failed[0].e.retried, true);
    assert.equal(failed[0].e.error.code, "STALE_WRITE");
    assert.match(notify(failed[0].e), /superseded/);
    assert.match(sse(failed[0].e), /"phase":"failed"/);
  });

  test("a manual compaction whose summarizer fails", async () => {
    const events = [];
    const c = new Compactor({ model: "gpt-4o", contextWindow: 4096, summarizer: async () => { throw new Error("provider down"); } });
    watch(c, "C", events);
    for (let i = 0; i < 10; i++) {
      await c.prepare("c", [line(i, "user")]);
      await c.commit("c", line(i, "assistant"));
    }
    events.length = 0;
    await assert.rejects(c.compact("c"), (e) => e.code === "SUMMARIZER_FAILED");
    assert.deepEqual(events.map((x) => x.type), ["compactionStart", "compactionFailed"]);
    assert.equal(events[1].e.retried, false);
    assert.equal(events[1].e.error.code, "SUMMARIZER_FAILED");
    assert.match(notify(events[1].e), /^Compaction failed: /);
  });

  test("a compaction with the breaker open starts too", async () => {
    const events = [];
    const c = new Compactor({ model: "gpt-4o", contextWindow: 4096, guards: { breakerFailures: 1, breakerCooldownTurns: 50 }, summarizer: async () => { throw new Error("provider down"); } });
    watch(c, "C", events);
    let records = 0;
    for (let i = 0; i < 40; i++) {
      if ((await c.prepare("x", [line(i, "user")])).record) records++;
      await c.commit("x", line(i, "assistant"));
    }
    assert.ok(records >= 2, `${records} compactions`);
    paired(events, "C");
    assert.equal(events.filter((x) => x.type === "compactionEnd").length, records);
  });
});

describe("a store whose summaries, records or list break the contract", () => {
  const broken = (override) => Object.assign(new MemoryStore(), override);
  test("is a STORE_ERROR naming the method, as history() says it", async () => {
    const cases = [
      [{ records: async () => null }, (c) => c.records("c"), /records.*expected an array, got null/],
      [{ records: async () => [{ nonsense: true }] }, (c) => c.records("c"), /records.*\[0\]: expected an object with its seq/],
      [{ summaries: async () => undefined }, (c) => c.summaries("c"), /summaries.*expected an array, got undefined/],
      [{ list: async () => undefined }, (c) => c.list(), /list.*expected an array of conversation ids/],
      [{ list: async () => ["a", 7] }, (c) => c.list(), /list.*\[1\]: expected a conversation id/],
    ];
    for (const [override, run, message] of cases) {
      const store = broken(override);
      const c = new Compactor({ model: "gpt-4o", store });
      await c.prepare("c", [{ role: "user", content: "hi" }]);
      await assert.rejects(run(c), typed("STORE_ERROR", message));
    }
  });
});

test("an async event handler that rejects is reported, and the process goes on", async () => {
  const errors = [];
  const original = globalThis.reportError;
  globalThis.reportError = (e) => errors.push(e);
  try {
    const compactor = new Compactor({ model: "gpt-4o", contextWindow: 4096 });
    compactor.on("compactionEnd", async () => {
      throw new Error("the analytics endpoint is down");
    });
    for (let t = 0; t < 30; t++) {
      await compactor.prepare("c", [{ role: "user", content: `turn ${t} ${"words ".repeat(150)}` }]);
      await compactor.commit("c", { role: "assistant", content: "ok ".repeat(100) });
    }
    await new Promise((r) => setTimeout(r, 10));
    assert.ok(errors.length > 0, "no compaction happened, or its handler's rejection was not reported");
    assert.ok(errors.every((e) => e.message === "the analytics endpoint is down"));
  } finally {
    globalThis.reportError = original;
  }
});

test("a lone surrogate is taken as compact() takes it, and stored as it came", async () => {
  const compactor = new Compactor({ model: "gpt-4o" });
  const half = "launch 🚀".slice(0, -1);
  const r = await compactor.prepare("c", [{ role: "user", content: half }]);
  assert.equal(r.messages[0].content, half);
  await compactor.commit("c", { role: "assistant", content: half });
  assert.deepEqual((await compactor.history("c")).map((h) => h.message.content), [half, half]);
});

test("a conversation id with a lone surrogate is refused: two such ids were one conversation", async () => {
  const compactor = new Compactor({ model: "gpt-4o" });
  for (const id of ["chat-\ud83d", "chat-\ud83e", "\udc00x"]) {
    await assert.rejects(compactor.prepare(id, [{ role: "user", content: "my PIN is 4821" }]), typed("INVALID_ARGUMENT", /conversationId.*lone surrogates/));
  }
  assert.deepEqual(await compactor.list(), []);
  await compactor.prepare("chat-🐱", [{ role: "user", content: "hi" }]);
  const data = await compactor.export("chat-🐱");
  await assert.rejects(compactor.import(data, { id: "chat-\ud83d" }), typed("INVALID_ARGUMENT", /options\.id/));
  assert.deepEqual(await compactor.list(), ["chat-🐱"]);
});

describe("a store that breaks its contract or fails", () => {
  test("history() says which method returned what", async () => {
    for (const [method, value, words] of [
      ["messages", async () => "oops", /store\.messages\("c"\).*expected an array/],
      ["records", async () => [{ seq: 1 }], /store\.records\("c"\).*records\[0\]\.evicted/],
    ]) {
      const store = new MemoryStore();
      const compactor = new Compactor({ model: "gpt-4o", store });
      await compactor.prepare("c", [{ role: "user", content: "hi" }]);
      const broken = {};
      for (const m of ["load", "messages", "write", "summaries", "records", "list", "delete"]) broken[m] = (...a) => store[m](...a);
      broken[method] = value;
      const reader = new Compactor({ model: "gpt-4o", store: broken });
      await assert.rejects(reader.history("c"), typed("STORE_ERROR", words));
      assert.equal((await compactor.history("c")).length, 1);
    }
  });

  test("a write rejected with a string is said to be the store's", async () => {
    const store = new MemoryStore();
    store.write = async () => {
      throw "connection reset";
    };
    const compactor = new Compactor({ model: "gpt-4o", store });
    await assert.rejects(compactor.prepare("c", [{ role: "user", content: "hi" }]), (e) => {
      assert.equal(e.code, "STORE_ERROR");
      assert.match(e.message, /store\.write\("c"\) failed: it rejected with "connection reset"/);
      assert.doesNotMatch(e.message, /summarizer/);
      return true;
    });
  });

  test("a stale write carries the versions, and the Compactor's last one says what the store said", async () => {
    const e = staleWriteError("a", 1, 6);
    assert.deepEqual([e.code, e.expected, e.found], ["STALE_WRITE", 1, 6]);
    assert.equal(staleWriteError("a", 0, null).found, null);
    for (const args of [[42, 1, null], ["a", "x", null], ["a", 1, "7"], ["a", -1, null]]) {
      assert.throws(() => staleWriteError(...args), typed("INVALID_ARGUMENT"));
    }
    const store = new MemoryStore();
    const compactor = new Compactor({ model: "gpt-4o", store, writeRetries: 2 });
    await compactor.prepare("a", [{ role: "user", content: "hi" }]);
    store.write = async (id, expect) => {
      throw staleWriteError(id, expect, expect + 5);
    };
    const held = (await store.load("a")).version;
    await assert.rejects(compactor.prepare("a", [{ role: "user", content: "again" }]), typed("STALE_WRITE", new RegExp(`holds version ${held + 5}\\b`)));
  });

  test("an option a call does not take is named, with the ones it does", async () => {
    const compactor = new Compactor({ model: "gpt-4o" });
    await compactor.prepare("c", [{ role: "user", content: "hi" }]);
    await assert.rejects(compactor.compact("c", { instruction: "x" }), typed("INVALID_ARGUMENT", /known: instructions\)/));
  });
});

describe("argument errors", () => {
  test("a number past the largest a count can be says the bound", () => {
    for (const [key, value] of [["contextWindow", 2 ** 32], ["tokenFloor", 1e12]]) {
      assert.throws(() => plan([{ role: "user", content: "hi" }], { model: "gpt-4o", [key]: value }), typed("OUT_OF_RANGE", /to 4294967295/));
    }
  });

  test("a misspelt option whose value is a function says there is no such option", async () => {
    const summarizer = async () => "x";
    assert.throws(() => new Compactor({ model: "gpt-4o", sumarizer: summarizer }), typed("INVALID_ARGUMENT", /options\.sumarizer: expected no such option \(known: .*summarizer/));
    await assert.rejects(compact([{ role: "user", content: "hi" }], { model: "gpt-4o", sumarizer: summarizer }), typed("INVALID_ARGUMENT", /options\.sumarizer: expected no such option/));
    // A known option given a function is still told it takes none.
    assert.throws(() => plan([], { model: () => "gpt-4o" }), typed("INVALID_ARGUMENT", /options\.model: expected a value that is not a function/));
  });

  test("an unknown option's error carries the argument and the caller's known options as fields", () => {
    const caught = (fn) => {
      try {
        fn();
      } catch (e) {
        return e;
      }
      assert.fail("no error");
    };
    const e = caught(() => plan([], { model: "gpt-4o", treshold: 0.5 }));
    assert.equal(e.name, "TypeError");
    assert.equal(e.code, "INVALID_ARGUMENT");
    assert.equal(e.argument, "options.treshold");
    assert.ok(e.known.includes("thresholdRatio") && e.known.includes("state"), e.known.join());
    // A Compactor's list is its own: its JS options in, the refused ones out, sorted.
    const c = caught(() => new Compactor({ model: "gpt-4o", treshold: 0.5 }));
    assert.equal(c.argument, "options.treshold");
    for (const name of ["writeRetries", "store", "on", "guards", "thresholdRatio", "summarizer"]) assert.ok(c.known.includes(name), name);
    for (const name of ["state", "manual", "stateKey"]) assert.ok(!c.known.includes(name), name);
    assert.deepEqual(c.known, [...c.known].sort());
    assert.match(c.message, new RegExp(`expected no such option \\(known: ${c.known.join(", ")}\\)$`));
    // Nested paths are the argument too.
    const r = caught(() => plan([], { model: "gpt-4o", toolPolicies: { bash: "drop" } }));
    assert.equal(r.argument, "options.toolPolicies.bash");
    assert.equal(r.known, undefined);
  });

  test("a usage count JSON cannot carry is an INVALID_ARGUMENT that names it; a huge one is set aside as it was given", async () => {
    const compactor = new Compactor({ model: "gpt-4o" });
    const reply = [{ role: "assistant", content: "ok" }];
    await compactor.prepare("u", [{ role: "user", content: "hi" }]);
    for (const [usage, where] of [
      [{ prompt_tokens: NaN }, /usage\.prompt_tokens: expected a count of input tokens, got NaN/],
      [{ input_tokens: Infinity }, /usage\.input_tokens: expected a count of input tokens, got Infinity/],
      [{ usage: { prompt_tokens: NaN } }, /usage\.usage\.prompt_tokens/],
      [{ inputTokens: { total: -Infinity } }, /usage\.inputTokens\.total: expected a count of input tokens, got -Infinity/],
      [NaN, /usage: expected a count of input tokens, got NaN/],
    ]) {
      await assert.rejects(compactor.commit("u", reply, usage), typed("INVALID_ARGUMENT", where));
    }
    assert.equal((await compactor.history("u")).length, 1, "nothing stored by the refused commits");
    const r = await compactor.commit("u", reply, { prompt_tokens: 1e12 });
    assert.match(r.usageIgnored, /^1000000000000 tokens reported/);
  });

  test("a missing field is asked for in ctxfold's words", () => {
    assert.throws(() => new Compactor({ model: "gpt-4o", compactWhenCold: {} }), typed("INVALID_ARGUMENT", /compactWhenCold: expected an object with ttlSeconds$/));
  });

  test("a baseURL with user:password@ is refused, and the password is not shown", () => {
    assert.throws(
      () => openAISummarizer({ baseURL: "http://proxyuser:S3cretPassw0rd@127.0.0.1:9/v1", model: "m" }),
      (e) => typed("INVALID_ARGUMENT", /credentials/)(e) && !e.message.includes("S3cretPassw0rd"),
    );
  });
});

test("registerModel on a built-in id keeps what it leaves out, and leaves the longer built-in ids alone", () => {
  const text = "Deploy failed: ECONNREFUSED on db-prod-1:5432. Retrying with backoff.";
  const before = { count: countTokens(text, { model: "gpt-5" }), mini: getModel("gpt-5-mini") };
  assert.equal(registerModel({ id: "gpt-5", contextWindow: 64000 }), null, "no registration replaced");
  const m = getModel("gpt-5");
  assert.deepEqual([m.matchedBy, m.contextWindow, m.tokenizer, m.provider], ["override", 64000, { kind: "exact", encoding: "o200k_base" }, "openai"]);
  // GPT-5's output cap (128,000) does not fit the new window, so it is left out.
  assert.equal(m.maxOutputTokens, null);
  assert.equal(countTokens(text, { model: "gpt-5" }), before.count);
  assert.deepEqual(getModel("gpt-5-mini"), before.mini);
  assert.equal(getModel("openai/gpt-5-2025-08-07").matchedBy, "override");
  // What it gives is what it gets.
  registerModel({ id: "gpt-5", contextWindow: 64000, maxOutputTokens: 8000, tokenizer: { kind: "exact", encoding: "cl100k_base" } });
  assert.deepEqual([getModel("gpt-5").maxOutputTokens, getModel("gpt-5").tokenizer.encoding], [8000, "cl100k_base"]);
});
