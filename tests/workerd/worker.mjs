// A Worker that uses the built package through its workerd entries, as a Worker bundled by
// wrangler would (wrangler resolves "ctxfold" to pkg/workerd.js by the "workerd" export
// condition; Miniflare does not resolve packages, so the paths are relative here). The
// .wasm files arrive as CompiledWasm modules and the lite build's vocabularies as Data
// modules (ArrayBuffers), per the modulesRules in worker.test.mjs.
import * as full from "../../pkg/workerd.js";
import * as lite from "../../pkg/lite/workerd.js";
import * as aiSdk from "../../pkg/ai-sdk/workerd.js";
import o200kFile from "../../pkg/vocab/o200k_base.ctxv";
import cl100kFile from "../../pkg/vocab/cl100k_base.ctxv";
import { streamThrough } from "../support/ai-sdk-smoke.mjs";

const encodings = ["o200k_base", "cl100k_base"];

function capture(f) {
  try {
    f();
    return null;
  } catch (e) {
    return { name: e.name, code: e.code, message: e.message, isError: e instanceof Error, guard: full.isCtxfoldError(e) };
  }
}

async function captureAsync(f) {
  try {
    await f();
    return null;
  } catch (e) {
    return { name: e.name, code: e.code, message: e.message, isError: e instanceof Error, guard: lite.isCtxfoldError(e) };
  }
}

const countAll = (api, texts) =>
  texts.map((text) => Object.fromEntries(encodings.map((e) => [e, api.countTokens(text, { encoding: e })])));

const routes = {
  // Both vocabularies are embedded in the default build.
  async "/count"(request) {
    const { texts } = await request.json();
    return { has: encodings.map((e) => full.hasVocabulary(e)), counts: countAll(full, texts) };
  },

  async "/errors"() {
    return {
      unknown: capture(() => full.countTokens("x", { encoding: "p50k_base" })),
      notString: capture(() => full.countTokens(42, { encoding: "o200k_base" })),
      noOptions: capture(() => full.countTokens("x")),
    };
  },

  // compact() with a summarizer that calls an OpenAI-compatible server over HTTP, then the
  // next turn with the state passed back, and countMessages on the same messages.
  async "/compact"(request) {
    const { messages, llm } = await request.json();
    const summarizer = async (req) => {
      const res = await fetch(`${llm}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "test", messages: req.messages, max_tokens: req.maxTokens }),
        signal: req.signal,
      });
      return (await res.json()).choices[0].message.content;
    };
    const options = { model: "gpt-4o", contextWindow: 8000, summarizer };
    const first = await full.compact(messages, options);
    const next = [...messages, { role: "user", content: "And what now?" }];
    const again = await full.compact(next, { ...options, state: first.state });
    return {
      first: { status: first.contextStatus, fallback: first.report.fallback, tokensAfter: first.report.tokensAfter, budget: first.report.budget, kept: first.messages.length },
      again: { status: again.contextStatus, newChunks: again.report.newChunks, tokensAfter: again.report.tokensAfter },
      counted: full.countMessages(messages, { encoding: "o200k_base" }).total,
      countedAgain: full.countMessages(next, { encoding: "o200k_base" }).total,
    };
  },

  // ctxfold/ai-sdk's middleware around a streamed call, its "same-model" summaries sent to an
  // OpenAI-compatible server over fetch.
  async "/ai-sdk"(request) {
    const { llm } = await request.json();
    return streamThrough(aiSdk.compactionMiddleware, async (options) => {
      const messages = options.prompt.map((m) => ({ role: m.role, content: typeof m.content === "string" ? m.content : m.content.map((p) => p.text).join("") }));
      const res = await fetch(`${llm}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "test", messages, max_tokens: options.maxOutputTokens }),
        signal: options.abortSignal,
      });
      return (await res.json()).choices[0].message.content;
    });
  },

  // The lite build, step by step; vocabularies stay loaded for the isolate's life.
  async "/lite"(request) {
    const { texts } = await request.json();
    const out = { before: encodings.map((e) => lite.hasVocabulary(e)) };
    out.notLoaded = capture(() => lite.countTokens("hello", { encoding: "o200k_base" }));
    // workerd cannot find the shipped file by itself: a source is required.
    out.noSource = await captureAsync(() => lite.loadVocabulary("o200k_base"));
    out.wrongEncoding = await captureAsync(() => lite.loadVocabulary("cl100k_base", o200kFile));
    const corrupt = new Uint8Array(cl100kFile.slice(0));
    corrupt[corrupt.length >> 1] ^= 0x55;
    out.corrupt = await captureAsync(() => lite.loadVocabulary("cl100k_base", corrupt));
    out.stillMissing = encodings.map((e) => lite.hasVocabulary(e));
    // A Data module is an ArrayBuffer; a Uint8Array view works as well.
    await lite.loadVocabulary("o200k_base", o200kFile);
    await lite.loadVocabulary("cl100k_base", new Uint8Array(cl100kFile));
    out.after = encodings.map((e) => lite.hasVocabulary(e));
    out.counts = countAll(lite, texts);
    return out;
  },
};

export default {
  async fetch(request) {
    const route = routes[new URL(request.url).pathname];
    if (!route) return new Response("not found", { status: 404 });
    try {
      return Response.json(await route(request));
    } catch (e) {
      return Response.json({ uncaught: { name: e?.name, code: e?.code, message: String(e?.message ?? e), stack: e?.stack } }, { status: 500 });
    }
  },
};
