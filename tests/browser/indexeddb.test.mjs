// IndexedDBStore in real headless Chromium: the store contract (load, messages, write,
// summaries, records, list, delete) against the browser's own IndexedDB, one transaction per
// write, stale writers refused, values that cannot be stored and a full quota as typed errors
// with the data as it was, a reload, the upgrade of a schema version 1 database (the fixture
// in tests/support/idb-v1.mjs), a newer schema refused, and a blocked upgrade that meets its
// deadline. Each test uses its own database name (or its own browser context).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launchChromium } from "../support/chromium.mjs";
import { repoRoot } from "../support/paths.mjs";
import { startStaticServer } from "../support/static-server.mjs";

const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>ctxfold IndexedDBStore test</title>
<link rel="icon" href="data:,">
<script type="importmap">{"imports":{"ctxfold":"/pkg/browser.js","ctxfold/lite":"/pkg/lite/browser.js"}}</script>
<script type="module">
  import * as ctxfold from "ctxfold";
  import * as v1 from "/tests/support/idb-v1.mjs";
  window.ctxfold = ctxfold;
  window.v1 = v1;
  // A meta as the contract needs it (version, length) with a few fields of a real one.
  window.meta = (id, version, length, extra = {}) => ({ id, version, length, format: "openai", ...extra });
  window.msg = (i) => ({ role: i % 2 ? "assistant" : "user", content: "message " + i });
  // Runs f and returns what it threw (name, code, message, cause's name), or null.
  window.capture = async (f) => {
    try {
      await f();
      return null;
    } catch (e) {
      return { name: e.name, code: e.code, message: e.message, cause: e.cause?.name ?? null, guard: ctxfold.isCtxfoldError(e) };
    }
  };
  window.ready = true;
</script>
`;

let server, browser, context, page;
const problems = [];

async function openPage(ctx) {
  const p = await ctx.newPage();
  p.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
  p.on("console", (msg) => {
    if (msg.type() === "error" || msg.type() === "warning") problems.push(`console.${msg.type()}: ${msg.text()}`);
  });
  await p.goto(`${server.url}/test.html`);
  await p.waitForFunction(() => window.ready === true, null, { timeout: 30_000 });
  return p;
}

before(async () => {
  server = await startStaticServer(repoRoot, { "/test.html": PAGE });
  browser = await launchChromium();
  context = await browser.newContext();
  page = await openPage(context);
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test("load, write, messages, summaries, records, list and delete", async () => {
  const r = await page.evaluate(async () => {
    const store = new ctxfold.IndexedDBStore({ database: "crud" });
    const out = { database: store.database, empty: await store.load("a"), emptyList: await store.list() };
    out.emptyMessages = await store.messages("a", 0);
    await store.write("a", 0, {
      messages: [msg(0), msg(1)],
      summaries: [],
      records: [],
      meta: meta("a", 1, 2),
    });
    await store.write("a", 1, {
      messages: [msg(2), msg(3), msg(4)],
      summaries: [{ seq: 0, generation: 1, text: "first" }],
      records: [{ seq: 0, trigger: "threshold", n: 1 }],
      meta: meta("a", 2, 5, { note: "second" }),
    });
    // No messages, two summaries and two records in one write; where the messages would go.
    await store.write("a", 2, {
      summaries: [{ seq: 1, generation: 2, text: "second" }, { seq: 2, generation: 3, text: "third" }],
      records: [{ seq: 1, trigger: "fold", n: 2 }, { seq: 2, trigger: "manual", n: 3 }],
      start: 5,
      meta: meta("a", 3, 5),
    });
    await store.write("b", 0, { messages: [msg(0)], meta: meta("b", 1, 1) });
    out.meta = await store.load("a");
    out.all = await store.messages("a", 0);
    out.from3 = await store.messages("a", 3);
    out.past = await store.messages("a", 9);
    out.summaries = await store.summaries("a");
    out.records = await store.records("a");
    out.list = (await store.list()).sort();
    await store.delete("a");
    out.afterDelete = {
      meta: await store.load("a"),
      messages: await store.messages("a", 0),
      summaries: await store.summaries("a"),
      records: await store.records("a"),
      list: await store.list(),
      other: (await store.messages("b", 0)).length,
    };
    return out;
  });
  assert.equal(r.database, "crud");
  assert.equal(r.empty, null);
  assert.deepEqual(r.emptyList, []);
  assert.deepEqual(r.emptyMessages, []);
  assert.deepEqual(r.meta, { id: "a", version: 3, length: 5, format: "openai" });
  assert.deepEqual(
    r.all.map((m) => m.content),
    ["message 0", "message 1", "message 2", "message 3", "message 4"],
  );
  assert.deepEqual(r.from3.map((m) => m.content), ["message 3", "message 4"]);
  assert.deepEqual(r.past, []);
  assert.deepEqual(r.summaries.map((s) => s.text), ["first", "second", "third"]);
  assert.deepEqual(r.records.map((x) => x.trigger), ["threshold", "fold", "manual"]);
  assert.deepEqual(r.list, ["a", "b"]);
  assert.deepEqual(r.afterDelete, { meta: null, messages: [], summaries: [], records: [], list: ["b"], other: 1 });
});

test("history keeps its order past 2,000 items, read from any index", async () => {
  const r = await page.evaluate(async () => {
    const store = new ctxfold.IndexedDBStore({ database: "long" });
    let version = 0;
    let length = 0;
    // 2,100 items in writes of 1 to 300: keys are numbers, so 10 sorts after 9.
    for (const n of [1, 9, 90, 300, 300, 300, 300, 300, 300, 200]) {
      const messages = Array.from({ length: n }, (_, i) => msg(length + i));
      await store.write("c", version, { messages, meta: meta("c", version + 1, length + n) });
      version += 1;
      length += n;
    }
    const all = await store.messages("c", 0);
    const tail = await store.messages("c", 2095);
    return { length: all.length, inOrder: all.every((m, i) => m.content === "message " + i), tail: tail.map((m) => m.content) };
  });
  assert.equal(r.length, 2100);
  assert.equal(r.inOrder, true);
  assert.deepEqual(r.tail, ["message 2095", "message 2096", "message 2097", "message 2098", "message 2099"]);
});

test("a stale writer is refused with STALE_WRITE and writes nothing", async () => {
  const r = await page.evaluate(async () => {
    const store = new ctxfold.IndexedDBStore({ database: "stale" });
    await store.write("s", 0, { messages: [msg(0)], meta: meta("s", 1, 1) });
    // Another tab's store (its own connection) read version 1 and wrote first.
    const other = new ctxfold.IndexedDBStore({ database: "stale" });
    await other.write("s", 1, { messages: [msg(1)], meta: meta("s", 2, 2) });
    const stale = await capture(() =>
      store.write("s", 1, {
        messages: [{ role: "user", content: "lost?" }],
        summaries: [{ seq: 0, text: "stale summary" }],
        records: [{ seq: 0, stale: true }],
        meta: meta("s", 2, 2),
      }),
    );
    const fresh = await capture(() => store.write("s", 0, { messages: [msg(9)], meta: meta("s", 1, 1) }));
    return {
      stale,
      fresh,
      meta: await store.load("s"),
      messages: (await store.messages("s", 0)).map((m) => m.content),
      summaries: await store.summaries("s"),
      records: await store.records("s"),
    };
  });
  assert.equal(r.stale.code, "STALE_WRITE", r.stale.message);
  assert.equal(r.stale.name, "CtxfoldError");
  assert.equal(r.stale.guard, true);
  assert.match(r.stale.message, /expected version 1, the store holds version 2/);
  assert.equal(r.fresh.code, "STALE_WRITE");
  assert.deepEqual(r.meta, { id: "s", version: 2, length: 2, format: "openai" });
  assert.deepEqual(r.messages, ["message 0", "message 1"]);
  assert.deepEqual(r.summaries, []);
  assert.deepEqual(r.records, []);
});

test("concurrent first writes from two connections: exactly one lands", async () => {
  const r = await page.evaluate(async () => {
    const stores = Array.from({ length: 8 }, () => new ctxfold.IndexedDBStore({ database: "race" }));
    const results = await Promise.all(
      stores.map((s, i) =>
        capture(() => s.write("r", 0, { messages: [msg(i)], summaries: [{ seq: 0, by: i }], meta: meta("r", 1, 1, { by: i }) })),
      ),
    );
    const store = stores[0];
    return {
      codes: results.map((x) => x?.code ?? "ok"),
      meta: await store.load("r"),
      messages: await store.messages("r", 0),
      summaries: await store.summaries("r"),
    };
  });
  assert.equal(r.codes.filter((c) => c === "ok").length, 1, r.codes.join());
  assert.equal(r.codes.filter((c) => c === "STALE_WRITE").length, 7, r.codes.join());
  const winner = r.meta.by;
  assert.deepEqual(r.messages, [{ role: winner % 2 ? "assistant" : "user", content: "message " + winner }]);
  assert.deepEqual(r.summaries, [{ seq: 0, by: winner }]);
});

test("a value that cannot be stored fails the whole write (STORE_ERROR, DataCloneError as cause)", async () => {
  const r = await page.evaluate(async () => {
    const store = new ctxfold.IndexedDBStore({ database: "clone" });
    await store.write("x", 0, { messages: [msg(0)], meta: meta("x", 1, 1) });
    const err = await capture(() =>
      store.write("x", 1, {
        messages: [msg(1), { role: "user", content: "fine" }, { role: "user", content: () => "a function" }],
        summaries: [{ seq: 0, text: "would be new" }],
        meta: meta("x", 2, 4),
      }),
    );
    return {
      err,
      meta: await store.load("x"),
      messages: (await store.messages("x", 0)).length,
      summaries: (await store.summaries("x")).length,
      // The store still works after the failed write.
      next: await capture(() => store.write("x", 1, { messages: [msg(1)], meta: meta("x", 2, 2) })),
      length: (await store.messages("x", 0)).length,
    };
  });
  assert.equal(r.err.code, "STORE_ERROR", r.err.message);
  assert.equal(r.err.cause, "DataCloneError");
  assert.deepEqual(r.meta, { id: "x", version: 1, length: 1, format: "openai" });
  assert.equal(r.messages, 1);
  assert.equal(r.summaries, 0);
  assert.equal(r.next, null);
  assert.equal(r.length, 2);
});

test("a summary or record whose seq is already stored fails the whole write (STORE_ERROR, ConstraintError)", async () => {
  const r = await page.evaluate(async () => {
    const store = new ctxfold.IndexedDBStore({ database: "seq" });
    await store.write("q", 0, { messages: [msg(0)], summaries: [{ seq: 0, text: "kept" }], meta: meta("q", 1, 1) });
    const err = await capture(() =>
      store.write("q", 1, { messages: [msg(1)], summaries: [{ seq: 0, text: "again" }], records: [{ seq: 0 }], meta: meta("q", 2, 2) }),
    );
    return { err, meta: await store.load("q"), messages: (await store.messages("q", 0)).length, summaries: await store.summaries("q"), records: await store.records("q") };
  });
  assert.equal(r.err.code, "STORE_ERROR", r.err.message);
  assert.equal(r.err.cause, "ConstraintError");
  assert.deepEqual(r.meta, { id: "q", version: 1, length: 1, format: "openai" });
  assert.equal(r.messages, 1);
  assert.deepEqual(r.summaries, [{ seq: 0, text: "kept" }]);
  assert.deepEqual(r.records, []);
});

test("the store contract's conformance suite (ctxfold/testing)", async () => {
  const results = await page.evaluate(async () => {
    const { checkStore } = await import("/pkg/testing/index.js");
    return checkStore(() => new ctxfold.IndexedDBStore({ database: "conformance" }));
  });
  assert.ok(results.length >= 9, `${results.length} cases`);
  for (const r of results) assert.ok(r.ok, `${r.name}: ${r.error}`);
});

test("bad arguments are TypeErrors and write nothing", async () => {
  const r = await page.evaluate(async () => {
    const store = new ctxfold.IndexedDBStore({ database: "args" });
    await store.write("y", 0, { messages: [msg(0)], meta: meta("y", 1, 1) });
    const errors = {
      id: await capture(() => store.load(42)),
      from: await capture(() => store.messages("y", -1)),
      expect: await capture(() => store.write("y", 1.5, { meta: meta("y", 2, 1) })),
      batch: await capture(() => store.write("y", 1, null)),
      messages: await capture(() => store.write("y", 1, { messages: "m", meta: meta("y", 2, 2) })),
      version: await capture(() => store.write("y", 1, { meta: meta("y", 3, 1) })),
      length: await capture(() => store.write("y", 1, { messages: [msg(1)], meta: meta("y", 2, 7) })),
      start: await capture(() => store.write("y", 1, { start: 0, messages: [msg(1)], meta: meta("y", 2, 2) })),
      seq: await capture(() => store.write("y", 1, { summaries: [{ text: "no seq" }], meta: meta("y", 2, 1) })),
      options: await capture(() => new ctxfold.IndexedDBStore({ name: "x" })),
      timeout: await capture(() => new ctxfold.IndexedDBStore({ timeoutMs: 0 })),
    };
    return { errors, meta: await store.load("y"), length: (await store.messages("y", 0)).length };
  });
  for (const [key, e] of Object.entries(r.errors)) {
    const want = key === "timeout" ? ["RangeError", "OUT_OF_RANGE"] : ["TypeError", "INVALID_ARGUMENT"];
    assert.deepEqual([e?.name, e?.code], want, `${key}: ${e?.message}`);
  }
  assert.match(r.errors.length.message, /batch\.meta\.length/);
  assert.match(r.errors.start.message, /batch\.start: expected the stored length 1, got 0/);
  assert.match(r.errors.version.message, /batch\.meta\.version/);
  assert.match(r.errors.seq.message, /batch\.summaries\[0\]\.seq/);
  assert.deepEqual(r.meta, { id: "y", version: 1, length: 1, format: "openai" });
  assert.equal(r.length, 1);
});

test("data survives a page reload", async () => {
  const ctx = await browser.newContext();
  try {
    const p = await openPage(ctx);
    await p.evaluate(async () => {
      const store = new ctxfold.IndexedDBStore();
      await store.write("kept", 0, {
        messages: [msg(0), msg(1)],
        summaries: [{ seq: 0, text: "s" }],
        records: [{ seq: 0, r: 1 }],
        meta: meta("kept", 1, 2),
      });
    });
    await p.reload();
    await p.waitForFunction(() => window.ready === true, null, { timeout: 30_000 });
    const r = await p.evaluate(async () => {
      const store = new ctxfold.IndexedDBStore();
      return {
        meta: await store.load("kept"),
        messages: await store.messages("kept", 0),
        summaries: await store.summaries("kept"),
        records: await store.records("kept"),
      };
    });
    assert.deepEqual(r.meta, { id: "kept", version: 1, length: 2, format: "openai" });
    assert.deepEqual(r.messages, [{ role: "user", content: "message 0" }, { role: "assistant", content: "message 1" }]);
    assert.deepEqual(r.summaries, [{ seq: 0, text: "s" }]);
    assert.deepEqual(r.records, [{ seq: 0, r: 1 }]);
  } finally {
    await ctx.close();
  }
});

test("a schema version 1 database is upgraded in place and keeps its data", async () => {
  const r = await page.evaluate(async () => {
    const name = "written-by-v1";
    const history = Array.from({ length: 30 }, (_, i) => msg(i));
    await v1.writeV1(name, [
      {
        id: "old",
        meta: meta("old", 4, 30, { state: { chunks: [{ text: "chunk" }] } }),
        messages: history,
        summaries: [{ seq: 0, generation: 1, text: "one" }, { seq: 1, generation: 2, text: "two" }],
        records: [{ seq: 0, n: 1 }, { seq: 1, n: 2 }],
      },
      { id: "short", meta: meta("short", 1, 1), messages: [msg(0)], summaries: [], records: [] },
    ]);
    const before = await v1.dump(name);
    const store = new ctxfold.IndexedDBStore({ database: name });
    const out = {
      before: { version: before.version, stores: before.stores, conversations: before.records.conversations.length },
      list: (await store.list()).sort(),
      meta: await store.load("old"),
      messages: await store.messages("old", 0),
      summaries: await store.summaries("old"),
      records: await store.records("old"),
      short: await store.messages("short", 0),
    };
    // The conversation goes on where version 1 left it.
    await store.write("old", 4, {
      messages: [msg(30)],
      summaries: [{ seq: 2, generation: 3, text: "three" }],
      records: [{ seq: 2, n: 3 }],
      meta: meta("old", 5, 31),
    });
    out.later = {
      messages: (await store.messages("old", 29)).map((m) => m.content),
      summaries: (await store.summaries("old")).map((s) => s.text),
      records: (await store.records("old")).map((x) => x.n),
    };
    store.close();
    const after = await v1.dump(name);
    out.after = { version: after.version, stores: after.stores.sort() };
    out.history = history;
    return out;
  });
  assert.deepEqual(r.before, { version: 1, stores: ["conversations"], conversations: 2 });
  assert.deepEqual(r.list, ["old", "short"]);
  assert.deepEqual(r.meta, { id: "old", version: 4, length: 30, format: "openai", state: { chunks: [{ text: "chunk" }] } });
  assert.deepEqual(r.messages, r.history);
  assert.deepEqual(r.summaries, [{ seq: 0, generation: 1, text: "one" }, { seq: 1, generation: 2, text: "two" }]);
  assert.deepEqual(r.records, [{ seq: 0, n: 1 }, { seq: 1, n: 2 }]);
  assert.deepEqual(r.short, [{ role: "user", content: "message 0" }]);
  assert.deepEqual(r.later, {
    messages: ["message 29", "message 30"],
    summaries: ["one", "two", "three"],
    records: [1, 2, 3],
  });
  assert.deepEqual(r.after, { version: 2, stores: ["messages", "meta", "records", "summaries"] });
});

test("an upgrade that fails leaves the version 1 database as it was", async () => {
  const r = await page.evaluate(async () => {
    const name = "bad-v1";
    await v1.writeV1(name, [
      { id: "good", meta: meta("good", 1, 1), messages: [msg(0)], summaries: [], records: [] },
      // Version 1 never wrote this: the upgrade cannot place it, so it refuses the whole upgrade.
      { id: "bad", meta: meta("bad", 1, 1), messages: "not an array", summaries: [], records: [] },
    ]);
    const store = new ctxfold.IndexedDBStore({ database: name });
    const err = await capture(() => store.load("good"));
    const after = await v1.dump(name);
    return { err, version: after.version, stores: after.stores, ids: after.records.conversations.map(([k]) => k) };
  });
  assert.equal(r.err.code, "STORE_ERROR", r.err.message);
  assert.match(r.err.message, /upgrading from schema version 1/);
  assert.equal(r.version, 1);
  assert.deepEqual(r.stores, ["conversations"]);
  assert.deepEqual(r.ids, ["bad", "good"]);
});

test("a database of a newer schema version is refused and left alone", async () => {
  const r = await page.evaluate(async () => {
    await v1.writeFuture("future", 9);
    const err = await capture(() => new ctxfold.IndexedDBStore({ database: "future" }).list());
    const after = await v1.dump("future");
    return { err, version: after.version, records: after.records };
  });
  assert.equal(r.err.code, "STORE_ERROR", r.err.message);
  assert.equal(r.err.cause, "VersionError");
  assert.match(r.err.message, /newer ctxfold/);
  assert.equal(r.version, 9);
  assert.deepEqual(r.records, { future: [["k", { kept: true }]] });
});

test("another library's database by the same name is refused, says so, and is left alone", async () => {
  const r = await page.evaluate(async () => {
    const made = (name, version) =>
      new Promise((resolve, reject) => {
        const open = indexedDB.open(name, version);
        open.onupgradeneeded = () => open.result.createObjectStore("settings").put({ theme: "dark" }, "ui");
        open.onsuccess = () => (open.result.close(), resolve());
        open.onerror = () => reject(open.error);
      });
    const out = {};
    // At version 1 (which ctxfold would upgrade) and at ctxfold's own version.
    for (const version of [1, 2]) {
      const name = `foreign-${version}`;
      await made(name, version);
      const err = await capture(() => new ctxfold.IndexedDBStore({ database: name }).list());
      const after = await v1.dump(name);
      out[version] = { err, version: after.version, records: after.records };
    }
    return out;
  });
  for (const version of ["1", "2"]) {
    const { err, records } = r[version];
    assert.equal(err?.code, "STORE_ERROR", JSON.stringify(err));
    assert.match(err.message, /not ctxfold's.*database name of its own/);
    assert.equal(r[version].version, Number(version));
    assert.deepEqual(records, { settings: [["ui", { theme: "dark" }]] });
  }
});

test("an upgrade blocked by another tab meets the deadline (STORE_ERROR), then proceeds when it closes", async () => {
  const r = await page.evaluate(async () => {
    const name = "blocked";
    await v1.writeV1(name, [{ id: "z", meta: meta("z", 1, 1), messages: [msg(0)], summaries: [], records: [] }]);
    const release = await v1.holdOpen(name, 1);
    const store = new ctxfold.IndexedDBStore({ database: name, timeoutMs: 300 });
    const t = performance.now();
    const err = await capture(() => store.load("z"));
    const waited = performance.now() - t;
    release();
    // The open went on in the background; the next call finds the database upgraded.
    return { err, waited, meta: await store.load("z") };
  });
  assert.equal(r.err.code, "STORE_ERROR", r.err.message);
  assert.match(r.err.message, /within 300 ms/);
  assert.match(r.err.message, /another tab keeps it open/);
  assert.ok(r.waited >= 290 && r.waited < 5000, `waited ${r.waited} ms`);
  assert.deepEqual(r.meta, { id: "z", version: 1, length: 1, format: "openai" });
});

test("a database deleted by another tab: the store's connection closes and the next call opens it afresh", async () => {
  const r = await page.evaluate(async () => {
    const store = new ctxfold.IndexedDBStore({ database: "deleted" });
    await store.write("d", 0, { messages: [msg(0)], meta: meta("d", 1, 1) });
    // deleteDatabase waits for open connections: the store's closes on versionchange.
    await new Promise((resolve, reject) => {
      const request = indexedDB.deleteDatabase("deleted");
      request.onsuccess = resolve;
      request.onerror = () => reject(request.error);
      request.onblocked = () => reject(new Error("blocked: the store kept its connection open"));
    });
    const found = await store.load("d");
    await store.write("d", 0, { messages: [msg(6)], meta: meta("d", 1, 1) });
    return { meta: found, messages: await store.messages("d", 0) };
  });
  assert.equal(r.meta, null);
  assert.deepEqual(r.messages, [{ role: "user", content: "message 6" }]);
});

test("a full quota is QUOTA_EXCEEDED (QuotaExceededError as cause) and leaves the data as it was", async () => {
  const ctx = await browser.newContext();
  try {
    const p = await openPage(ctx);
    // Chromium reads the quota when the origin first uses storage: set it before.
    const cdp = await ctx.newCDPSession(p);
    await cdp.send("Storage.overrideQuotaForOrigin", { origin: server.url, quotaSize: 1024 * 1024 });
    const r = await p.evaluate(async () => {
      const store = new ctxfold.IndexedDBStore({ database: "quota" });
      await store.write("q", 0, { messages: [msg(0), msg(1)], summaries: [{ seq: 0, text: "s" }], meta: meta("q", 1, 2) });
      // 1.5 MB that do not compress (Chromium compresses large values).
      let x = 12345;
      let big = "";
      for (let i = 0; i < 1536 * 1024; i++) {
        x = (Math.imul(x, 1103515245) + 12345) >>> 0;
        big += String.fromCharCode(33 + ((x >>> 24) % 90));
      }
      const err = await capture(() =>
        store.write("q", 1, {
          messages: [msg(2), { role: "user", content: big }],
          summaries: [{ seq: 1, text: "new" }],
          records: [{ seq: 0, r: 1 }],
          meta: meta("q", 2, 4),
        }),
      );
      return {
        err,
        meta: await store.load("q"),
        messages: (await store.messages("q", 0)).map((m) => m.content),
        summaries: await store.summaries("q"),
        records: await store.records("q"),
      };
    });
    // With room again, the same store writes (Chromium counts the aborted write's bytes
    // against the quota until it compacts its files, so the quota is lifted first).
    await cdp.send("Storage.overrideQuotaForOrigin", { origin: server.url });
    r.later = await p.evaluate(async () => {
      const store = new ctxfold.IndexedDBStore({ database: "quota" });
      const err = await capture(() => store.write("q", 1, { messages: [msg(2)], meta: meta("q", 2, 3) }));
      return { err, messages: (await store.messages("q", 0)).length };
    });
    assert.equal(r.err?.code, "QUOTA_EXCEEDED", r.err?.message);
    assert.equal(r.err.name, "CtxfoldError");
    assert.equal(r.err.cause, "QuotaExceededError");
    assert.match(r.err.message, /nothing was written/);
    assert.deepEqual(r.meta, { id: "q", version: 1, length: 2, format: "openai" });
    assert.deepEqual(r.messages, ["message 0", "message 1"]);
    assert.deepEqual(r.summaries, [{ seq: 0, text: "s" }]);
    assert.deepEqual(r.records, []);
    assert.deepEqual(r.later, { err: null, messages: 3 });
  } finally {
    await ctx.close();
  }
});

test("a trap elsewhere while a write waits: it rejects with INTERNAL, writes nothing, and the store works on", async () => {
  // Its own page: the panic prints to the console, and the write's handler, belonging to the
  // old instance, throws in IndexedDB's event (which is what aborts the transaction).
  const p = await context.newPage();
  const seen = [];
  p.on("pageerror", (err) => seen.push(err.message));
  try {
    await p.goto(`${server.url}/test.html`);
    await p.waitForFunction(() => window.ready === true, null, { timeout: 30_000 });
    const r = await p.evaluate(async () => {
      const bindings = await import("/pkg/dist/full/ctxfold.js");
      const { guard } = await import("/pkg/lib/guard.js");
      const trap = guard(bindings).wrap(bindings.__ctxfoldTestPanic);
      const store = new ctxfold.IndexedDBStore({ database: "trap" });
      await store.write("t", 0, { messages: [msg(0)], meta: meta("t", 1, 1) });
      const pending = capture(() => store.write("t", 1, { messages: [msg(1)], summaries: [{ seq: 0, s: 1 }], meta: meta("t", 2, 2) }));
      // Once the write's transaction is made and its meta requested (a few microtasks), and
      // before IndexedDB answers (a task), another call traps and the module is made afresh.
      for (let i = 0; i < 20; i++) await null;
      const error = console.error;
      console.error = () => {};
      try {
        trap("a panic elsewhere");
      } catch {
        // INTERNAL, as the guard makes it.
      } finally {
        console.error = error;
      }
      const err = await pending;
      return {
        err,
        meta: await store.load("t"),
        summaries: await store.summaries("t"),
        next: await capture(() => store.write("t", 1, { messages: [msg(1)], meta: meta("t", 2, 2) })),
        messages: (await store.messages("t", 0)).length,
      };
    });
    assert.equal(r.err?.code, "INTERNAL", r.err?.message);
    assert.match(r.err.message, /restarted while this call/);
    assert.deepEqual(r.meta, { id: "t", version: 1, length: 1, format: "openai" });
    assert.deepEqual(r.summaries, []);
    assert.equal(r.next, null);
    assert.equal(r.messages, 2);
    // The old instance's handler refused to run, and IndexedDB aborted the write for it.
    assert.deepEqual(seen, ["Cannot invoke closure from previous WASM instance"]);
  } finally {
    await p.close();
  }
});

test("no console errors or warnings", () => {
  assert.deepEqual(problems, []);
});
