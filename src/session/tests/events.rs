//! The events a call sends, as the core decides them (`session::events`): which, in what
//! order, with what in them; and the caches `Sessions::end` drops, which it names.

use serde_json::json;

use super::super::events::*;
use super::super::memory::{run, run_with_events, MemoryStore};
use super::*;
use crate::compact::{Reply, Request, Summarizer};

const SUMMARY: &str = "## Conversation Summary\n- **Decisions:** None\n- **Entities:** None\n- **Facts:** Work went on.\n- **Open Items:** None";

fn summary(_: &Request) -> Reply {
    Reply::Text {
        text: SUMMARY.into(),
        model: None,
        usage: None,
    }
}

fn failing(_: &Request) -> Reply {
    Reply::Failed("503 from the summarizer".into())
}

/// A conversation of `turns` agent steps, stored through `s` with no compaction (a large window).
fn stored(s: &mut Sessions, store: &mut MemoryStore, id: &str, turns: usize) {
    run(
        s,
        |x| x.prepare(id, agent(turns), Around::default(), None),
        store,
        Summarizer::Extractive,
    )
    .unwrap();
}

#[test]
fn a_compaction_starts_then_ends_with_its_record() {
    let (mut s, mut store) = (one_turn(128_000), MemoryStore::default());
    stored(&mut s, &mut store, "c", 6);
    let mut f = summary;
    let (done, events) = run_with_events(
        &mut s,
        |x| x.compact("c", None, None),
        &mut store,
        Summarizer::Model(&mut f),
    );
    let p = prepared(done.unwrap());
    let record = p.outcome.record.clone().expect("a manual compaction");
    let names = event_names(&events);
    assert_eq!(names.first(), Some(&"compactionStart"), "{names:?}");
    assert_eq!(names.last(), Some(&"compactionEnd"), "{names:?}");
    let CompactorEvent::CompactionStart(CompactionStartEvent {
        conversation_id,
        plan,
    }) = &events[0]
    else {
        unreachable!()
    };
    assert_eq!(conversation_id, "c");
    assert_eq!(plan.budget, p.outcome.report.budget, "the window's budget");
    assert_eq!(
        events.last(),
        Some(&CompactorEvent::CompactionEnd(CompactionEndEvent {
            conversation_id: "c".into(),
            record
        }))
    );
    // Between them, exactly the outcome's events; the start is sent once.
    assert_eq!(events[1..], outcome_events("c", &p.outcome)[..]);
    assert_eq!(names.iter().filter(|n| **n == "compactionStart").count(), 1);
}

#[test]
fn a_prune_sends_pruned_with_the_outcome_figures_and_nothing_else() {
    let (mut s, mut store) = (sessions(128_000), MemoryStore::default());
    stored(&mut s, &mut store, "p", 12);
    let (done, events) = run_with_events(&mut s, |x| x.prune("p", None), &mut store, Summarizer::Extractive);
    let p = prepared(done.unwrap());
    let r = &p.outcome.report;
    assert!(r.pruned.advanced);
    assert_eq!(
        events,
        [CompactorEvent::Pruned(PrunedEvent {
            conversation_id: "p".into(),
            pruned: r.pruned.clone(),
            pruned_tokens: p.outcome.pruned_tokens,
            tokens_after: r.tokens_after,
            budget: r.budget,
        })]
    );
    // Nothing left to prune: nothing is sent.
    let (done, events) = run_with_events(&mut s, |x| x.prune("p", None), &mut store, Summarizer::Extractive);
    assert!(!prepared(done.unwrap()).outcome.report.pruned.advanced);
    assert!(events.is_empty(), "{events:?}");
}

#[test]
fn an_automatic_compaction_whose_summarizer_fails_sends_its_fallback_before_its_end() {
    let messages = agent(30);
    let mut f = failing;
    for k in calls(&messages) {
        let new = messages[..k].to_vec();
        let (mut s, mut store) = (sessions(10_000), MemoryStore::default());
        let (done, events) = run_with_events(
            &mut s,
            |x| x.prepare("f", new, Around::default(), None),
            &mut store,
            Summarizer::Model(&mut f),
        );
        let p = prepared(done.unwrap());
        let Some(record) = p.outcome.record.clone() else {
            continue;
        };
        let fallback = p.outcome.report.fallback.clone().expect("the fallback stood in");
        let names = event_names(&events);
        let at = |name: &str| {
            names
                .iter()
                .position(|n| *n == name)
                .unwrap_or_else(|| panic!("{name} in {names:?}"))
        };
        assert!(
            at("compactionStart") < at("fallback") && at("fallback") < at("compactionEnd"),
            "{names:?}"
        );
        assert_eq!(
            events[at("fallback")],
            CompactorEvent::Fallback(FallbackEvent {
                conversation_id: "f".into(),
                fallback,
                record: Some(record),
            })
        );
        return;
    }
    panic!("no turn compacted");
}

#[test]
fn a_manual_compaction_that_fails_closes_its_start_and_other_calls_send_nothing() {
    let (mut s, mut store) = (one_turn(128_000), MemoryStore::default());
    stored(&mut s, &mut store, "m", 6);
    let mut f = failing;
    let (done, events) = run_with_events(
        &mut s,
        |x| x.compact("m", None, None),
        &mut store,
        Summarizer::Model(&mut f),
    );
    assert_eq!(done.unwrap_err().code(), "SUMMARIZER_FAILED");
    assert_eq!(event_names(&events), ["compactionStart", "compactionFailed"]);
    assert!(
        matches!(&events[1], CompactorEvent::CompactionFailed(CompactionFailedEvent { conversation_id, retried: false, .. }) if conversation_id == "m")
    );
    // A commit, a status, an undo and a plan ahead send no event.
    let reply = vec![json!({"role": "assistant", "content": "ok"})];
    type Make = Box<dyn FnOnce(&mut Sessions) -> Call>;
    let makes: [Make; 3] = [
        Box::new(|x| x.commit("m", reply, None, None)),
        Box::new(|x| x.status("m")),
        Box::new(|x| x.undo("m", None)),
    ];
    for make in makes {
        let (done, events) = run_with_events(&mut s, make, &mut store, Summarizer::Extractive);
        done.unwrap();
        assert!(events.is_empty(), "{events:?}");
    }
}

#[test]
fn the_names_are_declared_once_in_the_docs_order() {
    let names: Vec<_> = CompactorEventName::ALL.iter().map(|n| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "compactionStart",
            "compactionEnd",
            "compactionFailed",
            "pruned",
            "fallback",
            "suppressed",
            "backoff",
            "breakerOpen",
            "breakerClosed"
        ]
    );
    // As serde spells them (the generated TypeScript's union).
    for n in CompactorEventName::ALL {
        assert_eq!(serde_json::to_value(n).unwrap(), json!(n.as_str()));
    }
}

#[test]
fn ending_a_call_names_the_caches_it_dropped_the_least_recently_used_first() {
    let mut s = sessions(128_000).with_cache_limit(2);
    let mut store = MemoryStore::default();
    let hi = || vec![json!({"role": "user", "content": "hi"})];
    let end = |s: &mut Sessions, store: &mut MemoryStore, id: &str| {
        let mut call = s.prepare(id, hi(), Around::default(), None);
        super::super::memory::drive(&mut call, store, &mut Summarizer::Extractive, &mut Vec::new()).unwrap();
        s.end(call)
    };
    assert_eq!(
        end(&mut s, &mut store, "a"),
        Ended {
            kept: Some(1),
            dropped: vec![]
        }
    );
    assert_eq!(
        end(&mut s, &mut store, "b"),
        Ended {
            kept: Some(1),
            dropped: vec![]
        }
    );
    // "a" is used again: "b" is the least recently used when "c" comes.
    assert_eq!(end(&mut s, &mut store, "a").dropped, Vec::<String>::new());
    assert_eq!(
        end(&mut s, &mut store, "c"),
        Ended {
            kept: Some(1),
            dropped: vec!["b".into()]
        }
    );
    assert_eq!((s.cached("a"), s.cached("b"), s.cached("c")), (2, 0, 1));
    // A call on a conversation the store does not hold keeps nothing, and drops nothing.
    let mut call = s.status("nobody");
    super::super::memory::drive(
        &mut call,
        &mut store,
        &mut Summarizer::Extractive,
        &mut Vec::new(),
    )
    .unwrap();
    assert_eq!(
        s.end(call),
        Ended {
            kept: None,
            dropped: vec![]
        }
    );
    assert_eq!((s.cached("a"), s.cached("c")), (2, 1));
}
