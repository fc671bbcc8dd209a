//! Compaction options: every knob, its default, the presets, and validation.
//!
//! Options arrive as one camelCase object. Unknown keys and out-of-range values are
//! errors naming the key (`options.thresholdRatio: expected a number in (0, 1], got 1.5`).
//! A preset (`off | conservative | aggressive`, seed 001's table) sets several knobs at
//! once; keys given alongside it win.
//!
//! | knob | default | conservative | aggressive |
//! |---|---|---|---|
//! | `thresholdRatio` | 1 | 0.75 | 0.6 |
//! | `targetRatio` | 0.55 | 0.5 | 0.25 |
//! | `bufferTurns` | 4 | 4 | 2 |
//! | `bufferMaxRatio` | none | 0.1 | 0.2 |
//! | `toolOutputMaxBytes` | 4096 | 4096 | 1024 |
//!
//! Seed 001's `keep_recent_pct` becomes `bufferMaxRatio` and its `target_tokens` (half
//! the window, a quarter) `targetRatio`; its two modes are the presets. The default preset
//! is ours, by measurement (`bench/compaction`): compacting only when the input would not
//! fit the input budget (the threshold is capped there) and landing at 55 % of it keeps
//! more answers in the input than LangChain's and the AI SDK's trimming while sending less
//! uncached input than either (seed 001's 0.75 / 0.1 kept 45 % of the answers at 8k
//! against their 55.7 %).

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// The default prune trigger: a share of the window (see `bench/compaction`).
pub const PRUNE_RATIO: f64 = 0.6;

/// A compaction reserves at least 1/`LEDGER_SHARE` of its target for the identifier ledger.
pub const LEDGER_SHARE: usize = 8;

/// The default share of the input budget a compaction lands at (see `bench/compaction`).
pub const TARGET_RATIO: f64 = 0.55;

/// A named set of defaults.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum Preset {
    /// Never compact: the input comes back unchanged (still counted and checked); over the
    /// input budget it is `CONTEXT_OVERFLOW`, or with `overflow: "truncate"` its largest
    /// messages are cut to fit.
    Off,
    /// The defaults below: compact when the input would not fit, land at 55 % of the budget.
    #[default]
    Default,
    /// Seed 001's conservative mode: compact at 75 % of the window, land at half the
    /// budget, a verbatim tail of at most 10 % of the window.
    Conservative,
    /// Seed 001's aggressive mode: compact at 60 % of the window, land at a quarter of the
    /// budget, keep 2 turns, prune outputs past 1 KB.
    Aggressive,
}

/// How summaries accumulate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum Strategy {
    /// Each compaction adds a chunk; chunks fold into one when they grow past `foldRatio`.
    #[default]
    Additive,
    /// One summary, rewritten each time from the previous one and the newly evicted turns.
    Rolling,
}

/// What a failed summary falls back to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum Fallback {
    /// A deterministic extractive summary in the same schema, with the identifier ledger.
    #[default]
    Extractive,
    /// The static marker `[Earlier messages truncated]`.
    Marker,
    /// Throw.
    Error,
}

/// The role the summary message is given.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum SummaryRole {
    /// An assistant message: the least authority a message can have (a second system
    /// message is dropped by some validators). When it would be the first non-system
    /// message, it goes out as a user message (Anthropic on Bedrock and Vertex, Gemini and
    /// strict chat templates want a user message first).
    #[default]
    Assistant,
    /// A user message.
    User,
    /// A system message (formats without a system role inside `messages` use user). It
    /// gives text from users, tools and documents a system message's authority; its
    /// framing line still says it is data.
    System,
}

/// What to do with one tool's old outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum ToolPolicy {
    /// Never prune.
    Keep,
    /// Keep the start and the end: `head ...truncated N bytes... tail`.
    Truncate,
    /// Replace with one line naming the tool.
    Stub,
    /// Never prune; when the turn is evicted, the summarizer gets the whole output (other
    /// outputs reach it elided to their start and end).
    Summarize,
}

/// What to do when even the head and the newest user message do not fit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum Overflow {
    /// Throw `CONTEXT_OVERFLOW` with the tokens needed and available.
    #[default]
    Error,
    /// Truncate the single largest message with a marker until it fits.
    Truncate,
}

/// How many tokens one recall gives back, its framing included, unless `recall.maxTokens`
/// says otherwise: a few passages of a long tool output, or several short messages whole.
pub const RECALL_MAX_TOKENS: usize = 1000;

/// Resolved options: every knob has a value.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Config {
    /// The preset the defaults came from.
    pub preset: Preset,
    /// Compact when the input passes `max(tokenFloor, thresholdRatio x contextWindow)`.
    pub threshold_ratio: f64,
    /// Never compact below this many tokens.
    pub token_floor: usize,
    /// The model's context window (from the registry unless overridden).
    pub context_window: Option<usize>,
    /// Tokens kept free for the reply.
    pub reserved_output_tokens: Option<usize>,
    /// After a compaction the input lands near this share of the input budget: the head,
    /// the summaries and their identifier ledgers, and as many recent turns as fit.
    pub target_ratio: f64,
    /// Recent turns kept verbatim whatever the target (a floor), degrading to fewer when
    /// they do not fit the budget.
    pub buffer_turns: usize,
    /// The verbatim tail never takes more than this share of the window (none: the target
    /// decides).
    pub buffer_max_ratio: Option<f64>,
    /// Alternative to `bufferTurns`: keep as many recent turns as fit this many tokens.
    pub keep_recent_tokens: Option<usize>,
    /// Pin the first user turn (the task) in the head, once a later turn starts (until then
    /// it is the newest user message, kept after the summary).
    pub pin_first_user_turn: bool,
    /// Tool outputs larger than this (outside the tail) are pruned.
    pub tool_output_max_bytes: usize,
    /// Pruning runs when tool output tokens past the prune boundary exceed this.
    pub prune_threshold_tokens: Option<usize>,
    /// The prune boundary moves only when the input passes this share of the window.
    pub prune_ratio: f64,
    /// Policy for tools not in `toolPolicies`.
    pub default_tool_policy: ToolPolicy,
    /// Per tool name.
    pub tool_policies: Vec<(String, ToolPolicy)>,
    /// Hard cap on one summary chunk's tokens (default: 1/16 of the window, from 512 to
    /// 4096, at most a quarter of the input budget). The prompt asks a model for about 200 words whatever the cap; the extractive
    /// summary, which cannot paraphrase, fills it: measured in bench/compaction, a 2048-token
    /// cap at a 32k window keeps 33.9 % of the answers to later questions about evicted
    /// turns where 512 kept 18.5 %, for 1.5 % more input tokens.
    pub summary_max_tokens: Option<usize>,
    /// Budget for the identifier ledger line appended to a summary. Default: the room the
    /// summaries leave within `targetRatio` once they are made, at least 1/8 of the target
    /// and 1/50 of the window (160 tokens or more), which is what a compaction reserves for
    /// it. Measured in bench/compaction at 8k (with `foldRatio` 0.3): a fixed 1/50 kept
    /// 67 % of the evicted identifiers, the room with the 1/8 reserve 92 %.
    pub ledger_max_tokens: Option<usize>,
    /// Summarizer deadline in milliseconds.
    pub summarizer_timeout_ms: u64,
    /// Largest input one summarizer call gets; larger middles are split into chunks.
    pub summarizer_input_tokens: Option<usize>,
    /// The summary message's role.
    pub summary_role: SummaryRole,
    /// Keep user and assistant messages alternating: a summary that would sit next to a
    /// message of its own side goes at the start of that message instead (for providers
    /// and chat templates that reject two user or two assistant messages in a row).
    pub alternate_roles: bool,
    /// Keep identifiers a summary invented in its text (they are reported either way).
    pub keep_unsupported_ids: bool,
    /// The secret that signs the state (`stateKey`).
    #[serde(skip)]
    pub state_key: Option<String>,
    /// `additive` or `rolling`.
    pub strategy: Strategy,
    /// Chunks fold into one when together they pass this share of the window, scaled down
    /// when the threshold is below the input budget ([`crate::compact::Budget::fold_base`]) (measured:
    /// with ledgers that take the free room, 0.15 folded often and each fold lost
    /// identifiers; 0.3 kept 92 % of them at 8k against 79 %).
    pub fold_ratio: f64,
    /// What a failed summary falls back to.
    pub fallback: Fallback,
    /// What to do when nothing but the head and the newest user message fits.
    pub overflow: Overflow,
    /// A domain prompt added to the summarizer's instructions.
    pub summary_prompt: Option<String>,
    /// Per-call instructions (e.g. from `/compact focus on the API design`).
    pub instructions: Option<String>,
    /// The model has the recall tool: the summary says so in one line.
    pub recall: bool,
    /// The most tokens one recall gives back.
    pub recall_max_tokens: usize,
}

impl Config {
    /// The values of a preset.
    pub fn preset(preset: Preset) -> Self {
        let mut c = Config {
            preset,
            threshold_ratio: 1.0,
            token_floor: 4096,
            context_window: None,
            reserved_output_tokens: None,
            target_ratio: TARGET_RATIO,
            buffer_turns: 4,
            buffer_max_ratio: None,
            keep_recent_tokens: None,
            pin_first_user_turn: false,
            tool_output_max_bytes: 4096,
            prune_threshold_tokens: None,
            prune_ratio: PRUNE_RATIO,
            default_tool_policy: ToolPolicy::Truncate,
            tool_policies: Vec::new(),
            summary_max_tokens: None,
            ledger_max_tokens: None,
            summarizer_timeout_ms: 25_000,
            summarizer_input_tokens: None,
            summary_role: SummaryRole::Assistant,
            alternate_roles: false,
            keep_unsupported_ids: false,
            state_key: None,
            strategy: Strategy::Additive,
            fold_ratio: 0.3,
            fallback: Fallback::Extractive,
            overflow: Overflow::Error,
            summary_prompt: None,
            instructions: None,
            recall: false,
            recall_max_tokens: RECALL_MAX_TOKENS,
        };
        match preset {
            Preset::Off | Preset::Default => {}
            Preset::Conservative => {
                c.threshold_ratio = 0.75;
                c.target_ratio = 0.5;
                c.buffer_max_ratio = Some(0.1);
            }
            Preset::Aggressive => {
                c.threshold_ratio = 0.6;
                c.target_ratio = 0.25;
                c.buffer_turns = 2;
                c.buffer_max_ratio = Some(0.2);
                c.tool_output_max_bytes = 1024;
            }
        }
        c
    }

    /// The cap on one summary chunk for a window and the room a compaction works within
    /// ([`crate::compact::Budget::room`]: the threshold, at most the input budget): 1/16 of the
    /// window, 512 to 4096, and at most a quarter of that room (at least 64), so that in a
    /// small window, or under a low threshold, a summary leaves the newest turns their room.
    pub fn summary_tokens(&self, window: usize, room: usize) -> usize {
        let share = (room / 4).max(64);
        self.summary_max_tokens
            .unwrap_or((window / 16).clamp(512, 4096).min(share))
    }

    /// The ledger budget a compaction reserves for a window and its room (with
    /// `ledgerMaxTokens` unset, a ledger may then grow into the room the target leaves:
    /// [`Config::ledger_grows`]): 1/50 of the window, 160 tokens, 1/8 of the target, whichever
    /// is most, but at most 1/8 of the room (at least 32).
    pub fn ledger_tokens(&self, window: usize, room: usize) -> usize {
        let target = (self.target_ratio * room as f64) as usize;
        let most = (room / 8).max(32);
        self.ledger_max_tokens
            .unwrap_or((window / 50).max(160).max(target / LEDGER_SHARE).min(most))
    }

    /// Whether a ledger takes the room left within the target (no fixed `ledgerMaxTokens`).
    pub fn ledger_grows(&self) -> bool {
        self.ledger_max_tokens.is_none()
    }

    /// The policy for a tool's outputs.
    pub fn tool_policy(&self, tool: &str) -> ToolPolicy {
        self.tool_policies
            .iter()
            .find(|(n, _)| n == tool)
            .map_or(self.default_tool_policy, |(_, p)| *p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_and_presets() {
        let c = Config::from_json(&json!({})).unwrap();
        assert_eq!(
            (
                c.threshold_ratio,
                c.token_floor,
                c.buffer_turns,
                c.buffer_max_ratio
            ),
            (1.0, 4096, 4, None)
        );
        assert_eq!(c.summarizer_timeout_ms, 25_000);
        // The summary cap and the ledger scale with the window, within bounds.
        let caps = [4096, 8192, 32_768, 131_072, 1_000_000].map(|w| c.summary_tokens(w, w - w / 16));
        assert_eq!(caps, [512, 512, 2048, 4096, 4096]);
        // In a small window, at most a quarter of the input budget.
        assert_eq!(
            [c.summary_tokens(1200, 600), c.summary_tokens(300, 150)],
            [150, 64]
        );
        assert_eq!(c.ledger_tokens(1200, 600), 75);
        // The reserved ledger: 1/8 of the target (0.55 of the input budget), at least 1/50
        // of the window and 160 tokens; a fixed ledgerMaxTokens is what it says.
        assert_eq!(c.ledger_tokens(32_768, 30_720), 30_720 * 55 / 100 / 8);
        assert_eq!(c.ledger_tokens(4096, 2048), 160);
        let ledger = Config::from_json(&json!({"ledgerMaxTokens": 300})).unwrap();
        assert_eq!(
            (ledger.ledger_tokens(131_072, 122_880), ledger.ledger_grows()),
            (300, false)
        );
        let fixed = Config::from_json(&json!({"summaryMaxTokens": 300})).unwrap();
        assert_eq!(fixed.summary_tokens(131_072, 122_880), 300);
        let a = Config::from_json(&json!({"preset": "aggressive"})).unwrap();
        assert_eq!(
            (a.threshold_ratio, a.tool_output_max_bytes, a.buffer_turns),
            (0.6, 1024, 2)
        );
        let o = Config::from_json(&json!({"preset": "aggressive", "thresholdRatio": 0.9})).unwrap();
        assert_eq!(o.threshold_ratio, 0.9);
        assert_eq!(o.tool_output_max_bytes, 1024);
    }

    #[test]
    fn tool_policies() {
        let c = Config::from_json(&json!({"toolPolicies": {"read_file": "stub", "search": "keep"}})).unwrap();
        assert_eq!(c.tool_policy("read_file"), ToolPolicy::Stub);
        assert_eq!(c.tool_policy("search"), ToolPolicy::Keep);
        assert_eq!(c.tool_policy("bash"), ToolPolicy::Truncate);
    }
}
