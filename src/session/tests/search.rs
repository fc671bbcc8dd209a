//! `search`: over the cached history, extended as it grows, the same cold as warm, and
//! `inInput` following compactions and their undo.

use super::super::memory::{run, MemoryStore};
use super::super::search::SearchHit;
use super::*;
use crate::compact::Summarizer;

fn search(s: &mut Sessions, store: &mut MemoryStore, id: &str, q: &str) -> Vec<SearchHit> {
    match run(s, |x| x.search(id, q, 5), store, Summarizer::Extractive).unwrap() {
        Done::Searched(hits) => hits,
        other => panic!("{other:?}"),
    }
}

fn prepare(s: &mut Sessions, store: &mut MemoryStore, new: &[Value]) {
    run(
        s,
        |x| x.prepare("c", new.to_vec(), Around::default(), None),
        store,
        Summarizer::Extractive,
    )
    .unwrap();
}

fn compact(s: &mut Sessions, store: &mut MemoryStore) {
    run(s, |x| x.compact("c", None, None), store, Summarizer::Extractive).unwrap();
}

#[test]
fn finds_appended_messages_and_follows_compaction_and_undo() {
    let messages = agent(6);
    let mut s = one_turn(128_000);
    let mut store = MemoryStore::default();
    prepare(&mut s, &mut store, &messages[..12]);
    let hits = search(&mut s, &mut store, "c", "what is in mod_1.py");
    let top = hits.first().expect("a hit");
    assert!(
        messages[top.index as usize].to_string().contains("mod_1.py"),
        "{hits:?}"
    );
    assert!(top.snippet.contains("mod_1"), "{}", top.snippet);
    assert!(hits.iter().all(|h| h.in_input));
    // Appended later: the index is extended, not stale.
    prepare(&mut s, &mut store, &messages[12..18]);
    let late = search(&mut s, &mut store, "c", "mod_5.py");
    assert!(late.iter().any(|h| h.index >= 12), "{late:?}");

    compact(&mut s, &mut store);
    let after = search(&mut s, &mut store, "c", "OPS-4412 mod_0.py");
    assert!(after.iter().any(|h| !h.in_input), "{after:?}");
    run(&mut s, |x| x.undo("c", None), &mut store, Summarizer::Extractive).unwrap();
    let undone = search(&mut s, &mut store, "c", "OPS-4412 mod_0.py");
    assert!(undone.iter().all(|h| h.in_input), "{undone:?}");
    // The same answer cold: another session reads the stored history and indexes it once.
    let mut cold = one_turn(128_000);
    assert_eq!(search(&mut cold, &mut store, "c", "OPS-4412 mod_0.py"), undone);
}

#[test]
fn an_unknown_conversation_has_no_hits() {
    let mut s = one_turn(128_000);
    let mut store = MemoryStore::default();
    assert!(search(&mut s, &mut store, "nobody", "anything").is_empty());
}

#[test]
fn a_provider_compaction_the_summary_passed_is_still_in_the_input() {
    let mut s = one_turn(128_000);
    let mut store = MemoryStore::default();
    let mut messages = vec![
        json!({"role": "user", "content": "Set up the staging proxy."}),
        json!({"role": "assistant", "content": [
            {"type": "compaction", "content": "Earlier: the staging proxy listens on port 48213."}
        ]}),
    ];
    for i in 0..12 {
        messages.push(json!({"role": "user", "content": format!("Check worker {i}, please.")}));
        messages.push(json!({"role": "assistant", "content": format!("Worker {i} drained its queue.")}));
    }
    prepare(&mut s, &mut store, &messages);
    compact(&mut s, &mut store);
    let worker = search(&mut s, &mut store, "c", "worker 0 drained");
    assert!(
        worker.iter().any(|h| !h.in_input),
        "the compaction evicted something: {worker:?}"
    );
    let hits = search(&mut s, &mut store, "c", "staging proxy port");
    let item = hits
        .iter()
        .find(|h| h.index == 1)
        .expect("the compaction block's text is searched");
    assert!(item.in_input, "a provider's compaction is always sent: {hits:?}");
}
