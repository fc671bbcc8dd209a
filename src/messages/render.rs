//! Writing output in the caller's format: kept items as they came, tool results replaced
//! by pruning, messages cut to fit, summaries as new messages or merged into a message.

use serde_json::{json, Value};

use super::json::Path;
use super::{
    ai_sdk, anthropic, openai, parse_item, responses, Conversation, Envelope, Message, MessageFormat,
    MessageRole, Part,
};

impl Conversation {
    /// Builds the output: `order` lists what goes out, in order. Kept items are written as
    /// they came, except tool results replaced in `edits`.
    pub fn render(&self, order: &[Out]) -> Value {
        let items: Vec<Value> = order.iter().map(|o| self.render_item(o)).collect();
        match &self.envelope {
            Envelope::Array => Value::Array(items),
            Envelope::Object(rest) => {
                let mut obj = rest.clone();
                obj.insert("messages".into(), Value::Array(items));
                Value::Object(obj)
            }
        }
    }

    /// One item of the output, as [`Conversation::render`] writes it (without the
    /// envelope around the array).
    pub fn render_item(&self, o: &Out) -> Value {
        match o {
            Out::Keep(i) => self.items[*i].clone(),
            Out::Edited { index, results } => {
                let mut item = self.items[*index].clone();
                for (call_id, text) in results {
                    match self.format {
                        MessageFormat::OpenAiChat => openai::set_result(&mut item, text),
                        MessageFormat::OpenAiResponses => responses::set_result(&mut item, text),
                        MessageFormat::Anthropic => anthropic::set_result(&mut item, call_id, text),
                        MessageFormat::AiSdk => ai_sdk::set_result(&mut item, call_id, text),
                    }
                }
                item
            }
            Out::Truncated { index, text } => {
                // Every format takes a plain string as a system, user or assistant message's
                // content, except the AI SDK's provider-level prompt: there the cut text
                // stays in the part it came in. A message with images or files keeps them
                // where they were, its text parts now one.
                let mut item = self.items[*index].clone();
                let media = self.messages[*index]
                    .parts
                    .iter()
                    .any(|p| matches!(p, Part::Media { .. }));
                if media && item.get("content").is_some_and(Value::is_array) {
                    super::set_text(&mut item["content"], text, is_text_part, |t| {
                        text_part(self.format, t)
                    });
                } else if self.format == MessageFormat::AiSdk {
                    ai_sdk::set_text(&mut item, text);
                } else {
                    item["content"] = Value::String(text.clone());
                }
                item
            }
            Out::New(message) => self.new_item(message),
            Out::Merged { index, text } => self
                .merged_item(*index, text)
                .unwrap_or_else(|| self.items[*index].clone()),
        }
    }

    /// Item `index` with `text` put at the start of its content: before a string content
    /// (a blank line between), as the first part of an array of parts, or as the content of
    /// an assistant message that only calls tools. `None` when the message cannot take it
    /// as it stands: not a user or assistant message, or one holding tool results or
    /// reasoning (which providers want first), or an item with no content (a Responses
    /// `function_call`).
    pub fn merged_item(&self, index: usize, text: &str) -> Option<Value> {
        let m = &self.messages[index];
        let plain = m.parts.iter().all(|p| {
            !matches!(
                p,
                Part::ToolResult { .. } | Part::Reasoning(_) | Part::Opaque { .. } | Part::Compaction { .. }
            )
        });
        if !matches!(m.role, MessageRole::User | MessageRole::Assistant) || !plain {
            return None;
        }
        let mut item = self.items[index].clone();
        let content = item.as_object_mut()?.get_mut("content");
        match content {
            Some(Value::String(s)) => *s = format!("{text}\n\n{s}"),
            Some(Value::Array(parts)) => {
                let kind = match (self.format, m.role) {
                    (MessageFormat::OpenAiResponses, MessageRole::Assistant) => "output_text",
                    (MessageFormat::OpenAiResponses, _) => "input_text",
                    _ => "text",
                };
                parts.insert(0, serde_json::json!({ "type": kind, "text": text }));
            }
            None | Some(Value::Null)
                if self.format == MessageFormat::OpenAiChat && m.role == MessageRole::Assistant =>
            {
                item["content"] = Value::String(text.to_owned());
            }
            _ => return None,
        }
        Some(item)
    }

    /// [`Conversation::merged_item`], parsed: what the merged message says, for counting.
    pub fn merged_message(&self, index: usize, text: &str) -> Option<Message> {
        let item = self.merged_item(index, text)?;
        parse_item(self.format, &item, &Path::root("messages").index(index)).ok()
    }

    /// A text message in this conversation's format.
    pub fn text_item(&self, role: MessageRole, text: &str) -> Value {
        self.new_item(&NewMessage {
            role,
            text: text.to_owned(),
        })
    }

    /// Results for `calls` (`(id, tool name)`), each saying `text`, as this conversation's
    /// format writes them: a message (or item) per result, or one message holding them all.
    pub fn result_items(&self, calls: &[(&str, &str)], text: &str) -> Vec<Value> {
        match self.format {
            MessageFormat::OpenAiChat => calls
                .iter()
                .map(|(id, _)| json!({ "role": "tool", "tool_call_id": id, "content": text }))
                .collect(),
            MessageFormat::OpenAiResponses => calls
                .iter()
                .map(|(id, _)| json!({ "type": "function_call_output", "call_id": id, "output": text }))
                .collect(),
            MessageFormat::Anthropic => vec![json!({
                "role": "user",
                "content": calls
                    .iter()
                    .map(|(id, _)| json!({ "type": "tool_result", "tool_use_id": id, "content": text }))
                    .collect::<Vec<_>>(),
            })],
            MessageFormat::AiSdk => vec![json!({
                "role": "tool",
                "content": calls
                    .iter()
                    .map(|(id, name)| json!({
                        "type": "tool-result",
                        "toolCallId": id,
                        "toolName": name,
                        "output": { "type": "text", "value": text },
                    }))
                    .collect::<Vec<_>>(),
            })],
        }
    }

    /// A new text message (a summary, a marker) in this conversation's format.
    fn new_item(&self, message: &NewMessage) -> Value {
        match self.format {
            MessageFormat::OpenAiChat => openai::text_message(message.role, &message.text),
            MessageFormat::OpenAiResponses => responses::text_message(message.role, &message.text),
            MessageFormat::Anthropic => anthropic::text_message(message.role, &message.text),
            MessageFormat::AiSdk => {
                ai_sdk::text_message(message.role, &message.text, ai_sdk::parts_only(&self.items))
            }
        }
    }
}

/// One item of rendered output.
#[derive(Clone, Debug)]
pub enum Out {
    /// The caller's item `i`, unchanged.
    Keep(usize),
    /// The caller's item `index` with the results of some calls replaced: (call id, text).
    Edited {
        index: usize,
        results: Vec<(String, String)>,
    },
    /// The caller's text message `index` with its content cut to `text` (only with
    /// `overflow: "truncate"`, when nothing else fits).
    Truncated { index: usize, text: String },
    /// A message ctxfold adds.
    New(NewMessage),
    /// The caller's item `index` with a summary `text` put at the start of its content
    /// (`alternateRoles`), where a message of its own would sit next to one of the same
    /// side.
    Merged { index: usize, text: String },
}

/// A text message ctxfold adds (a summary, a marker).
#[derive(Clone, Debug, PartialEq)]
pub struct NewMessage {
    /// System, user or assistant.
    pub role: MessageRole,
    /// Its text.
    pub text: String,
}

/// Whether a content part of a message is text (in any of the four formats).
fn is_text_part(part: &Value) -> bool {
    matches!(
        part.get("type").and_then(Value::as_str),
        Some("text" | "input_text" | "output_text")
    )
}

/// A text content part in `format`.
fn text_part(format: MessageFormat, text: &str) -> Value {
    let kind = if format == MessageFormat::OpenAiResponses {
        "input_text"
    } else {
        "text"
    };
    serde_json::json!({ "type": kind, "text": text })
}
