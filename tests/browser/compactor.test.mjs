// The Compactor in a page in headless Chromium: the corpus replay suite over MemoryStore (as
// in Node), and the Web Locks path: two Compactors over one store that names itself with
// `lockName` wait for each other through navigator.locks (two tabs would, the same way), so
// only one of them ever summarizes, where without a lockName both do and the store's version
// check turns the second write away.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launchChromium } from "../support/chromium.mjs";
import { repoRoot } from "../support/paths.mjs";
import { startStaticServer } from "../support/static-server.mjs";
import { usesTools } from "../support/compactor-suite.mjs";
import { conversations } from "../support/corpus.mjs";

const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>ctxfold Compactor page test</title>
<link rel="icon" href="data:,">
<script type="importmap">{"imports":{"ctxfold":"/pkg/browser.js"}}</script>
<script type="module">
  import * as ctxfold from "ctxfold";
  import { replay } from "/tests/support/compactor-suite.mjs";
  window.ctxfold = ctxfold;
  window.replay = replay;
  window.ready = true;
</script>
`;

let server, browser, page;
const problems = [];

before(async () => {
  server = await startStaticServer(repoRoot, { "/compactor.html": PAGE });
  browser = await launchChromium();
  page = await browser.newPage();
  page.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
  page.on("console", (msg) => {
    if (msg.type() === "error" || msg.type() === "warning") problems.push(`console.${msg.type()}: ${msg.text()}`);
  });
  await page.goto(`${server.url}/compactor.html`);
  await page.waitForFunction(() => window.ready === true, null, { timeout: 30_000 });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

function conversation(prefix) {
  const [found] = conversations((f) => f.startsWith(prefix));
  assert.ok(found && usesTools(found.messages), `no tool-using corpus conversation named ${prefix}...`);
  return found.messages;
}

test("the corpus replay suite in a page: within budget, history equal, prefix stable between compactions", async () => {
  for (const prefix of ["mini-swe-agent-gemini-3-pro__astropy", "swe-agent__gpt4-run-pydicom", "tau-bench__gpt-4o-airline__task-2"]) {
    const messages = conversation(prefix);
    const r = await page.evaluate(
      ({ messages }) => window.replay(window.ctxfold, { store: new window.ctxfold.MemoryStore(), messages, window: 16384 }),
      { messages },
    );
    assert.deepEqual(r.overBudget, [], prefix);
    assert.deepEqual(r.countMismatch, [], prefix);
    assert.ok(r.historyEqual, prefix);
    assert.deepEqual(r.prefix.broken, [], prefix);
  }
  assert.deepEqual(problems, []);
});

test("two Compactors over a store with a lockName wait for each other through navigator.locks", async () => {
  const result = await page.evaluate(async () => {
    const { Compactor, MemoryStore } = window.ctxfold;
    async function race(lockName) {
      const inner = new MemoryStore();
      const store = {
        lockName,
        ...Object.fromEntries(["load", "messages", "write", "summaries", "records", "list", "delete"].map((m) => [m, (...a) => inner[m](...a)])),
      };
      let summaries = 0;
      let stale = 0;
      const write = store.write;
      store.write = (...a) => write(...a).catch((e) => { stale += e.code === "STALE_WRITE"; throw e; });
      const held = [];
      const summarizer = async () => {
        summaries++;
        held.push((await navigator.locks.query()).held.map((l) => l.name));
        await new Promise((r) => setTimeout(r, 30));
        return "## Conversation Summary\n- **Facts:** earlier turns.";
      };
      const options = { model: "gpt-4o", contextWindow: 8192, store, summarizer };
      const a = new Compactor(options);
      const b = new Compactor(options);
      const turn = (i, words = 60) => [{ role: "user", content: `turn ${i} ` + "billing ".repeat(words) }, { role: "assistant", content: `answer ${i}` }];
      // Under the threshold, then both at once with a message that takes it over.
      for (let i = 0; i < 4; i++) await a.prepare("c", turn(i));
      const { estimate } = await a.status("c");
      // A filler that leaves a few tokens of room: either new turn takes the input over.
      await a.prepare("c", turn(99, estimate.threshold - estimate.tokens - 40));
      await Promise.all([a.prepare("c", turn(100)), b.prepare("c", turn(200))]);
      return { summaries, stale, records: (await a.records("c")).length, length: (await b.history("c")).length, held };
    }
    return { locked: await race("page-test"), unlocked: await race(undefined) };
  });
  // With a lockName the second call waited for the first, then found the compaction done.
  assert.equal(result.locked.records, 1);
  assert.equal(result.locked.summaries, 1, JSON.stringify(result.locked));
  assert.equal(result.locked.stale, 0);
  assert.deepEqual(result.locked.held, [["ctxfold:page-test:c"]]);
  assert.equal(result.locked.length, 14);
  // Without one both summarized; the version check refused the second write, which loaded again.
  assert.equal(result.unlocked.records, 1);
  assert.equal(result.unlocked.summaries, 2, JSON.stringify(result.unlocked));
  assert.ok(result.unlocked.stale >= 1);
  assert.equal(result.unlocked.length, 14);
  assert.deepEqual(problems, []);
});
