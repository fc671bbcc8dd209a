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
//! ([`Call::assume_cached`]); one that turns out to need the summarizer loads after all.

mod finish;
mod guarded;
mod idle;
mod stand_in;

use std::rc::Rc;

use serde_json::Value;

use super::cached::{Around, Cached};
use super::guards::{GuardNotes, GuardState, Tuning};
use super::stored::{
    reads_schema, CommitOutcome, ConversationStatus, PrepareOutcome, StoredMeta, UndoOutcome, WriteBatch,
    META_SCHEMA,
};
use crate::compact::types::{Budget, Timings};
use crate::compact::{CompactOutcome, CompactPlan, Compaction, Reply, Request, Setup};
use crate::options::CompactOptions;
use crate::Error;
pub use finish::corrected;

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
    /// The summarizer requests the next turn's compaction would make (`prepareAhead`):
    /// nothing is written.
    Ahead,
}

/// What a call needs next.
pub enum Step<'a> {
    /// The stored meta: answer with [`Call::loaded`].
    Load,
    /// History items from `from` on: answer with [`Call::read`].
    Read {
        /// The first index to read.
        from: usize,
    },
    /// Summaries: answer with [`Call::submit`] (or [`Call::submit_extractive`]). `first` is
    /// set on an attempt's first round (the moment for a `compactionStart` event).
    Summarize {
        /// The summarizer calls to make.
        requests: &'a [Request],
        /// An attempt's first round.
        first: bool,
    },
    /// The caller's timings, for the report and the record: answer with [`Call::finish`].
    Finish,
    /// Write `batch` expecting version `expect`: answer with [`Call::written`] or [`Call::stale`].
    Write {
        /// The stored version the write expects (0: none).
        expect: u32,
        /// What to write.
        batch: &'a WriteBatch,
    },
    /// Finished: [`Call::done`] has the result.
    Done,
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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Load,
    Read(usize),
    Summarize,
    Finish,
    Write,
    Done,
}

/// The engine's part of an attempt.
struct Run {
    compaction: Option<Compaction>,
    outcome: Option<CompactOutcome>,
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
    id: String,
    kind: Kind,
    ctx: Rc<Context>,
    now: Option<String>,
    /// The epoch a conversation made by this call gets.
    fresh_epoch: String,
    pub(super) cache: Option<Cached>,
    phase: Phase,
    attempts: u32,
    /// The meta this attempt loaded (`None`: no conversation yet).
    meta: Option<StoredMeta>,
    /// The cache mirrors the store's history up to here (set once loaded and read).
    pub(super) clean: Option<usize>,
    /// The cache's `system` was changed by this attempt (undone by dropping the cache).
    pub(super) dirty: bool,
    /// This attempt goes on from the meta its cache wrote last, not from a load.
    assumed: bool,

    run: Option<Run>,
    batch: Option<WriteBatch>,
    done: Option<Done>,
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
            id,
            kind,
            ctx,
            now,
            fresh_epoch,
            cache,
            phase: Phase::Load,
            attempts: 0,
            meta: None,
            clean: None,
            dirty: false,
            assumed: false,
            run: None,
            batch: None,
            done: None,
        }
    }

    /// The conversation's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// What the call needs now.
    pub fn step(&self) -> Step<'_> {
        match self.phase {
            Phase::Load => Step::Load,
            Phase::Read(from) => Step::Read { from },
            Phase::Summarize => {
                let run = self.run.as_ref().expect("a run while summarizing");
                Step::Summarize {
                    requests: run.compaction.as_ref().map_or(&[], |c| c.requests()),
                    first: run.first,
                }
            }
            Phase::Finish => Step::Finish,
            Phase::Write => Step::Write {
                expect: self.meta.as_ref().map_or(0, |m| m.version),
                batch: self.batch.as_ref().expect("a batch to write"),
            },
            Phase::Done => Step::Done,
        }
    }

    /// The plan of the compaction summarized, or made with the breaker open (`compactionStart`),
    /// with the window's budget (not the one corrected by usage, which the engine works to).
    pub fn plan(&self) -> Option<CompactPlan> {
        let run = self.run.as_ref()?;
        let plan =
            (run.compaction.as_ref().map(Compaction::plan)).or(run.breaker_skip.as_ref().map(|(_, p)| p));
        plan.map(|p| CompactPlan {
            budget: run.budget,
            ..p.clone()
        })
    }

    /// Whether the call finished ([`Step::Done`]).
    pub fn finished(&self) -> bool {
        self.phase == Phase::Done
    }

    /// History items the call's cache holds.
    pub fn cached_len(&self) -> usize {
        self.cache.as_ref().map_or(0, Cached::len)
    }

    /// The result, once [`Step::Done`].
    pub fn done(&self) -> Option<&Done> {
        self.done.as_ref()
    }

    /// Takes the result, once [`Step::Write`] (it is made with the batch; a stale write drops
    /// it with the attempt) or [`Step::Done`].
    pub fn take_done(&mut self) -> Option<Done> {
        self.done.take()
    }

    fn expect(&self, phase: Phase, what: &str) -> Result<(), Error> {
        if self.phase == phase {
            return Ok(());
        }
        Err(Error::InvalidArgument {
            argument: what.into(),
            expected: format!("to be called at {phase:?}, not at {:?}", self.phase),
        })
    }

    fn store_error(&self, operation: &'static str, reason: String) -> Error {
        Error::Store {
            operation,
            id: self.id.clone(),
            reason,
        }
    }

    /// The stored meta (`None`: the store holds no such conversation). `face_len` is how
    /// many history items the caller's own copy holds (a cache longer or shorter than it is
    /// not trusted). Returns how many cached items the call goes on from (the caller's copy
    /// keeps as many: the rest belonged to another incarnation, or was not trusted).
    pub fn loaded(&mut self, meta: Option<StoredMeta>, face_len: usize) -> Result<usize, Error> {
        self.expect(Phase::Load, "loaded")?;
        if let Some(m) = &meta {
            if !reads_schema(m.schema) {
                return Err(self.store_error(
                    "load",
                    format!(
                        "the meta's schema is {}; this ctxfold reads 1 to {META_SCHEMA}",
                        m.schema
                    ),
                ));
            }
            if m.id != self.id {
                return Err(self.store_error("load", format!("returned the meta of {:?}", m.id)));
            }
        }
        self.meta = meta;
        let Some(meta) = &self.meta else {
            match self.kind {
                Kind::Compact { .. } | Kind::Prune => {
                    return Err(Error::UnknownConversation { id: self.id.clone() })
                }
                Kind::Undo => self.finish_with(Done::Undone(None))?,
                Kind::Status => self.finish_with(Done::Status(None))?,
                Kind::Ahead => self.finish_with(Done::Ahead(Vec::new()))?,
                Kind::Prepare { .. } | Kind::Commit { .. } => {
                    self.cache = Some(Cached::build(
                        self.fresh_epoch.clone(),
                        Around::default(),
                        Vec::new(),
                        self.format(),
                    )?);
                    self.clean = Some(0);
                    self.ready()?;
                }
            }
            return Ok(0);
        };
        let trusted = self.cache.as_ref().is_some_and(|c| {
            c.epoch == meta.epoch && c.len() <= meta.length && c.len() == face_len && c.around.is_of(meta)
        });
        if !trusted {
            self.cache = None;
        }
        let kept = self.cache.as_ref().map_or(0, Cached::len);
        if matches!(self.kind, Kind::Undo) {
            // Undo changes the state only: no history needed.
            self.ready()?;
            return Ok(kept);
        }
        match &self.cache {
            Some(c) if c.len() == meta.length => {
                self.clean = Some(meta.length);
                self.ready()?;
            }
            Some(c) => self.phase = Phase::Read(c.len()),
            None if meta.length == 0 => {
                self.cache = Some(Cached::build(
                    meta.epoch.clone(),
                    Around::of(meta),
                    Vec::new(),
                    self.format(),
                )?);
                self.clean = Some(0);
                self.ready()?;
            }
            None => self.phase = Phase::Read(0),
        }
        Ok(kept)
    }

    /// Answers [`Step::Load`] without the store, when that is safe: a `prepare` or `commit`
    /// whose cache made the conversation's last write it knows of, and whose face holds
    /// `face_len` items as the cache does. The call goes on from the meta it wrote (its write
    /// is checked against that version, so a writer that got ahead makes it load and redo the
    /// call); a compaction it turns out to need loads first, so no summarizer is asked for
    /// on a stale history. Returns whether it did (`false`: load from the store).
    pub fn assume_cached(&mut self, face_len: usize) -> Result<bool, Error> {
        self.expect(Phase::Load, "assumeCached")?;
        // Planning ahead writes nothing: a request planned on a history that moved on is
        // only one no turn asks for.
        if self.attempts > 0
            || !matches!(
                self.kind,
                Kind::Prepare { .. } | Kind::Commit { .. } | Kind::Ahead
            )
        {
            return Ok(false);
        }
        let Some(meta) = self
            .cache
            .as_ref()
            .filter(|c| c.len() == face_len)
            .and_then(|c| c.meta.clone())
        else {
            return Ok(false);
        };
        self.assumed = true;
        self.loaded(Some(meta), face_len)?;
        Ok(true)
    }

    /// History items from the index [`Step::Read`] named. More than the meta's length (a
    /// write that landed since the load) are ignored; fewer are the store's error.
    pub fn read(&mut self, mut items: Vec<Value>) -> Result<(), Error> {
        let Phase::Read(from) = self.phase else {
            return self.expect(Phase::Read(0), "read");
        };
        let meta = self.meta.as_ref().expect("read after a load");
        let want = meta.length - from;
        if items.len() < want {
            return Err(self.store_error(
                "messages",
                format!(
                    "returned {} items from index {from}; the meta says the history holds {}",
                    items.len(),
                    meta.length
                ),
            ));
        }
        items.truncate(want);
        let format = self.format();
        let stored = |e: Error| Error::Store {
            operation: "messages",
            id: meta.id.clone(),
            reason: format!("the stored history does not read as messages: {e}"),
        };
        match (&mut self.cache, from) {
            (Some(c), f) if f > 0 && c.len() == f => c.extend(items, format).map_err(stored)?,
            (_, 0) => {
                self.cache =
                    Some(Cached::build(meta.epoch.clone(), Around::of(meta), items, format).map_err(stored)?)
            }
            _ => unreachable!("a read from {from} follows a cache of that length"),
        }
        self.clean = Some(meta.length);
        self.ready()
    }

    /// The options' format (`None`: detected).
    fn format(&self) -> Option<crate::messages::MessageFormat> {
        self.ctx
            .options
            .format
            .as_deref()
            .and_then(|f| crate::messages::MessageFormat::from_name(f).ok())
    }

    /// The history is in the cache: do the call's work.
    fn ready(&mut self) -> Result<(), Error> {
        match &mut self.kind {
            Kind::Prepare { new, around } => {
                // Copies: another attempt may need them.
                let (new, around) = (new.clone(), around.clone());
                let format = self.format();
                let cache = self.cache.as_mut().expect("a cache when ready");
                let mut next = cache.around.clone();
                if next.update(around) {
                    cache.set_around(next, format)?;
                    self.dirty = true;
                }
                self.append(new, "newMessages")?;
                self.start(false, None)
            }
            Kind::Commit { reply, .. } => {
                let reply = reply.clone();
                self.append(reply, "reply")?;
                self.phase = Phase::Finish;
                Ok(())
            }
            Kind::Compact { instructions } => {
                let instructions = instructions.clone();
                self.start(true, instructions)
            }
            Kind::Prune => self.start(false, None),
            Kind::Undo => match self.meta.as_ref().and_then(|m| m.undo.as_ref()) {
                None => self.finish_with(Done::Undone(None)),
                Some(_) => {
                    self.phase = Phase::Finish;
                    Ok(())
                }
            },
            Kind::Status => {
                let status = self.status()?;
                self.finish_with(Done::Status(Some(Box::new(status))))
            }
            Kind::Ahead => self.plan_ahead(),
        }
    }

    /// Appends the call's items to the cached history. A message that does not read is an
    /// error at its place in what the caller passed (`newMessages[2].content`).
    fn append(&mut self, items: Vec<Value>, argument: &str) -> Result<(), Error> {
        let format = self.format();
        let cache = self.cache.as_mut().expect("a cache when ready");
        let start = cache.len();
        cache
            .extend(items, format)
            .map_err(|e| relocate(e, start, argument))
    }

    /// The options of this call's compaction: the stored state, and a manual one's knobs.
    fn setup(&self, manual: bool, instructions: Option<String>) -> Result<Prepped, Error> {
        let mut options = self.ctx.options.clone();
        options.manual = Some(manual);
        if instructions.is_some() {
            options.instructions = instructions;
        }
        let mut setup = Setup::new(options)?;
        setup.state = self.meta.as_ref().map(|m| m.state.clone());
        let model = model_key(&setup);
        // Counted exactly, a lower report is never room the window lacks (see usage::PLAUSIBLE).
        let exact = setup.counting.exact;
        let ratio = self
            .meta
            .as_ref()
            .and_then(|m| m.anchors.iter().find(|a| a.model == model));
        let ratio = ratio.map(|a| if exact { a.ratio.max(1.0) } else { a.ratio });
        let cold = self.cold_cache(&setup.budget);
        if let Some(c) = &cold {
            setup.budget.threshold = c.threshold;
        }
        let budget = setup.budget;
        if let Some(r) = ratio {
            setup.budget = corrected(budget, r);
        }
        if matches!(self.kind, Kind::Prune) {
            // After the correction: the estimate keeps the real threshold.
            guarded::prune_now(&mut setup);
        }
        Ok((setup, ratio, budget, model, cold))
    }

    /// The replies to [`Step::Summarize`]'s requests, in order.
    pub fn submit(&mut self, replies: Vec<Reply>) -> Result<(), Error> {
        self.expect(Phase::Summarize, "submit")?;
        let run = self.run.as_mut().expect("a run");
        run.first = false;
        run.asked = true;
        run.compaction.as_mut().expect("a compaction").submit(replies)?;
        self.after_round()
    }

    /// Answers [`Step::Summarize`] with the built-in extractive summary.
    pub fn submit_extractive(&mut self) -> Result<(), Error> {
        self.expect(Phase::Summarize, "submitExtractive")?;
        let run = self.run.as_mut().expect("a run");
        run.first = false;
        run.compaction
            .as_mut()
            .expect("a compaction")
            .submit_extractive()?;
        self.after_round()
    }

    /// The caller's timings (planning, waiting for summaries, the whole call so far): the
    /// batch to write is made.
    pub fn finish(&mut self, timings: Timings) -> Result<(), Error> {
        self.expect(Phase::Finish, "finish")?;
        match &self.kind {
            Kind::Prepare { .. } | Kind::Compact { .. } | Kind::Prune => self.finish_compaction(timings),
            Kind::Commit { usage, .. } => {
                let usage = usage.clone();
                self.finish_commit(usage)
            }
            Kind::Undo => self.finish_undo(),
            Kind::Status | Kind::Ahead => unreachable!("status and ahead end when ready"),
        }
    }

    /// The write landed.
    pub fn written(&mut self) -> Result<(), Error> {
        self.expect(Phase::Write, "written")?;
        let batch = self.batch.take().expect("a batch");
        self.clean = Some(batch.meta.length);
        self.dirty = false;
        if let Some(c) = &mut self.cache {
            c.meta = Some(batch.meta);
        }
        self.phase = Phase::Done;
        Ok(())
    }

    /// The store refused the write (`found`: the version it holds, `None`: no
    /// conversation). The call starts over from [`Step::Load`], or fails with `STALE_WRITE`
    /// after its attempts.
    pub fn stale(&mut self, found: Option<u32>) -> Result<(), Error> {
        self.expect(Phase::Write, "stale")?;
        self.attempts += 1;
        let expected = self.meta.as_ref().map_or(0, |m| m.version);
        self.rollback();
        if self.attempts >= self.ctx.attempts {
            return Err(Error::StaleWrite {
                id: self.id.clone(),
                expected,
                found,
                attempts: self.attempts,
            });
        }
        self.phase = Phase::Load;
        Ok(())
    }

    /// Undoes what this attempt did to the cache, and forgets the attempt.
    pub(super) fn rollback(&mut self) {
        self.assumed = false;
        if let Some(c) = &mut self.cache {
            // Whatever this attempt assumed about the store is not to be assumed again.
            c.meta = None;
        }
        if self.dirty {
            self.cache = None;
        } else if let (Some(c), Some(len)) = (&mut self.cache, self.clean) {
            c.truncate(len);
        }
        self.dirty = false;
        self.run = None;
        self.batch = None;
        self.done = None;
        self.meta = None;
    }

    fn finish_with(&mut self, done: Done) -> Result<(), Error> {
        self.done = Some(done);
        self.phase = Phase::Done;
        Ok(())
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
