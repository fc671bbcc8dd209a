//! `compactWhenCold` in a call: the threshold a `prepare` compacts at when the provider's
//! cache has gone cold (see `session::when_cold`).

use super::{Kind, Work};
use crate::compact::types::Budget;
use crate::session::guards::clock::seconds_between;
use crate::session::when_cold::ColdCacheNote;

impl Work<'_> {
    /// A `prepare` after the provider's cache lifetime (`compactWhenCold`): the lower
    /// threshold it compacts at (in the provider's tokens, as `budget`), when it is lower.
    pub(super) fn cold_cache(&self, budget: &Budget) -> Option<ColdCacheNote> {
        let cold = self
            .core
            .ctx
            .cold
            .filter(|_| matches!(self.core.kind, Kind::Prepare { .. }))?;
        let last = self.at.meta.as_ref()?.updated_at.as_deref()?;
        let idle = seconds_between(last, self.core.now.as_deref()?)?;
        let threshold = (cold.ratio * budget.window as f64) as usize;
        (idle >= cold.ttl && threshold < budget.threshold).then_some(ColdCacheNote {
            idle_seconds: idle,
            threshold,
        })
    }
}
