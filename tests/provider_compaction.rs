//! What a provider's own compaction left (a Responses `compaction` item, an Anthropic
//! `compaction` block, an AI SDK `custom` part of a `*.compaction` kind), in each format's
//! documented shape: read, counted, kept whole after the head, never summarized again, and
//! kept through a second compaction that starts from the first one's state.

mod common;

use common::compact::{check_invariants, output, run, Summarizer};
use ctxfold::compact::{Reply, Request};
use ctxfold::config::Config;
use ctxfold::count::{count_conversation, Memo};
use ctxfold::messages::{Conversation, MessageFormat};
use ctxfold::tokenizer::{tokenizer, Encoding, Tokenizer};
use ctxfold::Error;
use serde_json::{json, Value};

fn enc() -> &'static Tokenizer {
    tokenizer(Encoding::O200kBase).unwrap()
}

/// The opaque payload, as the Responses API returns it (base64 of an encrypted blob).
fn blob() -> String {
    format!("gAAAAABpM{}", "Qk5hY2tlZF9jb250ZXh0Xw".repeat(40))
}

const SUMMARY: &str =
    "The user is migrating db-prod-1 to Postgres 16; FRE-512 is fixed; next: run the smoke tests.";

fn turn(k: usize) -> (String, String) {
    (
        format!(
            "Step {k}: look at the migration logs of db-prod-1 and tell me what failed. {}",
            "The log says the port was busy. ".repeat(30)
        ),
        format!(
            "Step {k}: the port 5432 was taken by an old server; I stopped it. {}",
            "The retry went through. ".repeat(30)
        ),
    )
}

/// Chat items: `turns` turns before `item` (as it goes into the input) and `turns` after.
fn responses(turns: usize, item: Value) -> Value {
    let mut items = vec![json!({"role": "developer", "content": "You are a careful assistant."})];
    for k in 0..2 * turns {
        if k == turns {
            items.push(item.clone());
        }
        let (u, a) = turn(k);
        items.push(json!({"role": "user", "content": u}));
        items.push(
            json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": a}]}),
        );
    }
    Value::Array(items)
}

fn anthropic(turns: usize, block: Value) -> Value {
    let mut messages = Vec::new();
    for k in 0..2 * turns {
        let (u, a) = turn(k);
        messages.push(json!({"role": "user", "content": u}));
        let content = match k == turns {
            true => json!([block.clone(), {"type": "text", "text": a}]),
            false => json!([{"type": "text", "text": a}]),
        };
        messages.push(json!({"role": "assistant", "content": content}));
    }
    json!({"system": "You are a careful assistant.", "messages": messages})
}

fn ai_sdk(turns: usize, part: Value) -> Value {
    let mut items = vec![json!({"role": "system", "content": "You are a careful assistant."})];
    for k in 0..2 * turns {
        let (u, a) = turn(k);
        items.push(json!({"role": "user", "content": [{"type": "text", "text": u}]}));
        let content = match k == turns {
            true => json!([part.clone(), {"type": "text", "text": a}]),
            false => json!([{"type": "text", "text": a}]),
        };
        items.push(json!({"role": "assistant", "content": content}));
    }
    Value::Array(items)
}

fn items(v: &Value) -> &Vec<Value> {
    v.as_array().or_else(|| v["messages"].as_array()).unwrap()
}

/// Compacts `input` at a window that evicts the item's neighbours; checks the item goes out
/// whole, after the head, never in a summarizer's prompt, then again from the state.
fn kept_whole(input: &Value, format: MessageFormat, needle: &str) {
    let conv = Conversation::parse(input, None).unwrap();
    assert_eq!(conv.format(), format, "detected from the item");
    let index = conv.messages().iter().position(|m| m.holds_compaction()).unwrap();
    let item = conv.items()[index].clone();
    let mut prompts = Vec::new();
    let mut fake = |r: &Request| {
        prompts.push(r.prompt.clone());
        Reply::Text {
            text: format!("## Conversation Summary\n- **Decisions:** None\n- **Facts:** part {}.\n- **Open Items:** None", r.part[0]),
            model: None,
            usage: None,
        }
    };
    let cfg = Config::from_json(&json!({})).unwrap();
    let (o, _) = run(&conv, &cfg, enc(), 4_000, 256, None, Summarizer::Fake(&mut fake)).unwrap();
    check_invariants(&conv, &o, o.report.budget.input, format.name());
    assert!(!o.report.evicted.is_empty(), "the case compacts");
    assert!(
        o.report.evicted.iter().any(|&i| i > index),
        "messages after the item are evicted"
    );
    assert!(!o.report.evicted.contains(&index), "the item is not evicted");
    assert!(
        prompts.iter().all(|p| !p.contains(needle)),
        "the item is not summarized again"
    );
    let out = output(&conv, &o);
    let at = items(&out)
        .iter()
        .position(|m| *m == item)
        .expect("the item goes out as it came");
    assert!(at <= 1, "the item follows the head: at {at}");
    // The next compaction starts from the state: the item is before its boundary, and kept.
    let mut more = input.clone();
    let list = match more.is_array() {
        true => more.as_array_mut().unwrap(),
        false => more["messages"].as_array_mut().unwrap(),
    };
    let tail: Vec<Value> = list[list.len() - 4..].to_vec();
    list.extend(tail);
    let conv2 = Conversation::parse(&more, None).unwrap();
    let (o2, _) = run(
        &conv2,
        &cfg,
        enc(),
        4_000,
        256,
        Some(o.state.clone()),
        Summarizer::Extractive,
    )
    .unwrap();
    assert!(o2.report.state_reset.is_none(), "the state is used");
    check_invariants(&conv2, &o2, o2.report.budget.input, format.name());
    assert!(items(&output(&conv2, &o2)).contains(&item));
}

#[test]
fn a_responses_compaction_item_is_kept_whole() {
    // The documented item (`v1/responses/compact`, or `context_management` on create):
    // `{ type: "compaction", id, encrypted_content, created_by? }`.
    let item = json!({"type": "compaction", "id": "cmp_68de2f1a6f3c8190a5b0b4b0c5d0e0f1", "encrypted_content": blob()});
    kept_whole(&responses(6, item), MessageFormat::OpenAiResponses, "gAAAAABpM");
}

#[test]
fn an_anthropic_compaction_block_is_kept_whole() {
    // Server-side compaction's block, first in the assistant message it starts.
    let block = json!({"type": "compaction", "content": SUMMARY});
    kept_whole(&anthropic(6, block), MessageFormat::Anthropic, "Postgres 16");
}

#[test]
fn an_ai_sdk_compaction_part_is_kept_whole() {
    // A provider's item carried as AI SDK 7's provider-specific part.
    let part = json!({"type": "custom", "kind": "openai.compaction", "providerOptions": {"openai": {"itemId": "cmp_1", "encryptedContent": blob()}}});
    kept_whole(&ai_sdk(6, part), MessageFormat::AiSdk, "gAAAAABpM");
}

/// Counted as the formats count what they carry: opaque bytes as reasoning's encrypted
/// content is (one token per 4 bytes), Anthropic's readable summary as text.
#[test]
fn compaction_is_counted_like_the_formats_other_content() {
    let total = |v: Value| {
        let conv = Conversation::parse(&v, None).unwrap();
        count_conversation(&conv, &mut Memo::default(), enc()).total
    };
    let user = json!({"role": "user", "content": "go on"});
    let with = total(json!([user, {"type": "compaction", "id": "cmp_1", "encrypted_content": blob()}]));
    let opaque =
        total(json!([user, {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": blob()}]));
    assert_eq!(with, opaque, "as encrypted reasoning of the same size");
    assert!(with > blob().len() / 4);
    let block = total(
        json!({"messages": [user, {"role": "assistant", "content": [{"type": "compaction", "content": SUMMARY}]}]}),
    );
    let text = total(
        json!({"messages": [user, {"role": "assistant", "content": [{"type": "text", "text": SUMMARY}]}]}),
    );
    assert_eq!(block, text, "as the same text");
    // A failed compaction leaves `content: null`: read, counted as nothing.
    let null = json!({"messages": [user, {"role": "assistant", "content": [{"type": "compaction", "content": null}]}]});
    assert!(Conversation::parse(&null, None).unwrap().messages()[1].holds_compaction());
}

/// A block out of place, or an item without its payload, is a typed error naming the path.
#[test]
fn malformed_compaction_is_a_typed_error() {
    let user_block =
        json!({"messages": [{"role": "user", "content": [{"type": "compaction", "content": SUMMARY}]}]});
    let e = Conversation::parse(&user_block, Some(MessageFormat::Anthropic)).unwrap_err();
    assert!(
        matches!(&e, Error::InvalidMessage { path, .. } if path == "messages[0].content[0]"),
        "{e:?}"
    );
    let no_payload = json!([{"type": "compaction", "id": "cmp_1"}]);
    let e = Conversation::parse(&no_payload, Some(MessageFormat::OpenAiResponses)).unwrap_err();
    assert!(
        matches!(&e, Error::InvalidMessage { path, .. } if path == "messages[0].encrypted_content"),
        "{e:?}"
    );
    // OpenAI Chat Completions has no such item: one is not a Chat message.
    let chat = json!([{"type": "compaction", "id": "cmp_1", "encrypted_content": blob()}]);
    assert!(Conversation::parse(&chat, Some(MessageFormat::OpenAiChat)).is_err());
}

/// A provider's compaction that cannot fit with the newest turn meets the typed overflow.
#[test]
fn a_compaction_too_large_for_the_window_is_a_context_overflow() {
    let item = json!({"type": "compaction", "id": "cmp_1", "encrypted_content": blob().repeat(60)});
    let conv = Conversation::parse(&responses(3, item), None).unwrap();
    let r = run(
        &conv,
        &Config::from_json(&json!({})).unwrap(),
        enc(),
        4_000,
        256,
        None,
        Summarizer::Extractive,
    );
    assert!(
        matches!(r, Err(Error::ContextOverflow { .. })),
        "{:?}",
        r.map(|(o, _)| o.report.tokens_after)
    );
}
