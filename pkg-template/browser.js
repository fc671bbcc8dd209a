// ctxfold for browsers and bundlers: the module is fetched from beside this file.
import init, { installVocabulary, hasVocabulary } from "./dist/full/ctxfold.js";
import { vocabularyLoader, fetchBytes } from "./lib/vocabulary.js";

await init({ module_or_path: new URL("./dist/full/ctxfold_bg.wasm", import.meta.url) });

/** Embedded in this build: resolves at once for o200k_base and cl100k_base. */
export const loadVocabulary = vocabularyLoader({
  install: installVocabulary,
  has: hasVocabulary,
  fetchBytes,
  defaultSource: null,
});
export { /* @exports */ } from "./dist/full/ctxfold.js";
