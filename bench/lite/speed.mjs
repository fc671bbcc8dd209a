// Counting and compaction speed of two builds' lite modules (for bench/lite/variants.sh):
// every string message of the corpus counted with o200k_base, 4 rounds (caches cleared
// before each), and one corpus conversation compacted at an 8k window with the extractive
// summarizer, 5 times; the builds take turns, 3 times each.
//
//   node bench/lite/speed.mjs <package dir A> <package dir B>
import { join } from "node:path";
import { conversations as corpusConversations } from "../../tests/support/corpus.mjs";

const [a, b] = process.argv.slice(2);
if (!a || !b) {
  console.error("usage: node bench/lite/speed.mjs <package dir> <package dir>");
  process.exit(1);
}
const conversations = corpusConversations().map((c) => c.messages ?? []);
const texts = conversations.flat().filter((m) => typeof m.content === "string").map((m) => m.content);
const mb = texts.reduce((n, t) => n + Buffer.byteLength(t), 0) / 1e6;
const sample = conversations.find((c) => c.length > 100) ?? conversations[0];

async function run(dir) {
  const c = await import(join(dir, "lite/node.js") + `?${Math.random()}`);
  await c.loadVocabulary("o200k_base");
  const rounds = [];
  for (let round = 0; round < 4; round++) {
    c.clearCaches();
    const t = performance.now();
    for (const s of texts) c.countTokens(s, { encoding: "o200k_base" });
    rounds.push(mb / ((performance.now() - t) / 1000));
  }
  const t = performance.now();
  for (let i = 0; i < 5; i++) await c.compact(sample, { model: "gpt-4o", contextWindow: 8000, summarizer: "extractive" });
  return { rounds, compactMs: (performance.now() - t) / 5 };
}

const median = (xs) => [...xs].sort((x, y) => x - y)[xs.length >> 1];
const got = { a: [], b: [] };
for (let i = 0; i < 3; i++) for (const [k, dir] of [["a", a], ["b", b]]) got[k].push(await run(dir));
const warm = (k) => median(got[k].flatMap((r) => r.rounds.slice(1)));
const cold = (k) => median(got[k].map((r) => r.rounds[0]));
const compact = (k) => median(got[k].map((r) => r.compactMs));
console.log(`${texts.length} messages, ${mb.toFixed(1)} MB; medians of 3 runs each`);
console.log(`                      ${"A".padStart(10)}${"B".padStart(10)}    B / A`);
console.log(`count, first round   ${cold("a").toFixed(1).padStart(10)}${cold("b").toFixed(1).padStart(10)}   ${(cold("b") / cold("a")).toFixed(2)}x  (MB/s)`);
console.log(`count, warm rounds   ${warm("a").toFixed(1).padStart(10)}${warm("b").toFixed(1).padStart(10)}   ${(warm("b") / warm("a")).toFixed(2)}x  (MB/s)`);
console.log(`compact (8k)         ${compact("a").toFixed(1).padStart(10)}${compact("b").toFixed(1).padStart(10)}   ${(compact("b") / compact("a")).toFixed(2)}x  (ms)`);
console.log(`A: ${a}\nB: ${b}`);
