// A seeded PRNG and the helpers the generators draw with. Every case derives its own
// stream from (seed, case index, format filter), so one case reproduces on its own.

/** A 32-bit hash of a string (cyrb53's mixing, folded), for deriving seeds. */
export function hash32(text) {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (h1 ^ h2) >>> 0;
}

/** A random stream: mulberry32 with the draws the generators need. */
export class Random {
  constructor(seed) {
    this.state = seed >>> 0;
  }

  /** For case `index` of a run seeded `seed` (restricted to `format`, if given). */
  static forCase(seed, index, format) {
    return new Random(hash32(`ctxfold-fuzz/${seed}/${index}/${format ?? "*"}`));
  }

  /** A float in [0, 1). */
  next() {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = Math.imul(this.state ^ (this.state >>> 15), 1 | this.state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [lo, hi]. */
  int(lo, hi) {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  /** An integer in [lo, hi], small values far likelier (log-uniform). */
  logInt(lo, hi) {
    const a = Math.log(lo + 1);
    const b = Math.log(hi + 1);
    return Math.min(hi, Math.max(lo, Math.round(Math.exp(a + this.next() * (b - a)) - 1)));
  }

  chance(p) {
    return this.next() < p;
  }

  pick(items) {
    return items[Math.floor(this.next() * items.length)];
  }

  /** `[[weight, value], ...]` -> one value. */
  weighted(pairs) {
    const total = pairs.reduce((s, [w]) => s + w, 0);
    let x = this.next() * total;
    for (const [w, v] of pairs) {
      if ((x -= w) < 0) return v;
    }
    return pairs[pairs.length - 1][1];
  }

  /** A lower-case alphanumeric id of `n` characters. */
  id(n = 8) {
    let s = "";
    for (let i = 0; i < n; i++) s += "abcdefghijklmnopqrstuvwxyz0123456789"[this.int(0, 35)];
    return s;
  }
}
