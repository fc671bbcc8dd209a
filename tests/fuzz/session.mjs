// A fuzzing run: the cases of a seed (or one case, or replayed files) through the worker
// pool, each failure printed with the command that reproduces it and written as JSON,
// then a summary: cases per format, failing cases per kind and check, the slowest cases.
import { mkdirSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { generateCase } from "./cases.mjs";
import { runJobs } from "./pool.mjs";

export const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
export const KINDS = ["hang", "crash", "trap", "untyped-error", "rejected-valid", "accepted-invalid", "wrong-code", "broken-after-error", "invariant", "harness"];

/** The command that runs one case again. */
export function reproCommand(job) {
  if (job.file) return `node tests/fuzz/run.mjs --replay ${relative(repoRoot, job.file)}`;
  return `node tests/fuzz/run.mjs --seed ${job.seed} --only-case ${job.index}${job.filter ? ` --format ${job.filter}` : ""}`;
}

const label = (job) => (job.file ? relative(repoRoot, job.file) : `case ${job.index}`);
const mb = (bytes) => (bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${(bytes / 1e3).toFixed(1)} KB`);

/** Writes a failing case's input and failures; returns the file's path. */
function writeFailure(outDir, job, result) {
  mkdirSync(outDir, { recursive: true });
  const desc = job.desc ?? generateCase(job.seed, job.index, job.filter);
  const name = job.file ? `replay-${Date.now()}` : `seed-${job.seed}-case-${job.index}${job.filter ? `-${job.filter}` : ""}`;
  const path = join(outDir, `${name}.json`);
  writeFileSync(path, JSON.stringify({ command: reproCommand(job), failures: result.failures, desc }, null, 1));
  return path;
}

/**
 * Runs cases. Options: `seed`, `cases`, `start`, `filter` (a format), `only` (one case
 * index), `files` (`[{ file, desc }]` to replay), `workers`, `timeoutMs`, `outDir` (where
 * failing inputs go; null: nowhere), `log` (a line printer), `verbose` (every failure of a
 * case, not the first three). Resolves with `{ results, failed, summary }`.
 */
export async function runFuzz(o) {
  const { seed = 1, cases = 1000, start = 0, filter = null, only = null, files = null, workers = 1, timeoutMs = 10_000, outDir = null, log = console.log, verbose = false } = o;
  const jobs = files
    ? files.map(({ file, desc }) => ({ file, desc }))
    : only !== null
      ? [{ seed, index: only, filter }]
      : Array.from({ length: cases }, (_, k) => ({ seed, index: start + k, filter }));
  const began = performance.now();
  let done = 0;
  const results = await runJobs(jobs, {
    workers,
    timeoutMs,
    onResult(job, result) {
      done++;
      if (o.progress && done % o.progress === 0) log(`.. ${done}/${jobs.length} cases, ${((performance.now() - began) / 1000).toFixed(0)} s`);
      if (!result.failures.length) return;
      const path = outDir ? writeFailure(outDir, job, result) : null;
      const shown = verbose ? result.failures : result.failures.slice(0, 3);
      log(`FAIL ${label(job)} (${result.format} ${result.kind}, ${result.size.messages} messages, ${mb(result.size.bytes)})`);
      for (const f of shown) log(`  ${f.kind}: ${f.check}${f.step ? ` [${f.step}]` : ""}: ${f.message.split("\n").slice(0, verbose ? 20 : 2).join(" | ")}`);
      if (result.failures.length > shown.length) log(`  ... ${result.failures.length - shown.length} more`);
      log(`  repro: ${reproCommand(job)}`);
      if (path) log(`  input: ${relative(repoRoot, path)}`);
    },
  });
  const seconds = (performance.now() - began) / 1000;
  const failed = results.map((r, k) => ({ job: jobs[k], result: r })).filter((x) => x.result.failures.length);
  return { results, failed, summary: summarize(jobs, results, seconds, seed) };
}

/** The summary text. */
export function summarize(jobs, results, seconds, seed) {
  const tally = (key) => {
    const m = new Map();
    for (const r of results) m.set(key(r), (m.get(key(r)) ?? 0) + 1);
    return [...m].map(([k, n]) => `${k} ${n}`).join(", ");
  };
  const lines = [];
  const what = jobs[0]?.file ? "replayed" : `seed ${seed}${jobs[0]?.filter ? `, ${jobs[0].filter} only` : ""}`;
  lines.push(`fuzz: ${results.length} cases (${what}) in ${seconds.toFixed(1)} s: ${tally((r) => r.format)}; ${tally((r) => r.kind)}`);
  const byKind = new Map(KINDS.map((k) => [k, 0]));
  const byCheck = new Map();
  results.forEach((r, k) => {
    for (const kind of new Set(r.failures.map((f) => f.kind))) byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
    for (const key of new Set(r.failures.map((f) => `${f.kind}: ${f.check}`))) {
      const e = byCheck.get(key) ?? { n: 0, first: label(jobs[k]) };
      e.n++;
      byCheck.set(key, e);
    }
  });
  const seen = new Map();
  for (const r of results) for (const w of r.seen ?? []) seen.set(w, (seen.get(w) ?? 0) + 1);
  lines.push(`exercised: ${[...seen].sort((a, b) => b[1] - a[1]).map(([w, n]) => `${w} ${n}`).join(", ")}`);
  const failing = results.filter((r) => r.failures.length).length;
  lines.push(`failures: ${failing} cases: ${[...byKind].map(([k, n]) => `${k} ${n}`).join(", ")}`);
  for (const [key, e] of [...byCheck].sort((a, b) => b[1].n - a[1].n)) lines.push(`  ${String(e.n).padStart(5)}  ${key} (first: ${e.first})`);
  lines.push("slowest:");
  const slow = results.map((r, k) => ({ r, k })).sort((a, b) => b.r.ms - a.r.ms).slice(0, 10);
  for (const { r, k } of slow) {
    lines.push(`  ${r.ms.toFixed(0).padStart(7)} ms  ${label(jobs[k])}  ${r.format} ${r.kind}, ${r.size.messages} messages, ${mb(r.size.bytes)}${r.failures.length ? ` (${r.failures[0].kind})` : ""}`);
  }
  return lines.join("\n");
}
