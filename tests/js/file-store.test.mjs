// The --store directory of `ctxfold replay`: FileStore (pkg/bin/file-store.mjs) keeps the store
// contract, and several processes writing one conversation at once lose nothing.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { Compactor } from "ctxfold";
import { checkStore } from "ctxfold/testing";
import { pkgDir } from "../support/paths.mjs";

const execFileP = promisify(execFile);
const { FileStore } = await import(pathToFileURL(join(pkgDir, "bin", "file-store.mjs")).href);

let dir;
const at = (name) => join(dir, name);
before(() => {
  dir = mkdtempSync(join(tmpdir(), "ctxfold-file-store-"));
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe("the --store directory's FileStore", () => {
  test("keeps the store contract", async () => {
    const storeDir = at("conformance");
    const results = await checkStore(() => new FileStore(storeDir));
    assert.ok(results.length >= 10);
    for (const r of results) assert.ok(r.ok, `${r.name}: ${r.error}`);
  });

  test("four processes writing one conversation at once lose nothing and repeat nothing", async () => {
    const storeDir = at("processes");
    const script = `
      import { Compactor } from ${JSON.stringify(pathToFileURL(join(pkgDir, "node.js")).href)};
      import { FileStore } from ${JSON.stringify(pathToFileURL(join(pkgDir, "bin", "file-store.mjs")).href)};
      const [dir, who] = process.argv.slice(1);
      const compactor = new Compactor({ model: "gpt-4o", store: new FileStore(dir), writeRetries: 100 });
      for (let i = 0; i < 10; i++) await compactor.prepare("shared", [{ role: "user", content: who + " " + i }]);
    `;
    await Promise.all(["a", "b", "c", "d"].map((who) => execFileP(process.execPath, ["--input-type=module", "-e", script, storeDir, who], { timeout: 120_000 })));
    const history = (await new Compactor({ model: "gpt-4o", store: new FileStore(storeDir) }).history("shared")).map((e) => e.message.content);
    assert.equal(history.length, 40);
    assert.equal(new Set(history).size, 40);
    for (const who of ["a", "b", "c", "d"]) {
      assert.deepEqual(
        history.filter((c) => c.startsWith(`${who} `)),
        Array.from({ length: 10 }, (_, i) => `${who} ${i}`),
      );
    }
  });

  test("a write that fails leaves nothing behind, and a store file that is not one is named", async () => {
    const storeDir = at("leftovers");
    const store = new FileStore(storeDir);
    const meta = (version, length) => ({ version, length });
    await store.write("c", 0, { start: 0, messages: [{ role: "user", content: "hi" }], summaries: [], records: [], meta: meta(7, 1) });
    await assert.rejects(store.write("c", 6, { start: 1, messages: [{ role: "user", content: "no" }], summaries: [], records: [], meta: meta(7, 2) }), (e) => e.code === "STALE_WRITE");
    // A meta that cannot be written as JSON fails the write after its messages' part was
    // written: the part goes too.
    const cyclic = meta(8, 2);
    cyclic.self = cyclic;
    await assert.rejects(store.write("c", 7, { start: 1, messages: [{ role: "user", content: "lost" }], summaries: [], records: [], meta: cyclic }), TypeError);
    const [folder] = readdirSync(storeDir);
    assert.deepEqual(readdirSync(join(storeDir, folder)).filter((f) => !f.startsWith("part-")), ["head-000000000001.json"]);
    assert.equal(readdirSync(join(storeDir, folder)).filter((f) => f.startsWith("part-")).length, 1);
    assert.deepEqual(await store.messages("c", 0), [{ role: "user", content: "hi" }]);
    assert.deepEqual(await store.load("c"), meta(7, 1));
    writeFileSync(join(storeDir, folder, "head-000000000002.json"), "{ not json");
    await assert.rejects(store.load("c"), (e) => /head-000000000002\.json is not a ctxfold store file/.test(e.message));
  });
});
