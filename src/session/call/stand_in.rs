//! [`Kind::Ahead`](super::Kind::Ahead): the summarizer requests the next turn's compaction
//! would make, planned on the stored history with a user message standing in for the next
//! turn's (see `session::prepare_ahead`). Nothing is written, and the stand-in leaves the cache
//! before the call ends.

use std::rc::Rc;

use super::{Done, Next, Work};
use crate::compact::partition::input_bound;
use crate::compact::Request;
use crate::messages::{Message, MessageRole, Part};
use crate::session::prepare_ahead::NEXT_TURN;
use crate::Error;

impl Work<'_> {
    /// Plans ahead, when `prepareAhead` is on: with a user message standing in for the next
    /// turn's, or, when tool calls wait for their results, with a result for each.
    pub(super) fn plan_ahead(&mut self) -> Result<Next, Error> {
        let cache = &mut self.at.cache;
        let settled = cache.len();
        let Some(soft) = self.core.ctx.ahead.filter(|_| settled > 0) else {
            return Ok(Next::Done(Done::Ahead(Vec::new())));
        };
        let open = open_calls(cache.conv.messages());
        let before = cache.conv.messages().len();
        let calls: Vec<(&str, &str)> = open
            .iter()
            .map(|(id, name)| (id.as_str(), name.as_str()))
            .collect();
        let stand_in = match calls.is_empty() {
            true => vec![cache.conv.text_item(MessageRole::User, NEXT_TURN)],
            false => cache.conv.result_items(&calls, NEXT_TURN),
        };
        // A stand-in the history does not take (a format that writes results otherwise) is
        // nothing to plan with; so is a plan that fails (the next turn reports it).
        let requests = match self.append(stand_in, "ahead") {
            Ok(()) => self
                .requests_ahead(soft, !open.is_empty(), before)
                .unwrap_or_default(),
            Err(_) => Vec::new(),
        };
        self.at.cache.truncate(settled);
        Ok(Next::Done(Done::Ahead(requests)))
    }

    /// The requests of the compaction planned ahead: none below the soft threshold, when
    /// the next turn is not likely to pass the compaction threshold, or while the circuit
    /// breaker would keep the summarizer from being asked.
    fn requests_ahead(&mut self, soft: f64, results: bool, before: usize) -> Result<Vec<Request>, Error> {
        let (mut setup, ..) = self.setup(false, None)?;
        setup.ahead = true;
        let t = self.core.ctx.guards;
        let mut guards = (self.at.meta.as_ref())
            .map(|m| m.guards.clone())
            .unwrap_or_default();
        guards.begin_turn(&t);
        if guards.breaker_open(&t).is_some() {
            return Ok(Vec::new());
        }
        let now = self.core.now.clone();
        let cache = &mut self.at.cache;
        let compaction = setup.start(Rc::clone(&cache.conv), &mut cache.memo, now)?;
        let plan = compaction.plan();
        let (counts, _) = cache.memo.counts(&cache.conv, &setup.counting.counter);
        let messages = cache.conv.messages();
        let now = plan.tokens.given.saturating_sub(counts[before..].iter().sum());
        let next = input_bound(&messages[..before], &counts, results);
        if (now as f64) < soft * plan.budget.window as f64 || now + next <= plan.budget.threshold {
            return Ok(Vec::new());
        }
        Ok(compaction.requests().to_vec())
    }
}

/// The tool calls of the history still waiting for their results: `(id, tool name)`.
fn open_calls(messages: &[Message]) -> Vec<(String, String)> {
    let mut open: Vec<(String, String)> = Vec::new();
    for part in messages.iter().flat_map(|m| &m.parts) {
        match part {
            Part::ToolCall { id, name, .. } => open.push((id.clone(), name.clone())),
            Part::ToolResult { call_id, .. } => open.retain(|(id, _)| id != call_id),
            _ => {}
        }
    }
    open
}
