// ctxfold/ai-sdk with ai 7 and @ai-sdk/openai's Chat Completions model over real HTTP, against a
// server on 127.0.0.1 (tests/support/refusing-server.mjs) that counts 25 % more than ctxfold
// estimates, holds an 8k window where ctxfold plans for 32k, and refuses a prompt that does
// not fit with each provider's own error body: generateText and streamText succeed on the
// middleware's one retry with the prompt below the limit, a server that always refuses gives
// CONTEXT_OVERFLOW after exactly two requests, and the key is in no error.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { inspect } from "node:util";
import { generateText, streamText, wrapLanguageModel } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { compactionMiddleware } from "ctxfold/ai-sdk";
import { PROVIDERS, refusingServer } from "../support/refusing-server.mjs";

const KEY = "sk-ctxfold-test-1a2b3c4d5e6f";
const LIMIT = 8000;
const OPTIONS = { model: "gpt-4o", contextWindow: 32_000, reservedOutputTokens: 1000 };

/** A long chat (about 12k tokens): ctxfold's 32k window holds it, the server's 8k does not. */
function messages() {
  const m = [];
  for (let t = 0; t < 40; t++) {
    m.push({ role: "user", content: `Question ${t}: what about day ${t}? ${"Tell me about the trams, the food and the views. ".repeat(6)}` });
    m.push({ role: "assistant", content: `Day ${t}: ${"Take tram 28 early, eat pastel de nata at Belem, and watch the sunset at Miradouro. ".repeat(6)}` });
  }
  m.push({ role: "user", content: "So, the plan for the last day?" });
  return m;
}

function model(server, middleware) {
  const openai = createOpenAI({ baseURL: server.url, apiKey: KEY });
  return wrapLanguageModel({ model: openai.chat("gpt-4o"), middleware });
}

describe("ai 7 with @ai-sdk/openai", () => {
  for (const provider of PROVIDERS) {
    test(`${provider}: generateText and streamText succeed on the retry, below the limit`, async () => {
      const server = await refusingServer({ provider, limit: LIMIT });
      try {
        const middleware = compactionMiddleware({ ...OPTIONS, conversationKey: () => "trip" });
        const m = model(server, middleware);
        const { text } = await generateText({ model: m, system: "You help plan a trip to Lisbon.", messages: messages(), maxOutputTokens: 1000 });
        assert.equal(text, "Done.");
        assert.equal(server.requests.length, 2);
        assert.ok(server.requests[0].refused && server.requests[0].tokens >= LIMIT);
        assert.ok(server.requests[1].tokens < LIMIT, `${server.requests[1].tokens} provider tokens, limit ${LIMIT}`);
        assert.equal(middleware.status("trip").correction.limit, LIMIT);
        // A stream of a new conversation: its doStream is refused before any part, then retried.
        const fresh = compactionMiddleware(OPTIONS);
        const errors = [];
        const result = streamText({ model: model(server, fresh), messages: messages(), maxOutputTokens: 1000, onError: ({ error }) => errors.push(error) });
        assert.equal(await result.text, "Done.");
        assert.deepEqual(errors, []);
        assert.equal(server.requests.length, 4);
        assert.ok(server.requests[2].refused && !server.requests[3].refused);
        assert.ok(server.requests[3].tokens < LIMIT);
      } finally {
        await server.close();
      }
    });
  }

  test("a server that always refuses: CONTEXT_OVERFLOW after exactly one retry, with no key", async () => {
    const server = await refusingServer({ provider: "openai", limit: LIMIT, always: true });
    try {
      const m = model(server, compactionMiddleware(OPTIONS));
      const e = await generateText({ model: m, messages: messages() }).catch((x) => x);
      assert.equal(server.requests.length, 2, "one request, one retry");
      assert.equal(e.code, "CONTEXT_OVERFLOW", inspect(e));
      assert.equal(e.providerLimit, LIMIT);
      assert.equal(e.providerTokens, server.requests[1].tokens);
      assert.ok(!inspect(e, { depth: 12 }).includes(KEY), "the key is in the error");
      const errors = [];
      const result = streamText({ model: m, messages: messages(), onError: ({ error }) => errors.push(error) });
      await result.consumeStream();
      assert.equal(server.requests.length, 4);
      assert.equal(errors.length, 1);
      assert.equal(errors[0].code, "CONTEXT_OVERFLOW");
      assert.ok(!inspect(errors[0], { depth: 12 }).includes(KEY));
    } finally {
      await server.close();
    }
  });
});
