//! Planning: the state checked against the history, the head, the token breakdown, the
//! trigger, and where the verbatim tail starts (and with it what is evicted).

use super::super::partition::{choose_tail, head_len, input_bound, Structure, TailRoom};
use super::super::prune::Applied;
use super::super::sign;
use super::super::state::{CompactState, Trigger, VERSION};
use super::super::summary::MARKER;
use super::super::types::{CompactPlan, Input, PlanTokens};
use super::{chunk_tokens, Compaction};
use crate::config::{Overflow, Preset, Strategy};
use crate::count::{count_message, REPLY_PRIMING};
use crate::messages::{Message, MessageRole, Part};
use crate::Error;

/// Tokens a rendered message may take beyond its own count (the `[role calls tool]` prefix).
const RENDER_SLACK: usize = 8;

/// The state passed in, when it holds for this history, and why it was dropped if not.
pub(super) fn restore_state(input: &Input, digests: &[u64]) -> (CompactState, Option<String>) {
    let (state, reset) = match input.state.clone() {
        None => (CompactState::default(), None),
        Some(s) if s.version != VERSION => (
            CompactState::default(),
            Some(format!("state version {} is not {VERSION}", s.version)),
        ),
        // Signed state: one changed anywhere a signature covers is not used at all.
        Some(s) if input.config.state_key.as_deref().is_some_and(|k| !sign::verify(k, &s)) => (
            CompactState::default(),
            Some(match s.signature {
                None => "state.signature is missing (options.stateKey is set); starting over from the full history".into(),
                Some(_) => "state.signature does not match (the state was changed, or signed with another key); starting over from the full history".into(),
            }),
        ),
        Some(s) => {
            let marks = [
                ("boundary", s.boundary),
                ("pruneBoundary", s.prune_boundary),
                ("pinned", s.pinned),
            ];
            let cuts = s.step_cuts.iter().map(|c| ("stepCuts", Some(c.end)));
            match marks
                .into_iter()
                .chain(cuts)
                .find(|(_, m)| m.is_some_and(|m| !m.holds(digests)))
            {
                Some((name, _)) => (
                    CompactState::default(),
                    Some(format!(
                        "the history before state.{name} changed; starting over from the full history"
                    )),
                ),
                None => (s, None),
            }
        }
    };
    if input.config.preset == Preset::Off {
        return (CompactState::default(), reset);
    }
    (state, reset)
}

/// The head and where the verbatim part starts.
pub(super) struct Head {
    /// The tokens of what the request sends beside its messages (its top-level system prompt
    /// and tools: `Conversation::system`).
    pub system: usize,
    /// Of `system`, what the tool definitions add (the request's `tools`, and Anthropic's
    /// tool-use system prompt).
    pub tool_definitions: usize,
    /// The first message after the head (leading system messages, and the task when it is
    /// pinned and comes first).
    pub end: usize,
    /// The first user message, pinned after the head (`pinFirstUserTurn`), once a later
    /// user message exists.
    pub pinned_first: Option<usize>,
    /// The first message sent verbatim (after earlier summaries).
    pub boundary: usize,
    /// The messages holding a provider's compaction that earlier compactions passed (before
    /// `boundary`): kept after the head, never summarized.
    pub kept: Vec<usize>,
    /// The newest user message an earlier compaction kept although its turn was split.
    pub old_pinned: Option<usize>,
    /// The head's tokens: Anthropic's `system`, the leading messages and the pinned task.
    pub tokens: usize,
    /// The tokens of the summary message the state's chunks make (0: none).
    pub summaries: usize,
    /// The input's tokens as given: nothing pruned or compacted now (earlier summaries
    /// applied): the prune trigger's measure and the report's `tokensBefore`.
    pub given: usize,
}

impl Head {
    pub fn of(input: &Input, state: &CompactState) -> Head {
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
        // A provider's compaction right after the head (or the task) joins it, as the task does.
        while end < messages.len() && (messages[end].holds_compaction() || pinned_first == Some(end)) {
            end += 1;
        }
        let pinned_first = pinned_first.filter(|&i| i >= end);
        let boundary = state.boundary.map_or(end, |m| m.index.max(end));
        // The pinned mark sits just after the pinned message.
        let old_pinned = state
            .pinned
            .and_then(|m| m.index.checked_sub(1))
            .filter(|&i| i < boundary && i >= end);
        let kept: Vec<usize> = (end..boundary)
            .filter(|&i| messages[i].holds_compaction() && Some(i) != pinned_first && Some(i) != old_pinned)
            .collect();
        let raw = &input.counts;
        // Through the count cache: a request's tools can be tens of kilobytes, the same each turn.
        let count = |m: Message| crate::count::count_each_with_hits(&[m], &input.counter).0[0];
        let system = input.conv.system().map_or(0, count);
        let prompt = input.conv.system_prompt().map_or(0, count);
        let mut head = Head {
            system,
            tool_definitions: system.saturating_sub(prompt),
            end,
            pinned_first,
            boundary,
            old_pinned,
            tokens: system
                + raw[..end].iter().sum::<usize>()
                + pinned_first.map_or(0, |i| raw[i])
                + kept.iter().map(|&i| raw[i]).sum::<usize>(),
            kept,
            summaries: chunk_tokens(&state.chunks, &input.counter, input.config.recall),
            given: 0,
        };
        head.given = unpruned_total(input, &head);
        head
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
) -> CompactPlan {
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
    let tool_results: usize = (head.boundary..n)
        .filter(|&i| messages[i].role == MessageRole::Tool)
        .map(|i| tokens[i])
        .sum();
    let trigger = match input.config.preset {
        Preset::Off => None,
        _ if input.manual => Some(Trigger::Manual),
        _ if input.ahead => Some(Trigger::Threshold),
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
    CompactPlan {
        budget: input.budget,
        tokens: PlanTokens {
            total,
            given: head.given,
            head: head_tokens,
            summaries,
            middle: evict_tokens,
            tail: total - head_tokens - summaries - evict_tokens - REPLY_PRIMING,
            tool_definitions: head.tool_definitions,
            tool_results,
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

/// The messages holding a provider's compaction that go out after the head: those earlier
/// compactions passed, and those this one passes (before its tail).
pub(super) fn kept(messages: &[Message], head: &Head, plan: &CompactPlan) -> Vec<usize> {
    let start = match plan.trigger.is_some() && !plan.evict.is_empty() {
        true => plan.tail_start,
        false => plan.boundary,
    };
    let mut kept = head.kept.clone();
    kept.extend((head.boundary..start).filter(|&i| messages[i].holds_compaction()));
    kept
}

/// The input's tokens as it would go out with nothing pruned or compacted now (the
/// summaries of earlier compactions included).
fn unpruned_total(input: &Input, head: &Head) -> usize {
    let live: usize = (head.boundary..input.counts.len())
        .filter(|&i| Some(i) != head.pinned_first)
        .map(|i| input.counts[i])
        .sum();
    head.tokens + head.old_pinned.map_or(0, |i| input.counts[i]) + head.summaries + live + REPLY_PRIMING
}

/// The input's tokens a compaction aims at: `targetRatio` of the input budget, or of the
/// threshold when that is lower (a compaction must land below what triggers the next one).
pub(super) fn target_tokens(input: &Input) -> usize {
    (input.config.target_ratio * input.budget.room() as f64) as usize
}

/// Tokens a summary message takes beyond its chunks' and the line that says it is data (the
/// message's own, the blank lines between chunks, the ledger line's prefix).
pub(super) const SUMMARY_FRAMING: usize = 16;

/// Tokens a summary message takes beyond its chunks': [`SUMMARY_FRAMING`] and the line that
/// says it is data ([`crate::compact::summary::frame`]), with its closing line when the
/// summary may go at the start of another message (`alternateRoles`).
pub(super) fn framing(input: &Input) -> usize {
    let c = &input.config;
    SUMMARY_FRAMING + crate::compact::summary::frame::cost(&input.counter, c.alternate_roles, c.recall)
}

/// What one summary chunk may take in the input: its cap, the reserved identifier ledger,
/// framing.
pub(super) fn summary_slot(input: &Input, sizes: Sizes) -> usize {
    sizes.summary_max
        + input
            .config
            .ledger_tokens(input.budget.window, input.budget.room())
        + framing(input)
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
    let turn = structure
        .turn_starts
        .iter()
        .rev()
        .copied()
        .find(|&u| u < step && u >= head.boundary);
    let user = turn.map_or(0, |u| input.counts[u]);
    let summaries = match input.config.strategy {
        Strategy::Additive => head.summaries,
        Strategy::Rolling => 0,
    };
    let old_pinned = head.old_pinned.map_or(0, |i| input.counts[i]);
    // A new summary only when something before the step is left to summarize (besides the
    // turn's user message and the pinned one).
    let before_step = (head.boundary..step).any(|i| Some(i) != turn && Some(i) != head.old_pinned);
    let slot = if before_step {
        summary_slot(input, sizes)
    } else {
        0
    };
    input
        .budget
        .input
        .saturating_sub(head.tokens + old_pinned + user + summaries + slot + REPLY_PRIMING)
}

/// Where a compaction cuts.
struct Cut {
    tail_start: usize,
    pinned: Option<usize>,
    evict: Vec<usize>,
    calls: usize,
}

/// The tail, and with it the middle, beside the head and one summary slot (however many
/// summarizer calls the middle needs: their chunks fold, or shrink to what is left).
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
    // The user message an earlier compaction of this agent turn kept (pinned) stays while
    // the turn goes on (no user message since), its room first, unless it takes more than an
    // eighth of the input budget (a task statement that would crowd out the steps).
    let keep_pinned = head
        .old_pinned
        .filter(|&p| structure.turn_starts.iter().all(|&s| s <= p) && tokens[p] <= input.budget.input / 8);
    // A provider's compaction is kept whatever is evicted around it: its room first.
    let messages = input.conv.messages();
    let provider: usize = (head.boundary..messages.len())
        .filter(|&i| messages[i].holds_compaction())
        .map(|i| tokens[i])
        .sum();
    let fixed = fixed + keep_pinned.map_or(0, |p| tokens[p]) + provider;
    {
        let kept_summary = summary_reservation(input, summary_slot, summaries);
        // The limit reserves a summary slot, so the output fits (more chunks fold, or shrink
        // to the room left); the target is where the tail stops growing.
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
        let (tail_start, pin) = settled_tail(input, structure, head, tokens, room)
            .unwrap_or_else(|| choose_tail(structure, tokens, head.boundary, room));
        let pin = pin.or(keep_pinned.filter(|&p| p < tail_start));
        let mut evict: Vec<usize> = Vec::new();
        if let Some(p) = head.old_pinned.filter(|&p| Some(p) != pin) {
            evict.push(p);
        }
        evict.extend(
            (head.boundary..tail_start).filter(|&i| {
                Some(i) != pin && Some(i) != head.pinned_first && !messages[i].holds_compaction()
            }),
        );
        let calls = calls_needed(&evict, tokens, sizes.summarizer_input);
        Cut {
            tail_start,
            pinned: pin.or(head.old_pinned.filter(|&p| Some(p) == pin)),
            evict,
            calls,
        }
    }
}

/// When the conversation ends with what a turn adds (the user's new message, a turn of its
/// own so far, or the results of the newest step's calls and nothing else): the tail chosen
/// on the conversation before it, leaving room for an input as large as the largest of its
/// kind so far ([`input_bound`]), with what it adds after, if that is a cut of the whole
/// conversation that keeps the newest step with its call and fits what the tail may take.
/// What a compaction evicts then does not depend on what the turn adds, so the summary
/// `prepareAhead` makes before the turn (planned with a stand-in for what it adds) is the
/// one the turn asks for. `None`: the whole conversation decides.
fn settled_tail(
    input: &Input,
    structure: &Structure,
    head: &Head,
    tokens: &[usize],
    room: TailRoom,
) -> Option<(usize, Option<usize>)> {
    let messages = input.conv.messages();
    // A manual compaction keeps its floor's turns, the message one of them.
    let s = newest_input(messages, structure).filter(|&s| !input.manual && s > head.boundary)?;
    let before = Structure::of_prefix(&input.conv, s);
    // Room for an input as large as the largest of its kind so far, whatever it turns out to be.
    let results = !messages[s].starts_turn();
    let hard = room
        .hard
        .saturating_sub(input_bound(&messages[..s], &input.counts, results));
    let planned = TailRoom {
        want: room.want.min(hard),
        floor_cap: room.floor_cap.min(hard),
        hard,
        ..room
    };
    let (start, pin) = choose_tail(&before, &tokens[..s], head.boundary, planned);
    // A request kept for the newest turn of what came before, its steps cut: with the user's
    // new message that turn is over, and keeping its request without its answer would show
    // it open. The whole conversation decides.
    if pin.is_some() && !results {
        return None;
    }
    let verbatim: usize = tokens[start..].iter().sum::<usize>() + pin.map_or(0, |p| tokens[p]);
    let keeps = |mark: Option<usize>| mark.is_none_or(|m| start <= m);
    (structure.cut[start]
        && keeps(structure.newest_step)
        && keeps(structure.newest_words)
        && verbatim <= room.hard)
        .then_some((start, pin))
}

/// Where what the newest turn added starts: the user's message when it ends the
/// conversation as a turn of its own, or the results that end it when nothing but results
/// follows the calls.
fn newest_input(messages: &[Message], structure: &Structure) -> Option<usize> {
    let last = messages.len().checked_sub(1)?;
    if structure.turn_starts.last() == Some(&last) {
        return Some(last);
    }
    let results_only =
        |m: &Message| !m.parts.is_empty() && m.parts.iter().all(|p| matches!(p, Part::ToolResult { .. }));
    (0..messages.len())
        .rev()
        .take_while(|&i| results_only(&messages[i]))
        .last()
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
    /// What goes out verbatim and the smallest summary must fit: plan() and compact() meet
    /// `CONTEXT_OVERFLOW` here, at the same place.
    pub(super) fn check_fits(&self) -> Result<(), Error> {
        let tokens = &self.plan.tokens;
        // What goes out verbatim: the head, the tail as planned (never less than the
        // newest user message and the step the model is about to read: planning keeps
        // those whatever they cost), the reply's priming.
        let needed = tokens.total - tokens.summaries - tokens.middle;
        // The summaries shrink to the room left (down to the marker), so they need at least
        // the marker's message when there are any.
        let summaries = match self.plan.evict.is_empty() && tokens.summaries == 0 {
            true => 0,
            // In whichever role it goes out.
            false => [MessageRole::Assistant, MessageRole::User, MessageRole::System]
                .map(|r| count_message(&super::text_message(r, MARKER), &self.input.counter))
                .into_iter()
                .max()
                .unwrap_or(0),
        };
        let available = self.input.budget.input;
        if self.input.config.overflow == Overflow::Truncate {
            return self.check_truncated_fits(summaries);
        }
        if needed + summaries > available {
            return Err(Error::ContextOverflow {
                needed,
                summaries,
                available,
                hint: match self.input.config.preset {
                    Preset::Off => "preset: \"off\" sends the conversation as it is, and it is larger than the input budget; use another preset, or set overflow: \"truncate\"",
                    _ => "raise contextWindow, lower reservedOutputTokens or summaryMaxTokens, or set overflow: \"truncate\"",
                },
            });
        }
        Ok(())
    }
}

impl Compaction {
    /// With `overflow: "truncate"`: whether the input fits at its smallest, as `assemble`
    /// would make it: the summaries shrunk to the marker, then the largest text messages cut
    /// (the same layout and the same cuts, so `plan()` refuses exactly what `compact()` does).
    fn check_truncated_fits(&self, marker: usize) -> Result<(), Error> {
        let summarized = self.compacted() || !self.rounds.chunks.is_empty();
        let mut layout = self.layout_with(summarized.then(|| MARKER.to_owned()));
        self.merge_summary(&mut layout);
        let available = self.input.budget.input;
        let over = self.output_tokens(&layout.order).saturating_sub(available);
        if over > 0 {
            self.truncate_to_fit(&mut layout.order, over);
        }
        let smallest = self.output_tokens(&layout.order);
        if smallest <= available {
            return Ok(());
        }
        Err(Error::ContextOverflow {
            needed: smallest.saturating_sub(marker),
            summaries: marker,
            available,
            hint: super::assemble::TRUNCATED_DOES_NOT_FIT,
        })
    }
}

/// What a compaction's summaries may take, planned before they are made: one slot beside
/// the earlier ones (additive), at most what a fold leaves (chunks past `foldRatio` of the
/// window fold into one; a failed fold falls back). Not a slot per summarizer call: the
/// summaries take their real size, and what does not fit shrinks (`shrink_summaries`).
fn summary_reservation(input: &Input, slot: usize, earlier: usize) -> usize {
    let cfg = &input.config;
    let fold_cap = ((cfg.fold_ratio * input.budget.fold_base() as f64) as usize).max(slot);
    match cfg.strategy {
        Strategy::Additive => earlier + slot,
        Strategy::Rolling => slot,
    }
    .min(fold_cap)
}
