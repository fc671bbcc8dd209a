//! Planning: the state checked against the history, the head, the token breakdown, the
//! trigger, and where the verbatim tail starts (and with it what is evicted).

use super::super::partition::{choose_tail, head_len, Structure, TailRoom};
use super::super::prune::Applied;
use super::super::sign;
use super::super::state::{Mark, State, Trigger, VERSION};
use super::super::summary::MARKER;
use super::super::types::{Breakdown, Input, Plan};
use super::{chunk_tokens, Compaction};
use crate::config::{Overflow, Preset, Strategy};
use crate::count::{count_message, REPLY_PRIMING};
use crate::messages::{Message, Role};
use crate::Error;

/// Tokens a rendered message may take beyond its own count (the `[role calls tool]` prefix).
const RENDER_SLACK: usize = 8;

/// The state passed in, when it holds for this history, and why it was dropped if not.
pub(super) fn restore_state(input: &Input, digests: &[u64]) -> (State, Option<String>) {
    let (state, reset) = match input.state.clone() {
        None => (State::default(), None),
        Some(s) if s.version != VERSION => (
            State::default(),
            Some(format!("state version {} is not {VERSION}", s.version)),
        ),
        // Signed state: one changed anywhere a signature covers is not used at all.
        Some(s) if input.config.state_key.as_deref().is_some_and(|k| !sign::verify(k, &s)) => (
            State::default(),
            Some(match s.signature {
                None => "state.signature is missing (options.stateKey is set); starting over from the full history".into(),
                Some(_) => "state.signature does not match (the state was changed, or signed with another key); starting over from the full history".into(),
            }),
        ),
        Some(s) => {
            let marks: [(&str, Option<Mark>); 3] = [
                ("boundary", s.boundary),
                ("pruneBoundary", s.prune_boundary),
                ("pinned", s.pinned),
            ];
            match marks
                .into_iter()
                .find(|(_, m)| m.is_some_and(|m| !m.holds(digests)))
            {
                Some((name, _)) => (
                    State::default(),
                    Some(format!(
                        "the history before state.{name} changed; starting over from the full history"
                    )),
                ),
                None => (s, None),
            }
        }
    };
    if input.config.preset == Preset::Off {
        return (State::default(), reset);
    }
    (state, reset)
}

/// The head and where the verbatim part starts.
pub(super) struct Head {
    /// The first message after the head (leading system messages, and the task when it is
    /// pinned and comes first).
    pub end: usize,
    /// The first user message, pinned after the head (`pinFirstUserTurn`), once a later
    /// user message exists.
    pub pinned_first: Option<usize>,
    /// The first message sent verbatim (after earlier summaries).
    pub boundary: usize,
    /// The newest user message an earlier compaction kept although its turn was split.
    pub old_pinned: Option<usize>,
    /// The head's tokens: Anthropic's `system`, the leading messages and the pinned task.
    pub tokens: usize,
    /// The tokens of the summary message the state's chunks make (0: none).
    pub summaries: usize,
}

impl Head {
    pub fn of(input: &Input, state: &State) -> Head {
        let messages = input.conv.messages();
        let mut end = head_len(messages);
        // While the task is also the newest user message, it is kept as the newest one is
        // (after the summary of the steps that followed it); it joins the head once a later
        // turn starts.
        let pinned_first = if input.config.pin_first_user_turn {
            messages
                .iter()
                .position(Message::starts_turn)
                .filter(|&i| i >= end && messages[i + 1..].iter().any(Message::starts_turn))
        } else {
            None
        };
        if pinned_first == Some(end) {
            end += 1;
        }
        let pinned_first = pinned_first.filter(|&i| i >= end);
        let boundary = state.boundary.map_or(end, |m| m.index.max(end));
        // The pinned mark sits just after the pinned message.
        let old_pinned = state
            .pinned
            .and_then(|m| m.index.checked_sub(1))
            .filter(|&i| i < boundary && i >= end);
        let raw = &input.counts;
        let system = input
            .conv
            .system()
            .map_or(0, |s| count_message(&s, &input.counter));
        Head {
            end,
            pinned_first,
            boundary,
            old_pinned,
            tokens: system + raw[..end].iter().sum::<usize>() + pinned_first.map_or(0, |i| raw[i]),
            summaries: chunk_tokens(&state.chunks, &input.counter),
        }
    }
}

/// The sizes planning works with.
#[derive(Clone, Copy)]
pub(super) struct Sizes {
    /// The cap on one summary chunk's tokens.
    pub summary_max: usize,
    /// The most one summarizer call's prompt may take.
    pub summarizer_input: usize,
}

/// The plan: the breakdown of what would be sent now, and what a compaction would evict.
pub(super) fn plan(
    input: &Input,
    structure: &Structure,
    head: &Head,
    pruned: &Applied,
    sizes: Sizes,
    state_reset: Option<String>,
) -> Plan {
    let messages = input.conv.messages();
    let n = messages.len();
    let tokens = &pruned.tokens;
    let head_tokens = head.tokens;
    let live: usize = (head.boundary..n)
        .filter(|&i| Some(i) != head.pinned_first)
        .map(|i| tokens[i])
        .sum();
    let old_pinned_tokens = head.old_pinned.map_or(0, |i| tokens[i]);
    let summaries = head.summaries;
    let total = head_tokens + old_pinned_tokens + summaries + live + REPLY_PRIMING;
    let tools: usize = (head.boundary..n)
        .filter(|&i| messages[i].role == Role::Tool)
        .map(|i| tokens[i])
        .sum();
    let trigger = match input.config.preset {
        Preset::Off => None,
        _ if input.manual => Some(Trigger::Manual),
        _ if total > input.budget.threshold => Some(Trigger::Threshold),
        _ => None,
    };
    let cut = match trigger {
        Some(_) => choose_cut(
            input,
            structure,
            head,
            tokens,
            head_tokens + REPLY_PRIMING,
            summaries,
            sizes,
        ),
        None => Cut {
            tail_start: n,
            pinned: None,
            evict: Vec::new(),
            calls: 0,
        },
    };
    let evict_tokens: usize = cut.evict.iter().map(|&i| tokens[i]).sum();
    Plan {
        budget: input.budget,
        tokens: Breakdown {
            total,
            given: unpruned_total(input, head),
            head: head_tokens,
            summaries,
            middle: evict_tokens,
            tail: total - head_tokens - summaries - evict_tokens - REPLY_PRIMING,
            tools,
            framing: REPLY_PRIMING,
        },
        trigger,
        head_end: head.end,
        boundary: head.boundary,
        tail_start: if trigger.is_some() {
            cut.tail_start
        } else {
            head.boundary
        },
        pinned: if trigger.is_some() {
            cut.pinned
        } else {
            head.old_pinned
        },
        evict: cut.evict,
        summarizer_calls: cut.calls,
        pruned: pruned.report.clone(),
        state_reset,
    }
}

/// The input's tokens as it would go out with nothing pruned or compacted now (the
/// summaries of earlier compactions included).
pub(super) fn unpruned_total(input: &Input, head: &Head) -> usize {
    let live: usize = (head.boundary..input.counts.len())
        .filter(|&i| Some(i) != head.pinned_first)
        .map(|i| input.counts[i])
        .sum();
    head.tokens + head.old_pinned.map_or(0, |i| input.counts[i]) + head.summaries + live + REPLY_PRIMING
}

/// The input's tokens a compaction aims at: `targetRatio` of the input budget, or of the
/// threshold when that is lower (a compaction must land below what triggers the next one).
pub(super) fn target_tokens(input: &Input) -> usize {
    (input.config.target_ratio * input.budget.threshold.min(input.budget.input) as f64) as usize
}

/// Tokens a summary message takes beyond its chunks' (the message framing, the blank
/// lines between chunks, the ledger line's prefix).
pub(super) const SUMMARY_FRAMING: usize = 16;

/// What one summary chunk may take in the input: its cap, the reserved identifier ledger,
/// framing.
pub(super) fn summary_slot(input: &Input, sizes: Sizes) -> usize {
    sizes.summary_max
        + input
            .config
            .ledger_tokens(input.budget.window, input.budget.input)
        + SUMMARY_FRAMING
}

/// The most the newest step (`step..`) may take in a compacted input: the input budget less
/// the head, the user message of its turn, one summary slot (and the summaries kept, for
/// the additive strategy) and the reply's priming.
pub(super) fn step_room(
    input: &Input,
    head: &Head,
    structure: &Structure,
    step: usize,
    sizes: Sizes,
) -> usize {
    let user = structure
        .turn_starts
        .iter()
        .rev()
        .find(|&&u| u < step && u >= head.boundary)
        .map_or(0, |&u| input.counts[u]);
    let summaries = match input.config.strategy {
        Strategy::Additive => head.summaries,
        Strategy::Rolling => 0,
    };
    let old_pinned = head.old_pinned.map_or(0, |i| input.counts[i]);
    input.budget.input.saturating_sub(
        head.tokens + old_pinned + user + summaries + summary_slot(input, sizes) + REPLY_PRIMING,
    )
}

/// Where a compaction cuts.
struct Cut {
    tail_start: usize,
    pinned: Option<usize>,
    evict: Vec<usize>,
    calls: usize,
}

/// The tail, and with it the middle, assuming `k` summarizer calls (each with a summary
/// slot); `k` is then checked against what the middle needs, at most four times.
fn choose_cut(
    input: &Input,
    structure: &Structure,
    head: &Head,
    tokens: &[usize],
    fixed: usize,
    summaries: usize,
    sizes: Sizes,
) -> Cut {
    let cfg = &input.config;
    let window = input.budget.window;
    let summary_slot = summary_slot(input, sizes);
    let target = target_tokens(input);
    let mut cut = Cut {
        tail_start: tokens.len(),
        pinned: None,
        evict: Vec::new(),
        calls: 0,
    };
    let mut k = 1;
    for _ in 0..4 {
        let kept_summary = summary_reservation(input, summary_slot, summaries, k);
        // The limit reserves a whole summary slot per call, so the output always fits; the
        // target is where the tail stops growing.
        let hard = input.budget.input.saturating_sub(fixed + kept_summary);
        // The floor may take half of that, short of the threshold (past it, the next turn
        // would compact again).
        let floor_cap = (hard / 2).min(input.budget.threshold.saturating_sub(fixed + kept_summary + 1));
        let room = match cfg.keep_recent_tokens {
            Some(t) => TailRoom {
                want: t.min(hard),
                floor_only: false,
                floor: 1,
                floor_cap,
                hard,
                exchange: !input.manual,
            },
            // A manual compaction (`/compact`) keeps the floor's turns: the user asked for room.
            None => TailRoom {
                want: target.saturating_sub(fixed + kept_summary),
                floor_only: input.manual,
                floor: cfg.buffer_turns,
                floor_cap,
                hard,
                exchange: !input.manual,
            },
        };
        let room = match cfg.buffer_max_ratio {
            Some(r) => {
                let cap = ((r * window as f64) as usize).min(hard);
                TailRoom {
                    want: room.want.min(cap),
                    floor_cap: room.floor_cap.min(cap),
                    hard: cap,
                    ..room
                }
            }
            None => room,
        };
        let (tail_start, pin) = choose_tail(structure, tokens, head.boundary, room);
        let mut evict: Vec<usize> = Vec::new();
        if let Some(p) = head.old_pinned.filter(|&p| Some(p) != pin) {
            evict.push(p);
        }
        evict.extend((head.boundary..tail_start).filter(|&i| Some(i) != pin && Some(i) != head.pinned_first));
        let calls = calls_needed(&evict, tokens, sizes.summarizer_input);
        cut = Cut {
            tail_start,
            pinned: pin.or(head.old_pinned.filter(|&p| Some(p) == pin)),
            evict,
            calls,
        };
        if calls <= k {
            break;
        }
        k = calls;
    }
    cut
}

/// Summarizer calls for `evict`, bounded from the cached counts without rendering: a
/// rendered message is elided and never longer than the message plus its `[role]` prefix,
/// so packing those sizes in order gives at least as many parts as the real rendering.
fn calls_needed(evict: &[usize], tokens: &[usize], per_call: usize) -> usize {
    if evict.is_empty() {
        return 0;
    }
    let mut parts = 1;
    let mut used = 0;
    for &i in evict {
        let cost = (tokens[i] + RENDER_SLACK).min(per_call);
        if used + cost > per_call && used > 0 {
            parts += 1;
            used = 0;
        }
        used += cost;
    }
    parts
}

impl Compaction {
    /// The head, the pinned messages, the user's newest words (with the step they answer,
    /// when they came with tool results) and the reply must fit, whatever is summarized.
    pub(super) fn check_fits(&self, structure: &Structure) -> Result<(), Error> {
        let head_end = self.plan.head_end;
        // The newest turn's user message: kept in the tail, or pinned when its turn is split.
        let last_user = structure
            .turn_starts
            .last()
            .copied()
            .filter(|&i| i >= head_end.max(self.plan.boundary));
        // The tail never starts after the step with the user's newest words, nor after the
        // newest step: from there on everything is kept.
        let kept_from = [structure.newest_words, structure.newest_step]
            .into_iter()
            .flatten()
            .map(|k| k.max(head_end))
            .min();
        let mut words: usize = kept_from.map_or(0, |k| self.tokens[k..].iter().sum());
        // The newest user message before them (or alone) is kept too.
        if let Some(u) = last_user.filter(|&u| kept_from.is_none_or(|k| u < k)) {
            if self.plan.pinned != Some(u) {
                words += self.tokens[u];
            }
        }
        let needed =
            self.plan.tokens.head + self.plan.pinned.map_or(0, |i| self.tokens[i]) + words + REPLY_PRIMING;
        // The summaries shrink to the room left (down to the marker), so they need at least
        // the marker's message when there are any.
        let summaries = match self.plan.evict.is_empty() && self.plan.tokens.summaries == 0 {
            true => 0,
            false => count_message(&super::text_message(Role::Assistant, MARKER), &self.input.counter),
        };
        let available = self.input.budget.input;
        if needed + summaries > available && self.input.config.overflow == Overflow::Error {
            return Err(Error::ContextOverflow {
                needed,
                summaries,
                available,
                hint: "raise contextWindow, lower reservedOutputTokens or summaryMaxTokens, or set overflow: \"truncate\"",
            });
        }
        Ok(())
    }
}

/// What a compaction's summaries may take, planned before they are made: a slot per
/// summarizer call beside the earlier ones (additive), at most what a fold leaves (chunks
/// past `foldRatio` of the window fold into one; a failed fold falls back to the
/// extractive one).
fn summary_reservation(input: &Input, slot: usize, earlier: usize, calls: usize) -> usize {
    let cfg = &input.config;
    let fold_cap = ((cfg.fold_ratio * input.budget.window as f64) as usize).max(slot);
    match cfg.strategy {
        Strategy::Additive => earlier + calls * slot,
        Strategy::Rolling => calls * slot,
    }
    .min(fold_cap)
}
