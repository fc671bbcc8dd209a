//! The state a stateless caller passes back each turn.
//!
//! Small and JSON-serialisable: the summary chunks (their text, and what they cover),
//! where the verbatim part starts, where pruning stops, and which user message is pinned.
//! Each position carries a check, a running hash of every message before it, so state
//! that does not belong to the history it comes with (an earlier message edited, the
//! history truncated, another conversation) is noticed and discarded instead of silently
//! misapplied.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// The current version of [`CompactState`]; other versions are discarded.
pub const VERSION: u32 = 1;

/// Why a compaction ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum Trigger {
    /// The input passed the threshold.
    Threshold,
    /// The caller asked (`manual: true`, `/compact`).
    Manual,
}

/// What made a summary chunk: a compaction, or a fold of earlier chunks into one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum ChunkTrigger {
    /// A compaction past the threshold.
    Threshold,
    /// A manual compaction.
    Manual,
    /// Earlier chunks folded into one.
    Fold,
}

impl From<Trigger> for ChunkTrigger {
    fn from(t: Trigger) -> Self {
        match t {
            Trigger::Threshold => ChunkTrigger::Threshold,
            Trigger::Manual => ChunkTrigger::Manual,
        }
    }
}

/// A summary made by one compaction.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields)]
pub struct SummaryChunk {
    /// 1 for the first compaction of a conversation, then counting up (a fold takes the
    /// next number).
    pub generation: u32,
    /// The summary text, ledger included.
    pub text: String,
    /// Index of the last message this chunk covers.
    pub through: usize,
    /// Its tokens.
    pub tokens: usize,
    /// When it was made (ISO 8601), if the caller's clock was known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
    /// The summarizer's model, if it said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// `threshold`, `manual` or `fold`.
    pub trigger: ChunkTrigger,
    /// The summarizer's usage report, as it gave it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(type = "unknown")]
    pub usage: Option<serde_json::Value>,
    /// Identifiers of the evicted messages that the chunk keeps.
    #[serde(default)]
    #[ts(optional = false)]
    pub kept_ids: Vec<String>,
    /// Identifiers of the evicted messages that did not fit.
    #[serde(default)]
    #[ts(optional = false)]
    pub lost_ids: Vec<String>,
    /// `null`, or the fallback used and why: `{ kind, reason }`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<FallbackUsed>,
}

/// What stood in for a summary the summarizer did not give.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum FallbackKind {
    /// The built-in extractive summary.
    Extractive,
    /// The static marker `[Earlier messages truncated]`.
    Marker,
}

/// What a fallback replaced, and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct FallbackUsed {
    /// `extractive` or `marker`.
    pub kind: FallbackKind,
    /// Why the summarizer's reply was not used.
    pub reason: String,
}

/// A step whose tool outputs were cut in place to fit (`CompactState::step_cuts`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct StepCut {
    /// The step's first message.
    pub step: usize,
    /// Just after its last message (the check covers the step).
    pub end: StateMark,
    /// The tokens the step was cut to.
    pub room: usize,
}

/// A position in the history, with a check on the messages before it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, TS)]
pub struct StateMark {
    /// A message index.
    pub index: usize,
    /// A running hash of messages `0..index`, in hex.
    #[serde(with = "hex")]
    #[ts(type = "string")]
    pub check: u64,
}

impl StateMark {
    /// A mark at `index`, given the messages' digests ([`Conversation::prefix_digests`]).
    ///
    /// [`Conversation::prefix_digests`]: crate::messages::Conversation::prefix_digests
    pub fn at(digests: &[u64], index: usize) -> Self {
        StateMark {
            index,
            check: digests[index],
        }
    }

    /// Whether this mark still fits the messages these digests are of.
    pub fn holds(&self, digests: &[u64]) -> bool {
        self.index < digests.len() && digests[self.index] == self.check
    }
}

mod hex {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{v:016x}"))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        let s = String::deserialize(d)?;
        u64::from_str_radix(&s, 16).map_err(serde::de::Error::custom)
    }
}

/// What to pass back as `options.state` next turn: small, JSON-serialisable.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CompactState {
    /// [`VERSION`].
    pub version: u32,
    /// The summaries, oldest first.
    pub chunks: Vec<SummaryChunk>,
    /// Messages from here on are sent verbatim (pruned where `pruneBoundary` says).
    pub boundary: Option<StateMark>,
    /// Tool outputs before this are pruned.
    pub prune_boundary: Option<StateMark>,
    /// Just after the user message kept verbatim although it lies before `boundary` (the
    /// newest user message, when its own turn had to be split).
    pub pinned: Option<StateMark>,
    /// The steps whose tool outputs earlier turns cut to fit (each the newest step then),
    /// oldest first: each is cut alike while it is sent, so the prefix a provider caches
    /// stays byte-identical. A state written before there could be several, with one
    /// `stepCut`, reads as a list of that one.
    #[serde(
        default,
        alias = "stepCut",
        deserialize_with = "one_or_many",
        skip_serializing_if = "Vec::is_empty"
    )]
    #[ts(as = "Option<Vec<StepCut>>", optional)]
    pub step_cuts: Vec<StepCut>,
    /// With `stateKey`: the HMAC-SHA256 of the chunks' texts and the marks, in hex. A state
    /// that comes back without it, or with one that does not match, is discarded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub signature: Option<String>,
}

/// `stepCuts` as a list, or the one `stepCut` of a state written before it was one.
fn one_or_many<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<StepCut>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        Many(Vec<StepCut>),
        One(StepCut),
    }
    Ok(match Option::<OneOrMany>::deserialize(d)? {
        None => Vec::new(),
        Some(OneOrMany::Many(cuts)) => cuts,
        Some(OneOrMany::One(cut)) => vec![cut],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_with_one_step_cut_reads_as_a_list_of_it() {
        let cut = r#"{"step":12,"end":{"index":14,"check":"00000000000000ff"},"room":300}"#;
        let old: CompactState = serde_json::from_str(&format!(
            r#"{{"version":1,"chunks":[],"boundary":null,"pruneBoundary":null,"pinned":null,"stepCut":{cut}}}"#
        ))
        .unwrap();
        let want = StepCut {
            step: 12,
            end: StateMark {
                index: 14,
                check: 0xff,
            },
            room: 300,
        };
        assert_eq!(old.step_cuts, vec![want]);
        let new = serde_json::to_string(&old).unwrap();
        assert!(new.contains(&format!(r#""stepCuts":[{cut}]"#)), "{new}");
        assert_eq!(serde_json::from_str::<CompactState>(&new).unwrap(), old);
        let none: CompactState = serde_json::from_str(
            r#"{"version":1,"chunks":[],"boundary":null,"pruneBoundary":null,"pinned":null}"#,
        )
        .unwrap();
        assert!(none.step_cuts.is_empty());
        assert!(!serde_json::to_string(&none).unwrap().contains("stepCut"));
    }
}
