// Shrinks a failing case to a small one that still fails the same way (same kind and
// check): greedily removes runs of array elements (messages, parts, follow-up turns),
// shortens strings, and deletes object keys (options, fields), keeping every change
// after which the case still fails. Generic over the case's JSON, so it needs to know
// nothing about formats; the failure check keeps it honest.
import { Runner } from "./pool.mjs";

const PROTECTED = new Set(["v", "seed", "index", "filter", "kind", "format", "call", "expect", "what", "canary"]);

function at(d, path) {
  return path.reduce((v, k) => v[k], d);
}

/** Every container path in `d`, with the value there. */
function walk(d, path = [], out = []) {
  if (d === null || typeof d !== "object") return out;
  out.push({ path, value: d });
  for (const k of Object.keys(d)) {
    if (path.length === 0 && PROTECTED.has(k)) continue;
    walk(d[k], [...path, k], out);
  }
  return out;
}

function edited(d, path, change) {
  const copy = structuredClone(d);
  change(at(copy, path));
  return copy;
}

/** Smaller variants of `d`, the biggest reductions first. */
function* candidates(d) {
  const nodes = walk(d);
  const arrays = nodes.filter((n) => Array.isArray(n.value) && n.value.length).sort((a, b) => b.value.length - a.value.length);
  for (const { path, value } of arrays) {
    for (let size = value.length; size >= 1; size = Math.floor(size / 2)) {
      for (let i = 0; i + size <= value.length; i += size) yield edited(d, path, (a) => a.splice(i, size));
    }
  }
  const strings = [];
  for (const { path, value } of nodes) {
    for (const k of Object.keys(value)) {
      if (path.length === 0 && PROTECTED.has(k)) continue;
      if (typeof value[k] === "string" && value[k].length > 0) strings.push({ path, k, s: value[k] });
    }
  }
  strings.sort((a, b) => b.s.length - a.s.length);
  for (const { path, k, s } of strings) {
    const half = Math.floor(s.length / 2);
    const quarter = Math.floor(s.length / 4);
    const options = s.length > 8 ? ["", s.slice(0, half), s.slice(half), s.slice(quarter), s.slice(0, s.length - quarter)] : ["", s.slice(0, s.length - 1)];
    for (const t of options) yield edited(d, path, (o) => (o[k] = t));
  }
  for (const { path, value } of nodes) {
    if (Array.isArray(value)) continue;
    for (const k of Object.keys(value)) {
      if (path.length === 0 && PROTECTED.has(k)) continue;
      if (k.startsWith("$")) continue;
      yield edited(d, path, (o) => delete o[k]);
    }
  }
}

/**
 * Shrinks `desc` while it still fails with `target`'s kind and check. Each try runs in a
 * worker with `timeoutMs` (a hang is a try that passes it); `save` gets each smaller case
 * found. Resolves with the smallest case.
 */
export async function shrink(desc, target, { timeoutMs = 10_000, log = () => {}, save = () => {}, maxTries = 1500 } = {}) {
  const runner = new Runner(timeoutMs);
  const same = (f) => f.kind === target.kind && f.check === target.check;
  let tries = 0;
  let current = desc;
  try {
    let progress = true;
    while (progress && tries < maxTries) {
      progress = false;
      for (const candidate of candidates(current)) {
        if (++tries > maxTries) break;
        const r = await runner.run({ desc: candidate });
        if (r.failures.some(same)) {
          current = candidate;
          progress = true;
          log(`  try ${tries}: ${JSON.stringify(current).length} bytes`);
          save(current);
          break;
        }
      }
    }
  } finally {
    await runner.close();
  }
  return current;
}
