//! What a [`Compactor`](super) keeps, and what one of its calls writes: the shapes of the
//! store contract.
//!
//! A store holds, per conversation id, four things: a small [`StoredMeta`] (read on every
//! call), the history (the caller's messages as JSON, append-only, addressed by index), the
//! summaries ([`StoredSummary`], every generation, append-only) and the compaction records
//! ([`CompactionRecord`], append-only). Every change is one [`WriteBatch`], written as one
//! transaction against the version the caller loaded: a store refuses the batch (and writes
//! nothing) with a `STALE_WRITE` error when the stored meta's version is not the one
//! expected. That check is what keeps two tabs or two Worker isolates from both compacting:
//! the second one's write fails, and it loads again.
//!
//! Stores never look inside these values except for `meta.version` (the check), `batch.start`
//! and `batch.messages` (where the messages go), and the `seq` of summaries and records
//! (unique and increasing per conversation: a store may key them by it). Everything else is
//! the core's, versioned by [`META_SCHEMA`].
//!
//! # Schema rules
//!
//! - A field added to the meta reads as a default when absent (`#[serde(default)]`), and
//!   raises [`META_SCHEMA`]. This build reads every schema from 1 up to its own (an older
//!   meta loads with the defaults of what it lacks, and the next write stores it at this
//!   build's schema) and refuses a newer one: a newer ctxfold's meta may hold what this one
//!   would drop on its next write.
//! - Records and summaries are written once and never rewritten: a field added to them is
//!   optional in their TypeScript (`after`, `guards`), absent from those stored before.
//!
//! | schema | added |
//! | --- | --- |
//! | 1 | the first layout |
//! | 2 | `guards`: the guards' state (turns, recent compactions, back-off, breaker) |

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use crate::compact::state::{CompactState, FallbackUsed, Trigger};
use crate::compact::types::{Budget, CompactPlan, CompactReport, ContextStatus, PlanTokens, Timings};
use crate::compact::SummaryChunk;
use crate::config::Strategy;
use crate::messages::MessageFormat;
use crate::session::guards::{GuardNotes, GuardState};

/// The layout of [`StoredMeta`] this build writes (it reads every one from 1 up to it).
pub const META_SCHEMA: u32 = 2;

/// Whether this build reads a meta of `schema`.
pub fn reads_schema(schema: u32) -> bool {
    (1..=META_SCHEMA).contains(&schema)
}

/// The version of a new conversation's first write (its epoch's, from 1 to 2^30): a
/// conversation deleted and made again under the same id does not count its writes from
/// where the old one did, so a writer still holding a version of the old one is refused
/// as stale instead of writing over the new one. (Later writes count up by one.)
pub fn first_version(epoch: &str) -> u32 {
    // FNV-1a over the epoch (16 random hex digits as the core makes it).
    let hash = epoch.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    (hash % (1 << 30)) as u32 + 1
}

/// A conversation's meta: small, read on every call, replaced by every write.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct StoredMeta {
    /// The layout of this object (2; 1 before the guards).
    pub schema: u32,
    /// The conversation's id.
    pub id: String,
    /// Counts the writes: a write is refused unless the stored version is the one it
    /// expects, and its meta has that version plus one (the first write's, [`first_version`]).
    pub version: u32,
    /// Set when the conversation is made (or imported): a conversation deleted and made
    /// again under the same id has another, so no cache of the old one is used for it.
    pub epoch: String,
    /// History items stored (the next one's index).
    pub length: usize,
    /// The messages' format.
    pub format: MessageFormat,
    /// Anthropic's top-level `system`, when the conversation has one.
    #[serde(default)]
    #[ts(type = "unknown")]
    pub system: Option<Value>,
    /// The tool definitions `prepare` was last given, when it was given any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "unknown[]")]
    pub tools: Option<Value>,
    /// The compaction state in force: summary chunks, boundary, prune boundary, pinned
    /// message.
    pub state: CompactState,
    /// What `undo` restores: the state before the latest compaction.
    #[serde(default)]
    pub undo: Option<UndoPoint>,
    /// Compaction records written (the next record's `seq`).
    #[serde(default)]
    pub compactions: u32,
    /// Summaries written (the next summary's `seq`).
    #[serde(default)]
    pub summaries: u32,
    /// The `seq` of every compaction undone.
    #[serde(default)]
    pub undone: Vec<u32>,
    /// The input the latest `prepare` returned, to pair with the usage the next `commit`
    /// reports.
    #[serde(default)]
    pub last_input: Option<LastInput>,
    /// Per model: the provider's reported input against ctxfold's count of it.
    #[serde(default)]
    pub anchors: Vec<UsageAnchor>,
    /// The latest compaction, in short.
    #[serde(default)]
    pub last_compaction: Option<LastCompaction>,
    /// When the conversation was made (ISO 8601).
    #[serde(default)]
    pub created_at: Option<String>,
    /// When it was last written (ISO 8601).
    #[serde(default)]
    pub updated_at: Option<String>,
    /// The guards' state: turns, the latest compactions, the back-off, the circuit breaker
    /// (schema 2; a schema-1 meta reads as none of them yet).
    #[serde(default)]
    pub guards: GuardState,
}

/// The state before a compaction, kept so `undo` can restore it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct UndoPoint {
    /// The `seq` of the compaction this undoes.
    pub compaction: u32,
    /// The state in force before it.
    pub state: CompactState,
}

/// The input a `prepare` returned, as ctxfold counted it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct LastInput {
    /// The model it was counted for (`""` with only a `contextWindow`).
    pub model: String,
    /// ctxfold's count of the input (`report.tokensAfter`).
    pub tokens: usize,
    /// The history's length after that `prepare`: a `commit` pairs its usage with this input
    /// only if nothing was appended in between.
    pub length: usize,
    /// The correction the trigger decision used (`null`: none yet).
    pub ratio: Option<f64>,
    /// Planned again after a provider refused the input before it as too long
    /// (`overflowed`): a refusal of this one is `CONTEXT_OVERFLOW`.
    #[serde(default)]
    pub replanned: bool,
}

/// What the provider reported against what ctxfold counted, for one model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct UsageAnchor {
    /// The model (`""` with only a `contextWindow`).
    pub model: String,
    /// The provider's input tokens for the latest input reported.
    pub reported: usize,
    /// ctxfold's count of that input.
    pub counted: usize,
    /// `reported / counted`: the next trigger decision multiplies ctxfold's counts by this.
    pub ratio: f64,
    /// Reports taken so far.
    pub reports: u32,
    /// The plain estimate's error on the latest report: `counted / reported - 1`.
    pub error: f64,
    /// The corrected estimate's error on the latest report (`counted x` the ratio in force
    /// then, `/ reported - 1`); `null` on the first report, which had no correction.
    pub corrected_error: Option<f64>,
    /// Mean of `|error|` over every report.
    pub mean_abs_error: f64,
    /// Mean of `|correctedError|` over every report that had a correction.
    pub mean_abs_corrected_error: Option<f64>,
    /// When the latest report came (ISO 8601).
    pub at: Option<String>,
    /// The provider's limit, as its latest refusal of an input as too long said (`null`:
    /// none said one): every later input is planned below it.
    #[serde(default)]
    pub limit: Option<usize>,
}

/// The latest compaction, in short (its record has everything).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct LastCompaction {
    /// Its record's `seq`.
    pub seq: u32,
    /// `threshold` or `manual`.
    pub trigger: Trigger,
    /// Input tokens before (ctxfold's count).
    pub tokens_before: usize,
    /// Input tokens after.
    pub tokens_after: usize,
    /// When (ISO 8601).
    pub created_at: Option<String>,
    /// Whether `undo` undid it (its record says so too).
    #[serde(default)]
    pub undone: bool,
}

/// A summary chunk as stored: the chunk, and which compaction made it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct StoredSummary {
    /// Its place among the conversation's summaries: 0, 1, 2, ... (unique; a store may key
    /// summaries by it).
    pub seq: u32,
    /// The `seq` of the compaction that made it.
    pub compaction: u32,
    /// The chunk.
    #[serde(flatten)]
    #[ts(flatten)]
    pub chunk: SummaryChunk,
}

/// One compaction, as it happened.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CompactionRecord {
    /// Its place among the conversation's compactions: 0, 1, 2, ... (unique; a store may
    /// key records by it).
    pub seq: u32,
    /// `threshold` (the input passed the threshold) or `manual` (`compact()`).
    pub trigger: Trigger,
    /// `additive` or `rolling`.
    pub strategy: Strategy,
    /// Input tokens before (ctxfold's count of what would have been sent).
    pub tokens_before: usize,
    /// Input tokens after.
    pub tokens_after: usize,
    /// The budget it worked to (in ctxfold's counts: with a usage correction, the window's
    /// input divided by the ratio).
    pub budget: Budget,
    /// History indexes (the messages' stable ids) of the messages it summarized.
    pub evicted: Vec<usize>,
    /// The first history index sent verbatim after it.
    pub boundary: usize,
    /// The history's length when it ran.
    pub length: usize,
    /// Generations of the summary chunks it made (a fold's included).
    pub generations: Vec<u32>,
    /// Whether it folded the chunks into one.
    pub folded: bool,
    /// Identifiers of the evicted messages the summaries keep.
    pub kept_ids: Vec<String>,
    /// Identifiers of the evicted messages lost.
    pub lost_ids: Vec<String>,
    /// Identifiers in the summaries found nowhere in the conversation.
    pub unsupported_ids: Vec<String>,
    /// Summary lines dropped (outside the schema, or instructions to the model).
    pub dropped_summary_lines: Vec<String>,
    /// The fallback used, if any, and why.
    pub fallback: Option<FallbackUsed>,
    /// The summarizer's model, as it said.
    pub model: Option<String>,
    /// Each summarizer call's usage, as it reported it.
    #[ts(type = "unknown[]")]
    pub usage: Vec<Value>,
    /// The per-call instructions of a manual compaction.
    pub instructions: Option<String>,
    /// Milliseconds: planning, waiting for the summarizer, the whole call.
    pub timings: Timings,
    /// The input after it, by part (head, summaries, kept messages, tool outputs): what a
    /// notice's breakdown shows. Absent from records stored before ctxfold kept it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub after: Option<PlanTokens>,
    /// What the guards did: a guard it overrode (the input did not fit without it), the
    /// back-off it started, the breaker, the automatic compactions suppressed before it.
    /// Absent from records stored before the guards.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub guards: Option<GuardNotes>,
    /// When (ISO 8601).
    pub created_at: Option<String>,
    /// Whether `undo` undid it (set when read through the `Compactor`; stored `false`).
    pub undone: bool,
}

/// What one call writes, as one transaction.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct WriteBatch {
    /// The history index of `messages[0]`: the stored meta's `length`.
    pub start: usize,
    /// History items to append, in order.
    #[ts(type = "unknown[]")]
    pub messages: Vec<Value>,
    /// Summaries to add.
    #[ts(type = "StoredSummary[]")]
    pub summaries: Vec<Value>,
    /// Compaction records to add (one per compaction; several only in `import`).
    #[ts(type = "CompactionRecord[]")]
    pub records: Vec<Value>,
    /// The new meta, whose `version` is the expected one plus one.
    pub meta: StoredMeta,
}

/// A conversation as `export()` gives it and `import()` takes it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExportedConversation {
    /// `"ctxfold.conversation"`.
    pub kind: String,
    /// The layout of this object (1).
    pub export_version: u32,
    /// The meta.
    pub meta: StoredMeta,
    /// The whole history.
    #[ts(type = "unknown[]")]
    pub messages: Vec<Value>,
    /// Every summary.
    #[ts(type = "StoredSummary[]")]
    pub summaries: Vec<Value>,
    /// Every compaction record.
    #[ts(type = "CompactionRecord[]")]
    pub records: Vec<Value>,
}

/// The `kind` of an [`ExportedConversation`].
pub const EXPORT_KIND: &str = "ctxfold.conversation";

/// How the trigger decision saw the input, in the provider's tokens where a usage report
/// corrected ctxfold's count.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct InputEstimate {
    /// ctxfold's count of the input before any compaction this turn (`report.tokensBefore`).
    pub counted: usize,
    /// The correction from the latest usage report of this model (`null`: none yet).
    pub ratio: Option<f64>,
    /// `counted x ratio` (or `counted`): what the trigger decision compared with `threshold`.
    pub tokens: usize,
    /// The threshold, in the provider's tokens.
    pub threshold: usize,
    /// The input budget (window minus reserved output), in the provider's tokens.
    pub input: usize,
}

/// What `prepare` and `compact` return besides the messages.
#[derive(Clone, Debug, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PrepareOutcome {
    /// `full`, `summarized`, or `truncated` after a marker fallback.
    pub context_status: ContextStatus,
    /// What happened (as `compact()` reports it; indexes are history indexes, except
    /// `cacheBreakpoints`, which index the returned messages).
    pub report: CompactReport,
    /// How the trigger decision saw the input.
    pub estimate: InputEstimate,
    /// The record of the compaction this call made, if it made one.
    pub record: Option<CompactionRecord>,
    /// The messages whose tool outputs are pruned in this input (`report.pruned.messages`):
    /// their tokens whole and as sent.
    pub pruned_tokens: PrunedTokens,
    /// What the guards did on this call: a compaction suppressed, a back-off, the breaker.
    pub guards: GuardNotes,
}

/// The tokens of the messages whose tool outputs are pruned, whole and as sent (a `pruned`
/// notice: `Tool outputs pruned (12.4k -> 2.1k, -83 %)`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PrunedTokens {
    /// Their tokens with nothing pruned.
    pub before: usize,
    /// Their tokens as sent (`before - report.pruned.tokensSaved`).
    pub after: usize,
}

/// What `commit` returns.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CommitOutcome {
    /// History items stored now.
    pub length: usize,
    /// The model's anchor after this report, when the usage was taken.
    pub anchor: Option<UsageAnchor>,
    /// Why the usage given was not taken (no `prepare` came just before this `commit`, or
    /// the report is not plausibly this input's), else `null`.
    pub usage_ignored: Option<String>,
}

/// What `undo` returns when it undid a compaction.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct UndoOutcome {
    /// The `seq` of the compaction undone.
    pub compaction: u32,
    /// Summary chunks in force now.
    pub chunks: usize,
    /// The first history index sent verbatim now (after the head), `null` with no summary.
    pub boundary: Option<usize>,
}

/// What `status` returns.
#[derive(Clone, Debug, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ConversationStatus {
    /// The conversation's id.
    pub id: String,
    /// The stored version.
    pub version: u32,
    /// History items stored.
    pub length: usize,
    /// The messages' format.
    pub format: MessageFormat,
    /// `summarized` when summaries are in force, `truncated` when a marker stands in for
    /// earlier turns, else `full`.
    pub context_status: ContextStatus,
    /// The window's use by part (head, summaries, tail, tools) if the model were called now,
    /// and whether the next `prepare` would compact.
    pub plan: CompactPlan,
    /// How the trigger decision sees the input now.
    pub estimate: InputEstimate,
    /// Summary chunks in force.
    pub chunks: usize,
    /// Compactions so far (undone ones included).
    pub compactions: u32,
    /// The latest compaction, in short.
    pub last_compaction: Option<LastCompaction>,
    /// Whether `undo` has a compaction to undo.
    pub can_undo: bool,
    /// Per model: the estimate's error against the provider's reports, and the correction.
    pub usage: Vec<UsageAnchor>,
    /// The guards' state: the turn count, the back-off, the circuit breaker, the latest
    /// suppression.
    pub guards: GuardState,
    /// When the conversation was made (ISO 8601).
    pub created_at: Option<String>,
    /// When it was last written (ISO 8601).
    pub updated_at: Option<String>,
}
