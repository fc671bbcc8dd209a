// The docs' ```toml blocks (wrangler.toml) parse, and each matches the Worker it configures:
// the ```js block before it in the same doc. Its `main` is the file that block names in its
// first line's comment, every Durable Object binding is read from `env` there and names a
// class the Worker exports, and every such class is created by a migration (new_classes or
// new_sqlite_classes), as wrangler requires. The compatibility date is not after the one the
// workerd layer runs the same Worker with (tests/workerd/readme.test.mjs). The TOML parser is
// smol-toml, pinned in docs/api-build (the docs layer installs it).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { codeBlocks, docFiles, repoRoot, where } from "../support/doc-blocks.mjs";

const require = createRequire(join(repoRoot, "docs/api-build/package.json"));
const { parse } = await import(pathToFileURL(require.resolve("smol-toml")).href);

const workerdTest = readFileSync(join(repoRoot, "tests/workerd/readme.test.mjs"), "utf8");
const testedDate = /compatibilityDate: "(\d{4}-\d{2}-\d{2})"/.exec(workerdTest)[1];

const tomls = docFiles().flatMap((file) => {
  const blocks = codeBlocks(file);
  return blocks.flatMap((b, i) => (b.lang === "toml" ? [{ toml: b, worker: blocks.slice(0, i).findLast((p) => p.lang === "js") }] : []));
});

test("the docs have wrangler.toml blocks to check", () => {
  assert.ok(tomls.length >= 2, `${tomls.length} toml blocks`);
});

for (const { toml, worker } of tomls) {
  test(`${where(toml)}: the wrangler.toml parses and matches the Worker before it`, () => {
    const config = parse(toml.code);
    assert.ok(worker, `${where(toml)}: no js block before it`);
    assert.equal(typeof config.name, "string");
    assert.match(config.compatibility_date, /^\d{4}-\d{2}-\d{2}$/);
    assert.ok(config.compatibility_date <= testedDate, `compatibility_date ${config.compatibility_date} is after the tested ${testedDate}`);
    const main = /^\/\/ (\S+\.m?js)$/m.exec(worker.code)?.[1];
    assert.equal(config.main, main, `main is not the file the Worker's block names (${main})`);
    const bindings = config.durable_objects?.bindings ?? [];
    assert.ok(bindings.length > 0, "no Durable Object binding");
    const created = new Set((config.migrations ?? []).flatMap((m) => [...(m.new_classes ?? []), ...(m.new_sqlite_classes ?? [])]));
    for (const m of config.migrations ?? []) assert.equal(typeof m.tag, "string", "a migration without a tag");
    for (const b of bindings) {
      assert.ok(worker.code.includes(`env.${b.name}`), `the Worker does not read env.${b.name}`);
      assert.match(worker.code, new RegExp(`export class ${b.class_name}\\b`), `the Worker exports no class ${b.class_name}`);
      assert.ok(created.has(b.class_name), `no migration creates ${b.class_name}`);
    }
  });
}
