// ctxfold/ai-sdk driven as wrapLanguageModel drives it (transformParams, then wrapStream around
// doStream), for the runtimes where the AI SDK itself is not loaded in the tests: a page in
// Chromium and a Worker in workerd. The model is a plain object with the LanguageModelV3
// shapes; a "same-model" summary goes through its doGenerate, which calls `summarize`. No
// Node API here: the page and the Worker import this file as it is.

/** A provider-level prompt far over an 8k window: a task, then tool calls with large outputs. */
export function longPrompt(steps = 30) {
  const prompt = [
    { role: "system", content: "You are a coding agent.", providerOptions: { anthropic: { cacheControl: { type: "ephemeral" } } } },
    { role: "user", content: [{ type: "text", text: "Find why the build of service api-7 fails on port 8443." }] },
  ];
  for (let i = 0; i < steps; i++) {
    const id = `call_${i}`;
    prompt.push({
      role: "assistant",
      content: [
        { type: "text", text: `Step ${i}: reading the logs.` },
        { type: "tool-call", toolCallId: id, toolName: "bash", input: { command: `cat /var/log/build-${i}.log` } },
      ],
    });
    const log = Array.from({ length: 40 }, (_, k) => `line ${k} of build ${i}: compiling module m${k} (ok)`).join("\n");
    prompt.push({ role: "tool", content: [{ type: "tool-result", toolCallId: id, toolName: "bash", output: { type: "text", value: log } }] });
  }
  return prompt;
}

const usage = (input, output) => ({
  inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: output, text: output, reasoning: 0 },
});

/** One streamed call through the middleware; what it sent, streamed and kept. */
export async function streamThrough(compactionMiddleware, summarize) {
  const middleware = compactionMiddleware({ model: "gpt-4o", contextWindow: 8192, summarizer: "same-model", conversationKey: () => "smoke" });
  const summaries = [];
  const streamed = [
    { type: "stream-start", warnings: [] },
    { type: "text-start", id: "t" },
    { type: "text-delta", id: "t", delta: "The port is taken." },
    { type: "text-end", id: "t" },
    { type: "finish", usage: usage(4321, 9), finishReason: { unified: "stop", raw: "stop" } },
  ];
  const model = {
    specificationVersion: "v3",
    provider: "smoke",
    modelId: "gpt-4o",
    supportedUrls: {},
    async doGenerate(options) {
      summaries.push({ maxOutputTokens: options.maxOutputTokens, signal: options.abortSignal instanceof AbortSignal, system: options.prompt[0].content.slice(0, 40) });
      const text = await summarize(options);
      return { content: [{ type: "text", text }], finishReason: { unified: "stop", raw: "stop" }, usage: usage(700, 60), warnings: [] };
    },
    async doStream() {
      return {
        stream: new ReadableStream({
          start(controller) {
            for (const p of streamed) controller.enqueue(p);
            controller.close();
          },
        }),
      };
    },
  };
  const prompt = longPrompt();
  const params = await middleware.transformParams({ type: "stream", params: { prompt, maxOutputTokens: 256 }, model });
  const result = await middleware.wrapStream({ doStream: () => model.doStream(params), doGenerate: () => model.doGenerate(params), params, model });
  const reader = result.stream.getReader();
  let same = 0;
  for (let i = 0; ; i++) {
    const { done, value } = await reader.read();
    if (done) break;
    if (value === streamed[i]) same++;
  }
  return {
    sent: params.prompt,
    newestKept: params.prompt.at(-1) === prompt.at(-1),
    streamedAsIs: same === streamed.length,
    summaries,
    status: middleware.status("smoke"),
  };
}
