//! The guards of a `Compactor`: what keeps it from compacting the same span twice, from
//! compacting again and again when compacting does not help, and from waiting on a
//! summarizer that keeps failing. Their state is kept in the conversation's meta
//! ([`GuardState`], `meta.guards`), so it holds across reloads, tabs and isolates; what they
//! did on a call is its outcome's `guards` ([`GuardNotes`]), and a compaction's record's.
//!
//! A **turn** is a `prepare` (one model call): the back-off and the breaker count turns, so
//! they need no clock. The idempotency guard's 60 s are the caller's clock: the `now` each
//! call carries ([`clock`]); a call without one is never suppressed by it.
//!
//! - **Idempotency** (seed 001). A compaction's *span* is the set of history indexes whose
//!   text its summarizer reads: the messages it evicts (its record's `evicted`); for a
//!   compaction that re-summarizes the summaries in force (the `rolling` strategy once
//!   summaries exist, or a fold) also every message from where the summarized history starts
//!   (the first message after the head) to its last evicted one. A span is kept as `[from,
//!   to)` ranges. An automatic compaction whose span holds at least `idempotencyCoverage`
//!   (70 %) of the messages of the span of a compaction made within the last
//!   `idempotencySeconds` (60 s) is suppressed: re-summarizing what was just summarized
//!   changes nothing. It happens after an `undo` (the threshold would redo the compaction
//!   just undone: the undo sticks for 60 s), or with `rolling` when the input refills fast.
//! - **Back-off.** It starts (or grows) when an automatic compaction frees less than
//!   `backoffFreedRatio` (10 %) of the window, or when the input passes the threshold again
//!   within `backoffRefillTurns` (2) turns of a compaction: automatic compactions are then
//!   skipped for `backoffTurns` (2) turns, twice as many each time it grows, at most
//!   `backoffMaxTurns` (32). It ends when a compaction freed enough and the input stayed
//!   under the threshold for more than `backoffRefillTurns` turns after it.
//! - **Neither makes an input exceed the budget.** They suppress only an *optional*
//!   compaction: one whose input passed the threshold but fits the input budget (the call
//!   plans again with the threshold at the budget; the engine then compacts only what does
//!   not fit). When the input does not fit, the compaction runs and its record says which
//!   guard it overrode (`guards.overridden`). With the default threshold (the input budget
//!   itself) every automatic compaction is one whose input does not fit, so the guards
//!   suppress only with a lower `thresholdRatio` (or `tokenFloor`); and the back-off, which
//!   would have nothing to skip, does not start.
//! - **Circuit breaker.** A compaction whose summarizer calls failed (a rejection, a
//!   timeout, a reply that is not a summary: the fallback stood in) counts a failure; one
//!   whose summaries were all used resets the count. After `breakerFailures` (3) failures in
//!   a row the breaker opens: for `breakerCooldownTurns` (10) turns an automatic compaction
//!   uses the fallback without calling the summarizer (its record's `fallback.reason` says
//!   so). Then it is half-open: the next compaction calls the summarizer; success closes the
//!   breaker, failure opens it for another cool-down. A manual compaction always calls the
//!   summarizer (and a failure there is an error, as ever, not counted); its success closes
//!   the breaker too. With `fallback: "error"` a failure is the caller's error, never
//!   counted, so the breaker never opens.

pub mod clock;
mod notes;

use serde::Deserialize;
use ts_rs::TS;

use crate::options::{present, Int, Ratio};
pub use notes::{
    BackoffNote, BackoffState, BreakerChange, BreakerNote, BreakerState, GuardKind, GuardNotes, GuardState,
    RecentCompaction, Suppression,
};

/// How many compactions the guard state remembers.
const RECENT: usize = 4;

/// `guards` of a `Compactor`: each guard's knobs (`0` turns a guard off where it says so).
#[derive(Clone, Debug, Default, Deserialize, TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(optional_fields)]
pub struct GuardOptions {
    /// An automatic compaction is suppressed when it repeats one made this many seconds ago
    /// or less (the caller's clock). Default 60; 0 turns the idempotency guard off.
    #[serde(default, deserialize_with = "present")]
    pub idempotency_seconds: Option<Int<0, 86_400>>,
    /// The share of that compaction's span the new one must cover to be a repeat. Default 0.7.
    #[serde(default, deserialize_with = "present")]
    pub idempotency_coverage: Option<Ratio>,
    /// A compaction freeing less than this share of the window starts (or grows) the
    /// back-off. Default 0.1.
    #[serde(default, deserialize_with = "present")]
    pub backoff_freed_ratio: Option<Ratio>,
    /// The input passing the threshold again within this many turns of a compaction starts
    /// (or grows) the back-off. Default 2; 0: refills do not.
    #[serde(default, deserialize_with = "present")]
    pub backoff_refill_turns: Option<Int<0, 1000>>,
    /// Turns without automatic compactions when the back-off starts, doubling each time it
    /// grows. Default 2; 0 turns the back-off off.
    #[serde(default, deserialize_with = "present")]
    pub backoff_turns: Option<Int<0, 1000>>,
    /// The most turns the back-off skips. Default 32.
    #[serde(default, deserialize_with = "present")]
    pub backoff_max_turns: Option<Int<1, 100_000>>,
    /// Consecutive summarizer failures that open the circuit breaker. Default 3; 0 turns it
    /// off.
    #[serde(default, deserialize_with = "present")]
    pub breaker_failures: Option<Int<0, 1000>>,
    /// Turns the breaker stays open (compactions use the fallback without calling the
    /// summarizer) before one call tries the summarizer again. Default 10.
    #[serde(default, deserialize_with = "present")]
    pub breaker_cooldown_turns: Option<Int<1, 100_000>>,
}

/// [`GuardOptions`] with the defaults filled in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tuning {
    pub idempotency_seconds: u32,
    pub idempotency_coverage: f64,
    pub backoff_freed_ratio: f64,
    pub backoff_refill_turns: u32,
    pub backoff_turns: u32,
    pub backoff_max_turns: u32,
    pub breaker_failures: u32,
    pub breaker_cooldown_turns: u32,
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning::new(&GuardOptions::default())
    }
}

impl Tuning {
    /// The options' values, or the defaults.
    pub fn new(o: &GuardOptions) -> Tuning {
        let int = |v: Option<usize>, default: u32| v.map_or(default, |v| v as u32);
        Tuning {
            idempotency_seconds: int(o.idempotency_seconds.map(Int::get), 60),
            idempotency_coverage: o.idempotency_coverage.map_or(0.7, |r| r.0),
            backoff_freed_ratio: o.backoff_freed_ratio.map_or(0.1, |r| r.0),
            backoff_refill_turns: int(o.backoff_refill_turns.map(Int::get), 2),
            backoff_turns: int(o.backoff_turns.map(Int::get), 2),
            backoff_max_turns: int(o.backoff_max_turns.map(Int::get), 32),
            breaker_failures: int(o.breaker_failures.map(Int::get), 3),
            breaker_cooldown_turns: int(o.breaker_cooldown_turns.map(Int::get), 10),
        }
    }
}

/// A span: the history indexes a summarizer read, as sorted, disjoint `[from, to)` ranges.
pub type Span = Vec<[usize; 2]>;

/// The span of a compaction (see the module's doc) evicting `evict`; with `resummarizes`, the
/// history from `head_end` up to its last evicted message too.
pub fn span(evict: &[usize], head_end: usize, resummarizes: bool) -> Span {
    let mut sorted = evict.to_vec();
    sorted.sort_unstable();
    let mut out: Span = Vec::new();
    for i in sorted {
        match out.last_mut() {
            Some(r) if r[1] >= i => r[1] = r[1].max(i + 1),
            _ => out.push([i, i + 1]),
        }
    }
    match (resummarizes, out.last()) {
        (true, Some(&[_, hi])) if head_end < hi => widen(&out, head_end),
        _ => out,
    }
}

/// `span` with everything from `from` to its end: what a compaction that re-summarizes the
/// summaries in force (a fold) read.
pub fn widen(span: &[[usize; 2]], from: usize) -> Span {
    let Some(&[_, hi]) = span.last() else {
        return Vec::new();
    };
    let before: Span = span.iter().copied().filter(|r| r[1] <= from).collect();
    let lo = span
        .iter()
        .map(|r| r[0])
        .filter(|&l| l >= from)
        .min()
        .unwrap_or(from)
        .min(from);
    let mut out = before;
    out.push([lo, hi]);
    out
}

/// The share of `old` that `new` covers.
pub fn coverage(new: &[[usize; 2]], old: &[[usize; 2]]) -> f64 {
    let len: usize = old.iter().map(|r| r[1].saturating_sub(r[0])).sum();
    if len == 0 {
        return 0.0;
    }
    let overlap: usize = (old.iter())
        .flat_map(|o| {
            new.iter()
                .map(move |n| n[1].min(o[1]).saturating_sub(n[0].max(o[0])))
        })
        .sum();
    overlap as f64 / len as f64
}

/// The input a suppression is about: its tokens, the threshold and the budget (ctxfold's
/// counts).
#[derive(Clone, Copy, Debug)]
pub struct Pressure {
    pub tokens: usize,
    pub threshold: usize,
    pub input: usize,
}

impl GuardState {
    /// A `prepare` begins: the turn advances, and a back-off whose latest compaction held
    /// ends.
    pub fn begin_turn(&mut self, t: &Tuning) -> Option<BackoffNote> {
        self.turn += 1;
        if self.backoff.level == 0 || self.turn < self.backoff.until {
            return None;
        }
        let last = self.recent.last()?;
        if !last.enough || last.refilled || last.undone || self.turn <= last.turn + t.backoff_refill_turns {
            return None;
        }
        let reason = format!(
            "compaction #{} freed {} tokens and the input stayed under the threshold for {} turns after it: automatic compactions run at the threshold again",
            last.seq,
            last.freed,
            self.turn - last.turn - 1
        );
        self.backoff = BackoffState::default();
        Some(BackoffNote {
            level: 0,
            turns: 0,
            until_turn: self.turn,
            reason,
        })
    }

    /// The input of this `prepare` passed the threshold: a refill when it comes within
    /// `backoffRefillTurns` of the latest compaction (while no back-off is skipping turns).
    pub fn refilled(&mut self, t: &Tuning) -> Option<BackoffNote> {
        if t.backoff_turns == 0 || t.backoff_refill_turns == 0 || self.skipping() {
            return None;
        }
        let turn = self.turn;
        let last = self.recent.last_mut()?;
        let since = turn.checked_sub(last.turn)?;
        if since > t.backoff_refill_turns || last.refilled || last.undone {
            return None;
        }
        last.refilled = true;
        let why = format!(
            "the input passed the threshold again {since} turn{} after compaction #{}",
            if since == 1 { "" } else { "s" },
            last.seq
        );
        Some(self.grow(t, turn, why))
    }

    /// Whether the back-off skips automatic compactions this turn.
    pub fn skipping(&self) -> bool {
        self.turn < self.backoff.until
    }

    /// The back-off grows: `first` is the first turn it skips.
    fn grow(&mut self, t: &Tuning, first: u32, why: String) -> BackoffNote {
        self.backoff.level += 1;
        let turns = (u64::from(t.backoff_turns) << (self.backoff.level - 1).min(20))
            .min(u64::from(t.backoff_max_turns)) as u32;
        self.backoff.until = first + turns;
        let reason = format!(
            "{why}: automatic compactions skipped for {turns} turn{} (back-off level {}), unless the input does not fit",
            if turns == 1 { "" } else { "s" },
            self.backoff.level
        );
        self.backoff.reason = Some(reason.clone());
        BackoffNote {
            level: self.backoff.level,
            turns,
            until_turn: self.backoff.until,
            reason,
        }
    }

    /// Why an automatic compaction of `planned` (its span) is to be suppressed now, if it is.
    pub fn suppression(
        &self,
        t: &Tuning,
        planned: &[[usize; 2]],
        now: Option<&str>,
        p: Pressure,
    ) -> Option<Suppression> {
        let base = Suppression {
            guard: GuardKind::Idempotency,
            reason: String::new(),
            tokens: p.tokens,
            threshold: p.threshold,
            input: p.input,
            of: None,
            coverage: None,
            seconds: None,
            until_turn: None,
        };
        if let (false, Some(now), true) = (planned.is_empty(), now, t.idempotency_seconds > 0) {
            for r in self.recent.iter().rev() {
                let Some(seconds) = r.at.as_deref().and_then(|at| clock::seconds_between(at, now)) else {
                    continue;
                };
                // A clock behind the one that wrote the record reads as "just now".
                let seconds = seconds.max(0.0);
                let cov = coverage(planned, &r.span);
                if seconds < f64::from(t.idempotency_seconds) && cov >= t.idempotency_coverage {
                    return Some(Suppression {
                        reason: format!(
                            "this compaction would summarize {:.0} % of what compaction #{} summarized {:.0} s ago",
                            cov * 100.0,
                            r.seq,
                            seconds
                        ),
                        of: Some(r.seq),
                        coverage: Some(cov),
                        seconds: Some(seconds),
                        ..base
                    });
                }
            }
        }
        self.skipping().then(|| Suppression {
            guard: GuardKind::Backoff,
            reason: format!(
                "backing off until turn {} (this is turn {}): {}",
                self.backoff.until,
                self.turn,
                self.backoff
                    .reason
                    .as_deref()
                    .unwrap_or("compactions did not help")
            ),
            until_turn: Some(self.backoff.until),
            ..base
        })
    }

    /// `undo` undid compaction `seq`.
    pub fn undone(&mut self, seq: u32) {
        if let Some(r) = self.recent.iter_mut().find(|r| r.seq == seq) {
            r.undone = true;
        }
    }

    /// A compaction was suppressed: counted (the next record says how many), kept.
    pub fn suppressed(&mut self, s: &Suppression) {
        self.suppressed += 1;
        self.last_suppressed = Some(s.clone());
    }

    /// The breaker's reason to skip the summarizer now, when it is open.
    pub fn breaker_open(&self, t: &Tuning) -> Option<String> {
        let until = self
            .breaker
            .open_until
            .filter(|&u| t.breaker_failures > 0 && self.turn < u)?;
        Some(format!(
            "circuit breaker open after {} consecutive summarizer failures: the summarizer is not called until turn {until} (this is turn {})",
            self.breaker.failures, self.turn
        ))
    }

    /// A compaction was made (record `seq`): remembered, and the back-off and the breaker
    /// updated. Returns what they did.
    pub fn compacted(&mut self, t: &Tuning, c: &Compacted) -> (Option<BackoffNote>, Option<BreakerNote>) {
        let enough = c.freed as f64 >= t.backoff_freed_ratio * c.window as f64;
        self.recent.push(RecentCompaction {
            seq: c.seq,
            turn: self.turn,
            at: c.at.clone(),
            span: c.span.clone(),
            freed: c.freed,
            enough,
            refilled: false,
            automatic: c.automatic,
            undone: false,
        });
        if self.recent.len() > RECENT {
            self.recent.remove(0);
        }
        self.suppressed = 0;
        let backoff = (c.automatic && c.optional && !enough && t.backoff_turns > 0).then(|| {
            let why = format!(
                "compaction #{} freed {} tokens, {:.1} % of the window (less than {:.0} %)",
                c.seq,
                c.freed,
                100.0 * c.freed as f64 / c.window.max(1) as f64,
                100.0 * t.backoff_freed_ratio
            );
            self.grow(t, self.turn + 1, why)
        });
        (backoff, self.breaker_after(t, c))
    }

    /// The breaker after a compaction that called the summarizer (`c.asked`).
    fn breaker_after(&mut self, t: &Tuning, c: &Compacted) -> Option<BreakerNote> {
        if !c.asked {
            return None;
        }
        let b = &mut self.breaker;
        match &c.failure {
            None => {
                b.failures = 0;
                b.open_until.take().map(|_| BreakerNote {
                    change: BreakerChange::Closed,
                    failures: 0,
                    until_turn: None,
                    reason: format!(
                        "compaction #{}'s summarizer call succeeded: the breaker is closed",
                        c.seq
                    ),
                })
            }
            Some(why) => {
                b.failures += 1;
                let probe = b.open_until.is_some();
                if t.breaker_failures == 0 || (!probe && b.failures < t.breaker_failures) {
                    return None;
                }
                let until = self.turn + t.breaker_cooldown_turns;
                b.open_until = Some(until);
                b.opened_at.clone_from(&c.at);
                Some(BreakerNote {
                    change: BreakerChange::Opened,
                    failures: b.failures,
                    until_turn: Some(until),
                    reason: format!(
                        "{} ({} consecutive summarizer failures; the latest: {why}): the fallback stands in without calling the summarizer until turn {until}",
                        if probe { "the summarizer failed again after the cool-down" } else { "the summarizer keeps failing" },
                        b.failures
                    ),
                })
            }
        }
    }
}

/// What [`GuardState::compacted`] needs to know of a compaction.
#[derive(Clone, Debug)]
pub struct Compacted {
    pub seq: u32,
    /// Made by the threshold (or a `prune` that had to compact), not by `compact(id)`.
    pub automatic: bool,
    pub span: Span,
    /// Input tokens before less after.
    pub freed: usize,
    /// The threshold is below the input budget: there are compactions the back-off could
    /// skip (at the default threshold, the budget itself, there are none, and it never starts).
    pub optional: bool,
    pub window: usize,
    pub at: Option<String>,
    /// The summarizer was called (not the built-in extractive summary, nor the breaker's
    /// fallback).
    pub asked: bool,
    /// Why the fallback stood in, when it did.
    pub failure: Option<String>,
}

#[cfg(test)]
mod tests;
