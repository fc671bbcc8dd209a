//! The store contract in Rust, a store in memory, and a driver that steps a [`Call`] to its
//! end without awaiting anything: for native callers and the core's tests. (The JavaScript
//! face steps calls the same way, awaiting its store and summarizer between steps.)

use std::collections::BTreeMap;

use serde_json::Value;

use super::events::{outcome_events, CompactorEvent};
use super::stored::{StoredMeta, WriteBatch};
use super::{Call, Done, Sessions, Step};
use crate::compact::types::Timings;
use crate::compact::Summarizer;
use crate::Error;

/// A store: what the JavaScript `CompactorStore` interface says, synchronously.
pub trait Store {
    /// The conversation's meta, or `None`.
    fn load(&mut self, id: &str) -> Result<Option<StoredMeta>, Error>;
    /// History items from `from` on.
    fn messages(&mut self, id: &str, from: usize) -> Result<Vec<Value>, Error>;
    /// One transaction: `Err(Error::StaleWrite)`, writing nothing, unless the stored version
    /// is `expect` (0: none).
    fn write(&mut self, id: &str, expect: u32, batch: &WriteBatch) -> Result<(), Error>;
    /// Every summary, in `seq` order.
    fn summaries(&mut self, id: &str) -> Result<Vec<Value>, Error>;
    /// Every record, in `seq` order.
    fn records(&mut self, id: &str) -> Result<Vec<Value>, Error>;
    /// The ids stored.
    fn list(&mut self) -> Result<Vec<String>, Error>;
    /// Removes the conversation.
    fn delete(&mut self, id: &str) -> Result<(), Error>;
}

/// One conversation as [`MemoryStore`] keeps it.
#[derive(Clone, Debug, Default)]
pub struct Row {
    /// The meta.
    pub meta: Option<StoredMeta>,
    /// The history.
    pub messages: Vec<Value>,
    /// The summaries.
    pub summaries: Vec<Value>,
    /// The records.
    pub records: Vec<Value>,
}

/// A store in memory, with counters of what was asked of it.
#[derive(Clone, Debug, Default)]
pub struct MemoryStore {
    /// The conversations.
    pub rows: BTreeMap<String, Row>,
    /// Calls of `load`.
    pub loads: usize,
    /// Calls of `messages`, with the index each read from.
    pub reads: Vec<usize>,
    /// Calls of `write` that landed.
    pub writes: usize,
}

impl Store for MemoryStore {
    fn load(&mut self, id: &str) -> Result<Option<StoredMeta>, Error> {
        self.loads += 1;
        Ok(self.rows.get(id).and_then(|r| r.meta.clone()))
    }

    fn messages(&mut self, id: &str, from: usize) -> Result<Vec<Value>, Error> {
        self.reads.push(from);
        Ok(self
            .rows
            .get(id)
            .map(|r| r.messages.get(from..).unwrap_or_default().to_vec())
            .unwrap_or_default())
    }

    fn write(&mut self, id: &str, expect: u32, batch: &WriteBatch) -> Result<(), Error> {
        let found = self.rows.get(id).and_then(|r| r.meta.as_ref()).map(|m| m.version);
        if found.unwrap_or(0) != expect {
            return Err(Error::StaleWrite {
                id: id.to_owned(),
                expected: expect,
                found,
                attempts: 0,
            });
        }
        let row = self.rows.entry(id.to_owned()).or_default();
        row.messages.truncate(batch.start);
        row.messages.extend(batch.messages.iter().cloned());
        row.summaries.extend(batch.summaries.iter().cloned());
        row.records.extend(batch.records.iter().cloned());
        row.meta = Some(batch.meta.clone());
        self.writes += 1;
        Ok(())
    }

    fn summaries(&mut self, id: &str) -> Result<Vec<Value>, Error> {
        Ok(self.rows.get(id).map(|r| r.summaries.clone()).unwrap_or_default())
    }

    fn records(&mut self, id: &str) -> Result<Vec<Value>, Error> {
        Ok(self.rows.get(id).map(|r| r.records.clone()).unwrap_or_default())
    }

    fn list(&mut self) -> Result<Vec<String>, Error> {
        Ok(self.rows.keys().cloned().collect())
    }

    fn delete(&mut self, id: &str) -> Result<(), Error> {
        self.rows.remove(id);
        Ok(())
    }
}

/// Makes a call with `make` and steps it to its end over `store`, answering summaries with
/// `summarizer`; the call ends (its cache goes back to `sessions`) whatever happens.
///
/// ```
/// use ctxfold::session::{memory::{run, MemoryStore}, Around, Done, Sessions};
/// use ctxfold::compact::Summarizer;
/// let options = ctxfold::options::from_value("options", &serde_json::json!({ "model": "gpt-4o" })).unwrap();
/// let mut sessions = Sessions::new(options, 5, 1).unwrap();
/// let mut store = MemoryStore::default();
/// let hi = vec![serde_json::json!({ "role": "user", "content": "hi" })];
/// let done = run(&mut sessions, |s| s.prepare("chat", hi, Around::default(), None), &mut store, Summarizer::Extractive).unwrap();
/// assert!(matches!(done, Done::Prepared(_)));
/// ```
pub fn run(
    sessions: &mut Sessions,
    make: impl FnOnce(&mut Sessions) -> Call,
    store: &mut dyn Store,
    summarizer: Summarizer,
) -> Result<Done, Error> {
    run_with_events(sessions, make, store, summarizer).0
}

/// [`run`], with the events the call sends, in the order the face hands them to the
/// handlers: each step's as it comes, then the outcome's (or the failure's).
pub fn run_with_events(
    sessions: &mut Sessions,
    make: impl FnOnce(&mut Sessions) -> Call,
    store: &mut dyn Store,
    mut summarizer: Summarizer,
) -> (Result<Done, Error>, Vec<CompactorEvent>) {
    let mut call = make(sessions);
    let mut events = Vec::new();
    let result = drive(&mut call, store, &mut summarizer, &mut events);
    let done = result.and_then(|()| {
        call.take_done().ok_or_else(|| Error::Internal {
            reason: "a finished call had no result".into(),
        })
    });
    match &done {
        Ok(Done::Prepared(p)) => events.extend(outcome_events(call.id(), &p.outcome)),
        Ok(_) => {}
        Err(_) => events.extend(call.fail()),
    }
    sessions.end(call);
    (done, events)
}

/// Steps `call` to its end, collecting its events (the call is not ended).
pub(super) fn drive(
    call: &mut Call,
    store: &mut dyn Store,
    summarizer: &mut Summarizer,
    events: &mut Vec<CompactorEvent>,
) -> Result<(), Error> {
    let id = call.id().to_owned();
    loop {
        events.extend(call.due());
        let len = call.cached_len();
        match call.step() {
            Step::Load(load) => {
                if let Some(load) = load.assume_cached(len)? {
                    load.loaded(store.load(&id)?, len)?;
                }
            }
            Step::Read(read) => {
                let items = store.messages(&id, read.from())?;
                read.read(items)?;
            }
            Step::Summarize(s) => match summarizer {
                Summarizer::Extractive => s.submit_extractive()?,
                Summarizer::Model(f) => {
                    let replies = s.requests().iter().map(&mut **f).collect();
                    s.submit(replies)?;
                }
            },
            Step::Finish(f) => f.finish(Timings::default())?,
            Step::Write(w) => {
                let Some(batch) = w.batch() else {
                    return Err(Error::Internal {
                        reason: "a write step without a batch".into(),
                    });
                };
                match store.write(&id, w.expects(), batch) {
                    Ok(()) => w.written()?,
                    Err(Error::StaleWrite { found, .. }) => w.stale(found)?,
                    Err(e) => return Err(e),
                }
            }
            Step::Done => return Ok(()),
        }
    }
}
