// One AI SDK agent loop with the recall tool, for every runtime the tests run it in (Node,
// workerd, Chromium): the Compactor's input for conversation `id` given to generateText with
// `tools: { recall: compactor.recallTool(id, { format: "ai-sdk", jsonSchema }) }`, and a
// scripted model (ai's own MockLanguageModelV3) that calls recall with `question`, then
// answers. It imports nothing: the runtime's bundle of `ai` is passed in.

const usage = {
  inputTokens: { total: 4000, noCache: 4000, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 20, text: 20, reasoning: 0 },
};

/**
 * @param {{ generateText: Function, jsonSchema: Function, stepCountIs: Function, MockLanguageModelV3: any }} ai
 * @param {any} compactor  a Compactor holding conversation `id`, made with `recall: true`
 * @param {string} id
 * @param {string} question
 */
export async function recallLoop(ai, compactor, id, question) {
  const input = await compactor.prepare(id, []);
  const [system, ...messages] = input.messages;
  const prompts = [];
  const model = new ai.MockLanguageModelV3({
    modelId: "mock-model",
    doGenerate: async (params) => {
      prompts.push(params.prompt);
      const response = { id: `resp-${prompts.length}`, timestamp: new Date(0), modelId: "mock-model" };
      if (prompts.length === 1) {
        const content = [{ type: "tool-call", toolCallId: "recall-1", toolName: "recall", input: JSON.stringify({ query: question }) }];
        return { content, finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage, response, warnings: [] };
      }
      return { content: [{ type: "text", text: "Found it." }], finishReason: { unified: "stop", raw: "stop" }, usage, response, warnings: [] };
    },
  });
  const result = await ai.generateText({
    model,
    system: system.content,
    messages,
    tools: { recall: compactor.recallTool(id, { format: "ai-sdk", jsonSchema: ai.jsonSchema }) },
    stopWhen: ai.stepCountIs(3),
  });
  const recalled = (prompts[1] ?? [])
    .filter((m) => m.role === "tool")
    .flatMap((m) => m.content)
    .filter((p) => p.type === "tool-result" && p.toolName === "recall")
    .map((p) => (p.output.type === "text" ? p.output.value : JSON.stringify(p.output.value)));
  const hits = await compactor.search(id, question, { limit: 100 });
  const summarized = input.messages.some((m) => JSON.stringify(m.content).includes("## Conversation Summary"));
  return { text: result.text, calls: prompts.length, recalled, summarized, outOfInput: hits.filter((h) => !h.inInput).map((h) => h.index) };
}
