//! The reading calls over answers as a store gives them, and as a store that breaks its
//! contract gives them.

use serde_json::{json, Value};

use super::*;

/// A meta as `load` gives it: `length` messages, `undone` compactions.
fn meta(length: usize, undone: &[u32]) -> Value {
    json!({"schema": 2, "id": "c", "version": 3, "length": length, "undone": undone})
}

fn messages(n: usize) -> Value {
    Value::Array(
        (0..n)
            .map(|i| json!({"role": "user", "content": format!("m{i}")}))
            .collect(),
    )
}

fn record(seq: u32, evicted: &[usize]) -> Value {
    json!({"seq": seq, "trigger": "threshold", "evicted": evicted, "undone": false})
}

/// The `STORE_ERROR`'s operation and reason, or what else came.
fn store_error<T: std::fmt::Debug>(got: Result<T, Error>) -> (StoreOperation, String) {
    match got {
        Err(Error::Store {
            operation,
            id,
            reason,
        }) => {
            assert_eq!(
                id,
                if operation == StoreOperation::List {
                    ""
                } else {
                    "c"
                }
            );
            (operation, reason)
        }
        other => panic!("expected a STORE_ERROR, got {other:?}"),
    }
}

fn summarized_by(entries: &[HistoryEntry<Value>]) -> Vec<Option<i64>> {
    entries.iter().map(|e| e.summarized_by).collect()
}

#[test]
fn history_names_the_oldest_compaction_that_summarized_each_message() {
    let records = json!([record(0, &[1, 2]), record(1, &[1, 2, 3, 4])]);
    let entries = history("c", &meta(6, &[]), &messages(6), &records).unwrap();
    assert_eq!(
        summarized_by(&entries),
        [None, Some(0), Some(0), Some(1), Some(1), None]
    );
    let indexes: Vec<usize> = entries.iter().map(|e| e.index).collect();
    assert_eq!(indexes, [0, 1, 2, 3, 4, 5]);
    assert_eq!(
        entries[3].message,
        json!({"role": "user", "content": "m3"}),
        "the stored message itself"
    );
}

#[test]
fn history_skips_undone_compactions() {
    let records = json!([record(0, &[1, 2]), record(1, &[1, 2, 3])]);
    let entries = history("c", &meta(5, &[0]), &messages(5), &records).unwrap();
    assert_eq!(summarized_by(&entries), [None, Some(1), Some(1), Some(1), None]);
    let entries = history("c", &meta(5, &[0, 1]), &messages(5), &records).unwrap();
    assert!(entries.iter().all(|e| e.summarized_by.is_none()));
}

#[test]
fn history_without_a_record_of_a_message_says_none_summarized_it() {
    // Index 9 is past the history: a record may name it (it is ignored), and a message no
    // record names was never summarized.
    let entries = history("c", &meta(3, &[]), &messages(3), &json!([record(0, &[0, 9])])).unwrap();
    assert_eq!(summarized_by(&entries), [Some(0), None, None]);
    assert_eq!(
        history("c", &meta(2, &[]), &messages(2), &json!([]))
            .unwrap()
            .len(),
        2
    );
}

#[test]
fn history_of_a_conversation_not_stored_is_empty_whatever_else_came() {
    assert!(history("c", &Value::Null, &Value::Null, &Value::Null)
        .unwrap()
        .is_empty());
}

#[test]
fn history_takes_as_many_messages_as_the_meta_counts() {
    // A write that landed its messages and not yet its meta (a store that appends first).
    let entries = history("c", &meta(2, &[]), &messages(4), &json!([])).unwrap();
    assert_eq!(entries.len(), 2);
    let (op, reason) = store_error(history("c", &meta(4, &[]), &messages(3), &json!([])));
    assert_eq!(op, StoreOperation::Messages);
    assert!(
        reason.ends_with("expected an array of at least 4 messages (meta.length), got 3"),
        "{reason}"
    );
}

#[test]
fn history_names_the_method_whose_answer_is_no_array() {
    let (op, reason) = store_error(history("c", &meta(1, &[]), &json!("oops"), &json!([])));
    assert_eq!(op, StoreOperation::Messages);
    assert!(
        reason.starts_with("it returned data that breaks the store contract: "),
        "{reason}"
    );
    assert!(reason.ends_with("got string"), "{reason}");
    let (op, reason) = store_error(history("c", &meta(1, &[]), &messages(1), &json!({"0": {}})));
    assert_eq!(
        (op, reason.ends_with("expected an array, got object")),
        (StoreOperation::Records, true),
        "{reason}"
    );
    let (op, reason) = store_error(history("c", &json!(7), &messages(1), &json!([])));
    assert_eq!(op, StoreOperation::Load);
    assert!(
        reason.ends_with("expected a meta (an object) or null, got number"),
        "{reason}"
    );
    let (op, reason) = store_error(history("c", &json!({"length": -1}), &messages(1), &json!([])));
    assert_eq!(op, StoreOperation::Load);
    assert!(
        reason.ends_with("meta.length: expected a count of messages, got number"),
        "{reason}"
    );
    let (_, reason) = store_error(history("c", &json!({}), &messages(1), &json!([])));
    assert!(reason.ends_with("got undefined"), "{reason}");
}

#[test]
fn history_refuses_a_record_with_a_bad_evicted() {
    for (record, words) in [
        (
            json!({"seq": 1}),
            "records[0].evicted: expected an array of message indexes, got undefined",
        ),
        (
            json!({"seq": 1, "evicted": "0-3"}),
            "records[0].evicted: expected an array of message indexes, got string",
        ),
        (
            json!({"seq": 1, "evicted": [0, -2]}),
            "records[0].evicted[1]: expected a message index",
        ),
        (
            json!({"seq": 1, "evicted": [0.5]}),
            "records[0].evicted[0]: expected a message index",
        ),
    ] {
        let (op, reason) = store_error(history("c", &meta(2, &[]), &messages(2), &json!([record])));
        assert_eq!(op, StoreOperation::Records);
        assert!(reason.contains(words), "{reason}");
    }
    // An undone record is checked too: it is the store's answer all the same.
    let got = history(
        "c",
        &meta(2, &[1]),
        &messages(2),
        &json!([{"seq": 1, "evicted": null}]),
    );
    assert_eq!(store_error(got).0, StoreOperation::Records);
}

#[test]
fn history_refuses_a_record_without_its_seq_and_a_bad_undone_list() {
    let (_, reason) = store_error(history(
        "c",
        &meta(2, &[]),
        &messages(2),
        &json!([{"evicted": [0]}]),
    ));
    assert!(
        reason.ends_with("[0]: expected an object with its seq (a whole number), got object"),
        "{reason}"
    );
    let bad = json!({"length": 1, "undone": 3});
    let (op, reason) = store_error(history("c", &bad, &messages(1), &json!([])));
    assert_eq!(op, StoreOperation::Load);
    assert!(
        reason.ends_with("meta.undone: expected an array of compaction seqs, got number"),
        "{reason}"
    );
}

#[test]
fn records_are_copies_marked_undone_from_the_meta() {
    let stored = json!([record(0, &[1]), record(1, &[1, 2]), record(2, &[3])]);
    let got = records("c", &meta(5, &[1]), &stored).unwrap();
    let flags: Vec<&Value> = got.iter().map(|r| &r["undone"]).collect();
    assert_eq!(flags, [&json!(false), &json!(true), &json!(false)]);
    assert_eq!(got[1]["evicted"], json!([1, 2]), "the rest as stored");
    // No meta (a conversation the store does not hold): nothing undone.
    let got = records("c", &Value::Null, &json!([record(0, &[])])).unwrap();
    assert_eq!(got[0]["undone"], json!(false));
}

#[test]
fn records_and_summaries_answers_that_break_the_contract() {
    type Reading = fn(&Value) -> Result<Vec<Value>, Error>;
    let cases: [(Reading, Value, StoreOperation, &str); 5] = [
        (
            |l| records("c", &meta(1, &[]), l),
            Value::Null,
            StoreOperation::Records,
            "expected an array, got null",
        ),
        (
            |l| records("c", &meta(1, &[]), l),
            json!([{"nonsense": true}]),
            StoreOperation::Records,
            "[0]: expected an object with its seq (a whole number), got object",
        ),
        (
            |l| records("c", &meta(1, &[]), l),
            json!([record(0, &[]), {"seq": "1"}]),
            StoreOperation::Records,
            "[1]: expected an object with its seq (a whole number), got string",
        ),
        (
            |l| summaries("c", l),
            json!(3),
            StoreOperation::Summaries,
            "expected an array, got number",
        ),
        (
            |l| summaries("c", l),
            json!([7]),
            StoreOperation::Summaries,
            "[0]: expected an object with its seq (a whole number), got number",
        ),
    ];
    for (call, answer, operation, words) in cases {
        let (op, reason) = store_error(call(&answer));
        assert_eq!(op, operation);
        assert!(reason.ends_with(words), "{reason}");
    }
    let stored = json!([{"seq": 0, "compaction": 0, "text": "a"}]);
    assert_eq!(
        summaries("c", &stored).unwrap(),
        stored.as_array().unwrap().clone()
    );
}

#[test]
fn list_gives_the_ids_and_refuses_what_is_not_one() {
    assert_eq!(list(&json!(["a", "b"])).unwrap(), [json!("a"), json!("b")]);
    let (op, reason) = store_error(list(&Value::Null));
    assert_eq!(op, StoreOperation::List);
    assert!(
        reason.ends_with("expected an array of conversation ids, got null"),
        "{reason}"
    );
    let (_, reason) = store_error(list(&json!(["a", 7])));
    assert!(
        reason.ends_with("[1]: expected a conversation id (a string), got number"),
        "{reason}"
    );
}

#[test]
fn export_holds_what_the_store_gave_the_history_cut_to_the_meta() {
    let (m, sums, recs) = (
        meta(2, &[]),
        json!([{"seq": 0, "compaction": 0}]),
        json!([record(0, &[0])]),
    );
    let out = export("c", m.clone(), &messages(3), &sums, &recs).unwrap();
    assert_eq!((out.kind, out.export_version), (EXPORT_KIND, EXPORT_VERSION));
    assert_eq!(out.meta, m);
    assert_eq!(Value::Array(out.messages), messages(2));
    assert_eq!(Value::Array(out.summaries), sums);
    assert_eq!(
        Value::Array(out.records),
        recs,
        "records as stored, without undone flags set"
    );
}

#[test]
fn export_of_a_conversation_not_stored_or_broken() {
    let got = export("c", Value::Null, &Value::Null, &Value::Null, &Value::Null);
    assert!(matches!(got, Err(Error::UnknownConversation { id }) if id == "c"));
    let got = export("c", meta(2, &[]), &messages(1), &json!([]), &json!([]));
    assert_eq!(store_error(got).0, StoreOperation::Messages);
    let got = export(
        "c",
        meta(1, &[]),
        &messages(1),
        &json!([]),
        &json!([{"seq": null}]),
    );
    assert_eq!(store_error(got).0, StoreOperation::Records);
    let got = export("c", meta(1, &[]), &messages(1), &json!(null), &json!([]));
    assert_eq!(store_error(got).0, StoreOperation::Summaries);
}

#[test]
fn an_import_over_a_stored_conversation_deletes_it_only_when_told() {
    assert!(!import_over("c", &Value::Null, false).unwrap());
    assert!(!import_over("c", &Value::Null, true).unwrap());
    assert!(import_over("c", &meta(1, &[]), true).unwrap());
    let got = import_over("c", &meta(1, &[]), false);
    assert!(matches!(got, Err(Error::ConversationExists { id }) if id == "c"));
}
