/**
 * Makes an encoding's vocabulary available. In this build both are embedded, so it
 * resolves at once; it exists so code written for `ctxfold/lite` runs unchanged.
 */
export declare function loadVocabulary(encoding: Encoding, source?: VocabularySource): Promise<void>;

/** Where `loadVocabulary` reads a `.ctxv` file from. */
export type VocabularySource = Uint8Array | ArrayBuffer | URL | string | Response;

export { /* @exports */ } from "./dist/full/ctxfold.js";
export type { /* @types */ } from "./dist/full/ctxfold.js";
import type { Encoding } from "./dist/full/ctxfold.js";
