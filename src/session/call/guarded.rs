//! A call's compaction under its guards (`session::guards`): planned, then suppressed when
//! a guard says so and the input fits without it; summarized by the summarizer, or by the
//! fallback while the circuit breaker is open.

use std::rc::Rc;

use super::{Kind, Next, Run, Work};
use crate::compact::state::Trigger;
use crate::compact::{Compaction, Reply, Setup};
use crate::config::{Fallback, Strategy};
use crate::session::guards::{self, BreakerChange, BreakerNote, GuardNotes, GuardState, Pressure};
use crate::Error;

impl Work<'_> {
    /// Plans the compaction over the cached history and the stored state.
    pub(super) fn start(&mut self, manual: bool, instructions: Option<String>) -> Result<Next, Error> {
        let (mut setup, ratio, budget, model, cold_cache) = self.setup(manual, instructions)?;
        let t = self.core.ctx.guards;
        let mut guards = (self.at.meta.as_ref())
            .map(|m| m.guards.clone())
            .unwrap_or_default();
        let mut notes = GuardNotes {
            cold_cache,
            ..GuardNotes::default()
        };
        let automatic = matches!(self.core.kind, Kind::Prepare { .. });
        if automatic {
            notes.backoff = guards.begin_turn(&t);
        }
        let resummarizes = setup.config.strategy == Strategy::Rolling
            && setup.state.as_ref().is_some_and(|s| !s.chunks.is_empty());
        let compaction = self.guarded(&mut setup, &mut guards, &mut notes, automatic, resummarizes)?;
        if self.at.assumed && !compaction.requests().is_empty() {
            // The summarizer is about to be asked: make sure of the history first.
            return Ok(Next::Reload);
        }
        let plan = compaction.plan();
        let span = guards::span(&plan.evict, plan.head_end, resummarizes);
        let head_end = plan.head_end;
        let breaker_skip = (!manual && setup.config.fallback != Fallback::Error)
            .then(|| guards.breaker_open(&t))
            .flatten()
            .filter(|_| !compaction.requests().is_empty())
            .map(|reason| (reason, compaction.plan().clone()));
        if let Some((reason, _)) = &breaker_skip {
            notes.breaker = Some(BreakerNote {
                change: BreakerChange::Skipped,
                failures: guards.breaker.failures,
                until_turn: guards.breaker.open_until,
                reason: reason.clone(),
            });
        }
        let run = Run {
            budget,
            ratio,
            model,
            strategy: setup.config.strategy,
            counter: setup.counting.counter,
            first: true,
            guards,
            notes,
            span,
            head_end,
            breaker_skip,
            asked: false,
        };
        after_round(run, compaction)
    }

    /// The compaction this call makes: the plan, unless it is an automatic compaction a guard
    /// suppresses and the input fits without it (then the plan with the threshold at the
    /// input budget, which compacts nothing).
    fn guarded(
        &mut self,
        setup: &mut Setup,
        guards: &mut GuardState,
        notes: &mut GuardNotes,
        automatic: bool,
        resummarizes: bool,
    ) -> Result<Compaction, Error> {
        let t = self.core.ctx.guards;
        let now = self.core.now.clone();
        let cache = &mut self.at.cache;
        let compaction = setup.start(Rc::clone(&cache.conv), &mut cache.memo, now.clone())?;
        if !automatic || compaction.plan().trigger != Some(Trigger::Threshold) {
            return Ok(compaction);
        }
        // At a threshold below the budget only: at the budget nothing is optional to skip.
        if setup.budget.threshold < setup.budget.input {
            if let Some(grew) = guards.refilled(&t) {
                notes.backoff = Some(grew);
            }
        }
        let plan = compaction.plan();
        let planned = guards::span(&plan.evict, plan.head_end, resummarizes);
        let pressure = Pressure {
            tokens: plan.tokens.total,
            threshold: setup.budget.threshold,
            input: setup.budget.input,
        };
        let Some(why) = guards.suppression(&t, &planned, now.as_deref(), pressure) else {
            return Ok(compaction);
        };
        // Optional only: with the threshold at the budget the engine compacts only an input
        // that does not fit.
        setup.budget.threshold = setup.budget.input;
        let lifted = setup.start(Rc::clone(&cache.conv), &mut cache.memo, now)?;
        if lifted.plan().trigger.is_some() {
            notes.overridden = Some(why);
            return Ok(compaction);
        }
        guards.suppressed(&why);
        notes.suppressed = Some(why);
        Ok(lifted)
    }
}

/// More summaries to ask for, or the compaction's outcome. While the breaker is open the
/// fallback answers every request (each as a failed reply, with the breaker's reason).
pub(super) fn after_round(run: Run, mut compaction: Compaction) -> Result<Next, Error> {
    loop {
        let pending = compaction.requests().len();
        if pending == 0 {
            break;
        }
        match &run.breaker_skip {
            Some((why, _)) => compaction.submit(vec![Reply::Failed(why.clone()); pending])?,
            None => return Ok(Next::Summarize(Box::new(run), Box::new(compaction))),
        }
    }
    let outcome = compaction.finish()?;
    Ok(Next::Finish(Box::new(run), Box::new(outcome)))
}

/// `/prune`'s knobs: the prune boundary moves now, up to the protected recent turns, for any
/// tool output piled up before them (the engine's own rule, without its pressure trigger);
/// and no compaction unless the input does not fit (then it must compact, as any `prepare`).
pub(super) fn prune_now(setup: &mut Setup) {
    let mut config = (*setup.config).clone();
    config.prune_ratio = 0.0;
    config.prune_threshold_tokens = Some(0);
    setup.config = Rc::new(config);
    setup.budget.threshold = setup.budget.input;
}
