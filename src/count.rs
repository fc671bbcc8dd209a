//! Counting whole conversations: every message with its format's framing tokens, a
//! per-message breakdown, and a cache so a conversation counted again with one new
//! message costs only that message.
//!
//! Framing follows OpenAI's published accounting for chat models (the cookbook's
//! "How to count tokens with tiktoken", as tiktoken-rs implements it): 3 tokens per
//! message plus the role, 1 more for a `name`, 3 to prime the reply; a tool call costs
//! its name, its JSON arguments and 1. Providers do not publish framing for the other
//! formats, so the same constants are used there (an estimate, like the counts of models
//! without a public tokenizer). Media parts have no text to count: an image is charged
//! as one 1024x1024 high-detail image on GPT-4o (765 tokens), files and audio as
//! [`FILE_TOKENS`] and [`AUDIO_TOKENS`], opaque reasoning as one token per 4 bytes.

use std::collections::HashMap;
use std::sync::Mutex;

use serde::Serialize;

use crate::messages::{Conversation, Format, MediaKind, Message, Part, Role};
use crate::tokenizer::hash::Hash128;

/// Tokens around every message (start, separator, end).
pub const PER_MESSAGE: usize = 3;
/// Extra tokens when a message has a `name`.
pub const PER_NAME: usize = 1;
/// Tokens that prime the model's reply, once per request.
pub const REPLY_PRIMING: usize = 3;
/// Extra tokens per tool call, beyond its name and arguments.
pub const PER_TOOL_CALL: usize = 1;
/// An image without known dimensions: one 1024x1024 high-detail image on GPT-4o.
pub const IMAGE_TOKENS: usize = 765;
/// A file or document part without extracted text.
pub const FILE_TOKENS: usize = 1_000;
/// An audio part.
pub const AUDIO_TOKENS: usize = 1_000;

/// Something that counts the tokens of a text: an exact tokenizer or an estimator.
pub trait TextCounter {
    /// Tokens in `text`.
    fn count(&self, text: &str) -> usize;
    /// Identifies the counter in the cache: two counters with the same key must count
    /// every text the same.
    fn cache_key(&self) -> u64;
}

impl TextCounter for crate::tokenizer::Tokenizer {
    fn count(&self, text: &str) -> usize {
        crate::tokenizer::Tokenizer::count(self, text)
    }
    fn cache_key(&self) -> u64 {
        self.encoding() as u64 + 1
    }
}

/// The counter of one call, owned and `'static` (so a compaction can keep it across the
/// awaits of a summarizer call): an exact tokenizer, or a model's estimate.
#[derive(Clone, Copy, Debug)]
pub enum Counter {
    /// An exact BPE encoding.
    Exact(&'static crate::tokenizer::Tokenizer),
    /// A model's calibrated estimate (exact when its encoding is loaded).
    Estimate(crate::estimate::Estimator),
}

impl TextCounter for Counter {
    fn count(&self, text: &str) -> usize {
        match self {
            Counter::Exact(t) => t.count(text),
            Counter::Estimate(e) => e.count(text),
        }
    }
    fn cache_key(&self) -> u64 {
        match self {
            Counter::Exact(t) => TextCounter::cache_key(*t),
            Counter::Estimate(e) => e.cache_key(),
        }
    }
}

impl From<&'static crate::tokenizer::Tokenizer> for Counter {
    fn from(t: &'static crate::tokenizer::Tokenizer) -> Self {
        Counter::Exact(t)
    }
}

impl From<crate::estimate::Estimator> for Counter {
    fn from(e: crate::estimate::Estimator) -> Self {
        Counter::Estimate(e)
    }
}

impl From<&crate::estimate::Estimator> for Counter {
    fn from(e: &crate::estimate::Estimator) -> Self {
        Counter::Estimate(*e)
    }
}

/// Tokens by role.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ByRole {
    /// System and developer messages.
    pub system: usize,
    /// User messages.
    pub user: usize,
    /// Assistant messages (text, reasoning, tool calls).
    pub assistant: usize,
    /// Tool results.
    pub tool: usize,
}

impl ByRole {
    fn add(&mut self, role: Role, tokens: usize) {
        match role {
            Role::System => self.system += tokens,
            Role::User => self.user += tokens,
            Role::Assistant => self.assistant += tokens,
            Role::Tool => self.tool += tokens,
        }
    }
}

/// One message's count.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageCount {
    /// Index in the caller's array; `None` for Anthropic's top-level `system`.
    pub index: Option<usize>,
    /// The message's role.
    pub role: Role,
    /// Its tokens, framing included.
    pub tokens: usize,
}

/// A conversation's count.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Breakdown {
    /// Every message plus reply priming: the request's input tokens.
    pub total: usize,
    /// The format the messages were read in.
    pub format: Format,
    /// Per message, in order (Anthropic's system first).
    pub messages: Vec<MessageCount>,
    /// Tokens per role.
    pub by_role: ByRole,
    /// The reply-priming tokens included in `total`.
    pub reply_priming: usize,
    /// How many message counts came from the cache.
    pub cached: usize,
}

/// Counts every message of `conv` with `counter`, through the process-wide cache.
pub fn count_conversation(conv: &Conversation, counter: &dyn TextCounter) -> Breakdown {
    let (counts, mut cached) = conv.counts_and_hits(counter);
    let mut messages = Vec::with_capacity(conv.messages().len() + 1);
    if let Some(system) = conv.system() {
        let (n, hit) = count_each_with_hits(std::slice::from_ref(&system), counter);
        cached += hit;
        messages.push(MessageCount {
            index: None,
            role: Role::System,
            tokens: n[0],
        });
    }
    for (i, (m, tokens)) in conv.messages().iter().zip(counts).enumerate() {
        messages.push(MessageCount {
            index: Some(i),
            role: m.role,
            tokens,
        });
    }
    let mut by_role = ByRole::default();
    for m in &messages {
        by_role.add(m.role, m.tokens);
    }
    Breakdown {
        total: messages.iter().map(|m| m.tokens).sum::<usize>() + REPLY_PRIMING,
        format: conv.format(),
        messages,
        by_role,
        reply_priming: REPLY_PRIMING,
        cached,
    }
}

/// Each message's tokens, framing included, through the cache.
pub fn count_each(messages: &[Message], counter: &dyn TextCounter) -> Vec<usize> {
    count_each_with_hits(messages, counter).0
}

/// [`count_each`], and how many counts came from the cache.
pub fn count_each_with_hits(messages: &[Message], counter: &dyn TextCounter) -> (Vec<usize>, usize) {
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    let mut hits = 0;
    let counts = messages
        .iter()
        .map(|m| {
            let key = message_key(m, counter.cache_key());
            if let Some(&n) = cache.get(key) {
                hits += 1;
                return n as usize;
            }
            let n = count_message(m, counter);
            cache.put(key, n as u32);
            n
        })
        .collect();
    (counts, hits)
}

/// One message's tokens, framing included, without the cache.
pub fn count_message(message: &Message, counter: &dyn TextCounter) -> usize {
    let role = match message.role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    };
    let mut n = PER_MESSAGE + counter.count(role);
    if let Some(name) = &message.name {
        n += counter.count(name) + PER_NAME;
    }
    for part in &message.parts {
        n += match part {
            Part::Text(t) | Part::Reasoning(t) => counter.count(t),
            Part::ToolResult { text, .. } => counter.count(text),
            Part::ToolCall { name, arguments, .. } => {
                counter.count(name) + counter.count(arguments) + PER_TOOL_CALL
            }
            Part::Opaque { bytes } => bytes.div_ceil(4),
            Part::Media {
                kind: MediaKind::Image,
            } => IMAGE_TOKENS,
            Part::Media {
                kind: MediaKind::File,
            } => FILE_TOKENS,
            Part::Media {
                kind: MediaKind::Audio,
            } => AUDIO_TOKENS,
        };
    }
    n
}

/// Two independent 64-bit hashes of everything the count depends on: a wrong hit needs
/// both to collide at once.
type Key = (u64, u64);

/// A hash of a message's content (what it says, not how it is formatted).
pub fn message_digest(message: &Message) -> u64 {
    message_key(message, 0).0
}

fn message_key(message: &Message, counter: u64) -> Key {
    let mut h = Hash128::new(counter);
    h.number(message.role as u64);
    if let Some(name) = &message.name {
        h.number(1);
        h.field(name.as_bytes());
    }
    for part in &message.parts {
        match part {
            Part::Text(t) => {
                h.number(2);
                h.field(t.as_bytes());
            }
            Part::Reasoning(t) => {
                h.number(3);
                h.field(t.as_bytes());
            }
            Part::Opaque { bytes } => {
                h.number(4);
                h.number(*bytes as u64);
            }
            Part::ToolCall { id, name, arguments } => {
                h.number(5);
                h.field(id.as_bytes());
                h.field(name.as_bytes());
                h.field(arguments.as_bytes());
            }
            Part::ToolResult {
                call_id,
                text,
                is_error,
            } => {
                h.number(6 + *is_error as u64);
                h.field(call_id.as_bytes());
                h.field(text.as_bytes());
            }
            Part::Media { kind } => {
                h.number(8);
                h.number(*kind as u64);
            }
        }
    }
    h.finish()
}

/// Message counts by content hash, bounded: it starts over past [`CountCache::LIMIT`].
struct CountCache {
    map: Option<HashMap<Key, u32>>,
}

impl CountCache {
    const LIMIT: usize = 200_000;

    fn get(&self, key: Key) -> Option<&u32> {
        self.map.as_ref()?.get(&key)
    }

    fn put(&mut self, key: Key, tokens: u32) {
        let map = self.map.get_or_insert_with(HashMap::new);
        if map.len() >= Self::LIMIT {
            map.clear();
        }
        map.insert(key, tokens);
    }
}

static CACHE: Mutex<CountCache> = Mutex::new(CountCache { map: None });

/// Forgets every cached message count.
pub fn clear_cache() {
    CACHE.lock().unwrap_or_else(|e| e.into_inner()).map = None;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokenizer::{tokenizer, Encoding};
    use serde_json::json;

    #[test]
    fn cookbook_example() {
        // The OpenAI cookbook's example conversation: 129 prompt tokens for gpt-4o-class
        // models ("How to count tokens with tiktoken", 2024 revision).
        let conv = Conversation::parse(
            &json!([
                {"role": "system", "content": "You are a helpful, pattern-following assistant that translates corporate jargon into plain English."},
                {"role": "system", "name": "example_user", "content": "New synergies will help drive top-line growth."},
                {"role": "system", "name": "example_assistant", "content": "Things working well together will increase revenue."},
                {"role": "system", "name": "example_user", "content": "Let's circle back when we have more bandwidth to touch base on opportunities for increased leverage."},
                {"role": "system", "name": "example_assistant", "content": "Let's talk later when we're less busy about how to do better."},
                {"role": "user", "content": "This late pivot means we don't have time to boil the ocean for the client deliverable."}
            ]),
            None,
        )
        .unwrap();
        let b = count_conversation(&conv, tokenizer(Encoding::O200kBase).unwrap());
        assert_eq!(b.total, 124);
        let b = count_conversation(&conv, tokenizer(Encoding::Cl100kBase).unwrap());
        assert_eq!(b.total, 129);
        assert_eq!(b.messages.len(), 6);
        assert_eq!(b.by_role.system + b.by_role.user + b.reply_priming, b.total);
    }

    #[test]
    fn cache_counts_only_what_is_new() {
        let mut items = vec![json!({"role": "system", "content": "cache test system prompt 8d1f"})];
        for i in 0..20 {
            items.push(json!({"role": "user", "content": format!("cache test question {i}")}));
        }
        let enc = tokenizer(Encoding::O200kBase).unwrap();
        let first = count_conversation(&Conversation::parse(&json!(items), None).unwrap(), enc);
        items.push(json!({"role": "assistant", "content": "a new answer 8d1f"}));
        let second = count_conversation(&Conversation::parse(&json!(items), None).unwrap(), enc);
        assert_eq!(second.cached, 21);
        assert_eq!(second.total, first.total + second.messages[21].tokens);
        // The same texts under another encoding are not served from the cache.
        let other = count_conversation(
            &Conversation::parse(&json!(items), None).unwrap(),
            tokenizer(Encoding::Cl100kBase).unwrap(),
        );
        assert_eq!(other.cached, 0);
    }

    #[test]
    fn tool_calls_and_results_count() {
        let conv = Conversation::parse(
            &json!([
                {"role": "user", "content": "x"},
                {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "read", "arguments": "{\"path\":\"a.txt\"}"}}]},
                {"role": "tool", "tool_call_id": "c1", "content": "hello world"}
            ]),
            None,
        )
        .unwrap();
        let enc = tokenizer(Encoding::O200kBase).unwrap();
        let b = count_conversation(&conv, enc);
        let call =
            PER_MESSAGE + enc.count("assistant") + enc.count("read") + enc.count("{\"path\":\"a.txt\"}") + 1;
        assert_eq!(b.messages[1].tokens, call);
        assert_eq!(
            b.messages[2].tokens,
            PER_MESSAGE + enc.count("tool") + enc.count("hello world")
        );
        assert_eq!(b.by_role.tool, b.messages[2].tokens);
    }
}
