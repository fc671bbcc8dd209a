//! `overflowed`: a provider's refusal of the input as too long corrects the estimate and the
//! budget, the input is planned again below the provider's limit, and a refusal of that one
//! is `CONTEXT_OVERFLOW` with both counts.

use super::super::memory::{run, MemoryStore};
use super::*;
use crate::refusal::Refusal;

/// A conversation prepared in a window far larger than the provider's: its input.
fn start(s: &mut Sessions, store: &mut MemoryStore, id: &str) -> Prepared {
    let messages = agent(12);
    prepared(
        run(
            s,
            |x| x.prepare(id, messages, Around::default(), None),
            store,
            Summarizer::Extractive,
        )
        .unwrap(),
    )
}

fn overflowed(s: &mut Sessions, store: &mut MemoryStore, id: &str, r: Refusal) -> Result<Done, Error> {
    run(s, |x| x.overflowed(id, r, None), store, Summarizer::Extractive)
}

#[test]
fn a_refusal_with_both_counts_is_planned_again_below_the_limit() {
    let (mut s, mut store, id) = (sessions(128_000), MemoryStore::default(), "c");
    let first = start(&mut s, &mut store, id);
    let counted = first.outcome.report.tokens_after;
    assert!(first.outcome.record.is_none(), "it fit ctxfold's window");
    // The provider counts 20 % more, and holds half of what ctxfold sent.
    let tokens = counted as u64 * 6 / 5;
    let limit = counted as u64 / 2;
    let again = prepared(
        overflowed(
            &mut s,
            &mut store,
            id,
            Refusal {
                tokens: Some(tokens),
                limit: Some(limit),
            },
        )
        .unwrap(),
    );
    assert!(again.outcome.record.is_some(), "it compacted");
    let provider = again.outcome.report.tokens_after as f64 * 1.2;
    assert!(
        provider < limit as f64,
        "{provider} provider tokens, limit {limit}"
    );
    // The window the call shows is the provider's.
    assert_eq!(again.outcome.report.budget.window, limit as usize);
    // The correction stays with the conversation: the next turn is planned below the limit.
    let status = match run(&mut s, |x| x.status(id), &mut store, Summarizer::Extractive).unwrap() {
        Done::Status(Some(st)) => st,
        other => panic!("{other:?}"),
    };
    let anchor = &status.usage[0];
    assert_eq!(anchor.limit, Some(limit as usize));
    assert!(
        (anchor.ratio - tokens as f64 / counted as f64).abs() < 1e-3,
        "{anchor:?}"
    );
    assert!(status.estimate.input < limit as usize);
    // A second refusal of the input planned again: the typed error, with both counts.
    let e = overflowed(
        &mut s,
        &mut store,
        id,
        Refusal {
            tokens: Some(limit + 10),
            limit: Some(limit),
        },
    )
    .unwrap_err();
    assert_eq!(e.code(), "CONTEXT_OVERFLOW");
    match e {
        Error::Refused {
            tokens,
            limit: l,
            estimate,
        } => {
            assert_eq!((tokens, l), (Some(limit + 10), Some(limit)));
            assert!(estimate > 0 && (estimate as f64) < limit as f64, "{estimate}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_limit_alone_still_plans_below_it() {
    let (mut s, mut store, id) = (sessions(128_000), MemoryStore::default(), "c");
    let counted = start(&mut s, &mut store, id).outcome.report.tokens_after;
    let limit = counted as u64 / 3;
    let again = prepared(
        overflowed(
            &mut s,
            &mut store,
            id,
            Refusal {
                tokens: None,
                limit: Some(limit),
            },
        )
        .unwrap(),
    );
    assert!(
        again.outcome.report.tokens_after < limit as usize,
        "{}",
        again.outcome.report.tokens_after
    );
    // A new turn after the retry is a fresh input: a refusal of it is planned again, once.
    let user = vec![json!({"role": "user", "content": "And now the docs."})];
    run(
        &mut s,
        |x| {
            x.commit(
                id,
                vec![json!({"role": "assistant", "content": "Done."})],
                None,
                None,
            )
        },
        &mut store,
        Summarizer::Extractive,
    )
    .unwrap();
    prepared(
        run(
            &mut s,
            |x| x.prepare(id, user, Around::default(), None),
            &mut store,
            Summarizer::Extractive,
        )
        .unwrap(),
    );
    let r = Refusal {
        tokens: None,
        limit: Some(limit / 2),
    };
    assert!(overflowed(&mut s, &mut store, id, r).is_ok());
}

#[test]
fn a_refusal_with_nothing_to_pair_with_is_an_argument_error() {
    let (mut s, mut store, id) = (sessions(128_000), MemoryStore::default(), "c");
    start(&mut s, &mut store, id);
    let reply = vec![json!({"role": "assistant", "content": "ok"})];
    run(
        &mut s,
        |x| x.commit(id, reply, None, None),
        &mut store,
        Summarizer::Extractive,
    )
    .unwrap();
    let r = Refusal {
        tokens: Some(10),
        limit: Some(5),
    };
    assert_eq!(
        overflowed(&mut s, &mut store, id, r).unwrap_err().code(),
        "INVALID_ARGUMENT"
    );
    assert_eq!(
        overflowed(&mut s, &mut store, "none", r).unwrap_err().code(),
        "UNKNOWN_CONVERSATION"
    );
}
