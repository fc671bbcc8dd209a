//! `countTokens` and `countMessages`: exact token counts from JavaScript.

use wasm_bindgen::prelude::*;

use super::error::{invalid_argument, to_js};
use super::options::{json_arg, Options};
use crate::count::{count_conversation, TextCounter};
use crate::messages::{Conversation, Format};
use crate::tokenizer::{tokenizer, Encoding};

#[wasm_bindgen(typescript_custom_section)]
const TS_COUNT: &str = r#"
/** Which tokenizer counts. */
export interface CountOptions {
  /** An exact encoding: `"o200k_base"` (GPT-4o, GPT-4.1, GPT-5, o-series) or `"cl100k_base"` (GPT-4, GPT-3.5). */
  encoding: Encoding;
}

/** A message format. Output always comes back in the format it came in. */
export type MessageFormat = "openai" | "openai-responses" | "anthropic" | "ai-sdk";

/** Options of `countMessages`. */
export interface CountMessagesOptions extends CountOptions {
  /** The messages' format; detected when omitted. */
  format?: MessageFormat;
}

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
}
"#;

/// The counter `options` asks for.
fn counter(options: &Options) -> Result<&'static dyn TextCounter, JsValue> {
    let encoding = match options.string("encoding")? {
        Some(name) => Encoding::from_name(&name).map_err(to_js)?,
        None => {
            return Err(to_js(crate::Error::InvalidArgument {
                argument: options.path("encoding"),
                expected: "an encoding name (\"o200k_base\" or \"cl100k_base\")".into(),
            }))
        }
    };
    Ok(tokenizer(encoding).map_err(to_js)?)
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
    let options = Options::new("options", &options, &["encoding"], false)?;
    Ok(counter(&options)?.count(&text) as u32)
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
    #[wasm_bindgen(unchecked_param_type = "unknown[] | { messages: unknown[]; system?: unknown }")] messages: JsValue,
    #[wasm_bindgen(unchecked_param_type = "CountMessagesOptions")] options: JsValue,
) -> Result<JsValue, JsValue> {
    let options = Options::new("options", &options, &["encoding", "format"], false)?;
    let counter = counter(&options)?;
    let format = options
        .string("format")?
        .map(|f| Format::from_name(&f))
        .transpose()
        .map_err(to_js)?;
    let input = json_arg("messages", &messages)?;
    let conv = Conversation::parse(&input, format).map_err(to_js)?;
    let breakdown = count_conversation(&conv, counter);
    super::to_plain(&breakdown)
}
