// ctxfold for Cloudflare Workers (workerd): the bundler imports the .wasm file as a
// compiled WebAssembly.Module, so instantiation is synchronous and costs no request time.
import wasmModule from "./dist/full/ctxfold_bg.wasm";
import { initSync, installVocabulary, hasVocabulary } from "./dist/full/ctxfold.js";
import { vocabularyLoader, fetchBytes } from "./lib/vocabulary.js";

initSync({ module: wasmModule });

/** Embedded in this build: resolves at once for o200k_base and cl100k_base. */
export const loadVocabulary = vocabularyLoader({
  install: installVocabulary,
  has: hasVocabulary,
  fetchBytes,
  defaultSource: null,
});
export { /* @exports */ } from "./dist/full/ctxfold.js";
