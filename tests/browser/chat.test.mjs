// The demo chat (www/, served by `node www/serve.mjs`) in headless Chromium, typed into as a
// person would: offline, the stand-in model answers from the input it was sent; past a 4k
// window the conversation compacts with every input within the budget; a reload reads it all
// back from IndexedDB; the chat commands work; conversations are listed, switched and deleted
// (after a confirmation); settings the Compactor refuses are said and not saved, and the API
// key is kept only when asked; a bad file is refused with a clear message; two tabs see each
// other's messages; online, the replies and the summaries come from an OpenAI-compatible
// double on 127.0.0.1, and the progress card shows while a slow summary is made.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launchChromium } from "../support/chromium.mjs";
import { startLlmServer, SUMMARY } from "../support/llm-server.mjs";
import { startDemoServer, idle, setSettings, send, notices } from "../support/demo-chat.mjs";

let server, browser, llm, page;
const problems = [];

before(async () => {
  server = await startDemoServer();
  llm = await startLlmServer();
  browser = await launchChromium();
  ({ page } = await fresh(problems));
});

after(async () => {
  await browser?.close();
  await server?.close();
  await llm?.close();
});

/** A page of the chat in a browser context of its own (its own localStorage and IndexedDB). */
async function fresh(errors = []) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const open = async () => {
    const p = await context.newPage();
    p.on("pageerror", (err) => errors.push(`pageerror: ${err.message}`));
    p.on("console", (msg) => msg.type() === "error" && errors.push(`console.error: ${msg.text()}`));
    await p.goto(server.url);
    await idle(p);
    return p;
  };
  return { context, errors, open, page: await open() };
}

const stored = async (p = page) => Number(await p.evaluate(() => document.body.dataset.stored));
const replies = (p = page) => p.$$eval("#messages article.msg.assistant .text", (els) => els.map((el) => el.textContent));
const conversations = (p = page) => p.$$eval("#conversations li", (els) => els.map((el) => ({ id: el.dataset.id, title: el.querySelector(".conv-title").textContent })));

test("a new page has no conversation, and says so", async () => {
  assert.equal(await stored(), 0);
  assert.match(await page.textContent("#meter-note"), /Nothing stored yet/);
  assert.match(await page.textContent("#subtitle"), /nothing stored yet · gpt-4o-mini · 8,192 window · offline/);
  assert.deepEqual(problems, []);
});

test("chatting past a 4k window compacts: every input fits, the history keeps every message, the stand-in answers from what it was sent", async () => {
  assert.equal(await setSettings(page, { "s-window": "4096" }), "");
  for (let i = 0; i < 24; i++) {
    await send(page, `Message ${i}: order ORD-${4000 + i} ships to warehouse W${i} on pallet P-${i * 7}. ` + "Please keep track of these details for later. ".repeat(12));
    const [sent, budget] = (await page.evaluate(() => document.body.dataset.sent)).split("/").map(Number);
    assert.ok(sent > 0 && sent <= budget, `message ${i}: ${sent} tokens sent, the input budget is ${budget}`);
  }
  assert.equal(await stored(), 1 + 2 * 24, "the system message, then each message and its reply");
  const compactions = Number(await page.evaluate(() => document.body.dataset.compactions));
  assert.ok(compactions >= 1, "it compacted");
  assert.equal(await page.locator("#timeline .entry").count(), compactions);
  assert.ok(await page.locator("#messages article.msg.summarized").count() > 0, "summarized messages are marked");
  // The model input of the last turn: the system message first, a summary, the newest message last.
  await page.click("#tab-input");
  const input = await page.$$eval("#input .input-msg", (els) => els.map((el) => ({ who: el.querySelector(".who").textContent, text: el.querySelector(".text").textContent })));
  assert.equal(input[0].who, "System prompt");
  assert.ok(input.some((m) => m.who === "Summary"), "a summary is in the model input");
  assert.match(input.at(-1).text, /^Message 23:/);
  await page.click("#tab-context");
  await send(page, "What was the pallet of order ORD-4023?");
  assert.match((await replies()).at(-1), /^\(Stand-in model, offline\.\) I was sent \d+ messages\. What they say about it: “Message 23: order ORD-4023 ships to warehouse W23 on pallet P-161\.”/);
  assert.deepEqual(problems, []);
});

test("a reload reads the conversation back from IndexedDB, with its compactions and its meter", async () => {
  const before = { stored: await stored(), entries: await page.locator("#timeline .entry").count(), meter: await page.textContent("#meter-total"), title: await page.textContent("#title") };
  await page.reload();
  await idle(page);
  assert.equal(await stored(), before.stored);
  assert.equal(await page.locator("#messages article.msg").count(), before.stored);
  assert.equal(await page.locator("#timeline .entry").count(), before.entries);
  assert.equal(await page.textContent("#meter-total"), before.meter);
  assert.equal(await page.textContent("#title"), before.title);
  assert.match(before.title, /^Message 0: order ORD-4000/);
  await send(page, "Still here?");
  assert.equal(await stored(), before.stored + 2);
  assert.deepEqual(problems, []);
});

test("commands: /status, /compact, /undo, /prune and an unknown one answer in the chat", async () => {
  await send(page, "/status");
  assert.match((await notices(page)).at(-1), /^Context: [\d.]+k?\/4\.1k tokens/);
  const entries = await page.locator("#timeline .entry").count();
  await send(page, "/compact keep the order numbers");
  assert.match((await notices(page)).at(-1), /^(Compacted \(|Nothing to compact)/);
  const after = await page.locator("#timeline .entry").count();
  if (after > entries) {
    await page.click(`#timeline .entry[data-seq='${after - 1}'] .entry-open`);
    await page.waitForSelector("#record[open] #record-before");
    assert.match(await page.textContent("#record-body"), /manual · additive · instructions: “keep the order numbers”/);
    await page.keyboard.press("Escape");
    await page.waitForSelector("#record", { state: "hidden" });
  }
  await send(page, "/undo");
  assert.match((await notices(page)).at(-1), /^(Undid compaction #\d+|Nothing to undo)/);
  await send(page, "/prune");
  assert.match((await notices(page)).at(-1), /^(Tool outputs pruned|Nothing to prune)/);
  await send(page, "/bogus");
  assert.match((await notices(page)).at(-1), /^Unknown command \/bogus/);
  assert.deepEqual(problems, []);
});

test("conversations: /new starts one (listed, titled by its first message), they switch, and one is deleted only once confirmed", async () => {
  const first = await page.evaluate(() => document.body.dataset.conversation);
  await send(page, "/new");
  const second = await page.evaluate(() => document.body.dataset.conversation);
  assert.notEqual(second, first);
  await send(page, "Plan the launch of project Zephyr for March.");
  let list = await conversations();
  assert.deepEqual(list.map((c) => c.id), [second, first], "newest first");
  assert.equal(list[0].title, "Plan the launch of project Zephyr for March.");
  await page.click(`#conversations li[data-id='${first}'] .conv`);
  await idle(page);
  assert.equal(await page.evaluate(() => document.body.dataset.conversation), first);
  assert.match(await page.textContent("#title"), /^Message 0:/);
  // Delete asks first: Cancel keeps it, Delete removes it and switches to the other one.
  await page.click("#delete");
  await page.click("#confirm button[value='cancel']");
  await idle(page);
  assert.equal((await conversations()).length, 2);
  await page.click("#delete");
  assert.match(await page.textContent("#confirm-text"), /cannot be undone/);
  await page.click("#confirm-delete");
  await page.waitForFunction((first) => document.body.dataset.conversation !== first, first);
  await idle(page);
  list = await conversations();
  assert.deepEqual(list.map((c) => c.id), [second]);
  assert.equal(await page.evaluate(() => document.body.dataset.conversation), second);
  const ids = await page.evaluate(() => window.ctxfoldChat.compactor.list());
  assert.deepEqual(ids, [second]);
  assert.deepEqual(problems, []);
});

test("/resume of a conversation that does not exist stays in the one it was in", async () => {
  const here = await page.evaluate(() => document.body.dataset.conversation);
  await send(page, "/resume chta");
  assert.match((await notices(page)).at(-1), /^No conversation "chta"/);
  assert.equal(await page.evaluate(() => document.body.dataset.conversation), here);
  await page.reload();
  await idle(page);
  assert.equal(await page.evaluate(() => document.body.dataset.conversation), here);
});

test("a setting the Compactor refuses (an empty window) is said in the dialog and not saved; the key is kept only when asked", async () => {
  const { context, errors, page: p } = await fresh();
  try {
    assert.match(await setSettings(p, { "s-window": "" }), /RangeError \(OUT_OF_RANGE\)|OUT_OF_RANGE/);
    await p.reload();
    await idle(p);
    assert.match(await p.textContent("#subtitle"), /8,192 window/);
    await send(p, "Still here?");
    assert.equal(await stored(p), 3);
    // Online with a key, not remembered: it is in no storage, and a reload forgets it.
    const { openai } = llm.scenario([{ reply: "ok", usage: null }]);
    assert.equal(await setSettings(p, { "s-offline": false, "s-base": openai, "s-key": "sk-not-kept", "s-remember": false }), "");
    const saved = await p.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }));
    assert.ok(!saved.includes("sk-not-kept"), saved);
    assert.match(saved, /"offline\\?":false/);
    await p.reload();
    await idle(p);
    await p.click("#open-settings");
    assert.equal(await p.inputValue("#s-key"), "");
    await p.keyboard.press("Escape");
    assert.equal(await setSettings(p, { "s-key": "sk-kept", "s-remember": true }), "");
    await p.reload();
    await idle(p);
    await p.click("#open-settings");
    assert.equal(await p.inputValue("#s-key"), "sk-kept");
    await p.keyboard.press("Escape");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("a file that is not a conversation is refused with what is wrong; a message the package refuses pauses the replay on it", async () => {
  const { context, errors, page: p } = await fresh();
  try {
    await p.setInputFiles("#import-file", { name: "notes.json", mimeType: "application/json", buffer: Buffer.from('{"title": "no messages here"}') });
    await p.waitForSelector(".toast");
    assert.match(await p.textContent(".toast"), /^TypeError: notes\.json is not a conversation: expected a JSON array of messages, an object with a "messages" array, or a ctxfold export/);
    await p.setInputFiles("#import-file", { name: "broken.json", mimeType: "application/json", buffer: Buffer.from('[{"role":"user","content":"hel') });
    await p.waitForFunction(() => document.querySelectorAll(".toast").length === 2);
    assert.match(await p.$$eval(".toast", (els) => els.at(-1).textContent), /^TypeError: broken\.json is not JSON/);
    const bad = [{ role: "user", content: "Hello" }, { role: "assistant", content: "Hi" }, { role: "wizard", content: "x" }];
    await p.setInputFiles("#import-file", { name: "bad.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(bad)) });
    await p.waitForSelector("#replay-bar:not([hidden])");
    await idle(p);
    await p.click("#replay-play");
    await p.waitForFunction(() => document.body.dataset.replay === "paused" && /paused: /.test(document.getElementById("replay-progress").textContent));
    assert.match((await notices(p)).at(-1), /INVALID_MESSAGE/);
    assert.match(await p.textContent("#replay-progress"), /^turn 1 of 2/);
    assert.equal(await stored(p), 2, "the turns before it are stored");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("files in the other formats replay (Anthropic's { system, messages } with tool blocks, OpenAI Responses items), and ctxfold's export restores as it was", async () => {
  const { context, errors, page: p } = await fresh();
  const file = (name, data) => ({ name, mimeType: "application/json", buffer: Buffer.from(JSON.stringify(data)) });
  const replayFile = async (name, data) => {
    await p.setInputFiles("#import-file", file(name, data));
    await p.waitForFunction((name) => document.getElementById("replay-name").textContent === name && document.body.dataset.idle === "true", name);
    await p.click("#replay-play");
    await p.waitForFunction(() => document.body.dataset.replay === "done" && document.body.dataset.idle === "true");
    return p.evaluate(async () => {
      const id = document.body.dataset.conversation;
      const c = window.ctxfoldChat.compactor;
      return { id, history: (await c.history(id)).map((e) => e.message), status: await c.status(id) };
    });
  };
  try {
    const anthropic = {
      system: "You are a careful coding agent.",
      messages: [
        { role: "user", content: "Which files are in the repository?" },
        { role: "assistant", content: [{ type: "text", text: "Let me look." }, { type: "tool_use", id: "toolu_1", name: "ls", input: { path: "." } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "README.md\nsrc/\ntests/" }] },
        { role: "assistant", content: [{ type: "text", text: "README.md, src/ and tests/." }] },
      ],
    };
    const a = await replayFile("anthropic.json", anthropic);
    assert.equal(a.status.format, "anthropic");
    assert.deepEqual(a.history, anthropic.messages);
    assert.deepEqual(await p.$$eval("#messages article.msg", (els) => els.map((el) => el.className.replace(/^msg /, ""))), ["user", "assistant", "tool", "assistant"]);
    const responses = [
      { role: "user", content: "What is the weather in Lyon?" },
      { type: "function_call", call_id: "call_1", name: "weather", arguments: '{"city":"Lyon"}' },
      { type: "function_call_output", call_id: "call_1", output: "12 °C, light rain" },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "12 °C and light rain in Lyon." }] },
    ];
    const r = await replayFile("responses.json", responses);
    assert.equal(r.status.format, "openai-responses");
    assert.deepEqual(r.history, responses);
    // ctxfold's export of the Anthropic one, restored: the same history, under an id of its own (the export's is taken).
    const exported = await p.evaluate((id) => window.ctxfoldChat.compactor.export(id), a.id);
    await p.setInputFiles("#import-file", file("export.json", exported));
    await p.waitForSelector("#confirm[open]");
    assert.match(await p.textContent("#confirm-text"), /^A ctxfold export of 4 messages and 0 compactions/);
    await p.click("#confirm-restore");
    await p.waitForFunction((ids) => !ids.includes(document.body.dataset.conversation) && document.body.dataset.idle === "true", [a.id, r.id]);
    const restored = await p.evaluate(async () => {
      const c = window.ctxfoldChat.compactor;
      return (await c.export(document.body.dataset.conversation)).messages;
    });
    assert.deepEqual(restored, exported.messages);
    assert.equal((await conversations(p)).length, 3);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("two tabs on one new conversation: one system message, and each tab shows what the other sent", async () => {
  const { context, errors, page: a, open } = await fresh();
  try {
    const b = await open();
    await send(a, "From tab A.");
    await b.waitForFunction(() => document.body.dataset.stored === "3", null, { timeout: 10_000 });
    await send(b, "From tab B.");
    await a.waitForFunction(() => document.body.dataset.stored === "5", null, { timeout: 10_000 });
    const roles = await a.$$eval("#messages article.msg", (els) => els.map((el) => el.className.replace(/^msg /, "")));
    assert.deepEqual(roles, ["system", "user", "assistant", "user", "assistant"]);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("online, the replies and the summaries come from the endpoint (an OpenAI-compatible double on 127.0.0.1)", async () => {
  const { openai, requests } = llm.scenario([{ reply: "ok", usage: null }]);
  const { context, errors, page: p } = await fresh();
  try {
    assert.equal(await setSettings(p, { "s-offline": false, "s-base": openai, "s-key": "sk-demo-test", "s-window": "4096" }), "");
    for (let i = 0; i < 24; i++) await send(p, `Message ${i}: order ORD-${4000 + i} on pallet P-${i * 7}. ` + "Please keep track of these details for later. ".repeat(12));
    const answers = await replies(p);
    assert.equal(answers.length, 24);
    assert.ok(answers.every((r) => r === SUMMARY), "every reply is the double's answer");
    const chats = requests.filter((r) => r.body.messages?.[0]?.content?.startsWith("You are a helpful assistant in ctxfold's demo chat"));
    const summaries = requests.filter((r) => !chats.includes(r));
    assert.equal(chats.length, 24, "one model call a message");
    assert.ok(requests.every((r) => r.headers.authorization === "Bearer sk-demo-test"));
    assert.ok(summaries.length >= 1, "the compactions asked the endpoint for their summaries");
    const records = await p.evaluate(() => window.ctxfoldChat.compactor.records(document.body.dataset.conversation));
    assert.ok(records.length >= 1 && records.every((r) => r.fallback === null && r.model === "fake-gpt-2026-01-01"), JSON.stringify(records.map((r) => [r.fallback, r.model])));
    assert.match(await p.textContent("#mode"), /^Online/);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("while a slow summary is made, the chat shows a progress card; it gives way to the compaction's divider", async () => {
  const { openai } = llm.scenario([{ reply: "ok", usage: null, delayMs: 700 }]);
  const { context, errors, page: p } = await fresh();
  try {
    assert.equal(await setSettings(p, { "s-offline": false, "s-base": openai, "s-key": "sk-demo-test" }), "");
    for (let i = 0; i < 7; i++) await send(p, `Note ${i}: the build server is ci-${i}.example.test. ` + "Keep it in mind. ".repeat(20));
    await p.fill("#text", "/compact");
    await p.press("#text", "Enter");
    await p.waitForSelector("#messages .progress", { timeout: 10_000 });
    assert.match(await p.textContent("#messages .progress"), /^Summarizing earlier messages · \d+ messages?, [\d,]+ tokens in the input [\d.]+ s$/);
    assert.match(await p.textContent("#timeline .entry.pending"), /summarizing \d+ messages?/, "the timeline shows it under way");
    await p.waitForSelector("#messages .progress", { state: "detached", timeout: 20_000 });
    await idle(p);
    assert.equal(await p.locator("#messages .divider").count(), 1);
    assert.equal(await p.locator("#timeline .entry.pending").count(), 0);
    assert.equal(await p.locator("#timeline .entry").count(), 1);
    assert.match((await notices(p)).at(-1), /^Compacted \(/);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
