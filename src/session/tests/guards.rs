//! The guards (`session::guards`) through whole calls: the idempotency guard suppresses a
//! repeat, a conversation that refills at once backs off, a failing summarizer opens the
//! breaker and a working one closes it; none of them makes an input exceed the budget; their
//! state lives in the meta.

use serde_json::{json, Value};

use super::super::events::{BackoffEvent, CompactorEvent, SuppressedEvent};
use super::super::guards::{BreakerChange, GuardKind, GuardNotes, GuardOptions};
use super::super::memory::{run, run_with_events, MemoryStore};
use super::*;
use crate::compact::{self, Reply, Summarizer};

/// The caller's clock: `s` seconds after 02:00:00.
fn at(s: u32) -> Option<String> {
    Some(format!(
        "2026-11-26T{:02}:{:02}:{:02}.000Z",
        2 + s / 3600,
        s / 60 % 60,
        s % 60
    ))
}

fn with(options: Value, guards: Value) -> Sessions {
    let o = crate::options::from_value("options", &options).unwrap();
    let g: GuardOptions = crate::options::from_value("options.guards", &guards).unwrap();
    Sessions::new(o, DEFAULT_ATTEMPTS, 11).unwrap().with_guards(&g)
}

const OFF: &str = r#"{"idempotencySeconds": 0, "backoffTurns": 0, "breakerFailures": 0}"#;

/// One conversation replayed turn by turn (a turn every `step` seconds), with `summarizer`
/// answering every summary.
struct Turns {
    s: Sessions,
    store: MemoryStore,
    seen: usize,
    last: Option<usize>,
    clock: u32,
    step: u32,
    /// The events of the last `prepare`.
    events: Vec<CompactorEvent>,
}

impl Turns {
    fn new(s: Sessions, step: u32) -> Self {
        Turns {
            s,
            store: MemoryStore::default(),
            seen: 0,
            last: None,
            clock: 0,
            step,
            events: Vec::new(),
        }
    }

    fn turn(&mut self, messages: &[Value], k: usize, summarizer: Summarizer) -> Prepared {
        self.clock += self.step;
        let now = at(self.clock);
        if let Some(prev) = self.last {
            let reply = messages[prev..prev + 1].to_vec();
            let n = now.clone();
            run(
                &mut self.s,
                |x| x.commit("g", reply, None, n),
                &mut self.store,
                Summarizer::Extractive,
            )
            .unwrap();
            self.seen = prev + 1;
        }
        let new = messages[self.seen..k].to_vec();
        let p = self.prepare(new, now, summarizer);
        self.seen = k;
        self.last = (k < messages.len()).then_some(k);
        p
    }

    /// A `prepare` with nothing new, `step` seconds on.
    fn again(&mut self, summarizer: Summarizer) -> Prepared {
        self.clock += self.step;
        let now = at(self.clock);
        self.prepare(Vec::new(), now, summarizer)
    }

    /// A `prepare` of `new`, its events kept.
    fn prepare(&mut self, new: Vec<Value>, now: Option<String>, summarizer: Summarizer) -> Prepared {
        let (done, events) = run_with_events(
            &mut self.s,
            |x| x.prepare("g", new, Around::default(), now),
            &mut self.store,
            summarizer,
        );
        self.events = events;
        prepared(done.unwrap())
    }

    /// The last `prepare`'s events' names.
    fn names(&self) -> Vec<&'static str> {
        event_names(&self.events)
    }

    fn meta(&self) -> &StoredMeta {
        self.store.rows["g"].meta.as_ref().unwrap()
    }
}

/// Every input fits the budget, whatever the guards did.
fn fits(p: &Prepared) {
    let r = &p.outcome.report;
    assert!(
        r.tokens_after <= r.budget.input,
        "{} tokens sent, budget {}: {:?}",
        r.tokens_after,
        r.budget.input,
        p.outcome.guards
    );
}

#[test]
fn the_idempotency_guard_suppresses_a_repeat_of_an_undone_compaction() {
    let messages = agent(30);
    let ks = calls(&messages);
    let options = json!({"model": "gpt-4o", "contextWindow": 10_000, "thresholdRatio": 0.6});
    let mut t = Turns::new(with(options, json!({})), 5);
    let mut first = None;
    let mut n = 0;
    while first.is_none() {
        let p = t.turn(&messages, ks[n], Summarizer::Extractive);
        n += 1;
        first = p.outcome.record.clone();
    }
    let first = first.unwrap();
    assert_eq!(first.trigger, compact::state::Trigger::Threshold);
    let undone = run(
        &mut t.s,
        |x| x.undo("g", at(t.clock + 1)),
        &mut t.store,
        Summarizer::Extractive,
    )
    .unwrap();
    assert!(matches!(undone, Done::Undone(Some(_))));
    // 5 s later: the same span passes the threshold again, but fits the budget.
    let p = t.again(Summarizer::Extractive);
    fits(&p);
    let s = p
        .outcome
        .guards
        .suppressed
        .clone()
        .expect("the repeat is suppressed");
    println!("suppressed: {}", s.reason);
    assert_eq!(
        (s.guard, s.of, s.coverage),
        (GuardKind::Idempotency, Some(first.seq), Some(1.0))
    );
    assert!(
        s.seconds.unwrap() < 60.0 && s.tokens > s.threshold && s.tokens <= s.input,
        "{s:?}"
    );
    assert!(p.outcome.record.is_none() && p.outcome.report.trigger.is_none());
    // Its event, and no compaction's.
    let suppressed = CompactorEvent::Suppressed(SuppressedEvent {
        conversation_id: "g".into(),
        suppressed: s.clone(),
    });
    assert!(t.events.contains(&suppressed), "{:?}", t.names());
    assert!(!t.names().contains(&"compactionStart"), "{:?}", t.names());
    assert_eq!(t.store.rows["g"].records.len(), 1, "a suppression is no record");
    assert_eq!(t.meta().guards.suppressed, 1);
    assert_eq!(t.meta().guards.last_suppressed.as_ref(), Some(&s));
    // A minute on, the same compaction runs; its record counts the one suppressed.
    t.clock += 60;
    let p = t.again(Summarizer::Extractive);
    let record = p.outcome.record.expect("compacted once the minute passed");
    assert_eq!(record.evicted, first.evicted);
    let notes = record.guards.expect("guards on a new record");
    assert_eq!(notes.suppressed_before, 1);
    assert!(notes.suppressed.is_none() && notes.overridden.is_none());
    assert_eq!(t.meta().guards.suppressed, 0);
}

#[test]
fn a_guard_never_suppresses_a_compaction_the_input_needs() {
    let messages = agent(30);
    let ks = calls(&messages);
    let options = json!({"model": "gpt-4o", "contextWindow": 10_000, "thresholdRatio": 0.6});
    let mut t = Turns::new(with(options, json!({})), 1);
    let mut n = 0;
    while t
        .turn(&messages, ks[n], Summarizer::Extractive)
        .outcome
        .record
        .is_none()
    {
        n += 1;
    }
    run(
        &mut t.s,
        |x| x.undo("g", at(t.clock)),
        &mut t.store,
        Summarizer::Extractive,
    )
    .unwrap();
    // Within the minute, but the undone input grew past the budget: it compacts anyway.
    let mut overridden = None;
    for &k in &ks[n + 1..] {
        let p = t.turn(&messages, k, Summarizer::Extractive);
        fits(&p);
        if let Some(r) = p.outcome.record {
            overridden = r.guards.unwrap().overridden;
            assert!(p.outcome.report.tokens_before > p.outcome.report.budget.input);
            break;
        }
        assert!(p.outcome.guards.suppressed.is_some(), "suppressed while it fits");
    }
    let o = overridden.expect("the compaction that had to run says which guard it overrode");
    assert_eq!(o.guard, GuardKind::Idempotency);
    assert!(o.tokens > o.input, "{o:?}");
}

/// An agent whose every step is a tool call and a large result (about 1,500 tokens, 0.15 of
/// a 10,000-token window): with the threshold at 0.6 of the window, each compaction lands
/// near the target (0.55 of the budget, 0.49 of the window) and the next step passes the
/// threshold again.
fn refilling(steps: usize) -> Vec<Value> {
    let mut m = vec![
        json!({"role": "system", "content": "You are a coding agent. Work in /srv/app."}),
        json!({"role": "user", "content": "Read every module under /srv/app and list its values."}),
    ];
    for t in 0..steps {
        let id = format!("call_{t}");
        m.push(json!({"role": "assistant", "content": format!("Reading mod_{t}.py."), "tool_calls": [
            {"id": id, "type": "function", "function": {"name": "read_file", "arguments": format!("{{\"path\":\"/srv/app/mod_{t}.py\"}}")}}
        ]}));
        let body: String = (0..80)
            .map(|k| {
                format!("line {k} of mod_{t}.py: value_{t}_{k} = compute({k}, host='db-{t}.internal:5432')\n")
            })
            .collect();
        m.push(json!({"role": "tool", "tool_call_id": id, "content": body}));
    }
    m.push(json!({"role": "assistant", "content": "Done."}));
    m
}

fn replay_refilling(guards: Value) -> (usize, usize, Vec<GuardNotes>) {
    let messages = refilling(40);
    let options = json!({"model": "gpt-4o", "contextWindow": 10_000, "thresholdRatio": 0.6, "toolOutputMaxBytes": 100_000});
    let mut t = Turns::new(with(options, guards), 5);
    let (mut turns, mut compactions, mut notes) = (0, 0, Vec::new());
    for k in calls(&messages) {
        let p = t.turn(&messages, k, Summarizer::Extractive);
        fits(&p);
        turns += 1;
        compactions += usize::from(p.outcome.record.is_some());
        // What the guards did is what the events say, a back-off with the compaction's record.
        let g = &p.outcome.guards;
        let backoff = (g.backoff.clone()).map(|backoff| {
            CompactorEvent::Backoff(BackoffEvent {
                conversation_id: "g".into(),
                backoff,
                record: p.outcome.record.clone(),
            })
        });
        let suppressed = (g.suppressed.clone()).map(|suppressed| {
            CompactorEvent::Suppressed(SuppressedEvent {
                conversation_id: "g".into(),
                suppressed,
            })
        });
        let guarded: Vec<_> = (t.events.iter())
            .filter(|e| {
                matches!(
                    e,
                    CompactorEvent::Backoff(BackoffEvent { .. })
                        | CompactorEvent::Suppressed(SuppressedEvent { .. })
                )
            })
            .cloned()
            .collect();
        assert_eq!(guarded, suppressed.into_iter().chain(backoff).collect::<Vec<_>>());
        notes.push(p.outcome.guards.clone());
    }
    (turns, compactions, notes)
}

#[test]
fn a_conversation_that_refills_at_once_backs_off() {
    let off: Value = serde_json::from_str(OFF).unwrap();
    let (turns, thrash, _) = replay_refilling(off);
    let (turns2, calm, notes) = replay_refilling(json!({}));
    assert_eq!(turns, turns2);
    println!("refilling conversation: {turns} turns; {thrash} compactions without the guards, {calm} with the back-off");
    let backoffs: Vec<_> = notes.iter().filter_map(|n| n.backoff.as_ref()).collect();
    for b in &backoffs {
        println!("  backoff: {}", b.reason);
    }
    assert!(
        thrash * 4 > turns,
        "the test needs a conversation that thrashes: {thrash} of {turns}"
    );
    assert!(
        calm < thrash && calm < turns,
        "{calm} compactions with the back-off, {thrash} without"
    );
    assert!(
        backoffs.iter().any(|b| b.level >= 2),
        "the back-off grows: {backoffs:?}"
    );
    let suppressed = notes.iter().filter(|n| n.suppressed.is_some()).count();
    for s in notes.iter().filter_map(|n| n.suppressed.as_ref()) {
        println!("  suppressed: {s:?}");
    }
    assert!(suppressed > 0);
    assert!(notes
        .iter()
        .filter_map(|n| n.suppressed.as_ref())
        .all(|s| s.guard == GuardKind::Backoff && s.tokens <= s.input));
}

#[test]
fn three_failing_summaries_open_the_breaker_and_a_working_one_closes_it() {
    let messages = refilling(60);
    let options = json!({"model": "gpt-4o", "contextWindow": 10_000, "toolOutputMaxBytes": 100_000});
    let mut t = Turns::new(with(options, json!({"breakerCooldownTurns": 6})), 5);
    let (mut calls_made, mut opened, mut closed, mut skipped) = (0, None, None, 0);
    let mut failing = true;
    for (turn, k) in calls(&messages).into_iter().enumerate() {
        let mut summarize = |_: &compact::Request| {
            calls_made += 1;
            if failing {
                Reply::Failed("503 from the summarizer".into())
            } else {
                Reply::Text {
                    text: "## Conversation Summary\n- **Decisions:** None\n- **Entities:** None\n- **Facts:** Work went on.\n- **Open Items:** None".into(),
                    model: Some("m".into()),
                    usage: None,
                }
            }
        };
        let before = t.meta_or_default().breaker.failures;
        let p = t.turn(&messages, k, Summarizer::Model(&mut summarize));
        fits(&p);
        let Some(record) = p.outcome.record else { continue };
        let note = record.guards.as_ref().and_then(|g| g.breaker.clone());
        let names = t.names();
        assert_eq!(names.first(), Some(&"compactionStart"), "{names:?}");
        assert_eq!(names.last(), Some(&"compactionEnd"), "{names:?}");
        let sent = |name: &str| names.contains(&name);
        match note.as_ref().map(|n| n.change) {
            Some(BreakerChange::Opened) => {
                assert!(sent("breakerOpen") && !sent("breakerClosed"), "{names:?}")
            }
            Some(BreakerChange::Closed) => {
                assert!(sent("breakerClosed") && !sent("breakerOpen"), "{names:?}")
            }
            _ => assert!(!sent("breakerOpen") && !sent("breakerClosed"), "{names:?}"),
        }
        if record.fallback.is_some() {
            assert!(sent("fallback"), "{names:?}");
        }
        match note.as_ref().map(|n| n.change) {
            Some(BreakerChange::Opened) if opened.is_none() => {
                assert_eq!(before, 2, "opened by the third failure in a row");
                opened = Some(turn);
                // The summarizer recovers; the breaker does not know yet.
                failing = false;
            }
            Some(BreakerChange::Skipped) => {
                skipped += 1;
                let f = record.fallback.as_ref().expect("the fallback stood in");
                assert!(f.reason.contains("circuit breaker open"), "{}", f.reason);
            }
            Some(BreakerChange::Closed) => {
                closed = Some(turn);
                assert!(record.fallback.is_none());
                break;
            }
            other => assert!(opened.is_none(), "{other:?} while open"),
        }
    }
    let (opened, closed) = (
        opened.expect("opened"),
        closed.expect("closed after the cool-down"),
    );
    println!("breaker opened at turn {opened}, closed at turn {closed} after {skipped} compaction(s) without the summarizer; {calls_made} summarizer calls");
    assert!(closed - opened >= 6, "the cool-down is 6 turns");
    assert!(
        skipped >= 1,
        "a compaction used the fallback without calling the summarizer"
    );
    assert_eq!(t.meta().guards.breaker.failures, 0);
    assert!(t.meta().guards.breaker.open_until.is_none());
}

impl Turns {
    fn meta_or_default(&self) -> super::super::guards::GuardState {
        self.store
            .rows
            .get("g")
            .and_then(|r| r.meta.as_ref())
            .map(|m| m.guards.clone())
            .unwrap_or_default()
    }
}

#[test]
fn the_breaker_stays_open_across_a_reload() {
    let messages = agent(60);
    let options = json!({"model": "gpt-4o", "contextWindow": 10_000});
    let mut t = Turns::new(
        with(
            options.clone(),
            json!({"breakerFailures": 1, "breakerCooldownTurns": 50}),
        ),
        5,
    );
    let mut failing = |_: &compact::Request| Reply::Failed("down".into());
    let ks = calls(&messages);
    let mut n = 0;
    while t.meta_or_default().breaker.open_until.is_none() {
        t.turn(&messages, ks[n], Summarizer::Model(&mut failing));
        n += 1;
    }
    // Another Compactor over the same store (a reload, another tab): no summarizer call.
    t.s = with(options, json!({"breakerFailures": 1, "breakerCooldownTurns": 50}));
    let mut asked = 0;
    for &k in &ks[n..n + 30] {
        let mut count = |_: &compact::Request| {
            asked += 1;
            Reply::Failed("down".into())
        };
        t.turn(&messages, k, Summarizer::Model(&mut count));
    }
    assert!(
        t.store.rows["g"].records.len() >= 2,
        "the test needs another compaction"
    );
    assert_eq!(asked, 0, "the summarizer is not called while the breaker is open");
}

#[test]
fn a_schema_1_meta_loads_and_is_written_back_at_schema_2() {
    let messages = agent(6);
    let mut t = Turns::new(with(json!({"model": "gpt-4o"}), json!({})), 5);
    let ks = calls(&messages);
    t.turn(&messages, ks[0], Summarizer::Extractive);
    // The meta as ctxfold 1 wrote it: schema 1, no guards.
    let row = t.store.rows.get_mut("g").unwrap();
    let mut old = serde_json::to_value(row.meta.as_ref().unwrap()).unwrap();
    old["schema"] = json!(1);
    old.as_object_mut().unwrap().remove("guards");
    row.meta = Some(serde_json::from_value(old).unwrap());
    t.s = with(json!({"model": "gpt-4o"}), json!({}));
    t.turn(&messages, ks[1], Summarizer::Extractive);
    assert_eq!(t.meta().schema, META_SCHEMA);
    assert_eq!(t.meta().guards.turn, 1, "counted from the upgrade on");
    // A newer schema is refused.
    let row = t.store.rows.get_mut("g").unwrap();
    row.meta.as_mut().unwrap().schema = META_SCHEMA + 1;
    t.s = with(json!({"model": "gpt-4o"}), json!({}));
    let e = run(&mut t.s, |x| x.status("g"), &mut t.store, Summarizer::Extractive).unwrap_err();
    assert_eq!(e.code(), "STORE_ERROR", "{e}");
}

#[test]
fn guard_options_are_checked_at_their_path() {
    let bad = |v: Value| crate::options::from_value::<GuardOptions>("options.guards", &v).unwrap_err();
    let e = bad(json!({"idempotencyCoverage": 1.5}));
    assert_eq!(e.code(), "OUT_OF_RANGE");
    assert!(
        e.to_string().contains("options.guards.idempotencyCoverage"),
        "{e}"
    );
    assert_eq!(bad(json!({"breakerFailure": 3})).code(), "INVALID_ARGUMENT");
    assert_eq!(bad(json!({"backoffTurns": null})).code(), "INVALID_ARGUMENT");
}

#[test]
fn rolling_summaries_refilling_fast_are_not_summarized_again_within_the_minute() {
    let messages = refilling(30);
    let replay = |guards: Value| {
        let options = json!({"model": "gpt-4o", "contextWindow": 10_000, "thresholdRatio": 0.6,
            "toolOutputMaxBytes": 100_000, "strategy": "rolling"});
        let mut t = Turns::new(with(options, guards), 5);
        let mut notes = Vec::new();
        for k in calls(&messages) {
            let p = t.turn(&messages, k, Summarizer::Extractive);
            fits(&p);
            notes.push((p.outcome.guards.clone(), p.outcome.record.is_some()));
        }
        notes
    };
    // The back-off off: only the idempotency guard acts.
    let notes = replay(json!({"backoffTurns": 0}));
    let repeats: Vec<_> = notes.iter().filter_map(|(n, _)| n.suppressed.as_ref()).collect();
    assert!(
        !repeats.is_empty(),
        "a rolling re-summary within the minute is a repeat"
    );
    for s in &repeats {
        assert_eq!(s.guard, GuardKind::Idempotency);
        assert!(s.coverage.unwrap() >= 0.7 && s.seconds.unwrap() < 60.0, "{s:?}");
    }
    let with_guard = notes.iter().filter(|(_, compacted)| *compacted).count();
    let without = replay(json!({"backoffTurns": 0, "idempotencySeconds": 0}));
    assert!(without.iter().all(|(n, _)| n.suppressed.is_none()));
    let plain = without.iter().filter(|(_, compacted)| *compacted).count();
    println!("rolling, refilling: {plain} compactions, {with_guard} with the idempotency guard");
    assert!(with_guard < plain);
}

#[test]
fn at_the_default_threshold_nothing_is_optional_and_nothing_backs_off() {
    // A conversation compacting often at a threshold of 0.6 of a 10k window.
    let messages = agent(60);
    let options = json!({"model": "gpt-4o", "contextWindow": 10_000, "toolOutputMaxBytes": 100_000});
    let mut t = Turns::new(with(options, json!({})), 5);
    let mut compactions = 0;
    for k in calls(&messages) {
        let p = t.turn(&messages, k, Summarizer::Extractive);
        fits(&p);
        let g = &p.outcome.guards;
        assert!(
            g.suppressed.is_none() && g.backoff.is_none() && g.overridden.is_none(),
            "{g:?}"
        );
        compactions += usize::from(p.outcome.record.is_some());
    }
    assert!(compactions >= 3, "{compactions}");
    assert_eq!(t.meta().guards.backoff.level, 0);
}
