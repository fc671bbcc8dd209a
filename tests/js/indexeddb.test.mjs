// IndexedDBStore where there is no IndexedDB (Node): the class is exported from every entry,
// its options are checked when it is made, and each call rejects with a typed STORE_ERROR
// that says why, never a bare TypeError from a missing global. (It runs in browsers and
// workers: tests/browser/indexeddb.test.mjs.)
import { test } from "node:test";
import assert from "node:assert/strict";
import * as ctxfold from "ctxfold";
import * as lite from "ctxfold/lite";
import { IndexedDBStore, isCtxfoldError } from "ctxfold";

test("exported as a class from both builds; its internals are not", () => {
  assert.equal(typeof IndexedDBStore, "function");
  assert.equal(typeof lite.IndexedDBStore, "function");
  for (const name of ["IdbCall", "IdbOpen", "idbOptions", "idbTimeout", "idbClose"]) {
    assert.ok(!(name in ctxfold), name);
    assert.ok(!(name in lite), name);
  }
});

test("options: defaults, and bad ones are TypeError / RangeError when the store is made", () => {
  assert.equal(new IndexedDBStore().database, "ctxfold");
  assert.equal(new IndexedDBStore({ database: "chats", timeoutMs: 500 }).database, "chats");
  assert.equal(new IndexedDBStore({ database: "chats" }).lockName, "indexeddb:chats");
  const bad = (options, name, code, part) =>
    assert.throws(
      () => new IndexedDBStore(options),
      (e) => e.name === name && e.code === code && isCtxfoldError(e) && part.test(e.message),
    );
  bad({ name: "x" }, "TypeError", "INVALID_ARGUMENT", /name/);
  bad({ database: 7 }, "TypeError", "INVALID_ARGUMENT", /database/);
  bad({ timeoutMs: 0 }, "RangeError", "OUT_OF_RANGE", /timeoutMs/);
  bad({ timeoutMs: Infinity }, "RangeError", "OUT_OF_RANGE", /timeoutMs/);
  bad("ctxfold", "TypeError", "INVALID_ARGUMENT", /options/);
});

test("without IndexedDB every call rejects with STORE_ERROR, and says so", async () => {
  assert.equal(typeof globalThis.indexedDB, "undefined");
  const store = new IndexedDBStore();
  for (const call of [
    () => store.load("a"),
    () => store.messages("a", 0),
    () => store.write("a", 0, { messages: [], meta: { version: 1, length: 0 } }),
    () => store.summaries("a"),
    () => store.records("a"),
    () => store.list(),
    () => store.delete("a"),
  ]) {
    // Opening the database is a call on no conversation: `store.open()`, not `store.open("")`.
    await assert.rejects(call(), (e) => e.code === "STORE_ERROR" && e.name === "CtxfoldError" && /^store\.open\(\) failed: .*no IndexedDB/.test(e.message));
  }
  store.close();
});
