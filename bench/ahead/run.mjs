// The prepareAhead benchmark: the turn that passes the compaction threshold, with
// the summary made in the background after the commit before it, against the same turn with
// the summary made inline, on every corpus conversation, with a summarizer that takes 500 ms
// (a double for a remote LLM: the time is the point, the text is a function of the request).
// Target: the crossing turn with prepareAhead takes at most 1/20 of the same turn without it.
// It prints the figures and whether the target is met; it is a benchmark, not a test.
//
//   bash scripts/build.sh && node bench/ahead/run.mjs [--window 16384] [--delay 500] [--only NAME]
//
// Each conversation is replayed twice as a chat app drives a Compactor (bench/compaction's
// model calls: before each assistant message, the previous reply is committed and what came
// after it is prepared): once without prepareAhead, once with it, waiting after each commit
// for the background work (the user reading the reply and typing the next message; that wait
// is printed, not counted in the turn). The two inputs must be equal on every turn: the run
// counts the turns where they differ (0 expected) and the summarizer calls each path made.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { modelCalls } from "../../tests/support/compactor-suite.mjs";
import { conversations as corpusConversations } from "../../tests/support/corpus.mjs";

const root = fileURLToPath(new URL("../../", import.meta.url));
const option = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const WINDOW = Number(option("window", 16384));
const DELAY = Number(option("delay", 500));
const ONLY = option("only", null);

if (!existsSync(join(root, "pkg/package.json"))) {
  console.error("pkg/ is not built: run bash scripts/build.sh first");
  process.exit(1);
}
const { Compactor } = await import(join(root, "pkg/node.js"));

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The summarizer double: `DELAY` ms, then a summary that is a function of the request. */
function summarizer() {
  const calls = { n: 0 };
  const fn = async ({ prompt, signal }) => {
    calls.n++;
    await sleep(DELAY);
    signal?.throwIfAborted();
    return `## Conversation Summary\n- **Decisions:** None\n- **Entities:** None\n- **Facts:** The span summarized held ${prompt.length} characters.\n- **Open Items:** None`;
  };
  return { fn, calls };
}

/** One replay: per model call, the input, the prepare's ms, whether it compacted. */
async function replay(messages, ahead) {
  const s = summarizer();
  const compactor = new Compactor({ model: "gpt-4o", contextWindow: WINDOW, summarizer: s.fn, ...(ahead ? { prepareAhead: true } : {}) });
  const turns = [];
  let stored = 0;
  let replied = false;
  let background = 0;
  for (const k of modelCalls(messages)) {
    if (replied) {
      await compactor.commit("bench", messages[stored]);
      const t = performance.now();
      await compactor.whenPrepared("bench");
      background += performance.now() - t;
      stored++;
    }
    replied = false;
    const t0 = performance.now();
    let r;
    try {
      r = await compactor.prepare("bench", messages.slice(stored, k));
    } catch (e) {
      if (e.code !== "CONTEXT_OVERFLOW") throw e;
      turns.push({ k, input: e.code, ms: performance.now() - t0, compacted: false, preparedAhead: 0 });
      continue;
    }
    turns.push({ k, input: JSON.stringify(r.messages), ms: performance.now() - t0, compacted: r.record !== null, preparedAhead: r.preparedAhead });
    stored = k;
    replied = true;
  }
  return { turns, calls: s.calls.n, background };
}

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const ms = (x) => `${x.toFixed(x < 10 ? 2 : 0)} ms`;

const conversations = corpusConversations((f) => ONLY === null || f.includes(ONLY));
const started = performance.now();
const crossing = { inline: [], ahead: [] };
const other = { inline: [], ahead: [] };
let differ = 0;
let hits = 0;
let calls = { inline: 0, ahead: 0 };
let background = 0;
for (const c of conversations) {
  const a = await replay(c.messages, false);
  const b = await replay(c.messages, true);
  calls.inline += a.calls;
  calls.ahead += b.calls;
  background += b.background;
  for (let t = 0; t < a.turns.length; t++) {
    const [x, y] = [a.turns[t], b.turns[t]];
    if (x.input !== y.input) differ++;
    if (x.compacted) {
      crossing.inline.push(x.ms);
      crossing.ahead.push(y.ms);
      if (y.preparedAhead > 0) hits++;
    } else {
      other.inline.push(x.ms);
      other.ahead.push(y.ms);
    }
  }
}
const n = crossing.inline.length;
console.log(`prepareAhead: ${conversations.length} corpus conversations at a ${WINDOW}-token window, a summarizer that takes ${DELAY} ms`);
console.log(`turns that pass the threshold (compact): ${n}; ${hits} of them found their summary made ahead`);
console.log("");
console.log("                       median        mean         p90");
for (const [label, xs] of [
  ["crossing, inline", crossing.inline],
  ["crossing, ahead", crossing.ahead],
  ["other turns, inline", other.inline],
  ["other turns, ahead", other.ahead],
]) {
  console.log(`${label.padEnd(22)} ${ms(quantile(xs, 0.5)).padStart(10)} ${ms(mean(xs)).padStart(11)} ${ms(quantile(xs, 0.9)).padStart(11)}`);
}
const medianRatio = quantile(crossing.ahead, 0.5) / quantile(crossing.inline, 0.5);
const meanRatio = mean(crossing.ahead) / mean(crossing.inline);
console.log("");
console.log(`crossing turn with prepareAhead / without: median ${medianRatio.toFixed(4)}x, mean ${meanRatio.toFixed(4)}x (target at most 1/20 = 0.05x): ${meanRatio <= 0.05 ? "MET" : "NOT MET"} by the mean, ${medianRatio <= 0.05 ? "MET" : "NOT MET"} by the median`);
console.log(`inputs that differ from the inline path's: ${differ} of ${crossing.inline.length + other.inline.length} turns`);
console.log(`summarizer calls: ${calls.ahead} with prepareAhead, ${calls.inline} inline (${calls.ahead - calls.inline} made ahead and not used, or made again after a miss)`);
console.log(`background work waited for after commits (the user's reading time): ${(background / 1000).toFixed(1)} s in all`);
console.log(`wall time ${((performance.now() - started) / 1000).toFixed(0)} s`);
