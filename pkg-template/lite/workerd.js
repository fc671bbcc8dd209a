// ctxfold/lite (no vocabulary inside the wasm; see loadVocabulary) for Cloudflare Workers (workerd): the bundler imports the .wasm file as a
// compiled WebAssembly.Module, so instantiation is synchronous and costs no request time.
import wasmModule from "../dist/lite/ctxfold_bg.wasm";
import { initSync, installVocabulary, hasVocabulary } from "../dist/lite/ctxfold.js";
import { vocabularyLoader, fetchBytes } from "../lib/vocabulary.js";

initSync({ module: wasmModule });

/** Loads a vocabulary this lite build does not embed: from bytes, a URL, a Response, or (Node, browsers) the file shipped in ctxfold/vocab. */
export const loadVocabulary = vocabularyLoader({
  install: installVocabulary,
  has: hasVocabulary,
  fetchBytes,
  defaultSource: null,
});
export { /* @exports */ } from "../dist/lite/ctxfold.js";
