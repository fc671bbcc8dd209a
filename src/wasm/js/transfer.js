// The JavaScript src/wasm/transfer.rs and src/wasm/options.rs import (wasm-bindgen copies
// this file beside the bindings): messages and options crossing into wasm as JSON, once each
// (snapshots tell which messages crossed before), and the caller's own objects given back.
const seen = new WeakMap();
const dead = [];
const registry = typeof FinalizationRegistry === "function" ? new FinalizationRegistry((id) => dead.push(id)) : null;
let next = 1;
// Snapshots of an older generation are not trusted (clearCaches, a restarted module).
let generation = 0;
const ARRAY = { array: true };
const OBJECT = { object: true };
const binary = (v) => ArrayBuffer.isView(v) || v instanceof ArrayBuffer;
// The holder's own value: the replacer is handed a value after its toJSON (a Buffer's is
// { type: "Buffer", data: [...] }, which would be counted as an array of numbers).
const replacer = function (key, v) {
  const own = this[key];
  return binary(own) ? { $bytes: own.byteLength } : v;
};

// JSON.stringify writes a lone surrogate as an escape (\udXXX) that JSON parsers reject:
// make each one U+FFFD. An escape preceded by an odd number of backslashes is text.
const loneSurrogate = /(\\*)\\u(d[89a-f][0-9a-f]{2})/gi;
function wellFormed(json) {
  if (!json.includes("\\ud") && !json.includes("\\uD")) return json;
  return json.replace(loneSurrogate, (all, slashes) => (slashes.length % 2 ? all : `${slashes}\\ufffd`));
}

function snap(v, out, depth) {
  if (depth > 256) throw new TypeError("too deep");
  if (v === null || typeof v !== "object" || binary(v)) {
    out.push(v);
    return;
  }
  if (typeof v.toJSON === "function") {
    out.push(JSON.stringify(v));
    return;
  }
  if (Array.isArray(v)) {
    out.push(ARRAY, v.length);
    for (let i = 0; i < v.length; i++) snap(v[i], out, depth + 1);
    return;
  }
  const keys = Object.keys(v);
  out.push(OBJECT, keys.length);
  for (const k of keys) {
    out.push(k);
    snap(v[k], out, depth + 1);
  }
}

// The index after v's part of the snapshot, or -1 if v differs from it.
function same(v, s, i, depth) {
  if (depth > 256) return -1;
  if (v === null || typeof v !== "object" || binary(v)) return s[i] === v ? i + 1 : -1;
  if (typeof v.toJSON === "function") return s[i] === JSON.stringify(v) ? i + 1 : -1;
  if (Array.isArray(v)) {
    if (s[i] !== ARRAY || s[i + 1] !== v.length) return -1;
    i += 2;
    for (let k = 0; k < v.length && i >= 0; k++) i = same(v[k], s, i, depth + 1);
    return i;
  }
  const keys = Object.keys(v);
  if (s[i] !== OBJECT || s[i + 1] !== keys.length) return -1;
  i += 2;
  for (const k of keys) {
    if (s[i] !== k) return -1;
    i = same(v[k], s, i + 1, depth + 1);
    if (i < 0) return -1;
  }
  return i;
}

// Reads a call's messages: ids for all, the JSON of those Rust has not seen, and what to
// register once Rust has stored them (see commit). With `all`, every message is sent.
export function describeMessages(input, all) {
  const isArray = Array.isArray(input);
  const list = isArray ? input : input?.messages;
  if (!Array.isArray(list)) return null;
  const items = Array.prototype.slice.call(list);
  let envelope = null;
  let envelopeObject = null;
  if (!isArray) {
    const { messages: _, ...rest } = input;
    envelope = wellFormed(JSON.stringify(rest, replacer));
    envelopeObject = rest;
  }
  const ids = new Uint32Array(items.length);
  const fresh = [];
  const pending = [];
  for (let i = 0; i < items.length; i++) {
    const m = items[i];
    const cacheable = registry !== null && typeof m === "object" && m !== null;
    const known = cacheable && !all ? seen.get(m) : undefined;
    if (known && known.generation === generation && same(m, known.snap, 0, 0) === known.snap.length) {
      ids[i] = known.id;
      continue;
    }
    const id = next++;
    ids[i] = id;
    fresh.push([id, m]);
    if (cacheable) {
      const entry = { id, snap: [], generation };
      try {
        snap(m, entry.snap, 0);
      } catch {
        continue; // too deep to remember: sent every time (JSON.stringify reports a cycle)
      }
      pending.push(m, entry);
    }
  }
  return {
    ids,
    items,
    fresh: fresh.length ? wellFormed(JSON.stringify(fresh, replacer)) : null,
    dead: Uint32Array.from(dead.splice(0)),
    envelope,
    envelopeObject,
    keep: registry !== null,
    pending,
  };
}

// Registers the messages of a described call: Rust has their JSON now.
export function commit(pending) {
  for (let k = 0; k < pending.length; k += 2) {
    const m = pending[k];
    const entry = pending[k + 1];
    const old = seen.get(m);
    if (old) {
      registry.unregister(old);
      dead.push(old.id);
    }
    seen.set(m, entry);
    registry.register(m, entry.id, entry);
  }
}

// Nothing registered before now is trusted again.
export function forgetMessages() {
  generation++;
}

// A copy ctxfold made of one of the caller's messages (a pruned tool result, a message a
// summary went into, a message cut to fit) is rendered from JSON, where binary data became
// { $bytes: n }, lone surrogates U+FFFD, Dates strings, and keys sorted. Every part of the
// copy equal (as JSON) to the original's part at the same place becomes the original value
// itself, keys in the original's order: only what ctxfold changed is new. An array one
// longer than the original's is taken as one with a part put first (a merged summary), and
// a string that ends with the original as one with text put first.
function sameJson(copy, original) {
  try {
    // As Rust saw the original: binary as markers, lone surrogates as U+FFFD.
    const sent = wellFormed(JSON.stringify(original, replacer));
    return sent !== undefined && JSON.stringify(copy) === JSON.stringify(JSON.parse(sent));
  } catch {
    return false;
  }
}
export function restoreOriginal(copy, original) {
  const restore = (c, o, depth) => {
    if (depth > 256) return c;
    if (sameJson(c, o)) return o;
    // A string that ends with the original as Rust saw it is the original with text put
    // first (a merged summary): the original's own characters are kept (a lone surrogate,
    // which Rust saw as U+FFFD).
    if (typeof c === "string" && typeof o === "string") {
      const seen = JSON.parse(wellFormed(JSON.stringify(o)));
      return seen !== o && c.endsWith(seen) ? c.slice(0, c.length - seen.length) + o : c;
    }
    if (c === null || o === null || typeof c !== "object" || typeof o !== "object" || binary(o)) return c;
    if (Array.isArray(c)) {
      if (!Array.isArray(o)) return c;
      const shift = c.length - o.length;
      if (shift !== 0 && shift !== 1) return c;
      return c.map((v, i) => (i - shift >= 0 ? restore(v, o[i - shift], depth + 1) : v));
    }
    if (Array.isArray(o)) return c;
    const out = {};
    for (const k of Object.keys(o)) if (Object.hasOwn(c, k)) out[k] = restore(c[k], o[k], depth + 1);
    for (const k of Object.keys(c)) if (!Object.hasOwn(out, k)) out[k] = c[k];
    return out;
  };
  return restore(copy, original, 0);
}

// Options and other values read as JSON (src/wasm/options.rs).
export function toJson(value) {
  const text = JSON.stringify(value, replacer);
  return text === undefined ? undefined : wellFormed(text);
}

// { json, functions } for an options object; { problem: [kind, key, detail] } for a value
// JSON cannot carry; null for something that is not an options object. The keys in
// setAside (values only JavaScript holds) are not read at all.
export function readOptions(o, functionKeys, setAside) {
  if (typeof o !== "object" || o === null || Array.isArray(o)) return null;
  const copy = {};
  const functions = {};
  for (const k of Object.keys(o)) {
    if (setAside.includes(k)) continue;
    const v = o[k];
    if (typeof v === "function") {
      if (!functionKeys.includes(k)) return { problem: ["function", k, ""] };
      functions[k] = v;
    } else if (typeof v === "number" && !Number.isFinite(v)) {
      return { problem: ["number", k, String(v)] };
    } else {
      copy[k] = v;
    }
  }
  return { json: toJson(copy), functions };
}
