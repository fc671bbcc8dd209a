//! Conversations in the four formats chat apps send, read into one model.
//!
//! A [`Conversation`] keeps every item of the caller's array exactly as it came (the
//! JSON value, unknown fields and all) next to a parsed view of it: a [`Message`] with a
//! role and [`Part`]s (text, reasoning, tool calls, tool results, media). Compaction
//! reads the parsed view and edits through [`Conversation::render`], which writes the
//! original values back unchanged except for what was deliberately edited, so a round
//! trip is lossless and output comes back in the caller's format.
//!
//! Formats: OpenAI Chat Completions ([`openai`]), OpenAI Responses input items
//! ([`responses`]), Anthropic Messages ([`anthropic`]) and Vercel AI SDK model
//! messages ([`ai_sdk`]). Malformed input is an [`Error::InvalidMessage`] naming the
//! path, e.g. `messages[12].tool_call_id`.

pub mod ai_sdk;
pub mod anthropic;
pub mod cuts;
mod detect;
mod json;
pub mod openai;
mod render;
pub mod responses;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use crate::Error;
pub use detect::{detect, Detection};
pub use json::kind as json_kind;
pub(crate) use json::Path;
pub use render::{NewMessage, Out};

/// A message format. Output always comes back in the format it came in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
pub enum MessageFormat {
    /// OpenAI Chat Completions `messages`.
    #[serde(rename = "openai")]
    OpenAiChat,
    /// OpenAI Responses API `input` items.
    #[serde(rename = "openai-responses")]
    OpenAiResponses,
    /// Anthropic Messages API: `{ system?, messages }` or a bare `messages` array.
    #[serde(rename = "anthropic")]
    Anthropic,
    /// Vercel AI SDK `ModelMessage[]`.
    #[serde(rename = "ai-sdk")]
    AiSdk,
}

impl MessageFormat {
    /// Every format, in the order the docs list them.
    pub const ALL: [MessageFormat; 4] = [
        MessageFormat::OpenAiChat,
        MessageFormat::OpenAiResponses,
        MessageFormat::Anthropic,
        MessageFormat::AiSdk,
    ];
    const EXPECTED: &'static str = "\"openai\", \"openai-responses\", \"anthropic\", \"ai-sdk\"";

    /// The name used in options and results.
    pub fn name(self) -> &'static str {
        match self {
            MessageFormat::OpenAiChat => "openai",
            MessageFormat::OpenAiResponses => "openai-responses",
            MessageFormat::Anthropic => "anthropic",
            MessageFormat::AiSdk => "ai-sdk",
        }
    }

    /// Looks a format up by name.
    pub fn from_name(name: &str) -> Result<Self, Error> {
        (Self::ALL.into_iter().find(|f| f.name() == name)).ok_or_else(|| Self::unknown(name))
    }

    /// The error for `name`, which names no format.
    pub fn unknown(name: &str) -> Error {
        Error::UnknownFormat {
            name: name.to_owned(),
            expected: Self::EXPECTED,
        }
    }
}

/// Who a message is from. Anthropic user messages holding only tool results count as `"tool"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum MessageRole {
    /// System or developer instructions.
    System,
    /// The user (in Anthropic format: a user message that is not only tool results).
    User,
    /// The model: text, reasoning, tool calls.
    Assistant,
    /// Tool results.
    Tool,
}

impl MessageRole {
    /// Its name, as every format's JSON spells it (`"user"`).
    pub fn name(self) -> &'static str {
        match self {
            MessageRole::System => "system",
            MessageRole::User => "user",
            MessageRole::Assistant => "assistant",
            MessageRole::Tool => "tool",
        }
    }
}

/// One piece of a message.
#[derive(Clone, Debug, PartialEq)]
pub enum Part {
    /// Text the model reads.
    Text(String),
    /// Reasoning or thinking text (or a summary of it).
    Reasoning(String),
    /// Reasoning the provider keeps opaque (encrypted or redacted): counted by size.
    Opaque { bytes: usize },
    /// What a provider's own compaction left of the conversation before it (a Responses
    /// `compaction` item, an Anthropic `compaction` block): `text` the model reads (counted
    /// as text), `bytes` of opaque content (counted by size, as [`Part::Opaque`]). Kept whole,
    /// never summarized again.
    Compaction { text: String, bytes: usize },
    /// A tool call; `arguments` is JSON text.
    ToolCall {
        id: String,
        name: String,
        arguments: String,
    },
    /// The result of the call `call_id`: the text a model reads, and the images and files
    /// beside it (a screenshot tool's, in the formats whose results hold them). Those are
    /// counted, and kept when the text is pruned or cut.
    ToolResult {
        call_id: String,
        text: String,
        is_error: bool,
        media: Vec<MediaKind>,
    },
    /// An image, file or audio part.
    Media { kind: MediaKind },
}

/// What a media part is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MediaKind {
    /// An image.
    Image,
    /// An image sent at low detail (OpenAI's `detail: "low"`): one 512x512 tile.
    ImageLow,
    /// A file or document.
    File,
    /// Audio.
    Audio,
}

/// One item of the caller's array, parsed.
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    /// Who it is from.
    pub role: MessageRole,
    /// What it says.
    pub parts: Vec<Part>,
    /// The `name` field, where the format has one and it is set.
    pub name: Option<String>,
}

impl Message {
    /// Two independent 64-bit hashes of the message's content (what it says, not how it is
    /// formatted), seeded: the count cache seeds them with its counter, so a wrong hit needs
    /// both to collide at once.
    pub fn content_key(&self, seed: u64) -> (u64, u64) {
        let mut h = crate::tokenizer::hash::Hash128::new(seed);
        h.number(self.role as u64);
        if let Some(name) = &self.name {
            h.number(1);
            h.field(name.as_bytes());
        }
        for part in &self.parts {
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
                    media,
                } => {
                    h.number(6 + *is_error as u64);
                    h.field(call_id.as_bytes());
                    h.field(text.as_bytes());
                    h.number(media.len() as u64);
                    for kind in media {
                        h.number(*kind as u64);
                    }
                }
                Part::Compaction { text, bytes } => {
                    h.number(9);
                    h.field(text.as_bytes());
                    h.number(*bytes as u64);
                }
                Part::Media { kind } => {
                    h.number(8);
                    h.number(*kind as u64);
                }
            }
        }
        h.finish()
    }

    /// A message that starts a turn: from the user, with something other than tool results.
    pub fn starts_turn(&self) -> bool {
        // An empty user message (`content: []`) is the user's too, not a step of a tool loop.
        self.role == MessageRole::User
            && (self.parts.is_empty() || self.parts.iter().any(|p| !matches!(p, Part::ToolResult { .. })))
    }

    /// Whether it holds a provider's compaction ([`Part::Compaction`]): kept whole, in the head
    /// once what comes before it is compacted.
    pub fn holds_compaction(&self) -> bool {
        self.parts.iter().any(|p| matches!(p, Part::Compaction { .. }))
    }

    /// The ids of the tool calls this message makes.
    pub fn call_ids(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            Part::ToolCall { id, .. } => Some(id.as_str()),
            _ => None,
        })
    }

    /// The ids of the calls this message answers.
    pub fn result_ids(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            Part::ToolResult { call_id, .. } => Some(call_id.as_str()),
            _ => None,
        })
    }
}

/// The caller's conversation: the original items, and the parsed messages beside them.
#[derive(Clone, Debug)]
pub struct Conversation {
    format: MessageFormat,
    /// How the format was chosen: given by the caller, or detected from what every item
    /// allows ([`Detection`]).
    detection: Detection,
    /// Running hashes of the messages (`digests[i]` covers `0..i`), for state marks.
    digests: Vec<u64>,
    /// `messages[i]` was parsed from `items[i]`.
    messages: Vec<Message>,
    items: Vec<Value>,
    /// Anthropic's top-level `system`, parsed into `system_message` (not in `messages`).
    envelope: Envelope,
    /// The tool pairing of `messages`, so an append checks only what it adds.
    pairs: Pairs,
    /// Where `messages` may be cut, so an append scans only what it adds.
    cuts: cuts::Cuts,
}

/// The tool pairing of a conversation's messages: the ids of the calls not answered yet, and
/// every call id made.
#[derive(Clone, Debug, Default)]
struct Pairs {
    open: crate::tokenizer::hash::FastSet<String>,
    seen: crate::tokenizer::hash::FastSet<String>,
}

/// The tokens of the system prompt Anthropic adds to a request with tools (its tool-use
/// documentation gives 346 for `tool_choice` `auto` or `none` on current Claude models, 313
/// for `any` or `tool`): counted with the tools' own JSON.
pub const ANTHROPIC_TOOL_PROMPT: usize = 346;

/// What surrounded the array, so it can be rebuilt around the output.
#[derive(Clone, Debug)]
enum Envelope {
    /// A bare array.
    Array,
    /// An object such as `{ system, messages, ...other fields }`: everything but
    /// `messages` is kept as it came.
    Object(serde_json::Map<String, Value>),
}

impl Conversation {
    /// Reads `input` in `format`, or in the format [`detect`] finds.
    pub fn parse(input: &Value, format: Option<MessageFormat>) -> Result<Self, Error> {
        Self::from_json(input.clone(), format)
    }

    /// [`Conversation::parse`], taking the JSON by value (no copy of it is made).
    pub fn from_json(input: Value, format: Option<MessageFormat>) -> Result<Self, Error> {
        let (items, envelope) = match input {
            Value::Array(items) => (items, Envelope::Array),
            Value::Object(mut obj) => match obj.remove("messages") {
                Some(Value::Array(items)) => (items, Envelope::Object(obj)),
                Some(other) => {
                    return Err(Error::InvalidMessage {
                        path: "messages".into(),
                        reason: format!("expected an array, got {}", json::kind(&other)),
                    })
                }
                None => {
                    return Err(Error::InvalidArgument {
                        argument: "messages".into(),
                        expected: "an array of messages, or an object with a `messages` array".into(),
                    })
                }
            },
            other => {
                return Err(Error::InvalidArgument {
                    argument: "messages".into(),
                    expected: format!("an array of messages, got {}", json::kind(&other)),
                })
            }
        };
        let detection = match format {
            Some(f) => Detection::Given(f),
            None => Detection::of(
                &items,
                matches!(&envelope, Envelope::Object(o) if o.contains_key("system")),
            ),
        };
        let format = detection.format();
        let root = Path::root("messages");
        let messages = items
            .iter()
            .enumerate()
            .map(|(i, item)| parse_item(format, item, &root.index(i)))
            .collect::<Result<Vec<_>, _>>()?;
        if let Envelope::Object(obj) = &envelope {
            if format == MessageFormat::Anthropic {
                if let Some(system) = obj.get("system") {
                    anthropic::parse_system(system, &Path::root("system"))?;
                }
            }
        }
        let mut conv = Conversation {
            format,
            detection,
            digests: vec![0],
            messages,
            items,
            envelope,
            pairs: Pairs::default(),
            cuts: cuts::Cuts::default(),
        };
        conv.extend_digests();
        conv.pair_from(0)?;
        conv.cuts.extend(&conv.messages, 0);
        Ok(conv)
    }

    /// Appends items (the caller's array grew), parsed in this conversation's format, and
    /// checks their tool pairing against the pairing kept from before (the history is not
    /// read again, nor is it for the cut points). On error the conversation is left as it was.
    ///
    /// Returns `Ok(false)`, appending nothing, when the format was detected and the appended
    /// items would detect another one: the whole array must then be read again, as a new
    /// conversation.
    pub fn append(&mut self, items: Vec<Value>) -> Result<bool, Error> {
        let mut detection = self.detection.clone();
        detection.extend(&items);
        if detection.format() != self.format {
            return Ok(false);
        }
        let start = self.items.len();
        let root = Path::root("messages");
        let parsed = items
            .iter()
            .enumerate()
            .map(|(k, item)| parse_item(self.format, item, &root.index(start + k)))
            .collect::<Result<Vec<_>, _>>()?;
        self.messages.extend(parsed);
        self.items.extend(items);
        if let Err(e) = self.pair_from(start) {
            self.messages.truncate(start);
            self.items.truncate(start);
            return Err(e);
        }
        self.cuts.extend(&self.messages, start);
        self.detection = detection;
        self.extend_digests();
        Ok(true)
    }

    /// Keeps the first `len` messages (a regenerated or edited last message then comes in
    /// through [`Conversation::append`]). Tool pairing stays valid: a prefix of a valid
    /// conversation has no result without its call.
    pub fn truncate(&mut self, len: usize) {
        if len >= self.items.len() {
            return;
        }
        self.items.truncate(len);
        self.messages.truncate(len);
        self.digests.truncate(len + 1);
        // A prefix of a conversation whose pairing held holds it too.
        self.pairs = Pairs::default();
        let _ = self.pair_from(0);
        self.cuts = cuts::Cuts::default();
        self.cuts.extend(&self.messages, 0);
        // What the removed items told about the format is forgotten: the next append
        // detects again from what is left (and may find the array must be read anew).
        self.detection.truncate(len);
    }

    fn extend_digests(&mut self) {
        for m in &self.messages[self.digests.len() - 1..] {
            let h = *self.digests.last().expect("starts with one");
            self.digests
                .push((h.rotate_left(5) ^ m.content_key(0).0).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        }
    }

    /// `digests[i]`: a running hash of messages `0..i` (`len + 1` entries), kept up to date
    /// as messages are appended.
    pub fn prefix_digests(&self) -> &[u64] {
        &self.digests
    }

    /// The format the conversation came in.
    pub fn format(&self) -> MessageFormat {
        self.format
    }

    /// The parsed messages, one per item of the caller's array.
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// The caller's items, as they came.
    pub fn items(&self) -> &[Value] {
        &self.items
    }

    /// What the request sends beside its messages, as one system message: Anthropic's
    /// top-level system prompt, and the tool definitions of a request object (its `tools`),
    /// which providers put in the system prompt: their JSON, and for Anthropic the tool-use
    /// system prompt it adds ([`ANTHROPIC_TOOL_PROMPT`] tokens). `None` without either.
    pub fn system(&self) -> Option<Message> {
        let Envelope::Object(obj) = &self.envelope else {
            return None;
        };
        let mut system = self.system_prompt();
        let tools = obj.get("tools").filter(|t| match t {
            Value::Array(list) => !list.is_empty(),
            Value::Object(map) => !map.is_empty(),
            _ => false,
        });
        if let Some(tools) = tools {
            let m = system.get_or_insert_with(|| Message {
                role: MessageRole::System,
                parts: Vec::new(),
                name: None,
            });
            m.parts.push(Part::Text(tools.to_string()));
            if self.format == MessageFormat::Anthropic {
                m.parts.push(Part::Opaque {
                    bytes: ANTHROPIC_TOOL_PROMPT * 4,
                });
            }
        }
        system
    }

    /// [`Conversation::system`] without the tool definitions: Anthropic's top-level system
    /// prompt, if the request has one.
    pub fn system_prompt(&self) -> Option<Message> {
        let Envelope::Object(obj) = &self.envelope else {
            return None;
        };
        match (self.format, obj.get("system")) {
            (MessageFormat::Anthropic, Some(s)) => anthropic::parse_system(s, &Path::root("system")).ok(),
            _ => None,
        }
    }

    /// Every tool result answers a call made earlier and not answered yet. An id is used by
    /// one call at a time: a later call may use it again once the earlier one is answered
    /// (servers that number each step's calls from `call_0`), never while it is open.
    /// The pairing of the messages from `start` on, checked, after `before` (the pairing
    /// of those before it): a call id used while its call is open, or a result that answers
    /// no open call, is an error. Returns the calls open after them and the call ids they
    /// add to `before`'s, which is not changed (so on error nothing is).
    fn paired(
        &self,
        before: &Pairs,
        start: usize,
    ) -> Result<(crate::tokenizer::hash::FastSet<String>, Vec<String>), Error> {
        let mut open = before.open.clone();
        let mut seen_now: crate::tokenizer::hash::FastSet<&str> = Default::default();
        // Parts in order: a provider-executed call and its result may share a message.
        for (i, m) in self.messages.iter().enumerate().skip(start) {
            for part in &m.parts {
                match part {
                    Part::ToolCall { id, .. } => {
                        if open.contains(id.as_str()) {
                            return Err(Error::InvalidMessage {
                                path: format!("messages[{i}]"),
                                reason: format!("the tool call id {id:?} is used twice (the earlier call is not answered)"),
                            });
                        }
                        seen_now.insert(id);
                        open.insert(id.clone());
                    }
                    Part::ToolResult { call_id, .. } if !open.remove(call_id.as_str()) => {
                        let seen =
                            seen_now.contains(call_id.as_str()) || before.seen.contains(call_id.as_str());
                        let why = if seen {
                            "answers a call that was already answered"
                        } else {
                            "answers no earlier tool call"
                        };
                        return Err(Error::InvalidMessage {
                            path: format!("messages[{i}]"),
                            reason: format!("the tool result for {call_id:?} {why}"),
                        });
                    }
                    _ => {}
                }
            }
        }
        Ok((open, seen_now.into_iter().map(str::to_owned).collect()))
    }

    /// [`Conversation::paired`] from `start` on, kept when it holds.
    fn pair_from(&mut self, start: usize) -> Result<(), Error> {
        let (open, seen) = self.paired(&self.pairs, start)?;
        self.pairs.open = open;
        self.pairs.seen.extend(seen);
        Ok(())
    }

    /// Where the messages may be cut (see [`cuts::Cuts::cut_points`]).
    pub fn cuts(&self) -> &cuts::Cuts {
        &self.cuts
    }

    /// The calls no later message answers, as (message index, call id). A provider
    /// rejects these unless they are the last thing in the conversation.
    pub fn unanswered_calls(&self) -> Vec<(usize, String)> {
        // In order: a result answers the latest open call with its id (an id may be used
        // again once its call is answered).
        let mut open: Vec<(usize, &str)> = Vec::new();
        for (i, m) in self.messages.iter().enumerate() {
            for part in &m.parts {
                match part {
                    Part::ToolCall { id, .. } => open.push((i, id)),
                    Part::ToolResult { call_id, .. } => {
                        if let Some(k) = open.iter().rposition(|(_, id)| id == call_id) {
                            open.remove(k);
                        }
                    }
                    _ => {}
                }
            }
        }
        open.into_iter().map(|(i, id)| (i, id.to_owned())).collect()
    }
}

fn parse_item(format: MessageFormat, item: &Value, path: &Path) -> Result<Message, Error> {
    match format {
        MessageFormat::OpenAiChat => openai::parse(item, path),
        MessageFormat::OpenAiResponses => responses::parse(item, path),
        MessageFormat::Anthropic => anthropic::parse(item, path),
        MessageFormat::AiSdk => ai_sdk::parse(item, path),
    }
}

/// Sets the text of a tool result whose content is an array of blocks: the first block that
/// is not media (`is_text`) becomes `text` (its other fields, a cache breakpoint say, stay),
/// the other such blocks go, and the images and files stay where they were. With no text
/// block, one (`text_block`) goes first; an empty `text` leaves only the media.
fn set_text(
    blocks: &mut Value,
    text: &str,
    is_text: impl Fn(&Value) -> bool,
    text_block: impl Fn(&str) -> Value,
) {
    let Some(items) = blocks.as_array_mut() else {
        return;
    };
    let mut placed = text.is_empty();
    items.retain_mut(|b| {
        if !is_text(b) {
            return true;
        }
        if placed {
            return false;
        }
        placed = true;
        match b.get("text") {
            Some(Value::String(_)) => b["text"] = Value::String(text.to_owned()),
            _ => *b = text_block(text),
        }
        true
    });
    if !placed {
        items.insert(0, text_block(text));
    }
}
