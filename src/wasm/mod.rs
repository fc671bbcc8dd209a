//! The JavaScript face of ctxfold: the only module that knows about wasm-bindgen.
//!
//! Each submodule exports one group of functions; they translate arguments, call the
//! core, and turn core errors into JS errors ([`error`]). None decides anything: options are
//! read by the core's serde types ([`options`]), and compaction is the core's driver.

mod batch;
mod chat;
mod compact;
mod compactor;
mod count;
mod error;
mod http;
mod indexeddb;
mod lifecycle;
mod models;
mod options;
mod recall;
mod recent;
mod refusal;
mod reply;
mod transfer;
mod vocab;

use wasm_bindgen::prelude::*;

/// The shapes of options, results, the state, the model registry and the error codes,
/// generated from the core's Rust types (`src/typescript.rs`; `tests/typescript.rs` checks
/// this file against them).
#[wasm_bindgen(typescript_custom_section)]
const TS_GENERATED: &str = include_str!("types.generated.d.ts");

/// What only JavaScript has: functions, signals, errors, and the generic result of
/// `compact`, built on the generated types.
#[wasm_bindgen(typescript_custom_section)]
const TS_FACE: &str = include_str!("face.d.ts");

/// A result as a plain JS object (objects, not `Map`s).
fn to_plain<T: serde::Serialize>(value: &T) -> Result<JsValue, JsValue> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| JsValue::from(js_sys::Error::new(&e.to_string())))
}
