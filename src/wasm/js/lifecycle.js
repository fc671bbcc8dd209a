// The JavaScript src/wasm/lifecycle.rs imports (wasm-bindgen copies this file beside the
// bindings): what a module made afresh after a trap must install again.
const kept = new Map();
// Remembers what a restarted module must install again, by kind and key.
export function keep(kind, key, payload) {
  kept.set(`${kind}:${key}`, [kind, payload]);
}
export function keptItems() {
  return [...kept.values()];
}
