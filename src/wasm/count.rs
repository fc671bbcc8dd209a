//! `countTokens`: exact token counts from JavaScript.

use wasm_bindgen::prelude::*;

use super::error::{invalid_argument, to_js};
use crate::tokenizer::{tokenizer, Encoding};

#[wasm_bindgen(js_name = countTokens)]
pub fn count_tokens(
    text: JsValue,
    #[wasm_bindgen(unchecked_param_type = "{ encoding: string }")] options: JsValue,
) -> Result<u32, JsValue> {
    let text = text
        .as_string()
        .ok_or_else(|| invalid_argument("text", "a string", &text))?;
    let name = js_sys::Reflect::get(&options, &JsValue::from_str("encoding"))?
        .as_string()
        .unwrap_or_default();
    let enc = Encoding::from_name(&name).map_err(to_js)?;
    Ok(tokenizer(enc).map_err(to_js)?.count(&text) as u32)
}
