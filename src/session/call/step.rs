//! What a call needs next, as a handle per step: only the handle of the step the call is at
//! answers it, so a caller in the crate cannot answer out of order (each handle borrows the
//! call, so none outlives the step it was made for).

use serde_json::Value;

use super::load::{self, Went};
use super::{cut_back, Answer, Call, Finishing, Phase, Summarizing, Writing};
use crate::compact::types::Timings;
use crate::compact::{CompactPlan, Reply, Request};
use crate::session::stored::{StoredMeta, WriteBatch};
use crate::Error;

/// What a call needs next.
pub enum Step<'a> {
    /// The stored meta: answer with [`LoadStep::loaded`] (or [`LoadStep::assume_cached`]).
    Load(LoadStep<'a>),
    /// History items from [`ReadStep::from`] on: answer with [`ReadStep::read`].
    Read(ReadStep<'a>),
    /// Summaries: answer with [`SummarizeStep::submit`] (or
    /// [`SummarizeStep::submit_extractive`]).
    Summarize(SummarizeStep<'a>),
    /// The caller's timings, for the report and the record: answer with [`FinishStep::finish`].
    Finish(FinishStep<'a>),
    /// A batch to write: answer with [`WriteStep::written`] or [`WriteStep::stale`].
    Write(WriteStep<'a>),
    /// Finished: [`Call::take_done`] has the result.
    Done,
}

impl Step<'_> {
    /// The step's name (`"load"`, `"read"`, ...), as [`Error::CallOutOfOrder`] says it.
    pub fn name(&self) -> &'static str {
        match self {
            Step::Load(_) => "load",
            Step::Read(_) => "read",
            Step::Summarize(_) => "summarize",
            Step::Finish(_) => "finish",
            Step::Write(_) => "write",
            Step::Done => "done",
        }
    }
}

impl Call {
    /// What the call needs now.
    pub fn step(&mut self) -> Step<'_> {
        match &self.phase {
            Phase::Load(_) => Step::Load(LoadStep { call: self }),
            Phase::Read(_) => Step::Read(ReadStep { call: self }),
            Phase::Summarize(_) => Step::Summarize(SummarizeStep { call: self }),
            Phase::Finish(_) => Step::Finish(FinishStep { call: self }),
            Phase::Write(_) => Step::Write(WriteStep { call: self }),
            Phase::Done { .. } => Step::Done,
        }
    }
}

// Each handle is made by `Call::step` for the phase it answers, so the phase it takes is that
// one; were it another, the answer would be the out-of-order error, not a panic.

/// [`Step::Load`]'s handle.
pub struct LoadStep<'a> {
    call: &'a mut Call,
}

impl LoadStep<'_> {
    /// The stored meta (`None`: the store holds no such conversation). `face_len` is how
    /// many history items the caller's own copy holds (a cache longer or shorter than it is
    /// not trusted). Returns how many cached items the call goes on from (the caller's copy
    /// keeps as many: the rest belonged to another incarnation, or was not trusted).
    pub fn loaded(self, meta: Option<StoredMeta>, face_len: usize) -> Result<usize, Error> {
        self.call.advance("loaded", |core, phase| match phase {
            Phase::Load(cache) => Answer::At(load::loaded(core, cache, meta, face_len, false)),
            other => Answer::NotAt(other),
        })
    }

    /// Answers the load without the store, when that is safe: a `prepare` or `commit`
    /// whose cache made the conversation's last write it knows of, and whose face holds
    /// `face_len` items as the cache does. The call goes on from the meta it wrote (its write
    /// is checked against that version, so a writer that got ahead makes it load and redo the
    /// call); a compaction it turns out to need loads first, so no summarizer is asked for
    /// on a stale history. Gives the handle back when it did not (load from the store).
    pub fn assume_cached(self, face_len: usize) -> Result<Option<Self>, Error> {
        let meta = match &self.call.phase {
            Phase::Load(cache) => load::assumable(&self.call.core, cache.as_ref(), face_len),
            _ => None,
        };
        let Some(meta) = meta else {
            return Ok(Some(self));
        };
        self.call.advance("assumeCached", |core, phase| match phase {
            Phase::Load(cache) => {
                let (phase, went) = load::loaded(core, cache, Some(meta), face_len, true);
                Answer::At((phase, went.map(|_| None)))
            }
            other => Answer::NotAt(other),
        })
    }
}

/// [`Step::Read`]'s handle.
pub struct ReadStep<'a> {
    call: &'a mut Call,
}

impl ReadStep<'_> {
    /// The first index to read.
    pub fn from(&self) -> usize {
        match &self.call.phase {
            Phase::Read(r) => r.cache.as_ref().map_or(0, |c| c.len()),
            _ => 0,
        }
    }

    /// History items from [`ReadStep::from`] on. More than the meta's length (a write that
    /// landed since the load) are ignored; fewer are the store's error.
    pub fn read(self, items: Vec<Value>) -> Result<(), Error> {
        self.call.advance("read", |core, phase| match phase {
            Phase::Read(r) => Answer::At(load::read(core, *r, items)),
            other => Answer::NotAt(other),
        })
    }
}

/// [`Step::Summarize`]'s handle.
pub struct SummarizeStep<'a> {
    call: &'a mut Call,
}

impl SummarizeStep<'_> {
    fn summarizing(&self) -> Option<&Summarizing> {
        match &self.call.phase {
            Phase::Summarize(s) => Some(s),
            _ => None,
        }
    }

    /// The summarizer calls to make.
    pub fn requests(&self) -> &[Request] {
        self.summarizing().map_or(&[], |s| s.compaction.requests())
    }

    /// An attempt's first round (the moment for a `compactionStart` event).
    pub fn first(&self) -> bool {
        self.summarizing().is_some_and(|s| s.run.first)
    }

    /// The plan of the compaction summarized (`compactionStart`), with the window's budget
    /// (not the one corrected by usage, which the engine works to).
    pub fn plan(&self) -> Option<CompactPlan> {
        self.summarizing().map(|s| CompactPlan {
            budget: s.run.budget,
            ..s.compaction.plan().clone()
        })
    }

    /// The replies to the requests, in order.
    pub fn submit(self, replies: Vec<Reply>) -> Result<(), Error> {
        self.call.advance("submit", |_, phase| match phase {
            Phase::Summarize(s) => Answer::At(summarized(*s, |s| {
                s.run.asked = true;
                s.compaction.submit(replies)
            })),
            other => Answer::NotAt(other),
        })
    }

    /// Answers with the built-in extractive summary.
    pub fn submit_extractive(self) -> Result<(), Error> {
        self.call.advance("submitExtractive", |_, phase| match phase {
            Phase::Summarize(s) => Answer::At(summarized(*s, |s| s.compaction.submit_extractive())),
            other => Answer::NotAt(other),
        })
    }
}

/// A round answered by `answer`: more summaries to ask for, or the compaction's outcome.
fn summarized(mut s: Summarizing, answer: impl FnOnce(&mut Summarizing) -> Result<(), Error>) -> Went<()> {
    s.run.first = false;
    if let Err(e) = answer(&mut s) {
        return (Phase::Load(s.at.rollback()), Err(e));
    }
    let Summarizing { at, run, compaction } = s;
    at.then(super::guarded::after_round(run, compaction))
}

/// [`Step::Finish`]'s handle.
pub struct FinishStep<'a> {
    call: &'a mut Call,
}

impl FinishStep<'_> {
    /// A compaction made without asking the summarizer (the breaker is open): its plan, for
    /// the `compactionStart` no summarize step sent.
    pub fn plan(&self) -> Option<CompactPlan> {
        match &self.call.phase {
            Phase::Finish(f) => match &**f {
                Finishing::Compaction { run, .. } => run.breaker_skip.as_ref().map(|(_, p)| CompactPlan {
                    budget: run.budget,
                    ..p.clone()
                }),
                _ => None,
            },
            _ => None,
        }
    }

    /// The caller's timings (planning, waiting for summaries, the whole call so far): the
    /// batch to write is made.
    pub fn finish(self, timings: Timings) -> Result<(), Error> {
        self.call.advance("finish", |core, phase| match phase {
            Phase::Finish(f) => Answer::At(super::finish::finish(core, *f, timings)),
            other => Answer::NotAt(other),
        })
    }
}

/// [`Step::Write`]'s handle.
pub struct WriteStep<'a> {
    call: &'a mut Call,
}

impl WriteStep<'_> {
    fn writing(&self) -> Option<&Writing> {
        match &self.call.phase {
            Phase::Write(w) => Some(w),
            _ => None,
        }
    }

    /// The stored version the write expects (0: none).
    pub fn expects(&self) -> u32 {
        self.writing().map_or(0, |w| w.expect)
    }

    /// What to write.
    pub fn batch(&self) -> Option<&WriteBatch> {
        self.writing().map(|w| &w.batch)
    }

    /// The write landed (a compaction's start is closed by the outcome's `compactionEnd`).
    pub fn written(self) -> Result<(), Error> {
        self.call.advance("written", |core, phase| match phase {
            Phase::Write(w) => {
                core.opened.landed();
                let Writing {
                    batch, done, cache, ..
                } = *w;
                let cache = cache.map(|mut c| {
                    c.meta = Some(batch.meta);
                    c
                });
                Answer::At((Phase::Done { cache, done }, Ok(())))
            }
            other => Answer::NotAt(other),
        })
    }

    /// The store refused the write (`found`: the version it holds, `None`: no
    /// conversation). The call starts over from [`Step::Load`], or fails with `STALE_WRITE`
    /// after its attempts. A compaction's start is closed first: its `compactionFailed`
    /// (`retried`) is queued for [`Call::due`] or [`Call::fail`].
    pub fn stale(self, found: Option<u32>) -> Result<(), Error> {
        self.call.advance("stale", |core, phase| match phase {
            Phase::Write(w) => {
                let closed = core.opened.fail(&core.id, true);
                core.queued.extend(closed);
                core.attempts += 1;
                let cache = cut_back(w.cache, w.clean, w.dirty);
                if core.attempts >= core.ctx.attempts {
                    let e = Error::StaleWrite {
                        id: core.id.clone(),
                        expected: w.expect,
                        found,
                        attempts: core.attempts,
                    };
                    return Answer::At((Phase::Load(cache), Err(e)));
                }
                Answer::At((Phase::Load(cache), Ok(())))
            }
            other => Answer::NotAt(other),
        })
    }
}
