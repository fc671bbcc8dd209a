// ctxfold/lite for Cloudflare Workers (workerd): no vocabulary inside the wasm; give
// loadVocabulary the .ctxv file's bytes (a Data module), a URL or a Response.
import wasmModule from "../dist/lite/ctxfold_bg.wasm";
import * as raw from "../dist/lite/ctxfold.js";
import { api } from "../lib/entry.js";
import { fetchBytes } from "../lib/vocabulary.js";

raw.initSync({ module: wasmModule });

export const { /* @exports */ } = api(raw, { fetchBytes, defaultSource: null });
