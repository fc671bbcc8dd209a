// The built-in HTTP summarizers' cases, run the same way in Node, in a page in Chromium and
// in a Worker in workerd: this module imports nothing, so each runtime loads it as it is.
// SCRIPTS says what the LLM double (llm-server.mjs) does in each case; the Node side makes
// one scenario per run and passes its base URL in. runCase calls the summarizer directly and
// through a real compact(), and returns what happened as plain data (errors serialised
// whole, cause included); summarizer-checks.mjs asserts on it.

/** The API key: it must never appear in an error, a report or a state. */
export const KEY = "sk-ctxfold-test-6f1d2c9a8b7e4d30";

/** compact()'s summarizer deadline in the slow case; the direct call's is DIRECT_TIMEOUT_MS. */
export const COMPACT_TIMEOUT_MS = 600;
export const DIRECT_TIMEOUT_MS = 300;
/** The slow server's delay: far past both deadlines. */
export const SLOW_MS = 20_000;

const ok = { reply: "ok" };
const rateLimited = { status: 429, headers: { "retry-after": "1" }, body: '{"error":{"message":"Rate limit reached","type":"rate_limit_error"}}' };

/**
 * Per case, the runs and each run's script. Runs: `direct` (the summarizer called with a
 * request), `compact` (compact() with the default fallback), `compactError` (compact() with
 * `fallback: "error"`), `pastDeadline` (a direct call whose deadline is shorter than the
 * server's retry-after), `abortedWait` (a direct call with only a signal, which aborts
 * during the retry-after wait).
 */
export const SCRIPTS = {
  success: { direct: [ok], compact: [ok] },
  slow: { direct: [{ delayMs: SLOW_MS }], compact: [{ delayMs: SLOW_MS }] },
  rateLimited: {
    direct: [rateLimited, ok],
    compact: [rateLimited, ok],
    pastDeadline: [{ ...rateLimited, headers: { "retry-after": "30" } }],
    abortedWait: [{ ...rateLimited, headers: { "retry-after": "30" } }],
  },
  serverError: { direct: [{ status: 500 }], compact: [{ status: 500 }], compactError: [{ status: 500 }] },
  junk: { direct: [{ junk: true }], compact: [{ junk: true }] },
  unauthorized: { direct: [{ echoKey: true }], compact: [{ echoKey: true }], compactError: [{ echoKey: true }] },
};

/** The summarizer model each provider is configured with. */
export const MODEL = { openai: "gpt-4o-mini", anthropic: "claude-haiku-4-5" };

/** A conversation that compacts at an 8k window with one summarizer call. */
export function conversation() {
  const messages = [{ role: "system", content: "You help with the billing service." }];
  for (let i = 0; i < 23; i++) {
    messages.push({ role: i % 2 ? "assistant" : "user", content: `turn ${i} about the billing service retries `.repeat(40) });
  }
  messages.push({ role: "user", content: "What did we decide about retries?" });
  return messages;
}

/** compact()'s options in a case (the summarizer aside). */
export function compactOptions(name, fallback) {
  return {
    model: "gpt-4o",
    contextWindow: 8000,
    ...(name === "slow" ? { summarizerTimeoutMs: COMPACT_TIMEOUT_MS } : {}),
    ...(fallback ? { fallback } : {}),
  };
}

/**
 * Runs one case's runs (all at once: each has its own scenario) in this runtime.
 * @param {object} ctxfold  the package's entry as this runtime imports it
 * @param {"openai" | "anthropic"} provider
 * @param {keyof SCRIPTS} name
 * @param {Record<string, string>} urls  a base URL per run
 */
export async function runCase(ctxfold, provider, name, urls) {
  const make = provider === "openai" ? ctxfold.openAISummarizer : ctxfold.anthropicSummarizer;
  const summarizer = (baseURL) => make({ baseURL, apiKey: KEY, model: MODEL[provider] });
  const runs = {
    direct: (s) => direct(s, { timeoutMs: name === "slow" ? DIRECT_TIMEOUT_MS : undefined }),
    pastDeadline: (s) => direct(s, { timeoutMs: 2000 }),
    abortedWait: (s) => direct(s, { signalMs: 800 }),
    compact: (s) => compactRun(ctxfold, s, compactOptions(name)),
    compactError: (s) => compactRun(ctxfold, s, compactOptions(name, "error")),
  };
  const out = {};
  await Promise.all(
    Object.entries(urls).map(async ([run, baseURL]) => {
      out[run] = await runs[run](summarizer(baseURL));
    }),
  );
  return out;
}

async function direct(summarizer, { timeoutMs, signalMs }) {
  const request = { system: "Summarize the conversation.", prompt: "The user asked about retries.", maxTokens: 200 };
  if (timeoutMs) request.timeoutMs = timeoutMs;
  if (signalMs) request.signal = AbortSignal.timeout(signalMs);
  const started = Date.now();
  try {
    const value = await summarizer(request);
    return { ok: true, value, ms: Date.now() - started };
  } catch (e) {
    return failed(e, started);
  }
}

async function compactRun(ctxfold, summarizer, options) {
  const started = Date.now();
  try {
    const r = await ctxfold.compact(conversation(), { ...options, summarizer });
    return {
      ok: true,
      ms: Date.now() - started,
      status: r.contextStatus,
      fallback: r.report.fallback,
      newChunks: r.report.newChunks,
      tokensAfter: r.report.tokensAfter,
      inputBudget: r.report.budget.input,
      chunks: r.state.chunks.map((c) => ({ model: c.model ?? null, usage: c.usage ?? null, fallback: c.fallback ?? null })),
      leaked: JSON.stringify(r).includes(KEY),
    };
  } catch (e) {
    return failed(e, started);
  }
}

function failed(e, started) {
  const error = serialize(e);
  return { ok: false, ms: Date.now() - started, error, leaked: JSON.stringify(error).includes(KEY) };
}

/**
 * A value as plain data, all of it: an error's own properties (enumerable or not: message,
 * stack, cause), the usual ones it may inherit (a DOMException's name and message), its
 * string form, and the same for its cause, recursively.
 */
export function serialize(value, seen = new Set()) {
  if (typeof value === "bigint" || typeof value === "symbol") return String(value);
  if (typeof value === "function") return `[function ${value.name}]`;
  if (value === null || typeof value !== "object") return value;
  if (seen.has(value)) return "[cycle]";
  seen.add(value);
  if (Array.isArray(value)) return value.map((v) => serialize(v, seen));
  const out = { "[[class]]": Object.prototype.toString.call(value) };
  try {
    out["[[string]]"] = String(value);
  } catch {
    out["[[string]]"] = "[unprintable]";
  }
  const keys = new Set(Object.getOwnPropertyNames(value));
  for (const k of ["name", "message", "stack", "cause", "code", "status", "excerpt"]) if (k in value) keys.add(k);
  for (const k of keys) {
    let v;
    try {
      v = value[k];
    } catch {
      v = "[getter threw]";
    }
    out[k] = serialize(v, seen);
  }
  return out;
}
