//! OpenAI Chat Completions messages.
//!
//! `{ role: "system" | "developer" | "user" | "assistant" | "tool", content, name?,
//! tool_calls?, tool_call_id? }`; `content` is a string, an array of parts (`text`,
//! `image_url`, `input_audio`, `file`, `refusal`), or null on an assistant message that
//! only calls tools.

use serde_json::{json, Value};

use super::json::{id, object, opt_array, opt_string, string, to_text, Path};
use super::{MediaKind, Message, MessageRole, Part};
use crate::Error;

/// Parses one message.
pub fn parse(item: &Value, path: &Path) -> Result<Message, Error> {
    let obj = object(item, path)?;
    let role_name = string(obj, "role", path)?;
    let role = match role_name {
        "system" | "developer" => MessageRole::System,
        "user" => MessageRole::User,
        "assistant" => MessageRole::Assistant,
        "tool" | "function" => MessageRole::Tool,
        other => {
            return Err(path.field("role").error(format!(
                "unknown role {other:?} (expected system, developer, user, assistant or tool)"
            )))
        }
    };
    let name = opt_string(obj, "name", path)?.map(str::to_owned);
    let mut parts = Vec::new();
    let content_path = path.field("content");
    match (role_name, obj.get("content")) {
        ("tool", Some(content)) => {
            let call_id = id(obj, "tool_call_id", path)?.to_owned();
            let text = content_text(content, &content_path)?;
            parts.push(Part::ToolResult {
                call_id,
                text,
                is_error: false,
                media: Vec::new(),
            });
        }
        ("tool", None) => return Err(content_path.error("missing (a tool message needs content)")),
        // Legacy function results carry no id; they are counted as text.
        (_, None | Some(Value::Null)) if role == MessageRole::Assistant => {}
        (_, None) => return Err(content_path.error("missing")),
        (_, Some(Value::String(s))) => parts.push(Part::Text(s.clone())),
        (_, Some(Value::Array(items))) => {
            for (i, part) in items.iter().enumerate() {
                parts.push(content_part(part, &content_path.index(i))?);
            }
        }
        (_, Some(other)) => return Err(content_path.expected("a string or an array of parts", other)),
    }
    if let Some(refusal) = opt_string(obj, "refusal", path)? {
        parts.push(Part::Text(refusal.to_owned()));
    }
    let calls_path = path.field("tool_calls");
    for (i, call) in opt_array(obj, "tool_calls", path)?.iter().enumerate() {
        if role != MessageRole::Assistant {
            return Err(calls_path.error("only assistant messages call tools"));
        }
        let p = calls_path.index(i);
        let c = object(call, &p)?;
        let call_id = id(c, "id", &p)?.to_owned();
        let (name, arguments) = match (c.get("function"), c.get("custom")) {
            (Some(f), _) => {
                let fp = p.field("function");
                let f = object(f, &fp)?;
                (
                    string(f, "name", &fp)?.to_owned(),
                    string(f, "arguments", &fp)?.to_owned(),
                )
            }
            (None, Some(custom)) => {
                let cp = p.field("custom");
                let custom = object(custom, &cp)?;
                (
                    string(custom, "name", &cp)?.to_owned(),
                    to_text(custom.get("input").unwrap_or(&Value::Null)),
                )
            }
            (None, None) => return Err(p.field("function").error("missing")),
        };
        parts.push(Part::ToolCall {
            id: call_id,
            name,
            arguments,
        });
    }
    if let Some(call) = obj.get("function_call").filter(|v| !v.is_null()) {
        let p = path.field("function_call");
        let c = object(call, &p)?;
        parts.push(Part::Text(format!(
            "{}({})",
            string(c, "name", &p)?,
            string(c, "arguments", &p)?
        )));
    }
    Ok(Message { role, parts, name })
}

/// An image part's kind by its `detail` (`"low"`: one flat tile; `"high"`, `"auto"` or none:
/// counted as a high-detail image, as `auto` may send it).
pub(super) fn image_kind(detail: Option<&Value>) -> MediaKind {
    match detail.and_then(Value::as_str) {
        Some("low") => MediaKind::ImageLow,
        _ => MediaKind::Image,
    }
}

fn content_part(part: &Value, path: &Path) -> Result<Part, Error> {
    let obj = object(part, path)?;
    Ok(match string(obj, "type", path)? {
        "text" => Part::Text(string(obj, "text", path)?.to_owned()),
        "refusal" => Part::Text(string(obj, "refusal", path)?.to_owned()),
        "image_url" => Part::Media {
            kind: image_kind(obj.get("image_url").and_then(|u| u.get("detail"))),
        },
        "input_audio" => Part::Media {
            kind: MediaKind::Audio,
        },
        "file" => Part::Media {
            kind: MediaKind::File,
        },
        other => {
            return Err(path
                .field("type")
                .error(format!("unknown content part type {other:?}")))
        }
    })
}

/// A tool message's content as text: a string, or the text of its parts.
fn content_text(content: &Value, path: &Path) -> Result<String, Error> {
    match content {
        Value::String(s) => Ok(s.clone()),
        Value::Array(items) => {
            let mut out = String::new();
            for (i, part) in items.iter().enumerate() {
                if let Part::Text(t) = content_part(part, &path.index(i))? {
                    out.push_str(&t);
                }
            }
            Ok(out)
        }
        other => Err(path.expected("a string or an array of parts", other)),
    }
}

/// Replaces a tool message's result.
pub fn set_result(item: &mut Value, text: &str) {
    item["content"] = Value::String(text.to_owned());
}

/// A new text message.
pub fn text_message(role: MessageRole, text: &str) -> Value {
    json!({ "role": role_name(role), "content": text })
}

fn role_name(role: MessageRole) -> &'static str {
    match role {
        MessageRole::System => "system",
        MessageRole::User => "user",
        MessageRole::Assistant | MessageRole::Tool => "assistant",
    }
}
