// The AI SDK versions ctxfold/ai-sdk claims, each with the mock model of its own ai/test and
// the shapes its language-model specification gives results (usage, finish reasons). ai 7
// runs twice: with its own V4 mock, and with a V3 mock, which it adapts (as it does a
// provider package written for ai 6).
import * as ai5 from "ai5";
import * as ai5test from "ai5/test";
import * as ai6 from "ai6";
import * as ai6test from "ai6/test";
import * as ai7 from "ai7";
import * as ai7test from "ai7/test";

/** V2: plain numbers and string finish reasons. */
const v2 = {
  usage: (input, output) => ({ inputTokens: input, outputTokens: output, totalTokens: input + output, cachedInputTokens: 0 }),
  finishReason: (reason) => reason,
  inputTokensOf: (usage) => usage.inputTokens,
};

/** V3 and V4: token counts broken down, finish reasons with the provider's raw value. */
const v3 = {
  usage: (input, output) => ({
    inputTokens: { total: input, noCache: input - 64, cacheRead: 64, cacheWrite: 0 },
    outputTokens: { total: output, text: output, reasoning: 0 },
  }),
  finishReason: (reason) => ({ unified: reason, raw: reason }),
  inputTokensOf: (usage) => usage.inputTokens.total,
};

export const VERSIONS = [
  { name: "ai 5 (LanguageModelV2)", ai: ai5, Mock: ai5test.MockLanguageModelV2, spec: v2, system: "system" },
  { name: "ai 6 (LanguageModelV3)", ai: ai6, Mock: ai6test.MockLanguageModelV3, spec: v3, system: "system" },
  { name: "ai 7 (LanguageModelV4)", ai: ai7, Mock: ai7test.MockLanguageModelV4, spec: v3, system: "instructions" },
  { name: "ai 7 with a V3 model", ai: ai7, Mock: ai7test.MockLanguageModelV3, spec: v3, system: "instructions", adapted: true },
];
