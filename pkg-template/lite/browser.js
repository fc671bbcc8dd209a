// ctxfold/lite for browsers and bundlers (no vocabulary inside the wasm: loadVocabulary
// fetches the file shipped in ctxfold/vocab, or takes bytes, a URL or a Response).
import * as raw from "../dist/lite/ctxfold.js";
import { api } from "../lib/entry.js";
import { fetchBytes } from "../lib/vocabulary.js";

await raw.default({ module_or_path: new URL("../dist/lite/ctxfold_bg.wasm", import.meta.url) });

export const { /* @exports */ } = api(raw, {
  fetchBytes,
  defaultSource: (encoding) => new URL(`../vocab/${encoding}.ctxv`, import.meta.url),
});
