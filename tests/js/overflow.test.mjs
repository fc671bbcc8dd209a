// A provider's refusal of an input as too long, recovered from: against local servers on
// 127.0.0.1 that count 25 % more than ctxfold estimates and hold a window smaller than the one
// ctxfold plans for, and refuse with each provider's own error body
// (tests/refusals/fixtures.json). A Compactor turn (compactor.overflowed) and the AI SDK
// middleware's call (wrapGenerate and wrapStream, over a model that calls the server as an
// AI SDK provider does and throws what its APICallError holds) succeed on the retry with the
// input below the limit; a server that always refuses gives CONTEXT_OVERFLOW after exactly one
// retry; an error that is no refusal is rethrown as it was; no API key is in any error. The
// HTTP summarizer's own request, refused so, is sent once more shorter, the same way.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { inspect } from "node:util";
import { Compactor, countMessages, openAISummarizer } from "ctxfold";
import { compactionMiddleware } from "ctxfold/ai-sdk";
import { PROVIDERS, refusingServer } from "../support/refusing-server.mjs";
import { typed } from "../support/errors.mjs";

const KEY = "sk-ctxfold-test-9f8e7d6c5b4a";
const LIMIT = 8000;
const OPTIONS = { model: "gpt-4o", contextWindow: 32_000, reservedOutputTokens: 1000 };

/** A long chat: about 12k tokens, which ctxfold's 32k window holds and the server's 8k does not. */
function chat() {
  const m = [{ role: "system", content: "You help plan a trip to Lisbon." }];
  for (let t = 0; t < 40; t++) {
    m.push({ role: "user", content: `Question ${t}: what about day ${t}? ${"Tell me about the trams, the food and the views. ".repeat(6)}` });
    m.push({ role: "assistant", content: `Day ${t}: ${"Take tram 28 early, eat pastel de nata at Belem, and watch the sunset at Miradouro. ".repeat(6)}` });
  }
  m.push({ role: "user", content: "So, the plan for the last day?" });
  return m;
}

/** An error as an AI SDK provider throws it: APICallError's fields, the body as it came. */
function apiCallError(url, status, text, requestBody) {
  let data;
  try {
    data = JSON.parse(text);
  } catch {}
  return Object.assign(new Error(`Bad Request (${status})`), {
    name: "AI_APICallError",
    url,
    statusCode: status,
    responseBody: text,
    data,
    requestBodyValues: requestBody,
    isRetryable: false,
  });
}

/** Chat Completions over HTTP with the key in its header; an error status throws as an SDK would. */
async function complete(url, messages) {
  const body = { model: "gpt-4o", messages };
  const res = await fetch(`${url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${KEY}` },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw apiCallError(`${url}/chat/completions`, res.status, text, body);
  return JSON.parse(text);
}

/** No error, nor anything it holds, shows the key. */
function keyFree(e) {
  assert.ok(!inspect(e, { depth: 12 }).includes(KEY), "the key is in the error");
  assert.ok(!JSON.stringify(e, Object.getOwnPropertyNames(e)).includes(KEY));
}

describe("compactor.overflowed", () => {
  for (const provider of PROVIDERS) {
    test(`${provider}: the turn succeeds on the retry, below the limit`, async () => {
      const server = await refusingServer({ provider, limit: LIMIT });
      try {
        const compactor = new Compactor(OPTIONS);
        const first = await compactor.prepare("c", chat());
        assert.ok(first.estimate.tokens < 31_000, "ctxfold's window holds it");
        const refused = await complete(server.url, first.messages).catch((e) => e);
        assert.equal(refused.statusCode, 400);
        const again = await compactor.overflowed("c", refused);
        assert.ok(again.record, "the input was compacted");
        const reply = await complete(server.url, again.messages);
        assert.equal(server.requests.length, 2);
        assert.ok(server.requests[1].tokens < LIMIT, `${server.requests[1].tokens} provider tokens, limit ${LIMIT}`);
        assert.equal(server.requests[1].auth, `Bearer ${KEY}`);
        await compactor.commit("c", reply.choices[0].message, reply.usage);
        // The correction stays: the next turn is planned below the limit without a refusal.
        const status = await compactor.status("c");
        assert.equal(status.usage[0].limit, LIMIT);
        const next = await compactor.prepare("c", [{ role: "user", content: "And the day after?" }]);
        await complete(server.url, next.messages);
        assert.equal(server.requests.length, 3);
        assert.ok(server.requests[2].tokens < LIMIT);
      } finally {
        await server.close();
      }
    });
  }

  test("a server that always refuses: CONTEXT_OVERFLOW after exactly one retry", async () => {
    const server = await refusingServer({ provider: "anthropic", limit: LIMIT, always: true });
    try {
      const compactor = new Compactor(OPTIONS);
      let input = await compactor.prepare("c", chat());
      let last;
      for (let attempt = 0; attempt < 5; attempt++) {
        const e = await complete(server.url, input.messages).catch((x) => x);
        try {
          input = await compactor.overflowed("c", e);
        } catch (overflow) {
          last = overflow;
          break;
        }
      }
      assert.equal(server.requests.length, 2, "one request, one retry");
      typed("CtxfoldError", "CONTEXT_OVERFLOW", /refused the input again/)(last);
      assert.equal(last.providerTokens, server.requests[1].tokens);
      assert.equal(last.providerLimit, LIMIT);
      assert.ok(last.estimate > 0 && last.estimate < LIMIT, `${last.estimate}`);
      keyFree(last);
    } finally {
      await server.close();
    }
  });

  test("an error that is no refusal rejects as it was, and nothing is written", async () => {
    const compactor = new Compactor(OPTIONS);
    await compactor.prepare("c", chat());
    const before = await compactor.status("c");
    for (const e of [
      apiCallError("http://x/v1", 401, '{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}'),
      apiCallError("http://x/v1", 429, '{"error":{"message":"Rate limit reached for gpt-4o on tokens per min (TPM): Limit 30000, Used 29000, Requested 5000.","code":"rate_limit_exceeded"}}'),
      new TypeError("fetch failed"),
      "a string",
    ]) {
      await assert.rejects(compactor.overflowed("c", e), (x) => x === e);
    }
    assert.equal((await compactor.status("c")).version, before.version);
  });
});

/** A provider-level model over the server: the prompt as Chat Completions messages. */
function modelOver(url) {
  const toMessages = (prompt) =>
    prompt.map((m) => ({ role: m.role, content: typeof m.content === "string" ? m.content : m.content.map((p) => p.text ?? "").join("") }));
  const usage = (u) => ({ inputTokens: u.prompt_tokens, outputTokens: u.completion_tokens, totalTokens: u.total_tokens });
  return {
    specificationVersion: "v2",
    provider: "openai.chat",
    modelId: "gpt-4o",
    async doGenerate(options) {
      const r = await complete(url, toMessages(options.prompt));
      return { content: [{ type: "text", text: r.choices[0].message.content }], finishReason: "stop", usage: usage(r.usage), warnings: [] };
    },
    async doStream(options) {
      const r = await complete(url, toMessages(options.prompt));
      const parts = [
        { type: "text-delta", id: "0", delta: r.choices[0].message.content },
        { type: "finish", finishReason: "stop", usage: usage(r.usage) },
      ];
      return { stream: new ReadableStream({ start: (c) => { for (const p of parts) c.enqueue(p); c.close(); } }) };
    },
  };
}

/** The chat as the AI SDK's provider-level prompt. */
function prompt() {
  return chat().map((m) => (m.role === "system" ? m : { role: m.role, content: [{ type: "text", text: m.content }] }));
}

/** One call through the middleware as wrapLanguageModel makes it. */
async function call(middleware, model, type, params) {
  const sent = await middleware.transformParams({ type, params, model });
  if (type === "generate") return middleware.wrapGenerate({ doGenerate: () => model.doGenerate(sent), doStream: () => model.doStream(sent), params: sent, model });
  const { stream } = await middleware.wrapStream({ doGenerate: () => model.doGenerate(sent), doStream: () => model.doStream(sent), params: sent, model });
  const parts = [];
  for await (const p of stream) parts.push(p);
  return parts;
}

describe("the AI SDK middleware", () => {
  for (const provider of PROVIDERS) {
    for (const type of ["generate", "stream"]) {
      test(`${provider}, ${type}: the call succeeds on the retry, below the limit`, async () => {
        const server = await refusingServer({ provider, limit: LIMIT });
        try {
          const middleware = compactionMiddleware({ ...OPTIONS, conversationKey: () => "k" });
          const model = modelOver(server.url);
          const out = await call(middleware, model, type, { prompt: prompt(), maxOutputTokens: 1000 });
          if (type === "generate") assert.equal(out.content[0].text, "Done.");
          else assert.equal(out.at(-1).type, "finish");
          assert.equal(server.requests.length, 2);
          assert.ok(server.requests[0].refused && !server.requests[1].refused);
          assert.ok(server.requests[1].tokens < LIMIT, `${server.requests[1].tokens} provider tokens, limit ${LIMIT}`);
          const status = middleware.status("k");
          assert.equal(status.correction.limit, LIMIT);
          assert.equal(status.usage.inputTokens, server.requests[1].tokens);
          // The next call of the conversation is planned with the correction: no refusal.
          await call(middleware, model, type, { prompt: [...prompt(), { role: "user", content: [{ type: "text", text: "Thanks!" }] }], maxOutputTokens: 1000 });
          assert.equal(server.requests.length, 3);
          assert.ok(!server.requests[2].refused);
        } finally {
          await server.close();
        }
      });
    }
  }

  test("a stateless call retries too; a server that always refuses: CONTEXT_OVERFLOW after exactly one retry", async () => {
    for (const type of ["generate", "stream"]) {
      const server = await refusingServer({ provider: "openai", limit: LIMIT, always: true });
      try {
        const middleware = compactionMiddleware(OPTIONS);
        const e = await call(middleware, modelOver(server.url), type, { prompt: prompt() }).catch((x) => x);
        assert.equal(server.requests.length, 2, `${type}: one request, one retry`);
        typed("CtxfoldError", "CONTEXT_OVERFLOW")(e);
        assert.equal(e.providerTokens, server.requests[1].tokens);
        assert.equal(e.providerLimit, LIMIT);
        assert.ok(e.estimate < LIMIT);
        assert.equal(e.cause.statusCode, 400);
        keyFree(e);
      } finally {
        await server.close();
      }
    }
  });

  test("an error that is no refusal is rethrown as it was, with no retry", async () => {
    const middleware = compactionMiddleware(OPTIONS);
    let calls = 0;
    const denied = apiCallError("http://x/v1", 401, '{"error":{"message":"Incorrect API key provided","code":"invalid_api_key"}}');
    const model = {
      modelId: "gpt-4o",
      doGenerate: async () => {
        calls += 1;
        throw denied;
      },
    };
    await assert.rejects(call(middleware, model, "generate", { prompt: prompt() }), (x) => x === denied);
    assert.equal(calls, 1);
  });
});

describe("the HTTP summarizer's own request", () => {
  /** A summarizer request whose text the server's window does not hold. */
  const request = () => ({ system: "Summarize the conversation.", prompt: chat().map((m) => `${m.role}: ${m.content}`).join("\n"), maxTokens: 500 });

  for (const provider of PROVIDERS) {
    test(`${provider}: refused as too long, it is sent once more below the limit`, async () => {
      const server = await refusingServer({ provider, limit: LIMIT, reply: "## Conversation Summary" });
      try {
        const summarize = openAISummarizer({ model: "gpt-4o", apiKey: KEY, baseURL: server.url, maxRetries: 0 });
        const out = await summarize(request());
        assert.equal(out.text, "## Conversation Summary");
        assert.equal(server.requests.length, 2);
        assert.ok(server.requests[0].refused);
        assert.ok(server.requests[1].tokens + 500 < LIMIT, `${server.requests[1].tokens} provider tokens, limit ${LIMIT}`);
        assert.equal(server.requests[1].auth, `Bearer ${KEY}`);
      } finally {
        await server.close();
      }
    });
  }

  test("a server that always refuses: CONTEXT_OVERFLOW after exactly one retry, with no key", async () => {
    const server = await refusingServer({ provider: "gemini", limit: LIMIT, always: true });
    try {
      const summarize = openAISummarizer({ model: "gpt-4o", apiKey: KEY, baseURL: server.url });
      const e = await summarize(request()).catch((x) => x);
      assert.equal(server.requests.length, 2);
      typed("CtxfoldError", "CONTEXT_OVERFLOW")(e);
      assert.equal(e.providerTokens, server.requests[1].tokens);
      assert.equal(e.providerLimit, LIMIT);
      keyFree(e);
    } finally {
      await server.close();
    }
  });
});

test("the server counts more than ctxfold (the estimate is corrected, not only the window)", () => {
  const total = countMessages(chat(), { model: "gpt-4o" }).total;
  assert.ok(total > LIMIT / 1.25 && total < 31_000, `${total}`);
});
