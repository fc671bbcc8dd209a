// The fuzzer's share of CI: a fixed seed's first cases (about a minute on a shared 2-core
// machine), then every saved regression case in tests/fuzz/regressions/. A failure lists
// each failing case with the command that runs it alone; its input is written to
// tests/fuzz/failures/. More cases or another seed: CTXFOLD_FUZZ_CASES, CTXFOLD_FUZZ_SEED,
// or run.mjs directly (`node tests/fuzz/run.mjs --cases 20000`).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot, runFuzz } from "./session.mjs";

const CASES = Number(process.env.CTXFOLD_FUZZ_CASES ?? 1000);
const SEED = Number(process.env.CTXFOLD_FUZZ_SEED ?? 1);
const outDir = join(repoRoot, "tests/fuzz/failures");

test(`${CASES} generated cases, seed ${SEED}`, { timeout: 20 * 60_000 }, async (t) => {
  const lines = [];
  const { failed, summary } = await runFuzz({ seed: SEED, cases: CASES, outDir, log: (l) => lines.push(l) });
  t.diagnostic(summary);
  assert.equal(failed.length, 0, `${failed.length} failing cases:\n${lines.join("\n")}\n${summary}`);
});

const regressions = join(repoRoot, "tests/fuzz/regressions");
for (const name of readdirSync(regressions).filter((n) => n.endsWith(".json")).sort()) {
  const file = join(regressions, name);
  const saved = JSON.parse(readFileSync(file, "utf8"));
  test(`regression ${name}: ${saved.about ?? ""}`, async () => {
    const lines = [];
    const { failed } = await runFuzz({ files: [{ file, desc: saved.desc }], outDir: null, log: (l) => lines.push(l) });
    assert.equal(failed.length, 0, lines.join("\n"));
  });
}
