// The built package inside a Worker in workerd, through Miniflare: the default entry counts
// the cross-runtime fixture like Node, errors keep their name and code, and the lite entry
// loads its vocabularies from Data modules (see worker.mjs).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { Miniflare } from "miniflare";
import { fixture, repoRoot } from "../support/paths.mjs";

let mf;

before(async () => {
  mf = new Miniflare({
    modules: true,
    scriptPath: fileURLToPath(new URL("./worker.mjs", import.meta.url)),
    // Module names are paths below the repository, so the worker can reach pkg/.
    modulesRoot: repoRoot,
    // As wrangler's defaults: .js files are ES modules (Miniflare's own default is CommonJS).
    modulesRules: [
      { type: "ESModule", include: ["**/*.js", "**/*.mjs"] },
      { type: "CompiledWasm", include: ["**/*.wasm"] },
      { type: "Data", include: ["**/*.ctxv"] },
    ],
    // Not later than the workerd build date (Miniflare 4.20260730.0).
    compatibilityDate: "2026-07-01",
  });
  await mf.ready;
});

after(async () => {
  await mf?.dispose();
});

async function call(path, body) {
  const res = await mf.dispatchFetch(`http://localhost${path}`, body && { method: "POST", body: JSON.stringify(body) });
  const json = await res.json();
  assert.equal(res.status, 200, JSON.stringify(json));
  return json;
}

const texts = fixture.cases.map((c) => c.text);

test("countTokens in workerd equals the fixture (Node's numbers)", async () => {
  const { has, counts } = await call("/count", { texts });
  assert.deepEqual(has, [true, true]);
  fixture.cases.forEach(({ name, expected }, i) => assert.deepEqual(counts[i], expected, name));
});

test("errors in workerd have their name and code", async () => {
  const errors = await call("/errors");
  const shape = ({ name, code, isError, guard }) => ({ name, code, isError, guard });
  assert.deepEqual(shape(errors.unknown), { name: "CtxfoldError", code: "UNKNOWN_ENCODING", isError: true, guard: true });
  assert.deepEqual(shape(errors.notString), { name: "TypeError", code: "INVALID_ARGUMENT", isError: true, guard: true });
  assert.deepEqual(shape(errors.noOptions), { name: "TypeError", code: "INVALID_ARGUMENT", isError: true, guard: true });
});

test("ctxfold/lite in workerd loads vocabularies from Data modules", async () => {
  const r = await call("/lite", { texts });
  assert.deepEqual(r.before, [false, false]);
  assert.equal(r.notLoaded?.code, "VOCABULARY_NOT_LOADED", JSON.stringify(r.notLoaded));
  assert.equal(r.notLoaded.name, "CtxfoldError");
  assert.equal(r.noSource?.name, "TypeError", JSON.stringify(r.noSource));
  assert.equal(r.noSource.code, "INVALID_ARGUMENT");
  assert.equal(r.wrongEncoding?.code, "INVALID_VOCABULARY", JSON.stringify(r.wrongEncoding));
  assert.equal(r.corrupt?.code, "INVALID_VOCABULARY", JSON.stringify(r.corrupt));
  assert.deepEqual(r.stillMissing, [false, false]);
  assert.deepEqual(r.after, [true, true]);
  fixture.cases.forEach(({ name, expected }, i) => assert.deepEqual(r.counts[i], expected, name));
});
