//! The events a call owes its handlers as it goes (see [`crate::session::events`]): the
//! `compactionStart` due at the step it is at, and the `compactionFailed` that closes it
//! when the write goes stale or the call fails. The outcome's events come with the result.

use super::{Call, Kind, Step};
use crate::session::events::CompactorEvent;

impl Call {
    /// Whether this kind of call sends events (`prepare`, `compact`, `prune`).
    fn announces(&self) -> bool {
        matches!(
            self.core.kind,
            Kind::Prepare { .. } | Kind::Compact { .. } | Kind::Prune | Kind::Overflowed { .. }
        )
    }

    /// The events due now, in order: what the last answers queued (a stale write's
    /// `compactionFailed`), then the `compactionStart` of the step the call is at (its first
    /// summarizer round of an attempt, or the finish of a compaction the open breaker answered)
    /// unless one is open. Taken: asked again, they are not given again.
    pub fn due(&mut self) -> Vec<CompactorEvent> {
        let plan = match self.step() {
            Step::Summarize(s) if s.first() => s.plan(),
            Step::Finish(f) => f.plan(),
            _ => None,
        };
        let mut out = std::mem::take(&mut self.core.queued);
        if let Some(plan) = plan.filter(|_| self.announces()) {
            out.extend(self.core.opened.start(&self.core.id, plan));
        }
        out
    }

    /// The call fails: the `compactionFailed` that closes the start it sent, if one is open,
    /// after anything still queued.
    pub fn fail(&mut self) -> Vec<CompactorEvent> {
        let mut out = std::mem::take(&mut self.core.queued);
        out.extend(self.core.opened.fail(&self.core.id, false));
        out
    }

    /// What [`Call::fail`] would give now (the face keeps it for a call it can no longer
    /// reach: a restarted module).
    pub fn owed(&self) -> Option<CompactorEvent> {
        self.core.opened.owed(&self.core.id)
    }
}
