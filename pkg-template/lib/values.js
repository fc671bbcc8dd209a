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

/** `<argument> out of range: expected <expected>, got <value>`, a RangeError with code OUT_OF_RANGE. */
export function outOfRange(argument, expected, value) {
  const err = new RangeError(`${argument} out of range: expected ${expected}, got ${String(value)}`);
  err.code = "OUT_OF_RANGE";
  return err;
}
