//! Building the output: the order of what goes out (head, a provider's compaction, summary,
//! pinned message, tail),
//! the prompt-cache breakpoints, the summary merged into a message for strict alternation,
//! the fit check (cutting messages with `overflow: "truncate"`), the state and the report.

use std::collections::HashSet;
use std::rc::Rc;

use super::super::elide;
use super::super::state::{CompactState, StateMark, StepCut, VERSION};
use super::super::summary;
use super::super::types::{
    CompactOutcome, CompactReport, ContextStatus, PruneReport, SummaryRoleUsed, Timings,
};
use super::{summary_text, text_message, Compaction};
use crate::config::{Overflow, Preset, SummaryRole};
use crate::count::{count_message, REPLY_PRIMING};
use crate::messages::{Message, MessageFormat, MessageRole, NewMessage, Out, Part};
use crate::Error;

/// The output's order, before it is checked against the budget.
pub(super) struct Layout {
    pub(super) order: Vec<Out>,
    breakpoints: Vec<usize>,
    summary_role: Option<SummaryRoleUsed>,
    /// Where the summary message is in `order`, if there is one.
    summary_at: Option<usize>,
    /// The caller's message the summary was put at the start of (`alternateRoles`).
    summary_merged_into: Option<usize>,
    /// Where the verbatim tail starts.
    start: usize,
    pinned: Option<usize>,
}

impl Compaction {
    /// Builds the outcome: the layout, fitted, with its state and report.
    pub(super) fn assemble(mut self) -> Result<CompactOutcome, Error> {
        let mut layout = self.layout();
        self.merge_summary(&mut layout);
        // Planning reserved a slot for each summary; when what it kept beside them leaves
        // less (the newest step, the user's newest words), the summaries shrink to what is
        // left: their real size decides, and only what is never evicted can overflow.
        let input = self.input.budget.input;
        let mut over = self.output_tokens(&layout.order).saturating_sub(input);
        // With `overflow: "truncate"`, a message too large to go whole is cut before the
        // summaries shrink: they hold the whole earlier conversation, where the cut takes a
        // little more of a message cut anyway.
        let mut cut_first = Vec::new();
        if over > 0 && self.input.config.overflow == Overflow::Truncate && !self.rounds.chunks.is_empty() {
            let mut order = layout.order.clone();
            let cut = self.truncate_to_fit(&mut order, over);
            if self.output_tokens(&order) <= input {
                layout.order = order;
                cut_first = cut;
                over = 0;
            }
        }
        // Again while still over: a summary merged into a message (`alternateRoles`) is
        // counted with it, and an estimate of the two together is not the sum of their
        // estimates. Each round leaves the summaries less room, down to the marker.
        for _ in 0..8 {
            let at_marker = self.rounds.chunks.iter().all(|c| c.text == summary::MARKER);
            if over == 0 || self.rounds.chunks.is_empty() || at_marker {
                break;
            }
            let own = super::chunk_tokens(&self.rounds.chunks, self.counter(), self.input.config.recall);
            self.shrink_summaries(own.saturating_sub(over));
            layout = self.layout();
            self.merge_summary(&mut layout);
            over = self.output_tokens(&layout.order).saturating_sub(input);
        }
        // Still over with the summary merged: it goes as a message of its own, as planning
        // counted it.
        if over > 0 && layout.summary_merged_into.is_some() {
            let apart = self.layout();
            if self.output_tokens(&apart.order) <= input {
                layout = apart;
            }
        }
        let (tokens_after, mut truncated_messages) = self.fit(&mut layout.order)?;
        truncated_messages.extend(cut_first);
        let truncated =
            !truncated_messages.is_empty() || self.rounds.chunks.iter().any(|c| c.text == summary::MARKER);
        let context_status = if truncated {
            ContextStatus::Truncated
        } else if !self.rounds.chunks.is_empty() {
            ContextStatus::Summarized
        } else {
            ContextStatus::Full
        };
        let mut state = CompactState {
            version: VERSION,
            chunks: self.rounds.chunks.clone(),
            boundary: Some(StateMark::at(&self.digests, layout.start))
                .filter(|_| !self.rounds.chunks.is_empty()),
            prune_boundary: Some(StateMark::at(&self.digests, self.plan.pruned.boundary))
                .filter(|_| self.plan.pruned.boundary > self.plan.head_end),
            // Just after the pinned message, so its check covers the message itself.
            pinned: layout.pinned.map(|i| StateMark::at(&self.digests, i + 1)),
            // While its step is sent, a cut step stays cut alike; one no longer sent is
            // forgotten.
            step_cuts: self
                .step_cuts
                .iter()
                .filter(|&&(step, ..)| step >= layout.start)
                .map(|&(step, end, room)| StepCut {
                    step,
                    end: StateMark::at(&self.digests, end),
                    room,
                })
                .collect(),
            signature: None,
        };
        if let Some(key) = &self.input.config.state_key {
            state.signature = Some(super::super::sign::sign(key, &state));
        }
        let report = self.report(&layout, tokens_after, truncated_messages);
        Ok(CompactOutcome {
            order: layout.order,
            context_status,
            report,
            state,
            made: std::mem::take(&mut self.rounds.made),
        })
    }

    pub(super) fn compacted(&self) -> bool {
        self.plan.trigger.is_some() && !self.plan.evict.is_empty()
    }

    /// `[head] [summary] [pinned newest user message] [tail]`, with the breakpoints after
    /// the head, after the summary (and the pinned message), and at the prune boundary.
    fn layout(&self) -> Layout {
        let summary = (!self.rounds.chunks.is_empty())
            .then(|| summary_text(&self.rounds.chunks, self.input.config.recall));
        self.layout_with(summary)
    }

    /// The layout with `summary` as the summary message's text (`None`: no summary).
    pub(super) fn layout_with(&self, summary: Option<String>) -> Layout {
        let conv = &self.input.conv;
        let messages = conv.messages();
        let start = if self.compacted() {
            self.plan.tail_start
        } else {
            self.plan.boundary
        };
        let pinned = self.plan.pinned;
        let mut order = Vec::new();
        let mut breakpoints = Vec::new();
        order.extend((0..self.plan.head_end).map(Out::Keep));
        // A provider's compaction stands in for what came before it: after the head (in order
        // with the pinned task), before the summary; one after the pinned newest user message
        // follows it.
        let (before, after): (Vec<usize>, Vec<usize>) =
            (self.kept.iter()).partition(|&&i| pinned.is_none_or(|p| i < p));
        let mut front: Vec<usize> = self.pinned_first.into_iter().chain(before).collect();
        front.sort_unstable();
        order.extend(front.into_iter().map(Out::Keep));
        if !order.is_empty() {
            breakpoints.push(order.len() - 1);
        }
        let mut summary_role = None;
        let mut summary_at = None;
        if let Some(text) = summary {
            let any_user_before = order
                .iter()
                .any(|o| matches!(o, Out::Keep(i) if messages[*i].starts_turn()));
            let (role, used) = match self.input.config.summary_role {
                SummaryRole::Assistant if !any_user_before => (MessageRole::User, SummaryRoleUsed::User),
                SummaryRole::Assistant => (MessageRole::Assistant, SummaryRoleUsed::Assistant),
                SummaryRole::User => (MessageRole::User, SummaryRoleUsed::User),
                SummaryRole::System if conv.format() == MessageFormat::Anthropic => {
                    (MessageRole::User, SummaryRoleUsed::User)
                }
                SummaryRole::System => (MessageRole::System, SummaryRoleUsed::System),
            };
            summary_role = Some(used);
            order.push(Out::New(NewMessage { role, text }));
            summary_at = Some(order.len() - 1);
        }
        // The newest user message of a split turn follows the summary of the steps before
        // it, as SPEC.md's `[head] [summary] [tail] [new message]` has it: a request never
        // ends with the summary (which a provider would take as the assistant's text to
        // continue), and the message is as stable as the summary between compactions.
        if let Some(i) = pinned {
            order.push(Out::Keep(i));
        }
        order.extend(after.into_iter().map(Out::Keep));
        if summary_at.is_some() || pinned.is_some() {
            breakpoints.push(order.len() - 1);
        }
        for i in start..messages.len() {
            if Some(i) == pinned || Some(i) == self.pinned_first {
                continue;
            }
            match self.edits.get(&i) {
                Some(results) => order.push(Out::Edited {
                    index: i,
                    results: results.clone(),
                }),
                None => order.push(Out::Keep(i)),
            }
            if i + 1 == self.plan.pruned.boundary && self.plan.pruned.boundary > start {
                breakpoints.push(order.len() - 1);
            }
        }
        Layout {
            order,
            breakpoints,
            summary_role,
            summary_at,
            summary_merged_into: None,
            start,
            pinned,
        }
    }

    /// With `alternateRoles`, a summary followed by a message of its own side goes at the
    /// start of that message; the breakpoint after the summary then follows the two.
    pub(super) fn merge_summary(&self, layout: &mut Layout) {
        let at = layout.summary_at;
        let conv = &self.input.conv;
        if let (true, Some(s)) = (self.input.config.alternate_roles, at) {
            if let (Out::New(summary), Some(&Out::Keep(i))) = (&layout.order[s], layout.order.get(s + 1)) {
                if conv.messages()[i].role == summary.role && conv.merged_item(i, &summary.text).is_some() {
                    // No message boundary ends the summary there: its closing line does.
                    layout.order[s + 1] = Out::Merged {
                        index: i,
                        text: super::super::summary::frame::closed(&summary.text),
                    };
                    layout.order.remove(s);
                    layout.summary_at = None;
                    for b in &mut layout.breakpoints {
                        if *b > s {
                            *b -= 1;
                        }
                    }
                    layout.summary_merged_into = Some(i);
                }
            }
        }
        layout.breakpoints.dedup();
    }

    /// Counts what goes out and checks it fits, cutting messages with `overflow:
    /// "truncate"`. Returns the tokens and the messages cut.
    fn fit(&self, order: &mut [Out]) -> Result<(usize, Vec<usize>), Error> {
        let cfg = &self.input.config;
        let available = self.input.budget.input;
        let mut tokens_after = self.output_tokens(order);
        let mut truncated = Vec::new();
        if tokens_after > available && cfg.overflow == Overflow::Truncate {
            truncated = self.truncate_to_fit(order, tokens_after - available);
            tokens_after = self.output_tokens(order);
        }
        if tokens_after > available {
            let summaries =
                super::chunk_tokens(&self.rounds.chunks, self.counter(), self.input.config.recall);
            return Err(Error::ContextOverflow {
                needed: tokens_after.saturating_sub(summaries),
                summaries,
                available,
                hint: if cfg.overflow == Overflow::Truncate {
                    TRUNCATED_DOES_NOT_FIT
                } else if cfg.preset == Preset::Off {
                    "preset: \"off\" sends the conversation as it is, and it is larger than the input budget; use another preset, or set overflow: \"truncate\""
                } else {
                    "the newest turn and the summaries together do not fit; lower summaryMaxTokens, raise contextWindow, or set overflow: \"truncate\""
                },
            });
        }
        Ok((tokens_after, truncated))
    }

    fn report(&self, layout: &Layout, tokens_after: usize, truncated_messages: Vec<usize>) -> CompactReport {
        let compacted = self.compacted();
        let mut seen = HashSet::new();
        let prune_lost = layout
            .order
            .iter()
            .filter_map(|o| match o {
                Out::Edited { index, .. } => self.prune_lost.get(index),
                _ => None,
            })
            .flatten()
            .filter(|id| seen.insert(*id))
            .cloned()
            .collect();
        let (kept_ids, lost_ids) = self.still_sent(layout);
        CompactReport {
            tokens_before: self.plan.tokens.given,
            tokens_after,
            budget: self.input.budget,
            trigger: if compacted { self.plan.trigger } else { None },
            evicted: if compacted {
                self.plan.evict.clone()
            } else {
                Vec::new()
            },
            summary_chunks: self.rounds.chunks.len(),
            new_chunks: if compacted { self.rounds.new_chunks() } else { 0 },
            folded: self.rounds.folded,
            kept_ids,
            lost_ids,
            unsupported_ids: self.rounds.unsupported.clone(),
            fallback: self.rounds.fallback.clone(),
            dropped_summary_lines: self.rounds.dropped.clone(),
            summary_role: layout.summary_role,
            summary_merged_into: layout.summary_merged_into,
            cache_breakpoints: layout.breakpoints.clone(),
            pruned: PruneReport {
                lost_ids: prune_lost,
                ..self.plan.pruned.clone()
            },
            state_reset: self.plan.state_reset.clone(),
            truncated_messages,
            timings: Timings::default(),
        }
    }

    /// The identifiers kept and lost: an identifier the summaries lost that the input still
    /// holds verbatim (the newest message repeats it, say) is kept, not lost. Each once, and
    /// one a chunk kept is not lost by another (the summaries hold it).
    fn still_sent(&self, layout: &Layout) -> (Vec<String>, Vec<String>) {
        let mut seen: HashSet<&str> = HashSet::new();
        let mut kept: Vec<String> = (self.rounds.ids_kept.iter())
            .filter(|id| seen.insert(id.as_str()))
            .cloned()
            .collect();
        if self.rounds.ids_lost.iter().all(|id| seen.contains(id.as_str())) {
            return (kept, Vec::new());
        }
        let messages = self.input.conv.messages();
        let mut sent = String::new();
        if let Some(system) = self.input.conv.system() {
            super::push_text(&mut sent, &system);
        }
        for o in &layout.order {
            match o {
                Out::Keep(i) | Out::Merged { index: i, .. } => super::push_text(&mut sent, &messages[*i]),
                Out::Edited { index, results } => {
                    let mut m = messages[*index].clone();
                    for p in &mut m.parts {
                        if let Part::ToolResult { call_id, text, .. } = p {
                            if let Some((_, now)) = results.iter().find(|(c, _)| c == call_id) {
                                text.clone_from(now);
                            }
                        }
                    }
                    super::push_text(&mut sent, &m);
                }
                Out::Truncated { text, .. } => {
                    sent.push_str(text);
                    sent.push('\n');
                }
                Out::New(_) => {}
            }
        }
        let sent = super::super::haystack::Haystack::new(&sent);
        let mut lost = Vec::new();
        for id in &self.rounds.ids_lost {
            if !seen.insert(id.as_str()) {
                continue;
            }
            if sent.mentions(id) {
                kept.push(id.clone());
            } else {
                lost.push(id.clone());
            }
        }
        (kept, lost)
    }

    /// Input tokens of an output order.
    pub(super) fn output_tokens(&self, order: &[Out]) -> usize {
        let counter = self.counter();
        let conv = &self.input.conv;
        let system = self.system_tokens;
        let each = order.iter().map(|o| match o {
            Out::Keep(i) | Out::Edited { index: i, .. } => self.tokens[*i],
            Out::Truncated { index, text } => {
                count_message(&cut_copy(&conv.messages()[*index], text), counter)
            }
            Out::New(m) => count_message(&text_message(m.role, &m.text), counter),
            Out::Merged { index, text } => conv
                .merged_message(*index, text)
                .map_or(self.tokens[*index], |m| count_message(&m, counter)),
        });
        system + REPLY_PRIMING + each.sum::<usize>()
    }

    /// Cuts the largest kept text messages (system or user, text only) to their start and
    /// end around a marker until `over` tokens are gone, each keeping at least
    /// [`TRUNCATED_KEEPS`] bytes of its own text. Returns the indexes cut.
    pub(super) fn truncate_to_fit(&self, order: &mut [Out], mut over: usize) -> Vec<usize> {
        let conv = Rc::clone(&self.input.conv);
        let messages = conv.messages();
        let counter = self.counter();
        // A system or user message of text, with images and files beside it or not: its
        // text is cut (its parts' texts as one), the images and files stay.
        let cuttable = |m: &Message| {
            matches!(m.role, MessageRole::System | MessageRole::User)
                && m.parts.iter().any(|p| matches!(p, Part::Text(_)))
                && m.parts
                    .iter()
                    .all(|p| matches!(p, Part::Text(_) | Part::Media { .. }))
        };
        // (position in `order`, message, the summary merged into it with `alternateRoles`)
        let mut candidates: Vec<(usize, usize, Option<String>)> = order
            .iter()
            .enumerate()
            .filter_map(|(k, o)| match o {
                Out::Keep(i) if cuttable(&messages[*i]) => Some((k, *i, None)),
                Out::Merged { index, text } if cuttable(&messages[*index]) => {
                    Some((k, *index, Some(text.clone())))
                }
                _ => None,
            })
            .collect();
        candidates.sort_by_key(|&(_, i, _)| std::cmp::Reverse(self.tokens[i]));
        let mut cut = Vec::new();
        for (k, i, summary) in candidates {
            if over == 0 {
                break;
            }
            let texts: Vec<&str> = messages[i]
                .parts
                .iter()
                .filter_map(|p| match p {
                    Part::Text(t) => Some(t.as_str()),
                    _ => None,
                })
                .collect();
            let text = texts.join("\n");
            // A merged summary stays whole at the start; the message's own text is cut.
            let whole = |t: &str| match &summary {
                Some(s) => format!("{s}\n\n{t}"),
                None => t.to_owned(),
            };
            let as_message = |t: &str| count_message(&cut_copy(&messages[i], &whole(t)), counter);
            let now = match &summary {
                Some(s) => conv
                    .merged_message(i, s)
                    .map_or(self.tokens[i], |m| count_message(&m, counter)),
                None => self.tokens[i],
            };
            // A cut keeps at least the start and end of the message's own words, so a merged
            // summary (or a large cut) never leaves the marker alone in their place.
            let least = as_message(&elide::cut(&text, TRUNCATED_KEEPS, &truncation));
            if text.len() <= TRUNCATED_KEEPS || least >= now {
                continue;
            }
            let t = elide::fit(
                &text,
                now.saturating_sub(over).max(least),
                &as_message,
                &truncation,
            );
            if t == text {
                continue; // nothing to cut: the message goes as it is
            }
            let n = as_message(&t);
            over = over.saturating_sub(now.saturating_sub(n));
            order[k] = Out::Truncated {
                index: i,
                text: whole(&t),
            };
            cut.push(i);
        }
        cut
    }
}

/// A message cut to fit as it goes out: its text replaced by `text`, its images, files and
/// name kept.
fn cut_copy(original: &Message, text: &str) -> Message {
    let mut m = Message {
        name: original.name.clone(),
        ..text_message(original.role, text)
    };
    m.parts.extend(
        original
            .parts
            .iter()
            .filter(|p| matches!(p, Part::Media { .. }))
            .cloned(),
    );
    m
}

/// The bytes of its own text a message cut to fit keeps at least (its start and end).
const TRUNCATED_KEEPS: usize = 128;

/// Why an input does not fit with `overflow: "truncate"`.
pub(super) const TRUNCATED_DOES_NOT_FIT: &str = "even with the largest messages truncated the input does not fit (what is truncated is the text of system and user messages; their images and files stay, and an Anthropic top-level system prompt is never truncated)";

/// The marker of a message cut to fit (`overflow: "truncate"`).
fn truncation(removed: usize) -> String {
    format!("\n[… truncated {removed} characters to fit the context window …]\n")
}
