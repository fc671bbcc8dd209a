// The middleware passes as each version's middleware type, alone and in a list, and the model
// it wraps is used by generateText and streamText as any other.
import { compactionMiddleware } from "ctxfold/ai-sdk";
import * as ai5 from "ai5";
import { MockLanguageModelV2 } from "ai5/test";
import * as ai6 from "ai6";
import { MockLanguageModelV3 } from "ai6/test";
import * as ai7 from "ai7";
import { MockLanguageModelV3 as Mock7V3, MockLanguageModelV4 } from "ai7/test";

const middleware = compactionMiddleware({
  contextWindow: 8192,
  summarizer: "same-model",
  conversationKey: (params) => (typeof params.providerOptions?.app?.chatId === "string" ? params.providerOptions.app.chatId : undefined),
});

// As each version declares its middleware.
const m5: ai5.LanguageModelMiddleware = middleware;
const m6: ai6.LanguageModelMiddleware = middleware;
const m7: ai7.LanguageModelMiddleware = middleware;

const model5 = ai5.wrapLanguageModel({ model: new MockLanguageModelV2(), middleware });
const model6 = ai6.wrapLanguageModel({ model: new MockLanguageModelV3(), middleware: [middleware, ai6.defaultSettingsMiddleware({ settings: { temperature: 0 } })] });
const model7 = ai7.wrapLanguageModel({ model: new MockLanguageModelV4(), middleware });
const model7v3 = ai7.wrapLanguageModel({ model: new Mock7V3(), middleware: [middleware] });

async function use(): Promise<string[]> {
  const a = await ai5.generateText({ model: model5, prompt: "hi", providerOptions: { app: { chatId: "c" } } });
  const b = await ai6.generateText({ model: model6, prompt: "hi" });
  const c = ai7.streamText({ model: model7, prompt: "hi" });
  const d = await ai7.generateText({ model: model7v3, prompt: "hi" });
  return [a.text, b.text, await c.text, d.text];
}

// The checks above are real (the SDK's types resolved, not \`any\`): a middleware whose
// transformParams returns something else is refused by each version.
// @ts-expect-error: transformParams must give back call options
const bad5: ai5.LanguageModelMiddleware = { transformParams: async () => "prompt" };
// @ts-expect-error: transformParams must give back call options
const bad6: ai6.LanguageModelMiddleware = { specificationVersion: "v3", transformParams: async () => "prompt" };
// @ts-expect-error: transformParams must give back call options
const bad7: ai7.LanguageModelMiddleware = { transformParams: async () => "prompt" };

// @ts-expect-error: a middleware is not a model
ai6.generateText({ model: middleware, prompt: "hi" });

void [m5, m6, m7, bad5, bad6, bad7, use];
