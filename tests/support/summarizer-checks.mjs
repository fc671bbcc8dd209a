// What the built-in HTTP summarizers' cases (summarizer-cases.mjs) must show, whichever
// runtime ran them: the same assertions for Node, Chromium and workerd. Each case gets
// fresh scenarios on the LLM double (llm-server.mjs), runs in the runtime, and is checked
// against what the runtime returned and what the server recorded.
import assert from "node:assert/strict";
import { setTimeout as delay } from "node:timers/promises";
import { COMPACT_TIMEOUT_MS, DIRECT_TIMEOUT_MS, KEY, MODEL, SCRIPTS, SLOW_MS } from "./summarizer-cases.mjs";
import { REPLY_MODEL, REPLY_USAGE, SUMMARY } from "./llm-server.mjs";

export const CASES = Object.keys(SCRIPTS);
export const PROVIDERS = ["openai", "anthropic"];

/**
 * Runs case `name` for `provider`: registers its scenarios on `llm`, calls `run(urls)` (which
 * runs `runCase` in the runtime under test and returns its result), and checks the result.
 */
export async function checkCase(llm, provider, name, run) {
  const urls = {};
  const requests = {};
  for (const [r, steps] of Object.entries(SCRIPTS[name])) {
    const s = llm.scenario(steps);
    urls[r] = s[provider];
    requests[r] = s.requests;
  }
  const result = await run(urls);
  assert.deepEqual(Object.keys(result).sort(), Object.keys(urls).sort(), JSON.stringify(result));
  await CHECKS[name](provider, result, requests);
  // The key was sent with every request, and is nowhere in what came back.
  for (const list of Object.values(requests)) {
    for (const req of list) assert.equal(sentKey(provider, req), KEY);
  }
  const text = JSON.stringify(result);
  assert.ok(!text.includes(KEY), `the key leaked: ${text}`);
  assert.ok(!text.includes(KEY.slice(8, 24)), `part of the key leaked: ${text}`);
  return result;
}

function sentKey(provider, req) {
  return provider === "openai" ? req.headers.authorization?.replace(/^Bearer /, "") : req.headers["x-api-key"];
}

/** A successful direct call: the text, and the provider's model and usage. */
function assertReply(provider, run) {
  assert.equal(run.ok, true, JSON.stringify(run.error));
  assert.deepEqual(run.value, { text: SUMMARY, model: REPLY_MODEL[provider], usage: REPLY_USAGE[provider] });
}

/** A compaction that used the summary: its chunk carries the provider's model and usage. */
function assertSummarized(provider, run) {
  assert.equal(run.ok, true, JSON.stringify(run.error));
  assert.equal(run.status, "summarized");
  assert.equal(run.fallback, null, JSON.stringify(run.fallback));
  assert.equal(run.newChunks, 1);
  assert.deepEqual(run.chunks, [{ model: REPLY_MODEL[provider], usage: REPLY_USAGE[provider], fallback: null }]);
  assert.ok(run.tokensAfter <= run.inputBudget);
  assert.equal(run.leaked, false);
}

/** A compaction that fell back to the extractive summary, saying why. */
function assertFellBack(run, reason) {
  assert.equal(run.ok, true, JSON.stringify(run.error));
  assert.equal(run.status, "summarized");
  assert.equal(run.fallback?.kind, "extractive", JSON.stringify(run.fallback));
  assert.match(run.fallback.reason, reason);
  assert.deepEqual(run.chunks.map((c) => c.fallback?.kind), ["extractive"]);
  assert.equal(run.chunks[0].model, null);
  assert.ok(run.tokensAfter <= run.inputBudget);
  assert.equal(run.leaked, false);
}

/** A rejection with a ctxfold HTTP_ERROR. */
function assertHttpError(run, status, message) {
  assert.equal(run.ok, false, JSON.stringify(run));
  const e = run.error;
  assert.equal(e["[[class]]"], "[object Error]");
  assert.equal(e.name, "CtxfoldError");
  assert.equal(e.code, "HTTP_ERROR", e.message);
  assert.equal(e.status, status, e.message);
  assert.match(e.message, message);
  assert.equal(run.leaked, false);
  return e;
}

/** The request a provider was sent for the direct call. */
function assertRequest(provider, req) {
  assert.equal(req.body.model, MODEL[provider]);
  assert.equal(req.body.max_tokens, 200);
  assert.equal(req.headers["content-type"], "application/json");
  if (provider === "openai") {
    assert.deepEqual(req.body.messages, [
      { role: "system", content: "Summarize the conversation." },
      { role: "user", content: "The user asked about retries." },
    ]);
  } else {
    assert.equal(req.body.system, "Summarize the conversation.");
    assert.deepEqual(req.body.messages, [{ role: "user", content: "The user asked about retries." }]);
    assert.equal(req.headers["anthropic-version"], "2023-06-01");
  }
}

/** Waits (up to 5 s) until the server has seen the client close the connection. */
async function closedByClient(req) {
  for (let i = 0; i < 100 && !req.closedByClient; i++) await delay(50);
  assert.equal(req.closedByClient, true, "the server did not see the connection closed");
  return req.closedAt - req.at;
}

const CHECKS = {
  async success(provider, r, requests) {
    assertReply(provider, r.direct);
    assertRequest(provider, requests.direct[0]);
    assertSummarized(provider, r.compact);
    assert.equal(requests.direct.length, 1);
    assert.equal(requests.compact.length, 1);
    // compact()'s request: its instructions, the evicted text, its cap.
    const body = requests.compact[0].body;
    const system = provider === "openai" ? body.messages[0].content : body.system;
    assert.match(system, /## Conversation Summary/);
    assert.ok(body.max_tokens >= 64 && body.max_tokens <= 4096, String(body.max_tokens));
  },

  async slow(provider, r, requests) {
    // The direct call's own deadline (timeoutMs, no signal) aborted it.
    assert.equal(r.direct.ok, false);
    assert.equal(r.direct.error.name, "TimeoutError", JSON.stringify(r.direct.error));
    assert.ok(r.direct.ms >= DIRECT_TIMEOUT_MS - 20 && r.direct.ms < SLOW_MS / 4, String(r.direct.ms));
    // compact()'s deadline: the fallback, well before the server would have answered.
    assertFellBack(r.compact, new RegExp(`did not answer within ${COMPACT_TIMEOUT_MS} ms`));
    assert.ok(r.compact.ms < SLOW_MS / 4, String(r.compact.ms));
    // Both requests were sent once, and their connections closed by the client at the deadline.
    assert.equal(requests.direct.length, 1);
    assert.equal(requests.compact.length, 1);
    const directClosed = await closedByClient(requests.direct[0]);
    const compactClosed = await closedByClient(requests.compact[0]);
    assert.ok(directClosed < SLOW_MS / 4 && compactClosed < SLOW_MS / 4, `${directClosed} ${compactClosed}`);
  },

  async rateLimited(provider, r, requests) {
    assertReply(provider, r.direct);
    assertSummarized(provider, r.compact);
    for (const run of ["direct", "compact"]) {
      const [first, second] = requests[run];
      assert.equal(requests[run].length, 2, run);
      // retry-after: 1 was honoured (timers may fire a little early; never half a second early).
      assert.ok(second.at - first.at >= 950, `${run}: retried after ${second.at - first.at} ms`);
      assert.ok(second.at - first.at < 5000, `${run}: retried after ${second.at - first.at} ms`);
    }
    // A retry-after beyond the deadline is not waited for: the 429 at once.
    const e = assertHttpError(r.pastDeadline, 429, /HTTP 429 \(not retried: waiting 30 s would pass the deadline/);
    assert.match(e.excerpt, /Rate limit reached/);
    assert.ok(r.pastDeadline.ms < 1500, String(r.pastDeadline.ms));
    assert.equal(requests.pastDeadline.length, 1);
    // With only a signal (its deadline not known ahead), the wait starts, and the signal
    // ends it with the 429 the call had, the signal's reason as its cause.
    const w = assertHttpError(r.abortedWait, 429, /HTTP 429 \(not retried: aborted during the 30 s wait before the next attempt\)/);
    assert.match(w.excerpt, /Rate limit reached/);
    assert.equal(w.cause?.name, "TimeoutError", JSON.stringify(w.cause));
    assert.ok(r.abortedWait.ms >= 700 && r.abortedWait.ms < 5000, String(r.abortedWait.ms));
    assert.equal(requests.abortedWait.length, 1);
  },

  async serverError(provider, r, requests) {
    // Three attempts (maxRetries 2), backing off 0.5 s then 1 s (less up to a quarter).
    const e = assertHttpError(r.direct, 500, /HTTP 500 after 3 attempts/);
    assert.match(e.excerpt, /scripted 500/);
    for (const run of ["direct", "compact", "compactError"]) {
      const list = requests[run];
      assert.equal(list.length, 3, run);
      const gaps = [list[1].at - list[0].at, list[2].at - list[1].at];
      assert.ok(gaps[0] >= 350 && gaps[1] >= 720 && gaps[1] < 5000, `${run}: gaps ${gaps}`);
    }
    // The default fallback, and fallback: "error" (SUMMARIZER_FAILED, the HTTP error its cause).
    assertFellBack(r.compact, /HTTP 500 after 3 attempts/);
    assert.equal(r.compactError.ok, false);
    const err = r.compactError.error;
    assert.equal(err.code, "SUMMARIZER_FAILED", err.message);
    assert.equal(err.cause?.code, "HTTP_ERROR", JSON.stringify(err.cause));
    assert.equal(err.cause.status, 500);
    assert.equal(r.compactError.leaked, false);
  },

  async junk(provider, r, requests) {
    const e = assertHttpError(r.direct, 200, /HTTP 200 with an unusable reply: not JSON/);
    assert.equal(e.excerpt, "<html> <body>Welcome to nginx! The gateway ate your request.</body> </html>");
    assertFellBack(r.compact, /unusable reply/);
    assert.equal(requests.direct.length, 1, "a junk body is not retried");
    assert.equal(requests.compact.length, 1);
  },

  async unauthorized(provider, r, requests) {
    // The server echoed the key in its 401 body; the error shows the body with the key redacted.
    const e = assertHttpError(r.direct, 401, /HTTP 401; body: .*Incorrect API key provided: \[redacted\]/);
    assert.match(e.excerpt, /Incorrect API key provided: \[redacted\]\./);
    assert.equal(requests.direct.length, 1, "a 401 is not retried");
    assertFellBack(r.compact, /HTTP 401/);
    const err = r.compactError.error;
    assert.equal(err.code, "SUMMARIZER_FAILED", err.message);
    assert.equal(err.cause?.code, "HTTP_ERROR");
    assert.equal(err.cause.status, 401);
    assert.match(err.cause.stack ?? err.cause.message, /\[redacted\]/);
    assert.equal(r.compactError.leaked, false);
  },
};
