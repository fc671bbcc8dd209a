// The docs' browser blocks that only a browser runs (docs/browser-indexeddb.md, each marked
// <!-- check: page tests/browser/docs.test.mjs -->), in headless Chromium as written:
// - the ```html page with its import map of /node_modules/ctxfold/browser.js: the tests/
//   folder is served, whose node_modules/ctxfold is the link to pkg/ (as a site's would be);
// - the ```js module Worker: loaded by a page with new Worker(url, { type: "module" }),
//   "ctxfold" replaced by browser.js's URL as the block's comment says a worker needs (it
//   does not see the page's import map); a message posted before the package has loaded
//   must still be answered.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { launchChromium } from "../support/chromium.mjs";
import { testsDir } from "../support/paths.mjs";
import { checkedBy, where } from "../support/doc-blocks.mjs";
import { startStaticServer } from "../support/static-server.mjs";

const [html] = checkedBy("tests/browser/docs.test.mjs", "html");
const [worker] = checkedBy("tests/browser/docs.test.mjs", "js");
let dir, server, browser;

before(async () => {
  dir = mkdtempSync(join(testsDir, ".docs-browser-"));
  writeFileSync(join(dir, "worker.js"), worker.code.replace('import("ctxfold")', 'import("/node_modules/ctxfold/browser.js")'));
  const host = `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><script type="module">
    const w = new Worker("/${basename(dir)}/worker.js", { type: "module" });
    w.onmessage = ({ data }) => { window.answer = data; };
    w.onerror = (e) => { window.answer = "error: " + e.message; };
    w.postMessage("Hello, world!"); // before the worker has loaded ctxfold
  </script>`;
  // The block is a page fragment with no icon: the browser asks for /favicon.ico, answered here.
  server = await startStaticServer(testsDir, { "/docs-page.html": html.code, "/docs-worker.html": host, "/favicon.ico": "" });
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function open(path) {
  const page = await browser.newPage();
  const logs = [];
  const problems = [];
  page.on("console", (msg) => (msg.type() === "error" || msg.type() === "warning" ? problems : logs).push(msg.text()));
  page.on("pageerror", (err) => problems.push(err.message));
  await page.goto(`${server.url}${path}`);
  return { page, logs, problems };
}

test(`${where(html)}: the page with an import map counts, as written`, async () => {
  assert.match(html.code, /"ctxfold": "\/node_modules\/ctxfold\/browser\.js"/);
  const { page, logs, problems } = await open("/docs-page.html");
  for (let i = 0; i < 100 && logs.length === 0 && problems.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(problems, []);
  assert.deepEqual(logs, ["4"]);
  await page.close();
});

test(`${where(worker)}: the module Worker answers a message sent before it loaded ctxfold`, async () => {
  assert.match(worker.code, /import\("ctxfold"\)/);
  const { page, problems } = await open("/docs-worker.html");
  await page.waitForFunction(() => window.answer !== undefined, null, { timeout: 30_000 });
  assert.equal(await page.evaluate(() => window.answer), 4);
  assert.deepEqual(problems, []);
  await page.close();
});
