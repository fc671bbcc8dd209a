//! The registry's tests: ids as callers write them, the table's figures, registrations.
use super::table::{CL100K, CLAUDE, O200K};
use super::*;

fn check(id: &str, canonical: &str, matched_by: MatchedBy) -> ModelInfoResolved {
    let m = resolve(id);
    assert_eq!((m.id.as_str(), m.matched_by), (canonical, matched_by), "{id}");
    assert!(m.known);
    assert_eq!(m.requested, id);
    m
}

#[test]
fn exact_ids_and_aliases() {
    let m = check("gpt-4o", "gpt-4o", MatchedBy::Exact);
    assert_eq!(
        (m.provider, m.context_window, m.max_output_tokens),
        (Provider::OpenAi, 128_000, Some(16_384))
    );
    assert_eq!(m.tokenizer, O200K);
    check("chatgpt-4o-latest", "gpt-4o", MatchedBy::Exact);
    let m = check("gpt-5", "gpt-5", MatchedBy::Exact);
    assert_eq!((m.context_window, m.max_input_tokens), (400_000, Some(272_000)));
    assert_eq!(
        check("gpt-3.5-turbo", "gpt-3.5-turbo", MatchedBy::Exact).tokenizer,
        CL100K
    );
    assert_eq!(
        check("claude-opus-4-1", "claude-opus-4-1", MatchedBy::Exact).tokenizer,
        CLAUDE
    );
    assert_eq!(
        check("gemini-2.5-pro", "gemini-2.5-pro", MatchedBy::Exact).context_window,
        1_048_576
    );
    check("gpt-4o-2024-05-13", "gpt-4o-2024-05-13", MatchedBy::Exact);
}

#[test]
fn dated_snapshots_and_latest_match_by_prefix() {
    assert_eq!(
        check("gpt-4o-2024-08-06", "gpt-4o", MatchedBy::Prefix).max_output_tokens,
        Some(16_384)
    );
    check("gpt-4o-mini-2024-07-18", "gpt-4o-mini", MatchedBy::Prefix);
    check(
        "claude-3-5-sonnet-20241022",
        "claude-3-5-sonnet",
        MatchedBy::Prefix,
    );
    check("claude-3-5-sonnet-latest", "claude-3-5-sonnet", MatchedBy::Prefix);
    check(
        "claude-sonnet-4-5-20250929",
        "claude-sonnet-4-5",
        MatchedBy::Prefix,
    );
    check("claude-sonnet-4-20250514", "claude-sonnet-4", MatchedBy::Prefix);
    check("claude-opus-4-1-20250805", "claude-opus-4-1", MatchedBy::Prefix);
    check("o1-2024-12-17", "o1", MatchedBy::Prefix);
    check("o1-mini-2024-09-12", "o1-mini", MatchedBy::Prefix);
    check("gpt-4-0613", "gpt-4", MatchedBy::Prefix);
    check("gpt-4-turbo-2024-04-09", "gpt-4-turbo", MatchedBy::Prefix);
    check("gpt-4.1-2025-04-14", "gpt-4.1", MatchedBy::Prefix);
    check(
        "gemini-2.5-flash-lite-preview-09-2025",
        "gemini-2.5-flash-lite",
        MatchedBy::Prefix,
    );
    check("mistral-large-latest", "mistral-large", MatchedBy::Prefix);
    check("mistral-large-2411", "mistral-large-2411", MatchedBy::Exact);
    check("codestral-2405", "codestral-2405", MatchedBy::Exact);
    check("codestral-2508", "codestral", MatchedBy::Prefix);
    check("llama-3.3-70b-versatile", "llama-3.3", MatchedBy::Prefix);
    check("gemma-3-27b-it", "gemma-3", MatchedBy::Prefix);
}

#[test]
fn a_prefix_must_end_at_a_part_boundary() {
    // "gpt-4" is a string prefix of "gpt-4o-…", but not an id prefix of it.
    check("gpt-4o-audio-preview", "gpt-4o", MatchedBy::Prefix);
    assert_eq!(resolve("gpt-4x").matched_by, MatchedBy::Default);
    assert_eq!(resolve("o10").matched_by, MatchedBy::Default);
}

#[test]
fn provider_prefixes_and_host_spellings() {
    check("openai/gpt-4o", "gpt-4o", MatchedBy::Exact);
    // Older snapshots with windows of their own, not their newer namesakes'.
    for (id, window) in [
        ("gpt-3.5-turbo-0613", 4_096),
        ("gpt-3.5-turbo-instruct", 4_096),
        ("gpt-3.5-turbo-16k-0613", 16_385),
        ("gpt-4-vision-preview", 128_000),
        ("mistral.mistral-large-2402-v1:0", 32_000),
    ] {
        assert_eq!(resolve(id).context_window, window, "{id}");
    }
    // `provider:model`, as provider registries write it; a `:tag` after the model stays a tag.
    check("openai:gpt-4o", "gpt-4o", MatchedBy::Exact);
    check(
        "anthropic:claude-sonnet-4-5",
        "claude-sonnet-4-5",
        MatchedBy::Exact,
    );
    check("google-vertex:gemini-2.5-pro", "gemini-2.5-pro", MatchedBy::Exact);
    check("openai:gpt-4o:latest", "gpt-4o", MatchedBy::Exact);
    check("OpenAI/GPT-4o", "gpt-4o", MatchedBy::Exact);
    check(
        "anthropic/claude-sonnet-4-5",
        "claude-sonnet-4-5",
        MatchedBy::Exact,
    );
    check(
        "anthropic/claude-sonnet-4.5",
        "claude-sonnet-4-5",
        MatchedBy::Exact,
    );
    check(
        "openrouter/anthropic/claude-3.5-sonnet",
        "claude-3-5-sonnet",
        MatchedBy::Exact,
    );
    check(
        "us.anthropic.claude-sonnet-4-20250514-v1:0",
        "claude-sonnet-4",
        MatchedBy::Prefix,
    );
    check(
        "anthropic.claude-3-5-haiku-20241022-v1:0",
        "claude-3-5-haiku",
        MatchedBy::Prefix,
    );
    check(
        "claude-3-5-sonnet-v2@20241022",
        "claude-3-5-sonnet",
        MatchedBy::Prefix,
    );
    check(
        "models/gemini-2.0-flash-001",
        "gemini-2.0-flash",
        MatchedBy::Prefix,
    );
    check(
        "google/gemini-3-pro-preview",
        "gemini-3-pro-preview",
        MatchedBy::Exact,
    );
    check(
        "meta-llama/Llama-3.3-70B-Instruct",
        "llama-3.3",
        MatchedBy::Prefix,
    );
    check(
        "meta-llama/Meta-Llama-3.1-8B-Instruct-Turbo",
        "llama-3.1",
        MatchedBy::Prefix,
    );
    check("llama3.1:8b", "llama-3.1", MatchedBy::Exact);
    check("meta.llama3-1-405b-instruct-v1:0", "llama-3.1", MatchedBy::Prefix);
    check(
        "mistralai/Mistral-Large-Instruct-2411",
        "mistral-large-2411",
        MatchedBy::Exact,
    );
    check(
        "ft:gpt-4o-mini-2024-07-18:my-org::abc123",
        "gpt-4o-mini",
        MatchedBy::Prefix,
    );
    check("groq/openai/gpt-oss-120b", "gpt-oss-120b", MatchedBy::Exact);
}

#[test]
fn unknown_models_get_the_documented_default() {
    let m = resolve("Acme/Wonder-Model-9");
    assert!(!m.known);
    assert_eq!(m.matched_by, MatchedBy::Default);
    assert_eq!(m.id, "wonder-model-9");
    assert_eq!(m.requested, "Acme/Wonder-Model-9");
    assert_eq!(
        (m.context_window, m.max_output_tokens, m.max_input_tokens),
        (DEFAULT_CONTEXT_WINDOW, None, None)
    );
    assert_eq!(
        m.tokenizer,
        ModelTokenizer::Estimate {
            family: Family::Generic
        }
    );
    assert_eq!(m.provider, Provider::Unknown);
    assert_eq!(resolve("anthropic/claude-next").provider, Provider::Anthropic);
    assert_eq!(resolve("").matched_by, MatchedBy::Default);
}

/// The default an unknown model gets is the one docs/estimates.md documents.
#[test]
fn the_default_is_documented() {
    let doc = include_str!("../../docs/estimates.md");
    assert_eq!(DEFAULT_CONTEXT_WINDOW, 200_000);
    assert!(
        doc.contains("200,000-token window"),
        "docs/estimates.md must state the default window"
    );
    assert!(
        doc.contains("`generic`"),
        "docs/estimates.md must name the default estimator"
    );
}

#[test]
fn overrides_come_first_and_can_be_removed() {
    // Ids unique to this test: the registry is process-global and tests run in parallel.
    let mine = ModelInfo {
        id: "test-override-gpt-4o".into(),
        provider: Provider::OpenAi,
        context_window: 5_000,
        max_output_tokens: Some(1_000),
        max_input_tokens: None,
        tokenizer: O200K,
    };
    assert_eq!(register(mine.clone()), Ok(None));
    let m = resolve("openai/test-override-gpt-4o-2025-01-01");
    assert_eq!(
        (m.id.as_str(), m.context_window, m.matched_by),
        ("test-override-gpt-4o", 5_000, MatchedBy::Override)
    );
    // Registering the same id again replaces it.
    let bigger = ModelInfo {
        context_window: 6_000,
        ..mine.clone()
    };
    assert_eq!(register(bigger), Ok(Some(mine)));
    assert_eq!(resolve("test-override-gpt-4o").context_window, 6_000);
    assert!(registered().iter().any(|m| m.id == "test-override-gpt-4o"));
    assert!(unregister("TEST-OVERRIDE-GPT-4O").is_some());
    assert_eq!(resolve("test-override-gpt-4o").matched_by, MatchedBy::Default);
    assert_eq!(unregister("test-override-gpt-4o"), None);
}

#[test]
fn a_registered_prefix_leaves_the_builtin_ids_it_prefixes_and_inherits_the_rest() {
    // A window of its own for a built-in id (registered under a test-only id that the
    // built-in `o3-mini` prefixes, so no other test sees it).
    let mut mine = ModelInfo {
        id: "o3-mini-test-deploy".into(),
        provider: Provider::Unknown,
        context_window: 64_000,
        max_output_tokens: None,
        max_input_tokens: None,
        tokenizer: DEFAULT_TOKENIZER,
    };
    inherit(&mut mine, &|field| field == "maxOutputTokens");
    assert_eq!((mine.provider, mine.tokenizer), (Provider::OpenAi, O200K));
    assert_eq!(mine.max_output_tokens, None, "given");
    register(mine).unwrap();
    let m = resolve("o3-mini-test-deploy-eu");
    assert_eq!(
        (m.id.as_str(), m.matched_by, m.tokenizer),
        ("o3-mini-test-deploy", MatchedBy::Override, O200K)
    );
    // The built-in ids it does not prefix, or that are longer, stay built-in.
    assert_eq!(resolve("o3-mini").matched_by, MatchedBy::Exact);
    unregister("o3-mini-test-deploy");
    // A registered id that built-in ids extend: each built-in id stays its own model.
    let mut small = ModelInfo {
        id: "magistral-small".into(),
        provider: Provider::Unknown,
        context_window: 1_000,
        max_output_tokens: None,
        max_input_tokens: None,
        tokenizer: DEFAULT_TOKENIZER,
    };
    inherit(&mut small, &|_| false);
    register(small).unwrap();
    assert_eq!(resolve("magistral-small-2509").matched_by, MatchedBy::Exact);
    let dated = resolve("magistral-small-2601");
    assert_eq!(
        (dated.matched_by, dated.context_window),
        (MatchedBy::Override, 1_000)
    );
    assert_eq!(dated.provider, Provider::Mistral);
    unregister("magistral-small");
}

#[test]
fn an_override_replaces_a_builtin() {
    // A dated id of a real model: nothing else in the tests asks for it.
    let id = "claude-3-haiku-20240307-test";
    register(ModelInfo {
        id: id.into(),
        provider: Provider::Anthropic,
        context_window: 50_000,
        max_output_tokens: None,
        max_input_tokens: None,
        tokenizer: CLAUDE,
    })
    .unwrap();
    assert_eq!(resolve(id).matched_by, MatchedBy::Override);
    assert_eq!(resolve("claude-3-haiku-20240307").matched_by, MatchedBy::Prefix);
    unregister(id);
}

#[test]
fn register_validates() {
    let base = ModelInfo {
        id: "test-validate".into(),
        provider: Provider::Unknown,
        context_window: 1_000,
        max_output_tokens: None,
        max_input_tokens: None,
        tokenizer: DEFAULT_TOKENIZER,
    };
    let err = |info: ModelInfo| register(info).unwrap_err().code();
    assert_eq!(
        err(ModelInfo {
            id: " / ".into(),
            ..base.clone()
        }),
        "INVALID_ARGUMENT"
    );
    assert_eq!(
        err(ModelInfo {
            context_window: 0,
            ..base.clone()
        }),
        "OUT_OF_RANGE"
    );
    assert_eq!(
        err(ModelInfo {
            max_output_tokens: Some(1_001),
            ..base.clone()
        }),
        "OUT_OF_RANGE"
    );
    assert_eq!(
        err(ModelInfo {
            max_input_tokens: Some(0),
            ..base.clone()
        }),
        "OUT_OF_RANGE"
    );
    assert!(registered().iter().all(|m| m.id != "test-validate"));
}

#[test]
fn model_info_from_json() {
    let info: ModelInfo = serde_json::from_str(r#"{"id": "test-json", "contextWindow": 32768}"#).unwrap();
    assert_eq!(info.tokenizer, DEFAULT_TOKENIZER);
    assert_eq!((info.provider, info.max_output_tokens), (Provider::Unknown, None));
    let info: ModelInfo = serde_json::from_str(
        r#"{"id": "x", "provider": "mistral", "contextWindow": 10, "maxOutputTokens": 5,
            "tokenizer": {"kind": "estimate", "family": "mistral"}}"#,
    )
    .unwrap();
    assert_eq!(info.provider, Provider::Mistral);
    assert!(serde_json::from_str::<ModelInfo>(r#"{"id": "x", "contextWindow": 1, "window": 2}"#).is_err());
}

#[test]
fn resolved_model_json() {
    let json = serde_json::to_value(resolve("anthropic/claude-3-5-sonnet-20241022")).unwrap();
    assert_eq!(
        json,
        serde_json::json!({
            "requested": "anthropic/claude-3-5-sonnet-20241022",
            "id": "claude-3-5-sonnet",
            "provider": "anthropic",
            "contextWindow": 200000,
            "maxOutputTokens": 8192,
            "maxInputTokens": null,
            "tokenizer": {"kind": "estimate", "family": "claude"},
            "matchedBy": "prefix",
            "known": true
        })
    );
}

#[test]
fn the_table_is_consistent() {
    let mut seen = std::collections::HashSet::new();
    for e in MODELS {
        for name in std::iter::once(&e.id).chain(e.aliases) {
            assert_eq!(normalize(name), *name, "{name} is not in normal form");
            assert!(seen.insert(*name), "{name} appears twice");
        }
        assert!(e.context_window > 0);
        for v in [e.max_output_tokens, e.max_input_tokens].into_iter().flatten() {
            assert!(v <= e.context_window, "{}", e.id);
        }
        let expected = match e.provider {
            Provider::OpenAi => matches!(e.tokenizer, ModelTokenizer::Exact { .. }),
            _ => matches!(e.tokenizer, ModelTokenizer::Estimate { .. }),
        };
        assert!(expected, "{}: only OpenAI models are counted exactly", e.id);
    }
    assert_eq!(builtin().count(), MODELS.len());
}

#[test]
fn concurrent_registration_is_safe() {
    let handles: Vec<_> = (0..8)
        .map(|i| {
            std::thread::spawn(move || {
                let id = format!("test-thread-{i}");
                for w in 1..50u32 {
                    register(ModelInfo {
                        id: id.clone(),
                        provider: Provider::Unknown,
                        context_window: w,
                        max_output_tokens: None,
                        max_input_tokens: None,
                        tokenizer: DEFAULT_TOKENIZER,
                    })
                    .unwrap();
                    assert_eq!(resolve(&id).context_window, w);
                }
                unregister(&id).unwrap();
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

#[test]
fn an_empty_model_id_is_an_error() {
    for id in ["", "  "] {
        let e = crate::options::from_value::<crate::options::CompactOptions>(
            "options",
            &serde_json::json!({ "model": id }),
        )
        .unwrap_err();
        assert_eq!(e.code(), "INVALID_ARGUMENT", "{id:?}");
        assert!(
            e.to_string().contains("options.model: expected a model id"),
            "{e}"
        );
    }
}

#[test]
fn ids_a_local_server_serves() {
    for id in [
        "llama3.1:8b",
        "qwen2.5-coder:7b-instruct-q4_K_M",
        "gemma3:latest",
        "hf.co/bartowski/Llama-3.2-3B-Instruct-GGUF:Q4_K_M",
        "mannix/llama3.1-8b-abliterated:q5_k_m",
        "ollama/llama3.1",
        "ollama_chat/llama3.1",
        "ollama:llama3.1",
    ] {
        assert!(
            served_locally(id).is_some_and(|w| w.starts_with("Ollama")),
            "{id}"
        );
    }
    assert!(served_locally("lm_studio/qwen2.5-7b-instruct").is_some_and(|w| w.starts_with("LM Studio")));
    assert!(served_locally("lmstudio-community/Meta-Llama-3.1-8B-Instruct-GGUF").is_some());
    assert!(
        served_locally("hosted_vllm/meta-llama/Llama-3.1-8B-Instruct").is_some_and(|w| w.starts_with("vLLM"))
    );
    for id in [
        "gpt-4o",
        "llama3.1",
        "meta-llama/Llama-3.3-70B-Instruct",
        "us.anthropic.claude-sonnet-4-20250514-v1:0",
        "meta.llama3-1-405b-instruct-v1:0",
        "anthropic.claude-3-sonnet-20240229-v1:0:200k",
        "ft:gpt-4o-mini-2024-07-18:my-org::abc123",
        "openai:gpt-4o",
        "openai:gpt-4o:latest",
        "meta-llama/llama-3.1-8b-instruct:free",
        "gpt-oss:120b-cloud",
        "arn:aws:bedrock:us-east-1::foundation-model/x",
    ] {
        assert_eq!(served_locally(id), None, "{id}");
    }
}

#[test]
fn an_unknown_id_names_the_closest_known_ones() {
    assert_eq!(closest("gpt4o")[0], "gpt-4o");
    assert_eq!(closest("claude-sonet-4-5")[0], "claude-sonnet-4-5");
    assert_eq!(
        closest("claude-4-5-sonnet")[0],
        "claude-sonnet-4-5",
        "the same parts"
    );
    assert!(closest("wonder-model-9").is_empty());
    assert!(closest("gpt4o").len() <= 3);
    assert_eq!(edit_distance("kitten", "sitting"), 3);
    assert_eq!(edit_distance("", "abc"), 3);
    let e = known_window(&resolve("gpt4o")).unwrap_err();
    assert_eq!(e.code(), "UNKNOWN_MODEL");
    let e = known_window(&resolve("wonder-model-9")).unwrap_err().to_string();
    assert!(!e.contains("did you mean"), "{e}");
    assert_eq!(known_window(&resolve("gpt-4o")), Ok(128_000));
}
