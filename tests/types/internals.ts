// wasm-bindgen's internals are not part of the package's API.
// @ts-expect-error: installVocabulary is internal (loadVocabulary wraps it)
import { installVocabulary } from "ctxfold";
// @ts-expect-error: initialisation happens inside the entry points
import { initSync } from "ctxfold/lite";

void [installVocabulary, initSync];
