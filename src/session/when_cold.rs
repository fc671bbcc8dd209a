//! `compactWhenCold`: a provider's prompt cache forgets a prefix left unused for its
//! lifetime (Anthropic: 5 minutes, or an hour; OpenAI: minutes). A conversation coming back
//! after longer pays for its whole input again whatever ctxfold does, so a compaction then
//! costs no cache: the threshold is lowered for that turn, and the turns after it start from
//! a smaller input with a warm cache.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::options::{present, Int, Ratio};

/// The threshold while the cache is cold, unless told otherwise: a share of the window.
pub const COLD_THRESHOLD: f64 = 0.6;

/// `compactWhenCold` of a `Compactor`.
#[derive(Clone, Debug, Deserialize, TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CompactWhenColdOptions {
    /// The provider's prompt-cache lifetime in seconds (Anthropic's default is 300): a
    /// `prepare` this long or longer after the conversation's last call finds it cold.
    pub ttl_seconds: Int<1, 604_800>,
    /// The compaction threshold while the cache is cold, a share of the window (it only
    /// ever lowers the threshold). Default 0.6.
    #[serde(default, deserialize_with = "present")]
    #[ts(optional)]
    pub threshold_ratio: Option<Ratio>,
}

/// [`CompactWhenColdOptions`] with the default filled in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cold {
    /// Seconds.
    pub ttl: f64,
    /// A share of the window.
    pub ratio: f64,
}

impl From<&CompactWhenColdOptions> for Cold {
    fn from(o: &CompactWhenColdOptions) -> Self {
        Cold {
            ttl: o.ttl_seconds.0 as f64,
            ratio: o.threshold_ratio.map_or(COLD_THRESHOLD, |r| r.0),
        }
    }
}

/// A `prepare` that found the provider's cache cold: the threshold it compacted at.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ColdCacheNote {
    /// Seconds since the conversation's last call.
    pub idle_seconds: f64,
    /// The threshold in force for this call (tokens).
    pub threshold: usize,
}
