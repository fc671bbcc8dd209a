//! Compaction: fit a conversation into a model's window.
//!
//! [`driver`] is the entry: options resolved into a counter and a [`Budget`], then the
//! [`engine`] planned and run through its summarizer rounds. The engine's parts:
//! [`partition`] finds where the conversation may be cut and keeps the head and a verbatim
//! tail, [`prune`] shortens old tool outputs, [`summary`] asks for and checks schema'd
//! summaries of the middle and frames them as data ([`summary::frame`]) (with the
//! [`extractive`] summary as the fallback, and [`injection`] spotting lines that are
//! instructions, not a record), [`ledger`]
//! keeps identifiers (its line written by [`listing`]), [`elide`] cuts the middle out of a text that must fit, and [`state`]
//! is what a stateless caller passes back next turn ([`sign`]ed with `stateKey`). [`types`] holds what goes in and out.

pub mod budget;
pub mod driver;
pub mod elide;
pub mod engine;
pub mod extractive;
pub mod haystack;
pub mod injection;
pub mod ledger;
pub mod listing;
pub mod partition;
pub mod prune;
pub mod sign;
pub mod state;
pub mod summary;
pub mod types;

pub use driver::{run, Setup, Summarizer};
pub use engine::Compaction;
pub use state::{CompactState, SummaryChunk};
pub use types::{
    Budget, CompactOutcome, CompactPlan, CompactReport, ContextStatus, Input, Reply, Request, RequestKind,
};
