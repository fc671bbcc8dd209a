// ctxfold for Cloudflare Workers (workerd): the bundler imports the .wasm file as a
// compiled WebAssembly.Module, so instantiation is synchronous and costs no request time.
import wasmModule from "./dist/full/ctxfold_bg.wasm";
import * as raw from "./dist/full/ctxfold.js";
import { api } from "./lib/entry.js";
import { fetchBytes } from "./lib/vocabulary.js";

raw.initSync({ module: wasmModule });

export const { /* @exports */ } = api(raw, { fetchBytes, defaultSource: null });
