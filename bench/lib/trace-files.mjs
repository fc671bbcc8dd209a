// Preloaded with `node --import ./lib/trace-files.mjs` (and CTXFOLD_TRACE_FILE set) by the
// size measurement: records every file the process loads, whether as an ES module (loader
// hook, which also sees CommonJS files imported from ESM), a CommonJS require (the CJS loader
// reads through fs.readFileSync) or data read with fs (.wasm, vocabulary files).
import fs from "node:fs";
import fsp from "node:fs/promises";
import { register, syncBuiltinESMExports } from "node:module";
import { fileURLToPath } from "node:url";

const out = process.env.CTXFOLD_TRACE_FILE;
if (!out) throw new Error("CTXFOLD_TRACE_FILE is not set");
const note = (p) => {
  if (typeof p === "number") return; // a file descriptor: its path was noted when it was opened
  const path = p instanceof URL ? fileURLToPath(p) : Buffer.isBuffer(p) ? p.toString() : String(p);
  fs.appendFileSync(out, path + "\n");
};
for (const [obj, name] of [[fs, "readFileSync"], [fs, "readFile"], [fs, "openSync"], [fs, "open"], [fsp, "readFile"], [fsp, "open"]]) {
  const orig = obj[name];
  obj[name] = function (path, ...rest) {
    note(path);
    return orig.call(this, path, ...rest);
  };
}
syncBuiltinESMExports();
register("./trace-hooks.mjs", import.meta.url, { data: { out } });
