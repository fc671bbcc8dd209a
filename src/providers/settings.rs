//! The options of `openAISummarizer` / `anthropicSummarizer`, checked once into
//! [`Settings`]: the endpoint, every header to send, the extra body fields, the retry
//! budget, and the secrets an error must never show.

use serde::Deserialize;
use serde_json::{Map, Value};
use ts_rs::TS;

use super::redact::redact;
use crate::options::Int;
use crate::Error;

/// Options of `openAISummarizer` and `anthropicSummarizer` (`maxTokensField` is OpenAI's
/// only). Unknown keys are errors.
#[derive(Clone, Debug, Default, Deserialize, TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(optional_fields)]
pub struct SummarizerOptions {
    /// The model that writes the summaries: `"gpt-4o-mini"`, `"llama3.1"` (Ollama),
    /// `"qwen/qwen3-8b"` (OpenRouter), `"claude-haiku-4-5"`, ...
    #[ts(optional = false, type = "string")]
    pub model: Option<String>,
    /// The API's base URL. OpenAI-compatible: `/chat/completions` is appended; default
    /// `https://api.openai.com/v1` (Ollama: `http://localhost:11434/v1`; vLLM:
    /// `http://localhost:8000/v1`; LM Studio: `http://localhost:1234/v1`; OpenRouter:
    /// `https://openrouter.ai/api/v1`). Anthropic: `/v1/messages` is appended (`/messages` to
    /// one that ends in `/v1`); default `https://api.anthropic.com`.
    #[serde(rename = "baseURL")]
    pub base_url: Option<String>,
    /// Sent as `Authorization: Bearer <apiKey>` (OpenAI-compatible; leave it out for servers
    /// that need none) or `x-api-key` (Anthropic). Never part of an error.
    pub api_key: Option<String>,
    /// Headers for every request, replacing the defaults of the same name (Anthropic's
    /// `anthropic-version` is `2023-06-01` unless set here; from a browser page, Anthropic's
    /// API wants `"anthropic-dangerous-direct-browser-access": "true"`). Values of credential
    /// headers (`authorization`, `cookie`, and names with `key`, `token`, `secret`, `auth` or
    /// `password` in them) are kept out of errors as the key is.
    #[ts(optional, type = "Record<string, string> | [string, string][] | Headers")]
    pub headers: Option<Value>,
    /// Extra request fields, e.g. `{ temperature: 0 }` or `{ reasoning_effort: "minimal" }`.
    /// The summarizer's own (`model`, `messages`, `system`, the token cap, `stream`) cannot
    /// be set here.
    #[ts(optional, type = "Record<string, unknown>")]
    pub body: Option<Value>,
    /// OpenAI-compatible only: the field that carries the request's `maxTokens`:
    /// `"max_tokens"` (default; every compatible server takes it) or
    /// `"max_completion_tokens"` (OpenAI's reasoning models require it).
    pub max_tokens_field: Option<MaxTokensField>,
    /// Retries after a 408, 409, 429 or 5xx answer (Anthropic's 529 "overloaded" among them)
    /// or a failed connection, 0 to 10. A retry waits as the server's `retry-after-ms` /
    /// `retry-after` asks (up to 60 s; a longer wait fails the call), or backs off from
    /// 0.5 s, doubling up to 8 s; a wait that would pass the request's deadline (`timeoutMs`)
    /// is not started, and one its `signal` ends fails with the answer it had. Default 2.
    pub max_retries: Option<Int<0, 10>>,
}

/// The body field that carries the output cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum MaxTokensField {
    /// `max_tokens`.
    MaxTokens,
    /// `max_completion_tokens`.
    MaxCompletionTokens,
}

/// Which API a summarizer speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Provider {
    /// OpenAI's Chat Completions, as OpenAI, Ollama, vLLM, LM Studio, OpenRouter and
    /// others serve it.
    OpenAI,
    /// Anthropic's Messages API.
    Anthropic,
}

/// Retries when `maxRetries` is not given (as OpenAI's and Anthropic's SDKs).
pub const DEFAULT_RETRIES: u32 = 2;
/// The `anthropic-version` header sent unless the caller's headers set another.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

impl Provider {
    /// By its name in the face: `"openai"` or `"anthropic"`.
    pub fn from_name(name: &str) -> Option<Provider> {
        match name {
            "openai" => Some(Provider::OpenAI),
            "anthropic" => Some(Provider::Anthropic),
            _ => None,
        }
    }

    /// What errors call it.
    pub fn api_name(self) -> &'static str {
        match self {
            Provider::OpenAI => "OpenAI-compatible API",
            Provider::Anthropic => "Anthropic API",
        }
    }

    /// Where requests go when no `baseURL` is given.
    pub fn default_base_url(self) -> &'static str {
        match self {
            Provider::OpenAI => "https://api.openai.com/v1",
            Provider::Anthropic => "https://api.anthropic.com",
        }
    }

    /// The endpoint under a base URL (no trailing slash).
    fn endpoint(self, base: &str) -> String {
        match self {
            Provider::OpenAI => format!("{base}/chat/completions"),
            // Anthropic's SDK takes the host as its base URL; the AI SDK takes `.../v1`.
            // Both work: `/v1` is not doubled.
            Provider::Anthropic if base.ends_with("/v1") => format!("{base}/messages"),
            Provider::Anthropic => format!("{base}/v1/messages"),
        }
    }

    /// Body fields the summarizer sets itself, which `options.body` cannot.
    fn own_fields(self) -> &'static [&'static str] {
        match self {
            Provider::OpenAI => &[
                "model",
                "messages",
                "stream",
                "max_tokens",
                "max_completion_tokens",
            ],
            Provider::Anthropic => &["model", "messages", "system", "stream", "max_tokens"],
        }
    }
}

/// A summarizer's configuration, checked: everything a request needs but the request.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// Which API.
    pub provider: Provider,
    /// The endpoint requests are POSTed to.
    pub url: String,
    /// The model that writes summaries.
    pub model: String,
    /// Every header to send, credentials included.
    pub headers: Vec<(String, String)>,
    /// Extra body fields (`temperature`, `reasoning_effort`, ...).
    pub body: Map<String, Value>,
    /// The body field that carries the output cap.
    pub max_tokens_field: String,
    /// Retries after a retryable failure.
    pub max_retries: u32,
    /// The API key and the values of credential headers: redacted from every error.
    pub secrets: Vec<String>,
}

impl Settings {
    /// Reads a summarizer's options (`openAISummarizer({ ... })` as JSON). Unknown keys,
    /// wrong types and values out of range are errors naming the option.
    pub fn from_options(provider: Provider, options: &Value) -> Result<Settings, Error> {
        let o: SummarizerOptions = crate::options::from_value("options", options)?;
        if provider == Provider::Anthropic && o.max_tokens_field.is_some() {
            // OpenAI's only: for Anthropic it is no option, as any unknown key.
            let known = crate::options::tracked::field_names::<SummarizerOptions>();
            return Err(Error::UnknownOption {
                argument: "options.maxTokensField".into(),
                known: known
                    .iter()
                    .filter(|k| **k != "maxTokensField")
                    .map(|k| (*k).to_owned())
                    .collect(),
            });
        }
        let model = o
            .model
            .as_deref()
            .filter(|m| !m.trim().is_empty())
            .ok_or_else(|| invalid("options.model", "a model id (a non-empty string)"))?;
        let api_key = o.api_key.as_deref().filter(|k| !k.is_empty());
        if api_key.is_some_and(|key| !header_value_ok(key)) {
            return Err(invalid(
                "options.apiKey",
                "a key without line breaks or control characters",
            ));
        }
        let max_tokens_field = match o.max_tokens_field {
            None | Some(MaxTokensField::MaxTokens) => "max_tokens",
            Some(MaxTokensField::MaxCompletionTokens) => "max_completion_tokens",
        };
        let max_retries = o.max_retries.map_or(DEFAULT_RETRIES, |n| n.get() as u32);
        let body = extra_fields(provider, o.body.as_ref())?;
        let (headers, secrets) = request_headers(provider, api_key, o.headers.as_ref())?;
        // Checked once the secrets are known: a URL in an error has them redacted.
        let base = match o.base_url.as_deref() {
            None => provider.default_base_url().to_owned(),
            Some(url) => base_url(url, &secrets)?,
        };
        Ok(Settings {
            provider,
            url: provider.endpoint(&base),
            model: model.to_owned(),
            headers,
            body,
            max_tokens_field: max_tokens_field.to_owned(),
            max_retries,
            secrets,
        })
    }
}

/// Header names and values, in the order they are sent.
type Headers = Vec<(String, String)>;

/// `options.body`: extra request fields, none of which the summarizer sets itself.
fn extra_fields(provider: Provider, body: Option<&Value>) -> Result<Map<String, Value>, Error> {
    match body {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(fields)) => {
            if let Some(own) = fields
                .keys()
                .find(|k| provider.own_fields().contains(&k.as_str()))
            {
                return Err(invalid(
                    &format!("options.body.{own}"),
                    "a field the summarizer does not set itself (model, messages and the token cap come from the options and each request; streaming is not supported)",
                ));
            }
            Ok(fields.clone())
        }
        Some(_) => Err(invalid("options.body", "an object of extra request fields")),
    }
}

/// Every header a request sends (the defaults, the key's, the caller's), and the secrets an
/// error must never show.
fn request_headers(
    provider: Provider,
    api_key: Option<&str>,
    caller: Option<&Value>,
) -> Result<(Headers, Vec<String>), Error> {
    let mut headers: Vec<(String, String)> = vec![("content-type".into(), "application/json".into())];
    match provider {
        Provider::OpenAI => {
            if let Some(key) = api_key {
                headers.push(("authorization".into(), format!("Bearer {key}")));
            }
        }
        Provider::Anthropic => {
            if let Some(key) = api_key {
                headers.push(("x-api-key".into(), key.to_owned()));
            }
            headers.push(("anthropic-version".into(), ANTHROPIC_VERSION.into()));
        }
    }
    let mut secrets: Vec<String> = api_key.into_iter().map(str::to_owned).collect();
    for (name, value) in caller_headers(caller)? {
        if is_credential(&name) && !value.is_empty() {
            secrets.push(value.clone());
            if let Some(token) = value.split_once(' ').map(|(_, t)| t.trim()) {
                if !token.is_empty() {
                    secrets.push(token.to_owned());
                }
            }
        }
        // The caller's header replaces a default of the same name.
        headers.retain(|(n, _)| !n.eq_ignore_ascii_case(&name));
        headers.push((name, value));
    }
    Ok((headers, secrets))
}

fn invalid(argument: &str, expected: &str) -> Error {
    Error::InvalidArgument {
        argument: argument.to_owned(),
        expected: expected.to_owned(),
    }
}

/// An `http(s)://` base URL without query or fragment (a path is appended to it), without
/// its trailing slashes.
fn base_url(url: &str, secrets: &[String]) -> Result<String, Error> {
    let lower = url.to_ascii_lowercase();
    let rest = lower
        .strip_prefix("https://")
        .or_else(|| lower.strip_prefix("http://"));
    let ok = rest.is_some_and(|r| !r.is_empty() && !r.starts_with('/'))
        && !url.contains(['?', '#'])
        && !url.chars().any(|c| c.is_whitespace() || c.is_control());
    // `user:password@host`: fetch refuses such a URL, and every error would show it. It is
    // not echoed here either.
    let authority = rest.map_or("", |r| r.split('/').next().unwrap_or(""));
    if authority.contains('@') {
        return Err(invalid(
            "options.baseURL",
            "a URL without credentials (fetch refuses user:password@ in a URL): send them in options.headers, such as an authorization header, got a URL with credentials",
        ));
    }
    if !ok {
        return Err(invalid(
            "options.baseURL",
            &format!(
                "an http:// or https:// URL without query or fragment (the API's path is appended to it), got {:?}",
                redact(url, secrets)
            ),
        ));
    }
    Ok(url.trim_end_matches('/').to_owned())
}

/// The caller's `headers`: an object of strings, or `[name, value]` pairs.
fn caller_headers(value: Option<&Value>) -> Result<Vec<(String, String)>, Error> {
    let pairs: Vec<(String, &Value)> = match value {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Object(map)) => map.iter().map(|(k, v)| (k.clone(), v)).collect(),
        Some(Value::Array(items)) => {
            let mut pairs = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                match item.as_array().map(Vec::as_slice) {
                    Some([Value::String(name), value]) => pairs.push((name.clone(), value)),
                    _ => {
                        return Err(invalid(
                            &format!("options.headers[{i}]"),
                            "a [name, value] pair of strings",
                        ))
                    }
                }
            }
            pairs
        }
        Some(_) => {
            return Err(invalid(
                "options.headers",
                "an object of header values, [name, value] pairs, or a Headers object",
            ))
        }
    };
    pairs
        .into_iter()
        .map(|(name, value)| {
            let path = format!("options.headers[{name:?}]");
            if name.is_empty() || !name.bytes().all(is_token_byte) {
                return Err(invalid(
                    &path,
                    "a valid header name (letters, digits and !#$%&'*+-.^_`|~)",
                ));
            }
            match value {
                Value::String(v) if header_value_ok(v) => Ok((name, v.clone())),
                Value::String(_) => Err(invalid(
                    &path,
                    "a value without line breaks or control characters",
                )),
                _ => Err(invalid(&path, "a string")),
            }
        })
        .collect()
}

/// A byte of an HTTP token (RFC 9110 `tchar`).
fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// A header value `fetch` accepts: no NUL, CR or LF (and no other control characters but tab).
fn header_value_ok(v: &str) -> bool {
    !v.chars().any(|c| c.is_control() && c != '\t')
}

/// Headers whose values are credentials: kept out of errors like the API key.
fn is_credential(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    matches!(n.as_str(), "authorization" | "proxy-authorization" | "cookie")
        || ["key", "token", "secret", "auth", "password"]
            .iter()
            .any(|w| n.contains(w))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn openai(options: Value) -> Result<Settings, Error> {
        Settings::from_options(Provider::OpenAI, &options)
    }

    fn anthropic(options: Value) -> Result<Settings, Error> {
        Settings::from_options(Provider::Anthropic, &options)
    }

    fn argument(e: Error) -> String {
        match e {
            Error::InvalidArgument { argument, .. }
            | Error::UnknownOption { argument, .. }
            | Error::OutOfRange { argument, .. } => argument,
            other => panic!("not an argument error: {other:?}"),
        }
    }

    #[test]
    fn openai_defaults() {
        let s = openai(json!({ "model": "gpt-4o-mini", "apiKey": "sk-123" })).unwrap();
        assert_eq!(s.url, "https://api.openai.com/v1/chat/completions");
        assert_eq!(
            s.headers,
            vec![
                ("content-type".to_owned(), "application/json".to_owned()),
                ("authorization".to_owned(), "Bearer sk-123".to_owned()),
            ]
        );
        assert_eq!(s.max_retries, DEFAULT_RETRIES);
        assert_eq!(s.max_tokens_field, "max_tokens");
        assert_eq!(s.secrets, vec!["sk-123"]);
    }

    #[test]
    fn a_base_url_with_credentials_is_refused_without_showing_them() {
        for url in [
            "http://user:S3cret@127.0.0.1:9/v1",
            "https://S3cret@proxy.example/v1",
        ] {
            let e = openai(json!({ "model": "m", "baseURL": url })).unwrap_err();
            assert!(!e.to_string().contains("S3cret"), "{e}");
            assert!(e.to_string().contains("credentials"), "{e}");
            assert_eq!(argument(e), "options.baseURL");
        }
        // An @ in the path is no credential.
        assert!(openai(json!({ "model": "m", "baseURL": "http://127.0.0.1:9/@team/v1" })).is_ok());
    }

    #[test]
    fn servers_without_a_key_get_no_authorization() {
        let s = openai(json!({ "model": "llama3.1", "baseURL": "http://localhost:11434/v1/" })).unwrap();
        assert_eq!(s.url, "http://localhost:11434/v1/chat/completions");
        assert!(s.headers.iter().all(|(n, _)| n != "authorization"));
        assert!(s.secrets.is_empty());
        // An empty key is no key.
        let s = openai(json!({ "model": "m", "apiKey": "" })).unwrap();
        assert!(s.secrets.is_empty());
    }

    #[test]
    fn anthropic_endpoint_and_headers() {
        let s = anthropic(json!({ "model": "claude-haiku-4-5", "apiKey": "sk-ant" })).unwrap();
        assert_eq!(s.url, "https://api.anthropic.com/v1/messages");
        assert_eq!(
            s.headers,
            vec![
                ("content-type".to_owned(), "application/json".to_owned()),
                ("x-api-key".to_owned(), "sk-ant".to_owned()),
                ("anthropic-version".to_owned(), ANTHROPIC_VERSION.to_owned()),
            ]
        );
        // A base URL that already ends in /v1 (as the AI SDK's) does not get it twice.
        let s = anthropic(json!({ "model": "m", "baseURL": "http://127.0.0.1:9/proxy/v1" })).unwrap();
        assert_eq!(s.url, "http://127.0.0.1:9/proxy/v1/messages");
        let s = anthropic(json!({ "model": "m", "baseURL": "http://127.0.0.1:9" })).unwrap();
        assert_eq!(s.url, "http://127.0.0.1:9/v1/messages");
    }

    #[test]
    fn caller_headers_replace_defaults_and_credentials_become_secrets() {
        let s = anthropic(json!({
            "model": "m",
            "apiKey": "k1",
            "headers": { "Anthropic-Version": "2024-01-01", "X-Custom-Token": "t0ken", "X-Title": "my app" },
        }))
        .unwrap();
        assert_eq!(
            s.headers
                .iter()
                .filter(|(n, _)| n.eq_ignore_ascii_case("anthropic-version"))
                .count(),
            1
        );
        assert!(s
            .headers
            .contains(&("Anthropic-Version".into(), "2024-01-01".into())));
        assert_eq!(s.secrets, vec!["k1", "t0ken"]);

        let s =
            openai(json!({ "model": "m", "headers": [["Authorization", "Bearer abc"], ["api-key", "az"]] }))
                .unwrap();
        assert!(s.headers.contains(&("Authorization".into(), "Bearer abc".into())));
        assert_eq!(s.secrets, vec!["Bearer abc", "abc", "az"]);
    }

    #[test]
    fn bad_options_name_the_option() {
        assert_eq!(argument(openai(json!({})).unwrap_err()), "options.model");
        assert_eq!(
            argument(openai(json!({ "model": "  " })).unwrap_err()),
            "options.model"
        );
        assert_eq!(
            argument(openai(json!({ "model": 4 })).unwrap_err()),
            "options.model"
        );
        assert_eq!(
            argument(openai(json!({ "model": "m", "apikey": "x" })).unwrap_err()),
            "options.apikey"
        );
        assert_eq!(
            argument(anthropic(json!({ "model": "m", "maxTokensField": "max_tokens" })).unwrap_err()),
            "options.maxTokensField"
        );
        for url in [
            "ftp://x",
            "localhost:11434",
            "http://",
            "http:///v1",
            "https://x/v1?key=1",
            "http://a b",
        ] {
            assert_eq!(
                argument(openai(json!({ "model": "m", "baseURL": url })).unwrap_err()),
                "options.baseURL",
                "{url}"
            );
        }
        for n in [json!(-1), json!(1.5), json!(11)] {
            let e = openai(json!({ "model": "m", "maxRetries": n })).unwrap_err();
            assert!(matches!(e, Error::OutOfRange { .. }), "{e:?}");
        }
        assert_eq!(
            argument(openai(json!({ "model": "m", "maxRetries": "2" })).unwrap_err()),
            "options.maxRetries"
        );
        assert_eq!(
            argument(openai(json!({ "model": "m", "maxTokensField": "tokens" })).unwrap_err()),
            "options.maxTokensField"
        );
        assert_eq!(
            argument(openai(json!({ "model": "m", "body": [1] })).unwrap_err()),
            "options.body"
        );
        assert_eq!(
            argument(openai(json!({ "model": "m", "body": { "messages": [] } })).unwrap_err()),
            "options.body.messages"
        );
        assert_eq!(
            argument(anthropic(json!({ "model": "m", "body": { "system": "x" } })).unwrap_err()),
            "options.body.system"
        );
        assert_eq!(
            argument(openai(json!({ "model": "m", "headers": { "bad name": "x" } })).unwrap_err()),
            "options.headers[\"bad name\"]"
        );
        assert_eq!(
            argument(openai(json!({ "model": "m", "headers": { "x-a": "1\r\nx-b: 2" } })).unwrap_err()),
            "options.headers[\"x-a\"]"
        );
        assert_eq!(
            argument(openai(json!({ "model": "m", "headers": { "x-a": 1 } })).unwrap_err()),
            "options.headers[\"x-a\"]"
        );
        assert_eq!(
            argument(openai(json!({ "model": "m", "headers": [["x"]] })).unwrap_err()),
            "options.headers[0]"
        );
        assert_eq!(
            argument(openai(json!({ "model": "m", "apiKey": "a\nb" })).unwrap_err()),
            "options.apiKey"
        );
        assert_eq!(argument(openai(json!("gpt-4o")).unwrap_err()), "options");
        // A key in a bad URL is redacted from the message.
        let e = openai(json!({ "model": "m", "apiKey": "sk-1234", "baseURL": "http://x/sk-1234?q" }))
            .unwrap_err();
        assert!(!e.to_string().contains("sk-1234"), "{e}");
    }
}
