//! Vercel AI SDK model messages (`ModelMessage[]`, AI SDK 5; AI SDK 4's `args` and
//! `result` are read too).
//!
//! `{ role: "system", content: string }`, `{ role: "user", content }` with `text` /
//! `image` / `file` parts, `{ role: "assistant", content }` with `text`, `file`,
//! `reasoning`, `tool-call` (and, for provider-executed tools, `tool-result`) parts,
//! and `{ role: "tool", content: [tool-result parts] }`.

use serde_json::{json, Value};

use super::json::{id, object, opt_string, string, to_text, Path};
use super::{MediaKind, Message, Part, Role};
use crate::Error;

/// Parses one message.
pub fn parse(item: &Value, path: &Path) -> Result<Message, Error> {
    let obj = object(item, path)?;
    let role = match string(obj, "role", path)? {
        "system" => Role::System,
        "user" => Role::User,
        "assistant" => Role::Assistant,
        "tool" => Role::Tool,
        other => {
            return Err(path.field("role").error(format!(
                "unknown role {other:?} (expected system, user, assistant or tool)"
            )))
        }
    };
    let cp = path.field("content");
    let parts = match obj.get("content") {
        Some(Value::String(s)) if role != Role::Tool => vec![Part::Text(s.clone())],
        Some(Value::Array(items)) if role != Role::System => items
            .iter()
            .enumerate()
            .map(|(i, p)| part(p, &cp.index(i), role))
            .collect::<Result<_, _>>()?,
        Some(other) => {
            let want = match role {
                Role::System => "a string",
                Role::Tool => "an array of tool-result parts",
                _ => "a string or an array of parts",
            };
            return Err(cp.expected(want, other));
        }
        None => return Err(cp.error("missing")),
    };
    Ok(Message {
        role,
        parts,
        name: None,
    })
}

fn part(value: &Value, path: &Path, role: Role) -> Result<Part, Error> {
    let obj = object(value, path)?;
    let kind = string(obj, "type", path)?;
    let allowed = match role {
        Role::User => matches!(kind, "text" | "image" | "file"),
        Role::Assistant => matches!(
            kind,
            "text" | "file" | "reasoning" | "redacted-reasoning" | "tool-call" | "tool-result"
        ),
        Role::Tool => kind == "tool-result",
        Role::System => false,
    };
    if !allowed {
        let role_name = format!("{role:?}").to_lowercase();
        return Err(path
            .field("type")
            .error(format!("a {role_name} message cannot hold a {kind:?} part")));
    }
    Ok(match kind {
        "text" => Part::Text(string(obj, "text", path)?.to_owned()),
        "image" => Part::Media {
            kind: MediaKind::Image,
        },
        "file" => Part::Media {
            kind: MediaKind::File,
        },
        "reasoning" => Part::Reasoning(string(obj, "text", path)?.to_owned()),
        "redacted-reasoning" => Part::Opaque {
            bytes: string(obj, "data", path)?.len(),
        },
        "tool-call" => Part::ToolCall {
            id: id(obj, "toolCallId", path)?.to_owned(),
            name: string(obj, "toolName", path)?.to_owned(),
            arguments: to_text(
                obj.get("input")
                    .or_else(|| obj.get("args"))
                    .unwrap_or(&Value::Null),
            ),
        },
        _ => {
            let (text, is_error) = match (obj.get("output"), obj.get("result")) {
                (Some(output), _) => output_text(output, &path.field("output"))?,
                (None, Some(result)) => (
                    to_text(result),
                    obj.get("isError").and_then(Value::as_bool).unwrap_or(false),
                ),
                (None, None) => return Err(path.field("output").error("missing")),
            };
            Part::ToolResult {
                call_id: id(obj, "toolCallId", path)?.to_owned(),
                text,
                is_error,
            }
        }
    })
}

/// `{ type: "text" | "json" | "error-text" | "error-json" | "content", value }`.
fn output_text(output: &Value, path: &Path) -> Result<(String, bool), Error> {
    let obj = object(output, path)?;
    let kind = string(obj, "type", path)?;
    let value = obj.get("value").unwrap_or(&Value::Null);
    let is_error = kind.starts_with("error");
    let text = match kind {
        "text" | "error-text" => string(obj, "value", path)?.to_owned(),
        "json" | "error-json" => value.to_string(),
        "content" => {
            let mut out = String::new();
            for (i, p) in value.as_array().into_iter().flatten().enumerate() {
                let pp = path.field("value").index(i);
                if let Some(t) = opt_string(object(p, &pp)?, "text", &pp)? {
                    out.push_str(t);
                }
            }
            out
        }
        other => {
            return Err(path
                .field("type")
                .error(format!("unknown tool output type {other:?}")))
        }
    };
    Ok((text, is_error))
}

/// Replaces the output of the `tool-result` part answering `call_id`.
pub fn set_result(item: &mut Value, call_id: &str, text: &str) {
    if let Some(parts) = item.get_mut("content").and_then(Value::as_array_mut) {
        for p in parts {
            if p.get("type").and_then(Value::as_str) == Some("tool-result")
                && p.get("toolCallId").and_then(Value::as_str) == Some(call_id)
            {
                if p.get("output").is_some() {
                    p["output"] = json!({ "type": "text", "value": text });
                } else {
                    p["result"] = Value::String(text.to_owned());
                }
            }
        }
    }
}

/// A new text message.
pub fn text_message(role: Role, text: &str) -> Value {
    let role = match role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant | Role::Tool => "assistant",
    };
    json!({ "role": role, "content": text })
}
