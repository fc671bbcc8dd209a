#!/usr/bin/env node
// The fuzzer of ctxfold's JS API, from the command line.
//
//   node tests/fuzz/run.mjs --cases N --seed S [--format F] [--start K]
//   node tests/fuzz/run.mjs --seed S --only-case K [--format F] [--shrink]
//   node tests/fuzz/run.mjs --replay FILE... [--shrink]
//
// Options: --jobs N (worker threads, default 1), --timeout MS (per case, default 10000),
// --out DIR (where failing inputs are written, default tests/fuzz/failures; "-" for
// nowhere), --progress N (a line every N cases), --verbose (every failure in full).
// Exits 1 if any case failed. Cases derive from (seed, index[, format]): a failure prints
// the command that runs it alone, and its input is written as JSON (replay it with
// --replay; --shrink reduces it to a small input that still fails the same way).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { FORMATS } from "./conversation.mjs";
import { generateCase } from "./cases.mjs";
import { repoRoot, reproCommand, runFuzz } from "./session.mjs";
import { shrink } from "./shrink.mjs";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    cases: { type: "string", default: "1000" },
    seed: { type: "string", default: "1" },
    start: { type: "string", default: "0" },
    format: { type: "string" },
    "only-case": { type: "string" },
    replay: { type: "boolean", default: false },
    shrink: { type: "boolean", default: false },
    jobs: { type: "string", default: "1" },
    timeout: { type: "string", default: "10000" },
    out: { type: "string", default: join(repoRoot, "tests/fuzz/failures") },
    progress: { type: "string", default: "0" },
    verbose: { type: "boolean", default: false },
  },
});

const int = (name) => {
  const n = Number(values[name]);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} expects a whole number, got ${values[name]}`);
  return n;
};
if (values.format && !FORMATS.includes(values.format)) throw new Error(`--format expects one of ${FORMATS.join(", ")}`);

const files = values.replay
  ? positionals.map((p) => {
      const file = resolve(p);
      const data = JSON.parse(readFileSync(file, "utf8"));
      return { file, desc: data.desc ?? data };
    })
  : null;
const only = values["only-case"] === undefined ? null : int("only-case");
const seed = int("seed");
const timeoutMs = int("timeout");

const { failed, summary } = await runFuzz({
  seed,
  cases: int("cases"),
  start: int("start"),
  filter: values.format ?? null,
  only,
  files,
  workers: int("jobs"),
  timeoutMs,
  outDir: values.out === "-" ? null : values.out,
  progress: int("progress"),
  verbose: values.verbose || only !== null || values.replay,
});
console.log(summary);

if (values.shrink) {
  for (const { job, result } of failed) {
    const desc = job.desc ?? generateCase(job.seed, job.index, job.filter);
    const target = result.failures[0];
    console.log(`\nshrinking ${reproCommand(job)}: ${target.kind}: ${target.check}`);
    const dir = values.out === "-" ? repoRoot : values.out;
    mkdirSync(dir, { recursive: true });
    const path = join(dir, `shrunk-${target.kind}-${Date.now()}.json`);
    const save = (d) => writeFileSync(path, JSON.stringify({ command: `node tests/fuzz/run.mjs --replay ${relative(repoRoot, path)}`, failures: [target], desc: d }, null, 1));
    const small = await shrink(desc, target, { timeoutMs: target.kind === "hang" ? Math.min(timeoutMs, 3000) : timeoutMs, log: console.log, save });
    save(small);
    console.log(`shrunk to ${JSON.stringify(small).length} bytes: ${relative(repoRoot, path)}`);
  }
}

process.exitCode = failed.length ? 1 : 0;
