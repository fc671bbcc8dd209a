#!/usr/bin/env node
// Compares two raw results of run.mjs turn by turn, every field but the times: a change
// meant to alter nothing (a refactoring) must print "identical".
//
//   node compare.mjs BEFORE.json AFTER.json [--method ctxfold]
//
// Each turn carries a digest of the exact input sent, so "identical" means the same
// messages, byte for byte, on every turn of every conversation at every window.
import { readFileSync } from "node:fs";

const [a, b] = process.argv.slice(2).filter((x) => !x.startsWith("--"));
const i = process.argv.indexOf("--method");
const only = i > 0 ? process.argv[i + 1] : null;
if (!a || !b) {
  console.error("usage: node compare.mjs BEFORE.json AFTER.json [--method NAME]");
  process.exit(2);
}
const before = JSON.parse(readFileSync(a, "utf8")).results;
const after = JSON.parse(readFileSync(b, "utf8")).results;
const TIMES = new Set(["ms"]);

const differences = [];
let turns = 0;
const same = (x, y) => JSON.stringify(x) === JSON.stringify(y);
for (const window of Object.keys(before)) {
  for (const method of Object.keys(before[window])) {
    if (only && method !== only) continue;
    const convs = before[window][method].conversations;
    const other = after[window]?.[method]?.conversations;
    if (!other) {
      differences.push(`${window} ${method}: missing in ${b}`);
      continue;
    }
    for (const [id, c] of Object.entries(convs)) {
      const d = other[id];
      if (!d || d.turns.length !== c.turns.length) {
        differences.push(`${window} ${method} ${id}: ${d ? `${d.turns.length} turns, not ${c.turns.length}` : "missing"}`);
        continue;
      }
      c.turns.forEach((t, k) => {
        turns++;
        const u = d.turns[k];
        for (const key of new Set([...Object.keys(t), ...Object.keys(u)])) {
          if (TIMES.has(key) || same(t[key], u[key])) continue;
          differences.push(`${window} ${method} ${id} turn ${t.k}: ${key} ${JSON.stringify(t[key])} -> ${JSON.stringify(u[key])}`);
        }
      });
    }
  }
}
if (differences.length === 0) {
  console.log(`identical: ${turns} turns compared, every field but the times`);
} else {
  console.log(differences.slice(0, 50).join("\n"));
  if (differences.length > 50) console.log(`... and ${differences.length - 50} more`);
  console.log(`${differences.length} differences in ${turns} turns`);
  process.exit(1);
}
