// The code blocks of the user docs (README.md, docs/*.md), as the tests that run them read
// them. A block is ```lang ... ```; the line right before its fence may say how it is checked:
//
//   <!-- check: page tests/browser/x.test.mjs -->   run by that test (in Chromium, workerd, ...),
//                                                    which reads the block from the doc itself
//   <!-- check: skip REASON -->                      not run; tests/js/docs.test.mjs counts and
//                                                    prints every skip
//
// A ```js block with no such line runs in Node (tests/js/docs.test.mjs). Imports nothing but
// node:, so every test layer can use it.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

/** The user docs the blocks come from: README.md and docs/**\/*.md (docs/api excluded). */
export function docFiles() {
  const files = ["README.md"];
  (function walk(dir) {
    for (const name of readdirSync(join(repoRoot, dir), { withFileTypes: true })) {
      const path = `${dir}/${name.name}`;
      if (name.isDirectory()) {
        if (path !== "docs/api" && path !== "docs/api-build" && name.name !== "node_modules") walk(path);
      } else if (name.name.endsWith(".md")) files.push(path);
    }
  })("docs");
  return files.sort();
}

/** Every code block of `file` (relative to the repository): { file, line, lang, code, heading, check }. */
export function codeBlocks(file) {
  const text = readFileSync(join(repoRoot, file), "utf8");
  const lines = text.split("\n");
  const out = [];
  let heading = null;
  for (let i = 0; i < lines.length; i++) {
    const h = /^(#{1,4}) (.*)$/.exec(lines[i]);
    if (h) heading = h[2];
    // A fence may be indented (inside a list item); its lines lose that indent.
    const open = /^( *)```(\w*)\s*$/.exec(lines[i]);
    if (!open) continue;
    const start = i;
    const indent = open[1];
    const body = [];
    for (i++; i < lines.length && lines[i] !== `${indent}\`\`\``; i++) body.push(lines[i].startsWith(indent) ? lines[i].slice(indent.length) : lines[i]);
    const before = lines[start - 1] ?? "";
    const c = /^<!-- check: (\S+)(?: (.*?))? -->$/.exec(before.trim());
    out.push({
      file,
      line: start + 1,
      lang: open[2],
      code: body.join("\n") + "\n",
      heading,
      check: c ? { kind: c[1], arg: c[2] ?? "" } : null,
    });
  }
  return out;
}

/** The blocks of `file` under the heading `heading` (exact text, without the #s), of `lang`. */
export function blocksUnder(file, heading, lang = "js") {
  const found = codeBlocks(file).filter((b) => b.heading === heading && b.lang === lang);
  if (found.length === 0) throw new Error(`${file} has no \`\`\`${lang} block under "${heading}"`);
  return found.map((b) => b.code);
}

/** `expr; // 4 (...)` -> `assert.equal(expr, 4);`, and an import of assert first. */
export function withAssertions(code) {
  const lines = code.split("\n").map((line) => {
    const m = line.match(/^(\s*)(.+?);\s*\/\/ (\d+)\b/);
    return m ? `${m[1]}assert.equal(${m[2]}, ${m[3]}, ${JSON.stringify(m[2])});` : line;
  });
  return `import assert from "node:assert/strict";\n${lines.join("\n")}`;
}

export const where = (block) => `${relative(repoRoot, join(repoRoot, block.file))}:${block.line}`;

/**
 * The blocks of every user doc whose check line names `testFile` (relative to the repository,
 * e.g. "tests/workerd/readme.test.mjs"): what that test runs. Throws when there are none, so
 * a test whose blocks moved away fails rather than running nothing.
 */
export function checkedBy(testFile, lang = "js") {
  const found = docFiles()
    .flatMap(codeBlocks)
    .filter((b) => b.lang === lang && b.check && b.check.arg.split(" ")[0] === testFile);
  if (found.length === 0) throw new Error(`no \`\`\`${lang} block of the docs says <!-- check: ... ${testFile} -->`);
  return found;
}
