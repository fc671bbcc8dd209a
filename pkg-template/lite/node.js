// ctxfold/lite (no vocabulary inside the wasm; see loadVocabulary) for Node.js: the module is compiled synchronously from the file beside it,
// so there is no top-level await and require() of this package works (Node 20.19+).
import { readFileSync } from "node:fs";
import { initSync, installVocabulary, hasVocabulary } from "../dist/lite/ctxfold.js";
import { nodeLoader } from "../lib/node-vocabulary.js";

initSync({ module: readFileSync(new URL("../dist/lite/ctxfold_bg.wasm", import.meta.url)) });

/** Loads a vocabulary this lite build does not embed: from bytes, a URL, a Response, or (Node, browsers) the file shipped in ctxfold/vocab. */
export const loadVocabulary = nodeLoader(installVocabulary, hasVocabulary);
export { /* @exports */ } from "../dist/lite/ctxfold.js";
