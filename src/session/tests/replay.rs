//! Conversations replayed turn by turn: the same inputs as a stateless caller, what a warm
//! and a cold cache read, writers that race, and which caches are kept.

use std::rc::Rc;

use serde_json::{json, Value};

use super::super::events::CompactionFailedEvent;
use super::super::memory::{run, MemoryStore, Store};
use super::*;
use crate::compact::{self, Reply, Summarizer};
use crate::count::Memo;
use crate::messages::Conversation;

#[test]
fn prepare_gives_what_a_stateless_caller_gets() {
    let messages = agent(30);
    let mut s = sessions(8192);
    let mut store = MemoryStore::default();
    let mut replay = Replay::new();
    let mut state: Option<compact::CompactState> = None;
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
fn a_warm_turn_is_one_write_and_a_cold_one_reads_from_its_cache() {
    let messages = agent(8);
    let mut s = sessions(128_000);
    let mut store = MemoryStore::default();
    let id = "c";
    run(
        &mut s,
        |x| x.prepare(id, messages[..5].to_vec(), Around::default(), None),
        &mut store,
        Summarizer::Extractive,
    )
    .unwrap();
    let (loads, writes) = (store.loads, store.writes);
    run(
        &mut s,
        |x| x.prepare(id, messages[5..8].to_vec(), Around::default(), None),
        &mut store,
        Summarizer::Extractive,
    )
    .unwrap();
    // The cache made the last write: the turn goes on from that meta, loading nothing.
    assert_eq!((store.loads - loads, store.writes - writes), (0, 1));
    assert!(
        store.reads.is_empty(),
        "a warm cache reads no history: {:?}",
        store.reads
    );
    // Another tab (another Sessions over the same store) appends two messages...
    let mut other = sessions(128_000);
    run(
        &mut other,
        |x| x.prepare(id, messages[8..10].to_vec(), Around::default(), None),
        &mut store,
        Summarizer::Extractive,
    )
    .unwrap();
    assert_eq!(store.reads, vec![0], "the other one started cold");
    // ...so this one's write, made on the meta it wrote last, is refused; it loads, reads
    // only those two, and writes again (the refused write is not counted).
    let (loads, writes) = (store.loads, store.writes);
    let p = prepared(
        run(
            &mut s,
            |x| x.prepare(id, messages[10..12].to_vec(), Around::default(), None),
            &mut store,
            Summarizer::Extractive,
        )
        .unwrap(),
    );
    assert_eq!(store.reads, vec![0, 8]);
    assert_eq!((store.loads - loads, store.writes - writes), (1, 1));
    assert_eq!(store.rows[id].messages, messages[..12]);
    assert_eq!(p.pieces.len(), 12);
}

/// A turn that goes on from the meta its cache wrote last loads before it asks the
/// summarizer: when another writer got ahead, the summary is made once, on the history the
/// store holds, and never on the stale one.
#[test]
fn a_compaction_on_a_cached_meta_loads_before_it_summarizes() {
    let messages = agent(30);
    let id = "c";
    let mut s = sessions(8192);
    let mut other = sessions(8192);
    let mut store = MemoryStore::default();
    run(
        &mut s,
        |x| x.prepare(id, messages[..2].to_vec(), Around::default(), None),
        &mut store,
        Summarizer::Extractive,
    )
    .unwrap();
    // Another tab appends most of the conversation, with the extractive summary.
    run(
        &mut other,
        |x| x.prepare(id, messages[2..40].to_vec(), Around::default(), None),
        &mut store,
        Summarizer::Extractive,
    )
    .unwrap();
    let (loads, writes) = (store.loads, store.writes);
    let asked = std::cell::RefCell::new(Vec::<String>::new());
    let mut model = |r: &compact::Request| {
        asked.borrow_mut().push(r.prompt.clone());
        Reply::Text {
            text: "## Conversation Summary\n- **Decisions:** None\n- **Entities:** None\n- **Facts:** Work went on.\n- **Open Items:** None".into(),
            model: None,
            usage: None,
        }
    };
    let p = prepared(
        run(
            &mut s,
            |x| x.prepare(id, messages[40..60].to_vec(), Around::default(), None),
            &mut store,
            Summarizer::Model(&mut model),
        )
        .unwrap(),
    );
    assert!(p.outcome.record.is_some(), "the turn compacted");
    // The first summarizer call saw the other tab's messages: it was asked on the stored
    // history, not on this cache's view of it (system, task, then messages 40..).
    let first = asked.borrow()[0].clone();
    let theirs = messages[2..40]
        .iter()
        .filter_map(|m| m["content"].as_str())
        .filter(|t| !t.is_empty())
        .any(|t| first.contains(t));
    assert!(theirs, "{}", &first[..300.min(first.len())]);
    // One load (the compaction made sure of the history), one write that landed first time.
    assert_eq!((store.loads - loads, store.writes - writes), (1, 1));
    assert_eq!(store.rows[id].messages, messages[..60]);
    let before = asked.borrow().len();
    let (loads, writes) = (store.loads, store.writes);
    run(
        &mut s,
        |x| x.prepare(id, messages[60..61].to_vec(), Around::default(), None),
        &mut store,
        Summarizer::Model(&mut model),
    )
    .unwrap();
    assert_eq!(
        asked.borrow().len(),
        before,
        "a turn after the compaction asks for nothing"
    );
    assert_eq!((store.loads - loads, store.writes - writes), (0, 1));
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
                |x| x.prepare(id, new, Around::default(), None),
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

/// Every compactionStart in `events` is closed by the compactionFailed of a stale write
/// (`retried`), none by the call's failure, and no compaction ended.
fn starts_closed_by_stale_writes(events: &[CompactorEvent]) {
    let names = event_names(events);
    assert!(!names.contains(&"compactionEnd"), "{names:?}");
    assert_eq!(names.len() % 2, 0, "{names:?}");
    for pair in names.chunks(2) {
        assert_eq!(pair, ["compactionStart", "compactionFailed"], "{names:?}");
    }
    assert!(events.iter().all(|e| !matches!(
        e,
        CompactorEvent::CompactionFailed(CompactionFailedEvent { retried: false, .. })
    )));
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
                |x| x.prepare(id, messages[..n].to_vec(), Around::default(), None),
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
        |x| x.prepare(id, messages[..n].to_vec(), Around::default(), None),
        &mut base,
        Summarizer::Extractive,
    )
    .unwrap();
    assert!(base.rows[id].records.is_empty());
    // This one compacts, but the other writer appends a message first: the write is stale,
    // the call loads again and compacts what is stored now, once.
    let mut other = sessions(8192);
    let mut store = Racing {
        inner: base,
        other: &mut other,
        races: 1,
        new: vec![messages[n + 1].clone()],
    };
    let (done, events) = super::super::memory::run_with_events(
        &mut s,
        |x| x.prepare(id, vec![messages[n].clone()], Around::default(), None),
        &mut store,
        Summarizer::Extractive,
    );
    let p = prepared(done.unwrap());
    // Any start it sent is closed by its stale write; the call went on and compacted nothing.
    let names = event_names(&events);
    assert_eq!(
        names,
        [
            "compactionStart",
            "compactionFailed",
            "compactionStart",
            "compactionEnd"
        ]
    );
    assert!(matches!(
        events[1],
        CompactorEvent::CompactionFailed(CompactionFailedEvent { retried: true, .. })
    ));
    let row = &store.inner.rows[id];
    assert_eq!(row.records.len(), 1, "one compaction, by this call");
    assert!(p.outcome.record.is_some(), "made after it loaded again");
    let kept = [&messages[..n], &[messages[n + 1].clone(), messages[n].clone()]].concat();
    assert_eq!(row.messages, kept, "no message lost, none twice");
    let meta = row.meta.as_ref().unwrap();
    assert_eq!(
        meta.version,
        crate::session::stored::first_version(&meta.epoch) + 2
    );

    let stored = row.messages.clone();
    a_writer_that_always_loses_gives_up(store.inner.clone(), id, &stored, &messages[n + 2..n + 5]);
}

/// A writer that always loses to another, which appends `new` to `stored` each time, gives
/// up with STALE_WRITE after its attempts, having written nothing.
fn a_writer_that_always_loses_gives_up(inner: MemoryStore, id: &str, stored: &[Value], new: &[Value]) {
    let mut s = Sessions::new(options(8192), 3, 1).unwrap();
    let mut other = sessions(8192);
    let mut store = Racing {
        inner,
        other: &mut other,
        races: 3,
        new: new.to_vec(),
    };
    let late = vec![json!({"role": "user", "content": "late"})];
    let (done, events) = super::super::memory::run_with_events(
        &mut s,
        |x| x.prepare(id, late, Around::default(), None),
        &mut store,
        Summarizer::Extractive,
    );
    let e = done.unwrap_err();
    assert_eq!(e.code(), "STALE_WRITE");
    // Each start is closed once: by its stale write, the call's failure adding none.
    starts_closed_by_stale_writes(&events);
    assert!(e.to_string().contains("gave up after 3 attempts"), "{e}");
    assert_eq!(
        store.inner.rows[id].messages,
        [stored, new].concat(),
        "the losing call wrote nothing"
    );
    // Its cache holds what the store held when it last loaded, nothing of its own.
    assert!(s.cached(id) <= stored.len() + new.len());
    let next = vec![json!({"role": "user", "content": "after"})];
    run(
        &mut s,
        |x| x.prepare(id, next, Around::default(), None),
        &mut store.inner,
        Summarizer::Extractive,
    )
    .unwrap();
    assert_eq!(store.inner.rows[id].messages.len(), stored.len() + new.len() + 1);
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
            |x| x.prepare(id, m.clone(), Around::default(), None),
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
            |x| x.prepare(id, next.clone(), Around::default(), None),
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

#[test]
fn a_conversation_deleted_and_made_again_is_not_taken_for_the_cached_one() {
    // Two writers over one store (two tabs): `a` has the conversation cached; `b` deletes it
    // and makes it again under the same id, with as many writes, so a version counted from
    // 1 again would be the one `a` last wrote.
    let turn = |who: &str, k: usize| vec![json!({"role": "user", "content": format!("{who} {k}")})];
    let mut a = Sessions::new(options(8192), DEFAULT_ATTEMPTS, 1).unwrap();
    let mut b = Sessions::new(options(8192), DEFAULT_ATTEMPTS, 2).unwrap();
    let mut store = MemoryStore::default();
    for k in 0..2 {
        let p = |x: &mut Sessions| x.prepare("c", turn("deleted", k), Around::default(), None);
        run(&mut a, p, &mut store, Summarizer::Extractive).unwrap();
    }
    store.rows.remove("c");
    for k in 0..2 {
        let p = |x: &mut Sessions| x.prepare("c", turn("new", k), Around::default(), None);
        run(&mut b, p, &mut store, Summarizer::Extractive).unwrap();
    }
    let made = store.rows["c"].meta.clone().unwrap().epoch;
    let reads = store.reads.len();
    let next = |x: &mut Sessions| x.prepare("c", turn("next", 0), Around::default(), None);
    let p = prepared(run(&mut a, next, &mut store, Summarizer::Extractive).unwrap());
    let history = store.rows["c"].messages.clone();
    let said: Vec<&str> = history.iter().map(|m| m["content"].as_str().unwrap()).collect();
    assert_eq!(said, ["new 0", "new 1", "next 0"], "the stored history");
    // `a` read the new conversation (the face maps the kept items to what was read), and
    // wrote on it, not on the one it had cached.
    assert_eq!(store.reads[reads..], [0], "the history read again");
    assert_eq!(store.rows["c"].meta.as_ref().unwrap().epoch, made);
    assert_eq!(
        input(&p, &history),
        history,
        "the input is the stored conversation"
    );
}

#[test]
fn every_summary_a_compaction_made_is_stored_a_fold_s_chunks_too() {
    // Chunks fold at 5 % of the window: most compactions summarize, then fold in one call.
    let o = crate::options::from_value(
        "options",
        &json!({"model": "gpt-4o", "contextWindow": 8192, "foldRatio": 0.05}),
    )
    .unwrap();
    let mut s = Sessions::new(o, DEFAULT_ATTEMPTS, 7).unwrap();
    let messages = agent(30);
    let mut store = MemoryStore::default();
    let mut replay = Replay::new();
    for k in calls(&messages) {
        replay.turn(&mut s, &mut store, "c", &messages, k);
    }
    let row = &store.rows["c"];
    let summaries: Vec<StoredSummary> = row
        .summaries
        .iter()
        .map(|v| serde_json::from_value(v.clone()).unwrap())
        .collect();
    let generations: Vec<u32> = summaries.iter().map(|x| x.chunk.generation).collect();
    // Every generation, each once, in order.
    assert_eq!(generations, (1..=generations.len() as u32).collect::<Vec<_>>());
    let made = |r: &Value| r["generations"].as_array().unwrap().len();
    let both = row
        .records
        .iter()
        .filter(|r| r["folded"] == true && made(r) >= 2)
        .count();
    assert!(both > 0, "no compaction summarized and folded in one call");
    for r in &row.records {
        for g in r["generations"].as_array().unwrap() {
            let stored = summaries
                .iter()
                .find(|x| Some(u64::from(x.chunk.generation)) == g.as_u64());
            assert_eq!(
                stored.expect("stored").compaction,
                r["seq"].as_u64().unwrap() as u32
            );
        }
    }
}
