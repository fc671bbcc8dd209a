// The built package in a real page in headless Chromium (Debian's /usr/bin/chromium driven
// by playwright-core; no browser is downloaded). The page imports "ctxfold" and
// "ctxfold/lite" through an import map, as a site without a bundler would, from a static
// server on 127.0.0.1 that serves the repository; the test reads results back with
// page.evaluate.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { countMessages, plan } from "ctxfold";
import { launchChromium } from "../support/chromium.mjs";
import { fixture, repoRoot } from "../support/paths.mjs";
import { startStaticServer } from "../support/static-server.mjs";


const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>ctxfold page test</title>
<link rel="icon" href="data:,">
<script type="importmap">{"imports":{"ctxfold":"/pkg/browser.js","ctxfold/lite":"/pkg/lite/browser.js","ctxfold/ai-sdk":"/pkg/ai-sdk/browser.js"}}</script>
<script type="module">
  import * as ctxfold from "ctxfold";
  window.ctxfold = ctxfold;
  window.ready = true;
</script>
`;

let server, browser, page;
const problems = [];

before(async () => {
  server = await startStaticServer(repoRoot, { "/test.html": PAGE });
  browser = await launchChromium();
  page = await browser.newPage();
  page.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
  page.on("console", (msg) => {
    if (msg.type() === "error" || msg.type() === "warning") problems.push(`console.${msg.type()}: ${msg.text()}`);
  });
  await page.goto(`${server.url}/test.html`);
  await page.waitForFunction(() => window.ready === true, null, { timeout: 30_000 });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test("the page loads the package without errors or warnings", () => {
  // wasm-bindgen warns when the .wasm is not served as application/wasm, for instance.
  assert.deepEqual(problems, []);
  assert.ok(server.requests.includes("/pkg/dist/full/ctxfold_bg.wasm"), server.requests.join(" "));
});

test("countTokens in the page equals the fixture (Node's numbers)", async () => {
  const counts = await page.evaluate(
    ({ cases, encodings }) =>
      cases.map(({ text }) => Object.fromEntries(encodings.map((e) => [e, window.ctxfold.countTokens(text, { encoding: e })]))),
    fixture,
  );
  fixture.cases.forEach(({ name, expected }, i) => assert.deepEqual(counts[i], expected, name));
});

test("errors in the page have their name and code", async () => {
  const errors = await page.evaluate(() => {
    const { countTokens, isCtxfoldError } = window.ctxfold;
    const capture = (f) => {
      try {
        f();
        return null;
      } catch (e) {
        return { name: e.name, code: e.code, isError: e instanceof Error, guard: isCtxfoldError(e) };
      }
    };
    return {
      unknown: capture(() => countTokens("x", { encoding: "p50k_base" })),
      notString: capture(() => countTokens(42, { encoding: "o200k_base" })),
      noOptions: capture(() => countTokens("x")),
    };
  });
  assert.deepEqual(errors.unknown, { name: "CtxfoldError", code: "UNKNOWN_ENCODING", isError: true, guard: true });
  assert.deepEqual(errors.notString, { name: "TypeError", code: "INVALID_ARGUMENT", isError: true, guard: true });
  assert.deepEqual(errors.noOptions, { name: "TypeError", code: "INVALID_ARGUMENT", isError: true, guard: true });
});

test("ctxfold/ai-sdk in the page: a streamed call's prompt fits and its usage is kept", async () => {
  const r = await page.evaluate(async () => {
    const { compactionMiddleware } = await import("ctxfold/ai-sdk");
    const { streamThrough } = await import("/tests/support/ai-sdk-smoke.mjs");
    const summary = "## Conversation Summary\n- **Decisions:** None\n- **Entities:** None\n- **Facts:** The build logs were read.\n- **Open Items:** None";
    return streamThrough(compactionMiddleware, async () => summary);
  });
  const budget = plan([], { model: "gpt-4o", contextWindow: 8192 }).budget.input;
  const tokens = countMessages(r.sent, { model: "gpt-4o", format: "ai-sdk" }).total;
  assert.ok(tokens <= budget, `${tokens} tokens over ${budget}`);
  assert.equal(r.newestKept, true);
  assert.equal(r.streamedAsIs, true);
  assert.ok(r.summaries.length > 0 && r.summaries.every((s) => s.maxOutputTokens === 512 && s.signal));
  assert.equal(r.status.contextStatus, "summarized");
  assert.equal(r.status.usage.inputTokens, 4321);
  assert.equal(r.status.usage.estimate, tokens);
  assert.ok(server.requests.includes("/pkg/ai-sdk/browser.js"));
});

test("ctxfold/lite fetches the default vocabulary URL and then counts like Node", async () => {
  const result = await page.evaluate(async ({ cases }) => {
    const lite = await import("ctxfold/lite");
    const out = { before: lite.hasVocabulary("o200k_base") };
    try {
      lite.countTokens("hello", { encoding: "o200k_base" });
    } catch (e) {
      out.notLoaded = { name: e.name, code: e.code };
    }
    await lite.loadVocabulary("o200k_base");
    await lite.loadVocabulary("cl100k_base");
    out.after = lite.hasVocabulary("o200k_base") && lite.hasVocabulary("cl100k_base");
    out.counts = cases.map(({ text }) => ({
      o200k_base: lite.countTokens(text, { encoding: "o200k_base" }),
      cl100k_base: lite.countTokens(text, { encoding: "cl100k_base" }),
    }));
    return out;
  }, fixture);
  assert.equal(result.before, false);
  assert.deepEqual(result.notLoaded, { name: "CtxfoldError", code: "VOCABULARY_NOT_LOADED" });
  assert.equal(result.after, true);
  fixture.cases.forEach(({ name, expected }, i) => assert.deepEqual(result.counts[i], expected, name));
  // The default source is the file shipped beside the entry: /pkg/vocab/, fetched by the page.
  assert.ok(server.requests.includes("/pkg/vocab/o200k_base.ctxv"), server.requests.join(" "));
  assert.ok(server.requests.includes("/pkg/vocab/cl100k_base.ctxv"), server.requests.join(" "));
  assert.ok(server.requests.includes("/pkg/dist/lite/ctxfold_bg.wasm"));
});

test("bad vocabulary sources in a fresh page are typed errors (VOCABULARY_UNAVAILABLE, INVALID_VOCABULARY)", async () => {
  // A new page has its own module instances, so nothing is loaded in it yet.
  const fresh = await browser.newPage();
  try {
    fresh.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
    await fresh.goto(`${server.url}/test.html`);
    await fresh.waitForFunction(() => window.ready === true, null, { timeout: 30_000 });
    const errors = await fresh.evaluate(async () => {
      const lite = await import("ctxfold/lite");
      const capture = async (source) => {
        try {
          await lite.loadVocabulary("o200k_base", source);
          return null;
        } catch (e) {
          return { name: e.name, code: e.code, message: e.message };
        }
      };
      return {
        missing: await capture("/pkg/vocab/missing.ctxv"),
        wrongEncoding: await capture(new URL("/pkg/vocab/cl100k_base.ctxv", location.href)),
        notBytes: await capture(42),
        stillMissing: lite.hasVocabulary("o200k_base"),
      };
    });
    assert.equal(errors.missing.code, "VOCABULARY_UNAVAILABLE", errors.missing.message);
    assert.match(errors.missing.message, /404/);
    assert.equal(errors.wrongEncoding.name, "CtxfoldError");
    assert.equal(errors.wrongEncoding.code, "INVALID_VOCABULARY", errors.wrongEncoding.message);
    assert.equal(errors.notBytes.name, "TypeError");
    assert.equal(errors.notBytes.code, "INVALID_ARGUMENT");
    assert.equal(errors.stillMissing, false);
  } finally {
    await fresh.close();
  }
  // The 404 makes Chromium log a failed resource load; nothing else may appear.
  assert.deepEqual(
    problems.filter((p) => !/Failed to load resource.*404/.test(p)),
    [],
  );
});
