//! The model registry: context window, output limit, provider and tokenizer of the models
//! ctxfold knows, and of those the caller registers at run time.
//!
//! [`resolve`] takes any id a caller may hold — `"gpt-4o"`, `"openai/gpt-4o"`,
//! `"gpt-4o-2024-08-06"`, `"claude-3-5-sonnet-20241022"`, `"anthropic/claude-sonnet-4.5"`,
//! `"us.anthropic.claude-sonnet-4-20250514-v1:0"`, `"models/gemini-2.5-pro"`,
//! `"mistral-large-latest"` — and finds, in this order: a model [`register`]ed at run time
//! under the exact id, a built-in model by exact id or alias, the longest id prefix of the
//! asked id among the registered and the built-in models (a registered one where they are as
//! long), and else a documented default
//! ([`DEFAULT_CONTEXT_WINDOW`] tokens, the [`Family::Generic`] estimate), saying so with
//! `known: false` and [`MatchedBy::Default`]. A budget is never sized from that default:
//! without `contextWindow`, [`known_window`] makes an unknown model (or one a local server
//! serves, whose window is the server's) `UNKNOWN_MODEL`.
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
use crate::estimate::{Family, ModelTokenizer};

/// The context window assumed for a model ctxfold does not know (seed 001's default).
pub const DEFAULT_CONTEXT_WINDOW: u32 = 200_000;

/// The tokenizer assumed for a model ctxfold does not know: the most conservative of the
/// calibrated estimates (docs/estimates.md).
pub const DEFAULT_TOKENIZER: ModelTokenizer = ModelTokenizer::Estimate {
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
    #[ts(as = "Option<ModelTokenizer>", optional)]
    pub tokenizer: ModelTokenizer,
}

fn default_tokenizer() -> ModelTokenizer {
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
pub struct ModelInfoResolved {
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
    pub tokenizer: ModelTokenizer,
    /// How the id matched: `override`, `exact`, `prefix`, or `default` (unknown).
    pub matched_by: MatchedBy,
    /// False when nothing matched and the default was used.
    pub known: bool,
}

/// The registry's answer for `id`. Never fails: an unknown model gets the default.
pub fn resolve(id: &str) -> ModelInfoResolved {
    let key = normalize(id);
    let found = |info: ModelInfo, matched_by| ModelInfoResolved {
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
    // A registered id that is the asked one, or its longest prefix.
    let registered = {
        let overrides = OVERRIDES.read().unwrap_or_else(|e| e.into_inner());
        overrides
            .iter()
            .map(|m| (normalize(&m.id), m))
            .filter(|(id, _)| is_prefix(id, &key))
            .max_by_key(|(id, _)| id.len())
            .map(|(id, m)| (id.len(), m.clone()))
    };
    if let Some((_, m)) = registered.as_ref().filter(|(len, _)| *len == key.len()) {
        return found(m.clone(), MatchedBy::Override);
    }
    // A built-in model's own id goes before a registered prefix of it: registering
    // `gpt-4o` does not make `gpt-4o-mini` (or `gpt-4` make `gpt-4.1`) the registered model.
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
    // Of the prefixes, the longest; a registered one where they are as long.
    match (registered, best) {
        (Some((len, m)), b) if b.is_none_or(|(_, blen)| len >= blen) => return found(m, MatchedBy::Override),
        (_, Some((e, _))) => return found(e.info(), MatchedBy::Prefix),
        _ => {}
    }
    ModelInfoResolved {
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

/// The window a call may take from `model` when it gives no `contextWindow`: the table's
/// (or a registration's), unless ctxfold cannot know it. An unknown id (`gpt4o`) is
/// [`Error::UnknownModel`] with the closest known ids, not the [`DEFAULT_CONTEXT_WINDOW`]
/// a budget would silently be sized from; so is an id a local server serves
/// ([`served_locally`]) that was not registered, since the window such a server serves is
/// its own setting (Ollama's is 4k on most machines, where the table says 128k for Llama 3.1).
pub fn known_window(model: &ModelInfoResolved) -> Result<u32, Error> {
    if model.matched_by == MatchedBy::Override {
        return Ok(model.context_window);
    }
    if let Some(why) = served_locally(&model.requested) {
        return Err(Error::UnknownModel {
            model: model.requested.clone(),
            closest: Vec::new(),
            served_by: Some(why),
        });
    }
    if !model.known {
        return Err(Error::UnknownModel {
            model: model.requested.clone(),
            closest: closest(&model.id),
            served_by: None,
        });
    }
    Ok(model.context_window)
}

/// Path-style (`ollama/llama3.1`, as LiteLLM writes it) or colon-style (`ollama:llama3.1`)
/// prefixes that name a local server, with why its window is its own.
const LOCAL_SERVERS: [(&str, &str); 12] = [
    ("ollama", OLLAMA),
    ("ollama_chat", OLLAMA),
    ("lmstudio", LM_STUDIO),
    ("lm_studio", LM_STUDIO),
    ("lm-studio", LM_STUDIO),
    ("lmstudio-community", LM_STUDIO),
    ("vllm", VLLM),
    ("hosted_vllm", VLLM),
    ("llamacpp", LLAMA_CPP),
    ("llama_cpp", LLAMA_CPP),
    ("llama-cpp", LLAMA_CPP),
    ("llama.cpp", LLAMA_CPP),
];

const OLLAMA: &str = "Ollama, which serves the context length it is set to (by default 4k tokens below 24 GiB of VRAM, 32k below 48 GiB, 256k above)";
const LM_STUDIO: &str =
    "LM Studio, which serves the context length the model was loaded with (4,096 tokens unless set)";
const VLLM: &str = "vLLM, which serves the max_model_len it was started with";
const LLAMA_CPP: &str = "llama.cpp's server, which serves its --ctx-size";

/// OpenRouter's variants (`meta-llama/llama-3.1-8b-instruct:free`): a `:tag` a hosted API
/// serves, not an Ollama tag.
const HOSTED_TAGS: [&str; 8] = [
    "free", "beta", "extended", "thinking", "online", "nitro", "floor", "exacto",
];

/// Why `id` names a model served by a local server, if it does: a local server's prefix
/// (`ollama/`, `lm_studio/`, `hosted_vllm/`), or an Ollama `name:tag` (`llama3.1:8b`,
/// `qwen2.5-coder:latest`, `hf.co/user/repo:Q4_K_M`). Not a tag: Bedrock's version
/// (`…-v1:0`), a fine-tune (`ft:…`), a hosted provider's prefix (`openai:gpt-4o`),
/// OpenRouter's variants (`:free`) and Ollama's cloud models (`:120b-cloud`, served at
/// their full window).
pub fn served_locally(id: &str) -> Option<&'static str> {
    let s = id.trim().to_ascii_lowercase();
    let first = s.split(['/', ':']).next().unwrap_or_default();
    if let Some((_, why)) = LOCAL_SERVERS.iter().find(|(name, _)| *name == first) {
        return Some(why);
    }
    if s.starts_with("ft:") || s.starts_with("arn:") {
        return None;
    }
    if let Some((provider, _)) = s.split_once(':') {
        if COLON_PROVIDERS.contains(&provider) {
            return None;
        }
    }
    let last = s.rsplit('/').next().unwrap_or_default();
    let (name, tag) = last.split_once(':')?;
    let bedrock = name
        .rsplit_once("-v")
        .is_some_and(|(_, v)| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()));
    let hosted = HOSTED_TAGS.contains(&tag) || tag.ends_with("cloud");
    (!name.is_empty() && !tag.is_empty() && !bedrock && !hosted).then_some(OLLAMA)
}

/// The known ids (built-in ids and aliases, and registered ids) nearest to `key` (a
/// normalized id): at most three, by edit distance (or the same parts in another order,
/// `claude-4-5-sonnet`), within a third of its length.
fn closest(key: &str) -> Vec<String> {
    let parts = |s: &str| {
        let mut p: Vec<String> = s
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|p| !p.is_empty())
            .map(str::to_owned)
            .collect();
        p.sort();
        p
    };
    let mine = parts(key);
    let limit = (key.chars().count() / 3).max(1);
    let registered: Vec<String> = registered().iter().map(|m| normalize(&m.id)).collect();
    let names = MODELS
        .iter()
        .flat_map(|e| std::iter::once(e.id).chain(e.aliases.iter().copied()))
        .map(str::to_owned)
        .chain(registered);
    let mut near: Vec<(usize, String)> = names
        .filter_map(|name| {
            let d = if parts(&name) == mine {
                1
            } else {
                edit_distance(key, &name)
            };
            (d <= limit).then_some((d, name))
        })
        .collect();
    // Nearest first; of equals, the table's order (newest first within a provider).
    near.sort_by_key(|(d, _)| *d);
    let mut out: Vec<String> = Vec::new();
    for (_, name) in near {
        if !out.contains(&name) && out.len() < 3 {
            out.push(name);
        }
    }
    out
}

/// Levenshtein distance, by characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let next = (diagonal + usize::from(ca != cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// Registers `info` for this process: [`resolve`] consults registered models before the
/// built-in table, so this both adds models and replaces built-in figures. Registering an id
/// again replaces it; the previous registration is returned.
pub fn register(info: ModelInfo) -> Result<Option<ModelInfo>, Error> {
    if normalize(&info.id).is_empty() {
        return Err(Error::InvalidArgument {
            argument: "info.id".into(),
            expected: "a non-empty model id".into(),
        });
    }
    if info.context_window == 0 {
        return Err(Error::OutOfRange {
            argument: "info.contextWindow".into(),
            reason: "must be at least 1".into(),
        });
    }
    for (name, value) in [
        ("maxOutputTokens", info.max_output_tokens),
        ("maxInputTokens", info.max_input_tokens),
    ] {
        if let Some(v) = value.filter(|&v| v == 0 || v > info.context_window) {
            return Err(Error::OutOfRange {
                argument: format!("info.{name}"),
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

/// Fills what a registration of a built-in model's id leaves out (`given(field)` says what
/// it gave, by its JS name) from that built-in model: its provider and tokenizer, and its
/// limits where they fit the new window. Registering `{ id: "gpt-4o", contextWindow: 64000 }`
/// (an Azure deployment with a smaller window) keeps GPT-4o's exact tokenizer.
pub fn inherit(info: &mut ModelInfo, given: &dyn Fn(&str) -> bool) {
    let key = normalize(&info.id);
    let Some(b) = MODELS
        .iter()
        .flat_map(|e| std::iter::once(&e.id).chain(e.aliases).map(move |n| (e, *n)))
        .filter(|(_, n)| is_prefix(n, &key))
        .max_by_key(|(_, n)| n.len())
        .map(|(e, _)| e.info())
    else {
        return;
    };
    let window = info.context_window;
    if !given("provider") {
        info.provider = b.provider;
    }
    if !given("tokenizer") {
        info.tokenizer = b.tokenizer;
    }
    if !given("maxOutputTokens") {
        info.max_output_tokens = b.max_output_tokens.filter(|&v| v <= window);
    }
    if !given("maxInputTokens") {
        info.max_input_tokens = b.max_input_tokens.filter(|&v| v <= window);
    }
}

/// Reads an options' `model`: a string with something in it. An empty one (an unset
/// environment variable, most often) is an error, not an unknown model with the default
/// window.
pub(crate) fn model_id<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let id = String::deserialize(d)?;
    if id.trim().is_empty() {
        return Err(serde::de::Error::custom(format_args!(
            "a model id, got an empty string{}",
            if id.is_empty() { "" } else { " (only whitespace)" }
        )));
    }
    Ok(Some(id))
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

/// Providers an id may name before a colon, as the AI SDK's provider registry, LangChain's
/// `init_chat_model` and pydantic-ai write them (`openai:gpt-4o`).
const COLON_PROVIDERS: [&str; 16] = [
    "anthropic",
    "azure",
    "azure_openai",
    "bedrock",
    "bedrock_converse",
    "deepseek",
    "fireworks",
    "gateway",
    "google",
    "google-gla",
    "google-vertex",
    "google_genai",
    "groq",
    "mistral",
    "mistralai",
    "openai",
];

/// The form ids are compared in: lower case; no `ft:` fine-tune wrapper, `provider:` prefix
/// (`openai:gpt-4o`), path-style provider prefix (`openai/`, `models/`), `@version` or `:tag` suffix, or Bedrock region
/// and vendor prefix (`us.anthropic.`); Claude's dotted versions as Anthropic writes them
/// (`claude-3.5-sonnet` → `claude-3-5-sonnet`).
pub fn normalize(id: &str) -> String {
    let mut s = id.trim().to_ascii_lowercase();
    if let Some(rest) = s.strip_prefix("ft:") {
        s = rest.split(':').next().unwrap_or_default().to_owned();
    }
    if let Some((provider, rest)) = s.split_once(':') {
        if COLON_PROVIDERS.contains(&provider) {
            s = rest.to_owned();
        }
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
mod tests;
