// What the modules' errors are made of: the kind of a value, and the one builder of every
// error ctxfold's JavaScript raises, made as the core's own are (src/wasm/error.rs): a
// TypeError for INVALID_ARGUMENT, a RangeError for OUT_OF_RANGE, an Error named
// "CtxfoldError" for any other code; `code` always, `argument` for an argument's error,
// `known` for an unknown option.

/** @typedef {Error & { code: string, argument?: string, known?: string[] } & Record<string, unknown>} CodedError */

/**
 * `"null"`, `"an array"`, or the value's `typeof`.
 * @param {unknown} v
 */
export const kindOf = (v) => (v === null ? "null" : Array.isArray(v) ? "an array" : typeof v);

/** @type {Record<string, ErrorConstructor | undefined>} */
const KINDS = { INVALID_ARGUMENT: TypeError, OUT_OF_RANGE: RangeError };

/**
 * A ctxfold error: `code` (a declared CtxfoldErrorCode), `message`, and `fields` set on it
 * as they are given (`argument`, `known`, `cause`, ...; undefined ones left out).
 * @param {string} code
 * @param {string} message
 * @param {Record<string, unknown>} [fields]
 * @returns {CodedError}
 */
export function ctxfoldError(code, message, fields = {}) {
  const Kind = KINDS[code];
  const err = /** @type {CodedError} */ (Kind === undefined ? new Error(message) : new Kind(message));
  if (Kind === undefined) err.name = "CtxfoldError";
  err.code = code;
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) err[key] = value;
  return err;
}

/**
 * `invalid argument <argument>: expected <expected>`, a TypeError with code INVALID_ARGUMENT.
 * @param {string} argument
 * @param {string} expected
 */
export function invalidArgument(argument, expected) {
  return ctxfoldError("INVALID_ARGUMENT", `invalid argument ${argument}: expected ${expected}`, { argument });
}

/**
 * `<argument> out of range: expected <expected>, got <value>`, a RangeError with code OUT_OF_RANGE.
 * @param {string} argument
 * @param {string} expected
 * @param {unknown} value
 */
export function outOfRange(argument, expected, value) {
  return ctxfoldError("OUT_OF_RANGE", `${argument} out of range: expected ${expected}, got ${String(value)}`, { argument });
}

/**
 * An option that does not exist, with the `known` ones (the core's UnknownOption, in words and fields).
 * @param {string} argument
 * @param {string[]} known
 */
export function unknownOption(argument, known) {
  return ctxfoldError("INVALID_ARGUMENT", `invalid argument ${argument}: expected no such option (known: ${known.join(", ")})`, { argument, known });
}

/**
 * Checks an integer argument from `min` to `max`: a value that is no number is a TypeError
 * (INVALID_ARGUMENT), a number that is not an integer in range a RangeError (OUT_OF_RANGE), as
 * the core's own options are checked.
 * @param {string} argument
 * @param {unknown} value
 * @param {number} min
 * @param {number} max
 * @param {string} [unit]
 * @returns {number}
 */
export function checkInteger(argument, value, min, max, unit = "") {
  const expected = `an integer from ${min} to ${max}${unit}`;
  if (typeof value !== "number") throw invalidArgument(argument, `${expected}, got ${kindOf(value)}`);
  if (!Number.isInteger(value) || value < min || value > max) throw outOfRange(argument, expected, value);
  return value;
}

/**
 * The core's unknown-option error (its `known` list, a property, not words) for a caller whose
 * options are the core's without `drop` and with `add`: the list made that caller's. Any
 * other error as it was.
 * @param {any} e  what was thrown
 * @param {Set<string>} drop
 * @param {string[]} add
 */
export function withOwnOptions(e, drop, add) {
  if (e?.code !== "INVALID_ARGUMENT" || !Array.isArray(e.known) || typeof e.argument !== "string") return e;
  const known = [...new Set([.../** @type {string[]} */ (e.known).filter((n) => !drop.has(n)), ...add])].sort();
  return unknownOption(e.argument, known);
}
