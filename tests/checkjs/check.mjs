// The checkjs layer's second half (scripts/test.sh), after tsc -p of pkg-template/tsconfig.json
// and pkg-template/bin/tsconfig.json: what those two cannot hold yet. checkJs reports the errors
// of every JavaScript file a program reaches, listed or imported, so a typed file that imports
// one not typed yet stays out of their lists. This checks every file of pkg-template/ under the
// same two configurations (the DOM's types for lib/ and testing/, Node's for bin/ and
// lib/node.js) and holds that:
//
// - no file has an error but those in PENDING (the files not typed yet), so a typed file that
//   only waits on its imports keeps passing;
// - each file in PENDING still has errors (one that has none joins a list, and leaves PENDING);
// - no file silences the checker (@ts-ignore, @ts-nocheck, @ts-expect-error).
//
// It prints the errors left in each pending file.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = fileURLToPath(new URL("../../", import.meta.url));
const template = join(root, "pkg-template");

/** Files not typed yet (none now: a file that joins the package is typed from the start). */
const PENDING = new Set([]);

/** `dir`'s .js and .mjs files, as paths from pkg-template/. */
function sources(dir) {
  return readdirSync(join(template, dir))
    .filter((name) => /\.m?js$/.test(name))
    .map((name) => `${dir}/${name}`);
}
const universal = [...sources("lib").filter((f) => f !== "lib/node.js"), ...sources("testing")];
const node = [...sources("bin"), "lib/node.js"];

/** The diagnostics of `files` under the options of `config`, by file (from pkg-template/). */
function check(config, files) {
  const host = { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n")); } };
  const parsed = ts.getParsedCommandLineOfConfigFile(join(template, config), {}, host);
  const program = ts.createProgram({ rootNames: files.map((f) => join(template, f)), options: parsed.options });
  const byFile = new Map();
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const file = d.file ? relative(template, d.file.fileName).split("\\").join("/") : "(no file)";
    const where = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : null;
    const line = `${file}${where ? `(${where.line + 1},${where.character + 1})` : ""}: ${ts.flattenDiagnosticMessageText(d.messageText, " ")}`;
    byFile.set(file, [...(byFile.get(file) ?? []), line]);
  }
  return byFile;
}

const problems = [];
const left = new Map();
for (const [config, files] of [["tsconfig.json", universal], ["bin/tsconfig.json", node]]) {
  for (const [file, errors] of check(config, files)) {
    if (PENDING.has(file)) left.set(file, Math.max(left.get(file) ?? 0, errors.length));
    else problems.push(...errors.map((e) => `${config}: ${e}`));
  }
}
for (const file of PENDING) {
  if (!left.has(file)) problems.push(`${file} has no error left: add it to its tsconfig's include list and take it out of PENDING (tests/checkjs/check.mjs)`);
}
for (const file of (function* walk(dir) {
  for (const entry of readdirSync(join(template, dir), { withFileTypes: true })) {
    const path = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) yield* walk(path);
    else if (/\.(m?js|ts)$/.test(entry.name)) yield path;
  }
})("")) {
  const text = readFileSync(join(template, file), "utf8");
  for (const m of text.matchAll(/@ts-(ignore|nocheck|expect-error)\b/g)) problems.push(`${file}: @ts-${m[1]} (type the code instead)`);
}

for (const [file, n] of [...left].sort()) console.log(`pending  ${file}: ${n} error${n === 1 ? "" : "s"}`);
if (problems.length > 0) {
  console.error(problems.join("\n"));
  console.error(`checkjs: ${problems.length} problem${problems.length === 1 ? "" : "s"}`);
  process.exit(1);
}
console.log(`checkjs: ${universal.length + node.length - PENDING.size} files without errors, ${PENDING.size} pending`);
