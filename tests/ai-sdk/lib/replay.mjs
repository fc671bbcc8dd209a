// A corpus conversation replayed through the real AI SDK: generateText or streamText with
// the conversation's tools, the model a mock from the version's own ai/test that answers each
// step with the corpus's next assistant message (its text and tool calls), the tools answering
// with the corpus's results. The mock is the double for the remote LLM; everything between
// the caller and it (the SDK's tool loop, its prompt conversion, wrapLanguageModel and the
// middleware) is real.
import { toModelMessage } from "./corpus.mjs";

const MODEL_ID = "mock-model";
const EPOCH = new Date(0);

/**
 * The mock: main calls (those with tools) answer with the scripted steps in order; summary
 * calls (no tools: a "same-model" summarizer's) go to `summarize(params)`. Every call is
 * recorded with what it was given and what it returned, parts included for streams.
 */
export function scriptedModel(version, { summarize } = {}) {
  const { Mock, spec } = version;
  const script = [];
  const calls = [];
  const summaries = [];
  let step = 0;

  const answer = (params) => {
    const m = script[step];
    if (m === undefined) throw new Error(`the mock was called for step ${step + 1} of ${script.length}`);
    const k = step++;
    const content = [];
    if (m.content) content.push({ type: "text", text: m.content });
    for (const c of m.tool_calls ?? []) {
      content.push({ type: "tool-call", toolCallId: c.id, toolName: c.function.name, input: c.function.arguments });
    }
    // Deterministic by step, so runs with and without the middleware answer alike.
    const usage = spec.usage(1000 + 10 * k, 20 + k);
    const finishReason = spec.finishReason(m.tool_calls?.length ? "tool-calls" : "stop");
    const response = { id: `resp-${k}`, timestamp: EPOCH, modelId: MODEL_ID };
    return { k, content, usage, finishReason, response };
  };

  const summary = async (params, kind) => {
    if (summarize === undefined) throw new Error("the mock got a call without tools, and no summarizer was expected");
    summaries.push({ kind, params });
    return summarize(params);
  };

  const model = new Mock({
    modelId: MODEL_ID,
    doGenerate: async (params) => {
      if (params.tools === undefined) return summary(params, "generate");
      const { k, content, usage, finishReason, response } = answer(params);
      const result = { content, finishReason, usage, response, warnings: [] };
      calls.push({ kind: "generate", step: k, params, result });
      return result;
    },
    doStream: async (params) => {
      if (params.tools === undefined) throw new Error("a summary must not be streamed");
      const { k, content, usage, finishReason, response } = answer(params);
      const parts = [{ type: "stream-start", warnings: [] }, { type: "response-metadata", ...response }];
      for (const c of content) {
        if (c.type === "text") {
          const id = `text-${k}`;
          parts.push({ type: "text-start", id }, { type: "text-delta", id, delta: c.text }, { type: "text-end", id });
        } else {
          parts.push(c);
        }
      }
      parts.push({ type: "finish", usage, finishReason });
      const stream = new ReadableStream({
        start(controller) {
          for (const p of parts) controller.enqueue(p);
          controller.close();
        },
      });
      const result = { stream };
      calls.push({ kind: "stream", step: k, params, parts, result });
      return result;
    },
  });

  return {
    model,
    calls,
    summaries,
    /** Queues the corpus assistant messages the next steps answer with. */
    queue: (messages) => script.push(...messages),
  };
}

/** A middleware that records the prompt the SDK built, before the one under test changes it. */
export function recorder() {
  const prompts = [];
  return {
    prompts,
    middleware: {
      specificationVersion: "v3",
      transformParams: async ({ params }) => {
        prompts.push(params.prompt);
        return params;
      },
    },
  };
}

/**
 * Replays `conversation` from message `from` for `maxSteps` model steps, through `model`
 * (the mock, wrapped or not), one generateText / streamText call per run of assistant steps
 * between user messages. Returns what each call gave back, in comparable form.
 */
export async function replay({ version, conversation, from, maxSteps, stream, model, mock, callOptions = {} }) {
  const { ai } = version;
  const corpus = conversation.messages;
  const names = new Map();
  const system = corpus[0].role === "system" ? corpus[0].content : undefined;
  const history = corpus.slice(system === undefined ? 0 : 1, from).map((m) => toModelMessage(m, names));
  const outputs = new Map(corpus.filter((m) => m.role === "tool").map((m) => [m.tool_call_id, m.content]));
  const toolNames = [...new Set(corpus.flatMap((m) => (m.tool_calls ?? []).map((c) => c.function.name)))];
  const tools = Object.fromEntries(
    toolNames.map((name) => [
      name,
      ai.tool({
        description: `The ${name} tool.`,
        inputSchema: ai.jsonSchema({ type: "object", additionalProperties: true }),
        execute: async (_input, { toolCallId }) => outputs.get(toolCallId),
      }),
    ]),
  );

  const results = [];
  let i = from;
  let done = 0;
  while (i < corpus.length && done < maxSteps) {
    if (corpus[i].role === "user") {
      history.push(toModelMessage(corpus[i], names));
      i++;
      continue;
    }
    // This run's steps: assistant messages up to the next user message, each with its results.
    const steps = [];
    while (i < corpus.length && corpus[i].role !== "user" && done + steps.length < maxSteps) {
      if (corpus[i].role === "assistant") steps.push(corpus[i]);
      i++;
      while (i < corpus.length && corpus[i].role === "tool") i++;
    }
    mock.queue(steps);
    done += steps.length;
    const args = {
      model,
      tools,
      messages: [...history],
      stopWhen: ai.stepCountIs(steps.length),
      ...(system === undefined ? {} : { [version.system]: system }),
      ...callOptions,
    };
    const result = stream ? await streamed(ai.streamText(args)) : await generated(await ai.generateText(args));
    results.push(result);
    history.push(...result.responseMessages);
  }
  return { results, history };
}

const stepView = (s) => ({
  text: s.text,
  finishReason: s.finishReason,
  usage: s.usage,
  toolCalls: s.toolCalls.map((c) => ({ toolCallId: c.toolCallId, toolName: c.toolName, input: c.input })),
  toolResults: s.toolResults.map((r) => ({ toolCallId: r.toolCallId, toolName: r.toolName, output: r.output })),
});

async function generated(r) {
  return {
    text: r.text,
    finishReason: r.finishReason,
    totalUsage: r.totalUsage,
    steps: r.steps.map(stepView),
    responseMessages: r.response.messages,
  };
}

async function streamed(r) {
  const parts = [];
  for await (const p of r.fullStream) parts.push(p);
  const steps = await r.steps;
  return {
    text: await r.text,
    finishReason: await r.finishReason,
    totalUsage: await r.totalUsage,
    steps: steps.map(stepView),
    parts,
    responseMessages: (await r.response).messages,
  };
}
