// One fresh Node process per measurement, started by tokenizers.mjs. Prints one JSON line.
//
//   node lib/child.mjs cold <library>             import + build + first o200k count of a short string
//   node lib/child.mjs rss <library|none> <file>  read the texts (JSON array), count them all with o200k, report maxRSS
//   node lib/child.mjs files <library> <enc>      import + build + first count (run with trace-files.mjs preloaded)
import { readFileSync } from "node:fs";
import { byName } from "./libraries.mjs";

const [mode, name, arg] = process.argv.slice(2);
const SHORT = "Hello, world! Counting tokens for a chat message.";

if (mode === "cold") {
  const lib = byName(name);
  const t0 = performance.now();
  const counter = await lib.load("o200k_base");
  const n = counter.count(SHORT);
  const t1 = performance.now();
  console.log(JSON.stringify({ ms: t1 - t0, count: n, sinceProcessStart: t1 }));
} else if (mode === "rss") {
  const texts = JSON.parse(readFileSync(arg, "utf8"));
  let total = 0;
  if (name !== "none") {
    const counter = await byName(name).load("o200k_base");
    for (let i = 0; i < texts.length; i++) total += counter.count(texts[i]);
  }
  const usage = process.resourceUsage();
  // Linux's own high-water mark of this memory image, as a cross-check of maxRSS.
  let vmHwm = null;
  try {
    vmHwm = Number(/VmHWM:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))[1]);
  } catch {}
  console.log(JSON.stringify({ maxRSS: usage.maxRSS, vmHwm, rssNow: Math.round(process.memoryUsage.rss() / 1024), total }));
} else if (mode === "files") {
  const counter = await byName(name).load(arg);
  console.log(JSON.stringify({ count: counter.count(SHORT) }));
} else {
  throw new Error(`unknown mode ${mode}`);
}
