//! Conversations that remember: the core of the `Compactor`.
//!
//! `compact()` is a function: the caller passes the whole history and the state every turn.
//! A `Compactor` keeps both in a store: the full history (append-only), the engine's
//! [`CompactState`](crate::compact::CompactState) in force, every summary and a record of every compaction.
//! A `prepare` is the same engine run over the whole stored history with that state, exactly
//! as a stateless caller that passes `state` back gets it: there is no second compaction
//! algorithm, and the two give the same inputs turn for turn (the compaction benchmark's
//! `Compactor` row checks it).
//!
//! The core is sans-IO. [`Sessions`] holds each conversation's history parsed once and
//! extended ([`cache`]: a [`Conversation`](crate::messages::Conversation) and its
//! [`Memo`](crate::count::Memo) of counts) and turns one call into a [`Call`]: a state machine
//! that says what to read (the meta; the history from an index when the cache is behind),
//! which summaries to ask for, and one [`WriteBatch`] to write against the version it loaded.
//! The JavaScript face (`src/wasm/compactor.rs`, `pkg-template/lib/compactor.js`) awaits the
//! store and the summarizer and steps the call in synchronous wasm calls; [`memory::run`]
//! steps it natively over a [`memory::MemoryStore`].
//!
//! # Decisions (where the design was silent)
//!
//! - **What is stored.** The history is the caller's messages as JSON, in the order they
//!   came through `prepare` and `commit`, never rewritten: a message's index is its stable
//!   id, and records and reports name messages by it. Anthropic's top-level `system` is kept
//!   in the meta (a later `prepare` with another `system` replaces it). Every summary chunk
//!   ever made is kept ([`StoredSummary`], with the compaction that made it), folded and
//!   undone ones included; the state in force says which chunks are used.
//! - **Starting a conversation.** The first `prepare` (or a `commit`: a greeting before
//!   the user's first message) of an id the store does not hold makes it; `prepare(id, [])`
//!   of a new id stores a conversation of no messages. `compact`, `export` of an unknown id
//!   are `UNKNOWN_CONVERSATION`; `undo` and `status` of one resolve to `null`.
//! - **One write per call.** A `prepare` (even one that only appends) is one `write`, after
//!   one `load` unless the conversation's cache made the last write it knows of (then the
//!   call goes on from the meta it wrote, and the write's version check catches any writer
//!   that got ahead: the call then loads and redoes its work; a compaction loads first, so
//!   the summarizer is never asked on a stale history), and a `messages(id, from)` when the
//!   cache is behind (another tab or isolate wrote, or this one started cold). `commit` and
//!   `undo` write too; `status` only reads; a manual compaction with nothing to summarize
//!   writes nothing.
//! - **Stale writes.** A refused write cuts what the attempt appended off the cache, loads
//!   again and redoes the call (the summarizer included: the other writer's compaction may
//!   have made this one unnecessary), at most `attempts` times, then fails with
//!   `STALE_WRITE`.
//! - **Usage anchoring** ([`usage`]). `commit(id, reply, usage)` pairs the provider's
//!   reported input with ctxfold's count of the input the `prepare` just before returned
//!   (only if nothing was appended in between: otherwise the usage is reported as ignored,
//!   not taken), and keeps `ratio = reported / counted` per model in the meta. The next
//!   trigger decision compares `counted x ratio` with the threshold: the engine is
//!   untouched, it is given the budget divided by the ratio ([`call::corrected`]), so the
//!   input also fits the window in the provider's tokens. `prepare` returns how the decision
//!   saw the input (`estimate`), and `status()` the estimate's error per model, plain and
//!   corrected.
//! - **Undo.** One level: the meta keeps the state in force before the latest compaction.
//!   `undo` restores it (the chunks that compaction made, its boundary, prune boundary and
//!   pinned message all revert; the history keeps everything, and the undone record and
//!   summaries stay in the store, marked undone). So the input the next call builds is the
//!   one the compacting turn would have built had it not compacted: the input of the turn
//!   before it, followed by every message appended since. Unless that passes the threshold:
//!   then the next `prepare` compacts again (a manual compaction undone usually stays
//!   undone; a threshold one is redone, by a summarizer that may now write a better
//!   summary), unless the idempotency guard suppresses the redo: within its 60 s, and only
//!   while the input fits the budget (see [`guards`]). A compaction is not undone twice; an
//!   undo after an undo resolves to `null`.
//! - **Guards** ([`guards`]). The idempotency guard, the back-off and the circuit breaker,
//!   with their state in the meta (`meta.guards`) and what they did in each call's outcome
//!   and each record (`guards`). A suppressed compaction writes no record: the call's
//!   outcome says so, the meta keeps the latest suppression and counts them, and the next
//!   record says how many came before it (`guards.suppressedBefore`).
//! - **Locks** (the face). Calls on one conversation through one `Compactor` run one after
//!   another; a store that names itself with `lockName` (one shared by tabs) also gets them
//!   run under the Web Lock `ctxfold:<lockName>:<id>` where `navigator.locks` exists. The
//!   version check is the backstop everywhere (two `Compactor`s over one store, Worker
//!   isolates, stores without a name).
//! - **Prune now** (`/prune`). [`Sessions::prune`] is a `prepare` with no new messages whose
//!   prune trigger is lifted (no pressure or piled-up minimum: every tool output before the
//!   recent turns that is over the size limit is pruned, as pressure would prune it) and whose
//!   compaction threshold is the input budget, so it summarizes only an input that does not
//!   fit even pruned. It writes the new prune boundary in the state (nothing, if it has
//!   nothing to prune); the next turns keep it, as they keep one pressure moved.
//! - **Events** ([`events`], sent by the face). `compactionStart` before the summarizer is
//!   first called in an attempt (again if a stale write makes the call start over); then,
//!   once the write landed, `pruned` when the prune boundary moved, `fallback` when a
//!   fallback stood in for a summary, `suppressed`, `backoff`, `breakerOpen` and
//!   `breakerClosed` as the guards say, and `compactionEnd` with the record. A start not
//!   closed so is closed by `compactionFailed`. The core decides each; the face hands them
//!   to the handlers.
//! - **Summaries made ahead** ([`request_key`]). The core gives each summarizer request its
//!   key; a summary made ahead answers only the request of the same key.
//! - **Cached histories** ([`recent`]). At most `maxCachedConversations` are kept, the one
//!   used least recently dropped first; [`Sessions::end`] names the ones it dropped, and
//!   the face drops its copies of exactly those.

mod cached;
pub mod call;
pub mod events;
pub mod guards;
pub mod memory;
pub mod options;
pub mod prepare_ahead;
pub mod recall;
pub mod recent;
pub mod request_key;
pub mod search;
pub mod stored;
pub mod usage;
pub mod views;
pub mod when_cold;

use std::rc::Rc;

use serde_json::Value;

use crate::compact::Setup;
use crate::options::CompactOptions;
use crate::Error;
pub use cached::Around;
use cached::Cached;
use call::Context;
pub use call::{
    Call, Done, FinishStep, Kind, LoadStep, Piece, Prepared, ReadStep, Step, SummarizeStep, WriteStep,
};
use guards::{GuardOptions, Tuning};
use recent::Recent;
pub use stored::{
    CommitOutcome, CompactionRecord, ConversationStatus, ExportedConversation, InputEstimate, LastCompaction,
    LastInput, PrepareOutcome, PrunedTokens, StoredMeta, StoredSummary, UndoOutcome, UndoPoint, UsageAnchor,
    WriteBatch, EXPORT_KIND, META_SCHEMA,
};

/// How many times a call tries to write before `STALE_WRITE`, unless told otherwise.
pub const DEFAULT_ATTEMPTS: u32 = 5;

/// How many conversations' histories are kept parsed, unless told otherwise: the ones used
/// least recently go first (their next call reads the history from the store again).
pub const DEFAULT_CACHED: usize = 100;

/// Conversations of one `Compactor`: its options, and the cached history of each
/// conversation it has seen.
pub struct Sessions {
    ctx: Rc<Context>,
    /// Each conversation's cache, the ones used least recently dropped first.
    caches: Recent<Cached>,
    seed: u64,
    made: u64,
}

impl Sessions {
    /// A compactor's core with `options` (`compact()`'s, without `state` and `manual`: the
    /// store keeps the state, and `compact(id)` is the manual compaction). A write refused as
    /// stale is tried `attempts` times in all. `seed` makes the epochs of new conversations
    /// (the face seeds it at random).
    pub fn new(options: CompactOptions, attempts: u32, seed: u64) -> Result<Self, Error> {
        if options.state.is_some() {
            return Err(refused("state"));
        }
        if options.manual.is_some() {
            return Err(refused("manual"));
        }
        if options.state_key.is_some() {
            return Err(refused("stateKey"));
        }
        // Checked once, here: every call resolves the same options.
        Setup::new(options.clone())?;
        Ok(Sessions {
            ctx: Rc::new(Context {
                options,
                attempts: attempts.max(1),
                guards: Tuning::default(),
                ahead: None,
                cold: None,
            }),
            caches: Recent::new(DEFAULT_CACHED),
            seed,
            made: 0,
        })
    }

    /// Tunes (or turns off) the guards: `options.guards` of a `Compactor`
    /// ([`guards::GuardOptions`]).
    pub fn with_guards(mut self, options: &GuardOptions) -> Self {
        Rc::make_mut(&mut self.ctx).guards = Tuning::new(options);
        self
    }

    /// Turns `prepareAhead` on (`Some`) or off: [`Kind::Ahead`] calls plan from its soft
    /// threshold on.
    pub fn with_ahead(mut self, options: Option<&prepare_ahead::PrepareAheadOptions>) -> Self {
        Rc::make_mut(&mut self.ctx).ahead = options.map(prepare_ahead::PrepareAheadOptions::soft_threshold);
        self
    }

    /// Turns `compactWhenCold` on (`Some`) or off: a `prepare` that comes after the
    /// provider's cache lifetime compacts at a lower threshold.
    pub fn with_cold(mut self, options: Option<&when_cold::CompactWhenColdOptions>) -> Self {
        Rc::make_mut(&mut self.ctx).cold = options.map(when_cold::Cold::from);
        self
    }

    /// Keeps at most `n` conversations' histories parsed (at least one).
    pub fn with_cache_limit(mut self, n: usize) -> Self {
        self.caches.set_limit(n);
        self
    }

    fn call(&mut self, id: &str, kind: Kind, now: Option<String>) -> Call {
        self.made += 1;
        let epoch = format!(
            "{:016x}",
            splitmix(self.seed ^ self.made.wrapping_mul(0x9E37_79B9_7F4A_7C15))
        );
        let cache = self.caches.take(id);
        Call::new(id.to_owned(), kind, Rc::clone(&self.ctx), cache, now, epoch)
    }

    /// `prepare(id, new)`: what `around` gives replaces the conversation's `system`
    /// (Anthropic) or `tools`.
    pub fn prepare(&mut self, id: &str, new: Vec<Value>, around: Around, now: Option<String>) -> Call {
        self.call(id, Kind::Prepare { new, around }, now)
    }

    /// `commit(id, reply, usage)`.
    pub fn commit(&mut self, id: &str, reply: Vec<Value>, usage: Option<Value>, now: Option<String>) -> Call {
        self.call(id, Kind::Commit { reply, usage }, now)
    }

    /// `compact(id, { instructions })`: a manual compaction.
    pub fn compact(&mut self, id: &str, instructions: Option<String>, now: Option<String>) -> Call {
        self.call(id, Kind::Compact { instructions }, now)
    }

    /// `prune(id)`: old tool outputs pruned now, without a summary (`/prune`).
    pub fn prune(&mut self, id: &str, now: Option<String>) -> Call {
        self.call(id, Kind::Prune, now)
    }

    /// `overflowed(id, error)`: the provider refused the input the last `prepare` returned
    /// as too long, and said so in `refusal`; the input is planned again below its limit.
    pub fn overflowed(&mut self, id: &str, refusal: crate::refusal::Refusal, now: Option<String>) -> Call {
        self.call(id, call::Kind::Overflowed { refusal }, now)
    }

    /// `undo(id)`.
    pub fn undo(&mut self, id: &str, now: Option<String>) -> Call {
        self.call(id, Kind::Undo, now)
    }

    /// `status(id)`.
    pub fn status(&mut self, id: &str) -> Call {
        self.call(id, Kind::Status, None)
    }

    /// `search(id, query, { limit })`: the stored messages that best match `query`.
    pub fn search(&mut self, id: &str, query: &str, limit: usize) -> Call {
        let kind = Kind::Search {
            query: query.to_owned(),
            limit,
        };
        self.call(id, kind, None)
    }

    /// `recall(id, { query, limit })`: the stored messages the model's input does not hold
    /// that best match `query`, within the recall budget.
    pub fn recall(&mut self, id: &str, query: &str, limit: usize) -> Call {
        let kind = Kind::Recall {
            query: query.to_owned(),
            limit,
        };
        self.call(id, kind, None)
    }

    /// The summarizer requests the next turn's compaction would make, to make them now
    /// (`prepareAhead`): none when it is off, below its soft threshold, or when the next
    /// turn continues a tool call.
    pub fn ahead(&mut self, id: &str, now: Option<String>) -> Call {
        self.call(id, Kind::Ahead, now)
    }

    /// Ends `call`, finished or not: its cache comes back (cut back to what the store holds
    /// when the call did not finish), as the conversation used last. Says how many history
    /// items are cached for the conversation now and which conversations' caches were dropped
    /// to make room (the face keeps its own copy of the items just as long).
    pub fn end(&mut self, call: Call) -> Ended {
        let id = call.id().to_owned();
        match call.into_cache() {
            Some(c) => {
                let kept = c.len();
                let dropped = self.caches.put(id, c);
                Ended {
                    kept: Some(kept),
                    dropped,
                }
            }
            None => Ended {
                kept: None,
                dropped: Vec::new(),
            },
        }
    }

    /// Forgets the conversation's cache (it was deleted, or replaced by an import).
    pub fn forget(&mut self, id: &str) {
        self.caches.take(id);
    }

    /// History items cached for `id`.
    pub fn cached(&self, id: &str) -> usize {
        self.caches.get(id).map_or(0, Cached::len)
    }

    /// The batch that `import` writes (expecting no conversation) for `data`, under `id` (or
    /// the id it was exported with): checked, with a new epoch and version 1.
    pub fn import(
        &mut self,
        data: ExportedConversation,
        id: Option<String>,
        now: Option<String>,
    ) -> Result<WriteBatch, Error> {
        let bad = |what: String| Error::InvalidArgument {
            argument: "data".into(),
            expected: format!("a conversation as export() gives it: {what}"),
        };
        if data.kind != EXPORT_KIND || data.export_version != views::EXPORT_VERSION {
            return Err(bad(format!(
                "kind {:?} and exportVersion {}, got {:?} and {}",
                EXPORT_KIND,
                views::EXPORT_VERSION,
                data.kind,
                data.export_version
            )));
        }
        let mut meta = data.meta;
        if !stored::reads_schema(meta.schema) {
            return Err(bad(format!(
                "meta.schema 1 to {META_SCHEMA}, got {}",
                meta.schema
            )));
        }
        meta.schema = META_SCHEMA;
        if meta.length != data.messages.len() {
            return Err(bad(format!(
                "meta.length ({}) equal to the number of messages ({})",
                meta.length,
                data.messages.len()
            )));
        }
        for (name, list, count) in [
            ("summaries", &data.summaries, meta.summaries),
            ("records", &data.records, meta.compactions),
        ] {
            if list.len() != count as usize {
                return Err(bad(format!(
                    "{} {name} as the meta counts, got {}",
                    count,
                    list.len()
                )));
            }
            for (k, v) in list.iter().enumerate() {
                if v.get("seq").and_then(Value::as_u64) != Some(k as u64) {
                    return Err(bad(format!("{name}[{k}].seq equal to {k}")));
                }
            }
        }
        let id = id.unwrap_or_else(|| meta.id.clone());
        if id.is_empty() {
            return Err(bad("a non-empty id".into()));
        }
        self.made += 1;
        let epoch = format!(
            "{:016x}",
            splitmix(self.seed ^ self.made.wrapping_mul(0x9E37_79B9_7F4A_7C15))
        );
        let format = self.ctx.options.format;
        // The history must read as messages (the first call after the import reads it again).
        Cached::build(epoch.clone(), Around::of(&meta), data.messages.clone(), format)?;
        self.caches.take(&id);
        meta.id = id;
        meta.version = stored::first_version(&epoch);
        meta.epoch = epoch;
        meta.updated_at = now;
        Ok(WriteBatch {
            start: 0,
            messages: data.messages,
            summaries: data.summaries,
            records: data.records,
            meta,
        })
    }
}

/// What [`Sessions::end`] did with a call's cache.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Ended {
    /// History items cached for the call's conversation now (`None`: none is cached).
    pub kept: Option<usize>,
    /// The conversations whose caches were dropped to make room, the least recently used
    /// first.
    pub dropped: Vec<String>,
}

/// `compact()`'s options a `Compactor` refuses (the store keeps the state, which no client
/// sees, so it needs no signature; `compact(id)` is the manual compaction).
pub const REFUSED_OPTIONS: [&str; 3] = ["state", "manual", "stateKey"];

/// The error for one of [`REFUSED_OPTIONS`], given to a `Compactor`.
pub fn refused(key: &str) -> Error {
    Error::InvalidArgument {
        argument: format!("options.{key}"),
        expected: match key {
            "state" => "no state: a Compactor keeps each conversation's state in its store",
            "stateKey" => "no stateKey: a Compactor's state stays in its store, where no client changes it",
            _ => "no manual: call compactor.compact(id, { instructions }) for a manual compaction",
        }
        .into(),
    }
}

/// SplitMix64: a well-mixed 64-bit value from a counter.
fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests;
