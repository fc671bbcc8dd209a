//! Vercel AI SDK messages: the model messages callers pass to `generateText` and
//! `streamText` (`ModelMessage[]`, AI SDK 5 to 7; AI SDK 4's `args` and `result` are read
//! too), and the provider-level prompt a language-model middleware sees
//! (`LanguageModelV2Prompt` to `V4Prompt`: the same shapes, with content always an array).
//!
//! `{ role: "system", content: string }`, `{ role: "user", content }` with `text` /
//! `image` / `file` parts, `{ role: "assistant", content }` with `text`, `file`,
//! `reasoning`, `reasoning-file`, `custom`, `tool-call`, `tool-approval-request` (and, for
//! provider-executed tools, `tool-result`) parts, and `{ role: "tool", content }` with
//! `tool-result` and `tool-approval-response` parts. `providerOptions` on messages and parts
//! are the caller's and pass through untouched.
//!
//! Approval requests and responses carry nothing the model reads as text (providers send at
//! most a flag), so they parse to no part at all: they are kept, and counted as nothing.

use serde_json::{json, Value};

use super::json::{id, object, opt_string, string, to_text, Path};
use super::{MediaKind, Message, MessageRole, Part};
use crate::Error;

/// Parses one message.
pub fn parse(item: &Value, path: &Path) -> Result<Message, Error> {
    let obj = object(item, path)?;
    let role = match string(obj, "role", path)? {
        "system" => MessageRole::System,
        "user" => MessageRole::User,
        "assistant" => MessageRole::Assistant,
        "tool" => MessageRole::Tool,
        other => {
            return Err(path.field("role").error(format!(
                "unknown role {other:?} (expected system, user, assistant or tool)"
            )))
        }
    };
    let cp = path.field("content");
    let parts = match obj.get("content") {
        Some(Value::String(s)) if role != MessageRole::Tool => vec![Part::Text(s.clone())],
        Some(Value::Array(items)) if role != MessageRole::System => {
            let mut parts = Vec::with_capacity(items.len());
            for (i, p) in items.iter().enumerate() {
                parts.extend(part(p, &cp.index(i), role)?);
            }
            parts
        }
        Some(other) => {
            let want = match role {
                MessageRole::System => "a string",
                MessageRole::Tool => "an array of tool-result parts",
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

/// One part; `None` for a part the model reads nothing of (a tool approval).
fn part(value: &Value, path: &Path, role: MessageRole) -> Result<Option<Part>, Error> {
    let obj = object(value, path)?;
    let kind = string(obj, "type", path)?;
    let allowed = match role {
        MessageRole::User => matches!(kind, "text" | "image" | "file"),
        MessageRole::Assistant => matches!(
            kind,
            "text"
                | "file"
                | "reasoning"
                | "redacted-reasoning"
                | "reasoning-file"
                | "custom"
                | "tool-call"
                | "tool-result"
                | "tool-approval-request"
        ),
        MessageRole::Tool => matches!(kind, "tool-result" | "tool-approval-response"),
        MessageRole::System => false,
    };
    if !allowed {
        let role_name = format!("{role:?}").to_lowercase();
        return Err(path
            .field("type")
            .error(format!("a {role_name} message cannot hold a {kind:?} part")));
    }
    Ok(Some(match kind {
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
        // A file the model made while reasoning (AI SDK 7): sent back as it came, counted by size.
        "reasoning-file" => Part::Opaque {
            bytes: data_bytes(obj.get("data").unwrap_or(&Value::Null)),
        },
        // Provider-specific content (`kind: "provider.type"`, AI SDK 7) whose payload is its
        // provider options: counted by their size.
        // A provider's compaction carried this way (`kind: "openai.compaction"`, ...): kept whole.
        "custom" => {
            let bytes = obj.get("providerOptions").map_or(0, |o| o.to_string().len());
            match opt_string(obj, "kind", path)?.is_some_and(|k| k.ends_with(".compaction")) {
                true => Part::Compaction {
                    text: String::new(),
                    bytes,
                },
                false => Part::Opaque { bytes },
            }
        }
        "tool-approval-request" => {
            id(obj, "toolCallId", path)?;
            return Ok(None);
        }
        "tool-approval-response" => {
            id(obj, "approvalId", path)?;
            return Ok(None);
        }
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
            let (text, is_error, media) = match (obj.get("output"), obj.get("result")) {
                (Some(output), _) => output_content(output, &path.field("output"))?,
                (None, Some(result)) => (
                    to_text(result),
                    obj.get("isError").and_then(Value::as_bool).unwrap_or(false),
                    Vec::new(),
                ),
                (None, None) => return Err(path.field("output").error("missing")),
            };
            Part::ToolResult {
                call_id: id(obj, "toolCallId", path)?.to_owned(),
                text,
                is_error,
                media,
            }
        }
    }))
}

/// The size of file data as it reached the core: a string (base64 or a URL), binary data
/// (which the JS side sends as `{ $bytes: n }`), or one of AI SDK 7's tagged shapes
/// (`{ type: "data", data }`, `{ type: "url", url }`).
fn data_bytes(data: &Value) -> usize {
    match data {
        Value::String(s) => s.len(),
        Value::Object(o) => match (o.get("$bytes"), o.get("data"), o.get("url")) {
            (Some(n), _, _) => n.as_u64().unwrap_or(0) as usize,
            (None, Some(inner), _) => data_bytes(inner),
            (None, None, Some(url)) => data_bytes(url),
            _ => data.to_string().len(),
        },
        other => other.to_string().len(),
    }
}

/// `{ type: "text" | "json" | "error-text" | "error-json" | "content", value }`, or
/// `{ type: "execution-denied", reason? }` (AI SDK 6 and later), which providers send as the
/// reason, or `Tool execution denied.` without one. A `content` output's images and files
/// (`media`, AI SDK 5; `image-*` and `file-*`, 6; `file`, 7) come back beside its text.
fn output_content(output: &Value, path: &Path) -> Result<(String, bool, Vec<MediaKind>), Error> {
    let obj = object(output, path)?;
    let kind = string(obj, "type", path)?;
    let value = obj.get("value").unwrap_or(&Value::Null);
    let is_error = kind.starts_with("error");
    let mut media = Vec::new();
    let text = match kind {
        "text" | "error-text" => string(obj, "value", path)?.to_owned(),
        "json" | "error-json" => value.to_string(),
        "execution-denied" => opt_string(obj, "reason", path)?
            .unwrap_or("Tool execution denied.")
            .to_owned(),
        "content" => {
            let mut out = String::new();
            for (i, p) in value.as_array().into_iter().flatten().enumerate() {
                let pp = path.field("value").index(i);
                let part = object(p, &pp)?;
                match output_media(p) {
                    Some(kind) => media.push(kind),
                    None => {
                        if let Some(t) = opt_string(part, "text", &pp)? {
                            out.push_str(t);
                        }
                    }
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
    Ok((text, is_error, media))
}

/// What a part of a `content` tool output is, when it is an image or a file (by its
/// `mediaType` where it has one).
fn output_media(part: &Value) -> Option<MediaKind> {
    let kind = part.get("type").and_then(Value::as_str)?;
    if kind.starts_with("image-") {
        return Some(MediaKind::Image);
    }
    if !matches!(kind, "media" | "file" | "file-data" | "file-url" | "file-id") {
        return None;
    }
    let media_type = part.get("mediaType").and_then(Value::as_str).unwrap_or("");
    Some(if media_type.starts_with("image/") {
        MediaKind::Image
    } else if media_type.starts_with("audio/") {
        MediaKind::Audio
    } else {
        MediaKind::File
    })
}

/// Replaces the output of the `tool-result` part answering `call_id`: an error stays an
/// error, and a `content` output keeps its images and files (see [`super::set_text`]).
pub fn set_result(item: &mut Value, call_id: &str, text: &str) {
    if let Some(parts) = item.get_mut("content").and_then(Value::as_array_mut) {
        for p in parts {
            if p.get("type").and_then(Value::as_str) == Some("tool-result")
                && p.get("toolCallId").and_then(Value::as_str) == Some(call_id)
            {
                let Some(output) = p.get_mut("output") else {
                    p["result"] = Value::String(text.to_owned());
                    continue;
                };
                match output.get("type").and_then(Value::as_str) {
                    Some("content") => super::set_text(
                        &mut output["value"],
                        text,
                        |part| output_media(part).is_none(),
                        |t| json!({ "type": "text", "text": t }),
                    ),
                    Some("error-text" | "error-json") => {
                        *output = json!({ "type": "error-text", "value": text })
                    }
                    _ => *output = json!({ "type": "text", "value": text }),
                }
            }
        }
    }
}

/// A new text message. With `parts`, a user or assistant message's content is an array of
/// one text part, as the provider-level prompt requires (a system message's is a string
/// in every shape).
pub fn text_message(role: MessageRole, text: &str, parts: bool) -> Value {
    let role = match role {
        MessageRole::System => return json!({ "role": "system", "content": text }),
        MessageRole::User => "user",
        MessageRole::Assistant | MessageRole::Tool => "assistant",
    };
    if parts {
        json!({ "role": role, "content": [{ "type": "text", "text": text }] })
    } else {
        json!({ "role": role, "content": text })
    }
}

/// Whether the caller writes user and assistant content as arrays of parts only, as the
/// provider-level prompt always does: then new messages do too.
pub fn parts_only(items: &[Value]) -> bool {
    let mut any = false;
    for item in items {
        if matches!(
            item.get("role").and_then(Value::as_str),
            Some("user" | "assistant")
        ) {
            if !item.get("content").is_some_and(Value::is_array) {
                return false;
            }
            any = true;
        }
    }
    any
}

/// `item`'s content cut to `text`, in the shape it came in: a string stays a string; an
/// array (a single text part, the only kind ctxfold cuts) becomes that part with its text
/// replaced, its other fields (`providerOptions`) kept.
pub fn set_text(item: &mut Value, text: &str) {
    match item.get_mut("content") {
        Some(Value::Array(parts)) if !parts.is_empty() => {
            let mut part = parts[0].clone();
            part["text"] = Value::String(text.to_owned());
            *parts = vec![part];
        }
        _ => item["content"] = Value::String(text.to_owned()),
    }
}
