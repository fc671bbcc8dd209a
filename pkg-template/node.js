// ctxfold for Node.js: the module is compiled synchronously from the file beside it,
// so there is no top-level await and require() of this package works (Node 20.19+).
import { readFileSync } from "node:fs";
import * as raw from "./dist/full/ctxfold.js";
import { api } from "./lib/entry.js";
import { nodeSources } from "./lib/node-vocabulary.js";

raw.initSync({ module: readFileSync(new URL("./dist/full/ctxfold_bg.wasm", import.meta.url)) });

export const { /* @exports */ } = api(raw, nodeSources(new URL("./", import.meta.url)));
