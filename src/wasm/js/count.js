// The JavaScript src/wasm/count.rs imports (wasm-bindgen copies this file beside the
// bindings): whether an options object holds only `encoding`, read without a serde pass.
export function encodingOnly(o) {
  if (typeof o !== "object" || o === null) return -1;
  const e = o.encoding;
  const i = e === "o200k_base" ? 0 : e === "cl100k_base" ? 1 : -1;
  return i >= 0 && Object.keys(o).length === 1 ? i : -1;
}
