#!/usr/bin/env node
// plan() with the count cache, against counting from scratch, through the built package.
//
// On the largest corpus conversation: counting it from scratch, that is countMessages() on
// message objects the package has never seen with every cache emptied (clearCaches()), so
// the messages cross into wasm and are all tokenized; then plan() on the same conversation
// with one more message, as on the next turn of a chat. Prints both, the ratio, and the
// target (at most 1/20). Also printed: counting again objects already sent, count caches
// emptied (tokenizing alone). Message objects already seen are not sent into wasm again
// (src/wasm/transfer.rs). The native core's figure: `cargo bench --bench plan_cache`.
//
//   node plan.mjs [rounds]
import { readFileSync, statSync } from "node:fs";
import { clearCaches, countMessages, plan } from "ctxfold";
import { conversationFiles } from "../tests/support/corpus.mjs";

const rounds = Number(process.argv[2] ?? 41);
const warmup = 10; // untimed rounds first, for both measurements: JIT tiers settle
const file = conversationFiles()
  .map((f) => f.path)
  .sort((a, b) => statSync(b).size - statSync(a).size)[0];
const messages = JSON.parse(readFileSync(file, "utf8")).messages;
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

let t;
const scratch = [];
const tokenizing = [];
const planned = [];
for (let r = -warmup; r < rounds; r++) {
  // From scratch: objects never seen, every cache empty.
  const unseen = structuredClone(messages);
  clearCaches();
  t = performance.now();
  const counted = countMessages(unseen, { encoding: "o200k_base" });
  if (r >= 0) scratch.push(performance.now() - t);
  if (counted.cached !== 0) throw new Error("the cache was not empty");

  // Tokenizing alone: the objects were sent before; the count caches are emptied.
  clearCaches();
  t = performance.now();
  countMessages(messages, { encoding: "o200k_base" });
  if (r >= 0) tokenizing.push(performance.now() - t);

  const next = [...messages, { role: "user", content: `Round ${r}: which test failed last, and why?` }];
  t = performance.now();
  const p = plan(next, { model: "gpt-4o" });
  if (r >= 0) planned.push(performance.now() - t);
  if (!(p.tokens.total > counted.total)) throw new Error("plan did not count the new message");
}
const [s, k, p] = [median(scratch), median(tokenizing), median(planned)];
console.log(`${file.split("/").pop()}: ${messages.length} messages, ${JSON.stringify(messages).length} bytes`);
console.log(`countMessages from scratch (unseen objects, caches empty): ${s.toFixed(2)} ms`);
console.log(`plan() with one more message:                             ${p.toFixed(2)} ms   ratio 1/${(s / p).toFixed(1)}`);
console.log(`(countMessages of objects already sent, count caches empty: ${k.toFixed(2)} ms, 1/${(k / p).toFixed(1)} of it)`);
console.log(`${p * 20 <= s ? "PASS" : "FAIL"}  plan() <= 1/20 of counting from scratch (JS, the built package)`);
