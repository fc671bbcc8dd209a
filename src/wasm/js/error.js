// The JavaScript src/wasm/error.rs imports (wasm-bindgen copies this file beside the
// bindings): how a value is named in an error message.
export function kindOf(v) {
  return v === null ? "null" : Array.isArray(v) ? "an array" : typeof v;
}
