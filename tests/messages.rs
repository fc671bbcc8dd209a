//! The four message formats: detection, lossless round trips (unknown fields included),
//! edits that touch only what they name, and malformed input reported with its path.

mod common;

use ctxfold::count::Memo;
use ctxfold::messages::{Conversation, MessageFormat, MessageRole, NewMessage, Out, Part};
use ctxfold::Error;
use serde_json::{json, Value};

fn openai() -> Value {
    json!([
        {"role": "system", "content": "You are terse.", "x_custom": {"keep": true}},
        {"role": "user", "content": [{"type": "text", "text": "Read both files"}, {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_a", "type": "function", "function": {"name": "read", "arguments": "{\"path\":\"/etc/hosts\"}"}},
            {"id": "call_b", "type": "function", "function": {"name": "read", "arguments": "{\"path\":\"/etc/passwd\"}"}}
        ], "refusal": null},
        {"role": "tool", "tool_call_id": "call_a", "content": "127.0.0.1 localhost"},
        {"role": "tool", "tool_call_id": "call_b", "content": [{"type": "text", "text": "root:x:0:0"}]},
        {"role": "assistant", "content": "Done.", "name": "bot"},
        {"role": "user", "content": "Thanks", "metadata": [1, 2, 3]}
    ])
}

fn responses() -> Value {
    json!([
        {"role": "developer", "content": "Be brief."},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "What is 2+2?"}]},
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Add."}], "encrypted_content": "gAAAA"},
        {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "calc", "arguments": "{\"e\":\"2+2\"}", "status": "completed"},
        {"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "calc", "arguments": "{\"e\":\"2*2\"}"},
        {"type": "function_call_output", "call_id": "call_1", "output": "4"},
        {"type": "function_call_output", "call_id": "call_2", "output": [{"type": "input_text", "text": "4"}]},
        {"type": "message", "role": "assistant", "id": "msg_1", "status": "completed", "content": [{"type": "output_text", "text": "4", "annotations": []}]},
        {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search", "query": "x"}}
    ])
}

fn anthropic() -> Value {
    json!({
        "model": "claude-sonnet-4-5",
        "system": [{"type": "text", "text": "You help.", "cache_control": {"type": "ephemeral"}}],
        "messages": [
            {"role": "user", "content": "List /tmp"},
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": "Use ls.", "signature": "sig"},
                {"type": "redacted_thinking", "data": "opaque"},
                {"type": "tool_use", "id": "toolu_1", "name": "bash", "input": {"cmd": "ls /tmp"}},
                {"type": "tool_use", "id": "toolu_2", "name": "bash", "input": {"cmd": "ls /var"}}
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.txt"},
                {"type": "tool_result", "tool_use_id": "toolu_2", "content": [{"type": "text", "text": "log"}], "is_error": true}
            ]},
            {"role": "assistant", "content": [{"type": "text", "text": "a.txt", "citations": null}]},
            {"role": "user", "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}, {"type": "text", "text": "and this?"}]}
        ],
        "max_tokens": 1024
    })
}

fn ai_sdk() -> Value {
    json!([
        {"role": "system", "content": "You help."},
        {"role": "user", "content": [{"type": "text", "text": "Weather in Paris?"}, {"type": "file", "data": "AAAA", "mediaType": "application/pdf"}]},
        {"role": "assistant", "content": [
            {"type": "reasoning", "text": "Call the tool."},
            {"type": "tool-call", "toolCallId": "c1", "toolName": "weather", "input": {"city": "Paris"}, "providerOptions": {"x": {"y": 1}}},
            {"type": "tool-call", "toolCallId": "c2", "toolName": "weather", "input": {"city": "Lyon"}}
        ]},
        {"role": "tool", "content": [
            {"type": "tool-result", "toolCallId": "c1", "toolName": "weather", "output": {"type": "text", "value": "18C"}},
            {"type": "tool-result", "toolCallId": "c2", "toolName": "weather", "output": {"type": "json", "value": {"t": 20}}}
        ]},
        {"role": "assistant", "content": "18C in Paris."}
    ])
}

fn all_kept(conv: &Conversation) -> Vec<Out> {
    (0..conv.items().len()).map(Out::Keep).collect()
}

#[test]
fn formats_are_detected() {
    for (input, want) in [
        (openai(), MessageFormat::OpenAiChat),
        (responses(), MessageFormat::OpenAiResponses),
        (anthropic(), MessageFormat::Anthropic),
        (ai_sdk(), MessageFormat::AiSdk),
        (
            json!([{"role": "user", "content": "hi"}]),
            MessageFormat::OpenAiChat,
        ),
        (
            json!({"system": "s", "messages": [{"role": "user", "content": "hi"}]}),
            MessageFormat::Anthropic,
        ),
    ] {
        assert_eq!(
            Conversation::parse(&input, None).unwrap().format(),
            want,
            "{input}"
        );
    }
}

/// Reported from outside: an OpenAI file part (`{ type: "file", file: { file_id } }`) made
/// the conversation read as AI SDK messages, so valid input was rejected, or a user `name`
/// went uncounted. Each format's own media parts now tell it, and only those.
#[test]
fn media_parts_tell_their_own_format() {
    let openai_file = json!([
        {"role": "system", "content": "s"},
        {"role": "user", "name": "ana", "content": [{"type": "text", "text": "read it"}, {"type": "file", "file": {"file_id": "file-abc123"}}]},
        {"role": "assistant", "content": null, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "t", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c", "content": "ok"}
    ]);
    let openai_file_data = json!([{"role": "user", "content": [{"type": "file", "file": {"file_data": "data:application/pdf;base64,AAAA", "filename": "a.pdf"}}]}]);
    let ai_sdk_image =
        json!([{"role": "user", "content": [{"type": "image", "image": "https://example.com/a.png"}]}]);
    let ai_sdk_file = json!([{"role": "user", "content": [{"type": "file", "data": "AAAA", "mediaType": "application/pdf"}]}]);
    for (input, want) in [
        (&openai_file, MessageFormat::OpenAiChat),
        (&openai_file_data, MessageFormat::OpenAiChat),
        (&ai_sdk_image, MessageFormat::AiSdk),
        (&ai_sdk_file, MessageFormat::AiSdk),
    ] {
        assert_eq!(
            Conversation::parse(input, None).unwrap().format(),
            want,
            "{input}"
        );
    }
    // Detected, it counts exactly as with the format given (the user's name included).
    let enc = ctxfold::tokenizer::tokenizer(ctxfold::tokenizer::Encoding::O200kBase).unwrap();
    let detected = ctxfold::count::count_conversation(
        &Conversation::parse(&openai_file, None).unwrap(),
        &mut Memo::default(),
        enc,
    );
    let given = ctxfold::count::count_conversation(
        &Conversation::parse(&openai_file, Some(MessageFormat::OpenAiChat)).unwrap(),
        &mut Memo::default(),
        enc,
    );
    assert_eq!(detected.total, given.total);
}

/// The format every item allows wins, not the first marker seen: a `refusal` or
/// `input_audio` part is in both OpenAI formats, an Anthropic server tool block is only in
/// Anthropic (found by the fuzzer, tests/fuzz/findings.md 4 and 8).
#[test]
fn the_format_is_the_one_every_item_allows() {
    let refusal_then_chat = json!([
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "refusal", "refusal": "I can't."}]},
        {"role": "user", "content": "ok, read it"},
        {"role": "assistant", "content": null, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c", "content": "r"}
    ]);
    let audio_then_responses = json!([
        {"role": "user", "content": [{"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}}]},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "and this"}]}
    ]);
    let server_tools = json!([
        {"role": "user", "content": "search it"},
        {"role": "assistant", "content": [
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "x"}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
            {"type": "text", "text": "found"}
        ]}
    ]);
    let redacted = json!([
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "redacted-reasoning", "data": "opaque"}, {"type": "text", "text": "ok"}]}
    ]);
    for (input, want) in [
        (&redacted, MessageFormat::AiSdk),
        (&refusal_then_chat, MessageFormat::OpenAiChat),
        (&audio_then_responses, MessageFormat::OpenAiResponses),
        (&server_tools, MessageFormat::Anthropic),
    ] {
        let conv = Conversation::parse(input, None).unwrap_or_else(|e| panic!("{input}: {e}"));
        assert_eq!(conv.format(), want, "{input}");
    }
}

/// A conversation extended after its newest items were dropped detects again from what is
/// left: the array [a, b, openai call, result] then [a, b, anthropic call, result] (the
/// same first two objects, reused by the transfer layer) is Anthropic the second time
/// (tests/fuzz/findings.md 7).
#[test]
fn dropping_the_items_that_told_the_format_forgets_it() {
    let a = json!({"role": "user", "content": "hi"});
    let b = json!({"role": "assistant", "content": "hello"});
    let mut conv = Conversation::parse(
        &json!([a, b, {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "c1", "content": "r"}]),
        None,
    )
    .unwrap();
    assert_eq!(conv.format(), MessageFormat::OpenAiChat);
    conv.truncate(2);
    let anthropic = vec![
        json!({"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]}),
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "r"}]}),
    ];
    assert_eq!(conv.append(anthropic.clone()), Ok(false), "read anew");
    let whole: Vec<Value> = [a, b].into_iter().chain(anthropic).collect();
    assert_eq!(
        Conversation::parse(&Value::Array(whole), None).unwrap().format(),
        MessageFormat::Anthropic
    );
}

#[test]
fn round_trips_are_lossless() {
    for (input, format) in [
        (openai(), MessageFormat::OpenAiChat),
        (responses(), MessageFormat::OpenAiResponses),
        (anthropic(), MessageFormat::Anthropic),
        (ai_sdk(), MessageFormat::AiSdk),
    ] {
        let conv = Conversation::parse(&input, Some(format)).unwrap();
        assert_eq!(conv.render(&all_kept(&conv)), input, "{format:?}");
    }
}

#[test]
fn every_corpus_conversation_round_trips() {
    for conv in common::conversations() {
        let messages = &conv.json["messages"];
        let parsed = Conversation::parse(messages, None).unwrap();
        assert_eq!(parsed.format(), MessageFormat::OpenAiChat, "{}", conv.id);
        assert_eq!(&parsed.render(&all_kept(&parsed)), messages, "{}", conv.id);
        assert!(parsed.unanswered_calls().is_empty(), "{}", conv.id);
    }
}

#[test]
fn parsed_view_sees_roles_calls_and_results() {
    let conv = Conversation::parse(&anthropic(), None).unwrap();
    let roles: Vec<MessageRole> = conv.messages().iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [
            MessageRole::User,
            MessageRole::Assistant,
            MessageRole::Tool,
            MessageRole::Assistant,
            MessageRole::User
        ]
    );
    assert!(
        conv.messages()[0].starts_turn()
            && !conv.messages()[2].starts_turn()
            && conv.messages()[4].starts_turn()
    );
    assert_eq!(
        conv.messages()[1].call_ids().collect::<Vec<_>>(),
        ["toolu_1", "toolu_2"]
    );
    assert_eq!(
        conv.messages()[2].parts[1],
        Part::ToolResult {
            call_id: "toolu_2".into(),
            text: "log".into(),
            is_error: true,
            media: vec![]
        }
    );
    assert_eq!(conv.system().unwrap().parts, [Part::Text("You help.".into())]);

    let conv = Conversation::parse(&ai_sdk(), None).unwrap();
    assert_eq!(
        conv.messages()[3].parts[1],
        Part::ToolResult {
            call_id: "c2".into(),
            text: "{\"t\":20}".into(),
            is_error: false,
            media: vec![]
        }
    );
}

#[test]
fn edits_change_only_the_named_result() {
    // (input, edited item, call id, JSON pointer to the result in the output)
    let cases = [
        (openai(), 3, "call_a", "/3/content"),
        (responses(), 5, "call_1", "/5/output"),
        // A result in blocks stays in blocks.
        (anthropic(), 2, "toolu_2", "/messages/2/content/1/content/0/text"),
        (ai_sdk(), 3, "c2", "/3/content/1/output/value"),
    ];
    for (input, index, call_id, at) in cases {
        let conv = Conversation::parse(&input, None).unwrap();
        let mut order = all_kept(&conv);
        order[index] = Out::Edited {
            index,
            results: vec![(call_id.into(), "...truncated 9 bytes...".into())],
        };
        let out = conv.render(&order);
        assert_eq!(
            out.pointer(at).unwrap(),
            "...truncated 9 bytes...",
            "{:?}",
            conv.format()
        );
        // Every other item is identical to the caller's.
        let reparsed = Conversation::parse(&out, Some(conv.format())).unwrap();
        assert_eq!(reparsed.messages().len(), conv.messages().len());
        for (i, (a, b)) in conv.items().iter().zip(reparsed.items()).enumerate() {
            assert_eq!(a == b, i != index, "{:?} item {i}", conv.format());
        }
    }
}

/// Counts a text as its bytes: enough to see what a message is counted as.
struct Bytes;
impl ctxfold::count::TextCounter for Bytes {
    fn count(&self, text: &str) -> usize {
        text.len()
    }
    fn cache_key(&self) -> u64 {
        99
    }
}

#[test]
fn tool_results_with_images_count_them_and_keep_them_when_cut() {
    use ctxfold::count::{count_message, IMAGE_TOKENS};
    use ctxfold::messages::MediaKind;
    let png = json!({"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="});
    // (input, item, call id, where the result's content is, the text after the edit there,
    // the images that must stay there, the media kinds parsed)
    let cases = [
        (
            json!([
                {"role": "user", "content": "Look at the page."},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "screenshot", "input": {}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "is_error": true, "content": [
                    {"type": "text", "text": "took it: "},
                    {"type": "image", "source": png},
                    {"type": "text", "text": "a long log", "cache_control": {"type": "ephemeral"}},
                    {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "x"}}
                ]}]}
            ]),
            2,
            "t1",
            "/2/content/0/content",
            json!([{"type": "text", "text": "CUT"}, {"type": "image", "source": png}, {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "x"}}]),
            vec![MediaKind::Image, MediaKind::File],
        ),
        (
            json!([
                {"type": "message", "role": "user", "content": "Look at the page."},
                {"type": "function_call", "call_id": "c1", "name": "screenshot", "arguments": "{}"},
                {"type": "function_call_output", "call_id": "c1", "output": [
                    {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo="},
                    {"type": "input_text", "text": "a long log"}
                ]}
            ]),
            2,
            "c1",
            "/2/output",
            json!([{"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo="}, {"type": "input_text", "text": "CUT"}]),
            vec![MediaKind::Image],
        ),
        (
            // AI SDK 5 (`media`), 6 (`image-data`) and 7 (`file` with an image type).
            json!([
                {"role": "user", "content": "Look at the pages."},
                {"role": "assistant", "content": [
                    {"type": "tool-call", "toolCallId": "a", "toolName": "screenshot", "input": {}}
                ]},
                {"role": "tool", "content": [
                    {"type": "tool-result", "toolCallId": "a", "toolName": "screenshot", "output": {"type": "content", "value": [
                        {"type": "text", "text": "a long log"},
                        {"type": "media", "data": "iVBORw0KGgo=", "mediaType": "image/png"},
                        {"type": "image-data", "data": "iVBORw0KGgo=", "mediaType": "image/png"},
                        {"type": "file", "data": {"type": "data", "data": "iVBORw0KGgo="}, "mediaType": "image/png"},
                        {"type": "file-data", "data": "JVBERi0=", "mediaType": "application/pdf"}
                    ]}}
                ]}
            ]),
            2,
            "a",
            "/2/content/0/output/value",
            json!([
                {"type": "text", "text": "CUT"},
                {"type": "media", "data": "iVBORw0KGgo=", "mediaType": "image/png"},
                {"type": "image-data", "data": "iVBORw0KGgo=", "mediaType": "image/png"},
                {"type": "file", "data": {"type": "data", "data": "iVBORw0KGgo="}, "mediaType": "image/png"},
                {"type": "file-data", "data": "JVBERi0=", "mediaType": "application/pdf"}
            ]),
            vec![
                MediaKind::Image,
                MediaKind::Image,
                MediaKind::Image,
                MediaKind::File,
            ],
        ),
    ];
    for (input, index, call_id, at, want, kinds) in cases {
        let conv = Conversation::parse(&input, None).unwrap();
        let message = &conv.messages()[index];
        let Part::ToolResult { text, media, .. } = &message.parts[0] else {
            panic!("{:?}: not a result: {message:?}", conv.format());
        };
        assert_eq!(media, &kinds, "{:?}", conv.format());
        assert!(text.contains("a long log"), "{:?}: {text:?}", conv.format());
        // Every image is counted, beside the text.
        assert!(
            count_message(message, &Bytes) >= text.len() + kinds.len() * IMAGE_TOKENS.min(1_000),
            "{:?}",
            conv.format()
        );
        let mut order = all_kept(&conv);
        order[index] = Out::Edited {
            index,
            results: vec![(call_id.into(), "CUT".into())],
        };
        let out = conv.render(&order);
        assert_eq!(out.pointer(at).unwrap(), &want, "{:?}", conv.format());
        let reparsed = Conversation::parse(&out, Some(conv.format())).unwrap();
        let Part::ToolResult { text, media, .. } = &reparsed.messages()[index].parts[0] else {
            panic!("not a result");
        };
        assert_eq!((text.as_str(), media), ("CUT", &kinds), "{:?}", conv.format());
    }
}

#[test]
fn a_request_objects_tools_are_counted_with_its_system_prompt() {
    use ctxfold::count::{count_conversation, Memo};
    use ctxfold::messages::ANTHROPIC_TOOL_PROMPT;
    use ctxfold::tokenizer::{tokenizer, Encoding};
    let enc = tokenizer(Encoding::O200kBase).unwrap();
    let tool = json!({"name": "read_file", "description": "Reads a file of the repository.", "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}});
    let tools_tokens = enc.count(&json!([tool]).to_string());
    let messages = json!([{"role": "user", "content": "Read src/main.rs"}]);
    let total = |v: Value| {
        count_conversation(&Conversation::parse(&v, None).unwrap(), &mut Memo::default(), enc).total
    };
    // Anthropic: beside the system prompt, with the tool-use prompt Anthropic adds.
    let plain = total(json!({"system": "You help.", "messages": messages}));
    let with = total(json!({"system": "You help.", "messages": messages, "tools": [tool]}));
    assert_eq!(with - plain, tools_tokens + ANTHROPIC_TOOL_PROMPT);
    // OpenAI: a system message of their own, where the request has no other.
    let openai_tool =
        json!({"type": "function", "function": {"name": "read_file", "parameters": {"type": "object"}}});
    let plain = total(json!({"messages": messages}));
    let with = total(json!({"messages": messages, "tools": [openai_tool]}));
    assert!(
        with - plain >= enc.count(&json!([openai_tool]).to_string()),
        "{plain} -> {with}"
    );
    // No tools, or an empty list: nothing.
    assert_eq!(total(json!({"messages": messages, "tools": []})), plain);
}

#[test]
fn anthropic_search_results_and_container_uploads_are_read() {
    let input = json!({"system": "s", "messages": [
        {"role": "user", "content": [
            {"type": "search_result", "source": "https://docs.example.com/a", "title": "A", "content": [{"type": "text", "text": "Use retries."}]},
            {"type": "container_upload", "file_id": "file_011CNha8iCJcU1wXNR6q4V8w"},
            {"type": "text", "text": "What do the docs say?"}
        ]}
    ]});
    let conv = Conversation::parse(&input, None).unwrap();
    assert_eq!(conv.format(), MessageFormat::Anthropic);
    assert!(matches!(conv.messages()[0].parts[0], Part::Opaque { bytes } if bytes > 50));
    assert_eq!(conv.render(&all_kept(&conv)), input, "lossless");
}

#[test]
fn an_ai_sdk_error_result_cut_stays_an_error() {
    let input = json!([
        {"role": "user", "content": "Build it."},
        {"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "b", "toolName": "build", "input": {}}]},
        {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "b", "toolName": "build", "output": {"type": "error-json", "value": {"log": "long"}}}]}
    ]);
    let conv = Conversation::parse(&input, None).unwrap();
    let mut order = all_kept(&conv);
    order[2] = Out::Edited {
        index: 2,
        results: vec![("b".into(), "CUT".into())],
    };
    let out = conv.render(&order);
    assert_eq!(
        out.pointer("/2/content/0/output").unwrap(),
        &json!({"type": "error-text", "value": "CUT"})
    );
}

#[test]
fn new_messages_come_out_in_the_callers_format() {
    let summary = NewMessage {
        role: MessageRole::Assistant,
        text: "## Conversation Summary".into(),
    };
    for (input, want) in [
        (
            openai(),
            json!({"role": "assistant", "content": "## Conversation Summary"}),
        ),
        (
            responses(),
            json!({"type": "message", "role": "assistant", "content": "## Conversation Summary"}),
        ),
        (
            anthropic(),
            json!({"role": "assistant", "content": "## Conversation Summary"}),
        ),
        (
            ai_sdk(),
            json!({"role": "assistant", "content": "## Conversation Summary"}),
        ),
    ] {
        let conv = Conversation::parse(&input, None).unwrap();
        let out = conv.render(&[Out::Keep(0), Out::New(summary.clone())]);
        let items = out.get("messages").unwrap_or(&out);
        assert_eq!(items[1], want);
        // And it parses back as a message of that format.
        Conversation::parse(&out, Some(conv.format())).unwrap();
    }
}

fn error_of(input: Value, format: Option<MessageFormat>) -> Error {
    Conversation::parse(&input, format).unwrap_err()
}

fn assert_invalid(err: Error, path: &str, reason_part: &str) {
    match &err {
        Error::InvalidMessage { path: p, reason } => {
            assert_eq!(p, path, "{err}");
            assert!(reason.contains(reason_part), "{err}");
            assert_eq!(err.code(), "INVALID_MESSAGE");
        }
        other => panic!("expected InvalidMessage at {path}, got {other:?}"),
    }
}

#[test]
fn malformed_openai() {
    let mut v = openai();
    v[3]["tool_call_id"] = json!("call_zzz");
    assert_invalid(error_of(v, None), "messages[3]", "answers no earlier tool call");
    let mut v = openai();
    v[3].as_object_mut().unwrap().remove("tool_call_id");
    assert_invalid(error_of(v, None), "messages[3].tool_call_id", "missing");
    let mut v = openai();
    v[1]["role"] = json!("narrator");
    assert_invalid(error_of(v, None), "messages[1].role", "unknown role \"narrator\"");
    let mut v = openai();
    v[5]["content"] = json!(42);
    assert_invalid(error_of(v, None), "messages[5].content", "got a number");
    let mut v = openai();
    v[2]["tool_calls"][1]["id"] = json!("call_a");
    assert_invalid(error_of(v, None), "messages[2]", "used twice");
    let mut v = openai();
    v[1]["content"][0]["text"] = Value::Null;
    assert_invalid(error_of(v, None), "messages[1].content[0].text", "got null");
}

#[test]
fn malformed_responses() {
    let mut v = responses();
    v[5]["call_id"] = json!("nope");
    assert_invalid(error_of(v, None), "messages[5]", "answers no earlier tool call");
    let mut v = responses();
    v[3].as_object_mut().unwrap().remove("call_id");
    assert_invalid(error_of(v, None), "messages[3].call_id", "missing");
    let mut v = responses();
    v[1]["role"] = json!("tool");
    assert_invalid(error_of(v, None), "messages[1].role", "unknown role");
    let mut v = responses();
    v[7]["content"][0]["type"] = json!("output_blob");
    assert_invalid(
        error_of(v, None),
        "messages[7].content[0].type",
        "unknown content part type",
    );
}

#[test]
fn malformed_anthropic() {
    let mut v = anthropic();
    v["messages"][2]["content"][0]["tool_use_id"] = json!("toolu_9");
    assert_invalid(error_of(v, None), "messages[2]", "answers no earlier tool call");
    let mut v = anthropic();
    v["messages"][1]["content"][2]
        .as_object_mut()
        .unwrap()
        .remove("id");
    assert_invalid(error_of(v, None), "messages[1].content[2].id", "missing");
    let mut v = anthropic();
    v["messages"][0]["role"] = json!("system");
    assert_invalid(error_of(v, None), "messages[0].role", "no system role");
    let mut v = anthropic();
    v["messages"][3]["content"] = json!({"text": "x"});
    assert_invalid(error_of(v, None), "messages[3].content", "got an object");
    let mut v = anthropic();
    v["system"] = json!(7);
    assert_invalid(error_of(v, None), "system", "got a number");
}

#[test]
fn malformed_ai_sdk() {
    let mut v = ai_sdk();
    v[3]["content"][0]["toolCallId"] = json!("c9");
    assert_invalid(error_of(v, None), "messages[3]", "answers no earlier tool call");
    let mut v = ai_sdk();
    v[2]["content"][1].as_object_mut().unwrap().remove("toolCallId");
    assert_invalid(error_of(v, None), "messages[2].content[1].toolCallId", "missing");
    let mut v = ai_sdk();
    v[0]["role"] = json!("admin");
    assert_invalid(error_of(v, None), "messages[0].role", "unknown role");
    let mut v = ai_sdk();
    v[3]["content"] = json!("18C");
    assert_invalid(
        error_of(v, Some(MessageFormat::AiSdk)),
        "messages[3].content",
        "tool-result parts",
    );
    let mut v = ai_sdk();
    v[1]["content"][0]["type"] = json!("tool-call");
    assert_invalid(
        error_of(v, Some(MessageFormat::AiSdk)),
        "messages[1].content[0].type",
        "cannot hold",
    );
}

#[test]
fn bad_top_level_and_unknown_format() {
    let err = Conversation::parse(&json!("hello"), None).unwrap_err();
    assert_eq!(err.code(), "INVALID_ARGUMENT");
    assert!(err.to_string().contains("got a string"), "{err}");
    let err = Conversation::parse(&json!({"messages": 3}), None).unwrap_err();
    assert_eq!(err.code(), "INVALID_MESSAGE");
    let err = MessageFormat::from_name("gemini").unwrap_err();
    assert_eq!(err.code(), "UNKNOWN_FORMAT");
    assert!(err.to_string().contains("\"openai-responses\""), "{err}");
}

/// What a conversation built by appending (and truncating) knows equals what parsing the
/// whole array gives: messages, digests, counts.
#[test]
fn appending_equals_parsing_the_whole() {
    let all = openai();
    let items = all.as_array().unwrap().clone();
    let enc = ctxfold::tokenizer::tokenizer(ctxfold::Encoding::O200kBase).unwrap();
    for split in 0..=items.len() {
        let mut conv = Conversation::parse(&Value::Array(items[..split].to_vec()), None).unwrap();
        let mut memo = Memo::default();
        let _ = memo.counts(&conv, enc); // memoized, then extended
        assert!(conv.append(items[split..].to_vec()).unwrap(), "split {split}");
        let whole = Conversation::parse(&all, None).unwrap();
        assert_eq!(conv.messages(), whole.messages(), "split {split}");
        assert_eq!(conv.prefix_digests(), whole.prefix_digests(), "split {split}");
        assert_eq!(
            memo.counts(&conv, enc).0,
            Memo::default().counts(&whole, enc).0,
            "split {split}"
        );
        assert_eq!(
            conv.render(&(0..items.len()).map(Out::Keep).collect::<Vec<_>>()),
            all
        );
    }
    // Truncate and append something else: equal to parsing that array.
    let mut conv = Conversation::parse(&all, None).unwrap();
    let mut memo = Memo::default();
    let _ = memo.counts(&conv, enc);
    conv.truncate(5);
    memo.truncate(5);
    let other = json!({"role": "assistant", "content": "Another answer."});
    assert!(conv.append(vec![other.clone()]).unwrap());
    let mut expected = items[..5].to_vec();
    expected.push(other);
    let whole = Conversation::parse(&Value::Array(expected), None).unwrap();
    assert_eq!(conv.messages(), whole.messages());
    assert_eq!(conv.prefix_digests(), whole.prefix_digests());
    assert_eq!(memo.counts(&conv, enc).0, Memo::default().counts(&whole, enc).0);
}

#[test]
fn a_failed_append_changes_nothing() {
    let mut conv = Conversation::parse(&openai(), None).unwrap();
    let before = conv.messages().to_vec();
    let err = conv
        .append(vec![
            json!({"role": "tool", "tool_call_id": "nope", "content": "x"}),
        ])
        .unwrap_err();
    assert_invalid(err, "messages[7]", "answers no earlier tool call");
    assert_eq!(conv.messages(), &before[..]);
    let err = conv
        .append(vec![json!({"role": "narrator", "content": "x"})])
        .unwrap_err();
    assert_invalid(err, "messages[7].role", "unknown role");
    assert_eq!(conv.items().len(), before.len());
}

#[test]
fn an_append_that_tells_another_format_asks_for_a_fresh_read() {
    // Plain messages read as OpenAI by default; an Anthropic block then decides otherwise.
    let mut conv = Conversation::parse(&json!([{"role": "user", "content": "hi"}]), None).unwrap();
    let anthropic_block =
        json!({"role": "assistant", "content": [{"type": "thinking", "thinking": "x", "signature": "s"}]});
    assert!(!conv.append(vec![anthropic_block]).unwrap());
    assert_eq!(conv.messages().len(), 1);
    // With the format given, there is nothing to decide.
    let mut given = Conversation::parse(
        &json!([{"role": "user", "content": "hi"}]),
        Some(MessageFormat::OpenAiChat),
    )
    .unwrap();
    assert!(given
        .append(vec![json!({"role": "assistant", "content": "hello"})])
        .unwrap());
}

/// The provider-level prompt a language-model middleware sees (`LanguageModelV2Prompt` to
/// `V4Prompt`): content always an array, provider options anywhere, and the parts AI SDK 6
/// and 7 added (approvals, denied executions, reasoning files, custom parts).
fn ai_sdk_prompt() -> Value {
    json!([
        {"role": "system", "content": "You help.", "providerOptions": {"anthropic": {"cacheControl": {"type": "ephemeral"}}}},
        {"role": "user", "content": [
            {"type": "text", "text": "Delete /tmp/a and read /etc/hosts", "providerOptions": {"openai": {"imageDetail": "low"}}},
            {"type": "file", "data": {"$bytes": 2048}, "mediaType": "image/png", "filename": "a.png"}
        ]},
        {"role": "assistant", "content": [
            {"type": "reasoning", "text": "Two tools.", "providerOptions": {"anthropic": {"signature": "sig"}}},
            {"type": "tool-call", "toolCallId": "c1", "toolName": "rm", "input": {"path": "/tmp/a"}},
            {"type": "tool-approval-request", "approvalId": "ap1", "toolCallId": "c1"},
            {"type": "tool-call", "toolCallId": "c2", "toolName": "read", "input": {"path": "/etc/hosts"}}
        ]},
        {"role": "tool", "content": [
            {"type": "tool-approval-response", "approvalId": "ap1", "approved": false, "reason": "no"},
            {"type": "tool-result", "toolCallId": "c1", "toolName": "rm", "output": {"type": "execution-denied", "reason": "The user said no."}},
            {"type": "tool-result", "toolCallId": "c2", "toolName": "read", "output": {"type": "content", "value": [
                {"type": "text", "text": "127.0.0.1 localhost"},
                {"type": "image-data", "data": "AAAA", "mediaType": "image/png"}
            ]}, "providerOptions": {"openai": {"x": 1}}}
        ]},
        {"role": "assistant", "content": [
            {"type": "reasoning-file", "data": {"type": "data", "data": "QUJDRA=="}, "mediaType": "image/png"},
            {"type": "custom", "kind": "openai.compaction", "providerOptions": {"openai": {"encrypted": "gAAAAB"}}},
            {"type": "text", "text": "I did not delete it; hosts has localhost."}
        ]},
        {"role": "user", "content": [{"type": "text", "text": "Thanks"}]}
    ])
}

#[test]
fn provider_level_prompts_read_as_ai_sdk() {
    let input = ai_sdk_prompt();
    let conv = Conversation::parse(&input, None).unwrap();
    assert_eq!(conv.format(), MessageFormat::AiSdk);
    assert_eq!(conv.render(&all_kept(&conv)), input, "lossless");
    let m = conv.messages();
    // Approvals are kept but read as nothing; everything else is a part.
    assert_eq!(m[2].call_ids().collect::<Vec<_>>(), ["c1", "c2"]);
    assert_eq!(m[2].parts.len(), 3);
    assert_eq!(
        m[3].parts,
        [
            Part::ToolResult {
                call_id: "c1".into(),
                text: "The user said no.".into(),
                is_error: false,
                media: vec![]
            },
            Part::ToolResult {
                call_id: "c2".into(),
                text: "127.0.0.1 localhost".into(),
                is_error: false,
                media: vec![ctxfold::messages::MediaKind::Image]
            }
        ]
    );
    assert_eq!(
        m[4].parts[..2],
        [
            Part::Opaque { bytes: 8 },
            // A provider's compaction, kept whole (tests/provider_compaction.rs).
            Part::Compaction {
                text: String::new(),
                bytes: json!({"openai": {"encrypted": "gAAAAB"}}).to_string().len()
            }
        ]
    );
    assert!(m[5].starts_turn());
    // A denial without a reason reads as providers send it.
    let mut v = input.clone();
    v[3]["content"][1]["output"] = json!({"type": "execution-denied"});
    let conv = Conversation::parse(&v, Some(MessageFormat::AiSdk)).unwrap();
    assert!(
        matches!(&conv.messages()[3].parts[0], Part::ToolResult { text, .. } if text == "Tool execution denied.")
    );
    // Each new kind of part tells the format on its own.
    for part in [
        json!({"type": "tool-approval-response", "approvalId": "a", "approved": true}),
        json!({"type": "custom", "kind": "openai.compaction"}),
    ] {
        let role = if part["type"] == "custom" {
            "assistant"
        } else {
            "tool"
        };
        let v = json!([{"role": role, "content": [part]}]);
        assert_eq!(
            Conversation::parse(&v, None).unwrap().format(),
            MessageFormat::AiSdk,
            "{v}"
        );
    }
}

#[test]
fn malformed_provider_level_prompts() {
    let mut v = ai_sdk_prompt();
    v[3]["content"][0].as_object_mut().unwrap().remove("approvalId");
    assert_invalid(error_of(v, None), "messages[3].content[0].approvalId", "missing");
    let mut v = ai_sdk_prompt();
    v[2]["content"][2]["toolCallId"] = json!("");
    assert_invalid(error_of(v, None), "messages[2].content[2].toolCallId", "empty id");
    let mut v = ai_sdk_prompt();
    v[1]["content"][0] = json!({"type": "custom", "kind": "x.y"});
    assert_invalid(
        error_of(v, Some(MessageFormat::AiSdk)),
        "messages[1].content[0].type",
        "cannot hold",
    );
    let mut v = ai_sdk_prompt();
    v[3]["content"][1]["output"] = json!({"type": "execution-denied", "reason": 3});
    assert_invalid(
        error_of(v, None),
        "messages[3].content[1].output.reason",
        "expected a string",
    );
}

/// What ctxfold writes into a provider-level prompt is a valid one: new user and assistant
/// messages have an array of parts, and a message cut to fit keeps its part (and its
/// provider options). Model messages written with strings still get strings.
#[test]
fn new_and_cut_messages_in_a_provider_level_prompt_are_parts() {
    let conv = Conversation::parse(&ai_sdk_prompt(), Some(MessageFormat::AiSdk)).unwrap();
    let summary = |role| {
        Out::New(NewMessage {
            role,
            text: "## Conversation Summary".into(),
        })
    };
    let out = conv.render(&[
        Out::Keep(0),
        summary(MessageRole::Assistant),
        summary(MessageRole::User),
        summary(MessageRole::System),
        Out::Truncated {
            index: 1,
            text: "Delete [… truncated …]".into(),
        },
    ]);
    assert_eq!(
        out[1],
        json!({"role": "assistant", "content": [{"type": "text", "text": "## Conversation Summary"}]})
    );
    assert_eq!(
        out[2],
        json!({"role": "user", "content": [{"type": "text", "text": "## Conversation Summary"}]})
    );
    assert_eq!(
        out[3],
        json!({"role": "system", "content": "## Conversation Summary"})
    );
    assert_eq!(
        out[4],
        // Its text cut, its file kept.
        json!({"role": "user", "content": [
            {"type": "text", "text": "Delete [… truncated …]", "providerOptions": {"openai": {"imageDetail": "low"}}},
            {"type": "file", "data": {"$bytes": 2048}, "filename": "a.png", "mediaType": "image/png"}
        ]})
    );
    Conversation::parse(&out, Some(MessageFormat::AiSdk)).unwrap();
    // A string-content conversation keeps strings, cut or new.
    let conv = Conversation::parse(&ai_sdk(), Some(MessageFormat::AiSdk)).unwrap();
    let out = conv.render(&[
        summary(MessageRole::Assistant),
        Out::Truncated {
            index: 4,
            text: "18C".into(),
        },
    ]);
    assert_eq!(out[0]["content"], "## Conversation Summary");
    assert_eq!(out[1]["content"], "18C");
}

/// A corpus conversation as AI SDK messages: model messages with string content where they
/// allow it (`parts: false`), or the provider-level prompt (`parts: true`), which has arrays
/// everywhere and provider options on some parts.
fn corpus_as_ai_sdk(messages: &Value, parts: bool) -> Value {
    let mut names = std::collections::HashMap::new();
    let text = |t: &str| {
        if parts {
            json!([{"type": "text", "text": t, "providerOptions": {"test": {"cache": true}}}])
        } else {
            json!(t)
        }
    };
    let out: Vec<Value> = messages
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let content = m["content"].as_str().unwrap_or("");
            match m["role"].as_str().unwrap() {
                "system" => json!({"role": "system", "content": content}),
                "user" => json!({"role": "user", "content": text(content)}),
                "assistant" => match m.get("tool_calls").and_then(Value::as_array) {
                    Some(calls) => {
                        let mut p: Vec<Value> = Vec::new();
                        if !content.is_empty() {
                            p.push(json!({"type": "text", "text": content}));
                        }
                        for c in calls {
                            let id = c["id"].as_str().unwrap();
                            let name = c["function"]["name"].as_str().unwrap();
                            names.insert(id.to_owned(), name.to_owned());
                            let args = c["function"]["arguments"].as_str().unwrap();
                            let input = serde_json::from_str(args).unwrap_or_else(|_| json!(args));
                            p.push(json!({"type": "tool-call", "toolCallId": id, "toolName": name, "input": input}));
                        }
                        json!({"role": "assistant", "content": p})
                    }
                    None => json!({"role": "assistant", "content": text(content)}),
                },
                _ => {
                    let id = m["tool_call_id"].as_str().unwrap();
                    json!({"role": "tool", "content": [{
                        "type": "tool-result", "toolCallId": id, "toolName": names[id],
                        "output": {"type": "text", "value": content}
                    }]})
                }
            }
        })
        .collect();
    Value::Array(out)
}

/// The provider-level prompt counts exactly as the model messages it was made from, message
/// for message, on every corpus conversation (the middleware's counts are the caller's).
/// (The format is given: text parts alone read as OpenAI Chat too, so the middleware names
/// it.)
#[test]
fn provider_level_prompts_count_as_their_model_messages() {
    let enc = ctxfold::tokenizer::tokenizer(ctxfold::tokenizer::Encoding::O200kBase).unwrap();
    let mut checked = 0;
    for c in common::conversations() {
        let model = Conversation::parse(
            &corpus_as_ai_sdk(&c.json["messages"], false),
            Some(MessageFormat::AiSdk),
        )
        .unwrap();
        let prompt = Conversation::parse(
            &corpus_as_ai_sdk(&c.json["messages"], true),
            Some(MessageFormat::AiSdk),
        )
        .unwrap();
        assert_eq!(model.messages(), prompt.messages(), "{}", c.id);
        let a = ctxfold::count::count_conversation(&model, &mut Memo::default(), enc);
        let b = ctxfold::count::count_conversation(&prompt, &mut Memo::default(), enc);
        assert_eq!(a.total, b.total, "{}", c.id);
        checked += prompt.messages().len();
    }
    assert!(checked > 1000, "{checked} messages");
}

/// OpenAI charges an image at `detail: "low"` a flat 85 tokens (GPT-4o), whatever its size;
/// `high`, `auto` or no detail stay the 1024x1024 high-detail figure.
#[test]
fn low_detail_images_count_as_one_tile() {
    use ctxfold::count::{count_message, IMAGE_TOKENS, LOW_DETAIL_IMAGE_TOKENS};
    let url = "data:image/png;base64,iVBORw0KGgo=";
    let chat = |detail: Value| {
        let mut image_url = json!({ "url": url });
        if !detail.is_null() {
            image_url["detail"] = detail;
        }
        json!([{"role": "user", "content": [{"type": "image_url", "image_url": image_url}]}])
    };
    let responses = |detail: Value| {
        let mut part = json!({"type": "input_image", "image_url": url});
        if !detail.is_null() {
            part["detail"] = detail;
        }
        json!([{"type": "message", "role": "user", "content": [part]}])
    };
    for make in [&chat as &dyn Fn(Value) -> Value, &responses] {
        let tokens = |detail: Value| {
            let conv = Conversation::parse(&make(detail), None).unwrap();
            count_message(&conv.messages()[0], &Bytes)
        };
        let base = tokens(json!("low")) - LOW_DETAIL_IMAGE_TOKENS;
        for detail in [Value::Null, json!("high"), json!("auto")] {
            assert_eq!(tokens(detail.clone()), base + IMAGE_TOKENS, "{detail}");
        }
    }
}

/// Servers that number each step's calls from `call_0` use an id again once its call is
/// answered: that parses, and each result is its own call's (the tool a policy or a summary
/// names). An id used again while its call is open is the error.
#[test]
fn a_call_id_is_used_again_once_its_call_is_answered() {
    let call = |name: &str| json!({"role": "assistant", "content": null, "tool_calls": [{"id": "call_0", "type": "function", "function": {"name": name, "arguments": "{}"}}]});
    let result = |text: &str| json!({"role": "tool", "tool_call_id": "call_0", "content": text});
    let v = json!([
        {"role": "user", "content": "look"},
        call("read_file"), result("file"),
        {"role": "assistant", "content": "read it"},
        {"role": "user", "content": "now run it"},
        call("bash"), result("ran"),
        call("bash")
    ]);
    let conv = Conversation::parse(&v, None).unwrap();
    let names = ctxfold::compact::prune::tool_names(conv.messages());
    assert_eq!(
        [names.of(2, "call_0"), names.of(6, "call_0")],
        ["read_file", "bash"]
    );
    assert_eq!(conv.unanswered_calls(), [(7, "call_0".to_owned())]);
    // Used again while open: an error.
    let open = json!([{"role": "user", "content": "look"}, call("a"), call("b"), result("x")]);
    assert_invalid(error_of(open, None), "messages[2]", "used twice");
}

/// An append checks the tool pairing of what it adds against what came before (kept from
/// the checks before it, so a long history is not read again), and a refused append, or a
/// truncation, leaves the pairing as the messages have it.
#[test]
fn appends_check_tool_pairs_across_what_came_before() {
    let call = |id: &str| json!({"role": "assistant", "content": null, "tool_calls": [{"id": id, "type": "function", "function": {"name": "f", "arguments": "{}"}}]});
    let result = |id: &str| json!({"role": "tool", "tool_call_id": id, "content": "ok"});
    let mut conv =
        Conversation::from_json(json!([{"role": "user", "content": "go"}, call("a")]), None).unwrap();
    // The id of an open call again: refused, and nothing changes.
    let twice = conv.append(vec![call("a")]).unwrap_err();
    assert!(twice.to_string().contains("used twice"), "{twice}");
    assert_eq!(conv.messages().len(), 2);
    assert!(conv.append(vec![result("a")]).unwrap());
    // Answered already, in an earlier append.
    let again = conv.append(vec![result("a")]).unwrap_err();
    assert!(again.to_string().contains("already answered"), "{again}");
    let none = conv.append(vec![result("b")]).unwrap_err();
    assert!(
        none.to_string().contains("answers no earlier tool call"),
        "{none}"
    );
    // An answered id may be used again, and answered again.
    assert!(conv.append(vec![call("a"), result("a")]).unwrap());
    // Cut back to before the result: the call is open again, so its result is taken.
    conv.truncate(4);
    assert!(conv.append(vec![result("a")]).unwrap());
    assert_eq!(conv.messages().len(), 5);
}
