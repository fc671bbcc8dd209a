//! The events a `Compactor` sends, decided here: which fire for a call, in what order, with
//! what in them. The face only hands each to the handlers of its name.
//!
//! A compaction's `compactionStart` is due when the call first asks the summarizer in an
//! attempt (or, with the breaker open, when it finishes without asking); from then on the
//! call owes one closing event: `compactionEnd` once its write landed, or `compactionFailed`
//! when the write went stale (`retried`: the call goes on, and may start again) or the call
//! fails. After the write, the outcome's events come in this order: `pruned`, `fallback`,
//! `suppressed`, `backoff`, `breakerOpen` or `breakerClosed`, `compactionEnd`.

use serde::Serialize;
use ts_rs::TS;

use super::guards::{BackoffNote, BreakerChange, BreakerNote, Suppression};
use super::stored::{CompactionRecord, PrepareOutcome, PrunedTokens};
use crate::compact::state::FallbackUsed;
use crate::compact::types::{Budget, PruneReport};
use crate::compact::CompactPlan;

/// The name of a `Compactor` event (`on(name, handler)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum CompactorEventName {
    /// A compaction is about to call the summarizer.
    CompactionStart,
    /// A compaction was stored.
    CompactionEnd,
    /// A compaction whose start was sent did not land.
    CompactionFailed,
    /// The prune boundary moved.
    Pruned,
    /// A fallback stood in for a summary.
    Fallback,
    /// A guard suppressed an automatic compaction.
    Suppressed,
    /// The back-off started, grew or ended.
    Backoff,
    /// The circuit breaker opened.
    BreakerOpen,
    /// The circuit breaker closed.
    BreakerClosed,
}

impl CompactorEventName {
    /// Every event, in the order the docs list them.
    pub const ALL: [CompactorEventName; 9] = [
        CompactorEventName::CompactionStart,
        CompactorEventName::CompactionEnd,
        CompactorEventName::CompactionFailed,
        CompactorEventName::Pruned,
        CompactorEventName::Fallback,
        CompactorEventName::Suppressed,
        CompactorEventName::Backoff,
        CompactorEventName::BreakerOpen,
        CompactorEventName::BreakerClosed,
    ];

    /// The name as JavaScript spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            CompactorEventName::CompactionStart => "compactionStart",
            CompactorEventName::CompactionEnd => "compactionEnd",
            CompactorEventName::CompactionFailed => "compactionFailed",
            CompactorEventName::Pruned => "pruned",
            CompactorEventName::Fallback => "fallback",
            CompactorEventName::Suppressed => "suppressed",
            CompactorEventName::Backoff => "backoff",
            CompactorEventName::BreakerOpen => "breakerOpen",
            CompactorEventName::BreakerClosed => "breakerClosed",
        }
    }
}

/// One event of a `Compactor`, as its handlers get it (`type` is its name: `notify` and
/// `sse` read it).
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum CompactorEvent {
    /// `compactionStart`.
    CompactionStart(CompactionStartEvent),
    /// `compactionEnd`.
    CompactionEnd(CompactionEndEvent),
    /// `compactionFailed`.
    CompactionFailed(CompactionFailedEvent),
    /// `pruned`.
    Pruned(PrunedEvent),
    /// `fallback`.
    Fallback(FallbackEvent),
    /// `suppressed`.
    Suppressed(SuppressedEvent),
    /// `backoff`.
    Backoff(BackoffEvent),
    /// `breakerOpen`.
    BreakerOpen(BreakerOpenEvent),
    /// `breakerClosed`.
    BreakerClosed(BreakerClosedEvent),
}

/// A compaction is about to call the summarizer, or, the breaker open, to use its fallback
/// (show progress).
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CompactionStartEvent {
    /// The conversation.
    pub conversation_id: String,
    /// What the compaction does, with the window's budget.
    pub plan: CompactPlan,
}

/// A compaction was stored: its record.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CompactionEndEvent {
    /// The conversation.
    pub conversation_id: String,
    /// Its record.
    pub record: CompactionRecord,
}

/// A compaction whose `compactionStart` was sent did not land. `retried`: another writer got
/// there first (`error` is the `STALE_WRITE`) and the call goes on from what it wrote, which
/// may compact again (another `compactionStart`); otherwise the call rejects with `error` (a
/// manual `compact` whose summarizer failed, a store error). Every `compactionStart` is
/// followed by one `compactionEnd` or one `compactionFailed`.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CompactionFailedEvent {
    /// The conversation.
    pub conversation_id: String,
    /// The write went stale and the call goes on (otherwise the call fails).
    pub retried: bool,
    /// The error the call rejects with, or the store's `STALE_WRITE` when `retried` (a
    /// JavaScript value: the face puts it here, the core has none to give).
    #[ts(type = "unknown")]
    pub error: (),
}

/// The prune boundary moved: old tool outputs were shortened.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PrunedEvent {
    /// The conversation.
    pub conversation_id: String,
    /// The report's `pruned`.
    pub pruned: PruneReport,
    /// The pruned messages' tokens, whole and as sent.
    pub pruned_tokens: PrunedTokens,
    /// The input's tokens now.
    pub tokens_after: usize,
    /// The report's budget.
    pub budget: Budget,
}

/// A fallback stood in for a summary the summarizer did not give.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct FallbackEvent {
    /// The conversation.
    pub conversation_id: String,
    /// Which, and why.
    pub fallback: FallbackUsed,
    /// The compaction's record, if one was stored.
    pub record: Option<CompactionRecord>,
}

/// A guard suppressed an automatic compaction the input did not need (it passed the
/// threshold but fits the budget): the idempotency guard (a repeat of one made within
/// `idempotencySeconds`) or the back-off.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SuppressedEvent {
    /// The conversation.
    pub conversation_id: String,
    /// Which guard, and why.
    pub suppressed: Suppression,
}

/// The back-off started or grew (`backoff.level` > 0: automatic compactions are skipped for
/// `backoff.turns` turns), or ended (`level` 0).
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct BackoffEvent {
    /// The conversation.
    pub conversation_id: String,
    /// Its level and turns.
    pub backoff: BackoffNote,
    /// The compaction's record, if one was stored.
    pub record: Option<CompactionRecord>,
}

/// The circuit breaker opened: compactions use the fallback without calling the summarizer
/// until turn `breaker.untilTurn`.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct BreakerOpenEvent {
    /// The conversation.
    pub conversation_id: String,
    /// The breaker's note.
    pub breaker: BreakerNote,
    /// The compaction's record, if one was stored.
    pub record: Option<CompactionRecord>,
}

/// A summarizer call succeeded after the breaker had opened: it is closed.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct BreakerClosedEvent {
    /// The conversation.
    pub conversation_id: String,
    /// The breaker's note.
    pub breaker: BreakerNote,
    /// The compaction's record, if one was stored.
    pub record: Option<CompactionRecord>,
}
impl CompactorEvent {
    /// The event's name.
    pub fn name(&self) -> CompactorEventName {
        match self {
            CompactorEvent::CompactionStart(_) => CompactorEventName::CompactionStart,
            CompactorEvent::CompactionEnd(_) => CompactorEventName::CompactionEnd,
            CompactorEvent::CompactionFailed(_) => CompactorEventName::CompactionFailed,
            CompactorEvent::Pruned(_) => CompactorEventName::Pruned,
            CompactorEvent::Fallback(_) => CompactorEventName::Fallback,
            CompactorEvent::Suppressed(_) => CompactorEventName::Suppressed,
            CompactorEvent::Backoff(_) => CompactorEventName::Backoff,
            CompactorEvent::BreakerOpen(_) => CompactorEventName::BreakerOpen,
            CompactorEvent::BreakerClosed(_) => CompactorEventName::BreakerClosed,
        }
    }
}

/// The events of a `prepare`, `compact` or `prune` whose write landed (or that wrote
/// nothing), from its outcome, in order.
pub fn outcome_events(id: &str, outcome: &PrepareOutcome) -> Vec<CompactorEvent> {
    let conversation_id = || id.to_owned();
    let record = &outcome.record;
    let report = &outcome.report;
    let mut out = Vec::new();
    if report.pruned.advanced {
        out.push(CompactorEvent::Pruned(PrunedEvent {
            conversation_id: conversation_id(),
            pruned: report.pruned.clone(),
            pruned_tokens: outcome.pruned_tokens,
            tokens_after: report.tokens_after,
            budget: report.budget,
        }));
    }
    if let Some(fallback) = &report.fallback {
        out.push(CompactorEvent::Fallback(FallbackEvent {
            conversation_id: conversation_id(),
            fallback: fallback.clone(),
            record: record.clone(),
        }));
    }
    let guards = &outcome.guards;
    if let Some(suppressed) = &guards.suppressed {
        out.push(CompactorEvent::Suppressed(SuppressedEvent {
            conversation_id: conversation_id(),
            suppressed: suppressed.clone(),
        }));
    }
    if let Some(backoff) = &guards.backoff {
        out.push(CompactorEvent::Backoff(BackoffEvent {
            conversation_id: conversation_id(),
            backoff: backoff.clone(),
            record: record.clone(),
        }));
    }
    if let Some(breaker) = &guards.breaker {
        let (conversation_id, breaker, record) = (conversation_id(), breaker.clone(), record.clone());
        match breaker.change {
            BreakerChange::Opened => out.push(CompactorEvent::BreakerOpen(BreakerOpenEvent {
                conversation_id,
                breaker,
                record,
            })),
            BreakerChange::Closed => out.push(CompactorEvent::BreakerClosed(BreakerClosedEvent {
                conversation_id,
                breaker,
                record,
            })),
            BreakerChange::Skipped => {}
        }
    }
    if let Some(record) = record {
        out.push(CompactorEvent::CompactionEnd(CompactionEndEvent {
            conversation_id: conversation_id(),
            record: record.clone(),
        }));
    }
    out
}

/// Whether a compaction's start was sent and not closed yet: what a call owes its handlers.
#[derive(Clone, Debug, Default)]
pub struct Opened {
    open: bool,
}

impl Opened {
    /// `compactionStart` with `plan`, unless one is open already (then nothing).
    pub fn start(&mut self, id: &str, plan: CompactPlan) -> Option<CompactorEvent> {
        if self.open {
            return None;
        }
        self.open = true;
        Some(CompactorEvent::CompactionStart(CompactionStartEvent {
            conversation_id: id.to_owned(),
            plan,
        }))
    }

    /// `compactionFailed` (`retried`: a stale write the call goes on from) for the start
    /// that is open, and none is open after it; nothing when none is open.
    pub fn fail(&mut self, id: &str, retried: bool) -> Option<CompactorEvent> {
        if !std::mem::take(&mut self.open) {
            return None;
        }
        Some(CompactorEvent::CompactionFailed(CompactionFailedEvent {
            conversation_id: id.to_owned(),
            retried,
            error: (),
        }))
    }

    /// The write landed: the outcome's `compactionEnd` (if any) closes the start.
    pub fn landed(&mut self) {
        self.open = false;
    }

    /// What a failure now would send (nothing is changed).
    pub fn owed(&self, id: &str) -> Option<CompactorEvent> {
        self.open.then(|| {
            CompactorEvent::CompactionFailed(CompactionFailedEvent {
                conversation_id: id.to_owned(),
                retried: false,
                error: (),
            })
        })
    }
}
