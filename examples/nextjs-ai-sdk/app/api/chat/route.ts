// The chat route: useChat's request ({ id, messages }) in, the AI SDK's UI message stream out.
// The model is wrapped in ctxfold's compactionMiddleware, so every step of the tool loop sends a
// prompt that fits the window: older turns summarized by the same model, old tool outputs cut,
// a tool call never separated from its result. The chat's id is the conversation's key.
import { createOpenAI } from "@ai-sdk/openai";
import { convertToModelMessages, stepCountIs, streamText, tool, wrapLanguageModel, type UIMessage } from "ai";
import { compactionMiddleware } from "ctxfold/ai-sdk";
import { z } from "zod";

const openai = createOpenAI({
  baseURL: process.env.OPENAI_BASE_URL, // default https://api.openai.com/v1
  apiKey: process.env.OPENAI_API_KEY,
});

// One middleware for the server's life: per conversation it keeps the summaries made so far
// (reused by the next step and the next turn), the last report and the provider's usage.
const middleware = compactionMiddleware({
  summarizer: "same-model",
  ...(process.env.CONTEXT_WINDOW ? { contextWindow: Number(process.env.CONTEXT_WINDOW) } : {}),
  conversationKey: (params) => {
    const id = params.providerOptions?.ctxfold?.conversationId;
    return typeof id === "string" ? id : null;
  },
});

const model = wrapLanguageModel({ model: openai.chat(process.env.MODEL ?? "gpt-4o"), middleware });

const tools = {
  word_count: tool({
    description: "Counts the words of a text.",
    inputSchema: z.object({ text: z.string() }),
    execute: async ({ text }) => ({ words: text.split(/\s+/).filter(Boolean).length }),
  }),
  current_time: tool({
    description: "The current date and time, in UTC (ISO 8601).",
    inputSchema: z.object({}),
    execute: async () => ({ now: new Date().toISOString() }),
  }),
};

export async function POST(request: Request) {
  const { id, messages } = (await request.json()) as { id?: unknown; messages?: UIMessage[] };
  if (typeof id !== "string" || !Array.isArray(messages)) {
    return Response.json({ error: 'the body needs "id" (a string) and "messages" (UI messages)' }, { status: 400 });
  }
  const result = streamText({
    model,
    instructions: "You are a helpful assistant. Use the tools when they help.",
    // The whole history in, every turn: the middleware fits it to the window on the way out.
    messages: await convertToModelMessages(messages, { tools }),
    tools,
    stopWhen: stepCountIs(5),
    providerOptions: { ctxfold: { conversationId: id } },
  });
  return result.toUIMessageStreamResponse();
}

/** GET /api/chat?id=...: what the middleware keeps about the conversation (404 before its first call). */
export async function GET(request: Request) {
  const id = new URL(request.url).searchParams.get("id") ?? "";
  const status = middleware.status(id);
  return status ? Response.json(status) : Response.json({ error: `no conversation ${id}` }, { status: 404 });
}
