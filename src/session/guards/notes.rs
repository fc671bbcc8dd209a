//! The guards' shapes: what the meta keeps ([`GuardState`]) and what a call or a record says
//! they did ([`GuardNotes`]).

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// What the guards keep in the meta (`meta.guards`; a meta stored before them reads as
/// this type's defaults).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", default)]
pub struct GuardState {
    /// `prepare` calls so far: the guards count turns in them.
    pub turn: u32,
    /// The latest compactions (at most 4), oldest first.
    pub recent: Vec<RecentCompaction>,
    /// The back-off.
    pub backoff: BackoffState,
    /// The circuit breaker.
    pub breaker: BreakerState,
    /// Automatic compactions suppressed since the latest compaction.
    pub suppressed: u32,
    /// The latest suppression.
    pub last_suppressed: Option<Suppression>,
}

/// A compaction, as the guards remember it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RecentCompaction {
    /// Its record's `seq`.
    pub seq: u32,
    /// The turn it was made in.
    pub turn: u32,
    /// When (ISO 8601, the caller's clock).
    pub at: Option<String>,
    /// The history indexes whose text its summarizer read, as `[from, to)` ranges.
    pub span: Vec<[usize; 2]>,
    /// Input tokens it freed.
    pub freed: usize,
    /// It freed at least `backoffFreedRatio` of the window.
    pub enough: bool,
    /// The input passed the threshold again within `backoffRefillTurns` after it.
    pub refilled: bool,
    /// Made by the threshold, not by `compact(id)`.
    pub automatic: bool,
    /// `undo` undid it: the input passing the threshold again after it is no refill (it
    /// still counts for the idempotency guard: redoing it at once is a repeat).
    #[serde(default)]
    pub undone: bool,
}

/// The back-off: level 0 is none.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", default)]
pub struct BackoffState {
    /// How many times it grew since it last ended.
    pub level: u32,
    /// Automatic compactions are skipped while the turn is below this.
    pub until: u32,
    /// Why it last grew.
    pub reason: Option<String>,
}

/// The circuit breaker: closed unless `openUntil` is set.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", default)]
pub struct BreakerState {
    /// Consecutive compactions whose summarizer failed.
    pub failures: u32,
    /// Open: compactions use the fallback without calling the summarizer while the turn is
    /// below this; from this turn on it is half-open (the next compaction calls it).
    pub open_until: Option<u32>,
    /// When it last opened (ISO 8601).
    pub opened_at: Option<String>,
}

/// Which guard suppressed a compaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum GuardKind {
    /// It would repeat a compaction made within the last `idempotencySeconds`.
    Idempotency,
    /// The back-off is skipping automatic compactions.
    Backoff,
}

/// An automatic compaction a guard suppressed (or, as `overridden`, would have suppressed
/// had the input fit the budget without it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Suppression {
    /// `idempotency` or `backoff`.
    pub guard: GuardKind,
    /// Why, in a sentence.
    pub reason: String,
    /// The input's tokens (ctxfold's count).
    pub tokens: usize,
    /// The threshold it passed.
    pub threshold: usize,
    /// The input budget (a suppressed input is at most this).
    pub input: usize,
    /// Idempotency: the `seq` of the compaction it would repeat.
    pub of: Option<u32>,
    /// Idempotency: the share of that compaction's span it covers.
    pub coverage: Option<f64>,
    /// Idempotency: seconds since that compaction.
    pub seconds: Option<f64>,
    /// Back-off: the turn from which automatic compactions run again.
    pub until_turn: Option<u32>,
}

/// The back-off started, grew (`level` > 0) or ended (`level` 0).
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct BackoffNote {
    /// Its level now (0: ended).
    pub level: u32,
    /// Turns it skips automatic compactions for (0: ended).
    pub turns: u32,
    /// The turn from which automatic compactions run again.
    pub until_turn: u32,
    /// Why, in a sentence.
    pub reason: String,
}

/// What the circuit breaker did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum BreakerChange {
    /// It opened (or opened again after a failed try): a `breakerOpen` event.
    Opened,
    /// A summarizer call succeeded with it open: a `breakerClosed` event.
    Closed,
    /// It is open: this compaction used the fallback without calling the summarizer.
    Skipped,
}

/// The circuit breaker on a call.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct BreakerNote {
    /// `opened`, `closed` or `skipped`.
    pub change: BreakerChange,
    /// Consecutive summarizer failures.
    pub failures: u32,
    /// While open: the turn from which the summarizer is tried again.
    pub until_turn: Option<u32>,
    /// Why, in a sentence.
    pub reason: String,
}

/// What the guards did on a call (`prepare`'s outcome) or a compaction (its record).
#[derive(Clone, Debug, Default, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct GuardNotes {
    /// The automatic compaction a guard suppressed on this call (none ran; the input passed
    /// the threshold but fits the budget): a `suppressed` event.
    pub suppressed: Option<Suppression>,
    /// The guard that would have suppressed this compaction had the input fit the budget:
    /// it ran, since a guard never makes an input exceed the budget.
    pub overridden: Option<Suppression>,
    /// The back-off started, grew or ended: a `backoff` event.
    pub backoff: Option<BackoffNote>,
    /// The circuit breaker opened, closed, or stood in for the summarizer.
    pub breaker: Option<BreakerNote>,
    /// Automatic compactions the guards suppressed between the previous compaction and this
    /// one (records only).
    pub suppressed_before: u32,
    /// The provider's prompt cache was cold (`compactWhenCold`): the threshold was lowered.
    pub cold_cache: Option<crate::session::when_cold::ColdCacheNote>,
}
