//! Summaries written by an LLM over HTTP: any OpenAI-compatible Chat Completions endpoint
//! (OpenAI, Ollama, vLLM, LM Studio, OpenRouter, ...) or Anthropic's Messages API.
//!
//! Pure, like the rest of the core: this module says what to send ([`Settings`], checked
//! once from the caller's options; [`openai`], [`anthropic`]), how to read the reply, when
//! to try again ([`retry`]) and how to report a failure without the API key ([`redact`]).
//! [`Exchange`] strings these into one summarizer call. The wasm face (`src/wasm/http.rs`)
//! sends the requests and waits, as [`Exchange::next`] tells it to.
//!
//! A call takes what a summarizer request has (instructions, text, output cap, deadline)
//! and gives back what a summarizer returns: the text, and the model and usage as the
//! provider reported them. A request refused as too long for the provider's window is
//! sent once more with its text cut to fit below the refusal's limit ([`refused`]).

pub mod anthropic_api;
mod exchange;
pub mod openai_api;
pub mod redact;
mod refused;
pub mod retry;
pub mod settings;

use serde::Serialize;

pub use exchange::{Exchange, HttpStep, Received};
pub use settings::{Provider, Settings};

/// What to summarize: a summarizer request's instructions, text and output cap.
#[derive(Clone, Copy, Debug)]
pub struct Prompt<'a> {
    /// The summarizer's instructions (the system prompt).
    pub system: &'a str,
    /// The text to summarize (the user message).
    pub prompt: &'a str,
    /// The output cap.
    pub max_tokens: usize,
}

/// A summary as the provider returned it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// The summary text.
    pub text: String,
    /// The model that wrote it, as the provider names it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The provider's usage report, as it gave it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<serde_json::Value>,
}

/// One HTTP request to make: always a `POST` of a JSON body.
#[derive(Clone, Debug, PartialEq)]
pub struct HttpRequest {
    /// The endpoint.
    pub url: String,
    /// Every header to send, credentials included.
    pub headers: Vec<(String, String)>,
    /// The JSON body.
    pub body: String,
}

impl HttpRequest {
    /// The value of a header (names compare case-insensitively).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}
