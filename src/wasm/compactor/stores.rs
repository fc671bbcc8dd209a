//! The store contract's TypeScript (the `CompactorStore` interface, the stores ctxfold ships)
//! and the error a store refuses a stale write with. The stores themselves are JavaScript
//! (`pkg-template/lib/stores.js`); their shapes are the core's (`crate::session::stored`).

use wasm_bindgen::prelude::*;

use super::super::error::{invalid_argument, to_js};
use crate::Error;

/// The store contract, and the stores ctxfold ships (their code is in
/// `pkg-template/lib/stores.js`).
#[wasm_bindgen(typescript_custom_section)]
const TS_STORE: &str = include_str!("stores.d.ts");

/// The `STALE_WRITE` error a store rejects a write with (declared above, with its docs).
#[wasm_bindgen(js_name = staleWriteError, skip_typescript)]
pub fn stale_write_error(id: JsValue, expected: JsValue, found: JsValue) -> Result<JsValue, JsValue> {
    let number = |v: &JsValue| {
        v.as_f64()
            .filter(|n| *n >= 0.0 && n.fract() == 0.0 && *n <= u32::MAX as f64)
            .map(|n| n as u32)
    };
    let id = id
        .as_string()
        .ok_or_else(|| invalid_argument("id", "the conversation id (a string)", &id))?;
    let expected = number(&expected).ok_or_else(|| {
        invalid_argument(
            "expected",
            "the version the write expected (a whole number)",
            &expected,
        )
    })?;
    let found = match found.is_null() || found.is_undefined() {
        true => None,
        false => Some(number(&found).ok_or_else(|| {
            invalid_argument(
                "found",
                "the version the store holds (a whole number), or null for none",
                &found,
            )
        })?),
    };
    Ok(to_js(Error::StaleWrite {
        id,
        expected,
        found,
        attempts: 0,
    }))
}
