// The benchmark's targets, checked on a full run of the benchmark (every conversation of the
// corpus, every window): ctxfold never sends a request over budget or an invalid one; its
// identifier retention and probe coverage are at least the best other library's; between
// compactions its prefix is stable; its own count of each request equals the benchmark's;
// its inputs hold at least the answers the best other's do, for no more uncached tokens.
// Times are printed by the run, never asserted here.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const here = dirname(fileURLToPath(import.meta.url));
const OTHERS = ["LangChain trimMessages", "AI SDK prune+drop"];

test("a full run meets the targets at every window", { timeout: 15 * 60_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "ctxfold-bench-run-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const out = join(dir, "compaction.json");
  const { stdout } = await promisify(execFile)(process.execPath, [join(here, "..", "run.mjs"), "--out", out], {
    maxBuffer: 64 << 20,
  });
  const { meta, summary, results } = JSON.parse(readFileSync(out, "utf8"));
  assert.equal(meta.quick, false);
  assert.deepEqual(meta.ctxfoldOptions, {}, "the defaults are measured");
  for (const { window } of meta.windows) {
    assert.match(stdout, new RegExp(`== Window ${Math.round(window / 1024)}k `));
    const s = summary[window];
    const c = s.ctxfold;
    const label = `${window}`;
    assert.equal(c.over, 0, `${label}: ctxfold over budget`);
    assert.equal(c.invalid, 0, `${label}: ctxfold invalid ${JSON.stringify(c.invalidBy)}`);
    assert.equal(c.countMismatches, 0, `${label}: report.tokensAfter differs from the benchmark's count`);
    for (const [id, p] of Object.entries(c.perConv)) {
      assert.equal(p.breaksWithoutCompaction, 0, `${label} ${id}: prefix broken on a turn that neither compacted nor pruned`);
    }
    // The Compactor is the same engine, stateful: the same input as the stateless row, turn
    // for turn, in every conversation.
    const stateful = s["ctxfold Compactor"];
    assert.equal(stateful.over, 0, `${label}: Compactor over budget`);
    assert.equal(stateful.refused, c.refused, `${label}: Compactor refused`);
    assert.equal(stateful.countMismatches, 0, `${label}: Compactor's report.tokensAfter differs from the benchmark's count`);
    for (const [id, conv] of Object.entries(results[window].ctxfold.conversations)) {
      const digests = (turns) => turns.map((t) => t.digest ?? t.refused);
      assert.deepEqual(digests(results[window]["ctxfold Compactor"].conversations[id].turns), digests(conv.turns), `${label} ${id}: the Compactor's inputs differ from compact()'s`);
    }
    // Retention and coverage: a share over what each method put at risk. A method with
    // nothing at risk lost nothing of it.
    const share = (kept, atRisk) => (atRisk === 0 ? 1 : kept / atRisk);
    for (const other of OTHERS) {
      const o = s[other];
      assert.ok(
        share(c.idsKept, c.idsAtRisk) >= share(o.idsKept, o.idsAtRisk) || o.idsAtRisk === 0,
        `${label}: id retention ${c.idsKept}/${c.idsAtRisk} below ${other}'s ${o.idsKept}/${o.idsAtRisk}`,
      );
      assert.ok(
        share(c.probesCovered, c.probesAtRisk) >= share(o.probesCovered, o.probesAtRisk) || o.probesAtRisk === 0,
        `${label}: probe coverage ${c.probesCovered}/${c.probesAtRisk} below ${other}'s ${o.probesCovered}/${o.probesAtRisk}`,
      );
    }
  }
  // Answers in input or one compactor.search away, over all probes (the run prints them per
  // source too).
  for (const [window, target] of [
    [8192, 0.8],
    [32768, 0.995],
  ]) {
    const r = summary[window]?.["ctxfold Compactor"].recall?.all;
    if (!r) continue;
    assert.ok((r[1] + r[2]) / r[0] >= target, `${window}: answers in input or one recall away ${r[1] + r[2]}/${r[0]} below ${target}`);
  }
  // The model keeps what the others keep, for fewer uncached tokens.
  const uncached = (a) => a.totalTokens - a.cached;
  const answers = (a) => a.probesAnswered / a.probesAsked;
  for (const { window } of meta.windows) {
    const s = summary[window];
    const c = s.ctxfold;
    const label = `${window}`;
    const best = Math.max(...OTHERS.map((o) => answers(s[o])));
    assert.ok(answers(c) >= best, `${label}: answers in input ${answers(c)} below the best other's ${best}`);
    const cheapest = Math.min(...OTHERS.map((o) => uncached(s[o])));
    // Sending every history whole, nothing can send less without dropping messages.
    const whole = c.compactions === 0 && c.pruneAdvances === 0 && uncached(c) === uncached(s["no compaction"]);
    assert.ok(uncached(c) <= cheapest || whole, `${label}: ${uncached(c)} uncached tokens, the cheapest other ${cheapest}`);
    if (window <= 8192) {
      const keeper = OTHERS.reduce((b, o) => (answers(s[o]) > answers(s[b]) ? o : b));
      assert.ok(3 * uncached(c) <= uncached(s[keeper]), `${label}: ${uncached(c)} uncached tokens, more than 1/3 of ${keeper}'s ${uncached(s[keeper])}`);
    }
    const floor = window <= 8192 ? 0.85 : 0.95;
    if (c.idsAtRisk > 0) assert.ok(c.idsKept / c.idsAtRisk >= floor, `${label}: id retention ${c.idsKept}/${c.idsAtRisk} below ${floor}`);
    if (window >= 131072) assert.ok(c.idsPresent / c.idsSeen >= 0.995, `${label}: ids in input ${c.idsPresent}/${c.idsSeen}`);
  }
  assert.match(stdout, /== Summary/);
  assert.match(stdout, /ctxfold requests that do not extend the previous one although that turn neither compacted nor advanced pruning: 8k 0, 32k 0, 128k 0/);
});
