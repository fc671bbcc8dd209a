//! The compaction state machine: plan, ask for summaries, check them, build the output.
//!
//! The core never waits on anything. [`Compaction::new`] plans (`plan.rs`) and lists the
//! summarizer calls it needs ([`Compaction::requests`]); the caller (the driver,
//! [`super::driver`], for every caller) makes them and hands the replies to
//! [`Compaction::submit`], which may ask for more rounds, to fold the chunks
//! (`rounds.rs`); [`Compaction::finish`] then builds the output (`assemble.rs`). Every
//! failure of a summarizer becomes the configured fallback here, so a turn is never lost
//! to it.

mod assemble;
mod plan;
mod rounds;

use std::collections::HashMap;
use std::rc::Rc;

use super::partition::Structure;
use super::prune::{self, Span};
use super::state::SummaryChunk;
use super::types::{CompactOutcome, CompactPlan, Input, Reply, Request};
use crate::count::{count_message, TextCounter};
use crate::messages::{Message, MessageRole, Part};
use crate::Error;

/// A compaction in progress.
pub struct Compaction {
    input: Input,
    plan: CompactPlan,
    /// Tokens of each message as it would go out (pruned where pruned).
    tokens: Vec<usize>,
    /// Tool results replaced by pruning: message index -> (call id, text).
    edits: HashMap<usize, Vec<(String, String)>>,
    /// Identifiers each pruned message lost.
    prune_lost: HashMap<usize, Vec<String>>,
    /// The first user message, pinned in the head (`pinFirstUserTurn`).
    pinned_first: Option<usize>,
    /// The messages holding a provider's compaction before the verbatim tail: kept whole
    /// after the head (and the pinned task), in order, never summarized.
    kept: Vec<usize>,
    /// The messages' running digests, for the state's marks.
    digests: Vec<u64>,
    /// The cap on one summary chunk's tokens.
    summary_max: usize,
    /// The most one summarizer call's prompt may take.
    summarizer_input: usize,
    /// What one summary chunk may take in the input with the reserved ledger (its cap, the
    /// ledger, framing).
    summary_slot: usize,
    /// What the summaries (with their ledgers) may take for the input to land at the
    /// target: the target less the head, the tail and the reply's priming.
    summary_room: usize,
    /// The summarizer rounds: requests, replies, chunks, and what they found.
    rounds: rounds::Rounds,
    /// The steps whose tool outputs are cut in place, oldest first: `(first message, end,
    /// room)`.
    step_cuts: Vec<(usize, usize, usize)>,
    /// The tokens of what the request sends beside its messages (`Head::system`).
    system_tokens: usize,
}

impl Compaction {
    /// Plans a compaction. Errors only for input that cannot fit at all (`CONTEXT_OVERFLOW`).
    pub fn new(input: Input) -> Result<Self, Error> {
        let conv = Rc::clone(&input.conv);
        let messages = conv.messages();
        let digests = conv.prefix_digests().to_vec();
        let (state, state_reset) = plan::restore_state(&input, &digests);
        let structure = Structure::of_prefix(&conv, messages.len());
        let head = plan::Head::of(&input, &state);
        let mut pruned = prune::apply(
            &Span {
                messages,
                structure: &structure,
                raw: &input.counts,
                boundary: head.boundary,
                previous: state.prune_boundary.map(|m| m.index),
                window: input.budget.window,
                // Ahead of a turn, pruning runs as it will when that turn passes the threshold.
                input_tokens: match input.ahead {
                    true => head.given.max(input.budget.threshold + 1),
                    false => head.given,
                },
            },
            &input.config,
            &input.counter,
        );
        let (window, budget) = (input.budget.window, input.budget.input);
        let summary_max = input.config.summary_tokens(window, input.budget.room());
        let summarizer_input = match input.config.summarizer_input_tokens {
            // The caller's limit is the whole call's: the system prompt comes out of it.
            Some(limit) => {
                let cfg = &input.config;
                let prompt =
                    super::summary::system_prompt(cfg.summary_prompt.as_deref(), cfg.instructions.as_deref());
                let fold = super::summary::fold_prompt(cfg.summary_prompt.as_deref());
                let system = input.counter.count(&prompt).max(input.counter.count(&fold));
                limit.saturating_sub(system).max(64)
            }
            None => budget.saturating_sub(summary_max + 1024).clamp(1024, 120_000),
        };
        let sizes = plan::Sizes {
            summary_max,
            summarizer_input,
        };
        let newest = structure.newest_step.filter(|&s| s >= head.boundary);
        // The steps earlier turns cut to fit are cut alike while they are sent as they were
        // (not evicted, not reached by pruning); the others are forgotten.
        let mut step_cuts: Vec<(usize, usize, usize)> = state
            .step_cuts
            .iter()
            .filter(|c| c.step >= head.boundary.max(pruned.report.boundary))
            .map(|c| (c.step, c.end.index, c.room))
            .collect();
        for &(step, end, room) in &step_cuts {
            prune::cut_step(messages, (step, end), room, &mut pruned, &input.counter);
        }
        let mut plan = plan::plan(&input, &structure, &head, &pruned, sizes, state_reset.clone());
        // The newest step's tool outputs are kept, cut when the input does not fit and they
        // take more than what is left beside the head, its turn's user message and a summary.
        let over = plan.tokens.total > input.budget.input;
        let uncut = newest.filter(|&s| step_cuts.iter().all(|&(cut, ..)| cut != s));
        if let (true, Some(_), Some(step)) = (over, plan.trigger, uncut) {
            let room = plan::step_room(&input, &head, &structure, step, sizes);
            if pruned.tokens[step..].iter().sum::<usize>() > room {
                prune::cut_step(
                    messages,
                    (step, messages.len()),
                    room,
                    &mut pruned,
                    &input.counter,
                );
                plan = plan::plan(&input, &structure, &head, &pruned, sizes, state_reset);
                step_cuts.push((step, messages.len(), room));
            }
        }
        let summary_slot = plan::summary_slot(&input, sizes);
        let summary_room = plan::target_tokens(&input).saturating_sub(
            plan.tokens.head + plan.tokens.tail + crate::count::REPLY_PRIMING + plan::framing(&input),
        );
        let mut c = Compaction {
            rounds: rounds::Rounds::new(state.chunks),
            input,
            kept: plan::kept(messages, &head, &plan),
            plan,
            tokens: pruned.tokens,
            edits: pruned.edits,
            prune_lost: pruned.lost,
            pinned_first: head.pinned_first,
            digests,
            summary_max,
            summarizer_input,
            summary_slot,
            summary_room,
            step_cuts,
            system_tokens: head.system,
        };
        c.check_fits()?;
        if c.plan.trigger.is_some() && !c.plan.evict.is_empty() {
            c.request_summaries();
        }
        Ok(c)
    }

    /// The plan.
    pub fn plan(&self) -> &CompactPlan {
        &self.plan
    }

    /// The summarizer calls to make now (empty when none are needed).
    pub fn requests(&self) -> &[Request] {
        &self.rounds.requests
    }

    /// Takes the replies to [`Compaction::requests`], in order. A fold may follow: check
    /// [`Compaction::requests`] again.
    pub fn submit(&mut self, replies: Vec<Reply>) -> Result<(), Error> {
        self.take_replies(replies)
    }

    /// Answers the pending requests with the built-in extractive summary: no model.
    pub fn submit_extractive(&mut self) -> Result<(), Error> {
        let replies = self.extractive_replies();
        self.take_replies(replies)
    }

    /// Builds the output. Call when [`Compaction::requests`] is empty.
    pub fn finish(self) -> Result<CompactOutcome, Error> {
        self.assemble()
    }

    fn counter(&self) -> &dyn TextCounter {
        &self.input.counter
    }
}

/// The chunks joined, oldest first, without the framing (what a rolling summary's next
/// summarizer call reads); chunks next to each other that are all the static marker (a
/// round whose every call fell back to it) say it once.
fn join_chunks(chunks: &[SummaryChunk]) -> String {
    let mut texts: Vec<&str> = Vec::with_capacity(chunks.len());
    for c in chunks {
        if !(c.text == super::summary::MARKER && texts.last() == Some(&super::summary::MARKER)) {
            texts.push(&c.text);
        }
    }
    texts.join("\n\n")
}

/// The summary message's text as it goes out: the chunks joined, framed as data
/// ([`super::summary::frame`]), saying so with `recall` when the model can recall.
fn summary_text(chunks: &[SummaryChunk], recall: bool) -> String {
    super::summary::frame::framed(&join_chunks(chunks), recall)
}

/// The tokens of a summary message holding `chunks` (none: 0), its framing included.
fn chunk_tokens(chunks: &[SummaryChunk], counter: &dyn TextCounter, recall: bool) -> usize {
    if chunks.is_empty() {
        return 0;
    }
    count_message(
        &text_message(MessageRole::Assistant, &summary_text(chunks, recall)),
        counter,
    )
}

/// A message holding one text.
fn text_message(role: MessageRole, text: &str) -> Message {
    Message {
        role,
        parts: vec![Part::Text(text.to_owned())],
        name: None,
    }
}

/// A message's text (what a summary could have taken an identifier from), one line a part.
fn push_text(out: &mut String, m: &Message) {
    for p in &m.parts {
        match p {
            Part::Text(t) | Part::Reasoning(t) | Part::ToolResult { text: t, .. } => out.push_str(t),
            Part::ToolCall { name, arguments, .. } => {
                out.push_str(name);
                out.push_str(arguments);
            }
            _ => {}
        }
        out.push('\n');
    }
}
