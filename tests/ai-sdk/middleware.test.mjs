// ctxfold/ai-sdk with the real AI SDK (ai 5, 6 and 7, pinned in package.json) and the mock
// models of each version's ai/test: generateText and streamText with tools over long corpus
// conversations at an 8k window. Every prompt the mock receives is recounted with
// countMessages and must fit; every tool call in it must have its result; the kept messages
// must be the SDK's own objects; the mock's usage must reach the conversation's record; and
// what the caller gets back must equal what the same run gives without the middleware.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { countMessages, plan, isCtxfoldError } from "ctxfold";
import { compactionMiddleware } from "ctxfold/ai-sdk";
import { VERSIONS } from "./lib/versions.mjs";
import { toolConversations } from "./lib/corpus.mjs";
import { scriptedModel, recorder, replay } from "./lib/replay.mjs";

const WINDOW = 8192;
const OPTIONS = { model: "gpt-4o", contextWindow: WINDOW };
const BUDGET = plan([], OPTIONS).budget.input;
/** ctxfold's count of a prompt, with the call's tools beside it (the middleware counts them). */
const recount = (prompt, tools) => countMessages(tools?.length ? { messages: prompt, tools } : prompt, { model: "gpt-4o", format: "ai-sdk" }).total;
const corpusTokens = (messages) => countMessages(messages, { model: "gpt-4o" }).total;

// Two conversations: the longest (one agent task, tool call after tool call), and the one
// with the most user turns (tools in every turn).
const candidates = toolConversations().map((c) => ({ c, tokens: corpusTokens(c.messages), users: c.messages.filter((m) => m.role === "user").length }));
const longest = candidates.reduce((a, b) => (b.tokens > a.tokens ? b : a)).c;
const chattiest = candidates.reduce((a, b) => (b.users > a.users || (b.users === a.users && b.tokens > a.tokens) ? b : a)).c;

/** The first assistant message before which the conversation holds `times` windows. */
function startAfter(c, times) {
  for (let k = 2; k < c.messages.length; k++) {
    if (c.messages[k].role === "assistant" && corpusTokens(c.messages.slice(0, k)) > times * WINDOW) return k;
  }
  throw new Error(`${c.file} never reaches ${times} windows`);
}

const SCENARIOS = [
  { name: "the longest conversation", conversation: longest, from: startAfter(longest, 4), maxSteps: 8 },
  { name: "the conversation with the most turns", conversation: chattiest, from: startAfter(chattiest, 2), maxSteps: 14 },
];
console.log(
  `# window ${WINDOW}, input budget ${BUDGET}; ` +
    SCENARIOS.map((s) => `${s.name}: ${s.conversation.file} from message ${s.from} (${corpusTokens(s.conversation.messages.slice(0, s.from))} tokens before it)`).join("; "),
);

/** Tool calls without their results, and results without their calls, in a provider-level prompt. */
function pairingProblems(prompt) {
  const open = new Set();
  const problems = [];
  prompt.forEach((m, i) => {
    if (!Array.isArray(m.content)) return;
    for (const p of m.content) {
      if (p.type === "tool-call") open.add(p.toolCallId);
      if (p.type === "tool-result" && !open.delete(p.toolCallId)) problems.push(`prompt[${i}] answers ${p.toolCallId}, which no earlier message calls`);
    }
  });
  for (const id of open) problems.push(`the call ${id} has no result`);
  return problems;
}

/** A provider-level prompt's shape: a system message's content a string, every other's an array. */
function shapeProblems(prompt) {
  return prompt.flatMap((m, i) =>
    (m.role === "system" ? typeof m.content === "string" : Array.isArray(m.content)) ? [] : [`prompt[${i}] (${m.role}) has content ${typeof m.content}`],
  );
}

/**
 * Messages of `sent` that are neither the SDK's own objects from `original` (in order) nor
 * what the report documents: a summary, or a copy of a pruned or cut message.
 */
function identityProblems(original, sent, report) {
  const at = new Map(original.map((m, i) => [m, i]));
  const copies = report.pruned.messages.length + report.truncatedMessages.length + (report.summaryMergedInto === null ? 0 : 1);
  const problems = [];
  let last = -1;
  let others = 0;
  for (const m of sent) {
    const i = at.get(m);
    if (i === undefined) {
      const text = typeof m.content === "string" ? m.content : m.content.map((p) => p.text ?? "").join("");
      if (!text.startsWith("## Conversation Summary")) others++;
      continue;
    }
    if (i <= last) problems.push(`original[${i}] out of order`);
    last = i;
  }
  if (others > copies) problems.push(`${others} messages are neither the SDK's nor documented copies (${copies})`);
  return problems;
}

/** Whether the prompt still ends with the SDK's newest message (itself, or its documented copy). */
const keepsNewest = (original, sent, report) =>
  sent.at(-1) === original.at(-1) || report.pruned.messages.includes(original.length - 1) || report.truncatedMessages.includes(original.length - 1);

/** Drops what the SDK measures in time (ai 7's `performance`), which differs between any two runs. */
function withoutTimings(v) {
  if (Array.isArray(v)) return v.map(withoutTimings);
  if (v === null || typeof v !== "object" || v instanceof Date) return v;
  return Object.fromEntries(Object.entries(v).filter(([k]) => k !== "performance").map(([k, x]) => [k, withoutTimings(x)]));
}

const conversationKey = (params) => {
  const id = params.providerOptions?.ctxfold?.conversationId;
  return typeof id === "string" ? id : undefined;
};
const inConversation = (id) => ({ providerOptions: { ctxfold: { conversationId: id } } });

const SUMMARY_TEXT =
  "## Conversation Summary\n- **Decisions:** The agent keeps working through the task.\n- **Entities:** None\n- **Facts:** Earlier steps read files and ran commands.\n- **Open Items:** None";

/** A "same-model" summary answer in the version's result shape. */
const summaryResult = (version) => ({
  content: [{ type: "text", text: SUMMARY_TEXT }],
  finishReason: version.spec.finishReason("stop"),
  usage: version.spec.usage(900, 80),
  response: { id: "summary", timestamp: new Date(0), modelId: "summary-model" },
  warnings: [],
});

for (const version of VERSIONS) {
  describe(version.name, () => {
    for (const scenario of SCENARIOS) {
      for (const stream of [false, true]) {
        const mode = stream ? "streamText" : "generateText";
        test(`${mode} with tools over ${scenario.name}: within budget, paired, usage recorded, response unchanged`, async () => {
          const key = `${mode}-${scenario.conversation.id}`;
          const reports = [];
          const middleware = compactionMiddleware({ ...OPTIONS, conversationKey, onReport: (e) => reports.push(e) });
          // What the SDK built (before), what the middleware returned (after), what the mock got.
          const before = recorder();
          const after = recorder();
          const mock = scriptedModel(version);
          const model = version.ai.wrapLanguageModel({ model: mock.model, middleware: [before.middleware, middleware, after.middleware] });
          const run = await replay({ version, ...scenario, stream, model, mock, callOptions: inConversation(key) });

          assert.equal(mock.calls.length, scenario.maxSteps);
          assert.equal(before.prompts.length, mock.calls.length);
          let compacted = 0;
          mock.calls.forEach((call, i) => {
            const sent = call.params.prompt;
            const original = before.prompts[i];
            const tokens = recount(sent, call.params.tools);
            assert.ok(call.params.tools?.length > 0, "the calls carry their tools");
            assert.ok(tokens <= BUDGET, `call ${i}: ${tokens} tokens, over the budget of ${BUDGET}`);
            assert.deepEqual(pairingProblems(sent), [], `call ${i}`);
            assert.deepEqual(shapeProblems(sent), [], `call ${i}`);
            assert.deepEqual(identityProblems(original, after.prompts[i], reports[i].report), [], `call ${i}`);
            // Unless the SDK adapts the model (ai 7 with a V3 model converts the prompt), the
            // mock got the middleware's very array.
            if (!version.adapted) assert.equal(sent, after.prompts[i]);
            // ctxfold's count of what it sent is the recount: the estimate the record keeps is exact here.
            assert.equal(reports[i].report.tokensAfter, tokens, `call ${i}`);
            assert.equal(reports[i].key, key);
            if (recount(original, call.params.tools) > BUDGET) compacted++;
          });
          // Not vacuous: the SDK's own prompts were over the window, every one of them.
          assert.equal(compacted, mock.calls.length, "every prompt the SDK built was over the budget");
          if (scenario.conversation === chattiest) assert.ok(run.results.length > 1, "the replay crosses user turns");

          // The mock's usage reached the conversation's record, for every call.
          const status = middleware.status(key);
          assert.equal(status.calls, mock.calls.length);
          assert.equal(status.reported, mock.calls.length);
          const last = mock.calls.at(-1);
          const usage = stream ? last.parts.at(-1).usage : last.result.usage;
          assert.equal(status.usage.inputTokens, version.spec.inputTokensOf(usage));
          assert.equal(status.usage.outputTokens, 20 + last.step);
          assert.equal(status.usage.estimate, recount(last.params.prompt, last.params.tools));
          if (!version.adapted) assert.equal(status.usage.raw, usage, "the usage object as the model returned it");
          assert.ok(status.state.chunks.length > 0, "summaries are kept for the next call");
          assert.equal(status.report, reports.at(-1).report);

          // The same run without the middleware gives the caller the same results.
          const plain = scriptedModel(version);
          const base = await replay({ version, ...scenario, stream, model: plain.model, mock: plain, callOptions: inConversation(key) });
          assert.deepEqual(withoutTimings(run.results), withoutTimings(base.results));
          assert.equal(run.results.reduce((n, r) => n + r.steps.length, 0), scenario.maxSteps);
        });
      }
    }

    test("the wrapped model returns the mock's own result object and stream parts", { skip: version.adapted && "ai 7 adapts a V3 model's results" }, async () => {
      const middleware = compactionMiddleware({ ...OPTIONS, conversationKey: () => "identity" });
      const before = recorder();
      const mock = scriptedModel(version);
      const model = version.ai.wrapLanguageModel({ model: mock.model, middleware: [before.middleware, middleware] });
      const { conversation, from } = SCENARIOS[0];
      await replay({ version, conversation, from, maxSteps: 1, stream: false, model, mock });
      const params = { ...mock.calls[0].params, prompt: before.prompts[0] };
      const next = conversation.messages.slice(from + 1).filter((m) => m.role === "assistant").slice(0, 2);
      mock.queue(next);
      const wrapped = version.ai.wrapLanguageModel({ model: mock.model, middleware });

      const result = await wrapped.doGenerate(params);
      assert.equal(result, mock.calls.at(-1).result);
      assert.ok(recount(mock.calls.at(-1).params.prompt, mock.calls.at(-1).params.tools) <= BUDGET);

      const { stream } = await wrapped.doStream(params);
      const parts = [];
      for await (const p of stream) parts.push(p);
      const sent = mock.calls.at(-1).parts;
      assert.equal(parts.length, sent.length);
      parts.forEach((p, i) => assert.equal(p, sent[i], `part ${i}`));
      assert.equal(middleware.status("identity").reported, 3);
    });

    test(
      "every prompt ends with the SDK's newest message (the step the model just took)",
      async () => {
        const reports = [];
        const middleware = compactionMiddleware({ ...OPTIONS, conversationKey, onReport: (e) => reports.push(e) });
        const before = recorder();
        const after = recorder();
        const mock = scriptedModel(version);
        const model = version.ai.wrapLanguageModel({ model: mock.model, middleware: [before.middleware, middleware, after.middleware] });
        for (const scenario of SCENARIOS) await replay({ version, ...scenario, stream: false, model, mock, callOptions: inConversation(scenario.name) });
        const dropped = before.prompts.flatMap((original, i) => (keepsNewest(original, after.prompts[i], reports[i].report) ? [] : [i]));
        assert.deepEqual(dropped, [], `of ${mock.calls.length} calls`);
      },
    );

    test('summarizer "same-model": the wrapped model summarizes, with the cap, a deadline signal and the call\'s headers', async () => {
      const middleware = compactionMiddleware({ ...OPTIONS, summarizer: "same-model", summaryMaxTokens: 600, conversationKey });
      const mock = scriptedModel(version, { summarize: async () => summaryResult(version) });
      const model = version.ai.wrapLanguageModel({ model: mock.model, middleware });
      const { conversation, from } = SCENARIOS[0];
      await replay({ version, conversation, from, maxSteps: 6, stream: false, model, mock, callOptions: { ...inConversation("sm"), headers: { "x-trace": "t-1" } } });

      assert.ok(mock.summaries.length > 0);
      for (const { params } of mock.summaries) {
        assert.equal(params.maxOutputTokens, 600);
        assert.ok(params.abortSignal instanceof AbortSignal);
        assert.equal(params.headers?.["x-trace"], "t-1");
        assert.equal(params.prompt.length, 2);
        assert.equal(params.prompt[0].role, "system");
        assert.match(params.prompt[0].content, /## Conversation Summary/);
        assert.deepEqual(params.prompt[1].content.map((p) => p.type), ["text"]);
      }
      // The summaries are in the next prompts, and kept: later steps reuse them.
      for (const call of mock.calls) {
        assert.ok(recount(call.params.prompt, call.params.tools) <= BUDGET);
        const text = JSON.stringify(call.params.prompt);
        assert.ok(text.includes("The agent keeps working through the task."), `step ${call.step} has the summary`);
      }
      const { state } = middleware.status("sm");
      assert.ok(state.chunks.every((c) => c.model === "summary-model"));
      assert.deepEqual(state.chunks[0].usage, summaryResult(version).usage);
      assert.ok(mock.summaries.length < mock.calls.length * 2, `${mock.summaries.length} summaries for ${mock.calls.length} calls`);
    });

    test('a "same-model" summary past its deadline is aborted, and the extractive summary stands in', async () => {
      const seen = [];
      const reports = [];
      const middleware = compactionMiddleware({ ...OPTIONS, summarizer: "same-model", summarizerTimeoutMs: 150, conversationKey, onReport: (e) => reports.push(e) });
      const mock = scriptedModel(version, {
        summarize: (params) =>
          new Promise((_, reject) => {
            seen.push(params.abortSignal);
            if (params.abortSignal.aborted) reject(params.abortSignal.reason);
            params.abortSignal.addEventListener("abort", () => reject(params.abortSignal.reason));
          }),
      });
      const model = version.ai.wrapLanguageModel({ model: mock.model, middleware });
      const { conversation, from } = SCENARIOS[0];
      await replay({ version, conversation, from, maxSteps: 1, stream: false, model, mock, callOptions: inConversation("late") });
      assert.ok(seen.length > 0);
      assert.ok(seen.every((s) => s.aborted), "every summary call was aborted at the deadline");
      assert.equal(reports[0].report.fallback.kind, "extractive");
      assert.match(reports[0].report.fallback.reason, /did not answer within 150 ms/);
      assert.ok(recount(mock.calls[0].params.prompt, mock.calls[0].params.tools) <= BUDGET);
    });

    test("the caller's abort signal aborts a summary made for its call", async () => {
      const controller = new AbortController();
      const stop = new Error("the user stopped");
      const seen = [];
      const middleware = compactionMiddleware({ ...OPTIONS, summarizer: "same-model" });
      const mock = scriptedModel(version, {
        summarize: (params) =>
          new Promise((_, reject) => {
            seen.push(params.abortSignal);
            params.abortSignal.addEventListener("abort", () => reject(params.abortSignal.reason));
            controller.abort(stop);
          }),
      });
      const model = version.ai.wrapLanguageModel({ model: mock.model, middleware });
      const { conversation, from } = SCENARIOS[0];
      await replay({ version, conversation, from, maxSteps: 1, stream: false, model, mock, callOptions: { abortSignal: controller.signal } }).catch(() => {});
      // The first summary call is aborted with the caller's reason; none is made after it.
      assert.equal(seen.length, 1);
      assert.equal(seen[0].aborted, true);
      assert.equal(seen[0].reason, stop);
    });

    test("the caller's abort reaches your summarizer's signal, and the call does not wait for it", async () => {
      const stop = new Error("the user stopped");
      // A summarizer that rejects when its signal aborts, and one that goes on regardless (10 s).
      for (const honours of [true, false]) {
        const controller = new AbortController();
        const seen = [];
        const summarizer = (request) =>
          new Promise((resolve, reject) => {
            seen.push(request.signal);
            if (honours) request.signal.addEventListener("abort", () => reject(request.signal.reason));
            setTimeout(() => resolve(SUMMARY_TEXT), 10_000).unref();
          });
        setTimeout(() => controller.abort(stop), 50).unref();
        const middleware = compactionMiddleware({ ...OPTIONS, summarizer });
        const mock = scriptedModel(version, { summarize: () => Promise.reject(new Error("not asked")) });
        const model = version.ai.wrapLanguageModel({ model: mock.model, middleware });
        const { conversation, from } = SCENARIOS[0];
        const started = Date.now();
        await replay({ version, conversation, from, maxSteps: 1, stream: false, model, mock, callOptions: { abortSignal: controller.signal } }).catch(() => {});
        assert.ok(Date.now() - started < 5_000, `honours ${honours}: the call waited ${Date.now() - started} ms for the summary`);
        assert.ok(seen.length >= 1, "a summary was asked for");
        assert.equal(seen[0].aborted, true);
        assert.equal(seen[0].reason, stop);
      }
    });
  });
}

describe("conversations", () => {
  const version = VERSIONS[1];
  const { ai } = version;
  const short = (text) => [{ role: "user", content: text }];
  const textModel = () =>
    new version.Mock({
      doGenerate: async () => ({ content: [{ type: "text", text: "ok" }], finishReason: version.spec.finishReason("stop"), usage: version.spec.usage(10, 1), warnings: [] }),
    });

  test('"same-model" without a conversationKey keys conversations by their head: as few summaries as with a key', async () => {
    const { conversation, from } = SCENARIOS[0];
    const run = async (options) => {
      const reports = [];
      const middleware = compactionMiddleware({ ...OPTIONS, summarizer: "same-model", ...options, onReport: (e) => reports.push(e) });
      const mock = scriptedModel(version, { summarize: async () => summaryResult(version) });
      const model = ai.wrapLanguageModel({ model: mock.model, middleware });
      await replay({ version, conversation, from, maxSteps: 20, stream: false, model, mock });
      for (const call of mock.calls) assert.ok(recount(call.params.prompt, call.params.tools) <= BUDGET);
      return { reports, summaries: mock.summaries.length, calls: mock.calls.length };
    };
    const derived = await run({});
    const keyed = await run({ conversationKey: () => "k" });
    const stateless = await run({ conversationKey: null });
    console.log(`# "same-model" over ${derived.calls} calls: ${derived.summaries} summaries without a key, ${keyed.summaries} with one, ${stateless.summaries} stateless`);
    assert.equal(derived.summaries, keyed.summaries);
    assert.ok(derived.reports.every((e) => /^head:[0-9a-f]{14}$/.test(e.key) && e.key === derived.reports[0].key));
    // conversationKey: null is stateless on purpose: every call summarizes afresh.
    assert.ok(stateless.reports.every((e) => e.key === null));
    assert.ok(stateless.summaries > 4 * keyed.summaries, `${stateless.summaries} stateless, ${keyed.summaries} keyed`);
  });

  test('stateless by default ("same-model": with conversationKey: null): nothing is kept, and every call compacts what it is given', async () => {
    const { conversation, from } = SCENARIOS[0];
    const run = async (options) => {
      const reports = [];
      const middleware = compactionMiddleware({ ...OPTIONS, summarizer: "same-model", ...options, onReport: (e) => reports.push(e) });
      const mock = scriptedModel(version, { summarize: async () => summaryResult(version) });
      const model = ai.wrapLanguageModel({ model: mock.model, middleware });
      await replay({ version, conversation, from, maxSteps: 3, stream: false, model, mock, callOptions: inConversation("c") });
      for (const call of mock.calls) assert.ok(recount(call.params.prompt, call.params.tools) <= BUDGET);
      return { middleware, reports, mock };
    };
    const stateless = await run({ conversationKey: null });
    assert.ok(stateless.reports.every((e) => e.key === null && e.report.trigger === "threshold"));
    assert.equal(stateless.middleware.status("c"), undefined);
    // Each call summarized afresh; with a key, later calls reuse the summaries (what a key saves).
    const keyed = await run({ conversationKey });
    assert.ok(stateless.mock.summaries.length >= stateless.mock.calls.length);
    assert.ok(keyed.mock.summaries.length < stateless.mock.summaries.length, `${keyed.mock.summaries.length} summaries with a key, ${stateless.mock.summaries.length} without`);
  });

  test('"head": one key per conversation, from its system prompt and first user message', async () => {
    const reports = [];
    const middleware = compactionMiddleware({ ...OPTIONS, conversationKey: "head", onReport: (e) => reports.push(e) });
    const model = ai.wrapLanguageModel({ model: textModel(), middleware });
    await ai.generateText({ model, system: "s", messages: short("first") });
    await ai.generateText({ model, system: "s", messages: [...short("first"), { role: "assistant", content: "ok" }, ...short("more")] });
    await ai.generateText({ model, system: "s", messages: short("another") });
    await ai.generateText({ model, system: "t", messages: short("first") });
    const keys = reports.map((e) => e.key);
    assert.match(keys[0], /^head:[0-9a-f]{14}$/);
    assert.equal(keys[1], keys[0]);
    assert.equal(new Set(keys).size, 3);
    assert.equal(middleware.status(keys[0]).calls, 2);
    assert.equal(middleware.status(keys[0]).reported, 2);
    assert.equal(middleware.forget(keys[0]), true);
    assert.equal(middleware.status(keys[0]), undefined);
  });

  test("the map keeps at most maxConversations, the least recently used dropped first", async () => {
    const middleware = compactionMiddleware({ ...OPTIONS, conversationKey, maxConversations: 2 });
    const model = ai.wrapLanguageModel({ model: textModel(), middleware });
    const call = (id) => ai.generateText({ model, messages: short(id), ...inConversation(id) });
    await call("a");
    await call("b");
    await call("a");
    await call("c");
    assert.ok(middleware.status("a"));
    assert.equal(middleware.status("b"), undefined);
    assert.ok(middleware.status("c"));
  });

  test("after a trap elsewhere restarts the module, the records kept stay kept and the bound still holds", async () => {
    // The module the entry instantiated (one instance per URL), and a trap in it.
    const root = new URL("./", import.meta.resolve("ctxfold"));
    const bindings = await import(new URL("dist/full/ctxfold.js", root).href);
    const { guard } = await import(new URL("lib/guard.js", root).href);
    const trap = guard(bindings).wrap(bindings.__ctxfoldTestPanic);
    const middleware = compactionMiddleware({ ...OPTIONS, conversationKey, maxConversations: 2 });
    const model = ai.wrapLanguageModel({ model: textModel(), middleware });
    const call = (id) => ai.generateText({ model, messages: short(id), ...inConversation(id) });
    await call("a");
    await call("b");
    assert.throws(() => trap("a test panic"), (e) => isCtxfoldError(e) && e.code === "INTERNAL");
    await call("a");
    assert.equal(middleware.status("a").calls, 2, "a's record outlived the restart");
    await call("c");
    assert.equal(middleware.status("b"), undefined, "b, used least recently, dropped");
    assert.ok(middleware.status("a"));
    assert.ok(middleware.status("c"));
  });

  test("calls on one key run one after another: a summary is made once, not once per call", async () => {
    const { conversation, from } = SCENARIOS[0];
    const once = async (keyed, calls) => {
      const middleware = compactionMiddleware({ ...OPTIONS, summarizer: "same-model", conversationKey: keyed ? () => "same" : null });
      const mock = scriptedModel(version, {
        summarize: async () => {
          await new Promise((r) => setTimeout(r, 20));
          return summaryResult(version);
        },
      });
      const model = ai.wrapLanguageModel({ model: mock.model, middleware });
      await Promise.all(Array.from({ length: calls }, () => replay({ version, conversation, from, maxSteps: 1, stream: false, model, mock })));
      for (const call of mock.calls) assert.ok(recount(call.params.prompt, call.params.tools) <= BUDGET);
      return mock.summaries.length;
    };
    const alone = await once(true, 1);
    assert.ok(alone > 0);
    assert.equal(await once(true, 3), alone);
    assert.equal(await once(false, 3), 3 * alone);
  });
});

test("the call's tool definitions are counted beside its prompt", async () => {
  const reports = [];
  const middleware = compactionMiddleware({ ...OPTIONS, onReport: (e) => reports.push(e.report) });
  const prompt = [
    { role: "system", content: "You are an agent." },
    { role: "user", content: [{ type: "text", text: "Read src/main.rs" }] },
  ];
  const tool = (i) => ({ type: "function", name: `tool_${i}`, description: `Tool number ${i} of the agent: it reads and writes files under /srv/app.`, inputSchema: { type: "object", properties: { path: { type: "string" } } } });
  const tools = Array.from({ length: 40 }, (_, i) => tool(i));
  const bare = await middleware.transformParams({ type: "generate", params: { prompt }, model: { modelId: "gpt-4o" } });
  const withTools = await middleware.transformParams({ type: "generate", params: { prompt, tools }, model: { modelId: "gpt-4o" } });
  assert.deepEqual(withTools.prompt, bare.prompt);
  assert.equal(withTools.tools, tools);
  const toolTokens = countMessages({ messages: [], tools }, { model: "gpt-4o", format: "ai-sdk" }).total;
  assert.ok(reports[1].tokensAfter - reports[0].tokensAfter >= toolTokens - 10, `${reports[0].tokensAfter} -> ${reports[1].tokensAfter} (tools ${toolTokens})`);
});

describe("options", () => {
  const invalid = (code, name, pattern) => (e) => {
    assert.equal(e.name, name);
    assert.equal(e.code, code);
    assert.equal(isCtxfoldError(e), true);
    assert.match(e.message, pattern);
    return true;
  };

  test("what the middleware sets per call, and bad values, are refused when it is made", () => {
    for (const key of ["state", "format", "manual", "instructions"]) {
      assert.throws(() => compactionMiddleware({ ...OPTIONS, [key]: null }), invalid("INVALID_ARGUMENT", "TypeError", new RegExp(`options\\.${key}`)));
    }
    assert.throws(() => compactionMiddleware({ ...OPTIONS, thresholdRatio: 2 }), invalid("OUT_OF_RANGE", "RangeError", /thresholdRatio/));
    assert.throws(() => compactionMiddleware({ ...OPTIONS, bogus: 1 }), invalid("INVALID_ARGUMENT", "TypeError", /options\.bogus/));
    assert.throws(() => compactionMiddleware({ conversationKey: 42 }), invalid("INVALID_ARGUMENT", "TypeError", /conversationKey/));
    assert.throws(() => compactionMiddleware({ maxConversations: 0 }), invalid("OUT_OF_RANGE", "RangeError", /maxConversations/));
    assert.throws(() => compactionMiddleware({ summarizer: "gpt-4o" }), invalid("INVALID_ARGUMENT", "TypeError", /"same-model"/));
    assert.throws(() => compactionMiddleware({ onReport: "log" }), invalid("INVALID_ARGUMENT", "TypeError", /onReport/));
    assert.throws(() => compactionMiddleware(null), invalid("INVALID_ARGUMENT", "TypeError", /options/));
  });

  test("without model or contextWindow, names and kinds are checked when it is made, what needs the window at the first call", async () => {
    const version = VERSIONS[2];
    // The known options named are the middleware's: not those it sets per call.
    assert.throws(() => compactionMiddleware({ bogus: 1 }), (e) => {
      invalid("INVALID_ARGUMENT", "TypeError", /options\.bogus/)(e);
      const known = e.message.match(/known: ([^)]*)\)/)[1].split(", ");
      assert.ok(known.includes("conversationKey") && known.includes("summarizer") && known.includes("contextWindow"), e.message);
      assert.ok(!known.includes("format") && !known.includes("state") && !known.includes("manual"), e.message);
      return true;
    });
    assert.throws(() => compactionMiddleware({ tokenFloor: "x" }), invalid("INVALID_ARGUMENT", "TypeError", /options\.tokenFloor/));
    // The wrapped model's window (gpt-4o's 128,000) is known at the first call.
    const middleware = compactionMiddleware({ reservedOutputTokens: 300_000 });
    const model = version.ai.wrapLanguageModel({ model: new version.Mock({ modelId: "gpt-4o" }), middleware });
    await assert.rejects(version.ai.generateText({ model, prompt: "hi" }), invalid("OUT_OF_RANGE", "RangeError", /reservedOutputTokens/));
  });

  test("a wrapped model whose window ctxfold cannot know fails its first call with UNKNOWN_MODEL, until contextWindow is given", async () => {
    const version = VERSIONS[2];
    const call = (mock, options = {}) => version.ai.generateText({ model: version.ai.wrapLanguageModel({ model: mock, middleware: compactionMiddleware(options) }), prompt: "hi" });
    const text = { doGenerate: async () => ({ content: [{ type: "text", text: "ok" }], finishReason: version.spec.finishReason("stop"), usage: version.spec.usage(10, 1), warnings: [] }) };
    // The mock's own id, "mock-model-id", is no model ctxfold knows.
    await assert.rejects(call(new version.Mock(text)), invalid("UNKNOWN_MODEL", "CtxfoldError", /unknown model "mock-model-id".*contextWindow/));
    // Llama 3.1 through Ollama's provider: the window is the server's, not the table's 128,000.
    const ollama = () => new version.Mock({ ...text, provider: "ollama.chat", modelId: "llama3.1" });
    await assert.rejects(call(ollama()), invalid("UNKNOWN_MODEL", "CtxfoldError", /"ollama\/llama3\.1" is served by Ollama/));
    const reports = [];
    await call(ollama(), { contextWindow: 4096, onReport: (e) => reports.push(e.report) });
    assert.equal(reports[0].budget.window, 4096);
    // Another provider's Llama 3.1 is the table's.
    await call(new version.Mock({ ...text, provider: "groq.chat", modelId: "llama-3.1-8b-instant" }), { onReport: (e) => reports.push(e.report) });
    assert.equal(reports[1].budget.window, 128_000);
  });

  test("a call's maxOutputTokens takes its room in the window: the prompt and the reply fit", async () => {
    // A history of about 6,700 tokens, under the default budget (8,192 - 1,024) but not
    // under 8,192 - 4,000.
    const messages = [];
    for (let i = 0; i < 20; i++) messages.push({ role: i % 2 ? "assistant" : "user", content: `turn ${i} about the billing service retries `.repeat(40) });
    for (const version of VERSIONS) {
      const seen = [];
      const reports = [];
      const middleware = compactionMiddleware({ ...OPTIONS, onReport: (r) => reports.push(r.report) });
      const mock = new version.Mock({
        doGenerate: async (params) => {
          seen.push(params);
          return { content: [{ type: "text", text: "ok" }], finishReason: version.spec.finishReason("stop"), usage: version.spec.usage(10, 1), warnings: [] };
        },
      });
      const model = version.ai.wrapLanguageModel({ model: mock, middleware });
      for (const maxOutputTokens of [4000, undefined, 200]) {
        await version.ai.generateText({ model, messages, maxOutputTokens });
        const params = seen.at(-1);
        const report = reports.at(-1);
        const cap = maxOutputTokens ?? 1024;
        assert.equal(report.budget.reservedOutput, cap, version.name);
        assert.ok(recount(params.prompt) + (params.maxOutputTokens ?? 1024) <= WINDOW, `${version.name}: ${recount(params.prompt)} + ${params.maxOutputTokens}`);
      }
      assert.ok(reports[0].trigger !== null, `${version.name}: the 4,000-token cap made it compact`);
      // A reservedOutputTokens larger than the call's cap stays.
      const larger = compactionMiddleware({ ...OPTIONS, reservedOutputTokens: 3000, onReport: (r) => reports.push(r.report) });
      await version.ai.generateText({ model: version.ai.wrapLanguageModel({ model: mock, middleware: larger }), messages, maxOutputTokens: 200 });
      assert.equal(reports.at(-1).budget.reservedOutput, 3000, version.name);
    }
  });

  test("a conversation key that is not a string fails the call", async () => {
    const version = VERSIONS[0];
    const middleware = compactionMiddleware({ ...OPTIONS, conversationKey: () => 7 });
    const model = version.ai.wrapLanguageModel({ model: new version.Mock(), middleware });
    await assert.rejects(version.ai.generateText({ model, prompt: "hi" }), invalid("INVALID_ARGUMENT", "TypeError", /returned number/));
  });
});
