// The built-in HTTP summarizers in a Worker in workerd (Miniflare): the cases shared with Node
// and the page (tests/support/summarizer-cases.mjs), run inside the Worker against the LLM
// double on 127.0.0.1 (tests/support/llm-server.mjs), which the Worker reaches with its own
// fetch (Miniflare leaves outbound requests to workerd, which connects directly).
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { Miniflare } from "miniflare";
import { repoRoot } from "../support/paths.mjs";
import { startLlmServer } from "../support/llm-server.mjs";
import { CASES, PROVIDERS, checkCase } from "../support/summarizer-checks.mjs";

let mf, llm;

before(async () => {
  llm = await startLlmServer();
  mf = new Miniflare({
    modules: true,
    scriptPath: fileURLToPath(new URL("./summarizers-worker.mjs", import.meta.url)),
    modulesRoot: repoRoot,
    modulesRules: [
      { type: "ESModule", include: ["**/*.js", "**/*.mjs"] },
      { type: "CompiledWasm", include: ["**/*.wasm"] },
    ],
    // Not later than the workerd build date (Miniflare 4.20260730.0).
    compatibilityDate: "2026-07-01",
  });
  await mf.ready;
});

after(async () => {
  await mf?.dispose();
  await llm?.close();
});

async function call(path, body) {
  const res = await mf.dispatchFetch(`http://localhost${path}`, body && { method: "POST", body: JSON.stringify(body) });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  return JSON.parse(text);
}

test("workerd's global: a ServiceWorkerGlobalScope with fetch and AbortSignal, no Window", async () => {
  const g = await call("/global");
  console.log(`# workerd's global: ${JSON.stringify(g)}`);
  assert.equal(g.fetch, "function");
  assert.equal(g.abortSignal, "function");
  assert.equal(g.window, "undefined");
  assert.equal(g.globalIs, "[object ServiceWorkerGlobalScope]");
});

for (const provider of PROVIDERS) {
  describe(`${provider}: the shared cases, in a Worker`, () => {
    for (const name of CASES) {
      test(name, () => checkCase(llm, provider, name, (urls) => call("/case", { provider, name, urls })));
    }
  });
}
