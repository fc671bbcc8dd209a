// The JavaScript src/wasm/compact.rs imports (wasm-bindgen copies this file beside the
// bindings): the time now, as the records store it.
export function now() {
  return new Date().toISOString();
}
