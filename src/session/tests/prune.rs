//! What the chat commands need of the core: `/prune` (old tool outputs pruned now, without a
//! summary), the breakdown a compaction record keeps for its notice, and the pruned
//! messages' tokens a `pruned` notice shows.

use serde_json::json;

use super::super::memory::{run, MemoryStore};
use super::*;
use crate::compact::Summarizer;

fn step(s: &mut Sessions, store: &mut MemoryStore, make: impl FnOnce(&mut Sessions) -> Call) -> Prepared {
    prepared(run(s, make, store, Summarizer::Extractive).unwrap())
}

#[test]
fn prune_now_prunes_old_tool_outputs_without_a_summary() {
    let messages = agent(12);
    let id = "p";
    // A window so large that no turn is under pressure: the engine alone prunes nothing.
    let mut s = sessions(128_000);
    let mut store = MemoryStore::default();
    let before = step(&mut s, &mut store, |x| {
        x.prepare(id, messages.clone(), Around::default(), None)
    });
    assert!(before.outcome.report.pruned.messages.is_empty());
    assert_eq!(before.outcome.pruned_tokens, PrunedTokens::default());

    let writes = store.writes;
    let p = step(&mut s, &mut store, |x| x.prune(id, None));
    let report = &p.outcome.report;
    assert!(report.pruned.advanced, "{:?}", report.pruned);
    assert!(!report.pruned.messages.is_empty());
    // Nothing summarized: no record, no summary, and the recent turns are whole.
    assert!(p.outcome.record.is_none() && report.trigger.is_none() && report.summary_chunks == 0);
    assert_eq!(store.writes, writes + 1);
    let row = &store.rows[id];
    let meta = row.meta.as_ref().unwrap();
    assert!(row.records.is_empty() && row.summaries.is_empty() && meta.compactions == 0);
    assert!(meta.state.prune_boundary.is_some());
    assert!(report.tokens_after < before.outcome.report.tokens_after);
    // The pruned messages' tokens: whole, and as sent.
    let t = p.outcome.pruned_tokens;
    assert!(t.before > t.after && t.after > 0, "{t:?}");
    assert_eq!(t.before - t.after, report.pruned.tokens_saved);
    assert_eq!(
        report.tokens_after,
        before.outcome.report.tokens_after - report.pruned.tokens_saved
    );
    // The estimate keeps the configured threshold (the call raised its own to the input budget).
    assert_eq!(p.outcome.estimate.threshold, before.outcome.estimate.threshold);

    // Pruning again has nothing to do, and writes nothing.
    let writes = store.writes;
    let again = step(&mut s, &mut store, |x| x.prune(id, None));
    assert!(!again.outcome.report.pruned.advanced);
    assert_eq!(again.outcome.report.pruned.messages, report.pruned.messages);
    assert_eq!(store.writes, writes);

    // The next turn keeps the pruning, with the same bytes: the prune's input is its prefix.
    let pruned_input = input(&p, &store.rows[id].messages);
    let next = vec![json!({"role": "user", "content": "Now summarize what you found."})];
    let after = step(&mut s, &mut store, |x| {
        x.prepare(id, next, Around::default(), None)
    });
    assert_eq!(after.outcome.report.pruned.messages, report.pruned.messages);
    assert!(!after.outcome.report.pruned.advanced);
    let history = &store.rows[id].messages;
    assert_eq!(input(&after, history)[..pruned_input.len()], pruned_input[..]);

    // A conversation the store does not hold.
    let err = run(
        &mut s,
        |x| x.prune("nobody", None),
        &mut store,
        Summarizer::Extractive,
    )
    .unwrap_err();
    assert!(matches!(err, Error::UnknownConversation { .. }), "{err:?}");
}

#[test]
fn prune_compacts_only_what_does_not_fit() {
    // A conversation over the window as it stands: pruning alone cannot make it fit, so the
    // call compacts, as any `prepare` of it must.
    let messages = agent(40);
    let id = "q";
    let mut big = sessions(128_000);
    let mut store = MemoryStore::default();
    step(&mut big, &mut store, |x| {
        x.prepare(id, messages, Around::default(), None)
    });
    let mut small = sessions(8192);
    let p = step(&mut small, &mut store, |x| x.prune(id, None));
    assert!(p.outcome.record.is_some());
    assert!(p.outcome.report.tokens_after <= p.outcome.report.budget.input);
}

#[test]
fn a_record_keeps_the_breakdown_of_the_input_after_it() {
    let messages = agent(30);
    let mut s = sessions(8192);
    let mut store = MemoryStore::default();
    let mut replay = Replay::new();
    let mut seen = 0;
    for k in calls(&messages) {
        let p = replay.turn(&mut s, &mut store, "r", &messages, k);
        let Some(record) = p.outcome.record else { continue };
        seen += 1;
        let after = record.after.expect("a new record has its breakdown");
        assert_eq!(after.total, record.tokens_after, "turn {k}");
        assert_eq!(
            after.head + after.summaries + after.middle + after.tail + after.framing,
            after.total
        );
        assert!(
            after.summaries > 0 && after.tail > 0 && after.middle == 0,
            "{after:?}"
        );
        // It is stored with the record.
        let stored = store.rows["r"].records.last().unwrap();
        assert_eq!(stored["after"]["total"], json!(record.tokens_after));
    }
    assert!(seen >= 2, "{seen} compactions");
}
