// What a test asserts of a ctxfold error: for assert.throws and assert.rejects.
import assert from "node:assert/strict";
import { isCtxfoldError } from "ctxfold";

/** A validator: a ctxfold error of this `name` and `code`, its message matching `message` if given. */
export const typed = (name, code, message) => (e) => {
  assert.ok(isCtxfoldError(e), `not a ctxfold error: ${e}`);
  assert.equal(e.name, name);
  assert.equal(e.code, code);
  if (message) assert.match(e.message, message);
  return true;
};
