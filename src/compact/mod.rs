//! Compaction: fit a conversation into a model's window.
//!
//! [`engine`] plans and drives one compaction: [`partition`] finds where the
//! conversation may be cut and keeps the head and a verbatim tail, [`prune`] shortens old
//! tool outputs, [`summary`] asks for and checks schema'd summaries of the middle (with
//! the [`extractive`] summary as the fallback), [`ledger`] keeps identifiers, and
//! [`state`] is what a stateless caller passes back next turn.

pub mod elide;
pub mod engine;
pub mod extractive;
pub mod ledger;
pub mod mentions;
pub mod partition;
pub mod prune;
pub mod state;
pub mod summary;

pub use engine::{Compaction, ContextStatus, Input, Outcome, Plan, Reply, Report, Request};
pub use state::State;
