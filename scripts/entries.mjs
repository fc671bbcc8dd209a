// Writes the package's entry points (node.js, browser.js, workerd.js and their lite
// twins, plus index.d.ts files) from the templates in pkg-template/, filling in the
// names the generated bindings declare (and loadVocabulary, which lib/entry.js adds).
// Listing names, instead of `export *`, keeps wasm-bindgen's initSync and default init
// and ctxfold's internals out of the public API.
// Usage: node scripts/entries.mjs pkg
import { readFileSync, writeFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

const out = process.argv[2] ?? "pkg";
// wasm-bindgen's loader API is not ctxfold's: the entry points initialise the module.
const internal = new Set([
  "initSync",
  "default",
  "installVocabulary",
  "InitInput",
  "InitOutput",
  "SyncInitInput",
  "__wbg_reset_state",
  "start",
]);
// Values the API adds beside the bindings' own (lib/entry.js; declared by hand in index.d.ts).
const added = ["loadVocabulary"];

function exportsOf(dts) {
  const text = readFileSync(dts, "utf8");
  const values = new Set();
  const types = new Set();
  for (const m of text.matchAll(/^export (?:declare )?(function|class|const|type|interface|enum) (\w+)/gm)) {
    const [, kind, name] = m;
    if (internal.has(name)) continue;
    (kind === "type" || kind === "interface" ? types : values).add(name);
  }
  return { values: [...values].sort(), types: [...types].sort() };
}

const list = (names) => names.map((n) => `  ${n},`).join("\n");

for (const variant of ["full", "lite"]) {
  const { values: bound, types } = exportsOf(join(out, "dist", variant, "ctxfold.d.ts"));
  const values = [...bound, ...added].sort();
  const dir = variant === "full" ? out : join(out, "lite");
  for (const file of readdirSync(dir)) {
    if (!/\.(js|d\.ts)$/.test(file)) continue;
    const path = join(dir, file);
    const text = readFileSync(path, "utf8");
    if (!text.includes("/* @exports */") && !text.includes("/* @types */")) continue;
    // The .d.ts files declare loadVocabulary themselves and re-export the bindings' names.
    const names = file.endsWith(".d.ts") ? bound : values;
    writeFileSync(
      path,
      text.replace("/* @exports */", `\n${list(names)}\n`).replace("/* @types */", `\n${list(types)}\n`),
    );
  }
}
