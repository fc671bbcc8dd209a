//! The JavaScript face of ctxfold: the only module that knows about wasm-bindgen.
//!
//! Each submodule exports one group of functions; they translate arguments, call the
//! core, and turn core errors into JS errors ([`error`]).

mod compact;
mod count;
mod error;
mod http;
mod lifecycle;
mod models;
mod options;
mod tokenizer_choice;
mod transfer;
mod vocab;

use wasm_bindgen::JsValue;

/// A result as a plain JS object (objects, not `Map`s).
fn to_plain<T: serde::Serialize>(value: &T) -> Result<JsValue, JsValue> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| JsValue::from(js_sys::Error::new(&e.to_string())))
}
