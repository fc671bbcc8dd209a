//! `recall`: only what the model's input does not hold, searched deep enough to fill the
//! limit, within its token budget, framed as data.

use super::super::memory::{run, MemoryStore};
use super::super::search::SearchHit;
use super::*;
use crate::compact::Summarizer;
use crate::recall::excerpts::{CLOSE, NOTHING, OPEN};
use crate::recall::Recalled;

fn with(options: Value) -> Sessions {
    let mut o = json!({"model": "gpt-4o", "contextWindow": 128_000, "bufferTurns": 1});
    o.as_object_mut()
        .unwrap()
        .extend(options.as_object().unwrap().clone());
    Sessions::new(
        crate::options::from_value("options", &o).unwrap(),
        DEFAULT_ATTEMPTS,
        3,
    )
    .unwrap()
}

fn recall(s: &mut Sessions, store: &mut MemoryStore, q: &str, limit: usize) -> Recalled {
    match run(s, |x| x.recall("c", q, limit), store, Summarizer::Extractive).unwrap() {
        Done::Recalled(r) => r,
        other => panic!("{other:?}"),
    }
}

fn search(s: &mut Sessions, store: &mut MemoryStore, q: &str) -> Vec<SearchHit> {
    match run(s, |x| x.search("c", q, 100), store, Summarizer::Extractive).unwrap() {
        Done::Searched(hits) => hits,
        other => panic!("{other:?}"),
    }
}

/// A conversation of 8 file reads, compacted by hand: the early reads are summarized away.
fn compacted(s: &mut Sessions) -> (Vec<Value>, MemoryStore) {
    let messages = agent(8);
    let mut store = MemoryStore::default();
    run(
        s,
        |x| x.prepare("c", messages.clone(), Around::default(), None),
        &mut store,
        Summarizer::Extractive,
    )
    .unwrap();
    run(
        s,
        |x| x.compact("c", None, None),
        &mut store,
        Summarizer::Extractive,
    )
    .unwrap();
    (messages, store)
}

#[test]
fn only_messages_outside_the_input_come_back_as_many_as_asked() {
    let mut s = with(json!({"recall": {"maxTokens": 100_000}}));
    let (messages, mut store) = compacted(&mut s);
    let query = "mod_0.py mod_7.py value host";
    let hits = search(&mut s, &mut store, query);
    let out: Vec<u32> = hits.iter().filter(|h| !h.in_input).map(|h| h.index).collect();
    assert!(
        hits.iter().take(3).any(|h| h.in_input),
        "the in-input ones rank among the best: {hits:?}"
    );
    assert!(out.len() >= 3, "{hits:?}");
    let r = recall(&mut s, &mut store, query, 3);
    let got: Vec<u32> = r.matches.iter().map(|m| m.index).collect();
    assert_eq!(
        got,
        out[..3],
        "the best three outside the input, searched past the ones inside"
    );
    for m in &r.matches {
        assert!(!m.cut, "a budget this large cuts nothing");
        assert_eq!(
            m.text,
            crate::recall::message_text(
                &crate::messages::Conversation::parse(&Value::Array(messages.clone()), None)
                    .unwrap()
                    .messages()[m.index as usize]
            )
        );
    }
    assert!(r.text.starts_with(OPEN) && r.text.ends_with(CLOSE));
}

#[test]
fn the_default_budget_holds_and_cuts_passages() {
    let mut s = with(json!({}));
    let (_, mut store) = compacted(&mut s);
    let r = recall(&mut s, &mut store, "value_1_30 db-1.internal", 5);
    let counter = crate::tokenizer::tokenizer(crate::tokenizer::Encoding::O200kBase).unwrap();
    assert_eq!(
        r.tokens as usize,
        crate::count::TextCounter::count(counter, &r.text)
    );
    assert!(
        r.tokens as usize <= crate::config::RECALL_MAX_TOKENS,
        "{}",
        r.tokens
    );
    let top = r.matches.first().expect("found");
    assert!(top.cut && top.text.contains("value_1_30"), "{}", top.text);
}

#[test]
fn nothing_in_the_input_is_recalled_before_a_compaction() {
    let mut s = with(json!({}));
    let mut store = MemoryStore::default();
    let messages = agent(3);
    run(
        &mut s,
        |x| x.prepare("c", messages.clone(), Around::default(), None),
        &mut store,
        Summarizer::Extractive,
    )
    .unwrap();
    let r = recall(&mut s, &mut store, "mod_0.py", 5);
    assert!(r.matches.is_empty());
    assert_eq!(r.text, format!("{OPEN}\n{NOTHING}\n{CLOSE}"));
    // A conversation the store does not hold: the same answer.
    let none = match run(
        &mut s,
        |x| x.recall("nobody", "mod_0.py", 5),
        &mut store,
        Summarizer::Extractive,
    )
    .unwrap()
    {
        Done::Recalled(r) => r,
        other => panic!("{other:?}"),
    };
    assert_eq!(none, r);
}
