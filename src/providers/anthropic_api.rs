//! Anthropic's Messages API: the request body, and the summary in a reply.

use serde_json::Value;

use super::openai_api::{error_message, message};
use super::{Prompt, Settings, Summary};

/// The request body: the instructions as `system`, the text as the one user message, the
/// output cap as `max_tokens`, then the caller's extra fields.
pub fn body(settings: &Settings, prompt: &Prompt) -> Value {
    let mut body = settings.body.clone();
    body.insert("model".into(), Value::from(settings.model.as_str()));
    body.insert("max_tokens".into(), Value::from(prompt.max_tokens));
    if !prompt.system.is_empty() {
        body.insert("system".into(), Value::from(prompt.system));
    }
    body.insert(
        "messages".into(),
        Value::Array(vec![message("user", prompt.prompt)]),
    );
    Value::Object(body)
}

/// The summary in a reply: the text blocks of `content`, joined, with the reply's `model`
/// and `usage`. `Err` says what is missing.
pub fn parse(body: &str) -> Result<Summary, String> {
    let reply: Value = serde_json::from_str(body).map_err(|e| format!("not JSON ({e})"))?;
    if reply.get("type").and_then(Value::as_str) == Some("error") {
        let message = reply
            .get("error")
            .map_or_else(|| "no message".into(), error_message);
        return Err(format!("an error reply ({message})"));
    }
    let blocks = reply
        .get("content")
        .and_then(Value::as_array)
        .ok_or("not a message: no content array")?;
    let text: String = blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("");
    if text.trim().is_empty() {
        let why = match reply.get("stop_reason") {
            Some(Value::String(reason)) => format!("stop_reason {reason:?}"),
            _ => "no text block".into(),
        };
        return Err(format!("no summary text ({why})"));
    }
    Ok(Summary {
        text,
        model: reply.get("model").and_then(Value::as_str).map(str::to_owned),
        usage: reply.get("usage").filter(|u| u.is_object()).cloned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::providers::Provider;
    use serde_json::json;

    #[test]
    fn body_has_system_the_message_the_cap_and_the_extras() {
        let s = Settings::from_options(
            Provider::Anthropic,
            &json!({ "model": "claude-haiku-4-5", "body": { "temperature": 0 } }),
        )
        .unwrap();
        let prompt = Prompt {
            system: "Summarize.",
            prompt: "The text.",
            max_tokens: 700,
        };
        assert_eq!(
            body(&s, &prompt),
            json!({
                "model": "claude-haiku-4-5",
                "max_tokens": 700,
                "system": "Summarize.",
                "messages": [{ "role": "user", "content": "The text." }],
                "temperature": 0,
            })
        );
        let b = body(&s, &Prompt { system: "", ..prompt });
        assert!(b.get("system").is_none());
    }

    #[test]
    fn parses_a_reply() {
        let reply = r###"{"id":"msg_1","type":"message","role":"assistant","model":"claude-haiku-4-5-20251001",
            "content":[{"type":"thinking","thinking":"..."},{"type":"text","text":"## Conversation"},{"type":"text","text":" Summary"}],
            "stop_reason":"end_turn","usage":{"input_tokens":200,"output_tokens":40,"cache_read_input_tokens":0}}"###;
        let s = parse(reply).unwrap();
        assert_eq!(s.text, "## Conversation Summary");
        assert_eq!(s.model.as_deref(), Some("claude-haiku-4-5-20251001"));
        assert_eq!(
            s.usage,
            Some(json!({"input_tokens":200,"output_tokens":40,"cache_read_input_tokens":0}))
        );
    }

    #[test]
    fn says_what_is_wrong_with_a_reply() {
        let err = |body: &str| parse(body).unwrap_err();
        assert!(err("oops").starts_with("not JSON"));
        assert_eq!(err(r#"{"choices":[]}"#), "not a message: no content array");
        assert_eq!(
            err(r#"{"content":[],"stop_reason":"max_tokens"}"#),
            "no summary text (stop_reason \"max_tokens\")"
        );
        assert_eq!(
            err(r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#),
            "an error reply (Overloaded)"
        );
    }
}
