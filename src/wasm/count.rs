//! `countTokens`: exact token counts from JavaScript.

use wasm_bindgen::prelude::*;

use super::error::invalid_argument;
use super::error::to_js;
use super::vocab::encoding_arg;
use crate::tokenizer::tokenizer;

#[wasm_bindgen(typescript_custom_section)]
const TS_COUNT: &str = r#"
/** Which tokenizer `countTokens` uses. */
export interface CountOptions {
  /** An exact encoding. */
  encoding: Encoding;
}
"#;

/// The number of tokens in `text`. Special-token strings such as `<|endoftext|>` count as
/// ordinary text, as providers count message content.
///
/// ```ts
/// countTokens("Hello, world!", { encoding: "o200k_base" }); // 4
/// ```
#[wasm_bindgen(js_name = countTokens)]
pub fn count_tokens(
    #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
    #[wasm_bindgen(unchecked_param_type = "CountOptions")] options: JsValue,
) -> Result<u32, JsValue> {
    let text = text.as_string().ok_or_else(|| invalid_argument("text", "a string", &text))?;
    if !options.is_object() {
        return Err(invalid_argument("options", "an object such as { encoding: \"o200k_base\" }", &options));
    }
    let encoding = js_sys::Reflect::get(&options, &JsValue::from_str("encoding"))?;
    let encoding = encoding_arg("options.encoding", &encoding)?;
    Ok(tokenizer(encoding).map_err(to_js)?.count(&text) as u32)
}
