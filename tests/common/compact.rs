//! Driving compactions in tests, and the invariants every output must hold.
#![allow(dead_code)]

use ctxfold::compact::summary::frame::{CLOSE, FRAME};
use ctxfold::compact::{Budget, CompactOutcome, CompactState, Compaction, Input, Reply, Request};
use ctxfold::config::Config;
use ctxfold::count::{Counter, Memo};
use ctxfold::messages::{Conversation, NewMessage, Out, Part};
use ctxfold::Error;
use serde_json::Value;
use std::rc::Rc;

/// How the tests answer summarizer requests.
pub enum Summarizer<'a> {
    /// The built-in extractive summary.
    Extractive,
    /// A test double for the remote LLM.
    Fake(&'a mut dyn FnMut(&Request) -> Reply),
}

/// Runs one compaction to the end. Returns the outcome and how many summarizer calls it made.
pub fn run(
    conv: &Conversation,
    config: &Config,
    counter: impl Into<Counter>,
    window: usize,
    reserved: usize,
    state: Option<CompactState>,
    summarizer: Summarizer,
) -> Result<(CompactOutcome, usize), Error> {
    run_manual(conv, config, counter, window, reserved, state, summarizer, false)
}

/// [`run`], as a manual compaction (`/compact`) when `manual`: the engine planned with a
/// budget of `window` and `reserved`, then driven by the core's driver.
#[allow(clippy::too_many_arguments)]
pub fn run_manual(
    conv: &Conversation,
    config: &Config,
    counter: impl Into<Counter>,
    window: usize,
    reserved: usize,
    state: Option<CompactState>,
    summarizer: Summarizer,
    manual: bool,
) -> Result<(CompactOutcome, usize), Error> {
    let counter = counter.into();
    let (counts, _) = Memo::default().counts(conv, &counter);
    let c = Compaction::new(Input {
        conv: Rc::new(conv.clone()),
        counts,
        config: Rc::new(config.clone()),
        counter,
        budget: Budget::new(window, reserved, config),
        state,
        manual,
        ahead: false,
        now: Some("2026-11-22T00:00:00Z".into()),
    })?;
    let summarizer = match summarizer {
        Summarizer::Extractive => ctxfold::compact::Summarizer::Extractive,
        Summarizer::Fake(f) => ctxfold::compact::Summarizer::Model(f),
    };
    ctxfold::compact::run(c, summarizer)
}

/// What `plan()` says for the same call: the engine's plan, or the error it meets first.
#[allow(clippy::too_many_arguments)]
pub fn plan_manual(
    conv: &Conversation,
    config: &Config,
    counter: impl Into<Counter>,
    window: usize,
    reserved: usize,
    manual: bool,
) -> Result<ctxfold::compact::CompactPlan, Error> {
    let counter = counter.into();
    let (counts, _) = Memo::default().counts(conv, &counter);
    Compaction::new(Input {
        conv: Rc::new(conv.clone()),
        counts,
        config: Rc::new(config.clone()),
        counter,
        budget: Budget::new(window, reserved, config),
        state: None,
        manual,
        ahead: false,
        now: None,
    })
    .map(|c| c.plan().clone())
}

/// Checks what must hold for any output; panics with `what` on a violation.
pub fn check_invariants(conv: &Conversation, outcome: &CompactOutcome, budget_input: usize, what: &str) {
    let rendered = conv.render(&outcome.order);
    // Fits.
    assert!(
        outcome.report.tokens_after <= budget_input,
        "{what}: {} tokens out, budget {budget_input}",
        outcome.report.tokens_after
    );
    // Valid for the provider: parses back in its format (every result has its call) and
    // no call lacks its results.
    let back = Conversation::parse(&rendered, Some(conv.format()))
        .unwrap_or_else(|e| panic!("{what}: output does not parse back: {e}"));
    assert!(
        back.unanswered_calls().is_empty(),
        "{what}: unanswered calls {:?}",
        back.unanswered_calls()
    );
    // Order preserved, and only tool results edited.
    let mut last = None;
    for o in &outcome.order {
        let i = match o {
            Out::Keep(i) => *i,
            Out::Edited { index, results } => {
                for (call_id, _) in results {
                    assert!(
                        conv.messages()[*index]
                            .parts
                            .iter()
                            .any(|p| matches!(p, Part::ToolResult { call_id: c, .. } if c == call_id)),
                        "{what}: edited something that is not a tool result"
                    );
                }
                *index
            }
            Out::Truncated { index, text } => {
                assert!(
                    text.contains("truncated"),
                    "{what}: a cut message carries the marker"
                );
                *index
            }
            Out::New(NewMessage { text, .. }) | Out::Merged { text, .. } => {
                assert!(
                    text.starts_with("## Conversation Summary")
                        || text.starts_with("[Earlier messages truncated]"),
                    "{what}: inserted message is not a summary: {text:.80}",
                );
                // A summary goes framed as data, once; the marker alone carries nothing.
                let frames = text.matches(FRAME).count();
                let marker_only = text.split("\n\n").all(|p| p == "[Earlier messages truncated]");
                assert_eq!(
                    frames,
                    usize::from(!marker_only),
                    "{what}: framing in {text:.200}"
                );
                if let (Out::Merged { .. }, false) = (o, marker_only) {
                    assert!(
                        text.ends_with(CLOSE),
                        "{what}: a merged summary ends with its closing line"
                    );
                }
                match o {
                    Out::Merged { index, .. } => *index,
                    _ => continue,
                }
            }
        };
        assert!(last.is_none_or(|l| l < i), "{what}: order broken at message {i}");
        last = Some(i);
    }
    // Head and newest user message verbatim (with overflow: "truncate", a message cut to
    // fit still counts as present; so does one whose tool results alone were cut, as the
    // newest step's are when an Anthropic user message holds them with the user's words).
    let kept: Vec<usize> = outcome
        .order
        .iter()
        .filter_map(|o| match o {
            Out::Keep(i)
            | Out::Truncated { index: i, .. }
            | Out::Merged { index: i, .. }
            | Out::Edited { index: i, .. } => Some(*i),
            _ => None,
        })
        .collect();
    // A provider's compaction goes whole, never summarized, cut or dropped.
    for (i, m) in conv.messages().iter().enumerate() {
        if m.holds_compaction() {
            assert!(
                outcome.order.iter().any(|o| matches!(o, Out::Keep(k) if *k == i)),
                "{what}: provider compaction {i} not kept whole"
            );
        }
    }
    let head = conv
        .messages()
        .iter()
        .take_while(|m| m.role == ctxfold::messages::MessageRole::System)
        .count();
    for i in 0..head {
        assert!(kept.contains(&i), "{what}: head message {i} missing");
    }
    if let Some(u) = conv.messages().iter().rposition(|m| m.starts_turn()) {
        assert!(kept.contains(&u), "{what}: newest user message {u} missing");
        // A request never ends with the summary: a provider takes a last assistant message
        // as text to continue.
        assert!(
            !matches!(outcome.order.last(), Some(Out::New(_))),
            "{what}: the request ends with the summary"
        );
    }
}

/// Runs `f` on a thread and fails if it has not returned within `secs` seconds: a hang is a
/// failure, not a stuck test run.
pub fn within<F: FnOnce() + Send + 'static>(secs: u64, what: &str, f: F) {
    use std::sync::mpsc::{channel, RecvTimeoutError};
    let (tx, rx) = channel();
    let handle = std::thread::spawn(move || {
        f();
        let _ = tx.send(());
    });
    match rx.recv_timeout(std::time::Duration::from_secs(secs)) {
        Ok(()) => handle.join().expect("joined"),
        Err(RecvTimeoutError::Disconnected) => {
            std::panic::resume_unwind(handle.join().expect_err("the thread panicked"))
        }
        Err(RecvTimeoutError::Timeout) => panic!("{what}: no result within {secs} s (a hang)"),
    }
}

/// The rendered output as JSON.
pub fn output(conv: &Conversation, outcome: &CompactOutcome) -> Value {
    conv.render(&outcome.order)
}
