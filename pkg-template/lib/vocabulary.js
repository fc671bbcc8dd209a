// Loading vocabularies at run time: shared by every entry point. The bytes are checked
// and installed by the wasm side (installVocabulary: format, checksum, and the SHA-256
// pinned for the shipped file), which throws the typed errors; a source that cannot be
// read or fetched is VOCABULARY_UNAVAILABLE here, with the original error as its cause.

import { ctxfoldError, invalidArgument } from "./values.js";

/** @typedef {import("./types.d.ts").Encoding} Encoding */
/** @typedef {import("./types.d.ts").VocabularySource} VocabularySource */
/** @typedef {(source: URL | string) => Promise<Uint8Array>} FetchBytes */
/**
 * What vocabularyLoader's errors are: ctxfold's, with a code and the original error as cause.
 * @typedef {Error & { code?: string }} CodedError
 */

/**
 * @param {object} platform
 * @param {(bytes: Uint8Array, encoding: Encoding) => void} platform.install
 * @param {(encoding: Encoding) => boolean} platform.has
 * @param {FetchBytes} platform.fetchBytes
 * @param {((encoding: Encoding) => URL | null) | null} platform.defaultSource
 */
export function vocabularyLoader({ install, has, fetchBytes, defaultSource }) {
  /**
   * @param {Encoding} encoding
   * @param {VocabularySource} [source]
   * @returns {Promise<void>}
   */
  return async function loadVocabulary(encoding, source) {
    // Validates the name (UNKNOWN_ENCODING) and skips work already done.
    if (has(encoding)) return;
    if (source === undefined) {
      if (!defaultSource) {
        throw invalidArgument(
          "source",
          `the ${encoding}.ctxv bytes (Uint8Array or ArrayBuffer), a URL or a Response; ` +
            `this runtime cannot locate the file shipped in ctxfold/vocab by itself`,
        );
      }
      // (null for an encoding it ships no file of: has() refused an unknown name already)
      source = /** @type {URL} */ (defaultSource(encoding));
    }
    install(await toBytes(source, fetchBytes), encoding);
  };
}

/**
 * @param {unknown} source  a VocabularySource, as the caller passed it
 * @param {FetchBytes} fetchBytes
 * @returns {Promise<Uint8Array>}
 */
async function toBytes(source, fetchBytes) {
  if (source instanceof Uint8Array) return source;
  if (source instanceof ArrayBuffer) return new Uint8Array(source);
  if (typeof Response !== "undefined" && source instanceof Response) {
    return new Uint8Array(await checked(source, source.url || "a Response").arrayBuffer());
  }
  if (source instanceof URL || typeof source === "string") {
    try {
      return await fetchBytes(source);
    } catch (/** @type {any} */ e) {
      throw e?.code === "VOCABULARY_UNAVAILABLE" ? e : unavailable(String(source), e?.code ?? e?.message ?? String(e), e);
    }
  }
  // (typeof, not kindOf: an array is "object" here, as this message always said.)
  throw invalidArgument("source", `a Uint8Array, an ArrayBuffer, a URL, a URL string or a Response, got ${source === null ? "null" : typeof source}`);
}

/**
 * @param {string} where
 * @param {string} reason
 * @param {unknown} [cause]
 */
function unavailable(where, reason, cause) {
  return ctxfoldError("VOCABULARY_UNAVAILABLE", `could not load the vocabulary from ${where}: ${reason}`, { cause });
}

/**
 * @param {Response} response
 * @param {string} where
 */
function checked(response, where) {
  if (!response.ok) throw unavailable(where, `it answered ${response.status}`);
  return response;
}

/**
 * fetch() for browsers and workerd.
 * @type {FetchBytes}
 */
export async function fetchBytes(source) {
  let response;
  try {
    response = await fetch(source);
  } catch (/** @type {any} */ e) {
    throw unavailable(String(source), e?.message ?? String(e), e);
  }
  return new Uint8Array(await checked(response, String(source)).arrayBuffer());
}
