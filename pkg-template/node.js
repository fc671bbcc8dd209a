// ctxfold for Node.js: the module is compiled synchronously from the file beside it,
// so there is no top-level await and require() of this package works (Node 20.19+).
import { readFileSync } from "node:fs";
import { initSync, installVocabulary, hasVocabulary } from "./dist/full/ctxfold.js";
import { nodeLoader } from "./lib/node-vocabulary.js";

initSync({ module: readFileSync(new URL("./dist/full/ctxfold_bg.wasm", import.meta.url)) });

/** Embedded in this build: resolves at once for o200k_base and cl100k_base. */
export const loadVocabulary = nodeLoader(installVocabulary, hasVocabulary);
export { /* @exports */ } from "./dist/full/ctxfold.js";
