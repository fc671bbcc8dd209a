// The built-in HTTP summarizers in a page in headless Chromium: the cases shared with Node and
// the Worker (tests/support/summarizer-cases.mjs), run in the page against the LLM double on
// 127.0.0.1 (tests/support/llm-server.mjs). The page comes from another origin (the static
// server's port), so every call is a cross-origin fetch: the double answers the preflight
// and exposes retry-after, as an API must for a page to call it.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { launchChromium } from "../support/chromium.mjs";
import { repoRoot } from "../support/paths.mjs";
import { startStaticServer } from "../support/static-server.mjs";
import { startLlmServer } from "../support/llm-server.mjs";
import { CASES, PROVIDERS, checkCase } from "../support/summarizer-checks.mjs";

const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>ctxfold summarizers test</title>
<link rel="icon" href="data:,">
<script type="importmap">{"imports":{"ctxfold":"/pkg/browser.js"}}</script>
<script type="module">
  import * as ctxfold from "ctxfold";
  import * as cases from "/tests/support/summarizer-cases.mjs";
  window.run = (provider, name, urls) => cases.runCase(ctxfold, provider, name, urls);
  window.ready = true;
</script>
`;

let server, llm, browser, page;
const problems = [];

before(async () => {
  llm = await startLlmServer();
  server = await startStaticServer(repoRoot, { "/summarizers.html": PAGE });
  browser = await launchChromium();
  page = await browser.newPage();
  page.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
  page.on("console", (msg) => {
    if (msg.type() === "error" || msg.type() === "warning") problems.push(`console.${msg.type()}: ${msg.text()}`);
  });
  await page.goto(`${server.url}/summarizers.html`);
  await page.waitForFunction(() => window.ready === true, null, { timeout: 30_000 });
});

after(async () => {
  await browser?.close();
  await server?.close();
  await llm?.close();
});

for (const provider of PROVIDERS) {
  describe(`${provider}: the shared cases, in the page`, () => {
    for (const name of CASES) {
      test(name, () =>
        checkCase(llm, provider, name, (urls) =>
          page.evaluate(([p, n, u]) => window.run(p, n, u), [provider, name, urls]),
        ),
      );
    }
  });
}

test("the calls were cross-origin: preflights answered, nothing on the console but the failed loads", () => {
  assert.ok(llm.preflights.length > 0, "no preflight reached the server");
  assert.ok(llm.preflights.some((p) => /authorization/.test(p.headers ?? "")), JSON.stringify(llm.preflights));
  assert.ok(llm.preflights.some((p) => /x-api-key/.test(p.headers ?? "")), JSON.stringify(llm.preflights));
  // Chromium logs every non-2xx response and every aborted request; nothing else may appear.
  const other = problems.filter((p) => !/Failed to load resource: the server responded with a status of (401|429|500)/.test(p));
  assert.deepEqual(other, []);
});
