// The built-in HTTP summarizers (openAISummarizer, anthropicSummarizer) in Node, against the
// LLM double on 127.0.0.1 (tests/support/llm-server.mjs): the cases shared with the page and
// the Worker (tests/support/summarizer-cases.mjs, checked by summarizer-checks.mjs), then what
// only Node checks: option errors, the lite entry, a Headers object, the module restarting.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import * as ctxfold from "ctxfold";
import * as lite from "ctxfold/lite";
import { pkgDir } from "../support/paths.mjs";
import { startLlmServer, REPLY_MODEL, REPLY_USAGE, SUMMARY } from "../support/llm-server.mjs";
import { KEY, conversation, compactOptions, runCase } from "../support/summarizer-cases.mjs";
import { CASES, PROVIDERS, checkCase } from "../support/summarizer-checks.mjs";

const { openAISummarizer, anthropicSummarizer, compact, plan, isCtxfoldError } = ctxfold;
const testsDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const request = { system: "Summarize the conversation.", prompt: "The user asked about retries.", maxTokens: 200 };

let llm;
before(async () => {
  llm = await startLlmServer();
});
after(() => llm?.close());

test("the cases' conversation makes exactly one summarizer call", () => {
  // So each scenario's script is consumed by one call's attempts, in order.
  const p = plan(conversation(), compactOptions("success"));
  assert.equal(p.trigger, "threshold");
  assert.equal(p.summarizerCalls, 1);
});

for (const provider of PROVIDERS) {
  describe(`${provider}: the shared cases`, () => {
    for (const name of CASES) {
      test(name, () => checkCase(llm, provider, name, (urls) => runCase(ctxfold, provider, name, urls)));
    }
  });
}

describe("only in Node", () => {
  /** An assert.throws matcher for ctxfold's errors. */
  function typed(name, code, messagePart) {
    return (err) => {
      assert.ok(err instanceof Error, `expected an Error, got ${err}`);
      assert.equal(err.name, name, err.message);
      assert.equal(err.code, code, err.message);
      assert.equal(isCtxfoldError(err), true);
      if (messagePart) assert.match(err.message, messagePart);
      return true;
    };
  }

  test("bad options throw at once, naming the option", () => {
    assert.throws(() => openAISummarizer(), typed("TypeError", "INVALID_ARGUMENT", /options/));
    assert.throws(() => openAISummarizer({}), typed("TypeError", "INVALID_ARGUMENT", /options\.model/));
    assert.throws(() => openAISummarizer({ model: "m", apikey: "x" }), typed("TypeError", "INVALID_ARGUMENT", /options\.apikey: expected no such option/));
    assert.throws(() => anthropicSummarizer({ model: "m", maxTokensField: "max_tokens" }), typed("TypeError", "INVALID_ARGUMENT", /options\.maxTokensField/));
    assert.throws(() => openAISummarizer({ model: "m", baseURL: "localhost:11434/v1" }), typed("TypeError", "INVALID_ARGUMENT", /options\.baseURL/));
    assert.throws(() => openAISummarizer({ model: "m", baseURL: "http://[::1/v1" }), typed("TypeError", "INVALID_ARGUMENT", /options\.baseURL: expected a URL fetch can use/));
    assert.throws(() => openAISummarizer({ model: "m", maxRetries: 11 }), typed("RangeError", "OUT_OF_RANGE", /options\.maxRetries/));
    assert.throws(() => openAISummarizer({ model: "m", maxRetries: NaN }), typed("RangeError", "OUT_OF_RANGE", /options\.maxRetries/));
    assert.throws(() => openAISummarizer({ model: "m", body: { stream: true } }), typed("TypeError", "INVALID_ARGUMENT", /options\.body\.stream/));
    assert.throws(() => openAISummarizer({ model: "m", headers: { "x-a": "1\nx-b: 2" } }), typed("TypeError", "INVALID_ARGUMENT", /options\.headers/));
    // The key never appears in an option error either.
    assert.throws(
      () => openAISummarizer({ model: "m", apiKey: KEY, baseURL: `http://x/${KEY}?q` }),
      (e) => typed("TypeError", "INVALID_ARGUMENT")(e) && !e.message.includes(KEY),
    );
  });

  test("a deadline holds after garbage collection (Node 20's fetch follows a Request's signal weakly)", () => {
    // In a child with --expose-gc: a server that never answers, a collection while the call
    // waits; each call must reject at its deadline. Before the JS loop raced the fetch
    // against the signal, every one of these hung (found from outside).
    const script = `
      import http from "node:http";
      import { openAISummarizer, anthropicSummarizer } from "ctxfold";
      const server = http.createServer(() => {});
      await new Promise((r) => server.listen(0, "127.0.0.1", r));
      const base = "http://127.0.0.1:" + server.address().port;
      const out = [];
      for (const s of [openAISummarizer({ baseURL: base + "/v1", model: "m", maxRetries: 0 }), anthropicSummarizer({ baseURL: base, model: "m", maxRetries: 0 })]) {
        for (const how of ["signal", "timeoutMs"]) {
          const request = { system: "s", prompt: "p", maxTokens: 10, ...(how === "signal" ? { signal: AbortSignal.timeout(500) } : { timeoutMs: 500 }) };
          const started = Date.now();
          const call = s(request);
          setTimeout(() => globalThis.gc(), 100);
          out.push(await Promise.race([
            call.then(() => "resolved", (e) => e.name),
            new Promise((r) => setTimeout(() => r("pending after 4 s"), 4000)),
          ]) + " in " + (Date.now() - started < 2000 ? "time" : "too long"));
        }
      }
      server.closeAllConnections();
      server.close();
      console.log(JSON.stringify(out));
    `;
    const child = spawnSync(process.execPath, ["--expose-gc", "--input-type=module", "-e", script], { cwd: testsDir, encoding: "utf8", timeout: 60_000 });
    assert.equal(child.status, 0, child.stderr);
    assert.deepEqual(JSON.parse(child.stdout), Array(4).fill("TimeoutError in time"));
  });

  test("a bad request rejects with a TypeError (the summarizer never throws synchronously)", async () => {
    const s = openAISummarizer({ model: "m", baseURL: "http://127.0.0.1:9/v1" });
    await assert.rejects(s({ ...request, maxTokens: 0 }), typed("TypeError", "INVALID_ARGUMENT", /request\.maxTokens/));
    await assert.rejects(s({ ...request, prompt: 4 }), typed("TypeError", "INVALID_ARGUMENT", /request\.prompt/));
    await assert.rejects(s({ ...request, signal: {} }), typed("TypeError", "INVALID_ARGUMENT", /request\.signal/));
    await assert.rejects(s(null), typed("TypeError", "INVALID_ARGUMENT", /request/));
  });

  test("a refused connection is retried, then HTTP_ERROR with status null and the fetch error as cause", async () => {
    // A port nothing listens on: take one, then close it.
    const gone = await startLlmServer();
    const url = gone.url;
    await gone.close();
    const s = openAISummarizer({ model: "m", apiKey: KEY, baseURL: `${url}/v1`, maxRetries: 1 });
    const started = Date.now();
    await assert.rejects(s(request), (e) => {
      typed("CtxfoldError", "HTTP_ERROR", /no response \(fetch failed: .*ECONNREFUSED.*\) after 2 attempts/)(e);
      assert.equal(e.status, null);
      assert.equal(e.excerpt, "");
      assert.ok(e.cause instanceof TypeError, String(e.cause));
      return true;
    });
    assert.ok(Date.now() - started >= 350, "one backoff");
  });

  test("an already-aborted signal rejects with its reason and sends nothing", async () => {
    const { openai, requests } = llm.scenario([{ reply: "ok" }]);
    const s = openAISummarizer({ model: "m", baseURL: openai });
    const reason = new Error("the user left");
    await assert.rejects(s({ ...request, signal: AbortSignal.abort(reason) }), (e) => e === reason);
    assert.equal(requests.length, 0);
  });

  test("a Headers object, extra body fields and max_completion_tokens reach the server", async () => {
    const { openai, requests } = llm.scenario([{ reply: "ok" }]);
    const headers = new Headers({ "x-title": "ctxfold tests", "x-api-key-2": "second-secret" });
    const s = openAISummarizer({
      model: "gpt-5-mini",
      apiKey: KEY,
      baseURL: openai,
      headers,
      body: { temperature: 0, reasoning_effort: "minimal" },
      maxTokensField: "max_completion_tokens",
    });
    headers.set("x-title", "changed after"); // the summarizer keeps what it was given
    assert.deepEqual(await s(request), { text: SUMMARY, model: REPLY_MODEL.openai, usage: REPLY_USAGE.openai });
    const [req] = requests;
    assert.equal(req.headers["x-title"], "ctxfold tests");
    assert.equal(req.headers["x-api-key-2"], "second-secret");
    assert.equal(req.body.max_completion_tokens, 200);
    assert.equal(req.body.max_tokens, undefined);
    assert.equal(req.body.temperature, 0);
    assert.equal(req.body.reasoning_effort, "minimal");
  });

  test("ctxfold/lite has them too, and compacts with them", async () => {
    assert.equal(typeof lite.openAISummarizer, "function");
    assert.equal(typeof lite.anthropicSummarizer, "function");
    const { anthropic } = llm.scenario([{ reply: "ok" }]);
    const summarizer = lite.anthropicSummarizer({ model: "claude-haiku-4-5", apiKey: KEY, baseURL: anthropic });
    const r = await lite.compact(conversation(), { ...compactOptions("success"), allowEstimate: true, summarizer });
    assert.equal(r.report.fallback, null);
    assert.equal(r.state.chunks[0].model, REPLY_MODEL.anthropic);
    assert.deepEqual(r.state.chunks[0].usage, REPLY_USAGE.anthropic);
  });

  test("the internals are not exported", () => {
    for (const name of ["summarizerSettings", "HttpSummaryCall"]) {
      assert.ok(!(name in ctxfold), name);
      assert.ok(!(name in lite), name);
    }
  });

  test("a summarizer outlives a module restart; a call in flight then rejects with INTERNAL, never hangs", async () => {
    const bindings = await import(pathToFileURL(join(pkgDir, "dist", "full", "ctxfold.js")).href);
    const { guard } = await import(pathToFileURL(join(pkgDir, "lib", "guard.js")).href);
    const trap = guard(bindings).wrap(bindings.__ctxfoldTestPanic);
    const slow = llm.scenario([{ delayMs: 300 }]);
    const fine = llm.scenario([{ reply: "ok" }]);
    const inFlight = openAISummarizer({ model: "m", baseURL: slow.openai });
    const later = openAISummarizer({ model: "m", baseURL: fine.openai });
    const error = console.error;
    console.error = () => {};
    let outcome;
    try {
      const call = inFlight(request).then((value) => ({ value }), (rejected) => ({ rejected }));
      while (slow.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
      assert.throws(() => trap("a panic elsewhere"), typed("CtxfoldError", "INTERNAL"));
      outcome = await Promise.race([call, new Promise((r) => setTimeout(() => r({ hung: true }), 10_000).unref())]);
    } finally {
      console.error = error;
    }
    assert.ok(!outcome.hung, "the call settled");
    typed("CtxfoldError", "INTERNAL", /restarted while this call/)(outcome.rejected);
    // Made before the restart, used after it.
    assert.deepEqual(await later(request), { text: SUMMARY, model: REPLY_MODEL.openai, usage: REPLY_USAGE.openai });
    const r = await compact(conversation(), { ...compactOptions("success"), summarizer: later });
    assert.equal(r.report.fallback, null);
  });
});
