// Messages as the Compactor stores them: JSON, where binary data (an AI SDK image or file part
// as a Uint8Array, a Buffer, an ArrayBuffer) is `{ $bytes: length, $base64: "…" }`, so any
// store (IndexedDB, a Durable Object, a JSON file, a server) keeps the bytes, and the core,
// which only reads `$bytes`, sizes the part as it does in compact(). The bytes come back as a
// Uint8Array wherever the Compactor hands a stored message out (the model input, history()).

/**
 * @param {unknown} v
 * @returns {v is ArrayBufferView | ArrayBuffer}
 */
export const binary = (v) => ArrayBuffer.isView(v) || v instanceof ArrayBuffer;

/** @param {ArrayBufferView | ArrayBuffer} v */
const bytesOf = (v) => (v instanceof ArrayBuffer ? new Uint8Array(v) : new Uint8Array(v.buffer, v.byteOffset, v.byteLength));

/**
 * A JSON.stringify replacer that sees binary data as it was: the holder's own value, since
 * the replacer is handed a value after its toJSON (a Buffer's is `{ type: "Buffer", data }`).
 * `encode(bytes)`: what it becomes.
 * @param {(bytes: Uint8Array) => unknown} encode
 * @returns {(this: any, key: string, v: unknown) => unknown}
 */
function replacing(encode) {
  return function (key, v) {
    const own = this[key];
    return binary(own) ? encode(bytesOf(own)) : v;
  };
}

/** Binary data as the core reads it: its length. */
export const markBytes = replacing((bytes) => ({ $bytes: bytes.byteLength }));

/** Binary data as it is stored: its length, and its bytes. */
const storeBytes = replacing((bytes) => ({ $bytes: bytes.byteLength, $base64: toBase64(bytes) }));

/** @param {Uint8Array} bytes */
function toBase64(bytes) {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

/** @param {string} text */
function fromBase64(text) {
  const s = atob(text);
  const bytes = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) bytes[i] = s.charCodeAt(i);
  return bytes;
}

/**
 * `{ core, stored }`: JSON copies of `value` for the core (binary data as its length) and for
 * the store (with its bytes), keys in their order; one copy serves both when there is no
 * binary data. A value JSON cannot carry (a cycle, a BigInt) comes back as it is in both, for
 * the core to refuse with its own words.
 * @param {unknown} value
 * @returns {{ core: any, stored: any }}
 */
export function copies(value) {
  let text;
  let found = false;
  try {
    text = JSON.stringify(value, function (key, v) {
      if (binary(this[key])) found = true;
      return markBytes.call(this, key, v);
    });
  } catch {
    return { core: value, stored: value };
  }
  if (text === undefined) return { core: value, stored: value };
  const core = JSON.parse(text);
  return { core, stored: found ? JSON.parse(JSON.stringify(value, storeBytes)) : core };
}

/**
 * @param {any} v
 * @returns {v is { $bytes: number, $base64: string }}
 */
const isStoredBytes = (v) =>
  v !== null && typeof v === "object" && !Array.isArray(v) && typeof v.$base64 === "string" && typeof v.$bytes === "number" && Object.keys(v).length === 2;

/**
 * A stored message with its binary data as Uint8Arrays again: a copy where there was any, the
 * message itself where there was none.
 * @param {unknown} message
 * @returns {unknown}
 */
export function revive(message, depth = 0) {
  if (message === null || typeof message !== "object" || depth > 256 || binary(message)) return message;
  if (isStoredBytes(message)) {
    try {
      const bytes = fromBase64(message.$base64);
      return bytes.byteLength === message.$bytes ? bytes : message;
    } catch {
      return message;
    }
  }
  /** @type {unknown[] | Record<string, unknown> | null} */
  let copy = null;
  const entries = Array.isArray(message) ? message.entries() : Object.entries(message);
  for (const [k, v] of entries) {
    const r = revive(v, depth + 1);
    if (r !== v) {
      copy ??= Array.isArray(message) ? [...message] : { ...message };
      /** @type {Record<string | number, unknown>} */ (copy)[k] = r;
    }
  }
  return copy ?? message;
}
