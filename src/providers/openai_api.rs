//! OpenAI's Chat Completions, as OpenAI, Ollama, vLLM, LM Studio, OpenRouter and others
//! serve it: the request body, and the summary in a reply.

use serde_json::{Map, Value};

use super::{Prompt, Settings, Summary};

/// The request body: the instructions as a system message, the text as a user message,
/// the output cap in the configured field, then the caller's extra fields.
pub fn body(settings: &Settings, prompt: &Prompt) -> Value {
    let messages = vec![message("system", prompt.system), message("user", prompt.prompt)];
    let mut body = settings.body.clone();
    body.insert("model".into(), Value::from(settings.model.as_str()));
    body.insert("messages".into(), Value::Array(messages));
    body.insert(settings.max_tokens_field.clone(), Value::from(prompt.max_tokens));
    Value::Object(body)
}

/// `{ "role": role, "content": content }`. (Values are built by hand rather than with
/// `json!`, whose interpolations bring serde's whole Value serializer into the wasm.)
pub(super) fn message(role: &str, content: &str) -> Value {
    let mut m = Map::new();
    m.insert("role".into(), Value::from(role));
    m.insert("content".into(), Value::from(content));
    Value::Object(m)
}

/// The summary in a reply: `choices[0].message.content` (a string, or text parts), with
/// the reply's `model` and `usage`. `Err` says what is missing.
pub fn parse(body: &str) -> Result<Summary, String> {
    let reply: Value = serde_json::from_str(body).map_err(|e| format!("not JSON ({e})"))?;
    if let Some(error) = reply.get("error").filter(|e| !e.is_null()) {
        return Err(format!("an error reply ({})", error_message(error)));
    }
    let choice = reply
        .get("choices")
        .and_then(|c| c.get(0))
        .ok_or("not a chat completion: no choices[0]")?;
    let message = choice
        .get("message")
        .ok_or("not a chat completion: no choices[0].message")?;
    let text = match message.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    };
    if text.trim().is_empty() {
        let why = match (
            message.get("refusal").and_then(Value::as_str),
            choice.get("finish_reason"),
        ) {
            (Some(refusal), _) => format!("the model refused: {refusal}"),
            (None, Some(Value::String(reason))) => format!("finish_reason {reason:?}"),
            _ => "no choices[0].message.content".into(),
        };
        return Err(format!("no summary text ({why})"));
    }
    Ok(Summary {
        text,
        model: reply.get("model").and_then(Value::as_str).map(str::to_owned),
        usage: reply.get("usage").filter(|u| u.is_object()).cloned(),
    })
}

/// The message of an `error` member (`{ "message": ... }` or a string).
pub(super) fn error_message(error: &Value) -> String {
    error
        .get("message")
        .and_then(Value::as_str)
        .or_else(|| error.as_str())
        .unwrap_or("no message")
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::providers::Provider;
    use serde_json::json;

    fn settings(options: Value) -> Settings {
        Settings::from_options(Provider::OpenAI, &options).unwrap()
    }

    #[test]
    fn body_has_the_messages_the_cap_and_the_extras() {
        let prompt = Prompt {
            system: "Summarize.",
            prompt: "The text.",
            max_tokens: 512,
        };
        let b = body(
            &settings(json!({ "model": "gpt-4o-mini", "body": { "temperature": 0 } })),
            &prompt,
        );
        assert_eq!(
            b,
            json!({
                "model": "gpt-4o-mini",
                "messages": [
                    { "role": "system", "content": "Summarize." },
                    { "role": "user", "content": "The text." },
                ],
                "max_tokens": 512,
                "temperature": 0,
            })
        );
        let s = settings(json!({ "model": "gpt-5-mini", "maxTokensField": "max_completion_tokens" }));
        let b = body(&s, &prompt);
        assert_eq!(b["max_completion_tokens"], json!(512));
        assert!(b.get("max_tokens").is_none());
    }

    #[test]
    fn parses_a_reply() {
        let reply = r###"{"id":"c1","object":"chat.completion","model":"gpt-4o-mini-2024-07-18",
            "choices":[{"index":0,"message":{"role":"assistant","content":"## Conversation Summary"},"finish_reason":"stop"}],
            "usage":{"prompt_tokens":120,"completion_tokens":30,"total_tokens":150}}"###;
        let s = parse(reply).unwrap();
        assert_eq!(s.text, "## Conversation Summary");
        assert_eq!(s.model.as_deref(), Some("gpt-4o-mini-2024-07-18"));
        assert_eq!(
            s.usage,
            Some(json!({"prompt_tokens":120,"completion_tokens":30,"total_tokens":150}))
        );
        // Content as parts; no model or usage (some servers leave them out).
        let s = parse(r#"{"choices":[{"message":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}}]}"#)
            .unwrap();
        assert_eq!((s.text.as_str(), s.model, s.usage), ("ab", None, None));
    }

    #[test]
    fn says_what_is_wrong_with_a_reply() {
        let err = |body: &str| parse(body).unwrap_err();
        assert!(err("<html>Bad gateway</html>").starts_with("not JSON"));
        assert_eq!(
            err(r#"{"object":"list"}"#),
            "not a chat completion: no choices[0]"
        );
        assert_eq!(err(r#"{"choices":[]}"#), "not a chat completion: no choices[0]");
        assert_eq!(
            err(r#"{"choices":[{"text":"x"}]}"#),
            "not a chat completion: no choices[0].message"
        );
        assert_eq!(
            err(r#"{"choices":[{"message":{"content":null},"finish_reason":"length"}]}"#),
            "no summary text (finish_reason \"length\")"
        );
        assert_eq!(
            err(r#"{"choices":[{"message":{"content":null,"refusal":"I can't."}}]}"#),
            "no summary text (the model refused: I can't.)"
        );
        assert_eq!(
            err(r#"{"error":{"message":"overloaded"}}"#),
            "an error reply (overloaded)"
        );
    }
}
