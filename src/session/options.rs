//! The options of a `Compactor`, declared once: [`CompactorOptions`] is `compact()`'s
//! options ([`CompactOptions`], less [`REFUSED_OPTIONS`]) and the Compactor's own
//! ([`CompactorOwnOptions`]), read in one pass by the path-tracking reader
//! ([`crate::options::tracked`]), so an error names its key's path and an unknown key lists
//! every option a Compactor knows. The values only JavaScript has ([`SET_ASIDE`]) are named
//! here and skipped when reading; the TypeScript of both parts is generated from these types.

use std::fmt;
use std::sync::OnceLock;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::guards::GuardOptions;
use super::prepare_ahead::PrepareAheadOptions;
use super::when_cold::CompactWhenColdOptions;
use super::{Sessions, DEFAULT_ATTEMPTS, DEFAULT_CACHED, REFUSED_OPTIONS};
use crate::options::tracked::{self, field_names};
use crate::options::{present, CompactOptions, Int};
use crate::Error;

/// Options of a `Compactor` that only JavaScript can hold (a store object, event handlers, a
/// function): the core skips them when reading, and names them among the known options. The
/// summarizer, which may be a function too, is one of `compact()`'s ([`CompactOptions`]).
pub const SET_ASIDE: [&str; 3] = ["store", "on", "waitUntil"];

/// How long a store call may take unless told otherwise, in milliseconds.
pub const DEFAULT_STORE_TIMEOUT_MS: u32 = 30_000;

/// The options of a `Compactor` beyond `compact()`'s.
#[derive(Clone, Debug, Default, Deserialize, TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(optional_fields)]
pub struct CompactorOwnOptions {
    /// How many times a call loads again and redoes its work after a `STALE_WRITE` (another
    /// tab or isolate wrote first). From 0 to 100. Default 4.
    #[serde(default, deserialize_with = "present")]
    pub write_retries: Option<Int<0, 100>>,
    /// How many conversations' histories are kept in memory, parsed and counted, between
    /// calls; the least recently used go first, and their next call reads the history from
    /// the store again. Each takes memory about five times its history's JSON size: a server
    /// with many long conversations sets this lower. From 1 to 1000000. Default 100.
    #[serde(default, deserialize_with = "present")]
    pub max_cached_conversations: Option<Int<1, 1_000_000>>,
    /// How long a store call may take, in milliseconds: one that gives no answer by then
    /// fails the Compactor's call with `STORE_ERROR`, and the conversation's next call goes on
    /// (a write that lands later is caught by the version check). From 1 to 2147483647.
    /// Default 30000.
    #[serde(default, deserialize_with = "present")]
    pub store_timeout_ms: Option<Int<1, 2_147_483_647>>,
    /// The guards (idempotency, back-off, circuit breaker): their knobs, each with its
    /// default; `0` turns a guard off where its doc says so.
    #[serde(default, deserialize_with = "present")]
    pub guards: Option<GuardOptions>,
    /// Makes the summary the next compaction needs in the background, after a `commit` that
    /// leaves the input past a soft threshold (default 0.6 of the window), so the turn that
    /// passes the compaction threshold does not wait for the summarizer. A prepared summary
    /// is used only for the very request it answers (the same span, instructions and cap):
    /// it changes when the summary is made, never what is sent. `true`: the defaults.
    /// Default: off.
    #[ts(optional, type = "boolean | PrepareAheadOptions")]
    #[serde(default, deserialize_with = "present")]
    pub prepare_ahead: Option<PrepareAhead>,
    /// Compacts early when the provider's prompt cache is cold anyway: a `prepare` that comes
    /// `ttlSeconds` or more after the conversation's last call (the cache's lifetime: 300 for
    /// Anthropic's default) compacts at `thresholdRatio` (0.6) of the window, since its whole
    /// prefix is paid again either way. The outcome's and the record's `guards.coldCache` say
    /// so. Default: off.
    #[serde(default, deserialize_with = "present")]
    pub compact_when_cold: Option<CompactWhenColdOptions>,
}

/// `prepareAhead`: `true` (on, with the defaults), `false` (off) or its options (on).
#[derive(Clone, Debug)]
pub enum PrepareAhead {
    /// On with the defaults, or off.
    On(bool),
    /// On, with these options.
    With(PrepareAheadOptions),
}

impl PrepareAhead {
    /// Its options when it is on.
    pub fn options(&self) -> Option<PrepareAheadOptions> {
        match self {
            PrepareAhead::On(on) => on.then(PrepareAheadOptions::default),
            PrepareAhead::With(o) => Some(o.clone()),
        }
    }
}

impl<'de> Deserialize<'de> for PrepareAhead {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Either;
        impl<'de> Visitor<'de> for Either {
            type Value = PrepareAhead;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a boolean or { threshold }")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<PrepareAhead, E> {
                Ok(PrepareAhead::On(v))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<PrepareAhead, A::Error> {
                let o = PrepareAheadOptions::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(PrepareAhead::With(o))
            }
        }
        d.deserialize_any(Either)
    }
}

/// Everything a `Compactor`'s core reads from its options: `compact()`'s and its own. Its
/// TypeScript is `Omit<CompactOptions, "state" | "manual" | "stateKey"> & CompactorOwnOptions
/// & CompactorJsOptions`, the last the values only JavaScript holds ([`SET_ASIDE`]), written
/// by hand in the face.
#[derive(Clone, Debug, Default)]
pub struct CompactorOptions {
    /// `compact()`'s options (a Compactor refuses [`REFUSED_OPTIONS`]: [`Sessions::new`]).
    pub compact: CompactOptions,
    /// The Compactor's own.
    pub own: CompactorOwnOptions,
}

/// Every option a `Compactor` knows, sorted: `compact()`'s less the refused ones, its own
/// and the set-aside ones.
pub fn known_options() -> &'static [&'static str] {
    static KNOWN: OnceLock<Vec<&'static str>> = OnceLock::new();
    KNOWN.get_or_init(|| {
        let mut known: Vec<&'static str> = field_names::<CompactOptions>()
            .iter()
            .filter(|k| !REFUSED_OPTIONS.contains(k))
            .chain(field_names::<CompactorOwnOptions>())
            .chain(SET_ASIDE.iter())
            .copied()
            .collect();
        known.sort_unstable();
        known.dedup();
        known
    })
}

impl<'de> Deserialize<'de> for CompactorOptions {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Options;
        impl<'de> Visitor<'de> for Options {
            type Value = CompactorOptions;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an options object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<CompactorOptions, A::Error> {
                let own_keys = field_names::<CompactorOwnOptions>();
                let compact_keys = field_names::<CompactOptions>();
                let (mut own, mut compact) = (serde_json::Map::new(), serde_json::Map::new());
                while let Some(key) = map.next_key::<String>()? {
                    if SET_ASIDE.contains(&key.as_str()) {
                        map.next_value::<IgnoredAny>()?;
                    } else if own_keys.contains(&key.as_str()) {
                        own.insert(key, map.next_value()?);
                    } else if compact_keys.contains(&key.as_str()) {
                        compact.insert(key, map.next_value()?);
                    } else {
                        return Err(de::Error::unknown_field(&key, known_options()));
                    }
                }
                Ok(CompactorOptions {
                    own: tracked::read_part(serde_json::Value::Object(own))?,
                    compact: tracked::read_part(serde_json::Value::Object(compact))?,
                })
            }
        }
        d.deserialize_map(Options)
    }
}

impl TS for CompactorOptions {
    type WithoutGenerics = Self;
    type OptionInnerType = Self;
    fn name(_: &ts_rs::Config) -> String {
        "CompactorOptions".into()
    }
    fn docs() -> Option<String> {
        Some(
            "/**\n * Options of a `Compactor`: `compact()`'s (without `state`, `manual` and \
             `stateKey`), its own,\n * and the values only JavaScript holds.\n */\n"
                .into(),
        )
    }
    fn decl(cfg: &ts_rs::Config) -> String {
        let refused: Vec<String> = REFUSED_OPTIONS.iter().map(|k| format!("\"{k}\"")).collect();
        format!(
            "type {} = Omit<CompactOptions, {}> & CompactorOwnOptions & CompactorJsOptions;",
            Self::name(cfg),
            refused.join(" | ")
        )
    }
    fn decl_concrete(cfg: &ts_rs::Config) -> String {
        Self::decl(cfg)
    }
    fn inline(cfg: &ts_rs::Config) -> String {
        Self::name(cfg)
    }
}

/// What the face needs of a `Compactor`'s options to await its calls, defaults applied
/// (`CompactorCore`'s `settings`; declared for the package's own JavaScript only).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CompactorSettings {
    /// Writes tried before `STALE_WRITE` (`writeRetries` + 1).
    pub attempts: u32,
    /// Conversations whose histories are kept parsed.
    pub max_cached_conversations: usize,
    /// A store call's deadline, in milliseconds.
    pub store_timeout_ms: u32,
    /// Whether `prepareAhead` is on.
    pub prepare_ahead: bool,
    /// The keys that are not `compact()`'s options: the Compactor's own and the set-aside ones.
    pub own_keys: Vec<&'static str>,
}

impl CompactorOptions {
    /// What the face needs to await calls, defaults applied.
    pub fn settings(&self) -> CompactorSettings {
        let o = &self.own;
        CompactorSettings {
            attempts: o.write_retries.map_or(DEFAULT_ATTEMPTS, |n| n.get() as u32 + 1),
            max_cached_conversations: o.max_cached_conversations.map_or(DEFAULT_CACHED, Int::get),
            store_timeout_ms: o
                .store_timeout_ms
                .map_or(DEFAULT_STORE_TIMEOUT_MS, |n| n.get() as u32),
            prepare_ahead: o.prepare_ahead.as_ref().and_then(PrepareAhead::options).is_some(),
            own_keys: field_names::<CompactorOwnOptions>()
                .iter()
                .chain(SET_ASIDE.iter())
                .copied()
                .collect(),
        }
    }
}

impl Sessions {
    /// A compactor's core with all its options (refused ones are errors: [`Sessions::new`]).
    /// `seed` makes the epochs of new conversations.
    pub fn with_options(options: CompactorOptions, seed: u64) -> Result<Self, Error> {
        let settings = options.settings();
        let own = options.own;
        let ahead = own.prepare_ahead.as_ref().and_then(PrepareAhead::options);
        Ok(Sessions::new(options.compact, settings.attempts, seed)?
            .with_guards(&own.guards.unwrap_or_default())
            .with_ahead(ahead.as_ref())
            .with_cold(own.compact_when_cold.as_ref())
            .with_cache_limit(settings.max_cached_conversations))
    }
}

#[cfg(test)]
mod tests;
