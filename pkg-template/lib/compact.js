// compact(): drives a CompactCall (src/wasm/compact.rs) through its summarizer rounds. Every
// step is a synchronous wasm call inside this async function, so an error or a trap in any
// of them rejects the caller's promise; none is left waiting on a module that stopped.

/** @typedef {import("./types.d.ts").CoreRequest} CoreRequest */
/** @typedef {import("./types.d.ts").SummaryRequest} SummaryRequest */
/**
 * What a call's catch holds: anything, but ctxfold's own errors have a `code` and a `cause`.
 * @typedef {{ code?: unknown, cause?: unknown } | null | undefined} Caught
 */

/**
 * @param {import("./types.d.ts").Raw} raw  the wasm-bindgen module
 * @param {import("./types.d.ts").Guard} g
 */
export function compactWith(raw, g) {
  /**
   * @param {unknown} messages
   * @param {unknown} options
   */
  return async function compact(messages, options) {
    g.check();
    const since = g.restarts();
    /** @type {import("./types.d.ts").CompactCall | null} */
    let call = null;
    let waited = 0;
    /** @type {unknown} */
    let firstRejection;
    try {
      call = raw.CompactCall.start(messages, options);
      const summarizer = /** @type {(request: SummaryRequest) => unknown} */ (call.summarizer());
      for (let requests = call.requests(); requests !== null; requests = call.requests()) {
        const t = Date.now();
        const replies = await Promise.all(requests.map((r) => ask(summarizer, r)));
        waited += Date.now() - t;
        firstRejection ??= replies.find((r) => r.rejection !== undefined)?.rejection;
        call.submit(replies.map(({ value, failed }) => (failed === undefined ? { value } : { failed })));
      }
      const finishing = call;
      call = null; // finish consumes it, whatever happens
      return finishing.finish(waited);
    } catch (e) {
      let err = /** @type {Caught} */ (g.recover(e));
      // The module was made afresh (by this call's trap, or another's while this one waited
      // for its summarizer): the call belonged to the old instance; free nothing there.
      if (g.restarts() !== since) {
        call = null;
        if (err === e) err = /** @type {Caught} */ (g.restartedDuring(e));
      }
      if (err?.code === "SUMMARIZER_FAILED" && firstRejection !== undefined && err.cause === undefined) {
        err.cause = firstRejection;
      }
      throw err;
    } finally {
      if (call !== null) {
        try {
          call.free();
        } catch {
          // Already released.
        }
      }
    }
  };
}

/**
 * One summarizer call with its deadline: `{ value }`, or `{ failed, rejection }`.
 * @param {(request: SummaryRequest) => unknown} summarizer
 * @param {CoreRequest} request
 * @returns {Promise<{ value: unknown, failed?: undefined, rejection?: undefined } | { value?: undefined, failed: string, rejection: unknown }>}
 */
export function ask(summarizer, request) {
  const controller = new AbortController();
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  const deadline = new Promise((_, reject) => {
    timer = setTimeout(() => {
      const reason = new Error(`the summarizer did not answer within ${request.timeoutMs} ms`);
      reason.name = "TimeoutError";
      controller.abort(reason);
      reject(reason);
    }, request.timeoutMs);
  });
  // A summarizer that throws synchronously is a rejection like any other.
  const answer = Promise.resolve().then(() => summarizer({ ...request, signal: controller.signal }));
  return Promise.race([answer, deadline])
    .then(
      (value) => ({ value }),
      (rejection) => ({ failed: failure(rejection), rejection }),
    )
    .finally(() => clearTimeout(timer));
}

/**
 * Why a summarizer call failed, in words for the report.
 * @param {any} e  a rejection: any value, even one whose getters throw
 * @returns {string}
 */
export function failure(e) {
  let name;
  let message;
  try {
    name = e?.name;
    message = e?.message;
  } catch {
    // A rejection value whose getters throw.
  }
  if (name === "TimeoutError" && typeof message === "string") return message;
  if (typeof message === "string") return `the summarizer rejected: ${message}`;
  let what;
  try {
    what = typeof e === "string" ? e : e === null ? "null" : typeof e;
  } catch {
    what = "a value";
  }
  return `the summarizer rejected with ${what}`;
}
