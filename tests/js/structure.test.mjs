// The structure rules of tests/structure.rs, for the package's JavaScript (pkg-template/: the
// library, the command line, the testing module): no function over 100 lines, no file over
// 700. Functions are found by TypeScript's parser, so a brace in a string or a regex cannot
// fool the count. A class declared inside a factory function (`compactorWith` returns the
// Compactor class) is not part of the factory's length: its methods are measured one by one.
//
// What breaks a rule today is listed in KNOWN with its size now: such an entry may shrink, not
// grow, and one that meets the rule must leave the list, so the list only ever gets shorter.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));
const MAX_FUNCTION = 100;
const MAX_FILE = 700;

/** `path` or `path#function`: the size it has today, which it may not exceed. */
const KNOWN = new Map([]);

function* sources(dir) {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* sources(path);
    else if (/\.m?js$/.test(name)) yield path;
  }
}

/** Every function of `text` with its length in lines, nested classes' lines left out. */
export function functionLengths(path, text) {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const line = (pos) => file.getLineAndCharacterOfPosition(pos).line;
  const span = (n) => line(n.end) - line(n.getStart(file)) + 1;
  const out = [];
  const classLines = (n) => {
    let lines = 0;
    n.forEachChild(function walk(c) {
      if (ts.isClassLike(c)) lines += span(c);
      else if (!ts.isFunctionLike(c)) c.forEachChild(walk);
    });
    return lines;
  };
  (function visit(n) {
    if (ts.isFunctionLike(n) && n.body) {
      const name = n.name ? n.name.getText(file).replace(/^#/, "") : `(anonymous at line ${line(n.getStart(file)) + 1})`;
      out.push({ name, lines: span(n) - classLines(n.body) });
    }
    n.forEachChild(visit);
  })(file);
  return out;
}

test("the package's JavaScript keeps the structure rules: functions of at most 100 lines, files of at most 700", () => {
  const seen = new Map();
  let functions = 0;
  for (const path of sources(join(root, "pkg-template"))) {
    const rel = relative(root, path).split("\\").join("/");
    const text = readFileSync(path, "utf8");
    const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    if (lines > MAX_FILE) seen.set(rel, lines);
    for (const f of functionLengths(path, text)) {
      functions++;
      if (f.lines > MAX_FUNCTION) seen.set(`${rel}#${f.name}`, f.lines);
    }
  }
  assert.ok(functions > 300, `only ${functions} functions found: is the scan broken?`);
  const problems = [];
  for (const [what, size] of seen) {
    const ceiling = KNOWN.get(what);
    const limit = what.includes("#") ? MAX_FUNCTION : MAX_FILE;
    if (ceiling === undefined) problems.push(`${what}: ${size} lines (at most ${limit})`);
    else if (size > ceiling) problems.push(`${what}: ${size} lines, more than the ${ceiling} it had (it must shrink to ${limit})`);
  }
  for (const what of KNOWN.keys()) {
    if (!seen.has(what)) problems.push(`${what} keeps the rule now: take it out of KNOWN`);
  }
  assert.deepEqual(problems, []);
});

test("the scan counts what a function spans, and leaves out a class inside a factory", () => {
  const body = (n) => Array.from({ length: n }, (_, i) => `  const x${i} = ${i};`).join("\n");
  const text = `function small() {\n${body(3)}\n}\nfunction factory() {\n  class Inner {\n    method() {\n${body(120)}\n    }\n  }\n  return Inner;\n}\n`;
  const got = Object.fromEntries(functionLengths("x.js", text).map((f) => [f.name, f.lines]));
  assert.equal(got.small, 5);
  assert.equal(got.method, 122);
  // factory: its opening line, its return and its closing brace (the class's 124 left out).
  assert.equal(got.factory, 3);
});
