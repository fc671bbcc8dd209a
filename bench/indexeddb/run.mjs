// The IndexedDBStore benchmark: a non-compacting `prepare` on a 2,000-message
// conversation with IndexedDBStore against the same turn with MemoryStore, in headless
// Chromium with a profile on disk (so IndexedDB writes LevelDB files, as in a browser). The
// target: at most 3x MemoryStore's time (a warm call is one `write`, and takes no lock). Beside
// them, a minimal IndexedDB store in plain JS (below) shows the floor any IndexedDB store stands
// on. It prints its figures and whether the target is met; it is a benchmark, not a test
// (nothing asserts).
//
//   bash scripts/build.sh && node bench/indexeddb/run.mjs [--turns 100] [--warmup 10] [--history 2000]
//
// The conversation is the corpus's LoCoMo chats (tests/corpus), their messages in a row with
// roles alternating, and generated messages after them where the chat needs more. Each turn is `prepare(id, [user message])` (timed) then
// `commit(id, [assistant message])` (not timed), the three stores taking turns in rotation so
// all see the same machine load.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { ARGS, CHROMIUM } from "../../tests/support/chromium.mjs";
import { startStaticServer } from "../../tests/support/static-server.mjs";
import { conversationFiles, fromRepo } from "../../tests/support/corpus.mjs";

const root = fileURLToPath(new URL("../../", import.meta.url));
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const TURNS = arg("turns", 100);
const WARMUP = arg("warmup", 10);
const HISTORY = arg("history", 2000);

if (!existsSync(join(root, "pkg/package.json"))) {
  console.error("pkg/ is not built: run bash scripts/build.sh first");
  process.exit(1);
}

/** The chat: a system message, then `HISTORY` messages, then two per turn to come. */
function conversation() {
  const need = HISTORY + 2 * (TURNS + WARMUP + 1);
  const texts = [];
  const files = conversationFiles().filter((f) => f.file.startsWith("locomo"));
  for (const { path } of files) {
    for (const m of JSON.parse(readFileSync(path, "utf8")).messages) {
      if (m.role !== "system" && typeof m.content === "string" && m.content !== "") texts.push(m.content);
    }
  }
  const source = `${fromRepo(dirname(files[0].path))} (LoCoMo)`;
  for (let i = texts.length; i < need; i++) texts.push(`Message ${i}: ${"a few words about the weekend plans and the new job ".repeat(3)}`);
  const messages = texts.slice(0, need).map((content, i) => ({ role: i % 2 === 0 ? "user" : "assistant", content }));
  return { source, system: { role: "system", content: "A long chat between two friends." }, messages };
}

const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>ctxfold IndexedDBStore benchmark</title>
<link rel="icon" href="data:,">
<script type="importmap">{"imports":{"ctxfold":"/pkg/browser.js"}}</script>
<script type="module">
  import * as ctxfold from "ctxfold";
  window.ctxfold = ctxfold;
  window.ready = true;
</script>
`;

const chat = conversation();
// Cross-origin isolated (COOP and COEP on every response): the page's clock is precise to
// microseconds, where an ordinary page's moves in steps of 0.1 ms (a third of a MemoryStore
// turn), which made the median's ratio jump by 0.33x between runs.
const ISOLATED = { "cross-origin-opener-policy": "same-origin", "cross-origin-embedder-policy": "require-corp" };
const server = await startStaticServer(root, { "/bench.html": PAGE }, ISOLATED);
const profile = mkdtempSync(join(tmpdir(), "ctxfold-bench-idb-"));
const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: ARGS, headless: true });
try {
  const page = await context.newPage();
  await page.goto(`${server.url}/bench.html`);
  await page.waitForFunction(() => window.ready === true, null, { timeout: 60_000 });
  const version = context.browser()?.version() ?? (await page.evaluate(() => navigator.userAgent.match(/Chrome\/([\d.]+)/)?.[1]));
  const r = await page.evaluate(
    async ({ chat, HISTORY, TURNS, WARMUP }) => {
      const { Compactor, MemoryStore, IndexedDBStore } = window.ctxfold;
      const options = { model: "gpt-4o", contextWindow: 1_000_000 };
      // The least an IndexedDB store can do and still keep the store contract's promise (a
      // write lands whole, and only on the version it expects): one readwrite transaction that
      // reads the stored meta, puts the messages and the meta behind that read, and aborts in
      // the read's handler on a version that moved. Plain JS, the layout of IndexedDBStore's
      // schema, no deadline, no typed errors, no argument checks: the floor any IndexedDB
      // store stands on, measured beside IndexedDBStore in the same page and run.
      class MinimalIndexedDBStore {
        #db;
        constructor(name) {
          this.#db = new Promise((resolve, reject) => {
            const open = indexedDB.open(name, 1);
            open.onupgradeneeded = () => {
              for (const s of ["meta", "messages", "summaries", "records"]) open.result.createObjectStore(s);
            };
            open.onsuccess = () => resolve(open.result);
            open.onerror = () => reject(open.error);
          }).then((db) => (this.#db = db));
        }
        async #run(stores, mode, f) {
          const db = await this.#db;
          return new Promise((resolve, reject) => {
            const tx = db.transaction(stores, mode);
            let out;
            f(tx, (v) => (out = v));
            tx.oncomplete = () => resolve(out);
            tx.onabort = () => reject(tx.error ?? Object.assign(new Error("stale"), { code: "STALE_WRITE" }));
          });
        }
        load(id) {
          return this.#run(["meta"], "readonly", (tx, set) => {
            const r = tx.objectStore("meta").get(id);
            r.onsuccess = () => set(r.result ?? null);
          });
        }
        messages(id, from) {
          return this.#run(["messages"], "readonly", (tx, set) => {
            const r = tx.objectStore("messages").getAll(IDBKeyRange.bound([id, from], [id, []]));
            r.onsuccess = () => set(r.result);
          });
        }
        #every(name, id) {
          return this.#run([name], "readonly", (tx, set) => {
            const r = tx.objectStore(name).getAll(IDBKeyRange.bound([id], [id, []]));
            r.onsuccess = () => set(r.result);
          });
        }
        summaries(id) {
          return this.#every("summaries", id);
        }
        records(id) {
          return this.#every("records", id);
        }
        write(id, expect, batch) {
          const stores = ["meta", "messages"];
          if (batch.summaries?.length) stores.push("summaries");
          if (batch.records?.length) stores.push("records");
          return this.#run(stores, "readwrite", (tx) => {
            const read = tx.objectStore("meta").get(id);
            const at = batch.start ?? batch.meta.length - batch.messages.length;
            batch.messages.forEach((m, i) => tx.objectStore("messages").put(m, [id, at + i]));
            for (const x of batch.summaries ?? []) tx.objectStore("summaries").add(x, [id, x.seq]);
            for (const x of batch.records ?? []) tx.objectStore("records").add(x, [id, x.seq]);
            tx.objectStore("meta").put(batch.meta, id);
            read.onsuccess = () => {
              if ((read.result?.version ?? 0) !== expect || (read.result?.length ?? 0) !== at) tx.abort();
            };
          });
        }
        list() {
          return this.#run(["meta"], "readonly", (tx, set) => {
            const r = tx.objectStore("meta").getAllKeys();
            r.onsuccess = () => set(r.result);
          });
        }
        delete() {
          throw new Error("not used by the benchmark");
        }
      }
      const inner = {
        memory: new MemoryStore(),
        indexeddb: new IndexedDBStore({ database: "bench" }),
        minimal: new MinimalIndexedDBStore("bench-minimal"),
      };
      // Each store behind a wrapper that counts and times its calls (lockName kept, so the
      // Compactor takes the same Web Locks as over the store itself).
      const spent = {};
      const stores = {};
      for (const [kind, store] of Object.entries(inner)) {
        spent[kind] = {};
        const wrapper = store.lockName === undefined ? {} : { lockName: store.lockName };
        for (const m of ["load", "messages", "write", "summaries", "records", "list", "delete"]) {
          spent[kind][m] = { calls: 0, ms: 0 };
          wrapper[m] = async (...args) => {
            const t = performance.now();
            try {
              return await store[m](...args);
            } finally {
              spent[kind][m].calls++;
              spent[kind][m].ms += performance.now() - t;
            }
          };
        }
        stores[kind] = wrapper;
      }
      const made = {};
      const setup = {};
      for (const [kind, store] of Object.entries(stores)) {
        made[kind] = new Compactor({ ...options, store });
        const t = performance.now();
        const first = await made[kind].prepare("chat", [chat.system, ...chat.messages.slice(0, HISTORY)]);
        setup[kind] = { ms: performance.now() - t, status: first.contextStatus, tokens: first.report.tokensAfter };
      }
      // A Compactor made afresh over the stored conversation: its first call reads it all.
      const cold = {};
      for (const [kind, store] of Object.entries(stores)) {
        const fresh = new Compactor({ ...options, store });
        const t = performance.now();
        await fresh.status("chat");
        cold[kind] = performance.now() - t;
      }
      const times = { memory: [], indexeddb: [], minimal: [] };
      const during = { memory: {}, indexeddb: {}, minimal: {} };
      let compacted = 0;
      let next = HISTORY;
      for (let turn = 0; turn < WARMUP + TURNS; turn++) {
        const user = chat.messages[next];
        const reply = chat.messages[next + 1];
        next += 2;
        // Rotate which store goes first, so none always runs right after a commit.
        const kinds = ["memory", "indexeddb", "minimal"];
        const order = [...kinds.slice(turn % 3), ...kinds.slice(0, turn % 3)];
        for (const kind of order) {
          const calls = Object.fromEntries(Object.entries(spent[kind]).map(([m, x]) => [m, { ...x }]));
          const t = performance.now();
          const result = await made[kind].prepare("chat", [user]);
          const ms = performance.now() - t;
          if (result.record !== null) compacted++;
          if (turn >= WARMUP) {
            times[kind].push(ms);
            for (const [m, x] of Object.entries(spent[kind])) {
              const d = (during[kind][m] ??= { calls: 0, ms: 0 });
              d.calls += x.calls - calls[m].calls;
              d.ms += x.ms - calls[m].ms;
            }
          }
          await made[kind].commit("chat", [reply]);
        }
      }
      const length = (await made.indexeddb.history("chat")).length;
      const minimalLength = (await made.minimal.history("chat")).length;
      inner.indexeddb.close();
      return { setup, cold, times, during, compacted, length, minimalLength, isolated: globalThis.crossOriginIsolated === true };
    },
    { chat, HISTORY, TURNS, WARMUP },
  );

  const stats = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
    return { median: q(0.5), p90: q(0.9), mean: s.reduce((a, b) => a + b, 0) / s.length };
  };
  const mem = stats(r.times.memory);
  const idb = stats(r.times.indexeddb);
  const min = stats(r.times.minimal);
  const ms = (x) => `${x.toFixed(2)} ms`.padStart(10);
  const x = (a, b) => `${(a / b).toFixed(2)}x`.padStart(10);
  const NAMES = { memory: "MemoryStore", indexeddb: "IndexedDBStore", minimal: "minimal IndexedDB store" };
  console.log(`IndexedDBStore benchmark: Chromium ${version}, a profile on disk, ${r.isolated ? "cross-origin isolated (a clock precise to microseconds)" : "NOT cross-origin isolated (a clock in 0.1 ms steps)"}; ${chat.source}`);
  console.log(
    `conversation: ${HISTORY + 1} messages (${r.setup.memory.tokens} tokens at the first prepare, status ${r.setup.memory.status}), ` +
      `then ${TURNS} timed turns after ${WARMUP} warm-up turns; ${r.compacted} compactions; ${r.length} messages stored at the end (${r.minimalLength} in the minimal store)`,
  );
  console.log(`first prepare of the ${HISTORY + 1} messages: ${Object.keys(NAMES).map((k) => `${NAMES[k]} ${ms(r.setup[k].ms).trim()}`).join(", ")}`);
  console.log(`a fresh Compactor's first call (status: load and read the whole history): ${Object.keys(NAMES).map((k) => `${NAMES[k]} ${ms(r.cold[k]).trim()}`).join(", ")}`);
  console.log("");
  console.log(`warm prepare(id, [user message])          ${"median".padStart(10)}${"p90".padStart(10)}${"mean".padStart(10)}`);
  console.log(`  MemoryStore                             ${ms(mem.median)}${ms(mem.p90)}${ms(mem.mean)}`);
  console.log(`  IndexedDBStore                          ${ms(idb.median)}${ms(idb.p90)}${ms(idb.mean)}`);
  console.log(`  minimal IndexedDB store (plain JS)      ${ms(min.median)}${ms(min.p90)}${ms(min.mean)}`);
  console.log(`  IndexedDBStore / MemoryStore            ${x(idb.median, mem.median)}${x(idb.p90, mem.p90)}${x(idb.mean, mem.mean)}`);
  console.log(`  minimal IndexedDB store / MemoryStore   ${x(min.median, mem.median)}${x(min.p90, mem.p90)}${x(min.mean, mem.mean)}`);
  console.log(`  IndexedDBStore / minimal store          ${x(idb.median, min.median)}${x(idb.p90, min.p90)}${x(idb.mean, min.mean)}`);
  console.log("");
  console.log("store calls per timed prepare (count, mean ms each):");
  for (const kind of Object.keys(NAMES)) {
    const parts = Object.entries(r.during[kind])
      .filter(([, x]) => x.calls > 0)
      .map(([m, x]) => `${m} ${(x.calls / TURNS).toFixed(2)} x ${(x.ms / x.calls).toFixed(2)} ms`);
    console.log(`  ${NAMES[kind].padEnd(24)}  ${parts.join(", ")}`);
  }
  console.log("");
  const ratio = idb.median / mem.median;
  const floor = min.median / mem.median;
  console.log(`target: at most 3x MemoryStore's median: ${ratio <= 3 ? "met" : "NOT met"} (${ratio.toFixed(2)}x; the minimal IndexedDB store: ${floor.toFixed(2)}x)`);
  if (r.compacted !== 0) console.log("warning: a timed turn compacted; the figures are not of non-compacting turns");
} finally {
  await context.close();
  await server.close();
  rmSync(profile, { recursive: true, force: true });
}
