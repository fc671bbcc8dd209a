//! Where a conversation may be cut, kept as messages are appended (the scan behind
//! `compact::partition::Structure`): a history of thousands of messages is not read again
//! on every turn.

use super::{Message, MessageRole, Part};

/// The scan of a conversation's messages so far.
#[derive(Clone, Debug, Default)]
pub struct Cuts {
    /// `cut[p]`: a cut before message `p` is allowed, for `p` in `0..=len`. The last is as
    /// the scan left it (a conversation's end is always a cut point: see
    /// [`Cuts::cut_points`]), since the next message may change it.
    cut: Vec<bool>,
    /// Tool calls made and not answered yet.
    open: Vec<String>,
    /// Positions where a turn starts (each a cut point before a user message that is not
    /// only tool results), ascending.
    turn_starts: Vec<usize>,
    /// `tools[i]`: message `i` makes or answers a tool call.
    tools: Vec<bool>,
}

impl Cuts {
    /// Scans `messages[from..]`, the messages before `from` scanned already (`from` is
    /// what this scan holds).
    pub fn extend(&mut self, messages: &[Message], from: usize) {
        debug_assert_eq!(from, self.tools.len(), "a scan goes on from where it stopped");
        if self.cut.is_empty() {
            self.cut.push(true);
        }
        for (i, m) in messages.iter().enumerate().skip(from) {
            // The user's new words abandon the calls still unanswered (a cancelled call):
            // the turn they start may be cut before, as any other, and is no part of those
            // steps.
            let words = m.starts_turn();
            if words && !self.open.is_empty() && m.result_ids().next().is_none() {
                self.open.clear();
                self.cut[i] = !reasoning_only(&messages[i - 1]);
            }
            for part in &m.parts {
                match part {
                    Part::ToolCall { id, .. } => self.open.push(id.clone()),
                    Part::ToolResult { call_id, .. } => self.open.retain(|id| id != call_id),
                    _ => {}
                }
            }
            if words {
                self.open.clear();
            }
            self.cut.push(self.open.is_empty() && !reasoning_only(m));
            // `cut[i]` is final now.
            if self.cut[i] && words {
                self.turn_starts.push(i);
            }
            self.tools
                .push(m.call_ids().next().is_some() || m.result_ids().next().is_some());
        }
    }

    /// The cut points of the first `len` messages (`0..=len`; the end is one), the turn
    /// starts among them, and which of them make or answer tool calls: what a scan of
    /// `messages[..len]` alone gives.
    pub fn cut_points(&self, len: usize) -> (Vec<bool>, Vec<usize>, Vec<bool>) {
        let mut cut = self.cut[..=len].to_vec();
        cut[len] = true;
        let starts = self.turn_starts.partition_point(|&p| p < len);
        (
            cut,
            self.turn_starts[..starts].to_vec(),
            self.tools[..len].to_vec(),
        )
    }
}

/// An assistant item with nothing but reasoning (a Responses reasoning item): the
/// Responses API rejects it without the item it led to, so no cut goes right after it.
pub fn reasoning_only(m: &Message) -> bool {
    m.role == MessageRole::Assistant
        && !m.parts.is_empty()
        && m.parts
            .iter()
            .all(|p| matches!(p, Part::Reasoning(_) | Part::Opaque { .. }))
}
