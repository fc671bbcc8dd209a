#!/usr/bin/env node
// compactor.search through the built package (bash scripts/build.sh first), in wasm, on the
// corpus's longest conversation (LoCoMo conv-47, 690 messages): the conversation is stored
// with one prepare, then every probe's question is searched (limit 5), `--rounds` times.
// Prints the first search of the session apart (it indexes the history), the median and p95
// of the others against the 2 ms target, and beside them a plain scan in JavaScript over the
// same messages (each scored by how many of the question's words its lowercased text holds,
// ties newest first: what one would write without an index).
//
//   node bench/search.mjs [--rounds N] [--conversation FILE]
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Compactor, MemoryStore } from "../pkg/node.js";

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const rounds = Number(option("--rounds", 5));
const file = option("--conversation", join(here, "../tests/corpus/conversations/locomo/locomo__conv-47.json"));
const TARGET_MS = 2;
const LIMIT = 5;

const conv = JSON.parse(readFileSync(file, "utf8"));
const questions = conv.probes.map((p) => p.question);
const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.round((xs.length - 1) * q))];
const ms = (x) => `${x.toFixed(3)} ms`;

/** A message's text: its content (strings or text parts) and its tool calls' names and arguments. */
function text(m) {
  const out = [];
  if (typeof m.content === "string") out.push(m.content);
  else if (Array.isArray(m.content)) for (const p of m.content) if (typeof p?.text === "string") out.push(p.text);
  for (const c of m.tool_calls ?? []) out.push(c.function?.name ?? "", c.function?.arguments ?? "");
  return out.join("\n");
}

/** The alternative: the question's words, each message scored by how many of them it holds. */
function scan(texts, query, limit) {
  const words = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
  const scored = [];
  texts.forEach((t, i) => {
    const lower = t.toLowerCase();
    const n = words.filter((w) => lower.includes(w)).length;
    if (n > 0) scored.push([n, i]);
  });
  scored.sort((a, b) => b[0] - a[0] || b[1] - a[1]);
  return scored.slice(0, limit).map(([, i]) => i);
}

const compactor = new Compactor({ model: "gpt-4o", contextWindow: 1_000_000, store: new MemoryStore() });
await compactor.prepare("c", conv.messages);
let t = performance.now();
await compactor.search("c", questions[0], { limit: LIMIT });
const first = performance.now() - t;

const ours = [];
const theirs = [];
const texts = conv.messages.map(text);
for (let r = 0; r < rounds; r++) {
  for (const q of questions) {
    t = performance.now();
    await compactor.search("c", q, { limit: LIMIT });
    ours.push(performance.now() - t);
    t = performance.now();
    scan(texts, q, LIMIT);
    theirs.push(performance.now() - t);
  }
}
const median = quantile(ours, 0.5);
const scanMedian = quantile(theirs, 0.5);
console.log(`${conv.id}: ${conv.messages.length} messages, ${questions.length} questions x ${rounds} rounds, limit ${LIMIT} (node ${process.version})`);
console.log(`first search of the session (indexes the history): ${ms(first)}`);
console.log(
  `compactor.search, median (p95): ${ms(median)} (${ms(quantile(ours, 0.95))}); JS scan ${ms(scanMedian)} (${ms(quantile(theirs, 0.95))}); scan/search ${(scanMedian / median).toFixed(1)}x`,
);
console.log(`${median <= TARGET_MS ? "PASS" : "FAIL"}  compactor.search median ${ms(median)} <= ${TARGET_MS} ms`);
