#!/usr/bin/env node
// Memory: does counting many conversations in a synchronous loop keep wasm memory bounded?
// 10,000 countMessages() calls, each on a fresh array of fresh message objects (a chat app
// that rebuilds its history objects every turn; nothing is collected until the loop ends),
// through the built package (bash scripts/build.sh first). Prints the module's memory after a
// first call (the vocabulary's tables built), after the loop, and after clearCaches(); wasm
// memory never shrinks, so "after" is the most the loop ever needed. Target: at most 2x the
// start.
//
//   node bench/memory.mjs [calls] [messages per call]
import { clearCaches, countMessages } from "../pkg/node.js";
import { initSync } from "../pkg/dist/full/ctxfold.js";

const calls = Number(process.argv[2] ?? 10_000);
const perCall = Number(process.argv[3] ?? 8);
// The instance's exports (initSync returns them once the module is initialised).
const memory = () => initSync().memory.buffer.byteLength;
const mb = (b) => `${(b / 2 ** 20).toFixed(1)} MB`;

function conversation(k) {
  const messages = [{ role: "system", content: "You are a careful assistant." }];
  for (let i = 0; i < perCall; i++) {
    messages.push({
      role: i % 2 ? "assistant" : "user",
      content: `Call ${k}, message ${i}: the deploy of payments-api to db-prod-${i % 3}:5432 failed with ECONNREFUSED at step ${k * perCall + i}.`,
    });
  }
  return messages;
}

countMessages(conversation(-1), { model: "gpt-4o" });
const start = memory();
const t = performance.now();
let total = 0;
for (let k = 0; k < calls; k++) total += countMessages(conversation(k), { model: "gpt-4o" }).total;
const ms = performance.now() - t;
const loop = memory();
clearCaches();
const cleared = memory();
// And the module still counts after it.
const again = countMessages(conversation(0), { model: "gpt-4o" }).total;

console.log(`${calls.toLocaleString("en-US")} synchronous countMessages() calls on fresh arrays of ${perCall + 1} messages (${total.toLocaleString("en-US")} tokens in all, ${ms.toFixed(0)} ms)`);
console.log(`wasm memory: ${mb(start)} after the first call, ${mb(loop)} after the loop, ${mb(cleared)} after clearCaches()`);
console.log(`per message sent: ${((loop - start) / (calls * (perCall + 1))).toFixed(0)} bytes of growth`);
console.log(`${cleared <= 2 * start && again > 0 ? "PASS" : "FAIL"}  memory after clearCaches() within 2x of the start (${(cleared / start).toFixed(2)}x)`);
