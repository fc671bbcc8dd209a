//! What the `Compactor`'s reading calls give, made from what the store answered: the history
//! joined with the records ([`history`]: which compaction summarized each message), the
//! records with their `undone` flags ([`records`]), the summaries and the conversation ids
//! checked ([`summaries`], [`list`]), the export ([`export`]), and what an import does about
//! a conversation already stored ([`import_over`]).
//!
//! The store's answers are checked against the store contract first: an answer that breaks
//! it is a `STORE_ERROR` that names the method and says what it returned. The functions are
//! generic over [`Answer`], the value a store gave (JSON natively; the JavaScript value itself
//! at the face), so what they return holds the store's own objects, never copies.

use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

use super::stored::EXPORT_KIND;
use crate::error::StoreOperation;
use crate::Error;

/// The layout of an export ([`super::ExportedConversation`]) this build writes and reads.
pub const EXPORT_VERSION: u32 = 1;

/// A value a store answered, as far as the reading calls look into it.
pub trait Answer: Sized {
    /// What it is, in an error's words: `null`, `undefined`, `an array`, `string`, `object`...
    fn kind(&self) -> String;
    /// `null` or `undefined`: what `load` answers for a conversation the store does not hold.
    fn is_none(&self) -> bool;
    /// An object that is not an array.
    fn is_record(&self) -> bool;
    /// A string.
    fn is_text(&self) -> bool;
    /// Its items, when it is an array.
    fn items(&self) -> Option<Vec<Self>>;
    /// Its property `key` (`None`: absent or undefined, or it is no object).
    fn field(&self, key: &str) -> Option<Self>;
    /// It, when it is a whole number a JavaScript number holds exactly (`Number.isSafeInteger`).
    fn whole(&self) -> Option<i64>;
    /// A copy of this object with `key` set to `on` (where it was, or last).
    fn with_flag(&self, key: &str, on: bool) -> Self;
}

/// `n`, when it is a whole number a JavaScript number holds exactly (`Number.isSafeInteger`).
pub fn safe_whole(n: f64) -> Option<i64> {
    // Number.MAX_SAFE_INTEGER.
    (n.fract() == 0.0 && n.abs() <= 9_007_199_254_740_991.0).then_some(n as i64)
}

impl Answer for Value {
    fn kind(&self) -> String {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "an array",
            Value::Object(_) => "object",
        }
        .into()
    }

    fn is_none(&self) -> bool {
        self.is_null()
    }

    fn is_record(&self) -> bool {
        self.is_object()
    }

    fn is_text(&self) -> bool {
        self.is_string()
    }

    fn items(&self) -> Option<Vec<Self>> {
        self.as_array().cloned()
    }

    fn field(&self, key: &str) -> Option<Self> {
        self.get(key).cloned()
    }

    fn whole(&self) -> Option<i64> {
        self.as_f64().and_then(safe_whole)
    }

    fn with_flag(&self, key: &str, on: bool) -> Self {
        let mut copy = self.clone();
        if let Some(obj) = copy.as_object_mut() {
            obj.insert(key.to_owned(), Value::Bool(on));
        }
        copy
    }
}

/// What a message is to TypeScript when the caller names no type of its own: `unknown`
/// (`HistoryEntry<M = unknown>`).
pub struct Unknown;

impl TS for Unknown {
    type WithoutGenerics = Self;
    type OptionInnerType = Self;

    fn name(_: &ts_rs::Config) -> String {
        "unknown".into()
    }

    fn inline(cfg: &ts_rs::Config) -> String {
        Self::name(cfg)
    }
}

/// One message of a conversation's full history.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct HistoryEntry<M = Unknown> {
    /// Its index: the message's stable id (the history is append-only).
    pub index: usize,
    /// The message, as stored.
    pub message: M,
    /// The `seq` of the compaction that summarized it (`null`: never summarized, or only by an
    /// undone one).
    #[ts(type = "number | null")]
    pub summarized_by: Option<i64>,
}

/// A conversation as `export()` gives it: [`super::ExportedConversation`], holding the
/// store's own values.
#[derive(Clone, Debug, PartialEq)]
pub struct Export<V> {
    /// [`EXPORT_KIND`].
    pub kind: &'static str,
    /// [`EXPORT_VERSION`].
    pub export_version: u32,
    /// The meta, as loaded.
    pub meta: V,
    /// The history, `meta.length` messages.
    pub messages: Vec<V>,
    /// Every summary.
    pub summaries: Vec<V>,
    /// Every compaction record.
    pub records: Vec<V>,
}

/// A `STORE_ERROR` for data from `store[operation]` that breaks the store contract.
fn broken(operation: StoreOperation, id: &str, what: String) -> Error {
    Error::Store {
        operation,
        id: id.to_owned(),
        reason: format!("it returned data that breaks the store contract: {what}"),
    }
}

/// What a property is, in an error's words (`undefined` when it is absent).
fn kind_of<V: Answer>(value: Option<&V>) -> String {
    value.map_or_else(|| "undefined".into(), Answer::kind)
}

/// The stored meta's `length`: how many messages the history holds.
fn stored_length<V: Answer>(id: &str, meta: &V) -> Result<usize, Error> {
    if !meta.is_record() {
        let what = format!("expected a meta (an object) or null, got {}", meta.kind());
        return Err(broken(StoreOperation::Load, id, what));
    }
    let length = meta.field("length");
    match length.as_ref().and_then(Answer::whole) {
        Some(n) if n >= 0 => Ok(n as usize),
        _ => Err(broken(
            StoreOperation::Load,
            id,
            format!(
                "meta.length: expected a count of messages, got {}",
                kind_of(length.as_ref())
            ),
        )),
    }
}

/// The `seq` of every compaction the meta says was undone (none without a meta).
fn undone_of<V: Answer>(id: &str, meta: &V) -> Result<Vec<i64>, Error> {
    if meta.is_none() {
        return Ok(Vec::new());
    }
    if !meta.is_record() {
        let what = format!("expected a meta (an object) or null, got {}", meta.kind());
        return Err(broken(StoreOperation::Load, id, what));
    }
    let Some(undone) = meta.field("undone") else {
        return Ok(Vec::new());
    };
    let what = |at: String, got: String| broken(StoreOperation::Load, id, format!("{at}: expected {got}"));
    let items = undone.items().ok_or_else(|| {
        what(
            "meta.undone".into(),
            format!("an array of compaction seqs, got {}", undone.kind()),
        )
    })?;
    items
        .iter()
        .enumerate()
        .map(|(k, s)| {
            s.whole().ok_or_else(|| {
                what(
                    format!("meta.undone[{k}]"),
                    format!("a compaction's seq (a whole number), got {}", s.kind()),
                )
            })
        })
        .collect()
}

/// The history the store gave, `length` messages of it.
fn messages_of<V: Answer>(id: &str, messages: &V, length: usize) -> Result<Vec<V>, Error> {
    match messages.items() {
        Some(mut items) if items.len() >= length => {
            items.truncate(length);
            Ok(items)
        }
        items => Err(broken(
            StoreOperation::Messages,
            id,
            format!(
                "expected an array of at least {length} messages (meta.length), got {}",
                items.map_or_else(|| messages.kind(), |l| l.len().to_string())
            ),
        )),
    }
}

/// What `summaries` or `records` gave, checked: an array of objects, each with its `seq`.
fn entries<V: Answer>(operation: StoreOperation, id: &str, list: &V) -> Result<Vec<(V, i64)>, Error> {
    let items = list
        .items()
        .ok_or_else(|| broken(operation, id, format!("expected an array, got {}", list.kind())))?;
    items
        .into_iter()
        .enumerate()
        .map(|(k, entry)| {
            let seq = entry.field("seq");
            match seq.as_ref().and_then(Answer::whole) {
                Some(n) if entry.is_record() => Ok((entry, n)),
                _ => {
                    let got = seq.map_or_else(|| entry.kind(), |s| s.kind());
                    let what = format!("[{k}]: expected an object with its seq (a whole number), got {got}");
                    Err(broken(operation, id, what))
                }
            }
        })
        .collect()
}

/// The history indexes record `k` evicted.
fn evicted<V: Answer>(id: &str, k: usize, record: &V) -> Result<Vec<i64>, Error> {
    let what = |at: String, expected: &str, got: String| {
        broken(
            StoreOperation::Records,
            id,
            format!("records[{k}].evicted{at}: expected {expected}, got {got}"),
        )
    };
    let list = record.field("evicted");
    let items = list.as_ref().and_then(Answer::items).ok_or_else(|| {
        what(
            String::new(),
            "an array of message indexes",
            kind_of(list.as_ref()),
        )
    })?;
    items
        .iter()
        .enumerate()
        .map(|(j, i)| match i.whole() {
            Some(n) if n >= 0 => Ok(n),
            _ => Err(what(
                format!("[{j}]"),
                "a message index (a whole number from 0)",
                i.kind(),
            )),
        })
        .collect()
}

/// The full history, each message with its index and the compaction that summarized it (the
/// oldest that did and was not undone): `meta` as `load` gave it (none: the store holds no
/// such conversation, and the history is empty), `messages` as `messages(id, 0)` gave them,
/// `records` as `records(id)` did (neither is looked at without a meta).
pub fn history<V: Answer>(
    id: &str,
    meta: &V,
    messages: &V,
    records: &V,
) -> Result<Vec<HistoryEntry<V>>, Error> {
    if meta.is_none() {
        return Ok(Vec::new());
    }
    let length = stored_length(id, meta)?;
    let messages = messages_of(id, messages, length)?;
    let records = entries(StoreOperation::Records, id, records)?;
    let undone = undone_of(id, meta)?;
    let mut by: Vec<Option<i64>> = vec![None; length];
    for (k, (record, seq)) in records.iter().enumerate() {
        let evicted = evicted(id, k, record)?;
        if undone.contains(seq) {
            continue;
        }
        for i in evicted {
            if let Some(slot @ None) = usize::try_from(i).ok().and_then(|i| by.get_mut(i)) {
                *slot = Some(*seq);
            }
        }
    }
    Ok(messages
        .into_iter()
        .zip(by)
        .enumerate()
        .map(|(index, (message, summarized_by))| HistoryEntry {
            index,
            message,
            summarized_by,
        })
        .collect())
}

/// Every compaction record, oldest first, each a copy with `undone` set from the meta
/// (`meta`: as `load` gave it, none for a conversation the store does not hold).
pub fn records<V: Answer>(id: &str, meta: &V, records: &V) -> Result<Vec<V>, Error> {
    let records = entries(StoreOperation::Records, id, records)?;
    let undone = undone_of(id, meta)?;
    Ok(records
        .into_iter()
        .map(|(record, seq)| record.with_flag("undone", undone.contains(&seq)))
        .collect())
}

/// Every summary, as `summaries(id)` gave them, checked.
pub fn summaries<V: Answer>(id: &str, list: &V) -> Result<Vec<V>, Error> {
    Ok(entries(StoreOperation::Summaries, id, list)?
        .into_iter()
        .map(|(summary, _)| summary)
        .collect())
}

/// The conversation ids `list()` gave, checked: strings.
pub fn list<V: Answer>(ids: &V) -> Result<Vec<V>, Error> {
    let items = ids.items().ok_or_else(|| {
        broken(
            StoreOperation::List,
            "",
            format!("expected an array of conversation ids, got {}", ids.kind()),
        )
    })?;
    if let Some(k) = items.iter().position(|x| !x.is_text()) {
        let what = format!(
            "[{k}]: expected a conversation id (a string), got {}",
            items[k].kind()
        );
        return Err(broken(StoreOperation::List, "", what));
    }
    Ok(items)
}

/// The conversation as `export()` gives it, from what `load`, `messages(id, 0)`,
/// `summaries(id)` and `records(id)` gave (none of them looked at without a meta: the
/// conversation is unknown).
pub fn export<V: Answer>(
    id: &str,
    meta: V,
    messages: &V,
    summaries: &V,
    records: &V,
) -> Result<Export<V>, Error> {
    if meta.is_none() {
        return Err(Error::UnknownConversation { id: id.to_owned() });
    }
    let length = stored_length(id, &meta)?;
    let messages = messages_of(id, messages, length)?;
    let summaries = self::summaries(id, summaries)?;
    let records = entries(StoreOperation::Records, id, records)?;
    Ok(Export {
        kind: EXPORT_KIND,
        export_version: EXPORT_VERSION,
        meta,
        messages,
        summaries,
        records: records.into_iter().map(|(r, _)| r).collect(),
    })
}

/// Whether an import under `id` deletes the conversation stored there first (`existing`: what
/// `load` gave): only with `overwrite`, else it is `CONVERSATION_EXISTS`. `false`: nothing
/// is stored there.
pub fn import_over<V: Answer>(id: &str, existing: &V, overwrite: bool) -> Result<bool, Error> {
    match (existing.is_none(), overwrite) {
        (true, _) => Ok(false),
        (false, true) => Ok(true),
        (false, false) => Err(Error::ConversationExists { id: id.to_owned() }),
    }
}

#[cfg(test)]
mod tests;
