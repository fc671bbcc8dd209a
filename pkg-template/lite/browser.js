// ctxfold/lite (no vocabulary inside the wasm; see loadVocabulary) for browsers and bundlers: the module is fetched from beside this file.
import init, { installVocabulary, hasVocabulary } from "../dist/lite/ctxfold.js";
import { vocabularyLoader, fetchBytes } from "../lib/vocabulary.js";

await init({ module_or_path: new URL("../dist/lite/ctxfold_bg.wasm", import.meta.url) });

/** Loads a vocabulary this lite build does not embed: from bytes, a URL, a Response, or (Node, browsers) the file shipped in ctxfold/vocab. */
export const loadVocabulary = vocabularyLoader({
  install: installVocabulary,
  has: hasVocabulary,
  fetchBytes,
  defaultSource: (encoding) => new URL(`../vocab/${encoding}.ctxv`, import.meta.url),
});
export { /* @exports */ } from "../dist/lite/ctxfold.js";
