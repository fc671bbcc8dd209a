// The demo chat (www/), served by `node www/serve.mjs`, in headless Chromium, offline (the
// extractive summary, no model call: the file's own replies are committed): a corpus
// conversation (MIT) is imported and replayed turn by turn at an 8k window until two
// compactions; the meter's parts are plan()'s numbers for the same input, computed in the
// page from what the store holds; a record opened from the timeline shows what
// compactor.records() holds; undoing it updates the timeline and the meter; a reload finds the
// conversation, its history, its records and the undone flag; the rest of the file replays
// within the budget. Screenshots go to $CTXFOLD_SCREENSHOTS (docs/images to refresh the committed
// ones: CTXFOLD_SCREENSHOTS=docs/images bash scripts/test.sh page), else to a temporary folder,
// so a test run leaves the tree as it was (the test fails on a step, never on pixels).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { launchChromium } from "../support/chromium.mjs";
import { repoRoot } from "../support/paths.mjs";
import { conversationPath } from "../support/corpus.mjs";
import { startDemoServer, idle, setSettings, notices } from "../support/demo-chat.mjs";

const FILE = conversationPath("mini-swe-agent-gemini-3-pro__astropy__astropy-13398.json");
const MESSAGES = JSON.parse(readFileSync(FILE, "utf8")).messages;
const IMAGES = process.env.CTXFOLD_SCREENSHOTS ? resolve(repoRoot, process.env.CTXFOLD_SCREENSHOTS) : mkdtempSync(join(tmpdir(), "ctxfold-screenshots-"));
const OPTIONS = { model: "gpt-4o-mini", contextWindow: 8192, preset: "default" };

let server, browser, context, page;
const problems = [];

before(async () => {
  mkdirSync(IMAGES, { recursive: true });
  server = await startDemoServer();
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1440, height: 900 }, colorScheme: "light" });
  page = await context.newPage();
  page.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
  page.on("console", (msg) => msg.type() === "error" && problems.push(`console.error: ${msg.text()}`));
  await page.goto(server.url);
  await idle(page);
});

after(async () => {
  await browser?.close();
  await server?.close();
});

// Transitions finished, so that a run that changed nothing writes the same pixels.
const shot = (name, p = page) => p.screenshot({ path: join(IMAGES, name), animations: "disabled" });
const conversation = () => page.evaluate(() => document.body.dataset.conversation);

/**
 * What the public API says of the conversation, read in the page by a Compactor of its own
 * over the same IndexedDB database: its records and history, and plan() of the stored
 * history under the stored state (the input the next call would send).
 */
function truth(id) {
  return page.evaluate(
    async ({ id, options }) => {
      const { Compactor, IndexedDBStore, plan } = await import("ctxfold");
      const store = new IndexedDBStore({ database: window.ctxfoldChat.database });
      const compactor = new Compactor({ ...options, store });
      const history = await compactor.history(id);
      const meta = await store.load(id);
      const p = plan(history.map((e) => e.message), { ...options, state: meta.state });
      const status = await compactor.status(id);
      store.close();
      return { records: await compactor.records(id), history, plan: p, canUndo: status.canUndo };
    },
    { id, options: OPTIONS },
  );
}

/** The meter as drawn: each part's tokens (`data-tokens`) and the legend's numbers. */
const meter = () =>
  page.evaluate(() => {
    const parts = {};
    for (const seg of document.querySelectorAll("#meter .seg")) parts[seg.dataset.part] = Number(seg.dataset.tokens);
    const legend = {};
    for (const li of document.querySelectorAll("#legend li")) legend[li.dataset.part] = Number(li.querySelector(".num").textContent.replace(/,/g, ""));
    return { parts, legend, total: Number(document.getElementById("meter").dataset.total) };
  });

/** The meter's parts are the plan's numbers: tool results are counted inside the kept messages, so "recent" is the rest of them. */
async function assertMeterIsPlan(id) {
  const { plan } = await truth(id);
  const { parts, legend, total } = await meter();
  const t = plan.tokens;
  const expected = {
    head: t.head - t.toolDefinitions,
    definitions: t.toolDefinitions,
    summaries: t.summaries,
    recent: t.middle + t.tail - t.toolResults,
    tools: t.toolResults,
    framing: t.framing,
    free: Math.max(0, plan.budget.input - t.total),
    reserved: plan.budget.reservedOutput,
  };
  assert.deepEqual(parts, expected);
  // The legend leaves out tool definitions when the request has none.
  const { definitions, ...withoutDefinitions } = expected;
  assert.deepEqual(legend, definitions > 0 ? expected : withoutDefinitions);
  assert.equal(total, t.total);
  // To scale: the parts fill the window, or, over the budget, the input and the reserve.
  assert.equal(Object.values(expected).reduce((a, b) => a + b, 0), Math.max(plan.budget.window, t.total + plan.budget.reservedOutput));
  return { plan, parts };
}

test("the page is served by www/serve.mjs and opens on an empty chat, styled, with no errors", async () => {
  assert.match(await page.textContent("#title"), /New chat/);
  assert.ok(await page.isVisible("#sample"), "the empty state offers the sample");
  const box = await page.locator("#meter").boundingBox();
  assert.ok(box && box.height >= 20 && box.width > 250, `the meter is drawn: ${JSON.stringify(box)}`);
  const columns = await page.evaluate(() => getComputedStyle(document.querySelector(".app")).gridTemplateColumns.split(" ").length);
  assert.equal(columns, 3, "conversations, chat and context side by side at 1440 px");
  assert.deepEqual(problems, []);
});

test("a corpus conversation imported offline at an 8k window replays turn by turn until two compactions", async () => {
  assert.equal(await setSettings(page, { "s-offline": true, "s-window": "8192", "s-model": "gpt-4o-mini", "s-preset": "default" }), "");
  // Every progress card the chat shows while a summary is made, as it appears.
  await page.evaluate(() => {
    window.progressSeen = [];
    new MutationObserver((changes) => {
      for (const c of changes) for (const n of c.addedNodes) if (n.classList?.contains("progress")) window.progressSeen.push(n.textContent);
    }).observe(document.getElementById("messages"), { childList: true });
  });
  await page.setInputFiles("#import-file", FILE);
  await page.waitForSelector("#replay-bar:not([hidden])");
  await idle(page);
  await page.selectOption("#replay-speed", "0");
  for (let k = 1; k <= 2; k++) {
    await page.click("#replay-next");
    await page.waitForFunction((k) => document.body.dataset.replay === "paused" && document.body.dataset.compactions === String(k) && document.body.dataset.idle === "true", k, { timeout: 60_000 });
  }
  const id = await conversation();
  const { records, history } = await truth(id);
  assert.equal(records.length, 2);
  // What was stored is the file's own messages, in order: its replies, not a stand-in's.
  assert.deepEqual(history.map((e) => e.message), MESSAGES.slice(0, history.length));
  assert.ok(history.length < MESSAGES.length, "paused before the end");
  for (const r of records) assert.ok(r.tokensAfter <= r.budget.input, `compaction #${r.seq}: ${r.tokensAfter} tokens, the input budget is ${r.budget.input}`);
  // The chat shows every stored message, a divider where each compaction ran, and the summarized ones marked.
  assert.equal(await page.locator("#messages article.msg").count(), history.length);
  assert.equal(await page.locator("#messages .divider").count(), 2);
  const summarized = history.filter((e) => e.summarizedBy !== null).map((e) => String(e.index));
  assert.deepEqual(await page.$$eval("#messages article.msg.summarized", (els) => els.map((el) => el.dataset.index)), summarized);
  // The timeline: newest first; the latest can be undone.
  assert.deepEqual(await page.$$eval("#timeline .entry", (els) => els.map((el) => el.dataset.seq)), ["1", "0"]);
  assert.equal(await page.locator("#timeline .entry[data-seq='1'] .undo").count(), 1);
  // A progress card was shown for each compaction, between its start and end events.
  const events = await page.evaluate(() => window.ctxfoldChat.events.map((e) => e.type));
  assert.deepEqual(events.filter((t) => t.startsWith("compaction")), ["compactionStart", "compactionEnd", "compactionStart", "compactionEnd"]);
  const seen = await page.evaluate(() => window.progressSeen);
  assert.equal(seen.length, 2, JSON.stringify(seen));
  assert.match(seen[0], /Summarizing earlier messages · \d+ messages?, [\d,]+ tokens/);
  assert.equal(await page.locator("#messages .progress").count(), 0, "the card is gone once the compaction ended");
  assert.match(await page.textContent("#replay-progress"), /^turn \d+ of 37 · 2 compactions · paused/);
  assert.match(await page.textContent("#title"), /^A direct approach to ITRS to Observed transformations/);
  // The picture: where the summarized messages (dimmed) end and the ones sent verbatim begin.
  await page.mouse.move(0, 0);
  await page.evaluate(() => {
    document.activeElement?.blur();
    const list = document.getElementById("messages");
    const last = [...list.querySelectorAll(".msg.summarized")].at(-1);
    list.scrollTop = Math.round(last.offsetTop - list.offsetTop - list.clientHeight * 0.3);
  });
  await shot("chat.png");
  assert.deepEqual(problems, []);
});

test("the meter's parts are plan()'s numbers for the same input, and hovering one shows them", async () => {
  const { plan } = await assertMeterIsPlan(await conversation());
  assert.ok(plan.tokens.summaries > 0 && plan.tokens.toolResults > 0, "summaries and tool output are both in the window");
  await page.hover("#meter .seg.summaries");
  const tip = await page.textContent("#tooltip");
  assert.match(tip, new RegExp(`^Summaries: ${plan.tokens.summaries.toLocaleString("en-US")} tokens`));
  assert.ok(await page.isVisible("#tooltip"));
  await page.mouse.move(0, 0);
});

test("a record opened from the timeline shows what compactor.records() holds, and the messages it evicted", async () => {
  const id = await conversation();
  const { records, history } = await truth(id);
  const r = records[1];
  await page.click("#timeline .entry[data-seq='1'] .entry-open");
  await page.waitForSelector("#record[open]");
  const text = async (sel) => (await page.textContent(sel)).trim();
  assert.match(await text("#record-title"), /^Compaction #1/);
  assert.equal(await text("#record-before"), r.tokensBefore.toLocaleString("en-US"));
  assert.equal(await text("#record-after"), r.tokensAfter.toLocaleString("en-US"));
  assert.equal(await text("#record-evicted-count"), String(r.evicted.length));
  assert.equal(await text("#record-kept-count"), `(${r.keptIds.length})`);
  assert.equal(await text("#record-lost-count"), `(${r.lostIds.length})`);
  assert.deepEqual(await page.$$eval("#record-kept .chip", (els) => els.map((el) => el.textContent)), r.keptIds);
  assert.deepEqual(await page.$$eval("#record-lost .chip", (els) => els.map((el) => el.textContent)), r.lostIds);
  assert.equal(await text("#record-fallback"), r.fallback ? `${r.fallback.kind}: ${r.fallback.reason}` : "none");
  assert.match(await text("#record-timings"), new RegExp(`total ${r.timings.totalMs.toFixed(1)} ms$`));
  assert.match(await text("#record-guards"), /.+/);
  await page.click("#record-show-evicted");
  await page.waitForSelector("#record-body .evicted-list");
  const shown = await page.$$eval("#record-body .evicted-list li", (els) => els.map((el) => ({ index: Number(el.dataset.index), role: el.querySelector(".role").textContent, snippet: el.querySelector(".snippet").textContent })));
  assert.deepEqual(shown.map((s) => s.index), r.evicted);
  for (const s of shown) {
    const m = history[s.index].message;
    assert.equal(s.role, m.role);
    assert.ok(s.snippet.startsWith(m.content.slice(0, 80)), `message ${s.index} is shown from history()`);
  }
  assert.ok(await page.isEnabled("#record-undo"), "the latest compaction can be undone from its record");
  await shot("chat-record.png");
});

test("undoing the latest compaction from its record updates the timeline and the meter", async () => {
  const id = await conversation();
  const before = await meter();
  await page.click("#record-undo");
  await page.waitForFunction(() => !document.getElementById("record").open, null, { timeout: 10_000 });
  await idle(page);
  const { records, canUndo } = await truth(id);
  assert.deepEqual(records.map((r) => r.undone), [false, true]);
  assert.equal(canUndo, false);
  assert.equal(await page.getAttribute("#timeline .entry[data-seq='1']", "data-undone"), "true");
  assert.equal(await page.locator("#timeline .undo").count(), 0, "nothing else to undo");
  assert.equal(await page.locator("#messages .divider.undone").count(), 1);
  const { parts } = await assertMeterIsPlan(id);
  assert.ok(parts.summaries < before.parts.summaries, `its summary dropped out: ${before.parts.summaries} -> ${parts.summaries}`);
  assert.ok(parts.recent + parts.tools > before.parts.recent + before.parts.tools, "the messages it summarized are sent again");
  assert.match((await notices(page)).at(-1), /^Undid compaction #1/);
  assert.deepEqual(problems, []);
});

test("after a reload the conversation is listed and its history, records and undone flag are all there", async () => {
  const id = await conversation();
  const { history, records } = await truth(id);
  await page.reload();
  await idle(page);
  assert.equal(await conversation(), id);
  const listed = await page.$$eval("#conversations li", (els) => els.map((el) => ({ id: el.dataset.id, title: el.querySelector(".conv-title").textContent })));
  assert.ok(listed.some((c) => c.id === id && c.title.startsWith("A direct approach to ITRS")), JSON.stringify(listed));
  assert.equal(await page.locator("#messages article.msg").count(), history.length);
  assert.deepEqual(await page.$$eval("#timeline .entry", (els) => els.map((el) => [el.dataset.seq, el.dataset.undone])), [["1", "true"], ["0", "false"]]);
  assert.equal(records.length, 2);
  await assertMeterIsPlan(id);
  assert.ok(await page.isHidden("#replay-bar"), "a replay does not outlive the page; the conversation does");
  assert.deepEqual(problems, []);
});

test("in the dark and on a phone, the page keeps its layout", async () => {
  await page.emulateMedia({ colorScheme: "dark" });
  await page.waitForTimeout(400); // the buttons' colour transitions
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert.notEqual(bg, "rgb(246, 247, 249)", "the dark palette applies");
  await shot("chat-dark.png");
  await page.emulateMedia({ colorScheme: "light" });
  const phone = await context.newPage();
  await phone.setViewportSize({ width: 390, height: 844 });
  await phone.goto(server.url);
  await idle(phone);
  assert.ok(await phone.isHidden("#toggle-panel") === false, "the context panel is a drawer behind a button");
  assert.equal(await phone.evaluate(() => getComputedStyle(document.querySelector(".app")).gridTemplateColumns.split(" ").length), 1);
  await shot("chat-phone.png", phone);
  await phone.click("#toggle-panel");
  await phone.waitForTimeout(300);
  assert.ok(await phone.isVisible("#meter"));
  await shot("chat-phone-context.png", phone);
  await phone.close();
});

test("the rest of the file replays: every compaction within the budget, the history the file's own messages", async () => {
  // The replay is gone with the reload: import the file again, into a conversation of its own.
  await page.setInputFiles("#import-file", FILE);
  await page.waitForSelector("#replay-bar:not([hidden])");
  await idle(page);
  await page.selectOption("#replay-speed", "0");
  await page.click("#replay-play");
  await page.waitForFunction(() => document.body.dataset.replay === "done" && document.body.dataset.idle === "true", null, { timeout: 120_000 });
  const { history, records } = await truth(await conversation());
  assert.deepEqual(history.map((e) => e.message), MESSAGES);
  assert.ok(records.length >= 4, `${records.length} compactions`);
  for (const r of records) assert.ok(r.tokensAfter <= r.budget.input, `compaction #${r.seq}: ${r.tokensAfter} > ${r.budget.input}`);
  assert.ok(await page.isEnabled("#text"), "once replayed, the conversation goes on from the composer");
  assert.equal((await page.$$("#conversations li")).length, 2);
  assert.deepEqual(problems, []);
});
