// Loading vocabularies at run time: shared by every entry point. The bytes are checked
// and installed by the wasm side (installVocabulary: format, checksum, and the SHA-256
// pinned for the shipped file), which throws the typed errors; a source that cannot be
// read or fetched is VOCABULARY_UNAVAILABLE here, with the original error as its cause.

import { ctxfoldError, invalidArgument } from "./values.js";

/**
 * @param {object} platform
 * @param {(bytes: Uint8Array, encoding: string) => void} platform.install
 * @param {(encoding: string) => boolean} platform.has
 * @param {(source: URL | string) => Promise<Uint8Array>} platform.fetchBytes
 * @param {((encoding: string) => URL) | null} platform.defaultSource
 */
export function vocabularyLoader({ install, has, fetchBytes, defaultSource }) {
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
      source = defaultSource(encoding);
    }
    install(await toBytes(source, fetchBytes), encoding);
  };
}

async function toBytes(source, fetchBytes) {
  if (source instanceof Uint8Array) return source;
  if (source instanceof ArrayBuffer) return new Uint8Array(source);
  if (typeof Response !== "undefined" && source instanceof Response) {
    return new Uint8Array(await checked(source, source.url || "a Response").arrayBuffer());
  }
  if (source instanceof URL || typeof source === "string") {
    try {
      return await fetchBytes(source);
    } catch (e) {
      throw e?.code === "VOCABULARY_UNAVAILABLE" ? e : unavailable(String(source), e?.code ?? e?.message ?? String(e), e);
    }
  }
  // (typeof, not kindOf: an array is "object" here, as this message always said.)
  throw invalidArgument("source", `a Uint8Array, an ArrayBuffer, a URL, a URL string or a Response, got ${source === null ? "null" : typeof source}`);
}

function unavailable(where, reason, cause) {
  return ctxfoldError("VOCABULARY_UNAVAILABLE", `could not load the vocabulary from ${where}: ${reason}`, { cause });
}

function checked(response, where) {
  if (!response.ok) throw unavailable(where, `it answered ${response.status}`);
  return response;
}

/** fetch() for browsers and workerd. */
export async function fetchBytes(source) {
  let response;
  try {
    response = await fetch(source);
  } catch (e) {
    throw unavailable(String(source), e?.message ?? String(e), e);
  }
  return new Uint8Array(await checked(response, String(source)).arrayBuffer());
}
