//! One `Compactor` call as a state machine: it says what it needs (the meta, history from
//! an index, summaries, the caller's timings, a write), takes each answer, and ends with a
//! result. It never waits on anything; the caller (the JavaScript face, or
//! [`super::memory::run`] natively) does the reading, summarizing and writing.
//!
//! ```text
//! Load ─▶ Read{from}? ─▶ Summarize* ─▶ Finish ─▶ Write ─▶ Done
//!  ▲                                            │ stale
//!  └────────────────────────────────────────────┘ (at most `attempts` times)
//! ```
//!
//! An attempt appends what the call adds to the cached history before its write, so the
//! engine sees it; if the write is refused (another writer got there first), those items are
//! cut off again and the call starts over from `Load`, with whatever the other writer did.
//! A `prepare` or `commit` whose cache made the last write may answer `Load` from it
//! ([`LoadStep::assume_cached`]); one that turns out to need the summarizer loads after all.
//!
//! Each phase owns what exists in it (`Phase`): the meta only once loaded, the cache as a
//! history the call trusts only after the load (and read), the compaction while it asks for
//! summaries, its outcome only after the last round, the batch only once made. A step is
//! answered through the handle [`Call::step`] gives for it ([`Step`]), so answering a step
//! the call is not at does not compile; the JavaScript face, which answers in separate wasm
//! calls, turns a mismatch into [`Error::CallOutOfOrder`].

mod announce;
mod finish;
mod guarded;
mod idle;
mod load;
mod stand_in;
mod step;

use std::rc::Rc;

use serde_json::Value;

use super::cached::{Around, Cached};
use super::guards::{GuardNotes, GuardState, Tuning};
use super::stored::{
    CommitOutcome, ConversationStatus, PrepareOutcome, StoredMeta, UndoOutcome, UndoPoint, WriteBatch,
};
use crate::compact::types::Budget;
use crate::compact::{CompactOutcome, CompactPlan, Compaction, Request, Setup};
use crate::options::CompactOptions;
use crate::Error;
pub use finish::corrected;
pub use step::{FinishStep, LoadStep, ReadStep, Step, SummarizeStep, WriteStep};

/// What a call does.
pub enum Kind {
    /// Append the caller's new messages, compact if needed, return the model input.
    Prepare {
        /// The new messages.
        new: Vec<Value>,
        /// What replaces the conversation's `system` (Anthropic) or `tools`.
        around: Around,
    },
    /// Append the model's reply; take the provider's usage report.
    Commit {
        /// The reply (and any tool round trips).
        reply: Vec<Value>,
        /// The provider's usage, as it reported it.
        usage: Option<Value>,
    },
    /// A manual compaction, with instructions for the summarizer.
    Compact {
        /// Added to the summarizer's instructions for this compaction.
        instructions: Option<String>,
    },
    /// Prune old tool outputs now (`/prune`): the prune trigger's pressure and piled-up
    /// thresholds are lifted for this call, and the compaction threshold is raised to the input
    /// budget, so nothing is summarized unless the pruned input does not fit at all.
    Prune,
    /// Restore the state before the latest compaction.
    Undo,
    /// Where the conversation stands.
    Status,
    /// The stored messages that best match `query` (see [`crate::recall`]).
    Search {
        /// What to look for.
        query: String,
        /// At most this many.
        limit: usize,
    },
    /// The stored messages that best match `query` and the model's input does not hold,
    /// within the recall budget ([`super::recall`]).
    Recall {
        /// What to look for.
        query: String,
        /// At most this many.
        limit: usize,
    },
    /// The summarizer requests the next turn's compaction would make (`prepareAhead`):
    /// nothing is written.
    Ahead,
    /// The provider refused the input the last `prepare` returned as too long: its count and
    /// limit are taken ([`crate::session::usage::refused`]) and the input planned again below
    /// the limit, as a `prepare` of no new messages.
    Overflowed {
        /// What the refusal said.
        refusal: crate::refusal::Refusal,
    },
}

/// One item of a returned input.
#[derive(Clone, Debug, PartialEq)]
pub enum Piece {
    /// History item `i`, as stored.
    Keep(usize),
    /// An item ctxfold made: a summary (`of: None`), or a copy of history item `of` with
    /// something changed (a pruned tool output, a merged or cut message).
    Item {
        /// The item.
        item: Value,
        /// The history item it is a changed copy of.
        of: Option<usize>,
    },
}

/// The input `prepare` or `compact` returns.
#[derive(Clone, Debug)]
pub struct Prepared {
    /// The messages, in order.
    pub pieces: Vec<Piece>,
    /// Anthropic's top-level `system`, when the conversation has one.
    pub system: Option<Value>,
    /// The tool definitions, when the conversation has them.
    pub tools: Option<Value>,
    /// Status, report, estimate and record.
    pub outcome: PrepareOutcome,
}

impl Prepared {
    /// Whether the summaries made ahead for the conversation (`prepareAhead`) answer no
    /// request from now on, so the face lets them go: this call stored a compaction, so the
    /// next compaction's span and its requests start after it (a request is answered only by
    /// the reply to the same request, [`super::request_key`], so one made for the span before
    /// would never be used).
    pub fn spends_made_ahead(&self) -> bool {
        self.outcome.record.is_some()
    }
}

/// A finished call's result.
#[derive(Clone, Debug)]
pub enum Done {
    /// `prepare` or `compact`.
    Prepared(Box<Prepared>),
    /// `commit`.
    Committed(CommitOutcome),
    /// `undo`: `None` when there was nothing to undo.
    Undone(Option<UndoOutcome>),
    /// `status`: `None` for a conversation the store does not hold.
    Status(Option<Box<ConversationStatus>>),
    /// `search`: best first (none for a conversation the store does not hold).
    Searched(Vec<super::search::SearchHit>),
    /// `recall`: what the model asked for, framed (none found for a conversation the store
    /// does not hold).
    Recalled(crate::recall::Recalled),
    /// `ahead`: the requests to make now (none: nothing to prepare).
    Ahead(Vec<Request>),
}

/// What a [`Call`] shares with the [`super::Sessions`] that made it.
#[derive(Clone)]
pub(super) struct Context {
    pub options: CompactOptions,
    pub attempts: u32,
    pub guards: Tuning,
    /// `prepareAhead`'s soft threshold, a share of the window (`None`: off).
    pub ahead: Option<f64>,
    /// `compactWhenCold` (`None`: off).
    pub cold: Option<super::when_cold::Cold>,
}

/// What a call keeps through its attempts.
struct Core {
    id: String,
    kind: Kind,
    ctx: Rc<Context>,
    now: Option<String>,
    /// The epoch a conversation made by this call gets.
    fresh_epoch: String,
    /// Attempts whose write was refused.
    attempts: u32,
    /// A `compactionStart` sent and not closed yet.
    opened: super::events::Opened,
    /// Events due at the next [`Call::due`] (a stale write's `compactionFailed`).
    queued: Vec<super::events::CompactorEvent>,
}

/// An attempt whose history is loaded: the meta it loaded and the cache that mirrors it.
struct Loaded {
    /// The meta this attempt loaded (`None`: no conversation yet).
    meta: Option<StoredMeta>,
    /// The history, the stored part and what this attempt appended.
    cache: Cached,
    /// The cache mirrors the store's history up to here.
    clean: usize,
    /// The cache's `system` was changed by this attempt (undone by dropping the cache).
    dirty: bool,
    /// This attempt goes on from the meta its cache wrote last, not from a load.
    assumed: bool,
}

/// The meta is loaded and history from the cache's end on is to be read.
struct Reading {
    meta: StoredMeta,
    /// What the call goes on from (its length is the index to read from).
    cache: Option<Cached>,
    assumed: bool,
}

/// Summaries to ask for: the attempt, the engine's part of it, and the compaction.
struct Summarizing {
    at: Loaded,
    run: Run,
    compaction: Compaction,
}

/// What the caller's timings finish.
enum Finishing {
    /// A compaction's outcome, to become the batch and the result.
    Compaction {
        at: Loaded,
        run: Box<Run>,
        outcome: Box<CompactOutcome>,
    },
    /// A `commit`'s appended reply, and the provider's usage it takes.
    Commit { at: Loaded, usage: Option<Value> },
    /// An `undo` of the compaction `undo` names (no history needed: the cache, trusted or
    /// not, stays as it is).
    Undo {
        meta: StoredMeta,
        undo: UndoPoint,
        cache: Option<Cached>,
    },
}

/// A batch to write, the result it makes, and what becomes of the cache either way.
struct Writing {
    batch: WriteBatch,
    /// The stored version the write expects (0: none).
    expect: u32,
    /// The result, until taken.
    done: Option<Done>,
    cache: Option<Cached>,
    /// What a refused write cuts the cache back to (`None`: nothing was appended).
    clean: Option<usize>,
    /// A refused write drops the cache (its `system` changed).
    dirty: bool,
}

/// Where a call is, with what exists there.
enum Phase {
    /// The meta to load; the cache from earlier calls, not checked yet.
    Load(Option<Cached>),
    Read(Box<Reading>),
    Summarize(Box<Summarizing>),
    Finish(Box<Finishing>),
    Write(Box<Writing>),
    /// Finished: the cache to keep, the result until taken.
    Done {
        cache: Option<Cached>,
        done: Option<Done>,
    },
}

impl Phase {
    /// The step's name in an out-of-order error.
    fn name(&self) -> &'static str {
        match self {
            Phase::Load(_) => "load",
            Phase::Read(_) => "read",
            Phase::Summarize(_) => "summarize",
            Phase::Finish(_) => "finish",
            Phase::Write(_) => "write",
            Phase::Done { .. } => "done",
        }
    }
}

/// An answer to a step: the phase it leads to and how it went, or the phase it found when
/// that is not the one it answers.
enum Answer<T> {
    At(load::Went<T>),
    NotAt(Phase),
}

/// Where a step of a loaded attempt leads.
enum Next {
    Summarize(Box<Run>, Box<Compaction>),
    Finish(Box<Run>, Box<CompactOutcome>),
    /// A `commit`'s reply appended: its usage is taken, and the batch made, at the finish step.
    FinishCommit(Option<Value>),
    Write(Box<WriteBatch>, Done),
    Done(Done),
    /// Load again: an attempt that assumed its cache is about to ask the summarizer.
    Reload,
}

impl Loaded {
    /// The phase `next` leads to from this attempt; an error forgets the attempt (the cache
    /// cut back to what the store holds) and leaves the call at [`Phase::Load`].
    fn then(self, next: Result<Next, Error>) -> (Phase, Result<(), Error>) {
        let phase = match next {
            Ok(Next::Summarize(run, compaction)) => Phase::Summarize(Box::new(Summarizing {
                at: self,
                run: *run,
                compaction: *compaction,
            })),
            Ok(Next::Finish(run, outcome)) => Phase::Finish(Box::new(Finishing::Compaction {
                at: self,
                run,
                outcome,
            })),
            Ok(Next::FinishCommit(usage)) => Phase::Finish(Box::new(Finishing::Commit { at: self, usage })),
            Ok(Next::Write(batch, done)) => Phase::Write(Box::new(Writing {
                batch: *batch,
                expect: self.meta.as_ref().map_or(0, |m| m.version),
                done: Some(done),
                cache: Some(self.cache),
                clean: Some(self.clean),
                dirty: self.dirty,
            })),
            Ok(Next::Done(done)) => Phase::Done {
                cache: Some(self.cache),
                done: Some(done),
            },
            Ok(Next::Reload) => Phase::Load(self.rollback()),
            Err(e) => return (Phase::Load(self.rollback()), Err(e)),
        };
        (phase, Ok(()))
    }

    /// The cache without what this attempt did to it.
    fn rollback(self) -> Option<Cached> {
        cut_back(Some(self.cache), Some(self.clean), self.dirty)
    }
}

/// `cache` without an attempt's changes: what it assumed about the store forgotten, what it
/// appended cut off (back to `clean`), or dropped when its `system` changed (`dirty`).
fn cut_back(cache: Option<Cached>, clean: Option<usize>, dirty: bool) -> Option<Cached> {
    let mut cache = cache?;
    // Whatever this attempt assumed about the store is not to be assumed again.
    cache.meta = None;
    if dirty {
        return None;
    }
    if let Some(len) = clean {
        cache.truncate(len);
    }
    Some(cache)
}

/// The engine's part of an attempt.
struct Run {
    /// The budget before the usage correction (the provider's tokens).
    budget: Budget,
    ratio: Option<f64>,
    model: String,
    strategy: crate::config::Strategy,
    /// The call's counter (the pruned messages' whole tokens are counted with it).
    counter: crate::count::Counter,
    first: bool,
    /// The guards' state after this attempt (written with the meta), and what they did.
    guards: GuardState,
    notes: GuardNotes,
    /// The span the compaction summarizes (see `session::guards`), and where the summarized
    /// history starts (a fold re-summarizes from there).
    span: super::guards::Span,
    head_end: usize,
    /// The breaker is open: the fallback answers, the summarizer is not called (why; the plan).
    breaker_skip: Option<(String, CompactPlan)>,
    /// A summarizer's replies were submitted (not the extractive summary's).
    asked: bool,
}

/// One call in progress.
pub struct Call {
    core: Core,
    phase: Phase,
}

impl Call {
    pub(super) fn new(
        id: String,
        kind: Kind,
        ctx: Rc<Context>,
        cache: Option<Cached>,
        now: Option<String>,
        fresh_epoch: String,
    ) -> Call {
        Call {
            core: Core {
                id,
                kind,
                ctx,
                now,
                fresh_epoch,
                attempts: 0,
                opened: Default::default(),
                queued: Vec::new(),
            },
            phase: Phase::Load(cache),
        }
    }

    /// The conversation's id.
    pub fn id(&self) -> &str {
        &self.core.id
    }

    /// Whether the call finished ([`Step::Done`]).
    pub fn finished(&self) -> bool {
        matches!(self.phase, Phase::Done { .. })
    }

    /// History items the call's cache holds.
    pub fn cached_len(&self) -> usize {
        let cache = match &self.phase {
            Phase::Load(cache) | Phase::Done { cache, .. } => cache.as_ref(),
            Phase::Read(r) => r.cache.as_ref(),
            Phase::Summarize(s) => Some(&s.at.cache),
            Phase::Finish(f) => match &**f {
                Finishing::Compaction { at, .. } | Finishing::Commit { at, .. } => Some(&at.cache),
                Finishing::Undo { cache, .. } => cache.as_ref(),
            },
            Phase::Write(w) => w.cache.as_ref(),
        };
        cache.map_or(0, Cached::len)
    }

    /// Takes the result, once [`Step::Write`] (it is made with the batch; a stale write drops
    /// it with the attempt) or [`Step::Done`].
    pub fn take_done(&mut self) -> Option<Done> {
        match &mut self.phase {
            Phase::Write(w) => w.done.take(),
            Phase::Done { done, .. } => done.take(),
            _ => None,
        }
    }

    /// Ends the call: its cache, cut back to what the store holds when it did not finish.
    pub(super) fn into_cache(self) -> Option<Cached> {
        match self.phase {
            Phase::Done { cache, .. } => cache,
            Phase::Load(cache) => cut_back(cache, None, false),
            Phase::Read(r) => cut_back(r.cache, None, false),
            Phase::Summarize(s) => s.at.rollback(),
            Phase::Finish(f) => match *f {
                Finishing::Compaction { at, .. } | Finishing::Commit { at, .. } => at.rollback(),
                Finishing::Undo { cache, .. } => cut_back(cache, None, false),
            },
            Phase::Write(w) => cut_back(w.cache, w.clean, w.dirty),
        }
    }

    /// Answers the step the call is at with `answer` (named `name`): `answer` gets the phase
    /// and gives the next one, or gives the phase back when it is not the one it answers.
    fn advance<T>(
        &mut self,
        name: &'static str,
        answer: impl FnOnce(&mut Core, Phase) -> Answer<T>,
    ) -> Result<T, Error> {
        let phase = std::mem::replace(&mut self.phase, Phase::Load(None));
        match answer(&mut self.core, phase) {
            Answer::At((next, result)) => {
                self.phase = next;
                result
            }
            Answer::NotAt(phase) => {
                let expected = phase.name();
                self.phase = phase;
                Err(Error::CallOutOfOrder { expected, got: name })
            }
        }
    }
}

impl Core {
    fn store_error(&self, operation: crate::error::StoreOperation, reason: String) -> Error {
        Error::Store {
            operation,
            id: self.id.clone(),
            reason,
        }
    }

    /// The options' format (`None`: detected).
    fn format(&self) -> Option<crate::messages::MessageFormat> {
        self.ctx.options.format
    }
}

/// An attempt at work: the call's lasting part and the loaded attempt.
struct Work<'a> {
    core: &'a Core,
    at: &'a mut Loaded,
}

impl Work<'_> {
    /// Appends the call's items to the cached history. A message that does not read is an
    /// error at its place in what the caller passed (`newMessages[2].content`).
    fn append(&mut self, items: Vec<Value>, argument: &str) -> Result<(), Error> {
        let format = self.core.format();
        let cache = &mut self.at.cache;
        let start = cache.len();
        cache
            .extend(items, format)
            .map_err(|e| relocate(e, start, argument))
    }

    /// The options of this call's compaction: the stored state, and a manual one's knobs.
    fn setup(&self, manual: bool, instructions: Option<String>) -> Result<Prepped, Error> {
        let mut options = self.core.ctx.options.clone();
        options.manual = Some(manual);
        if instructions.is_some() {
            options.instructions = instructions;
        }
        let mut setup = Setup::new(options)?;
        setup.state = self.at.meta.as_ref().map(|m| m.state.clone());
        let model = model_key(&setup);
        // Counted exactly, a lower report is never room the window lacks (see usage::PLAUSIBLE).
        let exact = setup.counting.exact;
        let anchor = (self.at.meta.as_ref()).and_then(|m| m.anchors.iter().find(|a| a.model == model));
        let ratio = anchor.map(|a| if exact { a.ratio.max(1.0) } else { a.ratio });
        let cold = self.cold_cache(&setup.budget);
        if let Some(c) = &cold {
            setup.budget.threshold = c.threshold;
        }
        // A provider's refusal said its limit: every input is planned below it.
        if let Some(limit) = anchor.and_then(|a| a.limit) {
            setup.budget = crate::refusal::limited(setup.budget, limit);
        }
        let budget = setup.budget;
        if let Some(r) = ratio {
            setup.budget = corrected(budget, r);
        }
        if matches!(self.core.kind, Kind::Prune) {
            // After the correction: the estimate keeps the real threshold.
            guarded::prune_now(&mut setup);
        }
        Ok((setup, ratio, budget, model, cold))
    }
}

/// A call's compaction setup: the options resolved (the usage correction and a cold cache's
/// threshold applied), the correction's ratio, the budget before the correction, the model's
/// anchor key, and the cold cache's note.
type Prepped = (
    Setup,
    Option<f64>,
    Budget,
    String,
    Option<super::when_cold::ColdCacheNote>,
);

/// The key a model's usage anchor is kept under: the registry's id (`""` without a model).
fn model_key(setup: &Setup) -> String {
    setup
        .counting
        .model
        .as_ref()
        .map_or_else(String::new, |m| m.id.clone())
}

/// An error about `messages[i]` (the history's index) as one about `argument[i - start]`.
fn relocate(e: Error, start: usize, argument: &str) -> Error {
    let fix = |path: String| -> String {
        let Some(rest) = path.strip_prefix("messages[") else {
            return path;
        };
        let Some((n, tail)) = rest.split_once(']') else {
            return path;
        };
        match n.parse::<usize>() {
            Ok(i) if i >= start => format!("{argument}[{}]{tail}", i - start),
            _ => path,
        }
    };
    match e {
        Error::InvalidMessage { path, reason } => Error::InvalidMessage {
            path: fix(path),
            reason,
        },
        other => other,
    }
}
