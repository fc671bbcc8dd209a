//! What callers pass: the options of every call, declared once.
//!
//! Each options object is a serde type: its keys are the fields (camelCase), unknown keys
//! are errors, and each value is checked as it is read, by its type ([`Ratio`], [`Int`]), so
//! a bad value is an error naming its key: `options.thresholdRatio: expected a number in
//! (0, 1], got 1.5`. The TypeScript declarations of these types, doc comments included, are
//! generated from them (`src/typescript.rs`), so a key exists in one place.
//!
//! The knobs' defaults and presets are in [`crate::config`] ([`crate::config::Config`]).

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, DeserializeOwned, Deserializer, Visitor};
use serde::Deserialize;
use ts_rs::TS;

use crate::config::{Config, Fallback, Overflow, Preset, Strategy, SummaryRole, ToolPolicy};
use crate::messages::MessageFormat;
use crate::tokenizer::Encoding;
use crate::Error;

pub mod recall_option;
pub mod tracked;
pub use recall_option::{Recall, RecallOptions};
pub use tracked::{Path, Problem, Segment, What};

/// Options of `compact` and `plan`. Every knob has a default; unknown keys are errors. Give a
/// `model`, or a `contextWindow` (counted as an unknown model, unless `encoding` is given).
#[derive(Clone, Debug, Default, Deserialize, TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(optional_fields)]
pub struct CompactOptions {
    /// The model: its window, output cap and tokenizer (exact or calibrated estimate).
    #[serde(default, deserialize_with = "crate::models::model_id")]
    pub model: Option<String>,
    /// Count with this encoding instead of the model's.
    #[ts(optional, type = "Encoding")]
    #[serde(default, deserialize_with = "encoding_name")]
    pub encoding: Option<Encoding>,
    /// Count with the model's calibrated estimate when its exact vocabulary is not loaded
    /// (`ctxfold/lite` before `loadVocabulary`), not `VOCABULARY_NOT_LOADED`. Default false.
    #[serde(default, deserialize_with = "present")]
    pub allow_estimate: Option<bool>,
    /// The messages' format; detected when omitted.
    #[ts(optional, type = "MessageFormat")]
    #[serde(default, deserialize_with = "format_name")]
    pub format: Option<MessageFormat>,
    /// Who writes summaries: your LLM (a function), or the built-in extractive summary
    /// (default).
    #[ts(optional, type = "Summarizer | \"extractive\"")]
    #[serde(default, deserialize_with = "present")]
    pub summarizer: Option<Extractive>,
    /// What the previous turn returned, for stateless callers. Kept as JSON text here and
    /// read by the driver (`INVALID_STATE` at its path when it is not a ctxfold state).
    #[ts(optional, type = "CompactState | null")]
    pub state: Option<Box<serde_json::value::RawValue>>,
    /// Compact now, whatever the threshold (`/compact`); a failing summarizer then throws.
    #[serde(default, deserialize_with = "present")]
    pub manual: Option<bool>,
    /// `off`, `default`, `conservative` or `aggressive`.
    #[serde(default, deserialize_with = "present")]
    pub preset: Option<Preset>,
    /// Compact above `max(tokenFloor, thresholdRatio x contextWindow)`, at most the input
    /// budget. Default 1: compact when the input would not fit the input budget (the
    /// window less `reservedOutputTokens`).
    #[serde(default, deserialize_with = "present")]
    pub threshold_ratio: Option<Ratio>,
    /// Never compact below this many tokens. Default 4096.
    #[serde(default, deserialize_with = "present")]
    pub token_floor: Option<Int<0>>,
    /// The context window, overriding the model's.
    #[serde(default, deserialize_with = "present")]
    pub context_window: Option<Int<1>>,
    /// Tokens kept free for the reply. Default: 1/16 of the window, at least 1024 (but at most
    /// half), at most the model's output cap (a quarter of the window for an unknown model).
    #[serde(default, deserialize_with = "present")]
    pub reserved_output_tokens: Option<Int<0>>,
    /// After a compaction the input lands near this share of the input budget: the head,
    /// the summaries with their identifier ledgers, and as many recent turns as fit.
    /// Default 0.55.
    #[serde(default, deserialize_with = "present")]
    pub target_ratio: Option<Ratio>,
    /// Recent turns kept verbatim whatever the target (a floor), degrading to fewer when
    /// they do not fit the budget; the newest complete exchange is kept whenever it fits.
    /// Default 4.
    #[serde(default, deserialize_with = "present")]
    pub buffer_turns: Option<Int<0>>,
    /// The verbatim tail never takes more than this share of the window. Default: no cap
    /// (the target decides); 0.1 in the conservative preset, 0.2 in the aggressive one.
    #[serde(default, deserialize_with = "present")]
    pub buffer_max_ratio: Option<Ratio>,
    /// Instead of `targetRatio` and `bufferTurns`: keep as many recent turns as fit this
    /// many tokens (at least the newest one).
    #[serde(default, deserialize_with = "present")]
    pub keep_recent_tokens: Option<Int<0>>,
    /// Pin the first user message (the task) in the head, before the summary, once a later
    /// user message exists (until then it is the newest user message, which always follows
    /// the summary). Default false.
    #[serde(default, deserialize_with = "present")]
    pub pin_first_user_turn: Option<bool>,
    /// Old tool outputs larger than this are pruned. Default 4096.
    #[serde(default, deserialize_with = "present")]
    pub tool_output_max_bytes: Option<Int<1>>,
    /// Pruning runs when old tool output passes this many tokens. Default 1/20 of the
    /// window.
    #[serde(default, deserialize_with = "present")]
    pub prune_threshold_tokens: Option<Int<0>>,
    /// Old tool outputs are pruned only under pressure: once the input passes this share of
    /// the context window (a prune trigger, like Anthropic's context editing). Default 0.6.
    #[serde(default, deserialize_with = "present")]
    pub prune_ratio: Option<Ratio>,
    /// Policy for tools not in `toolPolicies`. Default `truncate`.
    #[serde(default, deserialize_with = "present")]
    pub default_tool_policy: Option<ToolPolicy>,
    /// Per tool name.
    #[serde(default, deserialize_with = "present")]
    pub tool_policies: Option<BTreeMap<String, ToolPolicy>>,
    /// Hard cap on one summary's tokens (a model is asked for about 200 words). Default:
    /// 1/16 of the window, from 512 to 4096, at most a quarter of the input budget (a small
    /// window keeps its newest turns). Below 64 the schema's empty frame would not fit.
    #[serde(default, deserialize_with = "present")]
    pub summary_max_tokens: Option<Int<64, 32_768>>,
    /// Budget for the identifier ledger line. Default: the room the summaries leave within
    /// `targetRatio`, at least 1/8 of the target and 1/50 of the window (160 tokens or
    /// more; in a small window, at least 1/8 of the input budget), which a compaction
    /// reserves.
    #[serde(default, deserialize_with = "present")]
    pub ledger_max_tokens: Option<Int<0>>,
    /// Summarizer deadline in milliseconds. Default 25000.
    #[serde(default, deserialize_with = "present")]
    pub summarizer_timeout_ms: Option<Int<1, 3_600_000>>,
    /// Largest input of one summarizer call, system prompt included; a fold's too (two
    /// summaries at least). Default: the input budget less the summary cap and 1024, ≤ 120000.
    #[serde(default, deserialize_with = "present")]
    pub summarizer_input_tokens: Option<Int<256>>,
    /// The summary's role. Default `assistant` (a user message when it would come first).
    #[serde(default, deserialize_with = "present")]
    pub summary_role: Option<SummaryRole>,
    /// Keep user and assistant messages alternating: a summary that would sit next to a
    /// message of its own side (two user or two assistant messages in a row) goes at the
    /// start of that message's content instead, in a copy (your object is untouched). For
    /// providers and chat templates that require strict alternation. Default false.
    #[serde(default, deserialize_with = "present")]
    pub alternate_roles: Option<bool>,
    /// Keep identifiers a summary names that occur nowhere in the conversation (invented,
    /// or misremembered) in its text. By default they are removed from it; either way the
    /// report lists them in `unsupportedIds`. Default false.
    #[serde(default, deserialize_with = "present")]
    pub keep_unsupported_ids: Option<bool>,
    /// A secret (at least 16 characters) that signs the returned `state` (HMAC-SHA256), for a
    /// state kept where others can change it (a cookie, a client): a state passed back
    /// without a matching signature is discarded (`report.stateReset` says so) and the full
    /// history compacted afresh, so an edited or forged summary never reaches the model.
    #[serde(default, deserialize_with = "present")]
    #[ts(optional, type = "string")]
    pub state_key: Option<StateKey>,
    /// `additive` (default) or `rolling`.
    #[serde(default, deserialize_with = "present")]
    pub strategy: Option<Strategy>,
    /// Chunks fold past this share of the window (times threshold / input if lower). Default 0.3.
    #[serde(default, deserialize_with = "present")]
    pub fold_ratio: Option<Ratio>,
    /// What a failed summary falls back to. Default `extractive`.
    #[serde(default, deserialize_with = "present")]
    pub fallback: Option<Fallback>,
    /// When even the head and the newest user message do not fit. Default `error`.
    #[serde(default, deserialize_with = "present")]
    pub overflow: Option<Overflow>,
    /// A domain prompt added to the summarizer's instructions.
    pub summary_prompt: Option<String>,
    /// Per-call instructions (e.g. from `/compact focus on the API`).
    pub instructions: Option<String>,
    /// The model has the recall tool (`compactor.recallTool`, the AI SDK middleware's
    /// `recall`): the summary says in one line that earlier messages can be read again with
    /// it. `true`, or `{ maxTokens }` (one recall's budget, default 1000). Default: off, and
    /// the summary is what it is without it.
    #[ts(optional, type = "boolean | RecallOptions")]
    #[serde(default, deserialize_with = "present")]
    pub recall: Option<Recall>,
}

impl Config {
    /// Resolves options: the preset's values, then every knob the caller gave. Every field
    /// is named here (those the driver reads itself as `_`), so a new option that is not
    /// resolved does not compile.
    pub fn new(o: &CompactOptions) -> Self {
        let CompactOptions {
            // Read by the driver: the counter, the format, the summarizer, the state.
            model: _,
            encoding: _,
            allow_estimate: _,
            format: _,
            summarizer: _,
            state: _,
            manual: _,
            preset,
            threshold_ratio,
            token_floor,
            context_window,
            reserved_output_tokens,
            target_ratio,
            buffer_turns,
            buffer_max_ratio,
            keep_recent_tokens,
            pin_first_user_turn,
            tool_output_max_bytes,
            prune_threshold_tokens,
            prune_ratio,
            default_tool_policy,
            tool_policies,
            summary_max_tokens,
            ledger_max_tokens,
            summarizer_timeout_ms,
            summarizer_input_tokens,
            summary_role,
            alternate_roles,
            keep_unsupported_ids,
            state_key,
            strategy,
            fold_ratio,
            fallback,
            overflow,
            summary_prompt,
            instructions,
            recall,
        } = o;
        let mut c = Config::preset(preset.unwrap_or_default());
        let ratio = |target: &mut f64, r: &Option<Ratio>| {
            if let Some(r) = r {
                *target = r.0;
            }
        };
        ratio(&mut c.threshold_ratio, threshold_ratio);
        ratio(&mut c.target_ratio, target_ratio);
        ratio(&mut c.fold_ratio, fold_ratio);
        ratio(&mut c.prune_ratio, prune_ratio);
        if let Some(r) = buffer_max_ratio {
            c.buffer_max_ratio = Some(r.0);
        }
        let get = |v: Option<Int<0>>| v.map(Int::get);
        c.token_floor = get(*token_floor).unwrap_or(c.token_floor);
        c.buffer_turns = get(*buffer_turns).unwrap_or(c.buffer_turns);
        c.tool_output_max_bytes = tool_output_max_bytes.map_or(c.tool_output_max_bytes, Int::get);
        c.context_window = context_window.map(Int::get);
        c.reserved_output_tokens = get(*reserved_output_tokens);
        c.keep_recent_tokens = get(*keep_recent_tokens);
        c.prune_threshold_tokens = get(*prune_threshold_tokens);
        c.summary_max_tokens = summary_max_tokens.map(Int::get);
        c.ledger_max_tokens = get(*ledger_max_tokens);
        c.summarizer_input_tokens = summarizer_input_tokens.map(Int::get);
        if let Some(ms) = summarizer_timeout_ms {
            c.summarizer_timeout_ms = ms.get() as u64;
        }
        c.pin_first_user_turn = pin_first_user_turn.unwrap_or(c.pin_first_user_turn);
        c.alternate_roles = alternate_roles.unwrap_or(c.alternate_roles);
        c.keep_unsupported_ids = keep_unsupported_ids.unwrap_or(c.keep_unsupported_ids);
        c.state_key = state_key.as_ref().map(|k| k.0.clone());
        c.default_tool_policy = default_tool_policy.unwrap_or(c.default_tool_policy);
        if let Some(p) = tool_policies {
            c.tool_policies = p.iter().map(|(k, v)| (k.clone(), *v)).collect();
        }
        c.summary_role = summary_role.unwrap_or(c.summary_role);
        c.strategy = strategy.unwrap_or(c.strategy);
        c.fallback = fallback.unwrap_or(c.fallback);
        c.overflow = overflow.unwrap_or(c.overflow);
        c.summary_prompt.clone_from(summary_prompt);
        c.instructions.clone_from(instructions);
        if let Some(r) = recall {
            c.recall = r.on();
            c.recall_max_tokens = r.max_tokens();
        }
        c
    }

    /// Reads options from JSON (camelCase keys), for native callers (tests, benches):
    /// [`crate::options::from_value`] then [`Config::new`].
    pub fn from_json(value: &serde_json::Value) -> Result<Self, Error> {
        Ok(Config::new(&crate::options::from_value("options", value)?))
    }
}

/// Options of `countTokens`: an encoding, or a model (its encoding, or its calibrated
/// estimate).
#[derive(Clone, Debug, Default, Deserialize, TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(optional_fields)]
pub struct CountOptions {
    /// An exact encoding: `"o200k_base"` (GPT-4o, GPT-4.1, GPT-5, o-series) or
    /// `"cl100k_base"` (GPT-4, GPT-3.5).
    #[ts(optional, type = "Encoding")]
    #[serde(default, deserialize_with = "encoding_name")]
    pub encoding: Option<Encoding>,
    /// A model id, e.g. `"gpt-4o"`, `"claude-sonnet-4-5"`, `"gemini-2.5-pro"`. Unknown ids get
    /// the documented default.
    #[serde(default, deserialize_with = "crate::models::model_id")]
    pub model: Option<String>,
    /// Count with the model's calibrated estimate when its exact vocabulary is not loaded
    /// (`ctxfold/lite` before `loadVocabulary`), not `VOCABULARY_NOT_LOADED`. Default false.
    #[serde(default, deserialize_with = "present")]
    pub allow_estimate: Option<bool>,
}

/// Options of `countMessages`: [`CountOptions`] and the messages' format.
#[derive(Clone, Debug, Default, Deserialize, TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(optional_fields)]
pub struct CountMessagesOptions {
    /// An exact encoding (see `CountOptions`).
    #[ts(optional, type = "Encoding")]
    #[serde(default, deserialize_with = "encoding_name")]
    pub encoding: Option<Encoding>,
    /// A model id (see `CountOptions`).
    #[serde(default, deserialize_with = "crate::models::model_id")]
    pub model: Option<String>,
    /// Count with the model's estimate when its vocabulary is not loaded (see `CountOptions`).
    #[serde(default, deserialize_with = "present")]
    pub allow_estimate: Option<bool>,
    /// The messages' format; detected when omitted.
    #[ts(optional, type = "MessageFormat")]
    #[serde(default, deserialize_with = "format_name")]
    pub format: Option<MessageFormat>,
}

/// Options of `compactor.compact(id, options)`: a manual compaction.
#[derive(Clone, Debug, Default, Deserialize, TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(optional_fields)]
pub struct ManualCompactOptions {
    /// Added to the summarizer's instructions for this compaction (`/compact focus on the
    /// API`).
    pub instructions: Option<String>,
}

/// Options of `compactor.search(id, query, options)`.
#[derive(Clone, Debug, Default, Deserialize, TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(optional_fields)]
pub struct SearchOptions {
    /// How many messages at most, best first: a whole number from 1 to
    /// [`SearchOptions::MAX_LIMIT`] (default [`SearchOptions::DEFAULT_LIMIT`]).
    pub limit: Option<f64>,
}

impl SearchOptions {
    /// The most messages one search gives back.
    pub const MAX_LIMIT: usize = 100;
    /// How many when `limit` is not given.
    pub const DEFAULT_LIMIT: usize = 5;

    /// The limit, checked: `options.limit` named when it is no whole number in range.
    pub fn limit(&self) -> Result<usize, Error> {
        match self.limit {
            None => Ok(Self::DEFAULT_LIMIT),
            Some(n) if n.fract() == 0.0 && (1.0..=Self::MAX_LIMIT as f64).contains(&n) => Ok(n as usize),
            Some(n) => Err(Error::InvalidArgument {
                argument: "options.limit".to_owned(),
                expected: format!("a whole number from 1 to {}, got {n}", Self::MAX_LIMIT),
            }),
        }
    }
}

/// Options of `compactor.import(data, options)`.
#[derive(Clone, Debug, Default, Deserialize, TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(optional_fields)]
pub struct ImportOptions {
    /// The id to import under. Default: the id it was exported with.
    pub id: Option<String>,
    /// Replace a conversation the store holds under that id (it is deleted first). Default
    /// false: importing over one is a `CONVERSATION_EXISTS` error.
    pub overwrite: Option<bool>,
}

/// The only summarizer named by a string: `"extractive"` (a function is the other kind,
/// which only the JavaScript face can take).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extractive {
    /// The built-in extractive summary.
    Extractive,
}

impl<'de> Deserialize<'de> for Extractive {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Name;
        impl Visitor<'_> for Name {
            type Value = Extractive;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a function or \"extractive\"")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Extractive, E> {
                match v {
                    "extractive" => Ok(Extractive::Extractive),
                    _ => Err(E::invalid_value(de::Unexpected::Str(v), &self)),
                }
            }
        }
        d.deserialize_str(Name)
    }
}

/// An option that is given must have a value: `null` is an error like any other wrong type
/// (`options.thresholdRatio: expected a number, got null`), not a silent default. (The state,
/// which a first turn passes as `null`, and the two prompts take `null` as absent.)
pub(crate) fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// A message format by its name (`"anthropic"`): read here, once, so the core gets the enum.
/// A name it does not know is `UNKNOWN_FORMAT` (through [`tracked::unknown_name`]).
fn format_name<'de, D: Deserializer<'de>>(d: D) -> Result<Option<MessageFormat>, D::Error> {
    let name = String::deserialize(d)?;
    match MessageFormat::from_name(&name) {
        Ok(format) => Ok(Some(format)),
        Err(_) => Err(tracked::unknown_name(tracked::Named::Format, name)),
    }
}

/// An encoding by its name (`"o200k_base"`), read once like [`format_name`].
fn encoding_name<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Encoding>, D::Error> {
    let name = String::deserialize(d)?;
    match Encoding::from_name(&name) {
        Ok(encoding) => Ok(Some(encoding)),
        Err(_) => Err(tracked::unknown_name(tracked::Named::Encoding, name)),
    }
}

/// A share in (0, 1].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ratio(pub f64);

/// A whole number from `MIN` to `MAX`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Int<const MIN: usize, const MAX: usize = { usize::MAX }>(pub usize);

/// A checked number is a `number` in TypeScript.
macro_rules! ts_number {
    ($($t:tt)*) => {
        impl $($t)* {
            type WithoutGenerics = Self;
            type OptionInnerType = Self;
            fn name(_: &ts_rs::Config) -> String {
                "number".into()
            }
            fn inline(_: &ts_rs::Config) -> String {
                "number".into()
            }
        }
    };
}
ts_number!(TS for Ratio);
ts_number!(<const MIN: usize, const MAX: usize> TS for Int<MIN, MAX>);

/// Reads any number, then checks it with `check` (which says what was expected); the second
/// field is what a value of another type is told was expected.
struct Number<T>(fn(f64) -> Result<T, String>, String);

impl<T> Visitor<'_> for Number<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.1)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
        (self.0)(v).map_err(|reason| tracked::out_of_range(format!("expected {reason}, got {v}")))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        self.visit_f64(v as f64)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        self.visit_f64(v as f64)
    }
}

impl<'de> Deserialize<'de> for Ratio {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_f64(Number(
            |v| {
                (v > 0.0 && v <= 1.0)
                    .then_some(Ratio(v))
                    .ok_or_else(|| "a number in (0, 1]".into())
            },
            "a number".into(),
        ))
    }
}

impl<'de, const MIN: usize, const MAX: usize> Deserialize<'de> for Int<MIN, MAX> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_f64(Number(
            |v| {
                let what = || match (MIN, MAX) {
                    (_, usize::MAX) if v <= MAX as f64 => format!("an integer of at least {MIN}"),
                    _ => format!("an integer from {MIN} to {MAX}"),
                };
                if v.fract() != 0.0 {
                    return Err(what());
                }
                if v < MIN as f64 || v > MAX as f64 {
                    return Err(what());
                }
                Ok(Int(v as usize))
            },
            Self::range(),
        ))
    }
}

impl<const MIN: usize, const MAX: usize> Int<MIN, MAX> {
    /// The value.
    pub fn get(self) -> usize {
        self.0
    }

    /// The integers it takes, in words.
    fn range() -> String {
        match MAX {
            usize::MAX => format!("an integer of at least {MIN}"),
            _ => format!("an integer from {MIN} to {MAX}"),
        }
    }
}

/// A state key: a string of at least 16 characters (a short one is no secret).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateKey(pub String);

impl<'de> Deserialize<'de> for StateKey {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let key = String::deserialize(d)?;
        match key.chars().count() {
            n if n >= 16 => Ok(StateKey(key)),
            n => Err(tracked::out_of_range(format!(
                "expected a secret of at least 16 characters, got {n}"
            ))),
        }
    }
}

/// Reads options of type `T` from JSON text: `argument` names the object in errors
/// (`options`). A bad value is an error at its path: `INVALID_ARGUMENT` for the wrong type
/// or an unknown key (an [`Error::UnknownOption`], with the known keys), `OUT_OF_RANGE` for
/// a value out of range, `INVALID_STATE` for a bad `state`.
pub fn parse<T: DeserializeOwned>(argument: &str, json: &str) -> Result<T, Error> {
    read(json).map_err(|p| error_at(argument, p))
}

/// [`parse`] of a ctxfold state: every problem is `INVALID_STATE` at its path.
pub fn parse_state<T: DeserializeOwned>(argument: &str, json: &str) -> Result<T, Error> {
    read(json).map_err(|p| state_error(argument, &p))
}

/// Reads `T` from `json`, its problem (if any) at its path.
fn read<T: DeserializeOwned>(json: &str) -> Result<T, Problem> {
    let mut de = serde_json::Deserializer::from_str(json);
    // CompactState chunks can nest their summarizer's usage deeply; JSON from JS is bounded there.
    de.disable_recursion_limit();
    let value = tracked::read::<T, _>(&mut de)?;
    de.end().map_err(|e| Problem {
        path: Path::default(),
        what: What::Other {
            message: e.to_string(),
        },
    })?;
    Ok(value)
}

/// [`parse`] of a JSON value (native callers: tests, benches).
pub fn from_value<T: DeserializeOwned>(argument: &str, value: &serde_json::Value) -> Result<T, Error> {
    match value {
        serde_json::Value::Null => parse(argument, "{}"),
        serde_json::Value::Object(_) => parse(argument, &value.to_string()),
        other => Err(Error::InvalidArgument {
            argument: argument.into(),
            expected: format!("an options object, got {}", crate::messages::json_kind(other)),
        }),
    }
}

/// The core error for a problem found reading `argument`, decided by the problem's kind and
/// path (never by its words).
pub fn error_at(argument: &str, problem: Problem) -> Error {
    if let What::UnknownName { kind, name } = &problem.what {
        return match kind {
            tracked::Named::Format => MessageFormat::unknown(name),
            tracked::Named::Encoding => Error::UnknownEncoding { name: name.clone() },
        };
    }
    if problem.path.first_key() == Some("state") {
        return state_error(argument, &problem);
    }
    let at = problem.path.under(argument);
    match problem.what {
        What::OutOfRange { reason } => Error::OutOfRange { argument: at, reason },
        What::UnknownField { known, .. } => Error::UnknownOption {
            argument: at,
            known: known.iter().map(|k| (*k).to_owned()).collect(),
        },
        what => Error::InvalidArgument {
            argument: at,
            expected: what.expected(),
        },
    }
}

/// `INVALID_STATE` for a problem in a state.
fn state_error(argument: &str, problem: &Problem) -> Error {
    let reason = match &problem.what {
        What::OutOfRange { reason } | What::Other { message: reason } => reason.clone(),
        what => format!("expected {}", what.expected()),
    };
    Error::InvalidState {
        path: problem.path.under(argument),
        reason,
    }
}

#[cfg(test)]
mod tests;
