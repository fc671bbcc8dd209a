//! Where a conversation may be cut, and the head / middle / tail split.
//!
//! A *cut point* is a position between two messages where no tool call is waiting for its
//! result (parallel calls included) and the message before is not a lone reasoning item
//! (the Responses API rejects a reasoning item without the item it led to). A *turn*
//! starts at a cut point before a user message that is not only tool results. Compaction
//! cuts at turn starts; when the newest turn alone is too big (an agent loop is often one
//! turn of hundreds of steps), it cuts inside that turn at its cut points, so a call and
//! its results are never separated, and the turn's user message stays verbatim. When the
//! conversation ends with tool results, that newest step always stays in the tail.

use crate::messages::cuts::Cuts;
use crate::messages::{Conversation, Message, MessageRole};

/// Cut points and turn starts of a message list.
#[derive(Clone, Debug, PartialEq)]
pub struct Structure {
    /// `cut[p]`: the list may be cut before message `p` (`p` in `0..=len`).
    pub cut: Vec<bool>,
    /// Positions where a turn starts (each is a cut point), ascending.
    pub turn_starts: Vec<usize>,
    /// Where the step holding the user's newest words starts, when those words came with
    /// tool results (an Anthropic `[tool_result, text]` user message, which answers a call
    /// and so starts no turn): the tail never starts after it, so the words are kept with
    /// the call they answer. `None` when the newest user message starts a turn (it is then
    /// kept as the newest turn's user message).
    pub newest_words: Option<usize>,
    /// Where the newest step starts when the conversation ends with tool results (the
    /// calls of an agent's step and what they returned, which the model is about to read):
    /// the tail never starts after it. `None` when it ends otherwise.
    pub newest_step: Option<usize>,
    /// `tools[i]`: message `i` makes or answers a tool call (it is part of an agent's step).
    pub tools: Vec<bool>,
}

impl Structure {
    /// Analyses `messages`.
    pub fn of(messages: &[Message]) -> Self {
        let mut cuts = Cuts::default();
        cuts.extend(messages, 0);
        Structure::from_cuts(messages, &cuts, messages.len())
    }

    /// Analyses the first `len` messages of `conv` (all of them, or a prefix), from the scan
    /// it keeps as messages are appended: as [`Structure::of`] would, without reading them.
    pub fn of_prefix(conv: &Conversation, len: usize) -> Self {
        Structure::from_cuts(&conv.messages()[..len], conv.cuts(), len)
    }

    fn from_cuts(messages: &[Message], cuts: &Cuts, n: usize) -> Self {
        let (cut, turn_starts, tools) = cuts.cut_points(n);
        let newest_words = messages
            .iter()
            .rposition(Message::starts_turn)
            .filter(|u| turn_starts.last() != Some(u))
            .map(|u| (0..=u).rev().find(|&q| cut[q]).unwrap_or(0));
        let newest_step = (0..n)
            .rev()
            .find(|&q| cut[q])
            .filter(|_| messages.last().is_some_and(|m| m.result_ids().next().is_some()));
        Structure {
            cut,
            turn_starts,
            newest_words,
            newest_step,
            tools,
        }
    }

    /// Where a tail that whole turns start at `start` begins when the newest steps of the
    /// finished turn before (`lower..start`) could begin it at `p`: at `p` when that turn is
    /// an agent's (it has tool steps, whose newest calls, results and answer are worth more
    /// than their summary), else at `start`: a plain exchange is kept whole or summarized
    /// whole, never its answer without the request it answers.
    fn steps_before(&self, lower: usize, p: usize, start: usize) -> usize {
        match (lower..start).any(|i| self.tools[i]) {
            true => p,
            false => start,
        }
    }

    /// The last cut point at or before `p`.
    pub fn cut_at_or_before(&self, p: usize) -> usize {
        (0..=p).rev().find(|&q| self.cut[q]).unwrap_or(0)
    }
}

/// The leading system messages: always kept, never summarized.
pub fn head_len(messages: &[Message]) -> usize {
    messages
        .iter()
        .take_while(|m| m.role == MessageRole::System)
        .count()
}

/// Recent inputs looked at to bound the next one.
const RECENT_INPUTS: usize = 4;

/// What the next input may take (`results`: tool results; else the user's message): the
/// largest input of its kind in `messages` so far, and at least twice the largest of the
/// recent ones. A compaction planned before that input leaves it this much room (so what
/// it evicts does not depend on the input: `prepareAhead` plans it before the input comes),
/// and `prepareAhead` plans only when the input now and this much more may pass the
/// threshold.
pub fn input_bound(messages: &[Message], counts: &[usize], results: bool) -> usize {
    let of_kind = |m: &Message| match results {
        true => m.result_ids().next().is_some(),
        false => m.starts_turn(),
    };
    let sizes: Vec<usize> = (0..messages.len())
        .rev()
        .filter(|&i| of_kind(&messages[i]))
        .map(|i| counts[i])
        .collect();
    let recent = sizes.iter().take(RECENT_INPUTS).max().copied().unwrap_or(0);
    let largest = sizes.iter().max().copied().unwrap_or(0);
    (2 * recent).max(largest)
}

/// What the verbatim tail may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TailRoom {
    /// The tail's target: whole turns are added, newest first, while they fit this many
    /// tokens (unless `floor_only`), and a newest turn too large for it is cut to it.
    pub want: usize,
    /// Keep only the floor's turns (a manual compaction: the user asked for room): whole, and
    /// where the next of them is too large to keep whole, its newest steps within `floor_cap`.
    pub floor_only: bool,
    /// The newest `floor` turns are kept whatever `want` says, while they fit `floor_cap`
    /// (or `want`, if more).
    pub floor: usize,
    /// What the floor's turns may take: half of `hard`, and no more than keeps the input
    /// under the threshold.
    pub floor_cap: usize,
    /// The most the tail can take (the budget less everything else).
    pub hard: usize,
    /// Whether the newest complete exchange counts in the floor.
    pub exchange: bool,
}

/// Chooses where the verbatim tail starts.
///
/// `from` is the first message that may be evicted, `tokens[i]` each message's tokens.
/// Keeps as many whole turns as fit `room.want` and the newest steps of the turn before
/// them that still fit (cut at a cut point), and at least the newest `room.floor`
/// (degrading to fewer when they take more than `room.floor_cap`, or `room.want` if
/// more); with `room.exchange`, the newest complete exchange whenever it fits `room.hard`
/// (a conversation ending with a user message keeps the turn before it). If the newest turn alone does not fit, keeps its user message (`pinned`) and as
/// many of its most recent steps as fit the target, cut at cut points. Returns `(tail_start,
/// pinned)`: messages `tail_start..` are the tail, and `pinned` (if any) is the newest
/// user message kept although it lies before `tail_start`.
pub fn choose_tail(
    structure: &Structure,
    tokens: &[usize],
    from: usize,
    room: TailRoom,
) -> (usize, Option<usize>) {
    let n = tokens.len();
    let starts: Vec<usize> = structure
        .turn_starts
        .iter()
        .copied()
        .filter(|&s| s >= from)
        .collect();
    // sums[k]: the tokens of the newest k turns.
    let mut sums = vec![0usize; starts.len() + 1];
    let mut end = n;
    for k in 1..=starts.len() {
        let start = starts[starts.len() - k];
        sums[k] = sums[k - 1] + tokens[start..end].iter().sum::<usize>();
        end = start;
    }
    let wanted = match room.floor_only {
        true => 0,
        false => (1..=starts.len())
            .take_while(|&k| sums[k] <= room.want)
            .last()
            .unwrap_or(0),
    };
    // A lone user message at the end is no exchange yet: the turn before it counts too.
    let exchange = 1 + usize::from(room.exchange && starts.last().is_some_and(|&s| s + 1 == n));
    // The floor's turns may take half of what is left (short of the threshold), or the
    // target's room if that is more (an agent's turns can each be most of the window: four
    // of them are no floor);
    // the newest complete exchange may take all of it.
    let floor_room = room.want.max(room.floor_cap).min(room.hard);
    let floor = room.floor.min(starts.len());
    let floored = (1..=floor).rev().find(|&k| sums[k] <= floor_room).unwrap_or(0);
    let exchange = exchange.min(starts.len());
    let exchanged = (1..=exchange).rev().find(|&k| sums[k] <= room.hard).unwrap_or(0);
    let k = wanted.max(floored).max(exchanged);
    if k > 0 {
        let start = starts[starts.len() - k];
        // Room left within the target goes to the newest steps of the turn before (or of the
        // steps before the first turn), cut at a cut point: the tail is sized by tokens.
        let lower = starts.len().checked_sub(k + 1).map_or(from, |j| starts[j]);
        if room.floor_only {
            // The floor's whole turns; where the next of them is too large to keep whole (an
            // agent's turn), its newest steps, within what the floor may take.
            if k >= floor {
                return (start, None);
            }
            let p = steps_that_fit(structure, tokens, lower, floor_room).min(start);
            return (structure.steps_before(lower, p, start), None);
        }
        let p = steps_that_fit(structure, tokens, lower, room.want).min(start);
        return (structure.steps_before(lower, p, start), None);
    }
    let budget = room.want.min(room.hard);
    // The newest turn does not fit: keep its user message and its newest steps, and the
    // step with the user's newest words whatever it costs (the fit check says if it cannot).
    let words = structure.newest_words.map_or(tokens.len(), |w| w.max(from));
    // The newest step's results are kept too (cut to fit beforehand when they are large).
    let words = structure.newest_step.map_or(words, |s| words.min(s.max(from)));
    let Some(&user) = starts.last() else {
        // No user message since `from` (a boundary inside an agent turn): steps only.
        return (steps_that_fit(structure, tokens, from, budget).min(words), None);
    };
    let rest = budget.saturating_sub(tokens[user]);
    let start = steps_that_fit(structure, tokens, user + 1, rest).min(words.max(user + 1));
    if start == user + 1 {
        (user, None)
    } else {
        (start, Some(user))
    }
}

/// The earliest cut point `p >= from` such that messages `p..` fit `budget` (`len` if
/// nothing fits).
fn steps_that_fit(structure: &Structure, tokens: &[usize], from: usize, budget: usize) -> usize {
    let n = tokens.len();
    let mut total = 0;
    let mut best = n;
    for p in (from..n).rev() {
        total += tokens[p];
        if total > budget {
            break;
        }
        if structure.cut[p] {
            best = p;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::Conversation;
    use serde_json::json;

    /// A room whose floor is `floor` turns and whose target and limit are both `tokens`.
    fn room(floor: usize, tokens: usize) -> TailRoom {
        TailRoom {
            want: tokens,
            floor_only: false,
            floor,
            floor_cap: tokens / 2,
            hard: tokens,
            exchange: true,
        }
    }

    fn conv(v: serde_json::Value) -> Vec<Message> {
        Conversation::parse(&v, None).unwrap().messages().to_vec()
    }

    fn agent() -> Vec<Message> {
        conv(json!([
            {"role": "system", "content": "s"},
            {"role": "user", "content": "task"},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "a", "type": "function", "function": {"name": "t", "arguments": "{}"}},
                {"id": "b", "type": "function", "function": {"name": "t", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "a", "content": "1"},
            {"role": "tool", "tool_call_id": "b", "content": "2"},
            {"role": "assistant", "content": "step"},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "t", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c", "content": "3"},
            {"role": "user", "content": "next"},
            {"role": "assistant", "content": "ok"}
        ]))
    }

    #[test]
    fn cuts_never_split_calls_from_results() {
        let s = Structure::of(&agent());
        assert_eq!(
            s.cut,
            [true, true, true, false, false, true, true, false, true, true, true]
        );
        assert_eq!(s.turn_starts, [1, 8]);
        assert_eq!(head_len(&agent()), 1);
    }

    #[test]
    fn a_call_never_answered_ends_where_the_user_speaks_again() {
        let m = conv(json!([
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "x", "type": "function", "function": {"name": "t", "arguments": "{}"}}]},
            {"role": "user", "content": "never mind, another question"},
            {"role": "assistant", "content": "ok"},
            {"role": "user", "content": "and?"}
        ]));
        let s = Structure::of(&m);
        assert_eq!(s.cut, [true; 6]);
        assert_eq!(s.turn_starts, [0, 2, 4]);
    }

    #[test]
    fn an_empty_user_message_starts_a_turn() {
        // An attachment whose parts were stripped upstream: still the user's newest words.
        let m = conv(json!([
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": "a"},
            {"role": "user", "content": []}
        ]));
        assert_eq!(Structure::of(&m).turn_starts, [0, 2]);
    }

    #[test]
    fn reasoning_items_stay_with_what_follows() {
        let m = conv(json!([
            {"role": "user", "content": "q"},
            {"type": "reasoning", "id": "r", "summary": []},
            {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c", "output": "x"},
        ]));
        let s = Structure::of(&m);
        assert_eq!(s.cut, [true, true, false, false, true]);
    }

    #[test]
    fn the_newest_words_with_a_tool_result_keep_their_step() {
        let m = conv(json!({"messages": [
            {"role": "user", "content": "task"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "t", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", "content": "1"}]},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "b", "name": "t", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "b", "content": "2"}, {"type": "text", "text": "stop"}]}
        ]}));
        let s = Structure::of(&m);
        assert_eq!(s.turn_starts, [0]);
        assert_eq!(s.newest_words, Some(3));
        // A budget for nothing but the user message: the last step stays anyway.
        assert_eq!(choose_tail(&s, &[5, 10, 10, 10, 50], 0, room(4, 6)), (3, Some(0)));
        // A plain newest user message needs nothing more.
        assert_eq!(Structure::of(&agent()).newest_words, None);
    }

    #[test]
    fn tail_degrades_then_splits_the_newest_turn() {
        let m = agent();
        let s = Structure::of(&m);
        let tokens = [5, 10, 20, 30, 30, 10, 20, 30, 10, 10];
        // Both turns fit.
        assert_eq!(choose_tail(&s, &tokens, 1, room(4, 1000)), (1, None));
        // Only the newest turn fits (20 tokens).
        assert_eq!(choose_tail(&s, &tokens, 1, room(4, 25)), (8, None));
        // With the newest turn at the end of an agent loop: drop the last user turn.
        let tokens = [5, 10, 20, 30, 30, 10, 20, 30, 10, 10];
        let m2 = &m[..8];
        let s2 = Structure::of(m2);
        // Newest turn = messages 1..8 (150 tokens); budget 70: keep the user message (10)
        // and the newest steps that fit at a cut point: 5..8 is 60 tokens.
        assert_eq!(choose_tail(&s2, &tokens[..8], 1, room(4, 70)), (5, Some(1)));
        // One token less and the cut moves to the next cut point, never between 6 and 7.
        assert_eq!(choose_tail(&s2, &tokens[..8], 1, room(4, 69)), (6, Some(1)));
        // Budget too small for any step: the user message and the newest step, whose results
        // the model is about to read (the engine cuts them to fit first).
        assert_eq!(s2.newest_step, Some(6));
        assert_eq!(choose_tail(&s2, &tokens[..8], 1, room(4, 15)), (6, Some(1)));
        // A conversation that ends otherwise has no such step.
        assert_eq!(s.newest_step, None);
    }

    #[test]
    fn tail_takes_whole_turns_up_to_the_target_and_keeps_its_floor() {
        // Five turns of a user message (10) and a reply (30): 40 tokens a turn.
        let m = conv(json!((0..10)
            .map(|i| if i % 2 == 0 {
                json!({"role": "user", "content": "q"})
            } else {
                json!({"role": "assistant", "content": "a"})
            })
            .collect::<Vec<_>>()));
        let s = Structure::of(&m);
        let tokens = [10, 30, 10, 30, 10, 30, 10, 30, 10, 30];
        let tail = |want, floor, hard| {
            choose_tail(
                &s,
                &tokens,
                0,
                TailRoom {
                    want,
                    floor_only: false,
                    floor,
                    floor_cap: hard / 2,
                    hard,
                    exchange: true,
                },
            )
            .0
        };
        // As many turns as the target holds, beyond a floor of one.
        assert_eq!(tail(130, 1, 200), 4);
        assert_eq!(tail(160, 1, 200), 2);
        // The floor keeps its turns past the target, while they fit half the limit...
        assert_eq!(tail(50, 4, 400), 2);
        // ...degrading to fewer when they do not (two turns, 80 tokens, fit 100).
        assert_eq!(tail(50, 4, 200), 6);
        // A lone user message at the end keeps the exchange before it, even with no floor.
        let open = &m[..9];
        let s = Structure::of(open);
        let nothing_but = |floor_only: bool| TailRoom {
            want: 0,
            floor_only,
            floor: 0,
            floor_cap: 50,
            hard: 100,
            exchange: !floor_only,
        };
        assert_eq!(choose_tail(&s, &tokens[..9], 0, nothing_but(false)).0, 6);
        // Without the exchange rule (a manual compaction), no floor keeps nothing but the message.
        assert_eq!(choose_tail(&s, &tokens[..9], 0, nothing_but(true)).0, 8);
    }

    #[test]
    fn a_plain_exchange_is_kept_whole_or_not_at_all() {
        // Plain turns: the room left past the newest whole turn would take the answer of the
        // turn before but not its request; the answer goes with its request, to the summary.
        let m = conv(json!([
            {"role": "user", "content": "q1"},
            {"role": "assistant", "content": "a1"},
            {"role": "user", "content": "q2"},
            {"role": "assistant", "content": "a2"},
            {"role": "user", "content": "q3"}
        ]));
        let s = Structure::of(&m);
        let room = |want| TailRoom {
            want,
            floor_only: false,
            floor: 1,
            floor_cap: want,
            hard: 1000,
            exchange: true,
        };
        let tokens = [100, 100, 100, 100, 10];
        assert_eq!(choose_tail(&s, &tokens, 0, room(350)).0, 2);
        assert_eq!(choose_tail(&s, &tokens, 0, room(450)).0, 0);
    }

    #[test]
    fn a_manual_compaction_keeps_the_newest_steps_of_a_floor_turn_too_large_to_keep_whole() {
        // An agent's turn (task, two steps, the answer) and the user's next message.
        let m = conv(json!([
            {"role": "system", "content": "s"},
            {"role": "user", "content": "task"},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "a", "type": "function", "function": {"name": "t", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "a", "content": "1"},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "b", "type": "function", "function": {"name": "t", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "b", "content": "2"},
            {"role": "assistant", "content": "done"},
            {"role": "user", "content": "next"}
        ]));
        let s = Structure::of(&m);
        let tokens = [5, 10, 10, 400, 10, 400, 20, 10];
        let manual = |floor_cap| TailRoom {
            want: floor_cap,
            floor_only: true,
            floor: 4,
            floor_cap,
            hard: 2000,
            exchange: false,
        };
        // The agent's turn (850) is more than the floor may take (500): its newest steps that
        // fit, the last call with its result and the answer, stay with the new message.
        assert_eq!(choose_tail(&s, &tokens, 1, manual(500)).0, 4);
        // Where it fits, the whole turn.
        assert_eq!(choose_tail(&s, &tokens, 1, manual(900)).0, 1);
        // Less room: the answer alone (a step), never a result without its call.
        assert_eq!(choose_tail(&s, &tokens, 1, manual(100)).0, 6);
    }
}
