//! Vocabulary presence and run-time loading (the lite build embeds none).
//!
//! The entry points wrap [`install_vocabulary`] in `loadVocabulary(encoding, source?)`,
//! which fetches or reads the bytes; everything that checks them happens here.

use wasm_bindgen::prelude::*;

use super::error::{invalid_argument, to_js};
use crate::tokenizer::{self, Encoding};
use crate::Error;

/// Reads an encoding name argument.
pub fn encoding_arg(argument: &str, value: &JsValue) -> Result<Encoding, JsValue> {
    let name = value
        .as_string()
        .ok_or_else(|| invalid_argument(argument, "an encoding name", value))?;
    Encoding::from_name(&name).map_err(to_js)
}

/// Whether `encoding` can be used now: embedded in this build or already loaded.
///
/// ```ts
/// if (!hasVocabulary("o200k_base")) await loadVocabulary("o200k_base");
/// ```
#[wasm_bindgen(js_name = hasVocabulary)]
pub fn has_vocabulary(
    #[wasm_bindgen(unchecked_param_type = "Encoding")] encoding: JsValue,
) -> Result<bool, JsValue> {
    Ok(tokenizer::is_available(encoding_arg("encoding", &encoding)?))
}

/// Checks and installs `.ctxv` bytes, which must be the shipped file for `encoding`
/// (its SHA-256 is pinned). Used by `loadVocabulary`.
#[wasm_bindgen(js_name = installVocabulary)]
pub fn install_vocabulary(
    bytes: js_sys::Uint8Array,
    #[wasm_bindgen(unchecked_param_type = "Encoding")] encoding: JsValue,
) -> Result<(), JsValue> {
    let want = encoding_arg("encoding", &encoding)?;
    let data = bytes.to_vec();
    let name = tokenizer::vocab::peek_name(&data).map_err(to_js)?;
    if name != want.name() {
        return Err(to_js(Error::InvalidVocabulary {
            reason: format!("the file is for {name:?}, not {:?}", want.name()),
        }));
    }
    if tokenizer::is_available(want) {
        // The shipped file, present already (embedded, or loaded before): nothing to do
        // once the bytes are shown to be that file.
        tokenizer::load(data).map_err(to_js)?;
        return Ok(());
    }
    tokenizer::load(data).map_err(to_js)?;
    // A restarted module installs it again (see lifecycle).
    super::lifecycle::keep("vocabulary", want.name(), &bytes.slice(0, bytes.length()));
    Ok(())
}
