//! Anthropic Messages API.
//!
//! `{ system?, messages: [{ role: "user" | "assistant", content }] }` (or the bare array);
//! `content` is a string or blocks: `text`, `image`, `document`, `tool_use`,
//! `tool_result`, `thinking`, `redacted_thinking`, `compaction` (what server-side compaction
//! left; kept whole). Server-side tool blocks
//! (`server_tool_use` and its results, MCP blocks) live inside one assistant message and
//! are kept verbatim, counted by size, as are `search_result` and `container_upload`. A user message holding only `tool_result` blocks
//! is a tool message to compaction: it does not start a turn.

use serde_json::{json, Value};

use super::json::{id, object, opt_string, string, to_text, Path};
use super::{MediaKind, Message, MessageRole, Part};
use crate::Error;

/// Parses one message.
pub fn parse(item: &Value, path: &Path) -> Result<Message, Error> {
    let obj = object(item, path)?;
    let role = match string(obj, "role", path)? {
        "user" => MessageRole::User,
        "assistant" => MessageRole::Assistant,
        "system" => {
            return Err(path
                .field("role")
                .error("Anthropic messages have no system role: pass { system, messages } instead"))
        }
        other => {
            return Err(path
                .field("role")
                .error(format!("unknown role {other:?} (expected user or assistant)")))
        }
    };
    let cp = path.field("content");
    let parts = match obj.get("content") {
        Some(Value::String(s)) => vec![Part::Text(s.clone())],
        Some(Value::Array(blocks)) => blocks
            .iter()
            .enumerate()
            .map(|(i, b)| block(b, &cp.index(i), role))
            .collect::<Result<_, _>>()?,
        Some(other) => return Err(cp.expected("a string or an array of content blocks", other)),
        None => return Err(cp.error("missing")),
    };
    let only_results = !parts.is_empty() && parts.iter().all(|p| matches!(p, Part::ToolResult { .. }));
    let role = if role == MessageRole::User && only_results {
        MessageRole::Tool
    } else {
        role
    };
    Ok(Message {
        role,
        parts,
        name: None,
    })
}

fn block(value: &Value, path: &Path, role: MessageRole) -> Result<Part, Error> {
    let obj = object(value, path)?;
    let kind = string(obj, "type", path)?;
    Ok(match kind {
        "text" => Part::Text(string(obj, "text", path)?.to_owned()),
        "image" => Part::Media {
            kind: MediaKind::Image,
        },
        "document" => Part::Media {
            kind: MediaKind::File,
        },
        "thinking" => Part::Reasoning(string(obj, "thinking", path)?.to_owned()),
        "redacted_thinking" => Part::Opaque {
            bytes: string(obj, "data", path)?.len(),
        },
        // What server-side compaction left of the conversation before it (the API drops what
        // precedes it): the model reads its text; kept whole. `content` is null when it failed.
        "compaction" => {
            if role != MessageRole::Assistant {
                return Err(path.error("compaction blocks belong in assistant messages"));
            }
            Part::Compaction {
                text: opt_string(obj, "content", path)?.unwrap_or_default().to_owned(),
                bytes: 0,
            }
        }
        "tool_use" => {
            if role != MessageRole::Assistant {
                return Err(path.error("tool_use blocks belong in assistant messages"));
            }
            Part::ToolCall {
                id: id(obj, "id", path)?.to_owned(),
                name: string(obj, "name", path)?.to_owned(),
                arguments: to_text(obj.get("input").unwrap_or(&Value::Null)),
            }
        }
        "tool_result" => {
            if role != MessageRole::User {
                return Err(path.error("tool_result blocks belong in user messages"));
            }
            let (text, media) = result_content(obj.get("content"), &path.field("content"))?;
            Part::ToolResult {
                call_id: id(obj, "tool_use_id", path)?.to_owned(),
                text,
                is_error: obj.get("is_error").and_then(Value::as_bool).unwrap_or(false),
                media,
            }
        }
        // Blocks the model reads that ctxfold does not take apart (search results, a file
        // for the code execution container), and server-side tool blocks: kept as they came,
        // counted by size.
        _ if matches!(kind, "search_result" | "container_upload")
            || kind == "server_tool_use"
            || kind.ends_with("_tool_result")
            || kind.starts_with("mcp_") =>
        {
            Part::Opaque {
                bytes: value.to_string().len(),
            }
        }
        other => {
            return Err(path
                .field("type")
                .error(format!("unknown content block type {other:?}")))
        }
    })
}

/// A tool result's content: its text, and its images and documents.
fn result_content(content: Option<&Value>, path: &Path) -> Result<(String, Vec<MediaKind>), Error> {
    match content {
        None | Some(Value::Null) => Ok((String::new(), Vec::new())),
        Some(Value::String(s)) => Ok((s.clone(), Vec::new())),
        Some(Value::Array(blocks)) => {
            let mut out = String::new();
            let mut media = Vec::new();
            for (i, b) in blocks.iter().enumerate() {
                let p = path.index(i);
                let o = object(b, &p)?;
                match media_kind(o.get("type").and_then(Value::as_str)) {
                    Some(kind) => media.push(kind),
                    None => {
                        if let Some(text) = opt_string(o, "text", &p)? {
                            out.push_str(text);
                        }
                    }
                }
            }
            Ok((out, media))
        }
        Some(other) => Err(path.expected("a string or an array of blocks", other)),
    }
}

/// What a tool result's block is, when it is an image or a document.
fn media_kind(kind: Option<&str>) -> Option<MediaKind> {
    match kind {
        Some("image") => Some(MediaKind::Image),
        Some("document") => Some(MediaKind::File),
        _ => None,
    }
}

/// Parses the top-level `system` (a string or text blocks) as a system message.
pub fn parse_system(system: &Value, path: &Path) -> Result<Message, Error> {
    let text = match system {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => {
            let mut out = String::new();
            for (i, b) in blocks.iter().enumerate() {
                let p = path.index(i);
                out.push_str(string(object(b, &p)?, "text", &p)?);
            }
            out
        }
        other => return Err(path.expected("a string or an array of text blocks", other)),
    };
    Ok(Message {
        role: MessageRole::System,
        parts: vec![Part::Text(text)],
        name: None,
    })
}

/// Replaces the text of the `tool_result` block answering `call_id`; its images and
/// documents stay (see [`super::set_text`]).
pub fn set_result(item: &mut Value, call_id: &str, text: &str) {
    if let Some(blocks) = item.get_mut("content").and_then(Value::as_array_mut) {
        for b in blocks {
            if b.get("type").and_then(Value::as_str) == Some("tool_result")
                && b.get("tool_use_id").and_then(Value::as_str) == Some(call_id)
            {
                let content = b.get_mut("content").filter(|c| c.is_array());
                match content {
                    Some(blocks) => super::set_text(
                        blocks,
                        text,
                        |b| media_kind(b.get("type").and_then(Value::as_str)).is_none(),
                        |t| json!({ "type": "text", "text": t }),
                    ),
                    None => b["content"] = Value::String(text.to_owned()),
                }
            }
        }
    }
}

/// A new text message. Anthropic has no system role inside `messages`; a system-role
/// addition goes in as a user message.
pub fn text_message(role: MessageRole, text: &str) -> Value {
    let role = if role == MessageRole::Assistant {
        "assistant"
    } else {
        "user"
    };
    json!({ "role": role, "content": text })
}
