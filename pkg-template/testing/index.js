// ctxfold/testing: the store contract, checked. A custom CompactorStore runs these cases in its
// own tests (any test runner), as ctxfold's own stores do (MemoryStore, durableObjectStore in
// workerd, IndexedDBStore in Chromium). It imports nothing, so a page and a Worker load it as
// it is.
//
//   import { assertStore } from "ctxfold/testing";
//   await assertStore(() => new MySqliteStore(db));   // throws, listing every case that failed
//
// `makeStore()` is called once per case and may return a promise; each case uses ids of its
// own (prefixed with a random tag), so one shared store may be returned every time. After a
// case, what it wrote is deleted. The contract (the `CompactorStore` interface in the
// package's .d.ts):
//
// - load(id): the meta last written, or null.
// - messages(id, from): history items from index `from` on, in order ([] past the end or for
//   an unknown id).
// - write(id, expect, batch): one transaction. Rejects with an error whose `code` is
//   "STALE_WRITE", writing nothing, unless the stored meta's version is `expect` (0: no meta);
//   else appends batch.messages at batch.start, adds batch.summaries and batch.records, puts
//   batch.meta (whose version is expect + 1). Nothing stored is replaced or cut: a batch whose
//   start is not the stored length, or that names a summary's or record's seq stored already,
//   is refused (rejects with an Error), writing nothing. The package's checkWrite makes all
//   of these checks.
// - summaries(id), records(id): everything added, in `seq` order.
// - list(): the ids that have a meta. delete(id): removes everything of the conversation.
// - Values are copied in and out (structured clone or JSON): changing an object after writing
//   it, or one a read returned, changes nothing stored.

/** @typedef {import("../lib/types.d.ts").CompactorStore} CompactorStore */
/** @typedef {import("../lib/types.d.ts").StoredMeta} StoredMeta */
/** @typedef {import("../lib/types.d.ts").StoredSummary} StoredSummary */
/** @typedef {import("../lib/types.d.ts").CompactionRecord} CompactionRecord */
/** @typedef {import("../lib/types.d.ts").WriteBatch} WriteBatch */
/**
 * What the cases read back: any JSON a store returns, taken apart as the case expects it to be.
 * @typedef {any} Read
 */

/**
 * A meta as the Compactor writes it (the store reads only `version`): of schema 1, so without
 * the guards' state, which reads as none.
 * @param {string} id
 * @param {number} version
 * @param {number} length
 * @param {Partial<StoredMeta>} [extra]
 * @returns {StoredMeta}
 */
export function metaFor(id, version, length, extra = {}) {
  return /** @type {StoredMeta} */ ({
    schema: 1,
    id,
    version,
    epoch: "conformance",
    length,
    format: "openai",
    system: null,
    state: { version: 1, chunks: [], boundary: null, pruneBoundary: null, pinned: null },
    undo: null,
    compactions: 0,
    summaries: 0,
    undone: [],
    lastInput: null,
    anchors: [],
    lastCompaction: null,
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
    ...extra,
  });
}

/**
 * @param {number} i
 * @param {Record<string, unknown>} [extra]
 */
const message = (i, extra = {}) => ({ role: i % 2 ? "assistant" : "user", content: `message ${i}`, ...extra });
/**
 * @param {number} seq
 * @returns {StoredSummary}
 */
const summary = (seq, compaction = seq) => ({
  seq,
  compaction,
  generation: seq + 1,
  text: `## Conversation Summary\n- **Facts:** summary ${seq}`,
  through: seq,
  tokens: 12,
  trigger: "threshold",
  keptIds: [],
  lostIds: [],
});
/**
 * A record with the fields a reader of the store might look at (a store reads only `seq`).
 * @param {number} seq
 * @returns {CompactionRecord}
 */
const record = (seq) =>
  /** @type {CompactionRecord} */ ({ seq, trigger: "threshold", tokensBefore: 1000 + seq, tokensAfter: 100 + seq, evicted: [seq], undone: false });

/**
 * A batch appending `messages` at `start`, putting the meta of version `version`.
 * @param {string} id
 * @param {number} version
 * @param {number} start
 * @param {unknown[]} messages
 * @param {{ summaries?: StoredSummary[], records?: CompactionRecord[], meta?: Partial<StoredMeta> }} [more]
 * @returns {WriteBatch}
 */
function batch(id, version, start, messages, { summaries = [], records = [], meta = {} } = {}) {
  return { start, messages, summaries, records, meta: metaFor(id, version, start + messages.length, meta) };
}

class CheckFailed extends Error {}
/**
 * @param {boolean} ok
 * @param {string} what
 */
function check(ok, what) {
  if (!ok) throw new CheckFailed(what);
}
/** @param {unknown} v */
const json = (v) => JSON.stringify(v);
/**
 * @param {unknown} actual
 * @param {unknown} expected
 * @param {string} what
 */
function same(actual, expected, what) {
  check(json(actual) === json(expected), `${what}: expected ${short(expected)}, got ${short(actual)}`);
}
/** @param {unknown} v */
function short(v) {
  const s = json(v) ?? String(v);
  return s.length > 200 ? `${s.slice(0, 200)}... (${s.length} characters)` : s;
}
/**
 * @param {Promise<unknown>} promise
 * @param {string} what
 */
async function rejectsStale(promise, what) {
  const error = /** @type {Read} */ (await rejects(promise, what));
  check(error.code === "STALE_WRITE", `${what}: rejected with code ${error.code} (${error.message}), not STALE_WRITE`);
}

/**
 * @param {Promise<unknown>} promise
 * @param {string} what
 */
async function rejects(promise, what) {
  /** @type {unknown} */
  let error = null;
  try {
    await promise;
  } catch (e) {
    error = e;
  }
  check(error !== null, `${what}: the write was accepted`);
  check(error instanceof Error, `${what}: the rejection is not an Error`);
  return error;
}

/**
 * Everything stored for `id`, read back.
 * @param {CompactorStore} store
 * @param {string} id
 */
async function snapshot(store, id) {
  return {
    meta: await store.load(id),
    messages: await store.messages(id, 0),
    summaries: await store.summaries(id),
    records: await store.records(id),
  };
}

/** @type {Record<string, (store: CompactorStore, id: string) => Promise<void>>} */
export const CASES = {
  async "an unknown id has nothing"(store, id) {
    same(await store.load(id), null, "load");
    same(await store.messages(id, 0), [], "messages(id, 0)");
    same(await store.messages(id, 5), [], "messages(id, 5)");
    same(await store.summaries(id), [], "summaries");
    same(await store.records(id), [], "records");
    check(!(await store.list()).includes(id), "list() has an id never written");
    await store.delete(id); // resolves
  },

  async "the first write expects version 0 and is read back"(store, id) {
    const b = batch(id, 1, 0, [message(0), message(1)]);
    await store.write(id, 0, b);
    same(await store.load(id), b.meta, "load");
    same(await store.messages(id, 0), b.messages, "messages(id, 0)");
    same(await store.messages(id, 1), [message(1)], "messages(id, 1)");
    same(await store.messages(id, 2), [], "messages(id, 2)");
    check((await store.list()).includes(id), "list() lacks the id");
  },

  async "writes append messages, summaries and records"(store, id) {
    await store.write(id, 0, batch(id, 1, 0, [message(0), message(1)]));
    const second = batch(id, 2, 2, [message(2)], { summaries: [summary(0)], records: [record(0)] });
    await store.write(id, 1, second);
    await store.write(id, 2, batch(id, 3, 3, [], { summaries: [summary(1), summary(2)] }));
    const s = await snapshot(store, id);
    same(s.meta, metaFor(id, 3, 3), "meta");
    same(s.messages, [message(0), message(1), message(2)], "messages");
    same(s.summaries, [summary(0), summary(1), summary(2)], "summaries");
    same(s.records, [record(0)], "records");
  },

  async "a write expecting another version is refused and writes nothing"(store, id) {
    await store.write(id, 0, batch(id, 1, 0, [message(0)]));
    await store.write(id, 1, batch(id, 2, 1, [message(1)], { summaries: [summary(0)], records: [record(0)] }));
    const before = await snapshot(store, id);
    const stale = batch(id, 2, 1, [message(99)], { summaries: [summary(5)], records: [record(5)] });
    await rejectsStale(store.write(id, 1, stale), "expect 1 with version 2 stored");
    await rejectsStale(store.write(id, 0, batch(id, 1, 0, [message(98)])), "expect 0 with version 2 stored");
    await rejectsStale(store.write(id, 3, batch(id, 4, 2, [message(97)])), "expect 3 with version 2 stored");
    same(await snapshot(store, id), before, "after the refused writes");
    const fresh = `${id}-never-written`;
    await rejectsStale(store.write(fresh, 1, batch(fresh, 2, 0, [message(0)])), "expect 1 for an unknown id");
    same(await store.load(fresh), null, "load after a refused first write");
    same(await store.messages(fresh, 0), [], "messages after a refused first write");
  },

  async "a write that does not go on from what is stored is refused and writes nothing"(store, id) {
    await store.write(id, 0, batch(id, 1, 0, [message(0), message(1)]));
    await store.write(id, 1, batch(id, 2, 2, [message(2)], { summaries: [summary(0)], records: [record(0)] }));
    const before = await snapshot(store, id);
    await rejects(store.write(id, 2, batch(id, 3, 1, [message(9)])), "batch.start 1 with 3 messages stored (it would cut the history)");
    await rejects(store.write(id, 2, batch(id, 3, 5, [message(9)])), "batch.start 5 with 3 messages stored (it would leave a gap)");
    await rejects(store.write(id, 2, batch(id, 3, 3, [message(3)], { summaries: [summary(0)] })), "a summary whose seq is stored already");
    await rejects(store.write(id, 2, batch(id, 3, 3, [], { records: [record(0)] })), "a record whose seq is stored already");
    same(await snapshot(store, id), before, "after the refused writes");
    const next = batch(id, 3, 3, [message(3)], { summaries: [summary(1)], records: [record(1)] });
    await store.write(id, 2, next);
    same(await store.summaries(id), [summary(0), summary(1)], "summaries after the next write");
    same(await store.messages(id, 0), [message(0), message(1), message(2), message(3)], "messages after the next write");
  },

  async "of two writes expecting the same version, one lands"(store, id) {
    await store.write(id, 0, batch(id, 1, 0, [message(0)]));
    const a = batch(id, 2, 1, [message(1, { from: "a" }), message(2, { from: "a" })], { records: [record(0)] });
    const b = batch(id, 2, 1, [message(1, { from: "b" })], { summaries: [summary(0)] });
    const settled = await Promise.allSettled([store.write(id, 1, a), store.write(id, 1, b)]);
    const won = settled.findIndex((s) => s.status === "fulfilled");
    check(settled.filter((s) => s.status === "fulfilled").length === 1, `${settled.filter((s) => s.status === "fulfilled").length} of 2 landed`);
    const lost = /** @type {PromiseRejectedResult} */ (settled[1 - won]);
    check(lost.reason?.code === "STALE_WRITE", `the other rejected with ${lost.reason?.code} (${lost.reason?.message})`);
    const winner = won === 0 ? a : b;
    const s = await snapshot(store, id);
    same(s.meta, winner.meta, "meta");
    same(s.messages, [message(0), ...winner.messages], "messages");
    same(s.summaries, winner.summaries, "summaries");
    same(s.records, winner.records, "records");
  },

  async "order holds past 10, 100 and one write's worth of keys"(store, id) {
    // 300 messages in one write (more than a Durable Object's 128 keys per put), then 12
    // writes of one message, one summary and one record each.
    const first = Array.from({ length: 300 }, (_, i) => message(i));
    await store.write(id, 0, batch(id, 1, 0, first));
    let version = 1;
    for (let k = 0; k < 12; k++) {
      await store.write(id, version, batch(id, version + 1, 300 + k, [message(300 + k)], { summaries: [summary(k)], records: [record(k)] }));
      version++;
    }
    const all = Array.from({ length: 312 }, (_, i) => message(i));
    same(await store.messages(id, 0), all, "messages(id, 0)");
    same(await store.messages(id, 9), all.slice(9), "messages(id, 9)");
    same(await store.messages(id, 99), all.slice(99), "messages(id, 99)");
    same(await store.messages(id, 311), all.slice(311), "messages(id, 311)");
    same(
      await store.summaries(id),
      Array.from({ length: 12 }, (_, k) => summary(k)),
      "summaries",
    );
    same(
      await store.records(id),
      Array.from({ length: 12 }, (_, k) => record(k)),
      "records",
    );
    same(/** @type {Read} */ (await store.load(id)).version, 13, "version");
  },

  async "values are copied in and out"(store, id) {
    const m = message(0, { content: [{ type: "text", text: "original" }] });
    const b = batch(id, 1, 0, [m], { summaries: [summary(0)], records: [record(0)] });
    await store.write(id, 0, b);
    // Changing what was written...
    /** @type {Read} */ (m.content)[0].text = "changed after write";
    b.meta.length = 42;
    b.summaries[0].text = "changed";
    b.records[0].evicted.push(7);
    // ...and what was read...
    /** @type {Read} */ (await store.messages(id, 0))[0].content[0].text = "changed after read";
    /** @type {Read} */ (await store.load(id)).state.chunks.push("junk");
    (await store.summaries(id))[0].tokens = -1;
    (await store.records(id))[0].evicted.length = 0;
    // ...changes nothing stored.
    same(/** @type {Read} */ (await store.messages(id, 0))[0].content[0].text, "original", "message");
    same(await store.load(id), metaFor(id, 1, 1), "meta");
    same(await store.summaries(id), [summary(0)], "summaries");
    same(await store.records(id), [record(0)], "records");
  },

  async "JSON data round-trips exactly"(store, id) {
    const big = `${"x".repeat(300_000)} ü ✓ 漢字 🙂`;
    const items = [
      { role: "user", content: big },
      { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "read", arguments: '{"path":"/etc/hosts"}' } }] },
      { role: "tool", tool_call_id: "call_1", content: "127.0.0.1 localhost\n" },
      { role: "user", content: [{ type: "text", text: "nested", extra: { n: 1.5, t: true, f: false, z: 0, a: [null, -3, 1e21] } }] },
      { role: "user", content: "", empty: {}, list: [] },
    ];
    await store.write(id, 0, batch(id, 1, 0, items, { meta: { system: [{ type: "text", text: "system ✓" }] } }));
    same(await store.messages(id, 0), items, "messages");
    same(/** @type {Read} */ (await store.load(id)).system, [{ type: "text", text: "system ✓" }], "meta.system");
  },

  async "ids are kept apart"(store, id) {
    const ids = [`${id}`, `${id}/b`, `${id} b`, `${id}:b`, `${id}%2F`, `${id}/m/0`, `${id}-ünï-✓`];
    for (const [k, x] of ids.entries()) await store.write(x, 0, batch(x, 1, 0, [message(k)], { records: [record(k)] }));
    for (const [k, x] of ids.entries()) {
      same(await store.messages(x, 0), [message(k)], `messages of ${json(x)}`);
      same(await store.records(x), [record(k)], `records of ${json(x)}`);
      same(/** @type {Read} */ (await store.load(x)).id, x, `meta of ${json(x)}`);
    }
    const listed = await store.list();
    for (const x of ids) check(listed.includes(x), `list() lacks ${json(x)}`);
    await store.delete(ids[1]);
    same(await store.load(ids[1]), null, "the deleted one");
    same(await store.messages(ids[0], 0), [message(0)], "its neighbour's messages");
    same(await store.messages(ids[5], 0), [message(5)], "another neighbour's messages");
    for (const x of ids) await store.delete(x);
  },

  async "delete removes everything, and the id can start over"(store, id) {
    await store.write(id, 0, batch(id, 1, 0, [message(0), message(1)], { summaries: [summary(0)], records: [record(0)] }));
    await store.write(id, 1, batch(id, 2, 2, [message(2)], { summaries: [summary(1)], records: [record(1)] }));
    await store.delete(id);
    same(await snapshot(store, id), { meta: null, messages: [], summaries: [], records: [] }, "after delete");
    check(!(await store.list()).includes(id), "list() still has the deleted id");
    await rejectsStale(store.write(id, 2, batch(id, 3, 3, [message(3)])), "expect 2 after delete");
    await store.write(id, 0, batch(id, 1, 0, [message(10)]));
    same(await snapshot(store, id), { meta: metaFor(id, 1, 1), messages: [message(10)], summaries: [], records: [] }, "started over");
  },
};

/**
 * Runs every case against stores from `makeStore`. Resolves to one result per case:
 * `{ name, ok, error }` (error: the message of the first check that failed). `only`: the
 * names of the cases to run (all by default).
 *
 * @param {() => CompactorStore | Promise<CompactorStore>} makeStore
 * @param {{ only?: string[] }} [options]
 * @returns {Promise<{ name: string, ok: boolean, error: string | null }[]>}
 */
export async function checkStore(makeStore, { only } = {}) {
  const tag = Math.random().toString(36).slice(2, 8);
  /** @type {{ name: string, ok: boolean, error: string | null }[]} */
  const results = [];
  for (const [k, [name, run]] of Object.entries(CASES).entries()) {
    if (only && !only.includes(name)) continue;
    const id = `conformance-${tag}-${k}`;
    /** @type {CompactorStore | undefined} */
    let store;
    try {
      store = await makeStore();
      await run(store, id);
      results.push({ name, ok: true, error: null });
    } catch (/** @type {Read} */ e) {
      results.push({ name, ok: false, error: e instanceof CheckFailed ? e.message : `threw ${e?.name}: ${e?.message}\n${e?.stack ?? ""}` });
    } finally {
      try {
        await store?.delete(id);
      } catch {
        // A store whose delete fails has failed a case already.
      }
    }
  }
  return results;
}

/**
 * Runs every case (as `checkStore` does) and throws an `AggregateError` naming each case that
 * failed and why; resolves to the number of cases that passed when all did.
 *
 * @param {() => CompactorStore | Promise<CompactorStore>} makeStore
 * @param {{ only?: string[] }} [options]
 * @returns {Promise<number>}
 */
export async function assertStore(makeStore, options) {
  const results = await checkStore(makeStore, options);
  const failed = results.filter((r) => !r.ok);
  if (failed.length > 0) {
    const errors = failed.map((r) => new Error(`${r.name}: ${r.error}`));
    throw new AggregateError(
      errors,
      `the store fails ${failed.length} of ${results.length} cases of the store contract:\n${errors.map((e) => `- ${e.message}`).join("\n")}`,
    );
  }
  return results.length;
}
