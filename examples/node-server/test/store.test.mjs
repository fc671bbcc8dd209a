// The SQLite store keeps ctxfold's store contract (ctxfold/testing), on a database file.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkStore } from "ctxfold/testing";
import { SqliteStore } from "../store.js";

test("SqliteStore passes ctxfold/testing's store contract", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "ctxfold-sqlite-"));
  const store = new SqliteStore(join(dir, "contract.db"));
  t.after(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const results = await checkStore(() => store);
  assert.ok(results.length >= 10, `${results.length} cases`);
  const failed = results.filter((r) => !r.ok);
  assert.deepEqual(failed, [], failed.map((r) => `${r.name}: ${r.error}`).join("\n"));
});
