//! The end of a call: the batch it writes (the history it appended, the summaries and the
//! record a compaction made, the next meta), and what it returns; `status`, which writes
//! nothing. The usage correction's arithmetic ([`corrected`]) is here too.

use std::rc::Rc;

use serde_json::Value;

use super::load::Went;
use super::{Core, Done, Finishing, Kind, Next, Phase, Piece, Prepared, Run, Work, Writing};
use crate::compact::state::Trigger;
use crate::compact::types::{Budget, ContextStatus, PlanTokens, Timings};
use crate::compact::{summary, CompactOutcome, CompactState, SummaryChunk};
use crate::config::Strategy;
use crate::messages::Out;
use crate::session::cached::Cached;
use crate::session::guards::{self, Compacted, GuardNotes, GuardState};
use crate::session::stored::{
    first_version, CommitOutcome, CompactionRecord, ConversationStatus, InputEstimate, LastCompaction,
    LastInput, PrepareOutcome, PrunedTokens, StoredMeta, StoredSummary, UndoOutcome, UndoPoint, WriteBatch,
    META_SCHEMA,
};
use crate::session::usage;
use crate::Error;

/// The finish step: the batch to write (or, for a compaction that changes nothing, the
/// result), made with the caller's timings.
pub(super) fn finish(core: &Core, finishing: Finishing, timings: Timings) -> Went<()> {
    match finishing {
        Finishing::Compaction { mut at, run, outcome } => {
            let next = Work { core, at: &mut at }.finish_compaction(*run, *outcome, timings);
            at.then(next)
        }
        Finishing::Commit { mut at, usage } => {
            let next = Work { core, at: &mut at }.finish_commit(usage);
            at.then(next)
        }
        Finishing::Undo { meta, undo, cache } => (finish_undo(core, meta, undo, cache), Ok(())),
    }
}

impl Core {
    /// The meta a call starts from: the stored one, or a new conversation's.
    fn base_meta(&self, stored: Option<&StoredMeta>) -> StoredMeta {
        stored.cloned().unwrap_or_else(|| StoredMeta {
            schema: META_SCHEMA,
            id: self.id.clone(),
            // The next meta has this plus one.
            version: first_version(&self.fresh_epoch) - 1,
            epoch: self.fresh_epoch.clone(),
            length: 0,
            format: crate::messages::MessageFormat::OpenAiChat,
            system: None,
            tools: None,
            state: CompactState {
                version: crate::compact::state::VERSION,
                ..CompactState::default()
            },
            undo: None,
            compactions: 0,
            summaries: 0,
            undone: Vec::new(),
            last_input: None,
            anchors: Vec::new(),
            last_compaction: None,
            created_at: self.now.clone(),
            updated_at: None,
            guards: GuardState::default(),
        })
    }
}

impl Work<'_> {
    /// The meta this call starts from: the stored one, or a new conversation's.
    fn base_meta(&self) -> StoredMeta {
        self.core.base_meta(self.at.meta.as_ref())
    }

    /// The meta after this call: the next version, the history as cached now.
    fn next_meta(&self) -> StoredMeta {
        let mut meta = self.base_meta();
        let cache = &self.at.cache;
        meta.version += 1;
        meta.schema = META_SCHEMA;
        meta.length = cache.len();
        meta.format = cache.conv.format();
        meta.system = cache.around.system.clone();
        meta.tools = cache.around.tools.clone();
        meta.updated_at = self.core.now.clone();
        meta
    }

    fn finish_compaction(
        &mut self,
        run: Run,
        mut outcome: CompactOutcome,
        timings: Timings,
    ) -> Result<Next, Error> {
        let old = self.base_meta();
        outcome.report.timings = timings;
        let compacted = outcome.report.trigger.is_some();
        // The chunks this call made, in the order made: a chunk that a fold of the same call
        // took in is a generation too, and its summarizer call was made.
        let made: Vec<SummaryChunk> = std::mem::take(&mut outcome.made);
        let seq = old.compactions;
        let summaries: Vec<StoredSummary> = (made.iter().enumerate())
            .map(|(k, chunk)| StoredSummary {
                seq: old.summaries + k as u32,
                compaction: seq,
                chunk: chunk.clone(),
            })
            .collect();
        let mut record =
            (outcome.report.trigger).map(|t| self.record(t, seq, &outcome, &made, run.strategy, timings));
        let (mut guards, mut notes) = (run.guards, run.notes);
        if let Some(r) = &mut record {
            r.after = Some(self.breakdown(&outcome.state)?);
            let span = match outcome.report.folded {
                // A fold re-summarizes every chunk: from where the summarized history starts.
                true => guards::widen(&run.span, run.head_end),
                false => run.span,
            };
            let c = Compacted {
                seq,
                automatic: !matches!(self.core.kind, Kind::Compact { .. }),
                span,
                freed: r.tokens_before.saturating_sub(r.tokens_after),
                optional: r.budget.threshold < r.budget.input,
                window: r.budget.window,
                at: self.core.now.clone(),
                asked: run.asked,
                failure: (outcome.report.fallback.as_ref())
                    .filter(|_| run.asked)
                    .map(|f| f.reason.clone()),
            };
            notes.suppressed_before = guards.suppressed;
            let (backoff, breaker) = guards.compacted(&self.core.ctx.guards, &c);
            notes.backoff = backoff.or(notes.backoff);
            notes.breaker = breaker.or(notes.breaker);
            r.guards = Some(notes.clone());
        }
        // The engine worked to the corrected budget (ctxfold's counts); what the call shows is
        // the window's, the one input budget everywhere (the correction is `estimate`'s).
        outcome.report.budget = run.budget;
        if let Some(r) = &mut record {
            r.budget = run.budget;
        }
        let pruned_tokens = self.pruned_tokens(&outcome, run.counter);
        let state_changed = outcome.state != old.state;
        let mut meta = self.next_meta();
        meta.state = outcome.state.clone();
        meta.guards = guards;
        meta.summaries += summaries.len() as u32;
        let tokens = outcome.report.tokens_after;
        meta.last_input = Some(self.last_input(&run.model, run.ratio, tokens, meta.length));
        if let Some(r) = &record {
            meta.compactions += 1;
            meta.undo = Some(UndoPoint {
                compaction: seq,
                state: old.state.clone(),
            });
            meta.last_compaction = Some(LastCompaction {
                seq,
                trigger: r.trigger,
                tokens_before: r.tokens_before,
                tokens_after: r.tokens_after,
                created_at: self.core.now.clone(),
                undone: false,
            });
        }
        let estimate = estimate(outcome.report.tokens_before, run.ratio, run.budget);
        let mut prepared = self.prepared(outcome, estimate, record.clone());
        prepared.outcome.pruned_tokens = pruned_tokens;
        prepared.outcome.guards = notes;
        let done = Done::Prepared(Box::new(prepared));
        // A manual compaction or a prune that found nothing to do changes nothing stored.
        if matches!(self.core.kind, Kind::Compact { .. } | Kind::Prune) && !compacted && !state_changed {
            return Ok(Next::Done(done));
        }
        let batch = WriteBatch {
            start: old.length,
            messages: self.at.cache.conv.items()[old.length..].to_vec(),
            summaries: summaries.iter().map(to_json).collect::<Result<_, _>>()?,
            records: record.iter().map(to_json).collect::<Result<_, _>>()?,
            meta,
        };
        Ok(Next::Write(Box::new(batch), done))
    }

    /// The record of the compaction in `outcome`, which made the chunks `made`.
    fn record(
        &self,
        trigger: Trigger,
        seq: u32,
        outcome: &CompactOutcome,
        made: &[SummaryChunk],
        strategy: Strategy,
        timings: Timings,
    ) -> CompactionRecord {
        let report = &outcome.report;
        CompactionRecord {
            seq,
            trigger,
            strategy,
            tokens_before: report.tokens_before,
            tokens_after: report.tokens_after,
            budget: report.budget,
            evicted: report.evicted.clone(),
            boundary: outcome.state.boundary.map_or(0, |m| m.index),
            length: self.at.cache.len(),
            generations: made.iter().map(|c| c.generation).collect(),
            folded: report.folded,
            kept_ids: report.kept_ids.clone(),
            lost_ids: report.lost_ids.clone(),
            unsupported_ids: report.unsupported_ids.clone(),
            dropped_summary_lines: report.dropped_summary_lines.clone(),
            fallback: report.fallback.clone(),
            model: made.iter().find_map(|c| c.model.clone()),
            usage: made.iter().filter_map(|c| c.usage.clone()).collect(),
            instructions: match &self.core.kind {
                Kind::Compact { instructions } => instructions.clone(),
                _ => None,
            },
            timings,
            after: None,
            guards: None,
            created_at: self.core.now.clone(),
            undone: false,
        }
    }

    /// Tokens by part of the input with `state` in force: the plan of a call made now (which
    /// has nothing to compact), so the parts add up to what the compaction's output holds.
    fn breakdown(&mut self, state: &CompactState) -> Result<PlanTokens, Error> {
        let (mut setup, ..) = self.setup(false, None)?;
        setup.state = Some(state.clone());
        let cache = &mut self.at.cache;
        Ok(setup.plan(Rc::clone(&cache.conv), &mut cache.memo)?.tokens)
    }

    /// The whole and the sent tokens of the messages whose tool outputs `outcome` prunes.
    fn pruned_tokens(&mut self, outcome: &CompactOutcome, counter: crate::count::Counter) -> PrunedTokens {
        let pruned = &outcome.report.pruned;
        if pruned.messages.is_empty() {
            return PrunedTokens::default();
        }
        let cache = &mut self.at.cache;
        let (counts, _) = cache.memo.counts(&cache.conv, &counter);
        let before: usize = pruned.messages.iter().filter_map(|&i| counts.get(i)).sum();
        PrunedTokens {
            before,
            after: before.saturating_sub(pruned.tokens_saved),
        }
    }

    /// The input `outcome` says to send: kept history items, and the items ctxfold made.
    fn prepared(
        &self,
        outcome: CompactOutcome,
        estimate: InputEstimate,
        record: Option<CompactionRecord>,
    ) -> Prepared {
        let cache = &self.at.cache;
        let pieces = (outcome.order.iter())
            .map(|o| match o {
                Out::Keep(i) => Piece::Keep(*i),
                other => Piece::Item {
                    item: cache.conv.render_item(other),
                    of: match other {
                        Out::Edited { index, .. }
                        | Out::Truncated { index, .. }
                        | Out::Merged { index, .. } => Some(*index),
                        _ => None,
                    },
                },
            })
            .collect();
        Prepared {
            pieces,
            system: cache.around.system.clone(),
            tools: cache.around.tools.clone(),
            outcome: PrepareOutcome {
                context_status: outcome.context_status,
                report: outcome.report,
                estimate,
                record,
                pruned_tokens: PrunedTokens::default(),
                guards: GuardNotes::default(),
            },
        }
    }

    /// The input this call returns, as a usage report or a refusal pairs with it.
    fn last_input(&self, model: &str, ratio: Option<f64>, tokens: usize, length: usize) -> LastInput {
        LastInput {
            model: model.to_owned(),
            tokens,
            length,
            ratio,
            replanned: matches!(self.core.kind, Kind::Overflowed { .. }),
        }
    }

    fn finish_commit(&mut self, usage: Option<Value>) -> Result<Next, Error> {
        let old = self.base_meta();
        let reported = usage.as_ref().map(usage::reported_input).transpose()?;
        let no_input = reported == Some(None);
        let reported = reported.flatten();
        let mut meta = self.next_meta();
        // The input a usage report pairs with is the one returned just before: nothing
        // appended after it.
        meta.last_input = None;
        let mut outcome = CommitOutcome {
            length: meta.length,
            anchor: None,
            usage_ignored: no_input.then(|| {
                "the usage report has no input tokens (prompt_tokens, input_tokens, inputTokens or promptTokenCount)".into()
            }),
        };
        if let Some(reported) = reported {
            match old.last_input.as_ref().filter(|li| li.length == old.length) {
                None => {
                    outcome.usage_ignored = Some(
                        "no prepare() returned an input just before this commit: the usage has nothing to pair with"
                            .into(),
                    )
                }
                Some(li) => {
                    let previous = old.anchors.iter().find(|a| a.model == li.model);
                    match usage::anchor(previous, &li.model, reported, li.tokens, li.ratio, self.core.now.clone()) {
                        Ok(a) => {
                            meta.anchors.retain(|x| x.model != li.model);
                            meta.anchors.push(a.clone());
                            outcome.anchor = Some(a);
                        }
                        Err(why) => outcome.usage_ignored = Some(why),
                    }
                }
            }
        }
        let batch = WriteBatch {
            start: old.length,
            messages: self.at.cache.conv.items()[old.length..].to_vec(),
            summaries: Vec::new(),
            records: Vec::new(),
            meta,
        };
        Ok(Next::Write(Box::new(batch), Done::Committed(outcome)))
    }

    /// Where the conversation stands: the plan over the cached history and the stored state.
    /// (`None`: the store holds no such conversation.)
    pub(super) fn status(&mut self) -> Result<Option<ConversationStatus>, Error> {
        if self.at.meta.is_none() {
            return Ok(None);
        }
        let (setup, ratio, budget, ..) = self.setup(false, None)?;
        let Some(meta) = &self.at.meta else {
            return Ok(None);
        };
        let cache = &mut self.at.cache;
        let mut plan = setup.plan(Rc::clone(&cache.conv), &mut cache.memo)?;
        // The window's budget, as every call shows it (see finish_compaction).
        plan.budget = budget;
        let chunks = &meta.state.chunks;
        let context_status = if chunks.iter().any(|c| c.text == summary::MARKER) {
            ContextStatus::Truncated
        } else if chunks.is_empty() {
            ContextStatus::Full
        } else {
            ContextStatus::Summarized
        };
        Ok(Some(ConversationStatus {
            id: meta.id.clone(),
            version: meta.version,
            length: meta.length,
            format: cache.conv.format(),
            context_status,
            estimate: estimate(plan.tokens.total, ratio, budget),
            plan,
            chunks: chunks.len(),
            compactions: meta.compactions,
            last_compaction: meta.last_compaction.clone(),
            can_undo: meta.undo.is_some(),
            usage: meta.anchors.clone(),
            guards: meta.guards.clone(),
            created_at: meta.created_at.clone(),
            updated_at: meta.updated_at.clone(),
        }))
    }
}

/// `undo`'s batch: the state before compaction `undo.compaction` restored.
fn finish_undo(core: &Core, old: StoredMeta, undo: UndoPoint, cache: Option<Cached>) -> Phase {
    let mut meta = old.clone();
    meta.version += 1;
    meta.schema = META_SCHEMA;
    meta.updated_at = core.now.clone();

    meta.state = undo.state.clone();
    meta.undo = None;
    meta.undone.push(undo.compaction);
    meta.guards.undone(undo.compaction);
    if let Some(last) = meta.last_compaction.as_mut().filter(|l| l.seq == undo.compaction) {
        last.undone = true;
    }
    // The input changed: a usage report no longer pairs with the one returned before.
    meta.last_input = None;
    let batch = WriteBatch {
        start: old.length,
        messages: Vec::new(),
        summaries: Vec::new(),
        records: Vec::new(),
        meta,
    };
    let done = Done::Undone(Some(UndoOutcome {
        compaction: undo.compaction,
        chunks: undo.state.chunks.len(),
        boundary: undo.state.boundary.map(|m| m.index),
    }));
    Phase::Write(Box::new(Writing {
        expect: old.version,
        batch,
        done: Some(done),
        cache,
        clean: None,
        dirty: false,
    }))
}

/// The budget in ctxfold's counts when the provider counts `ratio` times as many tokens:
/// the trigger compares `counted x ratio` with the threshold, and the input must fit.
pub fn corrected(budget: Budget, ratio: f64) -> Budget {
    let input = (budget.input as f64 / ratio).floor() as usize;
    Budget {
        input,
        threshold: ((budget.threshold as f64 / ratio).floor() as usize).min(input),
        ..budget
    }
}

fn estimate(counted: usize, ratio: Option<f64>, budget: Budget) -> InputEstimate {
    InputEstimate {
        counted,
        ratio,
        tokens: ratio.map_or(counted, |r| (counted as f64 * r).round() as usize),
        threshold: budget.threshold,
        input: budget.input,
    }
}

fn to_json<T: serde::Serialize>(v: &T) -> Result<Value, Error> {
    serde_json::to_value(v).map_err(|e| Error::Internal {
        reason: format!("a stored shape did not serialize: {e}"),
    })
}
