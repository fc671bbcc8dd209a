#!/usr/bin/env node
// Where ctxfold's counting time goes: profiles per-message counting of the benchmark's text
// with V8's sampling profiler and prints the functions with the most self time. Point it at a
// wasm-bindgen --target web output built WITHOUT --remove-name-section, so wasm functions keep
// their Rust names:
//
//   wasm-bindgen --target web --out-dir /tmp/ctxprof --out-name ctxfold \
//     target/full/wasm32-unknown-unknown/release/ctxfold.wasm
//   node profile-ctxfold.mjs /tmp/ctxprof [o200k_base|cl100k_base] [category substring] [passes]
//
// e.g. `node profile-ctxfold.mjs /tmp/ctxprof o200k_base CJK`. Without a category: all the text.
import { readFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { buildCorpus } from "./lib/corpus.mjs";

const [dir, encoding = "o200k_base", category = "", passes = "3"] = process.argv.slice(2);
if (!dir) {
  console.error("usage: node profile-ctxfold.mjs WASM_BINDGEN_OUT_DIR [encoding] [category] [passes]");
  process.exit(2);
}
const bindings = await import(pathToFileURL(join(resolve(dir), "ctxfold.js")).href);
bindings.initSync({ module: readFileSync(join(resolve(dir), "ctxfold_bg.wasm")) });

const { messages } = buildCorpus();
const texts = messages.filter((m) => m.category.includes(category)).map((m) => m.text);
const bytes = texts.reduce((s, t) => s + Buffer.byteLength(t), 0);
const options = { encoding };
for (const t of texts.filter((_, i) => i % 8 === 0)) bindings.countTokens(t, options); // warm-up

const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.setSamplingInterval", { interval: 100 });
await session.post("Profiler.start");
for (let p = 0; p < Number(passes); p++) {
  const t0 = performance.now();
  let n = 0;
  for (const t of texts) n += bindings.countTokens(t, options);
  console.log(`pass ${p + 1}: ${texts.length} messages, ${(bytes / 1e6).toFixed(2)} MB, ${n} tokens, ${(bytes / 1e6 / ((performance.now() - t0) / 1000)).toFixed(1)} MB/s`);
}
const { profile } = await session.post("Profiler.stop");
session.disconnect();

const self = new Map();
const time = new Map();
for (let i = 0; i < profile.samples.length; i++) time.set(profile.samples[i], (time.get(profile.samples[i]) ?? 0) + (profile.timeDeltas[i] ?? 0));
let total = 0;
for (const node of profile.nodes) {
  const t = time.get(node.id) ?? 0;
  total += t;
  const name = (node.callFrame.functionName || "(anonymous)").replace(/::h[0-9a-f]{16}$/, "");
  self.set(name, (self.get(name) ?? 0) + t);
}
console.log(`\nself time, ${encoding}${category ? `, category ~ "${category}"` : ""} (${(total / 1e6).toFixed(2)} s sampled):`);
for (const [name, t] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 20)) {
  console.log(`${((100 * t) / total).toFixed(1).padStart(5)} %  ${name}`);
}
