//! `countTokens` and `countMessages`: exact token counts from JavaScript.

use wasm_bindgen::prelude::*;

use super::error::{invalid_argument, to_js};
use super::options::Options;
use super::tokenizer_choice::Counting;
use super::transfer::conversation_arg;
use crate::count::count_conversation;
use crate::messages::Format;
use crate::tokenizer::{tokenizer, Encoding};

#[wasm_bindgen(typescript_custom_section)]
const TS_COUNT: &str = r#"
/** Which tokenizer counts: an encoding, or a model (its encoding, or its calibrated estimate). */
export type CountOptions =
  | {
      /** An exact encoding: `"o200k_base"` (GPT-4o, GPT-4.1, GPT-5, o-series) or `"cl100k_base"` (GPT-4, GPT-3.5). */
      encoding: Encoding;
      model?: never;
    }
  | {
      /** A model id, e.g. `"gpt-4o"`, `"claude-sonnet-4-5"`, `"gemini-2.5-pro"`. Unknown ids get the documented default. */
      model: string;
      encoding?: never;
      /** Count with the model's calibrated estimate when its exact vocabulary is not loaded (`ctxfold/lite` before `loadVocabulary`), instead of throwing `VOCABULARY_NOT_LOADED`. Default false. */
      allowEstimate?: boolean;
    };

/** A message format. Output always comes back in the format it came in. */
export type MessageFormat = "openai" | "openai-responses" | "anthropic" | "ai-sdk";

/** A conversation: an array of messages, or an object with a `messages` array (an Anthropic request with its `system`). */
export type Conversation<M = unknown> = readonly M[] | { readonly messages: readonly M[]; readonly system?: unknown };

/** Options of `countMessages`. */
export type CountMessagesOptions = CountOptions & {
  /** The messages' format; detected when omitted. */
  format?: MessageFormat;
};

/** Who a message is from. Anthropic user messages holding only tool results count as `"tool"`. */
export type MessageRole = "system" | "user" | "assistant" | "tool";

/** One message's tokens. */
export interface MessageCount {
  /** Index in the array passed in; `null` for Anthropic's top-level `system`. */
  index: number | null;
  /** The message's role. */
  role: MessageRole;
  /** Its tokens, framing included. */
  tokens: number;
}

/** The result of `countMessages`. */
export interface MessagesCount {
  /** All messages plus reply priming: the request's input tokens. */
  total: number;
  /** The format the messages were read in. */
  format: MessageFormat;
  /** Per message, in order (Anthropic's system first). */
  messages: MessageCount[];
  /** Tokens per role. */
  byRole: { system: number; user: number; assistant: number; tool: number };
  /** The reply-priming tokens included in `total`. */
  replyPriming: number;
  /** How many message counts came from the cache (content-hash keyed). */
  cached: number;
  /** `"exact"`, or `"estimate"` for a model without a public (or loaded) tokenizer. */
  method: "exact" | "estimate";
  /** The model counted for, as the registry resolved it (with `options.model`). */
  model?: ModelInfoResolved;
}
"#;

#[wasm_bindgen(inline_js = r#"
export function encodingOnly(o) {
  if (typeof o !== "object" || o === null) return -1;
  const e = o.encoding;
  const i = e === "o200k_base" ? 0 : e === "cl100k_base" ? 1 : -1;
  return i >= 0 && Object.keys(o).length === 1 ? i : -1;
}
"#)]
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
    let options = Options::new(
        "options",
        &options,
        &["encoding", "model", "allowEstimate"],
        false,
    )?;
    let counting = required(Counting::from_options(&options, false)?)?;
    Ok(counting.counter().count(&text) as u32)
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
    let options = Options::new(
        "options",
        &options,
        &["encoding", "model", "format", "allowEstimate"],
        false,
    )?;
    let counting = required(Counting::from_options(&options, false)?)?;
    let format = options
        .string("format")?
        .map(|f| Format::from_name(&f))
        .transpose()
        .map_err(to_js)?;
    let incoming = conversation_arg(&messages, format)?;
    let breakdown = count_conversation(&incoming.conv, counting.counter());
    incoming.done();
    let result = super::to_plain(&breakdown)?;
    js_sys::Reflect::set(&result, &"method".into(), &counting.method().into())?;
    if let Some(model) = counting.model() {
        js_sys::Reflect::set(&result, &"model".into(), &super::to_plain(model)?)?;
    }
    Ok(result)
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

/// A counter that was required ([`Counting::from_options`] with `optional: false` never
/// gives `None`; this says so without a panic).
fn required(counting: Option<Counting>) -> Result<Counting, JsValue> {
    counting.ok_or_else(|| {
        to_js(crate::Error::InvalidArgument {
            argument: "options".into(),
            expected: "an encoding or a model".into(),
        })
    })
}
