//! OpenAI Responses API input items.
//!
//! Messages (`{ role, content }`, with or without `type: "message"`; content a string or
//! `input_text` / `output_text` / `input_image` / `input_file` / `refusal` parts),
//! `function_call` / `function_call_output` and `custom_tool_call` /
//! `custom_tool_call_output` pairs (linked by `call_id`), `reasoning` items (summary and
//! content text; `encrypted_content` is opaque), `compaction` items (what the API's own
//! compaction left: `encrypted_content`, opaque, kept whole), and the other built-in tool items, which
//! are kept as they are and counted by size.

use serde_json::{json, Map, Value};

use super::json::{id, object, opt_array, opt_string, string, to_text, Path};
use super::{MediaKind, Message, MessageRole, Part};
use crate::Error;

/// Parses one input item.
pub fn parse(item: &Value, path: &Path) -> Result<Message, Error> {
    let obj = object(item, path)?;
    let kind = opt_string(obj, "type", path)?.unwrap_or("message");
    match kind {
        "message" => message(obj, path),
        "function_call" | "custom_tool_call" => {
            let arguments = match kind {
                "function_call" => string(obj, "arguments", path)?.to_owned(),
                _ => to_text(obj.get("input").unwrap_or(&Value::Null)),
            };
            Ok(Message {
                role: MessageRole::Assistant,
                parts: vec![Part::ToolCall {
                    id: id(obj, "call_id", path)?.to_owned(),
                    name: string(obj, "name", path)?.to_owned(),
                    arguments,
                }],
                name: None,
            })
        }
        "function_call_output" | "custom_tool_call_output" => {
            let (text, media) = output_content(obj.get("output"), &path.field("output"))?;
            Ok(Message {
                role: MessageRole::Tool,
                parts: vec![Part::ToolResult {
                    call_id: id(obj, "call_id", path)?.to_owned(),
                    text,
                    is_error: false,
                    media,
                }],
                name: None,
            })
        }
        "reasoning" => {
            let mut parts = Vec::new();
            for key in ["summary", "content"] {
                for (i, p) in opt_array(obj, key, path)?.iter().enumerate() {
                    let pp = path.field(key).index(i);
                    parts.push(Part::Reasoning(string(object(p, &pp)?, "text", &pp)?.to_owned()));
                }
            }
            let encrypted = opt_string(obj, "encrypted_content", path)?.map_or(0, str::len);
            if encrypted > 0 || parts.is_empty() {
                // Even an empty reasoning item keeps a part, so it reads as reasoning.
                parts.push(Part::Opaque { bytes: encrypted });
            }
            Ok(Message {
                role: MessageRole::Assistant,
                parts,
                name: None,
            })
        }
        // What the Responses API's own compaction (`/responses/compact`, or `context_management`)
        // left of the items before it: opaque, kept whole.
        "compaction" => Ok(Message {
            role: MessageRole::Assistant,
            parts: vec![Part::Compaction {
                text: String::new(),
                bytes: string(obj, "encrypted_content", path)?.len(),
            }],
            name: None,
        }),
        // Other built-in tool items: a call with a `call_id` and its `*_output` pair up;
        // everything else (web search, file search, MCP listings, item references) is
        // model-side state kept verbatim.
        other => {
            let bytes = item.to_string().len();
            let call_id = opt_string(obj, "call_id", path)?;
            let parts = match call_id {
                Some(cid) if other.ends_with("_output") => vec![Part::ToolResult {
                    call_id: cid.to_owned(),
                    text: to_text(obj.get("output").unwrap_or(&Value::Null)),
                    is_error: false,
                    media: Vec::new(),
                }],
                Some(cid) => vec![Part::ToolCall {
                    id: cid.to_owned(),
                    name: other.to_owned(),
                    arguments: item.to_string(),
                }],
                None => vec![Part::Opaque { bytes }],
            };
            let role = if other.ends_with("_output") {
                MessageRole::Tool
            } else {
                MessageRole::Assistant
            };
            Ok(Message {
                role,
                parts,
                name: None,
            })
        }
    }
}

fn message(obj: &Map<String, Value>, path: &Path) -> Result<Message, Error> {
    let role = match string(obj, "role", path)? {
        "system" | "developer" => MessageRole::System,
        "user" => MessageRole::User,
        "assistant" => MessageRole::Assistant,
        other => {
            return Err(path.field("role").error(format!(
                "unknown role {other:?} (expected system, developer, user or assistant)"
            )))
        }
    };
    let cp = path.field("content");
    let parts = match obj.get("content") {
        Some(Value::String(s)) => vec![Part::Text(s.clone())],
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, p)| content_part(p, &cp.index(i)))
            .collect::<Result<_, _>>()?,
        Some(other) => return Err(cp.expected("a string or an array of content parts", other)),
        None => return Err(cp.error("missing")),
    };
    Ok(Message {
        role,
        parts,
        name: None,
    })
}

fn content_part(part: &Value, path: &Path) -> Result<Part, Error> {
    let obj = object(part, path)?;
    Ok(match string(obj, "type", path)? {
        "input_text" | "output_text" | "text" | "summary_text" | "reasoning_text" => {
            Part::Text(string(obj, "text", path)?.to_owned())
        }
        "refusal" => Part::Text(string(obj, "refusal", path)?.to_owned()),
        "input_image" => Part::Media {
            kind: super::openai::image_kind(obj.get("detail")),
        },
        "input_file" => Part::Media {
            kind: MediaKind::File,
        },
        "input_audio" => Part::Media {
            kind: MediaKind::Audio,
        },
        other => {
            return Err(path
                .field("type")
                .error(format!("unknown content part type {other:?}")))
        }
    })
}

/// A function output: a string, or content parts (their text, and their images and files).
fn output_content(output: Option<&Value>, path: &Path) -> Result<(String, Vec<MediaKind>), Error> {
    match output {
        Some(Value::String(s)) => Ok((s.clone(), Vec::new())),
        Some(Value::Array(items)) => {
            let mut out = String::new();
            let mut media = Vec::new();
            for (i, p) in items.iter().enumerate() {
                match content_part(p, &path.index(i))? {
                    Part::Text(t) => out.push_str(&t),
                    Part::Media { kind } => media.push(kind),
                    _ => {}
                }
            }
            Ok((out, media))
        }
        Some(other) => Err(path.expected("a string or an array of content parts", other)),
        None => Err(path.error("missing")),
    }
}

/// Replaces a function output's text; the images and files of an output in parts stay
/// (see [`super::set_text`]).
pub fn set_result(item: &mut Value, text: &str) {
    match item.get_mut("output").filter(|o| o.is_array()) {
        Some(parts) => super::set_text(
            parts,
            text,
            |p| {
                !matches!(
                    p.get("type").and_then(Value::as_str),
                    Some("input_image" | "input_file" | "input_audio")
                )
            },
            |t| json!({ "type": "input_text", "text": t }),
        ),
        None => item["output"] = Value::String(text.to_owned()),
    }
}

/// A new text message.
pub fn text_message(role: MessageRole, text: &str) -> Value {
    let role = match role {
        MessageRole::System => "system",
        MessageRole::User => "user",
        MessageRole::Assistant | MessageRole::Tool => "assistant",
    };
    json!({ "type": "message", "role": role, "content": text })
}
