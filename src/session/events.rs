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

/// One event, as its handlers get it (`type` is its name). `compactionFailed`'s `error` is
/// the face's to add: the error the call rejects with, or the store's `STALE_WRITE`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum Event {
    /// A compaction is about to call the summarizer (or, the breaker open, to use its fallback).
    CompactionStart {
        /// The conversation.
        conversation_id: String,
        /// What the compaction does, with the window's budget.
        plan: CompactPlan,
    },
    /// A compaction was stored.
    CompactionEnd {
        /// The conversation.
        conversation_id: String,
        /// Its record.
        record: CompactionRecord,
    },
    /// A started compaction did not land.
    CompactionFailed {
        /// The conversation.
        conversation_id: String,
        /// The write went stale and the call goes on (otherwise the call fails).
        retried: bool,
    },
    /// The prune boundary moved.
    Pruned {
        /// The conversation.
        conversation_id: String,
        /// The report's `pruned`.
        pruned: PruneReport,
        /// The pruned messages' tokens, whole and as sent.
        pruned_tokens: PrunedTokens,
        /// The input's tokens now.
        tokens_after: usize,
        /// The report's budget.
        budget: Budget,
    },
    /// A fallback stood in for a summary.
    Fallback {
        /// The conversation.
        conversation_id: String,
        /// Which, and why.
        fallback: FallbackUsed,
        /// The compaction's record, if one was stored.
        record: Option<CompactionRecord>,
    },
    /// A guard suppressed an automatic compaction.
    Suppressed {
        /// The conversation.
        conversation_id: String,
        /// Which guard, and why.
        suppressed: Suppression,
    },
    /// The back-off started, grew or ended.
    Backoff {
        /// The conversation.
        conversation_id: String,
        /// Its level and turns.
        backoff: BackoffNote,
        /// The compaction's record, if one was stored.
        record: Option<CompactionRecord>,
    },
    /// The circuit breaker opened.
    BreakerOpen {
        /// The conversation.
        conversation_id: String,
        /// The breaker's note.
        breaker: BreakerNote,
        /// The compaction's record, if one was stored.
        record: Option<CompactionRecord>,
    },
    /// The circuit breaker closed.
    BreakerClosed {
        /// The conversation.
        conversation_id: String,
        /// The breaker's note.
        breaker: BreakerNote,
        /// The compaction's record, if one was stored.
        record: Option<CompactionRecord>,
    },
}

impl Event {
    /// The event's name.
    pub fn name(&self) -> CompactorEventName {
        match self {
            Event::CompactionStart { .. } => CompactorEventName::CompactionStart,
            Event::CompactionEnd { .. } => CompactorEventName::CompactionEnd,
            Event::CompactionFailed { .. } => CompactorEventName::CompactionFailed,
            Event::Pruned { .. } => CompactorEventName::Pruned,
            Event::Fallback { .. } => CompactorEventName::Fallback,
            Event::Suppressed { .. } => CompactorEventName::Suppressed,
            Event::Backoff { .. } => CompactorEventName::Backoff,
            Event::BreakerOpen { .. } => CompactorEventName::BreakerOpen,
            Event::BreakerClosed { .. } => CompactorEventName::BreakerClosed,
        }
    }
}

/// The events of a `prepare`, `compact` or `prune` whose write landed (or that wrote
/// nothing), from its outcome, in order.
pub fn outcome_events(id: &str, outcome: &PrepareOutcome) -> Vec<Event> {
    let conversation_id = || id.to_owned();
    let record = &outcome.record;
    let report = &outcome.report;
    let mut out = Vec::new();
    if report.pruned.advanced {
        out.push(Event::Pruned {
            conversation_id: conversation_id(),
            pruned: report.pruned.clone(),
            pruned_tokens: outcome.pruned_tokens,
            tokens_after: report.tokens_after,
            budget: report.budget,
        });
    }
    if let Some(fallback) = &report.fallback {
        out.push(Event::Fallback {
            conversation_id: conversation_id(),
            fallback: fallback.clone(),
            record: record.clone(),
        });
    }
    let guards = &outcome.guards;
    if let Some(suppressed) = &guards.suppressed {
        out.push(Event::Suppressed {
            conversation_id: conversation_id(),
            suppressed: suppressed.clone(),
        });
    }
    if let Some(backoff) = &guards.backoff {
        out.push(Event::Backoff {
            conversation_id: conversation_id(),
            backoff: backoff.clone(),
            record: record.clone(),
        });
    }
    if let Some(breaker) = &guards.breaker {
        let (conversation_id, breaker, record) = (conversation_id(), breaker.clone(), record.clone());
        match breaker.change {
            BreakerChange::Opened => out.push(Event::BreakerOpen {
                conversation_id,
                breaker,
                record,
            }),
            BreakerChange::Closed => out.push(Event::BreakerClosed {
                conversation_id,
                breaker,
                record,
            }),
            BreakerChange::Skipped => {}
        }
    }
    if let Some(record) = record {
        out.push(Event::CompactionEnd {
            conversation_id: conversation_id(),
            record: record.clone(),
        });
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
    pub fn start(&mut self, id: &str, plan: CompactPlan) -> Option<Event> {
        if self.open {
            return None;
        }
        self.open = true;
        Some(Event::CompactionStart {
            conversation_id: id.to_owned(),
            plan,
        })
    }

    /// `compactionFailed` (`retried`: a stale write the call goes on from) for the start
    /// that is open, and none is open after it; nothing when none is open.
    pub fn fail(&mut self, id: &str, retried: bool) -> Option<Event> {
        if !std::mem::take(&mut self.open) {
            return None;
        }
        Some(Event::CompactionFailed {
            conversation_id: id.to_owned(),
            retried,
        })
    }

    /// The write landed: the outcome's `compactionEnd` (if any) closes the start.
    pub fn landed(&mut self) {
        self.open = false;
    }

    /// What a failure now would send (nothing is changed).
    pub fn owed(&self, id: &str) -> Option<Event> {
        self.open.then(|| Event::CompactionFailed {
            conversation_id: id.to_owned(),
            retried: false,
        })
    }
}
