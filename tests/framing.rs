//! A summary goes out framed as data in every format: the fixed line after its header, once,
//! in the role each format gives it, and never in a system prompt; a summarizer never reads it.

mod common;

use common::compact::{check_invariants, output, run_manual, Summarizer};
use ctxfold::compact::summary::frame::{CLOSE, FRAME};
use ctxfold::compact::{CompactState, Reply, Request};
use ctxfold::config::Config;
use ctxfold::messages::{Conversation, MessageFormat};
use ctxfold::tokenizer::{tokenizer, Encoding, Tokenizer};
use serde_json::{json, Value};

fn enc() -> &'static Tokenizer {
    tokenizer(Encoding::O200kBase).unwrap()
}

const WINDOW: usize = 8_192;
const RESERVED: usize = 512;
const SYSTEM: &str = "Two friends chat.";
const GOOD: &str = "## Conversation Summary\n- **Decisions:** Meet in Lisbon.\n- **Entities:** Anna\n- **Facts:** The trip is in May.\n- **Open Items:** None";

/// `turns` turns of a chat in `format`, after a system prompt.
fn chat(format: MessageFormat, turns: usize) -> Value {
    let words = |i: usize| format!("On {i} May we met Anna in Lisbon and talked about the trip. ").repeat(6);
    let plain = |role: &str, t: &str| json!({"role": role, "content": t});
    let blocks = |role: &str, t: &str| json!({"role": role, "content": [{"type": "text", "text": t}]});
    let item = |role: &str, t: &str| match (format, role) {
        (MessageFormat::OpenAiChat, _) | (MessageFormat::AiSdk, "assistant") => plain(role, t),
        (MessageFormat::OpenAiResponses, "user") => {
            json!({"type": "message", "role": role, "content": [{"type": "input_text", "text": t}]})
        }
        (MessageFormat::OpenAiResponses, _) => {
            json!({"type": "message", "role": role, "content": [{"type": "output_text", "text": t}]})
        }
        _ => blocks(role, t),
    };
    let messages: Vec<Value> = (0..turns)
        .flat_map(|i| {
            [
                item("user", &words(i)),
                item("assistant", &format!("Noted, turn {i}.")),
            ]
        })
        .collect();
    match format {
        MessageFormat::Anthropic => json!({"system": SYSTEM, "messages": messages}),
        _ => {
            let mut all = vec![json!({"role": "system", "content": SYSTEM})];
            all.extend(messages);
            Value::Array(all)
        }
    }
}

const FORMATS: [MessageFormat; 4] = [
    MessageFormat::OpenAiChat,
    MessageFormat::OpenAiResponses,
    MessageFormat::AiSdk,
    MessageFormat::Anthropic,
];

/// The output's items (an Anthropic request's `messages`).
fn items(rendered: &Value) -> &Vec<Value> {
    rendered
        .as_array()
        .or_else(|| rendered["messages"].as_array())
        .unwrap()
}

/// Compacts `conv` as a manual compaction; every summarizer call's prompt goes to `seen`.
fn compact(conv: &Conversation, options: Value, model: bool, seen: &mut Vec<String>) -> Value {
    compact_with(conv, options, model, seen, None).0
}

/// [`compact`] with the state of an earlier compaction; the output and the new state.
fn compact_with(
    conv: &Conversation,
    options: Value,
    model: bool,
    seen: &mut Vec<String>,
    state: Option<CompactState>,
) -> (Value, CompactState) {
    let cfg = Config::from_json(&options).unwrap();
    let mut fake = |r: &Request| {
        seen.push(r.prompt.clone());
        Reply::Text {
            text: GOOD.into(),
            model: None,
            usage: None,
        }
    };
    let summarizer = match model {
        true => Summarizer::Fake(&mut fake),
        false => Summarizer::Extractive,
    };
    let (o, _) = run_manual(conv, &cfg, enc(), WINDOW, RESERVED, state, summarizer, true).unwrap();
    let what = format!("{:?} {options}", conv.format());
    check_invariants(conv, &o, WINDOW - RESERVED, &what);
    assert!(o.report.summary_chunks > 0, "{what}: nothing summarized");
    (output(conv, &o), o.state)
}

/// In the four formats, with each placement: the framing line once, after the header, in the
/// summary's message; the role is the least authority the placement allows; an Anthropic
/// `system` is never touched.
#[test]
fn every_format_sends_its_summary_framed_once() {
    for format in FORMATS {
        let conv = Conversation::parse(&chat(format, 60), Some(format)).unwrap();
        let system = match format {
            MessageFormat::Anthropic => "user",
            _ => "system",
        };
        let placements = [
            // Nothing of the user's before it: a user message.
            (json!({}), "user"),
            // After the pinned task: an assistant message.
            (json!({"pinFirstUserTurn": true}), "assistant"),
            (json!({"summaryRole": "system"}), system),
            // Merged into the user message after it, closed.
            (json!({"alternateRoles": true}), "user"),
        ];
        for (options, role) in placements {
            for model in [true, false] {
                let what = format!("{format:?} {options} model {model}");
                let rendered = compact(&conv, options.clone(), model, &mut Vec::new());
                let text = serde_json::to_string(&rendered).unwrap();
                assert_eq!(text.matches(FRAME).count(), 1, "{what}");
                let summary = items(&rendered)
                    .iter()
                    .find(|m| m.to_string().contains(FRAME))
                    .unwrap();
                assert_eq!(summary["role"], role, "{what}");
                let said = summary.to_string();
                assert!(
                    said.contains(&format!("## Conversation Summary\\n{FRAME}\\n")),
                    "{what}: {said:.300}"
                );
                let merged = options["alternateRoles"] == true;
                assert_eq!(said.matches(CLOSE).count(), usize::from(merged), "{what}");
                if format == MessageFormat::Anthropic {
                    assert_eq!(rendered["system"], SYSTEM, "{what}: the system prompt changed");
                }
            }
        }
    }
}

/// A summary message sent back in a later input (a history that kept it) reaches the
/// summarizer without its framing, and the new summary is framed once; a rolling summary's
/// next call reads the earlier summary unframed.
#[test]
fn a_summarizer_never_reads_the_framing() {
    for format in FORMATS {
        let first = compact(
            &Conversation::parse(&chat(format, 60), Some(format)).unwrap(),
            json!({}),
            true,
            &mut Vec::new(),
        );
        // The compacted history, then forty more turns.
        let more = chat(format, 40);
        let mut history = first.clone();
        let tail = items(&more)[usize::from(format != MessageFormat::Anthropic)..].to_vec();
        match history.as_array_mut() {
            Some(a) => a.extend(tail),
            None => history["messages"].as_array_mut().unwrap().extend(tail),
        }
        let conv = Conversation::parse(&history, Some(format)).unwrap();
        for options in [json!({}), json!({"strategy": "rolling"})] {
            let mut prompts = Vec::new();
            let rendered = compact(&conv, options.clone(), true, &mut prompts);
            let what = format!("{format:?} {options}");
            assert!(
                prompts.iter().any(|p| p.contains("## Conversation Summary")),
                "{what}: the earlier summary was not evicted"
            );
            assert!(
                prompts.iter().all(|p| !p.contains(FRAME)),
                "{what}: a summarizer read the framing"
            );
            let text = serde_json::to_string(&rendered).unwrap();
            assert_eq!(text.matches(FRAME).count(), 1, "{what}");
        }
        // A stateless caller passes the state back: the rolling summary's next call leads
        // with the earlier summary, unframed, and the new one goes out framed once.
        let rolling = json!({"strategy": "rolling"});
        let conv = Conversation::parse(&chat(format, 60), Some(format)).unwrap();
        let (_, state) = compact_with(&conv, rolling.clone(), true, &mut Vec::new(), None);
        let conv = Conversation::parse(&chat(format, 100), Some(format)).unwrap();
        let mut prompts = Vec::new();
        let (rendered, _) = compact_with(&conv, rolling, true, &mut prompts, Some(state));
        assert!(
            prompts[0].starts_with("[earlier summary]\n## Conversation Summary\n- **Decisions:**"),
            "{format:?}: {:.200}",
            prompts[0]
        );
        assert!(prompts.iter().all(|p| !p.contains(FRAME)), "{format:?}");
        let text = serde_json::to_string(&rendered).unwrap();
        assert_eq!(text.matches(FRAME).count(), 1, "{format:?}");
    }
}
