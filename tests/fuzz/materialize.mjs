// A case is plain JSON, so it can be written to a file, shrunk and replayed. Values JSON
// cannot hold are `$`-tags that this module builds into the real thing:
//
//   { $bytes: n }                 a Uint8Array of n bytes
//   { $url: s } / { $date: iso }  a URL / a Date
//   { $undefined: true }          undefined            { $fn: true }       a function
//   { $number: "NaN" }            NaN, Infinity, -Infinity
//   { $bigint: "12" }             a BigInt             { $symbol: "s" }    a Symbol
//   { $nest: { depth, leaf } }    { d: { d: ... leaf } }, depth levels deep
//   { $cyclic: { target, key } }  target, with target[key] = target
//   { $proxy: { target, trap } }  a Proxy of target whose `trap` throws ("none": a benign Proxy)
//   { $getter: { target, key, behaviour } }  target with `key` read through a getter that
//                                 returns its value ("value") or throws ("throw")
//   { $canary: k }                the case's k-th canary message (the same object each time)
//   { $summarizer: spec }         a summarizer function behaving as spec says (summarizers.mjs)

import { makeSummarizer } from "./summarizers.mjs";

/** The canary conversation: plain messages, valid in every format. */
export const CANARY = [
  { role: "user", content: "Canary question: what is in /srv/canary/config.yaml on db-canary.internal:5432?" },
  { role: "assistant", content: "The canary file sets retries to 3 (ticket CAN-42)." },
  { role: "user", content: "Thanks. 🐤 And the timeout?" },
];

export function freshCanary() {
  return CANARY.map((m) => ({ ...m }));
}

/**
 * Builds the value a tagged JSON description stands for. `env.canary` holds the canary
 * message objects; summarizers made are pushed to `env.summarizers`.
 */
export function materialize(desc, env) {
  if (Array.isArray(desc)) return desc.map((d) => materialize(d, env));
  if (desc === null || typeof desc !== "object") return desc;
  const keys = Object.keys(desc);
  if (keys.length === 1 && keys[0].startsWith("$")) {
    const v = desc[keys[0]];
    switch (keys[0]) {
      case "$bytes":
        return Uint8Array.from({ length: v }, (_, i) => (i * 37) & 255);
      case "$url":
        return new URL(v);
      case "$date":
        return new Date(v);
      case "$undefined":
        return undefined;
      case "$fn":
        return function ignored() {};
      case "$number":
        return Number(v);
      case "$bigint":
        return BigInt(v);
      case "$symbol":
        return Symbol(v);
      case "$nest": {
        let o = materialize(v.leaf, env);
        for (let i = 0; i < v.depth; i++) o = { d: o };
        return o;
      }
      case "$cyclic": {
        const o = materialize(v.target, env);
        o[v.key] = o;
        return o;
      }
      case "$proxy":
        return proxy(materialize(v.target, env), v.trap);
      case "$getter": {
        const o = materialize(v.target, env);
        const value = o[v.key];
        delete o[v.key];
        Object.defineProperty(o, v.key, {
          enumerable: true,
          configurable: true,
          get() {
            if (v.behaviour === "throw") throw new Error(`getter ${v.key} throws (fuzz)`);
            return value;
          },
        });
        return o;
      }
      case "$canary":
        return env.canary[v];
      case "$summarizer": {
        const s = makeSummarizer(v);
        env.summarizers.push(s);
        return s.fn;
      }
      default:
        break; // an ordinary key that happens to start with "$"
    }
  }
  const out = {};
  for (const k of keys) out[k] = materialize(desc[k], env);
  return out;
}

function proxy(target, trap) {
  const handler = {};
  if (trap !== "none") {
    handler[trap] = () => {
      throw new Error(`proxy trap ${trap} throws (fuzz)`);
    };
  }
  return new Proxy(target, handler);
}

/**
 * A deep snapshot of a value as a string: every own enumerable key (in sorted order: JSON
 * objects are unordered), typed arrays by content, identity of repeated objects ignored.
 * Reads through Proxies and getters, so only use it on values that do not throw (valid
 * inputs).
 */
export function snapshot(value, { wire = false } = {}) {
  const seen = new Set();
  const walk = (v) => {
    if (wire && v !== null && typeof v === "object" && !ArrayBuffer.isView(v) && typeof v.toJSON === "function") v = v.toJSON();
    if (v === undefined) return "u";
    if (typeof v === "bigint") return `n${v}`;
    if (typeof v === "function") return "f";
    if (typeof v === "symbol") return "s";
    if (v === null || typeof v !== "object") return JSON.stringify(v) ?? String(v);
    if (ArrayBuffer.isView(v)) return `b[${Array.from(v).join(",")}]`;
    if (v instanceof Date) return `d${v.getTime()}`;
    if (v instanceof URL) return `url${v.href}`;
    if (seen.has(v)) return "cycle";
    seen.add(v);
    // On the wire (JSON), keys holding undefined, functions or symbols are absent.
    const keys = Object.keys(v).sort().filter((k) => !wire || !["undefined", "function", "symbol"].includes(typeof v[k]));
    const s = Array.isArray(v) ? `[${v.map(walk).join(",")}]` : `{${keys.map((k) => `${JSON.stringify(k)}:${walk(v[k])}`).join(",")}}`;
    seen.delete(v);
    return s;
  };
  return walk(value);
}

/** Deep equality as snapshot sees it. */
export function deepEqual(a, b) {
  return snapshot(a) === snapshot(b);
}

/**
 * Equality of what two values send as JSON (Dates as their strings, undefined keys
 * absent), except that binary data must stay binary data with the same bytes.
 */
export function wireEqual(a, b) {
  return snapshot(a, { wire: true }) === snapshot(b, { wire: true });
}

/** A deep copy of a valid input: plain objects and arrays copied, typed arrays, Dates and URLs cloned. */
export function deepClone(v) {
  if (v === null || typeof v !== "object") return v;
  if (ArrayBuffer.isView(v)) return v.slice();
  if (v instanceof Date) return new Date(v.getTime());
  if (v instanceof URL) return new URL(v.href);
  if (Array.isArray(v)) return v.map(deepClone);
  const o = {};
  for (const k of Object.keys(v)) o[k] = deepClone(v[k]);
  return o;
}
