// The store contract (ctxfold/testing, imported as a custom store's tests import it) against the stores that run in
// Node: MemoryStore, and a plain-JS store written the way the contract's docs show, so a
// custom store a user writes from those docs passes the same cases.
import { test } from "node:test";
import assert from "node:assert/strict";
import { MemoryStore, checkWrite, staleWriteError, isCtxfoldError } from "ctxfold";
import { assertStore, checkStore } from "ctxfold/testing";

/** A custom store over a Map, as the CompactorStore docs show it. */
export function mapStore() {
  const seqs = (xs) => xs.map((x) => x.seq);
  return appendingStore((id, expect, batch, row) => checkWrite(id, expect, batch, row?.meta ?? null, row && { summaries: seqs(row.summaries), records: seqs(row.records) }));
}

/** That store with only the version checked: it appends whatever batch it is given. */
function versionOnlyStore() {
  return appendingStore((id, expect, _batch, row) => {
    if ((row?.meta.version ?? 0) !== expect) throw staleWriteError(id, expect, row?.meta.version ?? null);
  });
}

function appendingStore(check) {
  const rows = new Map();
  const copy = (v) => structuredClone(v);
  return {
    async load(id) {
      return copy(rows.get(id)?.meta ?? null);
    },
    async messages(id, from) {
      return copy(rows.get(id)?.messages.slice(from) ?? []);
    },
    async write(id, expect, batch) {
      const row = rows.get(id);
      check(id, expect, batch, row);
      const next = row ?? { meta: batch.meta, messages: [], summaries: [], records: [] };
      next.messages.push(...copy(batch.messages));
      next.summaries.push(...copy(batch.summaries));
      next.records.push(...copy(batch.records));
      next.meta = copy(batch.meta);
      rows.set(id, next);
    },
    async summaries(id) {
      return copy(rows.get(id)?.summaries ?? []);
    },
    async records(id) {
      return copy(rows.get(id)?.records ?? []);
    },
    async list() {
      return [...rows.keys()];
    },
    async delete(id) {
      rows.delete(id);
    },
  };
}

for (const [name, make] of [
  ["MemoryStore", () => new MemoryStore()],
  ["a plain-JS store", mapStore],
]) {
  test(`${name} keeps the store contract`, async () => {
    const results = await checkStore(make);
    assert.ok(results.length >= 10, `${results.length} cases ran`);
    for (const r of results) assert.ok(r.ok, `${r.name}: ${r.error}`);
  });
}

test("the conformance cases fail a store that breaks the contract", async () => {
  // Each broken store must fail at least the case about what it breaks: the suite can fail.
  const noCheck = await checkStore(noVersionCheck);
  assert.equal(noCheck.find((r) => r.name.startsWith("a write expecting another version")).ok, false);
  assert.equal(noCheck.find((r) => r.name.startsWith("of two writes")).ok, false);
  const appends = await checkStore(versionOnlyStore);
  assert.equal(appends.find((r) => r.name.startsWith("a write that does not go on from what is stored")).ok, false);
  assert.equal(appends.filter((r) => !r.ok).length, 1, JSON.stringify(appends.filter((r) => !r.ok)));
  const refs = await checkStore(referenceStore);
  assert.equal(refs.find((r) => r.name === "values are copied in and out").ok, false);
});

test("assertStore passes a store that keeps the contract and throws, naming each failed case, for one that does not", async () => {
  assert.ok((await assertStore(() => new MemoryStore())) >= 10);
  await assert.rejects(assertStore(noVersionCheck), (e) => {
    assert.ok(e instanceof AggregateError, String(e));
    assert.ok(e.errors.length >= 2, `${e.errors.length} failed cases`);
    assert.match(e.message, /a write expecting another version is refused/);
    assert.match(e.message, /of two writes expecting the same version, one lands/);
    return true;
  });
});

test("checkWrite refuses a stale version, and a batch that would cut, gap or replace what is stored", () => {
  const meta = (version, length) => ({ version, length });
  const batch = (version, start, messages, extra = {}) => ({ start, messages, summaries: [], records: [], meta: { version, length: start + messages.length }, ...extra });
  const stored = meta(3, 2);
  const held = { summaries: [0], records: [0] };
  assert.equal(checkWrite("c", 3, batch(4, 2, [{}]), stored, held), undefined);
  assert.equal(checkWrite("c", 0, batch(1, 0, [{}]), null), undefined);
  const refused = (f, code, pattern) =>
    assert.throws(f, (e) => {
      assert.ok(isCtxfoldError(e), String(e));
      assert.equal(e.code, code);
      assert.match(e.message, pattern);
      return true;
    });
  refused(() => checkWrite("c", 2, batch(3, 2, [{}]), stored, held), "STALE_WRITE", /expected version 2.*holds version 3/);
  refused(() => checkWrite("c", 3, batch(4, 1, [{}]), stored, held), "INVALID_ARGUMENT", /batch\.start.*stored length 2, got 1/);
  refused(() => checkWrite("c", 3, batch(4, 2, [{}], { summaries: [{ seq: 0 }] }), stored, held), "INVALID_ARGUMENT", /batch\.summaries\[0\]\.seq.*stored already/);
  refused(() => checkWrite("c", 3, batch(4, 2, [], { records: [{ seq: 1 }, { seq: 1 }] }), stored, held), "INVALID_ARGUMENT", /batch\.records\[1\]\.seq.*named twice/);
  refused(() => checkWrite("c", 3, batch(5, 2, [{}]), stored, held), "INVALID_ARGUMENT", /batch\.meta\.version/);
  refused(() => checkWrite("c", 3, batch(4, 2, [{}]), { version: "3" }, held), "INVALID_ARGUMENT", /stored/);
  // The module works for the next call.
  assert.equal(checkWrite("c", 3, batch(4, 2, []), stored, held), undefined);
});

test("staleWriteError is a typed error", () => {
  const e = staleWriteError("chat-1", 3, 4);
  assert.ok(isCtxfoldError(e));
  assert.equal(e.name, "CtxfoldError");
  assert.equal(e.code, "STALE_WRITE");
  assert.match(e.message, /"chat-1".*expected version 3.*holds version 4/);
  assert.match(staleWriteError("chat-1", 1, null).message, /holds no conversation/);
});

function noVersionCheck() {
  const rows = new Map();
  return {
    async load(id) {
      return structuredClone(rows.get(id)?.meta ?? null);
    },
    async messages(id, from) {
      return structuredClone(rows.get(id)?.messages.slice(from) ?? []);
    },
    async write(id, _expect, batch) {
      const row = rows.get(id) ?? { messages: [], summaries: [], records: [] };
      row.messages.push(...structuredClone(batch.messages));
      row.summaries.push(...structuredClone(batch.summaries));
      row.records.push(...structuredClone(batch.records));
      row.meta = structuredClone(batch.meta);
      rows.set(id, row);
    },
    async summaries(id) {
      return structuredClone(rows.get(id)?.summaries ?? []);
    },
    async records(id) {
      return structuredClone(rows.get(id)?.records ?? []);
    },
    async list() {
      return [...rows.keys()];
    },
    async delete(id) {
      rows.delete(id);
    },
  };
}

function referenceStore() {
  const rows = new Map();
  return {
    async load(id) {
      return rows.get(id)?.meta ?? null;
    },
    async messages(id, from) {
      return rows.get(id)?.messages.slice(from) ?? [];
    },
    async write(id, expect, batch) {
      const row = rows.get(id);
      check(id, expect, batch, row);
      const next = row ?? { meta: batch.meta, messages: [], summaries: [], records: [] };
      next.messages.push(...batch.messages);
      next.summaries.push(...batch.summaries);
      next.records.push(...batch.records);
      next.meta = batch.meta;
      rows.set(id, next);
    },
    async summaries(id) {
      return rows.get(id)?.summaries ?? [];
    },
    async records(id) {
      return rows.get(id)?.records ?? [];
    },
    async list() {
      return [...rows.keys()];
    },
    async delete(id) {
      rows.delete(id);
    },
  };
}
