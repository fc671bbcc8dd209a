//! `prepareAhead`'s core: the requests an `ahead` call plans after a commit are the ones the
//! next turn's compaction asks for, whether the turn adds a user message or tool results;
//! nothing is written and the stand-in leaves no trace; below the soft threshold, with the
//! option off, or where the next turn cannot pass the threshold, nothing is planned.

use serde_json::{json, Value};

use super::super::memory::{run, MemoryStore};
use super::super::prepare_ahead::PrepareAheadOptions;
use super::*;
use crate::compact::{Reply, Request, Summarizer};

const SUMMARY: &str = "## Conversation Summary\n- **Decisions:** None\n- **Entities:** None\n- **Facts:** Work went on.\n- **Open Items:** None";

fn ahead_sessions(window: usize, on: bool) -> Sessions {
    let s = sessions(window);
    match on {
        true => s.with_ahead(Some(&PrepareAheadOptions::default())),
        false => s,
    }
}

/// The requests the ahead call plans.
fn planned(s: &mut Sessions, store: &mut MemoryStore, id: &str) -> Vec<Request> {
    match run(s, |x| x.ahead(id, None), store, Summarizer::Extractive).unwrap() {
        Done::Ahead(r) => r,
        other => panic!("{other:?}"),
    }
}

/// Replays `messages` (commit, ahead, prepare); at each compacting turn that adds messages,
/// checks its first round's requests against the ones planned after the commit before it.
/// Returns (those turns, the ones whose requests were planned ahead).
fn replay_against_ahead(messages: &[Value], window: usize) -> (usize, usize) {
    let id = "c";
    let mut s = ahead_sessions(window, true);
    let mut store = MemoryStore::default();
    let (mut compacting, mut matched) = (0, 0);
    let mut seen = 0;
    let mut last: Option<usize> = None;
    for k in calls(messages) {
        let mut ahead = Vec::new();
        if let Some(l) = last {
            let reply: Vec<Value> = vec![messages[l].clone()];
            run(
                &mut s,
                |x| x.commit(id, reply, None, None),
                &mut store,
                Summarizer::Extractive,
            )
            .unwrap();
            seen = l + 1;
            let length = store.rows[id].meta.as_ref().unwrap().length;
            ahead = planned(&mut s, &mut store, id);
            // Nothing written, nothing left of the stand-in.
            assert_eq!(store.rows[id].meta.as_ref().unwrap().length, length);
            assert_eq!(s.caches.get(id).map(|c| c.len()), Some(length));
        }
        let mut asked: Vec<Request> = Vec::new();
        let mut answer = |r: &Request| {
            asked.push(r.clone());
            Reply::Text {
                text: SUMMARY.into(),
                model: None,
                usage: None,
            }
        };
        let done = run(
            &mut s,
            |x| x.prepare(id, messages[seen..k].to_vec(), Around::default(), None),
            &mut store,
            Summarizer::Model(&mut answer),
        )
        .unwrap();
        // A turn that adds nothing (the agent speaks again) is not what was planned for.
        if prepared(done).outcome.record.is_some() && k > seen {
            compacting += 1;
            let first: Vec<&Request> = asked
                .iter()
                .filter(|r| r.kind == crate::compact::RequestKind::Summarize)
                .collect();
            if !ahead.is_empty() && ahead.iter().collect::<Vec<_>>() == first {
                matched += 1;
            } else {
                eprintln!(
                    "miss at {k}: added {:?}, planned {} (covers {:?}), asked {} (covers {:?})",
                    messages[seen..k]
                        .iter()
                        .map(|m| m["role"].clone())
                        .collect::<Vec<_>>(),
                    ahead.len(),
                    ahead
                        .first()
                        .map(|r| (r.covers.first().copied(), r.covers.last().copied())),
                    first.len(),
                    first
                        .first()
                        .map(|r| (r.covers.first().copied(), r.covers.last().copied()))
                );
            }
        }
        seen = k;
        last = (k < messages.len()).then_some(k);
    }
    (compacting, matched)
}

#[test]
fn the_requests_planned_ahead_are_the_next_turns() {
    // An agent: turns add tool results (and now and then a user message).
    let (compacting, matched) = replay_against_ahead(&agent(40), 8_000);
    assert!(compacting >= 3, "{compacting} compactions");
    assert_eq!(
        matched, compacting,
        "{matched} of {compacting} compacting turns planned ahead"
    );
    // A chat: turns add a user message.
    let mut chat = vec![json!({"role": "system", "content": "You are a helpful assistant."})];
    for t in 0..160 {
        chat.push(json!({"role": "user", "content": format!("Question {t}: what does step {t} of deploying service-{t} do? {}", "Tell me more. ".repeat(8))}));
        chat.push(json!({"role": "assistant", "content": format!("Step {t} deploys service-{t}. {}", "It migrates, then rolls out. ".repeat(8))}));
    }
    let (compacting, matched) = replay_against_ahead(&chat, 6_000);
    assert!(compacting >= 3, "{compacting} compactions");
    assert_eq!(
        matched, compacting,
        "{matched} of {compacting} compacting turns planned ahead"
    );
}

#[test]
fn nothing_is_planned_off_below_the_soft_threshold_or_far_from_the_threshold() {
    let messages = agent(3);
    let id = "c";
    for on in [false, true] {
        let mut s = ahead_sessions(128_000, on);
        let mut store = MemoryStore::default();
        run(
            &mut s,
            |x| x.prepare(id, messages[..3].to_vec(), Around::default(), None),
            &mut store,
            Summarizer::Extractive,
        )
        .unwrap();
        run(
            &mut s,
            |x| x.commit(id, messages[3..4].to_vec(), None, None),
            &mut store,
            Summarizer::Extractive,
        )
        .unwrap();
        assert!(
            planned(&mut s, &mut store, id).is_empty(),
            "ahead {on}: planned far below the threshold"
        );
    }
    // An unknown conversation: nothing.
    let mut s = ahead_sessions(8_000, true);
    assert!(planned(&mut s, &mut MemoryStore::default(), "none").is_empty());
}

#[test]
fn a_stored_compaction_spends_what_was_made_ahead_and_nothing_else_does() {
    use super::super::request_key::request_key;
    let messages = agent(40);
    let id = "c";
    let mut s = ahead_sessions(8_000, true);
    let mut store = MemoryStore::default();
    let (mut seen, mut last) = (0, None::<usize>);
    let (mut spent, mut kept, mut checked) = (0, 0, 0);
    // The keys planned before the latest turn, and those made before the latest compaction.
    let mut ahead_keys: Vec<String> = Vec::new();
    let mut spent_keys: Vec<String> = Vec::new();
    for k in calls(&messages) {
        if let Some(l) = last {
            let reply = vec![messages[l].clone()];
            run(
                &mut s,
                |x| x.commit(id, reply, None, None),
                &mut store,
                Summarizer::Extractive,
            )
            .unwrap();
            seen = l + 1;
            ahead_keys = planned(&mut s, &mut store, id).iter().map(request_key).collect();
            // No request made for the span before a compaction is asked for after it.
            if !spent_keys.is_empty() && !ahead_keys.is_empty() {
                checked += 1;
                assert!(ahead_keys.iter().all(|key| !spent_keys.contains(key)), "at {k}");
            }
        }
        let p = prepared(
            run(
                &mut s,
                |x| x.prepare(id, messages[seen..k].to_vec(), Around::default(), None),
                &mut store,
                Summarizer::Extractive,
            )
            .unwrap(),
        );
        assert_eq!(p.spends_made_ahead(), p.outcome.record.is_some());
        if p.spends_made_ahead() {
            spent += 1;
            spent_keys.append(&mut ahead_keys);
        } else {
            kept += 1;
        }
        seen = k;
        last = (k < messages.len()).then_some(k);
    }
    assert!(
        spent >= 3 && kept >= 3,
        "{spent} compactions, {kept} turns without one"
    );
    assert!(checked >= 2, "{checked} plans after a compaction checked");
}
