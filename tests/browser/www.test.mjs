// The demo page (www/) in headless Chromium: it loads the bundled sample, shows the
// context meter, and replaying the transcript turn by turn at an 8k window shows
// compactions, with a summary in the model input and no page errors.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launchChromium } from "../support/chromium.mjs";
import { repoRoot } from "../support/paths.mjs";
import { startStaticServer } from "../support/static-server.mjs";


let server, browser, page;
const problems = [];

before(async () => {
  server = await startStaticServer(repoRoot, {});
  browser = await launchChromium();
  page = await browser.newPage();
  page.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
  page.on("console", (msg) => msg.type() === "error" && problems.push(`console.error: ${msg.text()}`));
  await page.goto(`${server.url}/www/index.html`);
  await page.waitForFunction(() => document.body.dataset.ready === "true", null, { timeout: 30_000 });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test("the page is styled and the meter is drawn", async () => {
  // The stylesheet applied: the meter is a visible bar and its fill has a width.
  const box = await page.locator("#meter").boundingBox();
  assert.ok(box && box.height >= 15 && box.width > 300, JSON.stringify(box));
  // The fill's width is animated (a 0.3 s transition): wait for it to arrive.
  await page.waitForFunction(() => {
    const [meter, fill] = ["meter", "fill"].map((id) => document.getElementById(id).getBoundingClientRect());
    return fill.width > 0.8 * meter.width;
  }, null, { timeout: 5_000 });
});

test("the meter shows the sample's tokens against the budget", async () => {
  const reading = await page.textContent("#reading");
  assert.match(reading, /^14,057 of 15,360 input tokens \(window 16,384/, reading);
  assert.match(await page.textContent("#roles"), /tool 5,515/);
  assert.deepEqual(problems, []);
});

test("replaying at an 8k window shows each compaction", async () => {
  await page.fill("#window", "8192");
  await page.dispatchEvent("#window", "change");
  await page.click("#replay");
  await page.waitForFunction(() => document.body.dataset.replayed === "true", null, { timeout: 60_000 });
  const log = await page.$$eval("#log li", (items) => items.map((li) => li.textContent));
  assert.ok(log.length >= 1, "at least one compaction");
  assert.match(log[0], /^turn \d+: Compacted \([\d,]+ -> [\d,]+\)/);
  assert.ok(await page.$(".msg.summary"), "the summary is in the model input");
  const reading = await page.textContent("#reading");
  const [used, budget] = reading.match(/^([\d,]+) of ([\d,]+)/).slice(1).map((x) => Number(x.replace(/,/g, "")));
  assert.ok(used <= budget, reading);
  assert.deepEqual(problems, []);
});

test("messages ctxfold refuses are said as they are typed; JSON not finished yet is not an error", async () => {
  await page.fill("#input", '[{"role":"user"},{"role":"wizard","content":"x"}]');
  assert.match(await page.textContent("#reading"), /INVALID_MESSAGE/);
  await page.fill("#input", '[{"role":"user","content":"hel');
  assert.equal(await page.textContent("#reading"), "(not JSON yet)");
  await page.fill("#input", '[{"role":"user","content":"hello"}]');
  assert.match(await page.textContent("#reading"), /^\d+ of [\d,]+ input tokens/);
  assert.deepEqual(problems, []);
});
