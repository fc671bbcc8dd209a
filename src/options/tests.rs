//! Reading options: every kind of value, the errors' paths and words.
use super::*;
use serde_json::json;

fn compact(v: serde_json::Value) -> Result<CompactOptions, Error> {
    from_value("options", &v)
}

#[test]
fn reads_every_kind_of_value() {
    let o = compact(json!({
        "model": "gpt-4o",
        "thresholdRatio": 0.5,
        "tokenFloor": 100,
        "toolPolicies": {"read_file": "stub"},
        "state": null,
        "summarizer": "extractive",
    }))
    .unwrap();
    assert_eq!(o.model.as_deref(), Some("gpt-4o"));
    assert_eq!(o.threshold_ratio, Some(Ratio(0.5)));
    assert_eq!(o.token_floor, Some(Int(100)));
    assert_eq!(o.tool_policies.unwrap()["read_file"], ToolPolicy::Stub);
    assert!(o.state.is_none());
    assert_eq!(o.summarizer, Some(Extractive::Extractive));
}

#[test]
fn errors_name_the_key_and_the_kind() {
    let err = |v| compact(v).unwrap_err();
    let e = err(json!({"thresholdRatio": 1.5}));
    assert_eq!(e.code(), "OUT_OF_RANGE");
    assert_eq!(
        e.to_string(),
        "options.thresholdRatio out of range: expected a number in (0, 1], got 1.5"
    );
    let e = err(json!({"treshold": 0.5}));
    assert_eq!(e.code(), "INVALID_ARGUMENT");
    assert!(
        e.to_string().contains("options.treshold") && e.to_string().contains("thresholdRatio"),
        "{e}"
    );
    let e = err(json!({"bufferTurns": "four"}));
    assert_eq!(
        e.to_string(),
        "invalid argument options.bufferTurns: expected an integer, got string \"four\""
    );
    let e = err(json!({"bufferTurns": 2.5}));
    assert_eq!(e.code(), "OUT_OF_RANGE");
    assert!(e.to_string().contains("an integer"), "{e}");
    let e = err(json!({"strategy": "recursive"}));
    assert!(
        e.to_string().contains("options.strategy") && e.to_string().contains("\"rolling\""),
        "{e}"
    );
    let e = err(json!({"toolPolicies": {"bash": "drop"}}));
    assert!(e.to_string().contains("options.toolPolicies.bash"), "{e}");
    for bad in [5, 63, 40_000] {
        assert_eq!(err(json!({ "summaryMaxTokens": bad })).code(), "OUT_OF_RANGE");
    }
    let e = err(json!({"summaryMaxTokens": 5}));
    assert!(e.to_string().contains("from 64 to 32768"), "{e}");
    let e = err(json!([1]));
    assert!(e.to_string().contains("an options object"), "{e}");
    let e = err(json!({"summarizer": "llm"}));
    assert!(e.to_string().contains("options.summarizer"), "{e}");
    for key in ["summarizer", "thresholdRatio", "model", "toolPolicies", "manual"] {
        let e = err(json!({ key: null }));
        assert_eq!(e.code(), "INVALID_ARGUMENT", "{key}: {e}");
        assert!(e.to_string().ends_with("got null"), "{key}: {e}");
    }
    let e = err(json!({"summarizer": null}));
    assert_eq!(
        e.to_string(),
        "invalid argument options.summarizer: expected a function or \"extractive\", got null"
    );
    for key in ["state", "summaryPrompt", "instructions"] {
        assert!(compact(json!({ key: null })).is_ok(), "{key}: null is absent");
    }
}

#[test]
fn paths_are_found_in_the_text() {
    let json = r#"{"a":1,"toolPolicies":{"bash":"drop"},"state":{"chunks":[{"x":1},{"text":5}]}}"#;
    let at = |needle: &str| path_at(json, json.find(needle).unwrap() + needle.len());
    assert_eq!(at(r#""a":1"#), "a");
    assert_eq!(at(r#""drop""#), "toolPolicies.bash");
    assert_eq!(at(r#""text":5"#), "state.chunks[1].text");
    assert_eq!(path_at(json, 0), "");
    assert_eq!(path_at(r#"{"k\"ey":[1,"#, 12), "k\"ey[1]");
}

#[test]
fn json_text_is_read_the_same() {
    let o: CompactOptions = parse("options", r#"{"tokenFloor": 7, "contextWindow": 8192}"#).unwrap();
    assert_eq!((o.token_floor, o.context_window), (Some(Int(7)), Some(Int(8192))));
    let e = parse::<CompactOptions>("options", r#"{"contextWindow": 0}"#).unwrap_err();
    assert_eq!(e.code(), "OUT_OF_RANGE");
    assert!(e.to_string().starts_with("options.contextWindow"), "{e}");
    let e = parse::<CountOptions>("options", r#"{"encoding": 5}"#).unwrap_err();
    assert!(parse::<CountOptions>("options", r#"{"format": "openai"}"#).is_err());
    assert_eq!(
        e.to_string(),
        "invalid argument options.encoding: expected a string, got integer `5`"
    );
}

#[test]
fn formats_and_encodings_are_read_once_as_enums() {
    let o: CountMessagesOptions =
        parse("options", r#"{"encoding": "cl100k_base", "format": "anthropic"}"#).unwrap();
    assert_eq!(o.encoding, Some(Encoding::Cl100kBase));
    assert_eq!(o.format, Some(MessageFormat::Anthropic));
    // An unknown name is the typed error it was when the core parsed the string.
    let e = parse::<CountOptions>("options", r#"{"encoding": "p50k_base"}"#).unwrap_err();
    assert_eq!(
        e,
        Error::UnknownEncoding {
            name: "p50k_base".into()
        }
    );
    let e = parse::<CompactOptions>("options", r#"{"model": "gpt-4o", "format": "gemini"}"#).unwrap_err();
    assert_eq!(e, MessageFormat::unknown("gemini"));
    assert_eq!(e.code(), "UNKNOWN_FORMAT");
}
