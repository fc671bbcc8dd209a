//! `countTokens` and `countMessages`: exact token counts from JavaScript.

use wasm_bindgen::prelude::*;

use super::error::{invalid_argument, to_js};
use super::options;
use super::transfer::conversation_arg;
use crate::count::{count_messages as count, Counting, TextCounter};
use crate::options::{CountMessagesOptions, CountOptions};
use crate::tokenizer::{tokenizer, Encoding};

#[wasm_bindgen(module = "/src/wasm/js/count.js")]
extern "C" {
    #[wasm_bindgen(js_name = encodingOnly, catch)]
    fn encoding_only_js(options: &JsValue) -> Result<i32, JsValue>;
}

/// The hot path's options check, in one call into JS: `{ encoding }` alone, with a known
/// encoding. Anything else is `None` (a throwing getter too), and the full check runs and
/// says what is wrong.
fn encoding_only(options: &JsValue) -> Option<Encoding> {
    match encoding_only_js(options) {
        Ok(0) => Some(Encoding::O200kBase),
        Ok(1) => Some(Encoding::Cl100kBase),
        _ => None,
    }
}

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
    let text = text
        .as_string()
        .ok_or_else(|| invalid_argument("text", "a string", &text))?;
    if let Some(encoding) = encoding_only(&options) {
        return Ok(tokenizer(encoding).map_err(to_js)?.count(&text) as u32);
    }
    let o = options::read::<CountOptions>("options", &options, &[], false)?.value;
    let counting = Counting::required(o.encoding, o.model.as_deref(), o.allow_estimate.unwrap_or(false))
        .map_err(to_js)?;
    Ok(counting.counter.count(&text) as u32)
}

/// Counts a conversation as a request would: every message with its format's framing,
/// plus reply priming; with a per-message breakdown. Counts are cached by message
/// content, so counting again after appending a message only counts the new one.
///
/// ```ts
/// const { total, messages } = countMessages(
///   [{ role: "user", content: "Hi!" }],
///   { encoding: "o200k_base" },
/// );
/// ```
#[wasm_bindgen(js_name = countMessages, unchecked_return_type = "MessagesCount")]
pub fn count_messages(
    #[wasm_bindgen(unchecked_param_type = "Conversation")] messages: JsValue,
    #[wasm_bindgen(unchecked_param_type = "CountMessagesOptions")] options: JsValue,
) -> Result<JsValue, JsValue> {
    let o = options::read::<CountMessagesOptions>("options", &options, &[], false)?.value;
    let counting = Counting::required(o.encoding, o.model.as_deref(), o.allow_estimate.unwrap_or(false))
        .map_err(to_js)?;
    let mut incoming = conversation_arg(&messages, o.format)?;
    let result = count(&incoming.conv, &mut incoming.memo, &counting);
    incoming.done();
    super::to_plain(&result)
}

/// Forgets every cache ctxfold keeps: message counts (by content hash, and those the last
/// conversation remembers) and the tokenizers' piece counts. They are bounded; this frees
/// their memory now.
///
/// ```ts
/// clearCaches();
/// ```
#[wasm_bindgen(js_name = clearCaches)]
pub fn clear_caches() {
    crate::clear_caches();
    super::transfer::forget_all();
}
