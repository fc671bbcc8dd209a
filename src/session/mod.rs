//! Conversations that remember: the core of the `Compactor`.
//!
//! [`stored`] holds the shapes of the store contract: what a store keeps per conversation
//! and what one call writes. The rest of the core (the calls as sans-IO steps) builds on them.

pub mod stored;

pub use stored::{
    CommitOutcome, CompactionRecord, ConversationStatus, ExportedConversation, InputEstimate, LastCompaction,
    LastInput, PrepareOutcome, StoredMeta, StoredSummary, UndoOutcome, UndoPoint, UsageAnchor, WriteBatch,
    EXPORT_KIND, META_SCHEMA,
};
