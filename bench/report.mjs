#!/usr/bin/env node
// Renders results/tokenizers.json (written by tokenizers.mjs) as Markdown.
//
//   node report.mjs                  print the Markdown
//   node report.mjs --write          replace the block between the results markers in README.md
//   node report.mjs FILE [--write]   another results file
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith("--")) ?? join(here, "results", "tokenizers.json");
const r = JSON.parse(readFileSync(file, "utf8"));

const f1 = (x) => x.toFixed(1);
const f2 = (x) => x.toFixed(2);
const kb = (n) => (n / 1000).toFixed(1);
const mib = (k) => (k / 1024).toFixed(1);
const row = (cells) => `| ${cells.join(" | ")} |`;
const tableMd = (header, rows, align) =>
  [row(header), row(header.map((_, i) => (align?.[i] ?? (i === 0 ? "l" : "r")) === "l" ? "---" : "---:")), ...rows.map(row)].join("\n");

const out = [];
const m = r.meta;
out.push(
  `Run of ${m.date.slice(0, 16).replace("T", " ")} UTC${m.quick ? " (--quick)" : ""}: node ${m.node}, ${m.cores} x ${m.cpu}, ` +
    `load average ${m.loadavgStart.map(f2).join(" ")} at the start and ${m.loadavgEnd.map(f2).join(" ")} at the end (the cores are shared), ` +
    `${Math.round(m.seconds)} s. ctxfold ${m.versions.ctxfold} (dist/full/ctxfold_bg.wasm sha256 ${m.ctxfoldFullWasm.sha256}), ` +
    `gpt-tokenizer ${m.versions["gpt-tokenizer"]}, ai-tokenizer ${m.versions["ai-tokenizer"]}, js-tiktoken ${m.versions["js-tiktoken"]}, tiktoken ${m.versions.tiktoken}.`,
  "",
);

if (r.targets) {
  out.push("**Targets**", "");
  out.push(
    tableMd(
      ["", "target", "measured", "limit"],
      r.targets.map((t) => [t.pass === null ? "info" : t.pass ? "**PASS**" : "**FAIL**", t.name.trim(), t.measured, t.limit]),
      ["l", "l", "l", "l"],
    ),
    "",
  );
}

out.push(`**Text**: ${r.corpus.messages} messages, ${(r.corpus.bytes / 1e6).toFixed(2)} MB (digest ${r.corpus.digest}); ${r.corpus.chunks} strings of about 1 MB in whole-text mode.`, "");
out.push(
  tableMd(
    ["category", "messages", "bytes", "bytes/message"],
    r.composition.map((c) => [c.category, c.messages, c.bytes, Math.round(c.bytes / c.messages)]),
  ),
  "",
);

if (r.throughput) {
  for (const enc of Object.keys(r.throughput.report)) {
    for (const [key, label] of [["messages", "per message"], ["whole", "whole text (~1 MB strings)"]]) {
      const t = r.throughput.report[enc][key];
      const names = Object.keys(t.libraries);
      const rounds = t.libraries.ctxfold.mbps.length;
      out.push(`**Throughput, ${enc}, ${label}** (MB/s per round and median; ctxfold / library, median of per-round ratios)`, "");
      out.push(
        tableMd(
          ["library", ...[...Array(rounds).keys()].map((i) => `round ${i + 1}`), "median MB/s", ...(key === "messages" ? ["messages/s"] : []), "ctxfold ×"],
          names.map((n) => {
            const x = t.libraries[n];
            return [n, ...x.mbps.map(f1), f1(x.medianMbps), ...(key === "messages" ? [Math.round(x.medianItemsPerSecond)] : []), n === "ctxfold" ? "" : f2(x.medianCtxfoldRatio)];
          }),
        ),
        "",
      );
    }
  }
  if (r.throughput.byCategory) {
    for (const enc of Object.keys(r.throughput.byCategory)) {
      const cats = r.throughput.byCategory[enc];
      const names = Object.keys(Object.values(cats)[0]);
      out.push(`**By category, ${enc}** (MB/s, caches warm, js-tiktoken left out)`, "");
      out.push(tableMd(["category", ...names], Object.entries(cats).map(([c, v]) => [c, ...names.map((n) => f1(v[n]))])), "");
    }
  }
}

if (r.coldStart) {
  out.push("**Cold start** (fresh process; import to first o200k_base count, ms)", "");
  out.push(
    tableMd(
      ["library", "median ms", "min", "max", "× gpt-tokenizer"],
      Object.entries(r.coldStart).map(([n, x]) => [n, f1(x.median), f1(x.min), f1(x.max), f2(x.ratioToGptTokenizer)]),
    ),
    "",
  );
}

if (r.peakRss) {
  const p = r.peakRss;
  out.push(`**Peak RSS** (maxRSS, counting every message with o200k_base; bare node ${mib(p.bareNodeKB)} MiB, node reading the texts only ${mib(p.corpusOnlyKB)} MiB)`, "");
  out.push(
    tableMd(
      ["library", "peak MiB", "above bare node MiB", "above texts-only MiB"],
      Object.entries(p.libraries).map(([n, x]) => [n, mib(x.median), mib(x.aboveBaselineKB), mib(x.aboveCorpusOnlyKB)]),
    ),
    "",
  );
}

if (r.size) {
  for (const enc of Object.keys(r.size.libraries)) {
    out.push(`**Shipped size, ${enc}** (every file loaded to count with ${enc}; KB = 1000 bytes)`, "");
    out.push(
      tableMd(
        ["library", "files", "raw KB", "gzip -9 KB", "brotli KB", "largest file"],
        Object.entries(r.size.libraries[enc]).map(([n, x]) => [n, x.files.length, kb(x.raw), kb(x.gzip), kb(x.brotli), `\`${x.largest}\``]),
        ["l", "r", "r", "r", "r", "l"],
      ),
      "",
    );
  }
  out.push("**ctxfold files** (scripts/sizes.mjs)", "");
  out.push(tableMd(["file", "raw KB", "gzip -9 KB", "brotli KB"], r.size.ctxfold.map((x) => [`\`${x.file}\``, kb(x.raw), kb(x.gzip), kb(x.brotli)])), "");
}

const md = out.join("\n");
if (args.includes("--write")) {
  const readme = join(here, "README.md");
  const text = readFileSync(readme, "utf8");
  const start = "<!-- results:start -->";
  const end = "<!-- results:end -->";
  const a = text.indexOf(start);
  const b = text.indexOf(end);
  if (a === -1 || b === -1) throw new Error(`README.md has no ${start} ... ${end} block`);
  writeFileSync(readme, text.slice(0, a + start.length) + "\n" + md + "\n" + text.slice(b));
  console.log(`README.md: results block rewritten from ${file}`);
} else {
  console.log(md);
}
