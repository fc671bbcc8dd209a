// The recall tool in a real AI SDK agent loop (ai 5, 6 and 7, each with its own mock model): a
// corpus conversation held by a Compactor at an 8k window, its compacted input given to
// generateText with `tools: { recall: compactor.recallTool(id, { format: "ai-sdk", jsonSchema }) }`.
// The scripted model asks recall the corpus probe's question; the message that holds the
// answer was summarized away, and comes back in the tool result the model reads next. The
// same through the middleware (`recall: true`), which offers the tool and answers it itself.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { Compactor, countMessages, countTokens, plan } from "ctxfold";
import { compactionMiddleware } from "ctxfold/ai-sdk";
import { VERSIONS } from "./lib/versions.mjs";
import { FILE, WINDOW, evidence, modelMessages, probe } from "./lib/recall-probe.mjs";

/** A mock that calls recall with the probe's question, then answers with what the tool gave it. */
function scripted(version) {
  const { Mock, spec } = version;
  const prompts = [];
  const tools = [];
  const model = new Mock({
    modelId: "mock-model",
    doGenerate: async (params) => {
      prompts.push(params.prompt);
      tools.push(params.tools);
      const response = { id: `resp-${prompts.length}`, timestamp: new Date(0), modelId: "mock-model" };
      const usage = spec.usage(4000, 20);
      if (prompts.length === 1) {
        const content = [{ type: "tool-call", toolCallId: "recall-1", toolName: "recall", input: JSON.stringify({ query: probe.question }) }];
        return { content, finishReason: spec.finishReason("tool-calls"), usage, response, warnings: [] };
      }
      return { content: [{ type: "text", text: "Found it." }], finishReason: spec.finishReason("stop"), usage, response, warnings: [] };
    },
  });
  return { model, prompts, tools };
}

/** The text of the tool results for `name` in a provider-level prompt. */
const toolResults = (prompt, name) =>
  prompt
    .filter((m) => m.role === "tool")
    .flatMap((m) => m.content)
    .filter((p) => p.type === "tool-result" && p.toolName === name)
    .map((p) => (p.output.type === "text" ? p.output.value : JSON.stringify(p.output.value)));

for (const version of VERSIONS) {
  describe(version.name, () => {
    test("the middleware offers recall, answers the model's call from the whole prompt, and the SDK sees only the answer", async () => {
      const { ai } = version;
      const { model: mock, prompts, tools } = scripted(version);
      const model = ai.wrapLanguageModel({ model: mock, middleware: compactionMiddleware({ model: "gpt-4o", contextWindow: WINDOW, recall: true }) });
      const [system, ...messages] = modelMessages();
      const result = await ai.generateText({ model, [version.system]: system.content, messages });
      assert.equal(result.text, "Found it.");
      assert.equal(result.steps.length, 1, "the SDK's loop never saw the tool");
      assert.equal(prompts.length, 2, "the recall call, then the model asked again");
      const schema = new Compactor({ model: "gpt-4o" }).recallTool("x", { format: "openai" }).function.parameters;
      assert.deepEqual(tools[0].map((t) => [t.type, t.name, t.inputSchema]), [["function", "recall", schema]]);
      const budget = plan([], { model: "gpt-4o", contextWindow: WINDOW }).budget.input;
      const sent = countMessages({ messages: prompts[0], tools: tools[0] }, { model: "gpt-4o", format: "ai-sdk" }).total;
      assert.ok(sent <= budget, `the first prompt with the tool fits: ${sent} of ${budget}`);
      const summary = prompts[0].find((m) => JSON.stringify(m.content).includes("## Conversation Summary"));
      assert.ok(JSON.stringify(summary.content).includes("recall tool"), "the summary says the model can recall");
      const [recalled] = toolResults(prompts[1], "recall");
      assert.ok(recalled.includes(probe.answer), `the answer is in the tool result:\n${recalled}`);
      assert.ok(recalled.includes(`[message ${evidence}, tool]`), "the evidence message, by its index in the prompt");
      assert.ok(countTokens(recalled, { model: "gpt-4o" }) <= 1000);
    });

    test(`generateText: recall brings back ${FILE}'s message ${evidence}, summarized away at ${WINDOW}`, async () => {
      const { ai } = version;
      const compactor = new Compactor({ model: "gpt-4o", contextWindow: WINDOW, recall: true });
      const input = await compactor.prepare("c", modelMessages());
      assert.ok(input.report.evicted.length > 0, "the conversation compacted");
      assert.equal((await compactor.search("c", probe.question, { limit: 100 })).find((h) => h.index === evidence)?.inInput, false, "the evidence is out of the input");
      const summary = input.messages.find((m) => JSON.stringify(m.content).includes("## Conversation Summary"));
      assert.ok(JSON.stringify(summary.content).includes("recall tool"), "the summary says the model can recall");

      const [system, ...messages] = input.messages;
      const { model, prompts, tools } = scripted(version);
      const result = await ai.generateText({
        model,
        [version.system]: system.content,
        messages,
        tools: { recall: compactor.recallTool("c", { format: "ai-sdk", jsonSchema: ai.jsonSchema }) },
        stopWhen: ai.stepCountIs(3),
      });
      assert.equal(prompts.length, 2, "one call for the recall, one after it");
      assert.equal(result.text, "Found it.");
      const [recalled] = toolResults(prompts[1], "recall");
      assert.ok(recalled.includes(probe.answer), `the answer ${JSON.stringify(probe.answer)} is in the tool result:\n${recalled}`);
      assert.ok(recalled.startsWith("(Excerpts of earlier messages of this conversation"), "framed as data");
      assert.ok(recalled.includes(`[message ${evidence}, tool]`), "the evidence message, by its index");
      assert.ok(countTokens(recalled, { model: "gpt-4o" }) <= 1000, "within the default budget");
      // The model was told of the tool with the core's schema.
      const schema = compactor.recallTool("c", { format: "openai" }).function.parameters;
      assert.deepEqual(
        tools[0].map((t) => [t.name, t.inputSchema]),
        [["recall", schema]],
      );
    });
  });
}

test("the middleware offers recall to generate calls only, and refuses a caller's tool of the same name", async () => {
  const middleware = compactionMiddleware({ model: "gpt-4o", contextWindow: WINDOW, recall: true });
  const model = { modelId: "gpt-4o", doGenerate: async () => assert.fail("no summary is asked for") };
  const prompt = [
    { role: "system", content: "You are terse." },
    { role: "user", content: [{ type: "text", text: "hi" }] },
  ];
  const own = { type: "function", name: "search_web", description: "Search.", inputSchema: { type: "object" } };
  const generate = await middleware.transformParams({ type: "generate", params: { prompt, tools: [own] }, model });
  assert.deepEqual(generate.tools.map((t) => t.name), ["search_web", "recall"]);
  const stream = await middleware.transformParams({ type: "stream", params: { prompt, tools: [own] }, model });
  assert.deepEqual(stream.tools, [own]);
  const off = compactionMiddleware({ model: "gpt-4o", contextWindow: WINDOW });
  assert.equal((await off.transformParams({ type: "generate", params: { prompt }, model })).tools, undefined);
  const clash = { ...own, name: "recall" };
  await assert.rejects(middleware.transformParams({ type: "generate", params: { prompt, tools: [clash] }, model }), (e) => e.code === "INVALID_ARGUMENT" && /params\.tools/.test(e.message));
});
