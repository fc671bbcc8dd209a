//! One conversation's history, parsed once and extended: the [`Conversation`] (the stored
//! items and their parsed messages) and its [`Memo`] of message counts, so a turn parses and
//! counts only what it adds.
//!
//! A cache mirrors the store's history `0..len` of one incarnation of the conversation (its
//! `epoch`). It is only ever extended, or cut back to a length the store holds; when it
//! cannot be trusted (another epoch, a `system` changed elsewhere) it is dropped and the
//! history is read again.

use std::rc::Rc;

use serde_json::Value;

use super::StoredMeta;
use crate::count::Memo;
use crate::messages::{Conversation, Format};
use crate::Error;

/// A conversation's parsed history.
pub(super) struct Cached {
    /// The incarnation it mirrors ([`super::StoredMeta::epoch`]).
    pub epoch: String,
    /// Anthropic's top-level `system` it was parsed with.
    pub system: Option<Value>,
    /// The history: shared with a compaction while one runs, unique between calls.
    pub conv: Rc<Conversation>,
    /// Its message counts.
    pub memo: Memo,
    /// The meta this cache's last write stored (`None`: not known). A `prepare` or `commit`
    /// may go on from it without loading, as its write checks the version anyway.
    pub meta: Option<StoredMeta>,
}

impl Cached {
    /// Parses `items` (with `system` around them, when there is one).
    pub fn build(
        epoch: String,
        system: Option<Value>,
        items: Vec<Value>,
        format: Option<Format>,
    ) -> Result<Self, Error> {
        let conv = parse(system.as_ref(), items, format)?;
        Ok(Cached {
            epoch,
            system,
            conv: Rc::new(conv),
            memo: Memo::default(),
            meta: None,
        })
    }

    /// History items held.
    pub fn len(&self) -> usize {
        self.conv.items().len()
    }

    /// Appends `items`. When they make the detected format another one, the whole history is
    /// read again in it (and counted again). On error nothing changes.
    pub fn extend(&mut self, items: Vec<Value>, format: Option<Format>) -> Result<(), Error> {
        if items.is_empty() {
            return Ok(());
        }
        let conv = Rc::make_mut(&mut self.conv);
        if conv.append(items.clone())? {
            return Ok(());
        }
        let mut all = conv.items().to_vec();
        all.extend(items);
        self.conv = Rc::new(parse(self.system.as_ref(), all, format)?);
        self.memo = Memo::default();
        Ok(())
    }

    /// Keeps the first `len` items.
    pub fn truncate(&mut self, len: usize) {
        if len < self.len() {
            Rc::make_mut(&mut self.conv).truncate(len);
            self.memo.truncate(len);
        }
    }

    /// Parses the history again around another `system`.
    pub fn set_system(&mut self, system: Option<Value>, format: Option<Format>) -> Result<(), Error> {
        let conv = parse(system.as_ref(), self.conv.items().to_vec(), format)?;
        // Counts are of messages, which stay as they were unless the format read changed.
        if conv.format() != self.conv.format() {
            self.memo = Memo::default();
        }
        self.conv = Rc::new(conv);
        self.system = system;
        Ok(())
    }
}

/// `items` as a conversation, inside `{ system, messages }` when there is a `system`.
fn parse(system: Option<&Value>, items: Vec<Value>, format: Option<Format>) -> Result<Conversation, Error> {
    let input = match system {
        None => Value::Array(items),
        Some(system) => {
            let mut obj = serde_json::Map::new();
            obj.insert("system".into(), system.clone());
            obj.insert("messages".into(), Value::Array(items));
            Value::Object(obj)
        }
    };
    Conversation::from_json(input, format)
}
