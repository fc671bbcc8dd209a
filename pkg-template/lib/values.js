// What the modules' argument errors are made of: the kind of a value, and the typed errors for
// an argument of the wrong kind and one out of range (the names and codes the core's own
// errors carry: a TypeError with INVALID_ARGUMENT, a RangeError with OUT_OF_RANGE).

/** `"null"`, `"an array"`, or the value's `typeof`. */
export const kindOf = (v) => (v === null ? "null" : Array.isArray(v) ? "an array" : typeof v);

/** `invalid argument <argument>: expected <expected>`, a TypeError with code INVALID_ARGUMENT. */
export function invalidArgument(argument, expected) {
  const err = new TypeError(`invalid argument ${argument}: expected ${expected}`);
  err.code = "INVALID_ARGUMENT";
  return err;
}

/**
 * Checks an integer argument from `min` to `max`: a value that is no number is a TypeError
 * (INVALID_ARGUMENT), a number that is not an integer in range a RangeError (OUT_OF_RANGE), as
 * the core's own options are checked.
 */
export function checkInteger(argument, value, min, max, unit = "") {
  const expected = `an integer from ${min} to ${max}${unit}`;
  if (typeof value !== "number") throw invalidArgument(argument, `${expected}, got ${kindOf(value)}`);
  if (!Number.isInteger(value) || value < min || value > max) throw outOfRange(argument, expected, value);
  return value;
}

/**
 * compact()'s "no such option (known: ...)" error, for a caller whose options are compact()'s
 * without `drop` and with `add`: its list made that caller's. Any other error as it was.
 */
export function withKnownOptions(e, drop, add) {
  const m = typeof e?.message === "string" ? e.message.match(/^(.*no such option \(known: )([^)]*)\)$/) : null;
  if (m === null) return e;
  const names = m[2].split(", ").filter((n) => !drop.has(n));
  e.message = `${m[1]}${[...new Set([...names, ...add])].sort().join(", ")})`;
  return e;
}

/** `<argument> out of range: expected <expected>, got <value>`, a RangeError with code OUT_OF_RANGE. */
export function outOfRange(argument, expected, value) {
  const err = new RangeError(`${argument} out of range: expected ${expected}, got ${String(value)}`);
  err.code = "OUT_OF_RANGE";
  return err;
}
