// Prints the size of every shipped .wasm and vocabulary file: raw, gzip -9 and brotli.
// Usage: node scripts/sizes.mjs [pkg] [--json]
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { gzipSync, brotliCompressSync, constants } from "node:zlib";

const root = process.argv[2] && !process.argv[2].startsWith("--") ? process.argv[2] : "pkg";
const files = [];
(function walk(dir) {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (/\.(wasm|ctxv)$/.test(name)) files.push(path);
  }
})(root);

const rows = files.map((path) => {
  const data = readFileSync(path);
  return {
    file: relative(root, path),
    raw: data.length,
    gzip: gzipSync(data, { level: 9 }).length,
    brotli: brotliCompressSync(data, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: data.length },
    }).length,
  };
});

if (process.argv.includes("--json")) {
  console.log(JSON.stringify(rows, null, 2));
} else {
  const kb = (n) => (n / 1000).toFixed(1).padStart(9) + " KB";
  console.log(`${"file".padEnd(28)}${"raw".padStart(12)}${"gzip -9".padStart(12)}${"brotli".padStart(12)}`);
  for (const r of rows) console.log(`${r.file.padEnd(28)}${kb(r.raw)}${kb(r.gzip)}${kb(r.brotli)}`);
}
