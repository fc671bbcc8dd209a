// Loading vocabularies at run time: shared by every entry point. The bytes are checked
// and installed by the wasm side (installVocabulary), which throws the typed errors.

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
        const err = new TypeError(
          `invalid argument source: expected the ${encoding}.ctxv bytes (Uint8Array or ArrayBuffer), a URL or a Response; ` +
            `this runtime cannot locate the file shipped in ctxfold/vocab by itself`,
        );
        err.code = "INVALID_ARGUMENT";
        throw err;
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
    return new Uint8Array(await checked(source).arrayBuffer());
  }
  if (source instanceof URL || typeof source === "string") return fetchBytes(source);
  const err = new TypeError(
    `invalid argument source: expected a Uint8Array, an ArrayBuffer, a URL, a URL string or a Response, got ${
      source === null ? "null" : typeof source
    }`,
  );
  err.code = "INVALID_ARGUMENT";
  throw err;
}

function checked(response) {
  if (!response.ok) {
    const err = new Error(`could not load the vocabulary: ${response.url || "response"} answered ${response.status}`);
    err.name = "CtxfoldError";
    err.code = "INVALID_VOCABULARY";
    throw err;
  }
  return response;
}

/** fetch() for browsers and workerd. */
export async function fetchBytes(source) {
  return new Uint8Array(await checked(await fetch(source)).arrayBuffer());
}
