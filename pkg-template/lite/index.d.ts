/**
 * Loads a vocabulary this lite build does not embed, and checks it (format, checksum,
 * and that it is the encoding named). `source` is the `.ctxv` file's bytes, a URL or a
 * Response; without one, Node reads and browsers fetch the file shipped in `ctxfold/vocab`
 * (workerd needs a source: import the file as a Data module, or fetch it).
 *
 * ```ts
 * import { loadVocabulary, countTokens } from "ctxfold/lite";
 * await loadVocabulary("o200k_base");
 * countTokens("hello", { encoding: "o200k_base" });
 * ```
 */
export declare function loadVocabulary(encoding: Encoding, source?: VocabularySource): Promise<void>;

/** Where `loadVocabulary` reads a `.ctxv` file from. */
export type VocabularySource = Uint8Array | ArrayBuffer | URL | string | Response;

export { /* @exports */ } from "../dist/lite/ctxfold.js";
export type { /* @types */ } from "../dist/lite/ctxfold.js";
import type { Encoding } from "../dist/lite/ctxfold.js";
