#!/usr/bin/env node
// How compact() and plan() scale with the conversation: time on synthetic agent
// conversations of 500, 1,000, 2,000 and 4,000 messages in every format, and on one of about
// 25 MB, through the built package (bash scripts/build.sh first). Each call is a user's first
// call on that history: objects never seen, caches emptied. compact() uses the built-in
// extractive summary, so the time is ctxfold's own. Prints the ratio time(8x) / time(1x) per
// format and call; linear work gives 8, the target is at most 10.
//
//   node bench/scaling.mjs [--rounds N] [--window N] [--no-huge]
import { clearCaches, compact, plan } from "../pkg/node.js";
import { FORMATS, conversation, length } from "./lib/synthetic.mjs";

const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const rounds = flag("--rounds", 5);
const window = flag("--window", 128_000);
const sizes = [500, 1000, 2000, 4000];
const options = { model: "gpt-4o", contextWindow: window };
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/** Median ms of `call` on fresh copies of `input` (never seen, caches empty), after two
 * untimed rounds (the JIT settles; without them the smallest size, measured first, looks slow). */
async function time(call, input) {
  const ms = [];
  for (let r = -2; r < rounds; r++) {
    const fresh = structuredClone(input);
    clearCaches();
    const t = performance.now();
    await call(fresh);
    if (r >= 0) ms.push(performance.now() - t);
  }
  return median(ms);
}

const callers = {
  plan: (m) => plan(m, options),
  compact: (m) => compact(m, options),
};

console.log(`window ${window.toLocaleString("en-US")} (gpt-4o, exact o200k), extractive summary, median of ${rounds} rounds`);
console.log(`${"format".padEnd(17)} ${"call".padEnd(8)} ${sizes.map((n) => `${n} msgs`.padStart(11)).join(" ")}   8x/1x`);
let worst = 0;
for (const format of FORMATS) {
  for (const [name, call] of Object.entries(callers)) {
    const times = [];
    for (const n of sizes) times.push(await time(call, conversation(format, n)));
    const ratio = times.at(-1) / times[0];
    worst = Math.max(worst, ratio);
    console.log(
      `${format.padEnd(17)} ${name.padEnd(8)} ${times.map((t) => `${t.toFixed(0)} ms`.padStart(11)).join(" ")}   ${ratio.toFixed(1).padStart(5)}`,
    );
  }
}
const mb = (c) => (JSON.stringify(c).length / 1e6).toFixed(1);
console.log(`sizes: ${sizes.map((n) => `${n} msgs ${mb(conversation("openai", n))} MB`).join(", ")} (openai)`);
console.log(`${worst <= 10 ? "PASS" : "FAIL"}  time(4,000 messages) / time(500) at most 10 for every format and call (worst ${worst.toFixed(1)})`);

if (!args.includes("--no-huge")) {
  // About 25 MB: 4,000 messages with tool outputs of about 24 KB.
  const huge = conversation("openai", 4001, 24_000);
  console.log(`\n~25 MB conversation (openai, ${length(huge)} messages, ${mb(huge)} MB), one round each:`);
  for (const [name, call] of Object.entries(callers)) {
    const fresh = structuredClone(huge);
    clearCaches();
    const t = performance.now();
    await call(fresh);
    console.log(`  ${name.padEnd(8)} ${((performance.now() - t) / 1000).toFixed(2)} s`);
  }
}
