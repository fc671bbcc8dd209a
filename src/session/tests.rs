//! The core of the `Compactor`, natively, over the in-memory store and the extractive
//! summarizer (or a function standing in for an LLM).

use std::rc::Rc;

use serde_json::{json, Value};

use super::memory::{run, MemoryStore, Store};
use super::*;
use crate::compact::{self, Reply, Summarizer};
use crate::count::Memo;
use crate::messages::Conversation;

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
                |x| x.prepare(id, new, None, None),
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

#[test]
fn prepare_gives_what_a_stateless_caller_gets() {
    let messages = agent(30);
    let mut s = sessions(8192);
    let mut store = MemoryStore::default();
    let mut replay = Replay::new();
    let mut state: Option<compact::State> = None;
    let mut compactions = 0;
    for k in calls(&messages) {
        let p = replay.turn(&mut s, &mut store, "c", &messages, k);
        // The stateless way: the whole history and the state passed back.
        let mut setup = compact::Setup::new(options(8192)).unwrap();
        setup.state = state.take();
        let conv = Rc::new(Conversation::parse(&json!(messages[..k]), None).unwrap());
        let c = setup.start(Rc::clone(&conv), &mut Memo::default(), None).unwrap();
        let (outcome, _) = compact::run(c, Summarizer::Extractive).unwrap();
        let history = &store.rows["c"].messages;
        assert_eq!(json!(input(&p, history)), conv.render(&outcome.order), "turn {k}");
        assert_eq!(p.outcome.report.tokens_after, outcome.report.tokens_after);
        assert_eq!(
            store.rows["c"].meta.as_ref().unwrap().state,
            outcome.state,
            "turn {k}"
        );
        compactions += usize::from(outcome.report.trigger.is_some());
        assert_eq!(p.outcome.record.is_some(), outcome.report.trigger.is_some());
        state = Some(outcome.state);
    }
    assert!(compactions >= 2, "{compactions} compactions: the test needs some");
    let row = &store.rows["c"];
    assert_eq!(row.messages, messages, "the history is the conversation");
    assert_eq!(row.records.len(), compactions);
    for (k, r) in row.records.iter().enumerate() {
        assert_eq!(r["seq"], k);
    }
    for (k, s) in row.summaries.iter().enumerate() {
        assert_eq!(s["seq"], k);
        assert!(s["compaction"].as_u64().unwrap() < compactions as u64);
    }
}

#[test]
fn a_warm_turn_is_one_load_and_one_write_and_a_cold_one_reads_from_its_cache() {
    let messages = agent(8);
    let mut s = sessions(128_000);
    let mut store = MemoryStore::default();
    let id = "c";
    run(
        &mut s,
        |x| x.prepare(id, messages[..5].to_vec(), None, None),
        &mut store,
        Summarizer::Extractive,
    )
    .unwrap();
    let (loads, writes) = (store.loads, store.writes);
    run(
        &mut s,
        |x| x.prepare(id, messages[5..8].to_vec(), None, None),
        &mut store,
        Summarizer::Extractive,
    )
    .unwrap();
    assert_eq!((store.loads - loads, store.writes - writes), (1, 1));
    assert!(
        store.reads.is_empty(),
        "a warm cache reads no history: {:?}",
        store.reads
    );
    // Another tab (another Sessions over the same store) appends two messages...
    let mut other = sessions(128_000);
    run(
        &mut other,
        |x| x.prepare(id, messages[8..10].to_vec(), None, None),
        &mut store,
        Summarizer::Extractive,
    )
    .unwrap();
    assert_eq!(store.reads, vec![0], "the other one started cold");
    // ...so this one reads only those.
    let p = prepared(
        run(
            &mut s,
            |x| x.prepare(id, messages[10..12].to_vec(), None, None),
            &mut store,
            Summarizer::Extractive,
        )
        .unwrap(),
    );
    assert_eq!(store.reads, vec![0, 8]);
    assert_eq!(store.rows[id].messages, messages[..12]);
    assert_eq!(p.pieces.len(), 12);
}

/// A store that lets another writer in just before the next write (another tab that
/// compacted first), as many times as asked.
struct Racing<'a> {
    inner: MemoryStore,
    other: &'a mut Sessions,
    races: usize,
    new: Vec<Value>,
}

impl Store for Racing<'_> {
    fn load(&mut self, id: &str) -> Result<Option<StoredMeta>, Error> {
        self.inner.load(id)
    }
    fn messages(&mut self, id: &str, from: usize) -> Result<Vec<Value>, Error> {
        self.inner.messages(id, from)
    }
    fn write(&mut self, id: &str, expect: u32, batch: &WriteBatch) -> Result<(), Error> {
        if self.races > 0 {
            self.races -= 1;
            let new = vec![self.new.remove(0)];
            run(
                self.other,
                |x| x.prepare(id, new, None, None),
                &mut self.inner,
                Summarizer::Extractive,
            )?;
        }
        self.inner.write(id, expect, batch)
    }
    fn summaries(&mut self, id: &str) -> Result<Vec<Value>, Error> {
        self.inner.summaries(id)
    }
    fn records(&mut self, id: &str) -> Result<Vec<Value>, Error> {
        self.inner.records(id)
    }
    fn list(&mut self) -> Result<Vec<String>, Error> {
        self.inner.list()
    }
    fn delete(&mut self, id: &str) -> Result<(), Error> {
        self.inner.delete(id)
    }
}

#[test]
fn a_stale_write_loads_again_and_never_compacts_twice() {
    let messages = agent(12);
    let id = "c";
    let mut s = sessions(8192);
    let mut base = MemoryStore::default();
    // Just under the threshold: the next message makes a compaction.
    let mut n = 3;
    loop {
        let mut probe = base.clone();
        let mut t = sessions(8192);
        let p = prepared(
            run(
                &mut t,
                |x| x.prepare(id, messages[..n].to_vec(), None, None),
                &mut probe,
                Summarizer::Extractive,
            )
            .unwrap(),
        );
        if p.outcome.record.is_some() {
            n -= 1;
            break;
        }
        n += 1;
    }
    run(
        &mut s,
        |x| x.prepare(id, messages[..n].to_vec(), None, None),
        &mut base,
        Summarizer::Extractive,
    )
    .unwrap();
    assert!(base.rows[id].records.is_empty());
    // This one compacts, but the other writer, with the next message, compacts first.
    let mut other = sessions(8192);
    let mut store = Racing {
        inner: base,
        other: &mut other,
        races: 1,
        new: vec![messages[n].clone()],
    };
    let p = prepared(
        run(
            &mut s,
            |x| x.prepare(id, vec![messages[n + 1].clone()], None, None),
            &mut store,
            Summarizer::Extractive,
        )
        .unwrap(),
    );
    let row = &store.inner.rows[id];
    assert_eq!(row.records.len(), 1, "one compaction, by the other writer");
    assert!(
        p.outcome.record.is_none(),
        "this call found it done when it loaded again"
    );
    assert_eq!(row.messages, messages[..n + 2], "no message lost, none twice");
    assert_eq!(row.meta.as_ref().unwrap().version, 3);

    // A writer that always loses gives up with STALE_WRITE after its attempts.
    let mut s = Sessions::new(options(8192), 3, 1).unwrap();
    let mut other = sessions(8192);
    let inner = store.inner.clone();
    let mut store = Racing {
        inner,
        other: &mut other,
        races: 3,
        new: messages[n + 2..n + 5].to_vec(),
    };
    let e = run(
        &mut s,
        |x| x.prepare(id, vec![json!({"role": "user", "content": "late"})], None, None),
        &mut store,
        Summarizer::Extractive,
    )
    .unwrap_err();
    assert_eq!(e.code(), "STALE_WRITE");
    assert!(e.to_string().contains("gave up after 3 attempts"), "{e}");
    assert_eq!(
        store.inner.rows[id].messages,
        messages[..n + 5],
        "the losing call wrote nothing"
    );
    // Its cache holds what the store held when it last loaded, nothing of its own.
    assert!(s.cached(id) <= messages[..n + 5].len());
    let next = vec![json!({"role": "user", "content": "after"})];
    run(
        &mut s,
        |x| x.prepare(id, next, None, None),
        &mut store.inner,
        Summarizer::Extractive,
    )
    .unwrap();
    assert_eq!(store.inner.rows[id].messages.len(), n + 6);
}

#[test]
fn undo_restores_the_input_of_the_turn_before_the_compaction() {
    let messages = agent(6);
    let id = "c";
    let mut s = one_turn(128_000);
    let mut twin = one_turn(128_000);
    let (mut store, mut twin_store) = (MemoryStore::default(), MemoryStore::default());
    let before = prepared(
        run(
            &mut s,
            |x| x.prepare(id, messages[..12].to_vec(), None, None),
            &mut store,
            Summarizer::Extractive,
        )
        .unwrap(),
    );
    run(
        &mut twin,
        |x| x.prepare(id, messages[..12].to_vec(), None, None),
        &mut twin_store,
        Summarizer::Extractive,
    )
    .unwrap();
    let manual = prepared(
        run(
            &mut s,
            |x| x.compact(id, Some("focus on paths".into()), None),
            &mut store,
            Summarizer::Extractive,
        )
        .unwrap(),
    );
    let record = manual.outcome.record.expect("a manual compaction");
    assert_eq!(record.instructions.as_deref(), Some("focus on paths"));
    assert!(manual.outcome.report.tokens_after < before.outcome.report.tokens_after);
    let undone = match run(&mut s, |x| x.undo(id, None), &mut store, Summarizer::Extractive).unwrap() {
        Done::Undone(Some(u)) => u,
        other => panic!("{other:?}"),
    };
    assert_eq!((undone.compaction, undone.chunks, undone.boundary), (0, 0, None));
    // Nothing more to undo.
    assert!(matches!(
        run(&mut s, |x| x.undo(id, None), &mut store, Summarizer::Extractive).unwrap(),
        Done::Undone(None)
    ));
    // The next turn: exactly the input the twin (which never compacted) gives.
    let next = messages[12..15].to_vec();
    let a = prepared(
        run(
            &mut s,
            |x| x.prepare(id, next.clone(), None, None),
            &mut store,
            Summarizer::Extractive,
        )
        .unwrap(),
    );
    let b = prepared(
        run(
            &mut twin,
            |x| x.prepare(id, next, None, None),
            &mut twin_store,
            Summarizer::Extractive,
        )
        .unwrap(),
    );
    assert_eq!(
        input(&a, &store.rows[id].messages),
        input(&b, &twin_store.rows[id].messages)
    );
    // That is the input of the turn before the compaction, and what came since.
    let mut expected = input(&before, &store.rows[id].messages);
    expected.extend(messages[12..15].iter().cloned());
    assert_eq!(input(&a, &store.rows[id].messages), expected);
    // The record and the summary stay, and the meta says the record was undone.
    let row = &store.rows[id];
    assert_eq!(row.records.len(), 1);
    assert_eq!(row.summaries.len(), 1);
    assert_eq!(row.meta.as_ref().unwrap().undone, vec![0]);
}

#[test]
fn usage_corrects_the_next_trigger_decision() {
    let messages = agent(4);
    let id = "c";
    let mut s = sessions(128_000);
    let mut store = MemoryStore::default();
    let first = prepared(
        run(
            &mut s,
            |x| x.prepare(id, messages[..3].to_vec(), None, None),
            &mut store,
            Summarizer::Extractive,
        )
        .unwrap(),
    );
    assert_eq!(first.outcome.estimate.ratio, None);
    let counted = first.outcome.report.tokens_after;
    // The provider counts 10 % more (tool definitions, its own tokenizer).
    let reported = counted * 11 / 10;
    let done = run(
        &mut s,
        |x| {
            x.commit(
                id,
                messages[3..4].to_vec(),
                Some(json!({"prompt_tokens": reported, "completion_tokens": 9})),
                None,
            )
        },
        &mut store,
        Summarizer::Extractive,
    )
    .unwrap();
    let Done::Committed(c) = done else {
        panic!("{done:?}")
    };
    let anchor = c.anchor.expect("taken");
    assert_eq!(c.usage_ignored, None);
    assert!((anchor.ratio - reported as f64 / counted as f64).abs() < 1e-12);
    let next = prepared(
        run(
            &mut s,
            |x| x.prepare(id, messages[4..6].to_vec(), None, None),
            &mut store,
            Summarizer::Extractive,
        )
        .unwrap(),
    );
    let e = next.outcome.estimate;
    assert_eq!(e.ratio, Some(anchor.ratio));
    assert_eq!(e.counted, next.outcome.report.tokens_before);
    assert_eq!(e.tokens, (e.counted as f64 * anchor.ratio).round() as usize);
    // The engine worked to the budget in ctxfold's counts: the provider's divided by the ratio.
    assert_eq!(
        next.outcome.report.budget.input,
        (e.input as f64 / anchor.ratio).floor() as usize
    );
    // A second commit after the same prepare has no input to pair with.
    run(
        &mut s,
        |x| x.commit(id, messages[6..7].to_vec(), None, None),
        &mut store,
        Summarizer::Extractive,
    )
    .unwrap();
    let Done::Committed(c) = run(
        &mut s,
        |x| {
            x.commit(
                id,
                messages[7..8].to_vec(),
                Some(json!({"input_tokens": 5})),
                None,
            )
        },
        &mut store,
        Summarizer::Extractive,
    )
    .unwrap() else {
        panic!()
    };
    assert!(c.anchor.is_none() && c.usage_ignored.unwrap().contains("no prepare()"));
    // A report that cannot be this input's is not taken.
    let p = prepared(
        run(
            &mut s,
            |x| x.prepare(id, vec![], None, None),
            &mut store,
            Summarizer::Extractive,
        )
        .unwrap(),
    );
    let Done::Committed(c) = run(
        &mut s,
        |x| {
            x.commit(
                id,
                vec![json!({"role": "assistant", "content": "ok"})],
                Some(json!({"input_tokens": p.outcome.report.tokens_after * 9})),
                None,
            )
        },
        &mut store,
        Summarizer::Extractive,
    )
    .unwrap() else {
        panic!()
    };
    assert!(c.usage_ignored.unwrap().contains("not this input's"));
    let status = match run(&mut s, |x| x.status(id), &mut store, Summarizer::Extractive).unwrap() {
        Done::Status(Some(st)) => st,
        other => panic!("{other:?}"),
    };
    assert_eq!(status.usage.len(), 1);
    assert_eq!(status.usage[0].reports, 1);
    assert_eq!(status.length, store.rows[id].messages.len());
}

#[test]
fn a_threshold_compaction_under_a_correction_triggers_earlier() {
    // Counted just under the threshold; the provider says 30 % more: the next turn compacts.
    let messages = agent(40);
    let id = "c";
    let (mut plain, mut corrected) = (sessions(16_384), sessions(16_384));
    let (mut a, mut b) = (MemoryStore::default(), MemoryStore::default());
    let mut k = 4;
    let first = loop {
        let mut probe = MemoryStore::default();
        let mut t = sessions(16_384);
        let p = prepared(
            run(
                &mut t,
                |x| x.prepare(id, messages[..k].to_vec(), None, None),
                &mut probe,
                Summarizer::Extractive,
            )
            .unwrap(),
        );
        if p.outcome.estimate.counted as f64 > 0.8 * p.outcome.estimate.threshold as f64
            && messages[k]["role"] == "assistant"
        {
            break k;
        }
        k += 1;
    };
    for (s, store) in [(&mut plain, &mut a), (&mut corrected, &mut b)] {
        run(
            s,
            |x| x.prepare(id, messages[..first].to_vec(), None, None),
            store,
            Summarizer::Extractive,
        )
        .unwrap();
    }
    let counted = a.rows[id]
        .meta
        .as_ref()
        .unwrap()
        .last_input
        .as_ref()
        .unwrap()
        .tokens;
    run(
        &mut plain,
        |x| x.commit(id, vec![messages[first].clone()], None, None),
        &mut a,
        Summarizer::Extractive,
    )
    .unwrap();
    run(
        &mut corrected,
        |x| {
            x.commit(
                id,
                vec![messages[first].clone()],
                Some(json!({"prompt_tokens": counted * 13 / 10})),
                None,
            )
        },
        &mut b,
        Summarizer::Extractive,
    )
    .unwrap();
    let next = messages[first + 1..first + 2].to_vec();
    let p = prepared(
        run(
            &mut plain,
            |x| x.prepare(id, next.clone(), None, None),
            &mut a,
            Summarizer::Extractive,
        )
        .unwrap(),
    );
    let q = prepared(
        run(
            &mut corrected,
            |x| x.prepare(id, next, None, None),
            &mut b,
            Summarizer::Extractive,
        )
        .unwrap(),
    );
    assert!(
        p.outcome.record.is_none(),
        "uncorrected, still under the threshold"
    );
    assert!(q.outcome.record.is_some(), "corrected, over it");
    assert!(q.outcome.estimate.tokens > q.outcome.estimate.threshold);
}

#[test]
fn bad_calls_are_typed_errors_and_change_nothing() {
    let mut s = sessions(8192);
    let mut store = MemoryStore::default();
    let id = "c";
    run(
        &mut s,
        |x| x.prepare(id, agent(1), None, None),
        &mut store,
        Summarizer::Extractive,
    )
    .unwrap();
    let before = store.rows[id].clone();
    let bad = vec![
        json!({"role": "user", "content": "fine"}),
        json!({"role": "tool", "tool_call_id": "nope", "content": "orphan"}),
    ];
    let e = run(
        &mut s,
        |x| x.prepare(id, bad, None, None),
        &mut store,
        Summarizer::Extractive,
    )
    .unwrap_err();
    assert_eq!(e.code(), "INVALID_MESSAGE");
    assert!(e.to_string().contains("newMessages[1]"), "{e}");
    assert_eq!(store.rows[id].messages, before.messages);
    // The cache was cut back: a good call after it works, warm.
    let reads = store.reads.len();
    run(
        &mut s,
        |x| x.prepare(id, vec![json!({"role": "user", "content": "next"})], None, None),
        &mut store,
        Summarizer::Extractive,
    )
    .unwrap();
    assert_eq!(store.reads.len(), reads);
    assert_eq!(store.rows[id].messages.len(), before.messages.len() + 1);

    let e = run(
        &mut s,
        |x| x.compact("nobody", None, None),
        &mut store,
        Summarizer::Extractive,
    )
    .unwrap_err();
    assert_eq!(e.code(), "UNKNOWN_CONVERSATION");
    assert!(matches!(
        run(&mut s, |x| x.status("nobody"), &mut store, Summarizer::Extractive).unwrap(),
        Done::Status(None)
    ));
    let e = run(
        &mut s,
        |x| x.commit(id, vec![], Some(json!({"tokens": 3})), None),
        &mut store,
        Summarizer::Extractive,
    )
    .unwrap_err();
    assert_eq!(e.code(), "INVALID_ARGUMENT");

    for (key, value) in [("state", json!(null)), ("manual", json!(true))] {
        let mut o = json!({"model": "gpt-4o"});
        o[key] = value;
        let mut parsed: CompactOptions = crate::options::from_value("options", &o).unwrap();
        if key == "state" {
            parsed.state = Some(Default::default());
        }
        let e = Sessions::new(parsed, 3, 0).err().unwrap();
        assert!(e.to_string().contains(&format!("options.{key}")), "{e}");
    }
}

#[test]
fn a_manual_compaction_fails_loudly_where_a_threshold_one_falls_back() {
    let messages = agent(10);
    let id = "c";
    let mut s = one_turn(128_000);
    let mut store = MemoryStore::default();
    run(
        &mut s,
        |x| x.prepare(id, messages.clone(), None, None),
        &mut store,
        Summarizer::Extractive,
    )
    .unwrap();
    let mut failing = |_: &compact::Request| Reply::Failed("the model is down".into());
    let e = run(
        &mut s,
        |x| x.compact(id, None, None),
        &mut store,
        Summarizer::Model(&mut failing),
    )
    .unwrap_err();
    assert_eq!(e.code(), "SUMMARIZER_FAILED");
    assert!(store.rows[id].records.is_empty());
    // Automatic, at a small window: the extractive fallback, flagged in the record.
    let mut s = sessions(8192);
    let mut store = MemoryStore::default();
    let p = prepared(
        run(
            &mut s,
            |x| x.prepare(id, messages, None, None),
            &mut store,
            Summarizer::Model(&mut failing),
        )
        .unwrap(),
    );
    let record = p.outcome.record.expect("compacted");
    assert!(record.fallback.unwrap().reason.contains("the model is down"));
}

#[test]
fn anthropic_system_is_kept_and_replaced() {
    let mut s = sessions(128_000);
    let mut store = MemoryStore::default();
    let id = "c";
    let first = vec![json!({"role": "user", "content": [{"type": "text", "text": "hello"}]})];
    let p = prepared(
        run(
            &mut s,
            |x| x.prepare(id, first, Some(json!("Be brief.")), None),
            &mut store,
            Summarizer::Extractive,
        )
        .unwrap(),
    );
    assert_eq!(p.system, Some(json!("Be brief.")));
    assert_eq!(
        store.rows[id].meta.as_ref().unwrap().format,
        crate::messages::Format::Anthropic
    );
    let reply = vec![
        json!({"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]}),
    ];
    run(
        &mut s,
        |x| x.commit(id, reply, None, None),
        &mut store,
        Summarizer::Extractive,
    )
    .unwrap();
    let result = vec![
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "42"}]}),
    ];
    let p = prepared(
        run(
            &mut s,
            |x| x.prepare(id, result, Some(json!("Be terse.")), None),
            &mut store,
            Summarizer::Extractive,
        )
        .unwrap(),
    );
    assert_eq!(p.system, Some(json!("Be terse.")));
    assert_eq!(p.pieces.len(), 3);
    // A cold reader gets it from the meta.
    let mut cold = sessions(128_000);
    let p = prepared(
        run(
            &mut cold,
            |x| x.prepare(id, vec![], None, None),
            &mut store,
            Summarizer::Extractive,
        )
        .unwrap(),
    );
    assert_eq!(p.system, Some(json!("Be terse.")));
}

#[test]
fn an_export_imports_under_another_id() {
    let messages = agent(20);
    let mut s = sessions(8192);
    let mut store = MemoryStore::default();
    run(
        &mut s,
        |x| x.prepare("a", messages.clone(), None, None),
        &mut store,
        Summarizer::Extractive,
    )
    .unwrap();
    let row = store.rows["a"].clone();
    assert_eq!(row.records.len(), 1);
    let data = ExportedConversation {
        kind: EXPORT_KIND.into(),
        export_version: 1,
        meta: row.meta.clone().unwrap(),
        messages: row.messages.clone(),
        summaries: row.summaries.clone(),
        records: row.records.clone(),
    };
    let batch = s.import(data.clone(), Some("b".into()), None).unwrap();
    store.write("b", 0, &batch).unwrap();
    assert_eq!(store.rows["b"].messages, messages);
    let meta = store.rows["b"].meta.clone().unwrap();
    assert_eq!((meta.id.as_str(), meta.version), ("b", 1));
    assert_ne!(meta.epoch, row.meta.as_ref().unwrap().epoch);
    // The imported conversation goes on as the original would.
    let next = vec![json!({"role": "user", "content": "and now?"})];
    let pa = prepared(
        run(
            &mut s,
            |x| x.prepare("a", next.clone(), None, None),
            &mut store,
            Summarizer::Extractive,
        )
        .unwrap(),
    );
    let pb = prepared(
        run(
            &mut s,
            |x| x.prepare("b", next, None, None),
            &mut store,
            Summarizer::Extractive,
        )
        .unwrap(),
    );
    assert_eq!(
        input(&pa, &store.rows["a"].messages),
        input(&pb, &store.rows["b"].messages)
    );
    let mut broken = data;
    broken.messages.pop();
    let e = s.import(broken, None, None).unwrap_err();
    assert!(e.to_string().contains("meta.length"), "{e}");
}

#[test]
fn an_empty_conversation_and_a_commit_first_are_conversations_too() {
    let mut s = sessions(8192);
    let mut store = MemoryStore::default();
    // Nothing yet: an empty input, and a conversation of no messages stored.
    let p = prepared(
        run(
            &mut s,
            |x| x.prepare("e", vec![], None, None),
            &mut store,
            Summarizer::Extractive,
        )
        .unwrap(),
    );
    assert!(p.pieces.is_empty());
    assert_eq!(store.rows["e"].meta.as_ref().unwrap().length, 0);
    // A greeting committed before any user message starts a conversation.
    let hello = vec![json!({"role": "assistant", "content": "Hello! How can I help?"})];
    let done = run(
        &mut s,
        |x| x.commit("g", hello.clone(), Some(json!({"prompt_tokens": 9})), None),
        &mut store,
        Summarizer::Extractive,
    )
    .unwrap();
    let Done::Committed(c) = done else {
        panic!("{done:?}")
    };
    assert_eq!(c.length, 1);
    assert!(c.usage_ignored.unwrap().contains("no prepare()"));
    let p = prepared(
        run(
            &mut s,
            |x| x.prepare("g", vec![json!({"role": "user", "content": "hi"})], None, None),
            &mut store,
            Summarizer::Extractive,
        )
        .unwrap(),
    );
    assert_eq!(
        input(&p, &store.rows["g"].messages),
        vec![hello[0].clone(), json!({"role": "user", "content": "hi"})]
    );
}

#[test]
fn caches_are_kept_for_the_conversations_used_last() {
    let mut s = Sessions::new(options(128_000), DEFAULT_ATTEMPTS, 5)
        .unwrap()
        .with_cache_limit(2);
    let mut store = MemoryStore::default();
    let m = agent(2);
    for id in ["a", "b", "c"] {
        run(
            &mut s,
            |x| x.prepare(id, m.clone(), None, None),
            &mut store,
            Summarizer::Extractive,
        )
        .unwrap();
    }
    assert_eq!(
        (s.cached("a"), s.cached("b"), s.cached("c")),
        (0, m.len(), m.len())
    );
    let next = vec![json!({"role": "user", "content": "more"})];
    for id in ["c", "a"] {
        run(
            &mut s,
            |x| x.prepare(id, next.clone(), None, None),
            &mut store,
            Summarizer::Extractive,
        )
        .unwrap();
    }
    // "c" was warm; "a" was read again, whole; now "b" is the one forgotten.
    assert_eq!(store.reads, vec![0]);
    assert_eq!(
        (s.cached("a"), s.cached("b"), s.cached("c")),
        (m.len() + 1, 0, m.len() + 1)
    );
}
