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

use crate::messages::{Message, Part, Role};

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
}

impl Structure {
    /// Analyses `messages`.
    pub fn of(messages: &[Message]) -> Self {
        let n = messages.len();
        let mut cut = vec![false; n + 1];
        let mut open: Vec<&str> = Vec::new();
        cut[0] = true;
        for (i, m) in messages.iter().enumerate() {
            for part in &m.parts {
                match part {
                    Part::ToolCall { id, .. } => open.push(id),
                    Part::ToolResult { call_id, .. } => open.retain(|id| id != call_id),
                    _ => {}
                }
            }
            cut[i + 1] = open.is_empty() && !reasoning_only(m);
        }
        cut[n] = true;
        let turn_starts: Vec<usize> = (0..n).filter(|&p| cut[p] && messages[p].starts_turn()).collect();
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
        }
    }

    /// The last cut point at or before `p`.
    pub fn cut_at_or_before(&self, p: usize) -> usize {
        (0..=p).rev().find(|&q| self.cut[q]).unwrap_or(0)
    }
}

/// An assistant item holding nothing but reasoning.
fn reasoning_only(m: &Message) -> bool {
    m.role == Role::Assistant
        && !m.parts.is_empty()
        && m.parts
            .iter()
            .all(|p| matches!(p, Part::Reasoning(_) | Part::Opaque { .. }))
}

/// The leading system messages: always kept, never summarized.
pub fn head_len(messages: &[Message]) -> usize {
    messages.iter().take_while(|m| m.role == Role::System).count()
}

/// Chooses where the verbatim tail starts.
///
/// `from` is the first message that may be evicted, `tokens[i]` each message's tokens,
/// `budget` what the tail may take. Tries the last `turns` turns, then fewer (the
/// degrading guard), down to the newest turn; if that is still too big, keeps the newest
/// turn's user message (`pinned`) and as many of its most recent steps as fit, cut at
/// cut points. Returns `(tail_start, pinned)`: messages `tail_start..` are the tail, and
/// `pinned` (if any) is the newest user message kept although it lies before `tail_start`.
pub fn choose_tail(
    structure: &Structure,
    tokens: &[usize],
    from: usize,
    turns: usize,
    budget: usize,
) -> (usize, Option<usize>) {
    let sum = |a: usize| tokens[a..].iter().sum::<usize>();
    let starts: Vec<usize> = structure
        .turn_starts
        .iter()
        .copied()
        .filter(|&s| s >= from)
        .collect();
    // Whole turns, newest first; at least the newest turn is tried.
    for k in (1..=turns.max(1).min(starts.len())).rev() {
        let start = starts[starts.len() - k];
        if sum(start) <= budget {
            return (start, None);
        }
    }
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
        assert_eq!(choose_tail(&s, &[5, 10, 10, 10, 50], 0, 4, 6), (3, Some(0)));
        // A plain newest user message needs nothing more.
        assert_eq!(Structure::of(&agent()).newest_words, None);
    }

    #[test]
    fn tail_degrades_then_splits_the_newest_turn() {
        let m = agent();
        let s = Structure::of(&m);
        let tokens = [5, 10, 20, 30, 30, 10, 20, 30, 10, 10];
        // Both turns fit.
        assert_eq!(choose_tail(&s, &tokens, 1, 4, 1000), (1, None));
        // Only the newest turn fits (20 tokens).
        assert_eq!(choose_tail(&s, &tokens, 1, 4, 25), (8, None));
        // With the newest turn at the end of an agent loop: drop the last user turn.
        let tokens = [5, 10, 20, 30, 30, 10, 20, 30, 10, 10];
        let m2 = &m[..8];
        let s2 = Structure::of(m2);
        // Newest turn = messages 1..8 (150 tokens); budget 70: keep the user message (10)
        // and the newest steps that fit at a cut point: 5..8 is 60 tokens.
        assert_eq!(choose_tail(&s2, &tokens[..8], 1, 4, 70), (5, Some(1)));
        // One token less and the cut moves to the next cut point, never between 6 and 7.
        assert_eq!(choose_tail(&s2, &tokens[..8], 1, 4, 69), (6, Some(1)));
        // Budget too small for any step: the user message and the newest step, whose results
        // the model is about to read (the engine cuts them to fit first).
        assert_eq!(s2.newest_step, Some(6));
        assert_eq!(choose_tail(&s2, &tokens[..8], 1, 4, 15), (6, Some(1)));
        // A conversation that ends otherwise has no such step.
        assert_eq!(s.newest_step, None);
    }
}
