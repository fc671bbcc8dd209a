// openAISummarizer() and anthropicSummarizer(): the options are checked in Rust once, into
// plain settings that the returned function keeps, so no wasm object outlives a call (a
// summarizer made before the module restarted after a trap keeps working). Each call drives
// an HttpSummaryCall (src/wasm/http.rs) as compact.js drives a CompactCall: every step is a
// synchronous wasm call inside this async function, so an error or a trap in any of them
// rejects the caller's promise. Rust builds each request (with gloo-net) and starts its
// fetch; this loop only awaits what Rust started, and waits when Rust says to.

/** @typedef {import("./types.d.ts").Raw} Raw */
/** @typedef {import("./types.d.ts").Guard} Guard */
/** @typedef {import("./types.d.ts").HttpSummaryRequest} HttpSummaryRequest */

/**
 * @param {Raw} raw  the wasm-bindgen module
 * @param {Guard} g
 */
export function summarizersWith(raw, g) {
  const settingsFor = g.wrap(raw.summarizerSettings);
  /** @param {string} provider */
  const make = (provider) => (/** @type {unknown} */ options) => {
    const settings = settingsFor(provider, options);
    return (/** @type {HttpSummaryRequest} */ request) => summarize(raw, g, settings, request);
  };
  return { openAISummarizer: make("openai"), anthropicSummarizer: make("anthropic") };
}

/**
 * @param {Raw} raw
 * @param {Guard} g
 * @param {string} settings
 * @param {HttpSummaryRequest} request  as the caller passed it: Rust checks it
 * @returns {Promise<import("./types.d.ts").HttpSummary>}
 */
async function summarize(raw, g, settings, request) {
  g.check();
  const since = g.restarts();
  // Without a signal, the request's own deadline (if it has one) aborts it.
  let signal = request?.signal;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  if (signal == null && /** @type {number} */ (request?.timeoutMs) > 0) {
    const controller = new AbortController();
    timer = setTimeout(() => {
      const reason = new Error(`the summarizer did not answer within ${request.timeoutMs} ms`);
      reason.name = "TimeoutError";
      controller.abort(reason);
    }, request.timeoutMs);
    signal = controller.signal;
  }
  /** @type {import("./types.d.ts").HttpSummaryCall | null} */
  let call = null;
  /** After each await: the module may have been made afresh meanwhile, or the call aborted. */
  const resumed = () => {
    if (g.restarts() !== since) {
      call = null;
      throw g.restartedDuring(new Error("the module was restarted while a summarizer request was in flight"));
    }
    if (signal?.aborted) throw signal.reason;
  };
  try {
    call = raw.HttpSummaryCall.start(settings, request, signal);
    for (;;) {
      resumed();
      const step = call.next();
      if (step.done !== undefined) return step.done;
      if (step.wait !== undefined) {
        await sleep(step.wait, signal);
        // Aborted while it waited to retry (a signal's deadline is not known ahead): the
        // answer it had, the signal's reason as its cause.
        if (signal?.aborted && g.restarts() === since) throw call.abandoned(signal.reason);
        continue;
      }
      let text;
      try {
        // Raced against the signal here too: the fetch gets it, but Node 20's fetch follows
        // a Request's signal through a weak reference, and once the Request built in Rust is
        // collected an abort no longer reaches it (the call then never settled).
        const response = await abortable(step.fetch, signal);
        resumed();
        text = await abortable(call.response(response), signal);
      } catch (e) {
        if (e instanceof WebAssembly.RuntimeError) throw e;
        resumed();
        call.unreachable(e);
        continue;
      }
      resumed();
      call.body(text);
    }
  } catch (e) {
    const err = g.recover(e);
    // A trap made the module afresh: the call belonged to the old instance.
    if (g.restarts() !== since) call = null;
    throw err;
  } finally {
    clearTimeout(timer);
    if (call !== null) {
      try {
        call.free();
      } catch {
        // Already released.
      }
    }
  }
}

/**
 * `promise`, or a rejection with the signal's reason as soon as `signal` aborts.
 * @template T
 * @param {Promise<T>} promise
 * @param {AbortSignal | null | undefined} signal
 * @returns {Promise<T>}
 */
function abortable(promise, signal) {
  if (!signal) return promise;
  return new Promise((resolve, reject) => {
    const aborted = () => reject(signal.reason);
    if (signal.aborted) aborted();
    else signal.addEventListener("abort", aborted, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", aborted);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener("abort", aborted);
        reject(error);
      },
    );
  });
}

/**
 * Resolves after `ms`, or as soon as `signal` aborts.
 * @param {number} ms
 * @param {AbortSignal | null | undefined} signal
 * @returns {Promise<void>}
 */
function sleep(ms, signal) {
  return /** @type {Promise<void>} */ (
    new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener("abort", done, { once: true });
    })
  );
}
