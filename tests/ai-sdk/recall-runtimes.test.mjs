// The recall tool's agent loop (lib/recall-loop.mjs: ai 6's generateText, its
// MockLanguageModelV3 scripted to call recall with a corpus probe's question) where users run
// it: in real workerd (Miniflare) over durableObjectStore, again after workerd restarts on the
// storage it left; and in real headless Chromium over IndexedDBStore, again after a reload.
// The conversation and probe are recall.test.mjs's (lib/recall-probe.mjs), at an 8k window:
// the message with the probe's answer was summarized away, and comes back in the tool result.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import { repoRoot } from "../support/paths.mjs";
import { launchChromium } from "../support/chromium.mjs";
import { startStaticServer } from "../support/static-server.mjs";
import { evidence, modelMessages, probe } from "./lib/recall-probe.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));

/** What every runtime's loop must give: the answer back in the recall tool's result. */
function checkLoop(r, where) {
  assert.ok(!r.error, `${where}: ${JSON.stringify(r.error)}`);
  assert.ok(r.summarized, `${where}: the input holds a summary`);
  assert.ok(r.outOfInput.includes(evidence), `${where}: the evidence (message ${evidence}) is out of the input`);
  assert.equal(r.calls, 2, `${where}: one model call for the recall, one after it`);
  assert.equal(r.text, "Found it.");
  assert.equal(r.recalled.length, 1, `${where}: one recall result`);
  assert.ok(r.recalled[0].includes(probe.answer), `${where}: the answer ${JSON.stringify(probe.answer)} is in the tool result:\n${r.recalled[0]}`);
  assert.ok(r.recalled[0].includes(`[message ${evidence}, tool]`), `${where}: the evidence message, by its index`);
}

before(async () => {
  // ai 6 and its test helpers as one ES module, as a Worker or a page bundles them.
  mkdirSync(join(here, ".bundle"), { recursive: true });
  await build({
    stdin: { contents: 'export { generateText, jsonSchema, stepCountIs } from "ai6";\nexport { MockLanguageModelV3 } from "ai6/test";\n', resolveDir: here, loader: "js" },
    bundle: true,
    format: "esm",
    platform: "browser",
    conditions: ["workerd", "worker"],
    outfile: join(here, ".bundle/ai.mjs"),
    logLevel: "error",
  });
});

describe("workerd", () => {
  const persist = mkdtempSync(join(tmpdir(), "ctxfold-recall-do-"));
  after(() => rmSync(persist, { recursive: true, force: true }));
  const start = () =>
    new Miniflare({
      modules: true,
      scriptPath: join(here, "recall-worker.mjs"),
      modulesRoot: repoRoot,
      modulesRules: [
        { type: "ESModule", include: ["**/*.js", "**/*.mjs"] },
        { type: "CompiledWasm", include: ["**/*.wasm"] },
      ],
      durableObjects: { CHAT: { className: "Chat", useSQLite: true } },
      durableObjectsPersist: persist,
      compatibilityDate: "2026-07-01",
    });
  const loop = async (mf, body) => {
    const res = await mf.dispatchFetch("http://localhost/", { method: "POST", body: JSON.stringify(body) });
    return res.json();
  };

  test("generateText with the recall tool over durableObjectStore gets the summarized evidence back, and again after a restart", async () => {
    let mf = start();
    try {
      checkLoop(await loop(mf, { id: "c", messages: modelMessages(), question: probe.question }), "workerd");
    } finally {
      await mf.dispose();
    }
    mf = start();
    try {
      checkLoop(await loop(mf, { id: "c", question: probe.question }), "workerd after a restart");
    } finally {
      await mf.dispose();
    }
  });
});

describe("Chromium", () => {
  const PAGE = `<!doctype html>
<meta charset="utf-8">
<link rel="icon" href="data:,">
<script type="importmap">{"imports":{"ctxfold":"/pkg/browser.js"}}</script>
<script type="module">
  import * as ctxfold from "ctxfold";
  import * as ai from "/tests/ai-sdk/.bundle/ai.mjs";
  import { recallLoop } from "/tests/ai-sdk/lib/recall-loop.mjs";
  const compactor = () => new ctxfold.Compactor({ model: "gpt-4o", contextWindow: 8192, store: new ctxfold.IndexedDBStore({ database: "recall-loop" }), recall: true });
  window.loop = async (messages, question) => {
    if (messages) await compactor().prepare("c", messages);
    return recallLoop(ai, compactor(), "c", question);
  };
  window.ready = true;
</script>
`;
  let server, browser;
  const problems = [];
  before(async () => {
    server = await startStaticServer(repoRoot, { "/recall-loop.html": PAGE });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test("generateText with the recall tool over IndexedDBStore gets the summarized evidence back, and again after a reload", async () => {
    const ctx = await browser.newContext();
    try {
      const page = await ctx.newPage();
      page.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
      await page.goto(`${server.url}/recall-loop.html`);
      await page.waitForFunction(() => window.ready === true, null, { timeout: 30_000 });
      const run = (messages) => page.evaluate(([m, q]) => window.loop(m, q).catch((e) => ({ error: { message: e.message, code: e.code } })), [messages, probe.question]);
      checkLoop(await run(modelMessages()), "Chromium");
      await page.reload();
      await page.waitForFunction(() => window.ready === true, null, { timeout: 30_000 });
      checkLoop(await run(null), "Chromium after a reload");
      assert.deepEqual(problems, []);
    } finally {
      await ctx.close();
    }
  });
});
