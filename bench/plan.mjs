#!/usr/bin/env node
// plan() with the count cache, against counting from scratch, through the built package.
//
// On the largest corpus conversation: countMessages() with every cache emptied
// (clearCaches()), then plan() on the same conversation with one more message, caches
// warm, as on the next turn of a chat. Prints both, the ratio, and the target (at most
// 1/20). The native core's figure comes from `cargo bench --bench plan_cache`.
//
//   node plan.mjs [rounds]
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { clearCaches, countMessages, plan } from "ctxfold";
import { DEFAULT_CORPUS_DIR } from "./lib/corpus.mjs";

const rounds = Number(process.argv[2] ?? 21);
const dir = process.env.CTXFOLD_CORPUS ? join(process.env.CTXFOLD_CORPUS, "conversations") : DEFAULT_CORPUS_DIR;
const file = readdirSync(dir)
  .map((f) => join(dir, f))
  .sort((a, b) => statSync(b).size - statSync(a).size)[0];
const messages = JSON.parse(readFileSync(file, "utf8")).messages;
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

const scratch = [];
const planned = [];
const transfer = [];
for (let r = 0; r < rounds; r++) {
  clearCaches();
  let t = performance.now();
  const counted = countMessages(messages, { encoding: "o200k_base" });
  scratch.push(performance.now() - t);
  if (counted.cached !== 0) throw new Error("the cache was not empty");

  const next = [...messages, { role: "user", content: `Round ${r}: which test failed last, and why?` }];
  t = performance.now();
  const p = plan(next, { model: "gpt-4o" });
  planned.push(performance.now() - t);
  if (!(p.tokens.total > counted.total)) throw new Error("plan did not count the new message");

  // The part of plan() that only moves the messages into wasm and reads them there.
  t = performance.now();
  JSON.stringify(next);
  transfer.push(performance.now() - t);
}
const [s, p, j] = [median(scratch), median(planned), median(transfer)];
console.log(`${file.split("/").pop()}: ${messages.length} messages, ${JSON.stringify(messages).length} bytes`);
console.log(`countMessages from scratch (caches empty): ${s.toFixed(2)} ms`);
console.log(`plan() with one more message:              ${p.toFixed(2)} ms   ratio 1/${(s / p).toFixed(1)}`);
console.log(`  of which JSON.stringify of the messages:  ${j.toFixed(2)} ms (the input crosses into wasm as JSON)`);
console.log(`${p * 20 <= s ? "PASS" : "FAIL"}  plan() <= 1/20 of counting from scratch (JS, the built package)`);
