// Fits ctxfold's estimate factors and measures their error. Reads out/samples.jsonl,
// out/counts.jsonl, out/counts_mistral.jsonl and out/gemini_calls.json; prints the tables of
// docs/estimates.md and writes out/factors.json.
//
//   node analyze.mjs [PERCENTILE]        (default 90)
//
// The estimate mirrors src/estimate.rs exactly:
//   shares   s_x = k_x c_x / sum_y k_y c_y over the character classes x of the text
//            (see classify()), with k_x the median o200k tokens per character of class x;
//   factor   f = sum_x s_x f_x, rounded up to 2 decimals; estimate = ceil(f * bpe_count),
//            or, with no vocabulary, ceil(sum_x c_x / cpt_x).
// f_x is the token-weighted PERCENTILE-th percentile, over messages of at least 20 BPE tokens
// whose class x share is at least 0.8, of reference / bpe_count; cpt_x the token-weighted
// (100 - PERCENTILE)-th percentile of c_x / reference. So about PERCENTILE % of the tokens of
// such messages are in messages that are not under-estimated. (Weighting by tokens keeps the
// noise of short messages, which weigh little in a context window, out of the factor.)
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const P = Number(process.argv[2] ?? 90) / 100;
const read = (f) => fs.readFileSync(path.join(here, "out", f), "utf8").trim().split("\n").map((l) => JSON.parse(l));

// ---- character classes (keep in sync with estimate.rs `classify`) --------------------------
const isCjk = (cp) =>
  (cp >= 0x1100 && cp <= 0x11ff) || (cp >= 0x2e80 && cp <= 0x9fff) || (cp >= 0xa960 && cp <= 0xa97f) ||
  (cp >= 0xac00 && cp <= 0xd7ff) || (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0xfe30 && cp <= 0xfe4f) ||
  (cp >= 0xff00 && cp <= 0xffef) || (cp >= 0x20000 && cp <= 0x3ffff);
// The class of a non-ASCII, non-CJK character: Latin with diacritics, Cyrillic and Greek, or
// anything else (Arabic, Hebrew, Indic, Thai, ...). Tokenizers differ most on these.
const isLatin = (cp) => (cp >= 0x80 && cp <= 0x24f) || (cp >= 0x1e00 && cp <= 0x1eff) || (cp >= 0x300 && cp <= 0x36f);
const isCyrGreek = (cp) => (cp >= 0x370 && cp <= 0x52f) || (cp >= 0x1f00 && cp <= 0x1fff);
/** Characters per class. A CJK character is its own class. A whitespace-delimited word that has
 *  a non-ASCII character counts, all of it, in the class of its first such character; other
 *  words and the whitespace count as ascii. */
function classify(text) {
  const c = { ascii: 0, latin: 0, cyrgreek: 0, cjk: 0, other: 0 };
  let word = 0, wordClass = "ascii";
  const flush = () => {
    c[wordClass] += word;
    word = 0;
    wordClass = "ascii";
  };
  for (const ch of text) {
    const cp = ch.codePointAt(0);
    if (cp === 0x20 || cp === 0x0a || cp === 0x09 || cp === 0x0d) {
      flush();
      c.ascii++;
    } else if (isCjk(cp)) c.cjk++;
    else {
      word++;
      if (cp >= 0x80 && wordClass === "ascii") wordClass = isLatin(cp) ? "latin" : isCyrGreek(cp) ? "cyrgreek" : "other";
    }
  }
  flush();
  return c;
}
const CLASSES = ["ascii", "latin", "cyrgreek", "cjk", "other"];

// ---- data -----------------------------------------------------------------------------------
const samples = read("samples.jsonl");
const counts = read("counts.jsonl");
const mistral = Object.fromEntries(read("counts_mistral.jsonl").map((r) => [r.id, r]));
const rows = counts.map((r, i) => {
  const c = classify(samples[i].text);
  return { ...r, ...mistral[r.id], cls: c, claude: r.claude65k * 1.1 };
});

// References: what each family's estimate should match.
const FAMILIES = {
  o200k: { ref: "o200k", what: "o200k_base (exact, for the fallbacks of OpenAI models)" },
  cl100k: { ref: "cl100k", what: "cl100k_base (exact, for the fallbacks of OpenAI models)" },
  claude: { ref: "claude", what: "Claude 3+ proxy: ai-tokenizer's claude vocabulary x 1.1" },
  gemini: { ref: "gemma3", what: "Gemini 2+/3 and Gemma 3: the Gemma 3 vocabulary" },
  llama: { ref: "llama3", what: "Llama 3.x: Llama 3.1 tokenizer.json" },
  mistral: { ref: "tekken", what: "Mistral, Tekken vocabulary (tekken_240911.json)" },
  mistralSpm: { ref: "spm", what: "Mistral, SentencePiece v3/v7 vocabularies (max of the two)" },
};
for (const r of rows) r.spm = Math.max(r.spm_v3, r.spm_v7);

// o200k tokens per character of each class, from class-dominated samples (the share weights).
const quant = (a, p) => {
  const s = [...a].sort((x, y) => x - y);
  if (!s.length) return NaN;
  const i = p * (s.length - 1), lo = Math.floor(i), hi = Math.ceil(i);
  return s[lo] + (s[hi] - s[lo]) * (i - lo);
};
// The p-th quantile of values weighted by weights: the smallest v such that the values <= v
// carry at least p of the total weight.
const wquant = (values, weights, p) => {
  const idx = values.map((_, i) => i).sort((a, b) => values[a] - values[b]);
  const sum = weights.reduce((a, b) => a + b, 0);
  let acc = 0;
  for (const i of idx) if ((acc += weights[i]) >= p * sum) return values[i];
  return values[idx.at(-1)];
};
const total = (c) => c.ascii + c.cjk + c.other;
const dominated = (r, x) => total(r.cls) > 0 && r.cls[x] / total(r.cls) >= 0.8;
const K = {};
for (const x of CLASSES) K[x] = round(quant(rows.filter((r) => dominated(r, x) && r.o200k >= 20).map((r) => r.o200k / r.cls[x]), 0.5), 2);
function round(v, d, mode = "near") {
  const m = 10 ** d;
  return (mode === "up" ? Math.ceil(v * m - 1e-9) : mode === "down" ? Math.floor(v * m + 1e-9) : Math.round(v * m)) / m;
}
const shares = (c) => {
  const w = CLASSES.map((x) => K[x] * c[x]);
  const sum = w.reduce((a, b) => a + b, 0);
  return sum === 0 ? CLASSES.map((x) => (x === "ascii" ? 1 : 0)) : w.map((v) => v / sum);
};

// ---- fit ------------------------------------------------------------------------------------
const fits = {};
for (const [fam, { ref }] of Object.entries(FAMILIES)) {
  fits[fam] = { ref };
  for (const base of ["o200k", "cl100k"]) {
    if (fam === base) continue;
    fits[fam][base] = Object.fromEntries(CLASSES.map((x) => {
      const rs = rows.filter((r) => dominated(r, x) && r[base] >= 20);
      return [x, round(wquant(rs.map((r) => r[ref] / r[base]), rs.map((r) => r[base]), P), 2, "up")];
    }));
  }
  fits[fam].chars = Object.fromEntries(CLASSES.map((x) => {
    const rs = rows.filter((r) => dominated(r, x) && r[ref] >= 20);
    return [x, round(wquant(rs.map((r) => r.cls[x] / r[ref]), rs.map((r) => r[ref]), 1 - P), 2, "down")];
  }));
}
// Unknown models: the most conservative of the measured families, class by class.
const MEASURED = ["claude", "gemini", "llama", "mistral", "mistralSpm"];
fits.generic = { ref: null };
for (const base of ["o200k", "cl100k"]) fits.generic[base] = Object.fromEntries(CLASSES.map((x) => [x, Math.max(...MEASURED.map((f) => fits[f][base][x]))]));
fits.generic.chars = Object.fromEntries(CLASSES.map((x) => [x, Math.min(...MEASURED.map((f) => fits[f].chars[x]))]));

// The factor of a text: class factors weighted by token share, rounded up to 2 decimals.
function mix(cls, factors) {
  const s = shares(cls);
  const f = CLASSES.reduce((a, x, i) => a + s[i] * factors[x], 0);
  return Math.ceil(f * 100 - 1e-9) / 100;
}
function estimate(fit, base, r) {
  if (base === "chars") return Math.max(0, Math.ceil(CLASSES.reduce((a, x) => a + r.cls[x] / fit.chars[x], 0) - 1e-9));
  return Math.ceil(mix(r.cls, fit[base]) * r[base] - 1e-9);
}

// ---- report ---------------------------------------------------------------------------------
const pct = (v) => `${v >= 0 ? "+" : ""}${(v * 100).toFixed(1)}%`;
const abs = (v) => `${(v * 100).toFixed(1)}%`;
console.log(`## Fitted at the ${Math.round(P * 100)}th percentile\n`);
console.log(`Share weights k (o200k tokens per character): ${CLASSES.map((x) => `${x} ${K[x]}`).join(", ")}\n`);
console.log("| family | o200k factor | cl100k factor | chars per token |");
console.log("|---|---|---|---|");
for (const [fam, fit] of Object.entries(fits)) {
  const f = (b) => (fit[b] ? CLASSES.map((x) => fit[b][x].toFixed(2)).join(" / ") : "exact");
  console.log(`| ${fam} | ${f("o200k")} | ${f("cl100k")} | ${f("chars")} |`);
}
console.log(`\nColumns are per class: ${CLASSES.join(" / ")}. References:\n`);
for (const [fam, { what }] of Object.entries(FAMILIES)) console.log(`- ${fam}: ${what}`);
console.log("- generic: the largest factor (smallest chars per token) of claude, gemini, llama, mistral, mistralSpm, class by class");

const SETS = [...new Set(rows.map((r) => r.set))];
function errors(fam, base, rs) {
  const fit = fits[fam];
  const ref = fit.ref;
  const e = rs.filter((r) => r[ref] >= 20).map((r) => (estimate(fit, base, r) - r[ref]) / r[ref]);
  return { n: e.length, med: quant(e.map(Math.abs), 0.5), p95: quant(e.map(Math.abs), 0.95), under: e.filter((v) => v < 0).length / e.length, signedMed: quant(e, 0.5) };
}
for (const fam of Object.keys(FAMILIES)) {
  const fit = fits[fam];
  console.log(`\n### ${fam}: ${FAMILIES[fam].what}\n`);
  console.log("| set | messages | via o200k: median / p95 abs. error, share under | via cl100k | via chars |");
  console.log("|---|---|---|---|---|");
  for (const set of [...SETS, "all"]) {
    const rs = set === "all" ? rows : rows.filter((r) => r.set === set);
    const cell = (b) => {
      if (!fit[b]) return "exact";
      const e = errors(fam, b, rs);
      return `${abs(e.med)} / ${abs(e.p95)}, ${abs(e.under)}`;
    };
    console.log(`| ${set} | ${errors(fam, "chars", rs).n} | ${cell("o200k")} | ${cell("cl100k")} | ${cell("chars")} |`);
  }
  // Whole conversations of the corpus: signed error of the summed estimate.
  const convs = [...new Set(rows.filter((r) => r.set.startsWith("corpus")).map((r) => r.group))];
  const conv = (b) => {
    if (!fit[b]) return "exact";
    const e = convs.map((g) => {
      const rs = rows.filter((r) => r.group === g);
      const est = rs.reduce((a, r) => a + estimate(fit, b, r), 0);
      const ref = rs.reduce((a, r) => a + r[fit.ref], 0);
      return (est - ref) / ref;
    });
    return `${pct(Math.min(...e))} .. ${pct(Math.max(...e))} (median ${pct(quant(e, 0.5))})`;
  };
  console.log(`\nWhole corpus conversations (${convs.length}), signed error of the sum: via o200k ${conv("o200k")}; via cl100k ${conv("cl100k")}; via chars ${conv("chars")}.`);
}

// ---- Gemini 3 Pro's own counts --------------------------------------------------------------
const gem = JSON.parse(fs.readFileSync(path.join(here, "out/gemini_calls.json"), "utf8"));
for (const c of gem) for (const m of c.messages) m.cls = classify(m.text);
const g = fits.gemini;
const visible = [], proxy = [], prompts = [], promptsProxy = [], perConv = [];
for (const c of gem) {
  const last = c.calls.at(-1);
  for (const call of c.calls) {
    const m = c.messages[call.index];
    if (call.visible >= 20) {
      visible.push((estimate(g, "o200k", m) - call.visible) / call.visible);
      proxy.push((m.gemma3 - call.visible) / call.visible);
    }
    const ctx = c.messages.slice(0, call.index);
    const est = ctx.reduce((a, m) => a + estimate(g, "o200k", m), 0);
    prompts.push((est - call.prompt) / call.prompt);
    promptsProxy.push((ctx.reduce((a, m) => a + m.gemma3, 0) - call.prompt) / call.prompt);
    if (call === last) perConv.push((est - call.prompt) / call.prompt);
  }
}
const dist = (e) => `median ${pct(quant(e, 0.5))}, p5 ${pct(quant(e, 0.05))}, p95 ${pct(quant(e, 0.95))}, |median| ${abs(quant(e.map(Math.abs), 0.5))}, |p95| ${abs(quant(e.map(Math.abs), 0.95))}, under ${abs(e.filter((v) => v < 0).length / e.length)}`;
console.log(`\n### Gemini 3 Pro's reported counts (${gem.length} trajectories, ${prompts.length} calls)\n`);
console.log(`- visible output tokens of ${visible.length} messages (>= 20 tokens), Gemma 3 vocabulary: ${dist(proxy)}`);
console.log(`- the same messages, ctxfold's gemini estimate: ${dist(visible)}`);
console.log(`- prompt tokens of every call, sum of Gemma 3 counts of the messages sent (no per-message overhead): ${dist(promptsProxy)}`);
console.log(`- prompt tokens of every call, sum of ctxfold's gemini estimates: ${dist(prompts)}`);
console.log(`- prompt tokens of the last call of each trajectory, ctxfold's estimate: ${perConv.map(pct).join(", ")}`);

fs.writeFileSync(path.join(here, "out/factors.json"), JSON.stringify({ percentile: P, k: K, fits }, null, 1));
