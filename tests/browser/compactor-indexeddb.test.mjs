// The Compactor over IndexedDBStore in real headless Chromium: a
// conversation survives a page reload; a page closed while the summarizer is still running
// leaves a consistent conversation that the next prepare completes; a database written by
// the previous schema version keeps its data; a full quota is a typed error that leaves the
// data as it was; 50 concurrent prepare calls from two pages of one origin make exactly
// one compaction and lose no message (through Web Locks, and through the version check alone);
// and an append that needs no lock waits for another page's compaction, which says it holds one.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launchChromium } from "../support/chromium.mjs";
import { repoRoot } from "../support/paths.mjs";
import { checkedBy, where } from "../support/doc-blocks.mjs";
import { startStaticServer } from "../support/static-server.mjs";

const WINDOW = 16384;

const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>ctxfold Compactor over IndexedDB</title>
<link rel="icon" href="data:,">
<script type="importmap">{"imports":{"ctxfold":"/pkg/browser.js"}}</script>
<script type="module">
  import * as ctxfold from "ctxfold";
  import * as talk from "/tests/support/compactor-page.mjs";
  import * as v1 from "/tests/support/idb-v1.mjs";
  window.ctxfold = ctxfold;
  window.talk = talk;
  window.v1 = v1;
  window.WINDOW = ${WINDOW};
  // A Compactor over the IndexedDB database "name", at a 16k window.
  window.compactor = (name, options = {}) =>
    new ctxfold.Compactor({ model: "gpt-4o", contextWindow: WINDOW, store: new ctxfold.IndexedDBStore({ database: name }), ...options });
  // A summarizer that takes a while, keeping when each call ran (in ms since the epoch).
  window.calls = [];
  window.slowSummarizer = async (request) => {
    const start = performance.timeOrigin + performance.now();
    await new Promise((r) => setTimeout(r, 30));
    window.calls.push([start, performance.timeOrigin + performance.now()]);
    return "## Conversation Summary\\n- **Facts:** " + request.covers.length + " messages about /srv/a.";
  };
  window.ready = true;
</script>
`;

let server, browser;
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
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test("a conversation survives a page reload: history, summaries, records, and the next input", async () => {
  const ctx = await browser.newContext();
  try {
    const p = await openPage(ctx);
    const saved = await p.evaluate(async () => {
      const c = compactor("reload");
      await talk.converse(c, "chat", 30);
      const next = { role: "user", content: "Task a-30: and now /srv/a/file_30.py" };
      // What the next prepare gives, from a copy of the conversation in memory.
      const copy = new ctxfold.Compactor({ model: "gpt-4o", contextWindow: WINDOW });
      await copy.import(await c.export("chat"));
      return {
        history: await c.history("chat"),
        summaries: await c.summaries("chat"),
        records: await c.records("chat"),
        status: await c.status("chat"),
        expected: JSON.stringify((await copy.prepare("chat", [next])).messages),
        next,
      };
    });
    assert.ok(saved.records.length >= 2, `${saved.records.length} compactions before the reload`);
    await p.reload();
    await p.waitForFunction(() => window.ready === true, null, { timeout: 30_000 });
    const after = await p.evaluate(async (next) => {
      const c = compactor("reload");
      const out = {
        list: await c.list(),
        history: await c.history("chat"),
        summaries: await c.summaries("chat"),
        records: await c.records("chat"),
        status: await c.status("chat"),
      };
      out.input = JSON.stringify((await c.prepare("chat", [next])).messages);
      return out;
    }, saved.next);
    assert.deepEqual(after.list, ["chat"]);
    assert.deepEqual(after.history, saved.history);
    assert.deepEqual(after.summaries, saved.summaries);
    assert.deepEqual(after.records, saved.records);
    assert.deepEqual(after.status, saved.status);
    assert.equal(after.input, saved.expected);
  } finally {
    await ctx.close();
  }
});

test("recall over IndexedDB survives a reload: the same excerpts from the stored history, none the input holds", async () => {
  const ctx = await browser.newContext();
  try {
    const p = await openPage(ctx);
    const args = { query: "what is x_2_40 in /srv/a/file_2.py?", limit: 3 };
    const ask = async (args) => {
      const c = compactor("recall", { recall: true });
      const hits = await c.search("chat", args.query, { limit: 100 });
      return { recalled: await c.recall("chat", args), inInput: hits.filter((h) => h.inInput).map((h) => h.index), records: (await c.records("chat")).length };
    };
    const before = await p.evaluate(async ([args, ask]) => {
      await talk.converse(compactor("recall", { recall: true }), "chat", 30);
      return new Function(`return (${ask})`)()(args);
    }, [args, ask.toString()]);
    assert.ok(before.records >= 1, "the conversation compacted");
    await p.reload();
    await p.waitForFunction(() => window.ready === true, null, { timeout: 30_000 });
    const after = await p.evaluate(([args, ask]) => new Function(`return (${ask})`)()(args), [args, ask.toString()]);
    assert.deepEqual(after.recalled, before.recalled, "the index made again from the stored history answers the same");
    const { matches, tokens, text } = after.recalled;
    assert.ok(matches.length >= 1 && matches.every((m) => !after.inInput.includes(m.index)), JSON.stringify(matches.map((m) => m.index)));
    assert.ok(text.includes("x_2_40 = 80"), text);
    assert.ok(tokens <= 1000);
  } finally {
    await ctx.close();
  }
});

test("a page closed while the summarizer runs leaves a consistent conversation; the next prepare completes it", async () => {
  const ctx = await browser.newContext();
  try {
    const a = await openPage(ctx);
    const { before, version } = await a.evaluate(async () => {
      const c = compactor("closed", { summarizer: slowSummarizer });
      const { before, over } = await talk.nearThreshold(ctxfold, c, "chat", WINDOW);
      window.over = over;
      // Another Compactor of this page, whose summarizer is called and never answers: the
      // page closes first.
      const hanging = compactor("closed", { summarizer: () => new Promise(() => {}), on: { compactionStart: () => (window.summarizing = true) } });
      window.pending = hanging.prepare("chat", [over]);
      return { before, version: (await c.store.load("chat")).version };
    });
    await a.waitForFunction(() => window.summarizing === true, null, { timeout: 30_000 });
    const over = await a.evaluate(() => window.over);
    await a.close();
    const b = await openPage(ctx);
    const r = await b.evaluate(
      async ({ over }) => {
        const c = compactor("closed", { summarizer: slowSummarizer });
        const meta = await c.store.load("chat");
        const found = {
          version: meta.version,
          length: meta.length,
          history: (await c.history("chat")).map((e) => e.message),
          summaries: (await c.summaries("chat")).length,
          records: (await c.records("chat")).length,
        };
        const result = await c.prepare("chat", [over]);
        return {
          found,
          compacted: result.record !== null,
          status: result.contextStatus,
          history: (await c.history("chat")).map((e) => e.message),
          records: (await c.records("chat")).length,
          summaries: (await c.summaries("chat")).length,
          version: (await c.store.load("chat")).version,
        };
      },
      { over },
    );
    // Nothing of the interrupted call was stored: the conversation is as it was before it.
    assert.equal(r.found.version, version);
    assert.equal(r.found.length, before.length);
    assert.deepEqual(r.found.history, before);
    assert.equal(r.found.summaries, 0);
    assert.equal(r.found.records, 0);
    // The next prepare does the compaction the closed page could not finish, once.
    assert.equal(r.compacted, true);
    assert.equal(r.status, "summarized");
    assert.deepEqual(r.history, [...before, over]);
    assert.equal(r.records, 1);
    assert.ok(r.summaries >= 1);
    assert.equal(r.version, version + 1);
  } finally {
    await ctx.close();
  }
});

test("a database written by the previous schema version keeps its data, and the conversation goes on as it would have", async () => {
  const ctx = await browser.newContext();
  try {
    const p = await openPage(ctx);
    const r = await p.evaluate(async () => {
      // The conversation as a Compactor made it, written in schema version 1's layout.
      const mem = new ctxfold.Compactor({ model: "gpt-4o", contextWindow: WINDOW });
      await talk.converse(mem, "old", 30);
      const exported = await mem.export("old");
      await v1.writeV1("written-by-v1", [
        { id: "old", meta: exported.meta, messages: exported.messages, summaries: exported.summaries, records: exported.records },
      ]);
      const c = compactor("written-by-v1");
      const next = { role: "user", content: "Task a-30: and now /srv/a/file_30.py" };
      const out = {
        compactions: exported.records.length,
        history: JSON.stringify(await c.history("old")) === JSON.stringify(await mem.history("old")),
        summaries: JSON.stringify(await c.summaries("old")) === JSON.stringify(await mem.summaries("old")),
        records: JSON.stringify(await c.records("old")) === JSON.stringify(await mem.records("old")),
        status: JSON.stringify(await c.status("old")) === JSON.stringify(await mem.status("old")),
        input: JSON.stringify((await c.prepare("old", [next])).messages) === JSON.stringify((await mem.prepare("old", [next])).messages),
      };
      c.store.close();
      out.schema = (await v1.dump("written-by-v1")).version;
      return out;
    });
    assert.ok(r.compactions >= 2, `${r.compactions} compactions in the old conversation`);
    assert.deepEqual(r, { compactions: r.compactions, history: true, summaries: true, records: true, status: true, input: true, schema: 2 });
  } finally {
    await ctx.close();
  }
});

test("a full quota: the prepare rejects with a typed error (the store's QUOTA_EXCEEDED), and the conversation is as it was", async () => {
  const ctx = await browser.newContext();
  try {
    const p = await openPage(ctx);
    // Chromium reads the quota when the origin first uses storage: set it before.
    const cdp = await ctx.newCDPSession(p);
    await cdp.send("Storage.overrideQuotaForOrigin", { origin: server.url, quotaSize: 1024 * 1024 });
    const r = await p.evaluate(async () => {
      const c = compactor("quota");
      await talk.converse(c, "chat", 4);
      const snapshot = async () => ({
        history: await c.history("chat"),
        records: await c.records("chat"),
        meta: await c.store.load("chat"),
      });
      const before = await snapshot();
      // 1.5 MB that do not compress (Chromium compresses large values).
      let x = 12345;
      let big = "";
      for (let i = 0; i < 1536 * 1024; i++) {
        x = (Math.imul(x, 1103515245) + 12345) >>> 0;
        big += String.fromCharCode(33 + ((x >>> 24) % 90));
      }
      let err = null;
      try {
        // A tool's huge output: stored whole in the history (the input gets it cut in place).
        await c.prepare("chat", [
          { role: "user", content: "Read /var/log/big.log" },
          { role: "assistant", content: "", tool_calls: [{ id: "big_1", type: "function", function: { name: "read", arguments: '{"path":"/var/log/big.log"}' } }] },
          { role: "tool", tool_call_id: "big_1", content: big },
        ]);
      } catch (e) {
        err = { name: e.name, code: e.code, message: e.message, cause: { name: e.cause?.name, code: e.cause?.code, cause: e.cause?.cause?.name } };
      }
      return { err, same: JSON.stringify(await snapshot()) === JSON.stringify(before), length: before.history.length };
    });
    // The store's typed error, as the Compactor hands it on (as it is, or as the cause of
    // its STORE_ERROR).
    const quota = r.err?.code === "QUOTA_EXCEEDED" ? r.err : r.err?.cause;
    assert.equal(quota?.code, "QUOTA_EXCEEDED", JSON.stringify(r.err));
    assert.ok(r.err.code === "QUOTA_EXCEEDED" || r.err.code === "STORE_ERROR", r.err.code);
    assert.match(r.err.message, /quota is exceeded/);
    assert.equal(r.same, true, "history, records and meta as they were");
    // With room again, the same conversation goes on.
    await cdp.send("Storage.overrideQuotaForOrigin", { origin: server.url });
    const later = await p.evaluate(async () => {
      const c = compactor("quota");
      await c.prepare("chat", [{ role: "user", content: "Task a-4: is there room now?" }]);
      const history = (await c.history("chat")).map((e) => e.message.content);
      return { length: history.length, last: history.at(-1) };
    });
    assert.deepEqual(later, { length: r.length + 1, last: "Task a-4: is there room now?" });
    console.log(`# the Compactor rejected with ${r.err.code}${r.err.code === "QUOTA_EXCEEDED" ? "" : ` (cause ${r.err.cause.code})`}`);
  } finally {
    await ctx.close();
  }
});

for (const locks of [true, false]) {
  const how = locks ? "taking turns through Web Locks" : "with no Web Locks, the version check alone";
  test(`50 concurrent prepare calls from two pages sharing IndexedDB, ${how}: exactly one compaction, no message lost`, async () => {
    const ctx = await browser.newContext();
    try {
      const name = locks ? "shared" : "shared-nolocks";
      const [a, b] = [await openPage(ctx), await openPage(ctx)];
      const make = ({ name, locks }) => {
        const store = new ctxfold.IndexedDBStore({ database: name });
        // Without lockName the Compactor takes no Web Lock: only the store's version check
        // keeps the two pages apart (and a page retries as often as it has to).
        const shared = locks
          ? store
          : Object.fromEntries(["load", "messages", "write", "summaries", "records", "list", "delete"].map((m) => [m, store[m].bind(store)]));
        window.c = new ctxfold.Compactor({ model: "gpt-4o", contextWindow: WINDOW, store: shared, summarizer: slowSummarizer, writeRetries: locks ? 4 : 100 });
      };
      await a.evaluate(make, { name, locks });
      await b.evaluate(make, { name, locks });
      const { before, over } = await a.evaluate(() => talk.nearThreshold(ctxfold, window.c, "chat", WINDOW));
      const fire = (p, tag, first) =>
        p.evaluate(
          async ({ tag, first }) => {
            const news = Array.from({ length: 25 }, (_, i) => (i === 0 && first ? first : { role: "user", content: `concurrent message ${tag}-${i}` }));
            const results = await Promise.allSettled(news.map((m) => window.c.prepare("chat", [m])));
            return results.map((r) => (r.status === "fulfilled" ? { compacted: r.value.record !== null } : { error: `${r.reason?.code}: ${r.reason?.message}` }));
          },
          { tag, first },
        );
      const [ra, rb] = await Promise.all([fire(a, "a", over), fire(b, "b", null)]);
      const results = [...ra, ...rb];
      assert.deepEqual(results.filter((r) => r.error), [], "every call resolved");
      assert.equal(results.filter((r) => r.compacted).length, 1, "one call compacted");
      const stored = await a.evaluate(async () => ({
        records: (await window.c.records("chat")).length,
        history: (await window.c.history("chat")).map((e) => e.message),
      }));
      assert.equal(stored.records, 1, "exactly one compaction stored");
      assert.equal(stored.history.length, before.length + 50);
      assert.deepEqual(stored.history.slice(0, before.length), before);
      const added = stored.history.slice(before.length).map((m) => m.content);
      const expected = [over.content, ...Array.from({ length: 24 }, (_, i) => `concurrent message a-${i + 1}`), ...Array.from({ length: 25 }, (_, i) => `concurrent message b-${i}`)];
      assert.deepEqual([...added].sort(), [...expected].sort(), "every message once");
      // Each page's messages in the order its calls were made.
      for (const tag of ["a", "b"]) {
        const mine = added.filter((c) => c.startsWith(`concurrent message ${tag}-`));
        assert.deepEqual(mine, expected.filter((c) => c.startsWith(`concurrent message ${tag}-`)), `page ${tag}'s order`);
      }
      if (locks) {
        // Across the two pages, never two summarizer calls at once.
        const calls = [...(await a.evaluate(() => window.calls)), ...(await b.evaluate(() => window.calls))].sort((x, y) => x[0] - y[0]);
        assert.ok(calls.length >= 1);
        for (let i = 1; i < calls.length; i++) assert.ok(calls[i][0] >= calls[i - 1][1], `summarizer calls overlap: ${JSON.stringify(calls)}`);
      }
    } finally {
      await ctx.close();
    }
  });
}

test("an append in one page while another page compacts waits for that page's Web Lock: the compaction is made once, nothing is lost", async () => {
  const ctx = await browser.newContext();
  try {
    const [a, b] = [await openPage(ctx), await openPage(ctx)];
    const make = () => {
      window.starts = 0;
      window.gate = new Promise((resolve) => (window.release = resolve));
      window.c = compactor("append-race", {
        summarizer: async (request) => {
          await window.gate;
          return "## Conversation Summary\n- **Facts:** " + request.covers.length + " messages about /srv/a.";
        },
        on: { compactionStart: () => window.starts++ },
      });
    };
    await a.evaluate(make);
    await b.evaluate(make);
    const { before, over } = await a.evaluate(() => talk.nearThreshold(ctxfold, window.c, "chat", WINDOW));
    // Page b writes last: its next call goes on from its cache, with no lock of its own to take.
    await b.evaluate(() => window.c.commit("chat", { role: "assistant", content: "noted (b)" }));
    // Page a compacts, under the lock; its summarizer waits.
    await a.evaluate((over) => {
      window.compacting = window.c.prepare("chat", [over]).then((r) => r.record !== null);
    }, over);
    await a.waitForFunction(() => window.starts === 1);
    // Page b appends meanwhile. Had it written now, page a's write would be stale and its
    // compaction made again; page a said it holds the lock, so page b waits for it.
    await b.evaluate(() => {
      window.appending = window.c.commit("chat", { role: "assistant", content: "later (b)" });
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await a.evaluate(() => window.release());
    assert.equal(await a.evaluate(() => window.compacting), true, "page a compacted");
    await b.evaluate(() => window.appending);
    const r = await a.evaluate(async () => ({
      starts: window.starts,
      records: (await window.c.records("chat")).length,
      history: (await window.c.history("chat")).map((e) => e.message),
    }));
    assert.equal(r.starts, 1, "the compaction was made once");
    assert.equal(r.records, 1);
    assert.deepEqual(r.history.slice(0, before.length), before);
    assert.deepEqual(
      r.history.slice(before.length).map((m) => m.content),
      ["noted (b)", over.content, "later (b)"],
    );
  } finally {
    await ctx.close();
  }
});

// The docs' IndexedDB examples (README.md, docs/browser-indexeddb.md), each block marked
// <!-- check: page tests/browser/compactor-indexeddb.test.mjs -->.
for (const example of checkedBy("tests/browser/compactor-indexeddb.test.mjs")) test(`${where(example)}: the IndexedDB example runs as written in a page`, async () => {
  const code = example.code;
  const ctx = await browser.newContext();
  try {
    const p = await openPage(ctx);
    await p.addScriptTag({ type: "module", content: `${code}\nwindow.readme = { messages, stored: await compactor.history("chat-42") };` });
    await p.waitForFunction(() => window.readme !== undefined, null, { timeout: 30_000 });
    const r = await p.evaluate(() => window.readme);
    assert.deepEqual(r.messages, [{ role: "user", content: "Hi!" }]);
    assert.deepEqual(r.stored.map((e) => e.message), [{ role: "user", content: "Hi!" }]);
    const databases = await p.evaluate(async () => (await indexedDB.databases()).map((d) => [d.name, d.version]));
    assert.deepEqual(databases, [["chats", 2]]);
  } finally {
    await ctx.close();
  }
});

test("no console errors or warnings", () => {
  assert.deepEqual(problems, []);
});
