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
//! as one 1024x1024 high-detail image on GPT-4o (765 tokens; 85 at `detail: "low"`, which
//! OpenAI charges flat whatever the size), files and audio as
//! [`FILE_TOKENS`] and [`AUDIO_TOKENS`], opaque reasoning as one token per 4 bytes.

use std::collections::HashMap;
use std::sync::Mutex;

use serde::Serialize;
use ts_rs::TS;

use crate::estimate::ModelTokenizer;
use crate::messages::{Conversation, MediaKind, Message, MessageFormat, MessageRole, Part};
use crate::tokenizer::{self, Encoding};
use crate::Error;

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
/// An image at low detail on GPT-4o: a flat 85, whatever its dimensions.
pub const LOW_DETAIL_IMAGE_TOKENS: usize = 85;
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

/// A counter for tests: one token a byte.
#[cfg(test)]
pub struct Bytes;

#[cfg(test)]
impl TextCounter for Bytes {
    fn count(&self, text: &str) -> usize {
        text.len()
    }
    fn cache_key(&self) -> u64 {
        0
    }
}

impl TextCounter for crate::tokenizer::Tokenizer {
    fn count(&self, text: &str) -> usize {
        crate::tokenizer::Tokenizer::count(self, text)
    }
    fn cache_key(&self) -> u64 {
        self.encoding() as u64 + 1
    }
}

impl TextCounter for ModelTokenizer {
    fn count(&self, text: &str) -> usize {
        crate::estimate::count(text, self).tokens
    }
    fn cache_key(&self) -> u64 {
        // Distinct from the exact tokenizers' keys (1 and 2); the estimate also depends on
        // which vocabularies are loaded, so that is part of the key.
        let loaded = Encoding::ALL
            .iter()
            .fold(0u64, |acc, &e| acc << 1 | tokenizer::is_available(e) as u64);
        let id = match self {
            ModelTokenizer::Exact { encoding } => 0x100 + *encoding as u64,
            ModelTokenizer::Estimate { family } => 0x200 + *family as u64,
        };
        id << 8 | loaded
    }
}

/// The counter of one call, owned and `'static` (so a compaction can keep it across the
/// awaits of a summarizer call): an exact tokenizer, or a model's estimate.
#[derive(Clone, Copy, Debug)]
pub enum Counter {
    /// An exact BPE encoding.
    Exact(&'static crate::tokenizer::Tokenizer),
    /// A model's calibrated estimate (exact when its encoding is loaded).
    Estimate(crate::estimate::ModelTokenizer),
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

impl From<crate::estimate::ModelTokenizer> for Counter {
    fn from(e: crate::estimate::ModelTokenizer) -> Self {
        Counter::Estimate(e)
    }
}

impl From<&crate::estimate::ModelTokenizer> for Counter {
    fn from(e: &crate::estimate::ModelTokenizer) -> Self {
        Counter::Estimate(*e)
    }
}

/// The counter a call asked for: an encoding's exact count, or a model's (its encoding, or
/// its calibrated estimate), with the model as the registry resolved it.
#[derive(Clone, Debug)]
pub struct Counting {
    /// The counter.
    pub counter: Counter,
    /// The model, if one was named.
    pub model: Option<crate::models::ModelInfoResolved>,
    /// Whether counts are exact (not an estimate).
    pub exact: bool,
}

impl Counting {
    /// The counter for `encoding` or `model` (`None` when neither is given); with both, the
    /// model (its window, its limits) counted with `encoding` instead of its own tokenizer.
    /// A model whose encoding is known but not loaded (the lite build) is
    /// `VOCABULARY_NOT_LOADED` unless `allow_estimate`.
    pub fn choose(
        encoding: Option<Encoding>,
        model: Option<&str>,
        allow_estimate: bool,
    ) -> Result<Option<Counting>, Error> {
        match (encoding, model) {
            (Some(encoding), Some(id)) => {
                let model = crate::models::ModelInfoResolved {
                    tokenizer: ModelTokenizer::Exact { encoding },
                    ..crate::models::resolve(id)
                };
                Self::for_model(model, allow_estimate).map(Some)
            }
            (Some(encoding), None) => Ok(Some(Counting {
                counter: Counter::Exact(tokenizer::tokenizer(encoding)?),
                model: None,
                exact: true,
            })),
            (None, Some(id)) => Self::for_model(crate::models::resolve(id), allow_estimate).map(Some),
            (None, None) => Ok(None),
        }
    }

    /// A model's counter: its encoding when that is loaded, else its calibrated estimate
    /// (for a model with a known encoding, only if `allow_estimate`).
    pub fn for_model(model: crate::models::ModelInfoResolved, allow_estimate: bool) -> Result<Self, Error> {
        let (counter, exact) = match model.tokenizer {
            ModelTokenizer::Exact { encoding } if tokenizer::is_available(encoding) => {
                (Counter::Exact(tokenizer::tokenizer(encoding)?), true)
            }
            ModelTokenizer::Exact { encoding } if !allow_estimate => {
                return Err(Error::VocabularyNotLoaded {
                    encoding: encoding.name(),
                })
            }
            estimator => (Counter::Estimate(estimator), false),
        };
        Ok(Counting {
            counter,
            model: Some(model),
            exact,
        })
    }

    /// [`Counting::choose`], when a counter is required: an error names what to give.
    pub fn required(
        encoding: Option<Encoding>,
        model: Option<&str>,
        allow_estimate: bool,
    ) -> Result<Counting, Error> {
        Self::choose(encoding, model, allow_estimate)?.ok_or_else(|| Error::InvalidArgument {
            argument: "options.encoding".into(),
            expected: "an encoding (\"o200k_base\", \"cl100k_base\") or options.model".into(),
        })
    }

    /// Exact or estimated.
    pub fn method(&self) -> CountMethod {
        if self.exact {
            CountMethod::Exact
        } else {
            CountMethod::Estimate
        }
    }
}

/// Tokens by role.
#[derive(Clone, Debug, Default, PartialEq, Serialize, TS)]
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
    fn add(&mut self, role: MessageRole, tokens: usize) {
        match role {
            MessageRole::System => self.system += tokens,
            MessageRole::User => self.user += tokens,
            MessageRole::Assistant => self.assistant += tokens,
            MessageRole::Tool => self.tool += tokens,
        }
    }
}

/// One message's tokens.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct MessageCount {
    /// Index in the array passed in; `null` for Anthropic's top-level `system`.
    pub index: Option<usize>,
    /// The message's role.
    pub role: MessageRole,
    /// Its tokens, framing included.
    pub tokens: usize,
}

/// A conversation's count.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct MessagesCountBreakdown {
    /// Every message plus reply priming: the request's input tokens.
    pub total: usize,
    /// The format the messages were read in.
    pub format: MessageFormat,
    /// Per message, in order (Anthropic's system first).
    pub messages: Vec<MessageCount>,
    /// Tokens per role.
    pub by_role: ByRole,
    /// The reply-priming tokens included in `total`.
    pub reply_priming: usize,
    /// How many message counts came from the cache (content-hash keyed).
    pub cached: usize,
}

/// Whether counts are exact.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum CountMethod {
    /// The exact encoding.
    Exact,
    /// A calibrated estimate: a model without a public (or loaded) tokenizer.
    Estimate,
}

/// The result of `countMessages`.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct MessagesCount {
    /// The count.
    #[serde(flatten)]
    pub count: MessagesCountBreakdown,
    /// `"exact"`, or `"estimate"` for a model without a public (or loaded) tokenizer.
    pub method: CountMethod,
    /// The model counted for, as the registry resolved it (with `options.model`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub model: Option<crate::models::ModelInfoResolved>,
}

/// Counts a conversation with the counter a call chose (see [`count_conversation`]).
pub fn count_messages(conv: &Conversation, memo: &mut Memo, counting: &Counting) -> MessagesCount {
    MessagesCount {
        count: count_conversation(conv, memo, &counting.counter),
        method: counting.method(),
        model: counting.model.clone(),
    }
}

/// One conversation's message counts per counter (by its cache key), remembered so that a
/// conversation counted again, or appended to, only counts what is new. Kept beside the
/// conversation by whoever keeps it (the JS face's last conversation, a `Compactor`).
#[derive(Clone, Debug, Default)]
pub struct Memo {
    counted: Vec<(u64, Vec<usize>)>,
}

impl Memo {
    /// Every message's tokens with `counter`, framing included, and how many of them were
    /// already known (remembered here, or in the process-wide content-hash cache).
    pub fn counts(&mut self, conv: &Conversation, counter: &dyn TextCounter) -> (Vec<usize>, usize) {
        let key = counter.cache_key();
        let at = match self.counted.iter().position(|(k, _)| *k == key) {
            Some(at) => at,
            None => {
                self.counted.push((key, Vec::new()));
                self.counted.len() - 1
            }
        };
        let memo = &mut self.counted[at].1;
        let known = memo.len().min(conv.messages().len());
        let (more, hits) = count_each_with_hits(&conv.messages()[known..], counter);
        memo.truncate(known);
        memo.extend(more);
        (memo.clone(), known + hits)
    }

    /// Forgets the counts of messages from `len` on (the conversation was truncated).
    pub fn truncate(&mut self, len: usize) {
        for (_, counts) in &mut self.counted {
            counts.truncate(len);
        }
    }
}

/// Counts every message of `conv` with `counter`, through `memo` and the process-wide cache.
pub fn count_conversation(
    conv: &Conversation,
    memo: &mut Memo,
    counter: &dyn TextCounter,
) -> MessagesCountBreakdown {
    let (counts, mut cached) = memo.counts(conv, counter);
    let mut messages = Vec::with_capacity(conv.messages().len() + 1);
    if let Some(system) = conv.system() {
        let (n, hit) = count_each_with_hits(std::slice::from_ref(&system), counter);
        cached += hit;
        messages.push(MessageCount {
            index: None,
            role: MessageRole::System,
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
    MessagesCountBreakdown {
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
            let key = m.content_key(counter.cache_key());
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
        MessageRole::System => "system",
        MessageRole::User => "user",
        MessageRole::Assistant => "assistant",
        MessageRole::Tool => "tool",
    };
    let mut n = PER_MESSAGE + counter.count(role);
    if let Some(name) = &message.name {
        n += counter.count(name) + PER_NAME;
    }
    for part in &message.parts {
        n += match part {
            Part::Text(t) | Part::Reasoning(t) => counter.count(t),
            Part::ToolResult { text, media, .. } => {
                counter.count(text) + media.iter().map(|&kind| media_tokens(kind)).sum::<usize>()
            }
            Part::ToolCall { name, arguments, .. } => {
                counter.count(name) + counter.count(arguments) + PER_TOOL_CALL
            }
            Part::Opaque { bytes } => bytes.div_ceil(4),
            Part::Compaction { text, bytes } => counter.count(text) + bytes.div_ceil(4),
            Part::Media { kind } => media_tokens(*kind),
        };
    }
    n
}

/// What an image, file or audio part is counted as.
fn media_tokens(kind: MediaKind) -> usize {
    match kind {
        MediaKind::Image => IMAGE_TOKENS,
        MediaKind::ImageLow => LOW_DETAIL_IMAGE_TOKENS,
        MediaKind::File => FILE_TOKENS,
        MediaKind::Audio => AUDIO_TOKENS,
    }
}

/// Message counts by content hash, bounded: it starts over past [`CountCache::LIMIT`].
struct CountCache {
    map: Option<HashMap<(u64, u64), u32>>,
}

impl CountCache {
    const LIMIT: usize = 200_000;

    fn get(&self, key: (u64, u64)) -> Option<&u32> {
        self.map.as_ref()?.get(&key)
    }

    fn put(&mut self, key: (u64, u64), tokens: u32) {
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
        let b = count_conversation(
            &conv,
            &mut Memo::default(),
            tokenizer(Encoding::O200kBase).unwrap(),
        );
        assert_eq!(b.total, 124);
        let b = count_conversation(
            &conv,
            &mut Memo::default(),
            tokenizer(Encoding::Cl100kBase).unwrap(),
        );
        assert_eq!(b.total, 129);
        assert_eq!(b.messages.len(), 6);
        assert_eq!(b.by_role.system + b.by_role.user + b.reply_priming, b.total);
    }

    #[test]
    fn an_encoding_with_a_model_counts_the_model_with_that_encoding() {
        let c = Counting::choose(Some(Encoding::Cl100kBase), Some("claude-sonnet-4-5"), false)
            .unwrap()
            .unwrap();
        let model = c.model.as_ref().unwrap();
        assert!(
            model.known && model.context_window > 100_000,
            "the model's window stays"
        );
        assert_eq!(
            model.tokenizer,
            ModelTokenizer::Exact {
                encoding: Encoding::Cl100kBase
            }
        );
        assert!(c.exact);
        let text = "Counted with the encoding given.";
        assert_eq!(
            c.counter.count(text),
            tokenizer(Encoding::Cl100kBase).unwrap().count(text)
        );
    }

    #[test]
    fn cache_counts_only_what_is_new() {
        let mut items = vec![json!({"role": "system", "content": "cache test system prompt 8d1f"})];
        for i in 0..20 {
            items.push(json!({"role": "user", "content": format!("cache test question {i}")}));
        }
        let enc = tokenizer(Encoding::O200kBase).unwrap();
        let first = count_conversation(
            &Conversation::parse(&json!(items), None).unwrap(),
            &mut Memo::default(),
            enc,
        );
        items.push(json!({"role": "assistant", "content": "a new answer 8d1f"}));
        let second = count_conversation(
            &Conversation::parse(&json!(items), None).unwrap(),
            &mut Memo::default(),
            enc,
        );
        assert_eq!(second.cached, 21);
        assert_eq!(second.total, first.total + second.messages[21].tokens);
        // The same texts under another encoding are not served from the cache.
        let other = count_conversation(
            &Conversation::parse(&json!(items), None).unwrap(),
            &mut Memo::default(),
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
        let b = count_conversation(&conv, &mut Memo::default(), enc);
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
