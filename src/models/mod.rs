//! The model registry: context window, output limit, provider and tokenizer of the models
//! ctxfold knows, and of those the caller registers at run time.
//!
//! [`resolve`] takes any id a caller may hold — `"gpt-4o"`, `"openai/gpt-4o"`,
//! `"gpt-4o-2024-08-06"`, `"claude-3-5-sonnet-20241022"`, `"anthropic/claude-sonnet-4.5"`,
//! `"us.anthropic.claude-sonnet-4-20250514-v1:0"`, `"models/gemini-2.5-pro"`,
//! `"mistral-large-latest"` — and finds, in this order: a model [`register`]ed at run time
//! (exact id, then longest id prefix), a built-in model by exact id or alias, the built-in
//! model whose id is the longest prefix of the asked id, and else a documented default
//! ([`DEFAULT_CONTEXT_WINDOW`] tokens, the [`Family::Generic`] estimate), saying so with
//! `known: false` and [`MatchedBy::Default`].
//!
//! ```
//! use ctxfold::models::{resolve, MatchedBy};
//! let m = resolve("openai/gpt-4o-2024-08-06");
//! assert_eq!((m.id.as_str(), m.context_window, m.matched_by), ("gpt-4o", 128_000, MatchedBy::Prefix));
//! let m = resolve("my-local-model");
//! assert!(!m.known);
//! assert_eq!(m.context_window, 200_000);
//! ```
//!
//! Where the figures come from. Each entry of the table cites its sources:
//! - `litellm`: `model_prices_and_context_window_backup.json` in the PyPI package
//!   litellm 1.109.1 (`max_input_tokens` / `max_output_tokens`, key given);
//! - `ai-tokenizer`: the `models` export of the npm package ai-tokenizer 1.0.6 (MIT),
//!   `contextWindow` / `maxTokens`;
//! - `tiktoken-rs`: `model::get_context_size` and `tokenizer::get_tokenizer` of the crate
//!   tiktoken-rs 0.12.1 (ctxfold's dev-dependency);
//! - `provider docs`: the provider's model page, for a few models the shipped data no
//!   longer (or never) listed; these are marked as such.
//!
//! Where sources disagree the entry says so. A bare alias (`mistral-large`) follows the model
//! the provider's `-latest` alias serves in the newest data; dated ids of older generations
//! with a smaller window have their own entries, so a prefix never overstates a window.

use std::sync::RwLock;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

mod table;

use table::{Entry, MODELS};

use crate::error::Error;
use crate::estimate::{Estimator, Family};

/// The context window assumed for a model ctxfold does not know (seed 001's default).
pub const DEFAULT_CONTEXT_WINDOW: u32 = 200_000;

/// The tokenizer assumed for a model ctxfold does not know: the most conservative of the
/// calibrated estimates (docs/estimates.md).
pub const DEFAULT_TOKENIZER: Estimator = Estimator::Estimate {
    family: Family::Generic,
};

/// Who serves (or published) a model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default, TS)]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    OpenAi,
    Anthropic,
    Google,
    Meta,
    Mistral,
    /// Not known (unknown models, and registered models that do not say).
    #[default]
    Unknown,
}

/// A model's limits and tokenizer: a built-in entry, or one given to [`register`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ModelInfo {
    /// The canonical id, e.g. `"claude-sonnet-4-5"`. Matching ignores case and provider
    /// prefixes, and a registered id also matches ids it is a prefix of.
    pub id: String,
    /// Who serves the model.
    #[serde(default)]
    #[ts(as = "Option<Provider>", optional)]
    pub provider: Provider,
    /// Input plus output tokens the model accepts.
    pub context_window: u32,
    /// The most output tokens one response may have, where the provider publishes a limit
    /// separate from the window.
    #[serde(default)]
    #[ts(optional = nullable)]
    pub max_output_tokens: Option<u32>,
    /// A cap on input tokens below `contextWindow - maxOutputTokens`, where the provider
    /// has one (GPT-5: 272,000 of a 400,000 window).
    #[serde(default)]
    #[ts(optional = nullable)]
    pub max_input_tokens: Option<u32>,
    /// How to count the model's tokens.
    #[serde(default = "default_tokenizer")]
    #[ts(as = "Option<Estimator>", optional)]
    pub tokenizer: Estimator,
}

fn default_tokenizer() -> Estimator {
    DEFAULT_TOKENIZER
}

/// How [`resolve`] found a model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum MatchedBy {
    /// A model registered at run time (exact id or id prefix).
    Override,
    /// A built-in model's id or alias, exactly.
    Exact,
    /// The built-in model whose id (or alias) is the longest prefix of the asked id.
    Prefix,
    /// Nothing matched: the documented default.
    Default,
}

/// A model as the registry resolved an id (what `getModel` returns).
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "ModelInfoResolved")]
pub struct ResolvedModel {
    /// The id as asked.
    pub requested: String,
    /// The canonical id of the model matched; for the default, the asked id normalized
    /// (lower case, without provider prefix).
    pub id: String,
    /// Who serves it.
    pub provider: Provider,
    /// Input plus output tokens.
    pub context_window: u32,
    /// The most output tokens per response, if the provider publishes a limit.
    pub max_output_tokens: Option<u32>,
    /// A cap on input below `contextWindow - maxOutputTokens`, if the provider has one.
    pub max_input_tokens: Option<u32>,
    /// How its tokens are counted.
    pub tokenizer: Estimator,
    /// How the id matched: `override`, `exact`, `prefix`, or `default` (unknown).
    pub matched_by: MatchedBy,
    /// False when nothing matched and the default was used.
    pub known: bool,
}

/// The registry's answer for `id`. Never fails: an unknown model gets the default.
pub fn resolve(id: &str) -> ResolvedModel {
    let key = normalize(id);
    let found = |info: ModelInfo, matched_by| ResolvedModel {
        requested: id.to_owned(),
        id: info.id,
        provider: info.provider,
        context_window: info.context_window,
        max_output_tokens: info.max_output_tokens,
        max_input_tokens: info.max_input_tokens,
        tokenizer: info.tokenizer,
        matched_by,
        known: true,
    };
    {
        let overrides = OVERRIDES.read().unwrap_or_else(|e| e.into_inner());
        let best = overrides
            .iter()
            .filter(|m| is_prefix(&normalize(&m.id), &key))
            .max_by_key(|m| normalize(&m.id).len());
        if let Some(m) = best {
            return found(m.clone(), MatchedBy::Override);
        }
    }
    let mut best: Option<(&Entry, usize)> = None;
    for e in MODELS {
        for name in std::iter::once(&e.id).chain(e.aliases) {
            if key == *name {
                return found(e.info(), MatchedBy::Exact);
            }
            if is_prefix(name, &key) && best.is_none_or(|(_, len)| name.len() > len) {
                best = Some((e, name.len()));
            }
        }
    }
    if let Some((e, _)) = best {
        return found(e.info(), MatchedBy::Prefix);
    }
    ResolvedModel {
        requested: id.to_owned(),
        id: key,
        provider: provider_hint(id),
        context_window: DEFAULT_CONTEXT_WINDOW,
        max_output_tokens: None,
        max_input_tokens: None,
        tokenizer: DEFAULT_TOKENIZER,
        matched_by: MatchedBy::Default,
        known: false,
    }
}

/// Registers `info` for this process: [`resolve`] consults registered models before the
/// built-in table, so this both adds models and replaces built-in figures. Registering an id
/// again replaces it; the previous registration is returned.
pub fn register(info: ModelInfo) -> Result<Option<ModelInfo>, Error> {
    if normalize(&info.id).is_empty() {
        return Err(Error::InvalidArgument {
            argument: "model.id".into(),
            expected: "a non-empty model id".into(),
        });
    }
    if info.context_window == 0 {
        return Err(Error::OutOfRange {
            argument: "model.contextWindow".into(),
            reason: "must be at least 1".into(),
        });
    }
    for (name, value) in [
        ("maxOutputTokens", info.max_output_tokens),
        ("maxInputTokens", info.max_input_tokens),
    ] {
        if let Some(v) = value.filter(|&v| v == 0 || v > info.context_window) {
            return Err(Error::OutOfRange {
                argument: format!("model.{name}"),
                reason: format!("{v} is not between 1 and contextWindow ({})", info.context_window),
            });
        }
    }
    let mut overrides = OVERRIDES.write().unwrap_or_else(|e| e.into_inner());
    let key = normalize(&info.id);
    let previous = overrides
        .iter()
        .position(|m| normalize(&m.id) == key)
        .map(|i| overrides.remove(i));
    overrides.push(info);
    Ok(previous)
}

/// Removes the model registered under `id`, if any, and returns it.
pub fn unregister(id: &str) -> Option<ModelInfo> {
    let key = normalize(id);
    let mut overrides = OVERRIDES.write().unwrap_or_else(|e| e.into_inner());
    let i = overrides.iter().position(|m| normalize(&m.id) == key)?;
    Some(overrides.remove(i))
}

/// The models registered at run time, in registration order.
pub fn registered() -> Vec<ModelInfo> {
    OVERRIDES.read().unwrap_or_else(|e| e.into_inner()).clone()
}

/// The built-in table, in its order (by provider, newest first).
pub fn builtin() -> impl Iterator<Item = ModelInfo> {
    MODELS.iter().map(Entry::info)
}

/// Registered models. A `Vec` behind a lock: it holds a handful of entries, and lookups are
/// rare next to token counting.
static OVERRIDES: RwLock<Vec<ModelInfo>> = RwLock::new(Vec::new());

/// The form ids are compared in: lower case; no `ft:` fine-tune wrapper, path-style
/// provider prefix (`openai/`, `models/`), `@version` or `:tag` suffix, or Bedrock region
/// and vendor prefix (`us.anthropic.`); Claude's dotted versions as Anthropic writes them
/// (`claude-3.5-sonnet` → `claude-3-5-sonnet`).
pub fn normalize(id: &str) -> String {
    let mut s = id.trim().to_ascii_lowercase();
    if let Some(rest) = s.strip_prefix("ft:") {
        s = rest.split(':').next().unwrap_or_default().to_owned();
    }
    if let Some(i) = s.rfind('/') {
        s.drain(..=i);
    }
    if let Some(i) = s.find(['@', ':']) {
        s.truncate(i);
    }
    for region in ["us-gov.", "us.", "eu.", "apac.", "au.", "jp.", "global."] {
        if let Some(rest) = s.strip_prefix(region) {
            s = rest.to_owned();
            break;
        }
    }
    for vendor in ["anthropic.", "meta.", "mistral.", "google.", "openai."] {
        if let Some(rest) = s.strip_prefix(vendor) {
            s = rest.to_owned();
            break;
        }
    }
    if s.starts_with("claude") {
        s = s.replace('.', "-");
    }
    s
}

/// Whether `name` is `key`, or a prefix of it that ends where a new id part starts
/// (`gpt-4o` of `gpt-4o-2024-08-06`, not `gpt-4` of `gpt-4o`).
fn is_prefix(name: &str, key: &str) -> bool {
    !name.is_empty()
        && key.starts_with(name)
        && key[name.len()..]
            .chars()
            .next()
            .is_none_or(|c| !c.is_ascii_alphanumeric())
}

/// The provider named by an id's prefix (`anthropic/…`, `us.anthropic.…`), for the default.
fn provider_hint(id: &str) -> Provider {
    let s = id.trim().to_ascii_lowercase();
    let first = s
        .split(['/', '.'])
        .find(|p| !matches!(*p, "us" | "eu" | "apac" | "au" | "jp" | "global" | "us-gov"));
    match first.unwrap_or_default() {
        "openai" | "azure" => Provider::OpenAi,
        "anthropic" => Provider::Anthropic,
        "google" | "gemini" | "vertex_ai" | "models" => Provider::Google,
        "meta" | "meta-llama" | "meta_llama" => Provider::Meta,
        "mistral" | "mistralai" => Provider::Mistral,
        _ => Provider::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::table::{CL100K, CLAUDE, O200K};
    use super::*;

    fn check(id: &str, canonical: &str, matched_by: MatchedBy) -> ResolvedModel {
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
            Estimator::Estimate {
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
        assert!(
            serde_json::from_str::<ModelInfo>(r#"{"id": "x", "contextWindow": 1, "window": 2}"#).is_err()
        );
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
                Provider::OpenAi => matches!(e.tokenizer, Estimator::Exact { .. }),
                _ => matches!(e.tokenizer, Estimator::Estimate { .. }),
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
}
