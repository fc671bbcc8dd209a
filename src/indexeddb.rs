//! The IndexedDB store's layout and rules, as data: the object stores of each schema
//! version, how keys are made, what opening a database of an older version does to it, and
//! the version check every write makes. Nothing here touches IndexedDB: the face
//! (`src/wasm/indexeddb/`) does the IO with web-sys and asks this module what to do.
//! [`check_write`], the whole check of a write (a stale version, a batch that would cut or
//! replace what is held), is every store's: the face exports it as `checkWrite`, which the
//! JavaScript stores make their writes' checks with.
//!
//! # Schema version 2 (current)
//!
//! | object store | key | value |
//! | --- | --- | --- |
//! | `meta` | conversation id | the conversation's meta (its `version` and `length`) |
//! | `messages` | `[id, index]` | one history item, the caller's object as stored |
//! | `summaries` | `[id, seq]` | a summary (its `seq`: unique and increasing per conversation) |
//! | `records` | `[id, seq]` | a compaction record (likewise) |
//!
//! A warm write touches only what is new (the meta, the appended messages, any summary and
//! record); a read of the history from index `n` is one key range. Keys sort oldest first.
//!
//! # Schema version 1
//!
//! One object store, `conversations` (key path `id`), with one record per conversation:
//! `{ id, meta, messages, summaries, records }`. Every write rewrote the whole conversation,
//! so a turn cost as much as its history. Opening such a database upgrades it in place, in
//! the upgrade's own transaction: each conversation is split into the stores above and
//! `conversations` is deleted. An upgrade that fails leaves the database at version 1 with
//! its data.

use serde::Deserialize;
use ts_rs::TS;

use crate::options::Int;
use crate::Error;

/// The schema version this build writes (the IndexedDB database version).
pub const SCHEMA_VERSION: u32 = 2;

/// The object store of metas, keyed by conversation id.
pub const META: &str = "meta";
/// The object store of history items, keyed `[id, index]`.
pub const MESSAGES: &str = "messages";
/// The object store of summary chunks, keyed `[id, version, i]`.
pub const SUMMARIES: &str = "summaries";
/// The object store of compaction records, keyed `[id, version, i]`.
pub const RECORDS: &str = "records";
/// Every object store of the current schema.
pub const STORES: [&str; 4] = [META, MESSAGES, SUMMARIES, RECORDS];

/// Schema version 1's only object store: one record per conversation.
pub const V1_CONVERSATIONS: &str = "conversations";

/// One step of opening a database written by an older schema version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UpgradeStep {
    /// Create the current schema's object stores.
    CreateStores,
    /// Split each of version 1's `conversations` records into the current stores, then
    /// delete `conversations`.
    SplitConversations,
}

/// What opening a database found at version `from` (0: a new database) must do to bring it
/// to [`SCHEMA_VERSION`].
pub fn upgrade(from: u32) -> Result<Vec<UpgradeStep>, Error> {
    match from {
        0 => Ok(vec![UpgradeStep::CreateStores]),
        1 => Ok(vec![UpgradeStep::CreateStores, UpgradeStep::SplitConversations]),
        SCHEMA_VERSION => Ok(Vec::new()),
        newer => Err(newer_schema(newer)),
    }
}

/// The error for a database that a newer ctxfold wrote.
pub fn newer_schema(found: u32) -> Error {
    Error::Store {
        operation: crate::error::StoreOperation::Open,
        id: String::new(),
        reason: format!(
            "the IndexedDB database has schema version {found}, written by a newer ctxfold; this one reads versions up to {SCHEMA_VERSION}"
        ),
    }
}

/// Options of `new IndexedDBStore()`.
#[derive(Clone, Debug, Default, Deserialize, TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(optional_fields)]
pub struct IndexedDBStoreOptions {
    /// The IndexedDB database's name. Default `"ctxfold"`.
    pub database: Option<String>,
    /// The deadline of each call (opening the database included), in milliseconds: a call
    /// that has not settled by then is aborted (nothing is written) and rejects with
    /// `STORE_ERROR`. Default 10000.
    pub timeout_ms: Option<Int<1, 3_600_000>>,
}

impl IndexedDBStoreOptions {
    /// The database's name.
    pub fn database(&self) -> &str {
        self.database.as_deref().unwrap_or("ctxfold")
    }

    /// The deadline of each call, in milliseconds.
    pub fn timeout_ms(&self) -> usize {
        self.timeout_ms.map_or(10_000, Int::get)
    }
}

/// The check of a write, made inside its transaction: the stored meta's version (none when
/// there is no meta, which a write expecting 0 finds) must be the one the writer read.
pub fn check_version(id: &str, expect: u32, found: Option<u32>) -> Result<(), Error> {
    if found.unwrap_or(0) == expect {
        Ok(())
    } else {
        Err(Error::StaleWrite {
            id: id.to_owned(),
            expected: expect,
            found,
            attempts: 0,
        })
    }
}

/// A number from JavaScript as a length or an index: a whole number from 0 to 2^53.
pub fn whole(value: f64) -> Option<u64> {
    (value.fract() == 0.0 && (0.0..=9_007_199_254_740_992.0).contains(&value)).then_some(value as u64)
}

/// A number from JavaScript as a version or a `seq`: a whole number from 0 to 2^32 - 1.
pub fn counter(value: f64) -> Option<u32> {
    whole(value).and_then(|v| u32::try_from(v).ok())
}

/// The check of a write's arguments that needs no stored data: the new meta's version is
/// `expect + 1`, or above 0 for a new conversation's first write (`expect` 0: the core
/// starts each conversation at a version of its own, `first_version`). Where its messages
/// go is checked once the stored meta is read, with [`check_length`].
pub fn check_batch(expect: u32, new_version: u32) -> Result<(), Error> {
    if (expect == 0 && new_version > 0) || Some(new_version) == expect.checked_add(1) {
        Ok(())
    } else {
        let wanted = match expect {
            0 => "above 0 (a new conversation)".to_owned(),
            _ => format!("{} (expect + 1)", u64::from(expect) + 1),
        };
        Err(Error::InvalidArgument {
            argument: "batch.meta.version".into(),
            expected: format!("{wanted}, got {new_version}"),
        })
    }
}

/// Where a batch's messages go, checked against the stored meta's `length`: at `start` (if
/// the batch says) which must be that length, and the new meta's `length` must be it plus
/// the messages appended.
pub fn check_length(stored: u64, start: Option<u64>, appended: u64, new_length: u64) -> Result<(), Error> {
    if let Some(start) = start.filter(|s| *s != stored) {
        return Err(Error::InvalidArgument {
            argument: "batch.start".into(),
            expected: format!("the stored length {stored}, got {start}"),
        });
    }
    if stored + appended == new_length {
        Ok(())
    } else {
        Err(Error::InvalidArgument {
            argument: "batch.meta.length".into(),
            expected: format!(
                "{} (the stored length {stored} plus {appended} messages), got {new_length}",
                stored + appended
            ),
        })
    }
}

/// What a store holds of a conversation, as far as the check of a write reads it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Held<'a> {
    /// The stored meta's version (`None`: no conversation).
    pub version: Option<u32>,
    /// The stored meta's `length`: the messages held.
    pub length: u64,
    /// The `seq` of every summary held (or at least of those the batch names).
    pub summaries: &'a [u32],
    /// The `seq` of every record held (or at least of those the batch names).
    pub records: &'a [u32],
}

/// What a write's batch says, as far as its check reads it (its version was checked
/// against `expect` when it was read, by [`check_batch`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct Appended<'a> {
    /// `batch.start` (`None`: not given; the messages then go at the stored length).
    pub start: Option<u64>,
    /// How many messages it appends.
    pub messages: u64,
    /// Its meta's `length`.
    pub length: u64,
    /// The `seq` of each summary it adds.
    pub summaries: &'a [u32],
    /// The `seq` of each record it adds.
    pub records: &'a [u32],
}

/// The whole check of a write, for any store: a stale version is `STALE_WRITE`; a batch
/// that does not go on from what is held (its `start` is not the stored length, or a
/// summary's or record's `seq` is held already or named twice) is `INVALID_ARGUMENT`, so
/// history is only ever appended: nothing held is replaced or cut.
pub fn check_write(id: &str, expect: u32, held: Held, batch: Appended) -> Result<(), Error> {
    check_version(id, expect, held.version)?;
    check_length(held.length, batch.start, batch.messages, batch.length)?;
    check_seqs("summaries", held.summaries, batch.summaries)?;
    check_seqs("records", held.records, batch.records)
}

/// Each of `added` (a batch's `kind`) is a `seq` neither held nor named before it.
fn check_seqs(kind: &str, held: &[u32], added: &[u32]) -> Result<(), Error> {
    for (i, seq) in added.iter().enumerate() {
        let why = if held.contains(seq) {
            "is stored already"
        } else if added[..i].contains(seq) {
            "is named twice in the batch"
        } else {
            continue;
        };
        return Err(Error::InvalidArgument {
            argument: format!("batch.{kind}[{i}].seq"),
            expected: format!("a seq not stored yet (a store never replaces one), got {seq}, which {why}"),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upgrades_from_every_older_version_and_refuses_newer_ones() {
        assert_eq!(upgrade(0).unwrap(), [UpgradeStep::CreateStores]);
        assert_eq!(
            upgrade(1).unwrap(),
            [UpgradeStep::CreateStores, UpgradeStep::SplitConversations]
        );
        assert_eq!(upgrade(SCHEMA_VERSION).unwrap(), []);
        let err = upgrade(SCHEMA_VERSION + 1).unwrap_err();
        assert_eq!(err.code(), "STORE_ERROR");
        assert!(err.to_string().contains("schema version 3"), "{err}");
    }

    #[test]
    fn a_write_must_have_read_the_stored_version() {
        assert_eq!(check_version("c", 0, None), Ok(()));
        assert_eq!(check_version("c", 7, Some(7)), Ok(()));
        let err = check_version("c", 6, Some(7)).unwrap_err();
        assert_eq!(err.code(), "STALE_WRITE");
        assert!(err.to_string().contains("expected version 6"), "{err}");
        assert!(err.to_string().contains("holds version 7"), "{err}");
        let err = check_version("c", 2, None).unwrap_err();
        assert!(err.to_string().contains("holds no conversation"), "{err}");
    }

    #[test]
    fn a_batch_advances_the_version_by_one_and_the_length_by_its_messages() {
        assert_eq!(check_batch(0, 1), Ok(()));
        assert_eq!(check_batch(0, 918_273), Ok(()));
        assert_eq!(check_batch(0, 0).unwrap_err().code(), "INVALID_ARGUMENT");
        assert_eq!(check_batch(4, 6).unwrap_err().code(), "INVALID_ARGUMENT");
        assert_eq!(check_batch(4, 4).unwrap_err().code(), "INVALID_ARGUMENT");
        assert_eq!(check_batch(u32::MAX, 0).unwrap_err().code(), "INVALID_ARGUMENT");
        assert_eq!(check_length(10, None, 2, 12), Ok(()));
        assert_eq!(check_length(10, Some(10), 2, 12), Ok(()));
        let err = check_length(10, Some(9), 2, 11).unwrap_err();
        assert!(err.to_string().contains("batch.start"), "{err}");
        let err = check_length(10, None, 2, 11).unwrap_err();
        assert!(err.to_string().contains("batch.meta.length"), "{err}");
    }

    #[test]
    fn whole_numbers_only() {
        assert_eq!(whole(0.0), Some(0));
        assert_eq!(whole(12.0), Some(12));
        assert_eq!(whole(1.5), None);
        assert_eq!(whole(-1.0), None);
        assert_eq!(whole(f64::NAN), None);
        assert_eq!(whole(f64::INFINITY), None);
        assert_eq!(counter(4_294_967_295.0), Some(u32::MAX));
        assert_eq!(counter(4_294_967_296.0), None);
    }

    #[test]
    fn options_have_defaults_and_refuse_unknown_keys() {
        let o: IndexedDBStoreOptions = crate::options::parse("options", "{}").unwrap();
        assert_eq!((o.database(), o.timeout_ms()), ("ctxfold", 10_000));
        let o: IndexedDBStoreOptions =
            crate::options::parse("options", r#"{"database":"chat","timeoutMs":500}"#).unwrap();
        assert_eq!((o.database(), o.timeout_ms()), ("chat", 500));
        let err = crate::options::parse::<IndexedDBStoreOptions>("options", r#"{"name":"x"}"#).unwrap_err();
        assert_eq!(err.code(), "INVALID_ARGUMENT");
        let err =
            crate::options::parse::<IndexedDBStoreOptions>("options", r#"{"timeoutMs":0}"#).unwrap_err();
        assert_eq!(err.code(), "OUT_OF_RANGE");
    }

    #[test]
    fn a_write_only_ever_appends() {
        let held = Held {
            version: Some(3),
            length: 5,
            summaries: &[0, 1],
            records: &[0],
        };
        let fits = Appended {
            start: Some(5),
            messages: 2,
            length: 7,
            summaries: &[2],
            records: &[1],
        };
        assert_eq!(check_write("c", 3, held, fits), Ok(()));
        assert_eq!(check_write("c", 2, held, fits).unwrap_err().code(), "STALE_WRITE");
        let cut = Appended {
            start: Some(4),
            length: 6,
            ..fits
        };
        let err = check_write("c", 3, held, cut).unwrap_err();
        assert_eq!(err.code(), "INVALID_ARGUMENT");
        assert!(err.to_string().contains("batch.start"), "{err}");
        let again = Appended {
            summaries: &[2, 1],
            ..fits
        };
        let err = check_write("c", 3, held, again).unwrap_err();
        assert!(err.to_string().contains("batch.summaries[1].seq"), "{err}");
        assert!(err.to_string().contains("stored already"), "{err}");
        let twice = Appended {
            records: &[1, 1],
            ..fits
        };
        let err = check_write("c", 3, held, twice).unwrap_err();
        assert!(err.to_string().contains("batch.records[1].seq"), "{err}");
        assert!(err.to_string().contains("named twice"), "{err}");
        // A new conversation: nothing held, messages from 0.
        let first = Appended {
            start: Some(0),
            messages: 1,
            length: 1,
            ..Appended::default()
        };
        assert_eq!(check_write("c", 0, Held::default(), first), Ok(()));
    }
}
