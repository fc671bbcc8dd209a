// The chat commands in a page in headless Chromium, over IndexedDBStore: each command
// (/status, /prune, /compact, /undo, /new, /resume, an unknown one, text that is no
// command) against a conversation stored in IndexedDB, and what they stored read back after
// a reload.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launchChromium } from "../support/chromium.mjs";
import { repoRoot } from "../support/paths.mjs";
import { startStaticServer } from "../support/static-server.mjs";

const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>ctxfold commands over IndexedDB</title>
<link rel="icon" href="data:,">
<script type="importmap">{"imports":{"ctxfold":"/pkg/browser.js"}}</script>
<script type="module">
  import * as ctxfold from "ctxfold";
  import * as talk from "/tests/support/compactor-page.mjs";
  window.ctxfold = ctxfold;
  window.talk = talk;
  window.summaries = 0;
  window.compactor = () =>
    new ctxfold.Compactor({
      model: "gpt-4o",
      contextWindow: 128000,
      toolOutputMaxBytes: 1024,
      store: new ctxfold.IndexedDBStore({ database: "commands" }),
      summarizer: async (request) => {
        window.summaries++;
        const paths = request.prompt.match(/\\/srv\\/\\w+\\/file_\\d+\\.py/g) ?? [];
        return "## Conversation Summary\\n- **Decisions:** None\\n- **Entities:** " + (paths.at(-1) ?? "None") + "\\n- **Facts:** " + request.covers.length + " messages.\\n- **Open Items:** None";
      },
    });
  window.ready = true;
</script>
`;

let server, browser;
const problems = [];

before(async () => {
  server = await startStaticServer(repoRoot, { "/test.html": PAGE });
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

async function openPage(ctx) {
  const p = await ctx.newPage();
  p.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
  await p.goto(`${server.url}/test.html`);
  await p.waitForFunction(() => window.ready === true, null, { timeout: 30_000 });
  return p;
}

test("every command in a page, over IndexedDB, and what it stored after a reload", async () => {
  const ctx = await browser.newContext();
  try {
    const p = await openPage(ctx);
    const r = await p.evaluate(async () => {
      const c = compactor();
      await c.prepare("chat", talk.agent(24));
      const out = {};
      const run = async (text) => {
        const answer = await c.command("chat", text);
        return answer && { command: answer.command, ok: answer.ok, text: answer.text, answer };
      };
      out.status = await run("/status");
      out.prune = await run("/prune");
      out.pruneAgain = await run("/prune");
      out.summariesBeforeCompact = window.summaries;
      out.compact = await run("/compact keep the file paths");
      out.records = await c.records("chat");
      out.undo = await run("/undo");
      out.undoAgain = await run("/undo");
      out.newChat = await run("/new");
      out.resumeList = await run("/resume");
      out.resumeNew = await c.command("chat", "/resume " + out.newChat.answer.conversationId);
      out.unknown = await run("/clear");
      out.notCommand = await run("how are you?");
      out.newHistory = (await c.history(out.newChat.answer.conversationId)).map((e) => e.message);
      out.oldLength = (await c.status("chat")).length;
      out.oldMeta = await c.store.load("chat");
      return out;
    });
    assert.deepEqual([r.status.ok, r.status.command], [true, "status"]);
    assert.match(r.status.text, /^Context: \d+(\.\d)?k\/128k tokens \(\d+ %\), 97 messages, 0 compactions$/);
    assert.equal(r.prune.ok, true, r.prune.text);
    assert.match(r.prune.text, /^Tool outputs pruned \(\d+(\.\d)?k -> \d+(\.\d)?k, -\d+ %\)$/);
    assert.equal(r.prune.answer.result.record, null);
    assert.deepEqual([r.pruneAgain.ok, r.summariesBeforeCompact], [false, 0]);
    assert.equal(r.compact.ok, true);
    assert.match(r.compact.text, /^Compacted \(\d+(\.\d)?k -> \d+(\.\d)?k\)$/);
    assert.deepEqual(r.records.map((x) => [x.trigger, x.instructions]), [["manual", "keep the file paths"]]);
    assert.ok(r.records[0].after.total === r.records[0].tokensAfter);
    assert.deepEqual([r.undo.ok, r.undo.text, r.undoAgain.ok], [true, "Undid compaction #0 (0 summary chunks in force now)", false]);
    assert.ok(r.newChat.ok && r.newChat.answer.summarized, r.newChat.text);
    const newId = r.newChat.answer.conversationId;
    assert.deepEqual(r.resumeList.answer.conversations.sort(), ["chat", newId].sort());
    assert.deepEqual([r.resumeNew.ok, r.resumeNew.status.length], [true, 2]);
    assert.deepEqual([r.unknown.command, r.unknown.ok], ["unknown", false]);
    assert.equal(r.notCommand, null);
    // The summary is a message of its own after the system prompt, in the role compact() gives a
    // summary there (a user message), never the system prompt.
    assert.equal(r.newHistory[0].role, "system");
    assert.equal(r.newHistory[1].role, "user");
    assert.match(r.newHistory[1].content, /^## Conversation Summary[\s\S]*file_23\.py/);
    assert.equal(r.oldLength, 97);

    // A reload: what the commands stored is in IndexedDB.
    await p.reload();
    await p.waitForFunction(() => window.ready === true, null, { timeout: 30_000 });
    const again = await p.evaluate(async (newId) => {
      const c = compactor();
      return {
        list: (await c.list()).sort(),
        status: (await c.command("chat", "/status")).status,
        records: await c.records("chat"),
        newHistory: (await c.history(newId)).map((e) => e.message),
        meta: await c.store.load("chat"),
      };
    }, newId);
    assert.deepEqual(again.list, ["chat", newId].sort());
    assert.deepEqual(again.meta, r.oldMeta);
    assert.deepEqual(again.records.map((x) => x.undone), [true]);
    assert.deepEqual(again.newHistory, r.newHistory);
    assert.equal(again.status.length, 97);
    assert.ok(again.meta.state.pruneBoundary !== null, "the prune boundary /prune set is stored");
    assert.deepEqual(problems, []);
  } finally {
    await ctx.close();
  }
});
