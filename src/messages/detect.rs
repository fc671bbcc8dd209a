//! Which format a conversation is in, when the caller does not say.

use serde_json::Value;

use super::MessageFormat;

/// Guesses the format of `items`: see [`Detection`].
pub fn detect(items: &[Value], has_top_level_system: bool) -> MessageFormat {
    Detection::of(items, has_top_level_system).format()
}

/// The format of a conversation: given by the caller, or detected. Every item allows a set
/// of formats (an OpenAI tool message only OpenAI Chat; a `refusal` part either OpenAI
/// format; `{ role, content: "text" }` any); the conversation is in the format all of them
/// allow. Where several remain (plain text messages), OpenAI Chat, or Anthropic when a
/// top-level `system` came with them. Where none does (items of different formats), the
/// first item that allows exactly one format decides, and parsing then says what is wrong.
#[derive(Clone, Debug)]
pub enum Detection {
    /// The caller's `format` option.
    Given(MessageFormat),
    /// Detected.
    Detected {
        /// The formats each item allows, as a bit set over [`MessageFormat::ALL`].
        allows: Vec<u8>,
        /// A top-level `system` came with the items (Anthropic's request shape).
        top_level_system: bool,
    },
}

/// Every format, as a bit set.
const ANY: u8 = 0b1111;

fn bit(f: MessageFormat) -> u8 {
    1 << MessageFormat::ALL.iter().position(|&g| g == f).unwrap_or(0)
}

impl Detection {
    /// Detects the format of `items`.
    pub fn of(items: &[Value], top_level_system: bool) -> Self {
        Detection::Detected {
            allows: items.iter().map(allows).collect(),
            top_level_system,
        }
    }

    /// Takes in more items.
    pub fn extend(&mut self, items: &[Value]) {
        if let Detection::Detected { allows: a, .. } = self {
            a.extend(items.iter().map(allows));
        }
    }

    /// Forgets the items from `len` on.
    pub fn truncate(&mut self, len: usize) {
        if let Detection::Detected { allows, .. } = self {
            allows.truncate(len);
        }
    }

    /// The format.
    pub fn format(&self) -> MessageFormat {
        let (allows, top_level_system) = match self {
            Detection::Given(f) => return *f,
            Detection::Detected {
                allows,
                top_level_system,
            } => (allows, *top_level_system),
        };
        let all = allows.iter().fold(ANY, |acc, a| acc & a);
        let preferred = if top_level_system {
            [
                MessageFormat::Anthropic,
                MessageFormat::OpenAiChat,
                MessageFormat::OpenAiResponses,
                MessageFormat::AiSdk,
            ]
        } else {
            // A `developer` role, which both OpenAI formats have, lands here too.
            [
                MessageFormat::OpenAiChat,
                MessageFormat::OpenAiResponses,
                MessageFormat::Anthropic,
                MessageFormat::AiSdk,
            ]
        };
        if let Some(f) = preferred.into_iter().find(|&f| all & bit(f) != 0) {
            return f;
        }
        // The items disagree: the first that allows one format only decides.
        allows
            .iter()
            .find(|a| a.count_ones() == 1)
            .and_then(|&a| MessageFormat::ALL.into_iter().find(|&f| bit(f) == a))
            .unwrap_or(preferred[0])
    }
}

/// Anthropic content block types no other format has.
const ANTHROPIC_BLOCKS: &[&str] = &[
    "tool_use",
    "tool_result",
    "thinking",
    "redacted_thinking",
    "document",
    "search_result",
    "server_tool_use",
    "web_search_tool_result",
    "web_fetch_tool_result",
    "code_execution_tool_result",
    "bash_code_execution_tool_result",
    "text_editor_code_execution_tool_result",
    "mcp_tool_use",
    "mcp_tool_result",
    "container_upload",
    "compaction",
];

/// The formats an item can be in, as a bit set over [`MessageFormat::ALL`].
fn allows(item: &Value) -> u8 {
    let chat = bit(MessageFormat::OpenAiChat);
    let responses = bit(MessageFormat::OpenAiResponses);
    let anthropic = bit(MessageFormat::Anthropic);
    let ai_sdk = bit(MessageFormat::AiSdk);
    let Some(obj) = item.as_object() else { return ANY };
    if let Some(t) = obj.get("type").and_then(Value::as_str) {
        if matches!(
            t,
            "message" | "function_call" | "function_call_output" | "reasoning" | "compaction"
        ) || t.ends_with("_call")
            || t.ends_with("_call_output")
            || t == "item_reference"
        {
            return responses;
        }
    }
    if obj.contains_key("tool_calls") || obj.contains_key("tool_call_id") {
        return chat;
    }
    let mut set = ANY;
    for part in obj.get("content").and_then(Value::as_array).into_iter().flatten() {
        let has = |k: &str| part.get(k).is_some();
        set &= match part.get("type").and_then(Value::as_str) {
            Some(t) if ANTHROPIC_BLOCKS.contains(&t) => anthropic,
            Some(
                "tool-call"
                | "tool-result"
                | "reasoning"
                | "redacted-reasoning"
                | "reasoning-file"
                | "tool-approval-request"
                | "tool-approval-response",
            ) => ai_sdk,
            // AI SDK 7's provider-specific part: `{ type: "custom", kind: "provider.type" }`.
            Some("custom") if has("kind") => ai_sdk,
            Some("input_text" | "output_text" | "input_image" | "input_file") => responses,
            // The same part in both OpenAI formats.
            Some("refusal" | "input_audio") => chat | responses,
            Some("image_url") => chat,
            // A file part is OpenAI's with a `file` object ({ file_id } or { file_data }), the
            // AI SDK's with `data`; an image part is Anthropic's with a `source`, the AI SDK's
            // with `image`.
            Some("file") if has("file") => chat,
            Some("file") if has("data") => ai_sdk,
            Some("image") if has("source") => anthropic,
            Some("image") if has("image") => ai_sdk,
            _ => ANY,
        };
    }
    set
}
