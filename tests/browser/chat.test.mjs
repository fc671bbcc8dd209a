// The demo chat (www/chat.html) in headless Chromium: a Compactor over IndexedDBStore with the
// stand-in model (no API key). Messages typed into the page go through prepare and commit;
// at a 4k window the conversation compacts, the notices say so, the meter stays within the
// budget; a reload reads the same conversation back from IndexedDB; commands work; no page
// errors.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launchChromium } from "../support/chromium.mjs";
import { repoRoot } from "../support/paths.mjs";
import { startStaticServer } from "../support/static-server.mjs";
import { startLlmServer, SUMMARY } from "../support/llm-server.mjs";

let server, browser, page, llm;
const problems = [];

before(async () => {
  server = await startStaticServer(repoRoot, {});
  llm = await startLlmServer();
  browser = await launchChromium();
  page = await browser.newPage();
  page.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
  page.on("console", (msg) => msg.type() === "error" && problems.push(`console.error: ${msg.text()}`));
  await page.goto(`${server.url}/www/chat.html`);
  await ready();
});

after(async () => {
  await browser?.close();
  await server?.close();
  await llm?.close();
});

const ready = (p = page) => p.waitForFunction(() => document.body.dataset.ready === "true" && document.body.dataset.idle === "true", null, { timeout: 30_000 });

async function send(text, p = page) {
  await p.fill("#text", text);
  await p.click("#send");
  await p.waitForFunction(() => document.body.dataset.idle === "true", null, { timeout: 30_000 });
}

const notices = () => page.$$eval("#log li", (items) => items.map((li) => li.textContent));
const stored = async () => Number(await page.evaluate(() => document.body.dataset.stored));
/** The meter's reading: tokens of the next input, and the input budget. */
async function reading() {
  const text = await page.textContent("#reading");
  const m = text.match(/^([\d,]+) of ([\d,]+) input tokens/);
  assert.ok(m, text);
  return { text, used: Number(m[1].replace(/,/g, "")), budget: Number(m[2].replace(/,/g, "")) };
}

test("a new page has no conversation, and says so", async () => {
  assert.equal(await stored(), 0);
  assert.match(await page.textContent("#reading"), /new conversation/);
  assert.deepEqual(problems, []);
});

test("chatting past the window compacts: the notices say so, every input fits, the history keeps every message", async () => {
  for (let i = 0; i < 24; i++) {
    await send(`Message ${i}: order ORD-${4000 + i} ships to warehouse W${i} on pallet P-${i * 7}. ` + "Please keep track of these details for later. ".repeat(6));
    const [sent, budget] = (await page.evaluate(() => document.body.dataset.sent)).split("/").map(Number);
    assert.ok(sent > 0 && sent <= budget, `message ${i}: ${sent} tokens sent, the input budget is ${budget}`);
  }
  assert.equal(await stored(), 1 + 2 * 24, "the system message, then each message and its reply");
  const log = await notices();
  const compacted = log.filter((l) => l.startsWith("Compacted ("));
  assert.ok(compacted.length >= 1, log.join("\n"));
  assert.ok(log.some((l) => l.startsWith("Compacting ")), "compactionStart came before the summary was made");
  // The last model input: the system message first, a summary, the newest message last.
  const input = await page.$$eval("#input .msg", (els) => els.map((el) => ({ role: el.querySelector(".role").textContent, summary: el.classList.contains("summary"), text: el.textContent })));
  assert.equal(input[0].role, "system");
  assert.ok(input.some((m) => m.summary), "a summary is in the model input");
  assert.match(input.at(-1).text, /^user Message 23:/);
  assert.ok(await page.$("#history .msg.summarized"), "summarized messages are marked in the history");
  assert.deepEqual(problems, []);
});

test("a reload reads the conversation back from IndexedDB, with its compactions", async () => {
  const before = { stored: await stored(), compactions: (await notices()).filter((l) => l.startsWith("Compacted (")).length, reading: (await reading()).text };
  await page.reload();
  await ready();
  assert.equal(await stored(), before.stored);
  assert.equal((await notices()).filter((l) => l.startsWith("Compacted (")).length, before.compactions);
  assert.equal((await reading()).text, before.reading);
  await send("What was the pallet of order ORD-4023?");
  assert.equal(await stored(), before.stored + 2);
  assert.deepEqual(problems, []);
});

test("commands: /status, /undo and an unknown one answer in the notices", async () => {
  await send("/status");
  assert.match((await notices()).at(-1), /^Context: /);
  await send("/undo");
  assert.match((await notices()).at(-1), /^(Undid compaction #\d+|Nothing to undo)/);
  await send("/bogus");
  assert.match((await notices()).at(-1), /^Unknown command \/bogus/);
  assert.deepEqual(problems, []);
});

/** A page of the chat in a context of its own (its own localStorage and IndexedDB), and its errors. */
async function freshContext() {
  const context = await browser.newContext();
  const errors = [];
  const open = async () => {
    const p = await context.newPage();
    p.on("pageerror", (err) => errors.push(`pageerror: ${err.message}`));
    await p.goto(`${server.url}/www/chat.html`);
    await ready(p);
    return p;
  };
  return { context, errors, open };
}

test("a setting the Compactor refuses (an empty window) is said, not saved: the page still opens after a reload", async () => {
  const { context, errors, open } = await freshContext();
  try {
    const p = await open();
    await p.fill("#window", "");
    await p.dispatchEvent("#window", "change");
    await ready(p);
    const log = await p.$$eval("#log li", (items) => items.map((li) => li.textContent));
    assert.match(log.at(-1), /OUT_OF_RANGE/);
    assert.equal(await p.inputValue("#window"), "4096");
    await p.reload();
    await ready(p);
    await send("Still here?", p);
    assert.equal(Number(await p.evaluate(() => document.body.dataset.stored)), 3);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("/resume of a conversation that does not exist stays in the one it was in", async () => {
  const { context, errors, open } = await freshContext();
  try {
    const p = await open();
    await send("Remember order ORD-1.", p);
    await send("/resume chta", p);
    assert.match(await p.textContent("#conversation"), /^chat: 3 messages stored/);
    await p.reload();
    await ready(p);
    assert.match(await p.textContent("#conversation"), /^chat: 3 messages stored/);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("two tabs on one new conversation: one system message, and each tab shows what the other sent", async () => {
  const { context, errors, open } = await freshContext();
  try {
    const [a, b] = [await open(), await open()];
    await send("From tab A.", a);
    await b.waitForFunction(() => document.body.dataset.stored === "3", null, { timeout: 10_000 });
    await send("From tab B.", b);
    await a.waitForFunction(() => document.body.dataset.stored === "5", null, { timeout: 10_000 });
    const roles = await a.$$eval("#history .msg", (els) => els.map((el) => el.querySelector(".role").textContent));
    assert.deepEqual(roles, ["system", "user", "assistant", "user", "assistant"]);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("with an endpoint and a key, the replies and the summaries come from that model (an OpenAI-compatible double on 127.0.0.1)", async () => {
  // No usage in its answers: the double's fixed usage would anchor every estimate to one size.
  const { openai, requests } = llm.scenario([{ reply: "ok", usage: null }]);
  // A context of its own: its own localStorage (the settings) and IndexedDB.
  const context = await browser.newContext();
  const other = await context.newPage();
  const errors = [];
  other.on("pageerror", (err) => errors.push(`pageerror: ${err.message}`));
  try {
    await other.goto(`${server.url}/www/chat.html`);
    await ready(other);
    await other.fill("#base", openai);
    await other.dispatchEvent("#base", "change");
    await other.fill("#key", "sk-demo-test");
    await other.dispatchEvent("#key", "change");
    await ready(other);
    for (let i = 0; i < 24; i++) await send(`Message ${i}: order ORD-${4000 + i} on pallet P-${i * 7}. ` + "Please keep track of these details for later. ".repeat(12), other);
    const replies = await other.$$eval("#history .msg.assistant", (els) => els.map((el) => el.textContent.replace(/^assistant /, "")));
    assert.equal(replies.length, 24);
    assert.ok(replies.every((r) => r === SUMMARY), "every reply is the double's answer");
    const chats = requests.filter((r) => r.body.messages?.[0]?.content?.startsWith("You are a helpful assistant in ctxfold's demo chat"));
    const summaries = requests.filter((r) => !chats.includes(r));
    assert.equal(chats.length, 24, "one model call a message");
    assert.ok(requests.every((r) => r.headers.authorization === "Bearer sk-demo-test"));
    const log = await other.$$eval("#log li", (items) => items.map((li) => li.textContent));
    assert.ok(log.some((l) => l.startsWith("Compacted (")), log.join("\n"));
    assert.ok(summaries.length >= 1, "the compaction asked the endpoint for its summary");
    assert.ok(!log.some((l) => /fallback|Fallback/.test(l)), `the endpoint's summary was taken: ${log.join("\n")}`);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
