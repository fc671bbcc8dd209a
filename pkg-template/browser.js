// ctxfold for browsers and bundlers: the module is fetched from beside this file. Both
// vocabularies are embedded, so loadVocabulary() resolves at once.
import * as raw from "./dist/full/ctxfold.js";
import { api } from "./lib/entry.js";
import { fetchBytes } from "./lib/vocabulary.js";

await raw.default({ module_or_path: new URL("./dist/full/ctxfold_bg.wasm", import.meta.url) });

export const { /* @exports */ } = api(raw, { fetchBytes, defaultSource: null });
