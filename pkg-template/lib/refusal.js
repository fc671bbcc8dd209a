// A provider's refusal of an input as too long for its context window, as the core reads it
// (src/refusal.rs): the error's fields copied to JSON for it (an SDK's error is a class, with
// getters and a chain of causes), and the core's answers: what the refusal said, the
// correction to plan again with, the typed error of a second refusal. The middleware, the
// Compactor and the HTTP summarizers use it; the core decides, this only copies and asks.

/** @typedef {import("./types.d.ts").Raw} Raw */
/** @typedef {import("./types.d.ts").Guard} Guard */
/** @typedef {import("./core.generated.d.ts").Refusal} Refusal */
/** @typedef {import("./types.d.ts").Correction} Correction */

/** The fields errors keep a provider's answer in (the AI SDK's APICallError, the OpenAI and Anthropic SDKs', fetch wrappers'). */
const FIELDS = ["name", "message", "statusCode", "status", "code", "type", "responseBody", "data", "error", "body", "detail"];

/**
 * A JSON copy of what `e` says: its known fields, and its causes' (to a depth).
 * @param {unknown} e
 * @param {number} [depth]
 * @returns {unknown}
 */
export function errorFields(e, depth = 0) {
  if (typeof e === "string") return e;
  if (e === null || typeof e !== "object") return null;
  /** @type {Record<string, unknown>} */
  const out = {};
  const from = /** @type {Record<string, unknown>} */ (e);
  for (const key of FIELDS) {
    let v;
    try {
      v = from[key];
    } catch {
      continue;
    }
    if (v !== undefined && typeof v !== "function") out[key] = plain(v);
  }
  if (depth < 3 && "cause" in from && from.cause !== undefined) out.cause = errorFields(from.cause, depth + 1);
  return out;
}

/**
 * `v` as JSON has it (`null` for what JSON cannot carry: a cycle, a BigInt).
 * @param {unknown} v
 */
function plain(v) {
  try {
    return JSON.parse(JSON.stringify(v) ?? "null");
  } catch {
    return null;
  }
}

/**
 * The core's refusal functions, guarded.
 * @param {Raw} raw
 * @param {Guard} g
 */
export function refusalsWith(raw, g) {
  const read = g.wrap(raw.readRefusal);
  const correct = g.wrap(raw.correctAfterRefusal);
  const again = g.wrap(raw.refusedAgain);
  return {
    /**
     * What `error` says, if it is a provider's refusal of an input as too long (`null`: it is not).
     * @param {unknown} error
     * @returns {Refusal | null}
     */
    read: (error) => read(errorFields(error)),
    /**
     * The correction after `refusal` of an input ctxfold counted as `counted`, planned in `budget`.
     * @param {Refusal} refusal
     * @param {number} counted
     * @param {Correction | null} previous
     * @param {{ window: number, reservedOutput: number }} budget
     * @returns {Correction}
     */
    correct: (refusal, counted, previous, budget) => correct(refusal, counted, previous, budget.window, budget.reservedOutput),
    /**
     * The CONTEXT_OVERFLOW of a second refusal, with the provider's error as `cause`.
     * @param {Refusal} refusal
     * @param {number} estimate  ctxfold's estimate of the refused input, in the provider's tokens
     * @param {unknown} cause
     */
    again: (refusal, estimate, cause) => {
      const err = again(refusal, estimate);
      err.cause = cause;
      return err;
    },
  };
}
