//! A Compactor's options: read in one pass, with paths, the known list and the defaults its
//! docs give.
use super::*;
use serde_json::{json, Value};

fn read(v: Value) -> Result<CompactorOptions, Error> {
    crate::options::from_value("options", &v)
}

fn argument(e: &Error) -> &str {
    match e {
        Error::InvalidArgument { argument, .. }
        | Error::OutOfRange { argument, .. }
        | Error::UnknownOption { argument, .. } => argument,
        other => panic!("not an argument error: {other:?}"),
    }
}

#[test]
fn reads_both_parts_and_skips_what_only_javascript_holds() {
    let o = read(json!({
        "model": "gpt-4o",
        "thresholdRatio": 0.5,
        "writeRetries": 2,
        "maxCachedConversations": 7,
        "storeTimeoutMs": 250,
        "guards": {"backoffTurns": 0},
        "prepareAhead": {"threshold": 0.4},
        "compactWhenCold": {"ttlSeconds": 300},
        "store": {"load": "a function in JavaScript"},
        "on": {"compactionEnd": null},
        "waitUntil": 1,
    }))
    .unwrap();
    assert_eq!(o.compact.model.as_deref(), Some("gpt-4o"));
    assert_eq!(o.compact.threshold_ratio.map(|r| r.0), Some(0.5));
    assert_eq!(o.own.guards.unwrap().backoff_turns.map(Int::get), Some(0));
    assert_eq!(o.own.compact_when_cold.unwrap().ttl_seconds.get(), 300);
    let s = read(
        json!({"writeRetries": 2, "maxCachedConversations": 7, "storeTimeoutMs": 250, "prepareAhead": true}),
    )
    .unwrap()
    .settings();
    assert_eq!(
        (s.attempts, s.max_cached_conversations, s.store_timeout_ms),
        (3, 7, 250)
    );
    assert!(s.prepare_ahead);
    for off in [json!({"prepareAhead": false}), json!({})] {
        assert!(!read(off).unwrap().settings().prepare_ahead);
    }
    assert!(
        read(json!({"prepareAhead": {}}))
            .unwrap()
            .settings()
            .prepare_ahead
    );
}

#[test]
fn errors_carry_the_path_and_the_kind() {
    let err = |v| read(v).unwrap_err();
    for (options, code, at) in [
        (
            json!({"thresholdRatio": 2}),
            "OUT_OF_RANGE",
            "options.thresholdRatio",
        ),
        (
            json!({"toolPolicies": {"bash": "drop"}}),
            "INVALID_ARGUMENT",
            "options.toolPolicies.bash",
        ),
        (
            json!({"writeRetries": 101}),
            "OUT_OF_RANGE",
            "options.writeRetries",
        ),
        (
            json!({"writeRetries": "3"}),
            "INVALID_ARGUMENT",
            "options.writeRetries",
        ),
        (
            json!({"storeTimeoutMs": null}),
            "INVALID_ARGUMENT",
            "options.storeTimeoutMs",
        ),
        (
            json!({"storeTimeoutMs": 2_147_483_648_u64}),
            "OUT_OF_RANGE",
            "options.storeTimeoutMs",
        ),
        (
            json!({"maxCachedConversations": 0}),
            "OUT_OF_RANGE",
            "options.maxCachedConversations",
        ),
        (
            json!({"guards": {"backoffTurns": -1}}),
            "OUT_OF_RANGE",
            "options.guards.backoffTurns",
        ),
        (
            json!({"guards": {"bakoffTurns": 1}}),
            "INVALID_ARGUMENT",
            "options.guards.bakoffTurns",
        ),
        (
            json!({"prepareAhead": {"threshold": 2}}),
            "OUT_OF_RANGE",
            "options.prepareAhead.threshold",
        ),
        (
            json!({"prepareAhead": "yes"}),
            "INVALID_ARGUMENT",
            "options.prepareAhead",
        ),
        (
            json!({"compactWhenCold": {}}),
            "INVALID_ARGUMENT",
            "options.compactWhenCold",
        ),
    ] {
        let e = err(options.clone());
        assert_eq!((e.code(), argument(&e)), (code, at), "{options}: {e}");
    }
    let e = err(json!({"writeRetries": true}));
    assert!(
        e.to_string()
            .contains("expected an integer from 0 to 100, got boolean"),
        "{e}"
    );
    let e = err(json!({"prepareAhead": 1}));
    assert!(
        e.to_string().contains("expected a boolean or { threshold }, got"),
        "{e}"
    );
}

#[test]
fn an_unknown_option_lists_every_option_a_compactor_knows() {
    let Error::UnknownOption { argument, known } = read(json!({"treshold": 0.5})).unwrap_err() else {
        panic!("not an unknown option");
    };
    assert_eq!(argument, "options.treshold");
    assert_eq!(known, known_options());
    let has = |k: &str| known.iter().any(|n| n == k);
    for name in field_names::<CompactOptions>()
        .iter()
        .chain(field_names::<CompactorOwnOptions>())
        .chain(&SET_ASIDE)
    {
        assert_eq!(has(name), !REFUSED_OPTIONS.contains(name), "{name}");
    }
    let mut sorted = known.clone();
    sorted.sort();
    assert_eq!(known, sorted);
}

#[test]
fn the_refused_options_are_refused() {
    for key in REFUSED_OPTIONS {
        let value = if key == "manual" {
            json!(true)
        } else {
            json!("a state key of 16+ chars")
        };
        let value = if key == "state" { json!({"v": 1}) } else { value };
        let e = read(json!({ key: value })).and_then(|o| Sessions::with_options(o, 1).map(|_| ()));
        match e {
            Err(e) if argument(&e) == format!("options.{key}") => {}
            other => panic!("{key}: {other:?}"),
        }
    }
}

/// The number a field's doc gives as its default (`Default 4.`), from the generated TypeScript.
fn documented_default(field: &str) -> f64 {
    let decl = <CompactorOwnOptions as TS>::decl(&ts_rs::Config::default());
    let at = decl
        .find(&format!("{field}?:"))
        .unwrap_or_else(|| panic!("{field} not in {decl}"));
    let doc = &decl[decl[..at].rfind("/**").unwrap()..at];
    let after = &doc[doc
        .rfind("Default ")
        .unwrap_or_else(|| panic!("{field}'s doc gives no default"))
        + 8..];
    let number: String = after.chars().take_while(char::is_ascii_digit).collect();
    number.parse().unwrap()
}

#[test]
fn the_defaults_are_the_ones_the_docs_give() {
    let s = CompactorOptions::default().settings();
    assert_eq!(f64::from(s.attempts - 1), documented_default("writeRetries"));
    assert_eq!(
        s.max_cached_conversations as f64,
        documented_default("maxCachedConversations")
    );
    assert_eq!(
        f64::from(s.store_timeout_ms),
        documented_default("storeTimeoutMs")
    );
    assert!(!s.prepare_ahead);
    let mut own: Vec<&str> = field_names::<CompactorOwnOptions>().to_vec();
    own.extend(SET_ASIDE);
    assert_eq!(s.own_keys, own);
}
