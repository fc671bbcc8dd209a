//! Each call's own behaviour: undo, usage anchoring, errors, manual compactions, Anthropic's
//! system, export and import, conversations started empty or by a commit.

use serde_json::json;

use super::super::memory::{run, MemoryStore, Store};
use super::*;
use crate::compact::{self, Reply, Summarizer};

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
            |x| x.prepare(id, messages[..12].to_vec(), Around::default(), None),
            &mut store,
            Summarizer::Extractive,
        )
        .unwrap(),
    );
    run(
        &mut twin,
        |x| x.prepare(id, messages[..12].to_vec(), Around::default(), None),
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
            |x| x.prepare(id, next.clone(), Around::default(), None),
            &mut store,
            Summarizer::Extractive,
        )
        .unwrap(),
    );
    let b = prepared(
        run(
            &mut twin,
            |x| x.prepare(id, next, Around::default(), None),
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
            |x| x.prepare(id, messages[..3].to_vec(), Around::default(), None),
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
            |x| x.prepare(id, messages[4..6].to_vec(), Around::default(), None),
            &mut store,
            Summarizer::Extractive,
        )
        .unwrap(),
    );
    let e = next.outcome.estimate;
    assert_eq!(e.ratio, Some(anchor.ratio));
    assert_eq!(e.counted, next.outcome.report.tokens_before);
    assert_eq!(e.tokens, (e.counted as f64 * anchor.ratio).round() as usize);
    // The engine worked to the budget in ctxfold's counts (the provider's divided by the
    // ratio), but every budget the call shows is the window's: one input budget everywhere,
    // the correction on the count's side (`estimate`).
    let window = next.outcome.report.budget;
    assert_eq!((window.window, window.input), (128_000, 120_000));
    assert_eq!(e.input, window.input);
    let status = match run(&mut s, |x| x.status(id), &mut store, Summarizer::Extractive).unwrap() {
        Done::Status(Some(st)) => st,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        (status.plan.budget.input, status.estimate.input),
        (window.input, window.input),
        "status"
    );
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
                |x| x.prepare(id, messages[..k].to_vec(), Around::default(), None),
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
            |x| x.prepare(id, messages[..first].to_vec(), Around::default(), None),
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
            |x| x.prepare(id, next.clone(), Around::default(), None),
            &mut a,
            Summarizer::Extractive,
        )
        .unwrap(),
    );
    let q = prepared(
        run(
            &mut corrected,
            |x| x.prepare(id, next, Around::default(), None),
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
        |x| x.prepare(id, agent(1), Around::default(), None),
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
        |x| x.prepare(id, bad, Around::default(), None),
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
        |x| {
            x.prepare(
                id,
                vec![json!({"role": "user", "content": "next"})],
                Around::default(),
                None,
            )
        },
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
        |x| x.commit(id, vec![], Some(json!({"prompt_tokens": "3"})), None),
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
        |x| x.prepare(id, messages.clone(), Around::default(), None),
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
            |x| x.prepare(id, agent(40), Around::default(), None),
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
            |x| {
                x.prepare(
                    id,
                    first,
                    Around {
                        system: Some(json!("Be brief.")),
                        tools: None,
                    },
                    None,
                )
            },
            &mut store,
            Summarizer::Extractive,
        )
        .unwrap(),
    );
    assert_eq!(p.system, Some(json!("Be brief.")));
    assert_eq!(
        store.rows[id].meta.as_ref().unwrap().format,
        crate::messages::MessageFormat::Anthropic
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
            |x| {
                x.prepare(
                    id,
                    result,
                    Around {
                        system: Some(json!("Be terse.")),
                        tools: None,
                    },
                    None,
                )
            },
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
            |x| x.prepare(id, vec![], Around::default(), None),
            &mut store,
            Summarizer::Extractive,
        )
        .unwrap(),
    );
    assert_eq!(p.system, Some(json!("Be terse.")));
}

/// A request's tool definitions, passed as `{ tools, messages }`: kept with the conversation
/// (a later call without them, a cold reader), counted with its input (so they bring the
/// compaction forward), replaced, and removed by `null`.
#[test]
fn tools_are_kept_counted_and_removed() {
    let tool = |k: usize| {
        json!({"type": "function", "function": {"name": format!("tool_{k}"),
            "description": format!("Tool {k} reads the workspace file it is given and returns its lines, numbered."),
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}})
    };
    let tools = json!((0..100).map(tool).collect::<Vec<_>>());
    let o200k = crate::tokenizer::tokenizer(crate::tokenizer::Encoding::O200kBase).unwrap();
    let tools_tokens = o200k.count(&tools.to_string());
    assert!(tools_tokens > 2000, "{tools_tokens}");
    let with = |t: &Value| Around {
        system: None,
        tools: Some(t.clone()),
    };
    let mut store = MemoryStore::default();
    let mut s = sessions(8192);
    let mut go = |s: &mut Sessions, id: &str, new: Vec<Value>, around: Around| {
        prepared(
            run(
                s,
                |x| x.prepare(id, new, around, None),
                &mut store,
                Summarizer::Extractive,
            )
            .unwrap(),
        )
    };
    // Without tools this conversation fits under the threshold; with them it compacts.
    let messages = agent(3);
    let bare = go(&mut s, "bare", messages.clone(), Around::default());
    assert!(bare.outcome.record.is_none() && bare.tools.is_none());
    let p = go(&mut s, "t", messages[..3].to_vec(), with(&tools));
    assert_eq!(p.tools, Some(tools.clone()));
    assert!(p.outcome.report.tokens_after >= tools_tokens);
    let p = go(&mut s, "t", messages[3..].to_vec(), Around::default());
    assert_eq!(p.tools, Some(tools.clone()), "kept when not passed again");
    assert!(
        p.outcome.record.is_some(),
        "the tools' room brought the compaction forward"
    );
    assert!(p.outcome.report.tokens_after <= p.outcome.report.budget.input);
    // A cold reader has them from the meta, and counts them.
    let cold = go(&mut sessions(8192), "t", Vec::new(), Around::default());
    assert_eq!(cold.tools, Some(tools.clone()));
    assert_eq!(cold.outcome.report.tokens_after, p.outcome.report.tokens_after);
    // Replaced by fewer, then removed.
    let few = json!([tool(1)]);
    let p = go(&mut s, "t", Vec::new(), with(&few));
    assert_eq!(p.tools, Some(few));
    let smaller = p.outcome.report.tokens_after;
    assert!(smaller + 2000 < cold.outcome.report.tokens_after);
    let p = go(&mut s, "t", Vec::new(), with(&Value::Null));
    assert_eq!(p.tools, None);
    assert!(p.outcome.report.tokens_after < smaller);
}

#[test]
fn an_export_imports_under_another_id() {
    let messages = agent(20);
    let mut s = sessions(8192);
    let mut store = MemoryStore::default();
    run(
        &mut s,
        |x| x.prepare("a", messages.clone(), Around::default(), None),
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
    assert_eq!(meta.id.as_str(), "b");
    assert_eq!(meta.version, crate::session::stored::first_version(&meta.epoch));
    assert_ne!(meta.epoch, row.meta.as_ref().unwrap().epoch);
    // The imported conversation goes on as the original would.
    let next = vec![json!({"role": "user", "content": "and now?"})];
    let pa = prepared(
        run(
            &mut s,
            |x| x.prepare("a", next.clone(), Around::default(), None),
            &mut store,
            Summarizer::Extractive,
        )
        .unwrap(),
    );
    let pb = prepared(
        run(
            &mut s,
            |x| x.prepare("b", next, Around::default(), None),
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
            |x| x.prepare("e", vec![], Around::default(), None),
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
            |x| {
                x.prepare(
                    "g",
                    vec![json!({"role": "user", "content": "hi"})],
                    Around::default(),
                    None,
                )
            },
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
fn a_report_is_taken_only_for_the_input_just_returned() {
    let messages = agent(4);
    let id = "c";
    let mut s = sessions(128_000);
    let mut store = MemoryStore::default();
    let first = |x: &mut Sessions| x.prepare(id, messages[..3].to_vec(), Around::default(), None);
    run(&mut s, first, &mut store, Summarizer::Extractive).unwrap();
    run(
        &mut s,
        |x| x.commit(id, messages[3..6].to_vec(), None, None),
        &mut store,
        Summarizer::Extractive,
    )
    .unwrap();
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
            |x| x.prepare(id, vec![], Around::default(), None),
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
    assert!(status.usage.is_empty(), "no report was taken");
    assert_eq!(status.length, store.rows[id].messages.len());
}
