// ctxfold/lite for Node.js (no vocabulary inside the wasm: loadVocabulary reads the file
// shipped in ctxfold/vocab). The module is compiled synchronously, so require() works.
import { readFileSync } from "node:fs";
import * as raw from "../dist/lite/ctxfold.js";
import { api } from "../lib/entry.js";
import { nodeSources } from "../lib/node-vocabulary.js";

raw.initSync({ module: readFileSync(new URL("../dist/lite/ctxfold_bg.wasm", import.meta.url)) });

export const { /* @exports */ } = api(raw, nodeSources(new URL("../", import.meta.url)));
