//! The core of the `Compactor`, natively, over the in-memory store and the extractive
//! summarizer (or a function standing in for an LLM): [`replay`], turns as a chat app makes
//! them, cold and warm caches and racing writers; [`calls`], each call's own behaviour.

mod calls;
mod events;
mod guards;
mod overflow;
mod prepare_ahead;
mod prune;
mod recall;
mod replay;
mod search;

use serde_json::{json, Value};

use super::events::CompactorEvent;
use super::memory::{run, MemoryStore};
use super::*;
use crate::compact::Summarizer;

/// An agent's conversation: a task, then turns of a tool call, its (large) result and a
/// reply, with a user message every `user_every` turns.
fn agent(turns: usize) -> Vec<Value> {
    let mut m = vec![
        json!({"role": "system", "content": "You are a coding agent. Work in /srv/app."}),
        json!({"role": "user", "content": "Fix the failing test in tests/test_api.py (ticket OPS-4412)."}),
    ];
    for t in 0..turns {
        let id = format!("call_{t}");
        m.push(json!({"role": "assistant", "content": format!("Step {t}: reading a file."), "tool_calls": [
            {"id": id, "type": "function", "function": {"name": "read_file", "arguments": format!("{{\"path\":\"/srv/app/mod_{t}.py\"}}")}}
        ]}));
        let body: String = (0..60)
            .map(|k| {
                format!("line {k} of mod_{t}.py: value_{t}_{k} = compute({k}, host='db-{t}.internal:5432')\n")
            })
            .collect();
        m.push(json!({"role": "tool", "tool_call_id": id, "content": body}));
        m.push(json!({"role": "assistant", "content": format!("mod_{t}.py holds the values; next I check mod_{}.py.", t + 1)}));
        if t % 3 == 2 {
            m.push(json!({"role": "user", "content": format!("Keep going (check {t}).")}));
        }
    }
    m
}

fn options(window: usize) -> CompactOptions {
    crate::options::from_value("options", &json!({"model": "gpt-4o", "contextWindow": window})).unwrap()
}

/// Options that keep one turn verbatim: a manual compaction of a short conversation has
/// something to summarize.
fn one_turn(window: usize) -> Sessions {
    let o = crate::options::from_value(
        "options",
        &json!({"model": "gpt-4o", "contextWindow": window, "bufferTurns": 1}),
    );
    Sessions::new(o.unwrap(), DEFAULT_ATTEMPTS, 3).unwrap()
}

fn sessions(window: usize) -> Sessions {
    Sessions::new(options(window), DEFAULT_ATTEMPTS, 7).unwrap()
}

/// The model calls of a conversation: before each assistant message, and at the end.
fn calls(messages: &[Value]) -> Vec<usize> {
    let mut k: Vec<usize> = (1..messages.len())
        .filter(|&i| messages[i]["role"] == "assistant")
        .collect();
    if k.last() != Some(&messages.len()) {
        k.push(messages.len());
    }
    k
}

/// The events' names, in order.
fn event_names(events: &[CompactorEvent]) -> Vec<&'static str> {
    events.iter().map(|e| e.name().as_str()).collect()
}

fn prepared(done: Done) -> Prepared {
    match done {
        Done::Prepared(p) => *p,
        other => panic!("expected a prepared input, got {other:?}"),
    }
}

/// The input as messages: kept items from the stored history.
fn input(p: &Prepared, history: &[Value]) -> Vec<Value> {
    p.pieces
        .iter()
        .map(|piece| match piece {
            Piece::Keep(i) => history[*i].clone(),
            Piece::Item { item, .. } => item.clone(),
        })
        .collect()
}

/// One replay turn: commit the reply of the previous call, prepare what came since.
struct Replay {
    seen: usize,
    last: Option<usize>,
}

impl Replay {
    fn new() -> Self {
        Replay { seen: 0, last: None }
    }

    fn turn(
        &mut self,
        s: &mut Sessions,
        store: &mut MemoryStore,
        id: &str,
        messages: &[Value],
        k: usize,
    ) -> Prepared {
        if let Some(prev) = self.last {
            let reply = messages[prev..prev + 1].to_vec();
            run(
                s,
                |x| x.commit(id, reply, None, None),
                store,
                Summarizer::Extractive,
            )
            .unwrap();
            self.seen = prev + 1;
        }
        let new = messages[self.seen..k].to_vec();
        let p = prepared(
            run(
                s,
                |x| x.prepare(id, new, Around::default(), None),
                store,
                Summarizer::Extractive,
            )
            .unwrap(),
        );
        self.seen = k;
        self.last = (k < messages.len()).then_some(k);
        p
    }
}
