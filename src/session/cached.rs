//! One conversation's history, parsed once and extended: the [`Conversation`] (the stored
//! items and their parsed messages) and its [`Memo`] of message counts, so a turn parses and
//! counts only what it adds.
//!
//! A cache mirrors the store's history `0..len` of one incarnation of the conversation (its
//! `epoch`). It is only ever extended, or cut back to a length the store holds; when it
//! cannot be trusted (another epoch, a `system` or `tools` changed elsewhere) it is dropped
//! and the history is read again.

use std::rc::Rc;

use serde_json::Value;

use super::StoredMeta;
use crate::count::Memo;
use crate::messages::{Conversation, MessageFormat};
use crate::recall::Index;
use crate::Error;

/// What a request sends beside its messages, kept with the conversation and counted with
/// it: Anthropic's top-level `system`, and the tool definitions (`tools`). In a `prepare`'s
/// arguments a field that is `Some` replaces the conversation's (`Some(null)` removes it).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Around {
    /// Anthropic's top-level `system`.
    pub system: Option<Value>,
    /// The tool definitions (an array).
    pub tools: Option<Value>,
}

impl Around {
    /// The conversation's, as its meta keeps them.
    pub fn of(meta: &super::StoredMeta) -> Self {
        Around {
            system: meta.system.clone(),
            tools: meta.tools.clone(),
        }
    }

    /// Whether these are the ones `meta` keeps (compared in place: a tools list is not
    /// copied on every call's load to be compared).
    pub fn is_of(&self, meta: &super::StoredMeta) -> bool {
        self.system == meta.system && self.tools == meta.tools
    }

    /// This with the fields `update` gives replaced (a `null` one removed); whether it changed.
    pub fn update(&mut self, update: Around) -> bool {
        let was = self.clone();
        for (mine, new) in [(&mut self.system, update.system), (&mut self.tools, update.tools)] {
            if let Some(v) = new {
                *mine = (!v.is_null()).then_some(v);
            }
        }
        *self != was
    }
}

/// A conversation's parsed history.
pub(super) struct Cached {
    /// The incarnation it mirrors ([`super::StoredMeta::epoch`]).
    pub epoch: String,
    /// The `system` and `tools` it was parsed with.
    pub around: Around,
    /// The history: shared with a compaction while one runs, unique between calls.
    pub conv: Rc<Conversation>,
    /// Its message counts.
    pub memo: Memo,
    /// The meta this cache's last write stored (`None`: not known). A `prepare` or `commit`
    /// may go on from it without loading, as its write checks the version anyway.
    pub meta: Option<StoredMeta>,
    /// The history's search index: made by the first search, then extended with every
    /// append and cut back with the history (`None`: no search has asked for it yet).
    index: Option<Index>,
}

impl Cached {
    /// Parses `items` (with `system` and `tools` around them, when there are).
    pub fn build(
        epoch: String,
        around: Around,
        items: Vec<Value>,
        format: Option<MessageFormat>,
    ) -> Result<Self, Error> {
        let conv = parse(&around, items, format)?;
        Ok(Cached {
            epoch,
            around,
            conv: Rc::new(conv),
            memo: Memo::default(),
            meta: None,
            index: None,
        })
    }

    /// History items held.
    pub fn len(&self) -> usize {
        self.conv.items().len()
    }

    /// Appends `items`. When they make the detected format another one, the whole history is
    /// read again in it (and counted again). On error nothing changes.
    pub fn extend(&mut self, items: Vec<Value>, format: Option<MessageFormat>) -> Result<(), Error> {
        if items.is_empty() {
            return Ok(());
        }
        let conv = Rc::make_mut(&mut self.conv);
        let from = conv.messages().len();
        if conv.append(items.clone())? {
            if let Some(index) = &mut self.index {
                for m in &conv.messages()[from..] {
                    index.push_message(m);
                }
            }
            return Ok(());
        }
        let mut all = conv.items().to_vec();
        all.extend(items);
        self.conv = Rc::new(parse(&self.around, all, format)?);
        self.memo = Memo::default();
        self.index = None;
        Ok(())
    }

    /// Keeps the first `len` items.
    pub fn truncate(&mut self, len: usize) {
        if len < self.len() {
            Rc::make_mut(&mut self.conv).truncate(len);
            self.memo.truncate(len);
            if let Some(index) = &mut self.index {
                index.truncate(len);
            }
        }
    }

    /// Parses the history again around another `system` or `tools`. On error nothing changes.
    pub fn set_around(&mut self, around: Around, format: Option<MessageFormat>) -> Result<(), Error> {
        let conv = parse(&around, self.conv.items().to_vec(), format)?;
        // Counts are of messages, which stay as they were unless the format read changed.
        if conv.format() != self.conv.format() {
            self.memo = Memo::default();
            self.index = None;
        }
        self.conv = Rc::new(conv);
        self.around = around;
        Ok(())
    }
}

impl Cached {
    /// The history's search index (made from the history the first time), and the history.
    pub fn searchable(&mut self) -> (&Index, &Conversation) {
        let conv = &self.conv;
        (self.index.get_or_insert_with(|| Index::of(conv.messages())), conv)
    }
}

/// `items` as a conversation, inside `{ system, tools, messages }` when there is either.
fn parse(around: &Around, items: Vec<Value>, format: Option<MessageFormat>) -> Result<Conversation, Error> {
    if around.system.is_none() && around.tools.is_none() {
        return Conversation::from_json(Value::Array(items), format);
    }
    let mut obj = serde_json::Map::new();
    for (key, value) in [("system", &around.system), ("tools", &around.tools)] {
        if let Some(v) = value {
            obj.insert(key.into(), v.clone());
        }
    }
    obj.insert("messages".into(), Value::Array(items));
    Conversation::from_json(Value::Object(obj), format)
}
