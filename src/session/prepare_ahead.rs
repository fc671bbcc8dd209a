//! `prepareAhead`: after a turn that leaves the input past a soft threshold, when the next
//! turn may pass the compaction threshold (the input now and an input as large as the largest
//! of its kind so far, at least twice the recent ones: `partition::input_bound`), the summary
//! that compaction needs is made in the background, so the turn that passes the threshold
//! finds it made. Below that, each summary made ahead would be a summarizer call no turn uses
//! (the span grows with every turn).
//!
//! The core's part is to say which summarizer requests the next turn's compaction would
//! make ([`super::Kind::Ahead`]): the history as stored, with a stand-in for the next turn's
//! input (a user message, or a result for each tool call still open), planned as if the
//! input were past the threshold. A compaction of a conversation that ends with such an
//! input (the user's new message, or the newest step's results) chooses its cut on the
//! conversation before it, leaving room for an input as large as `input_bound` says
//! (`engine::plan`'s `settled_tail`), so what it evicts, and with it what it asks the
//! summarizer, does not depend on what the input says: the requests made ahead are the ones
//! the turn makes, as long as nothing else changed the history or the state meanwhile (and
//! the input fits that room). The face keeps each reply by its request and answers a
//! request only with the reply to the same request (kind, instructions, text, cap), so a
//! summary made for another span is never applied.

use serde::Deserialize;
use ts_rs::TS;

use crate::options::{present, Ratio};

/// Past this share of the window the summary is prepared, unless told otherwise.
pub const SOFT_THRESHOLD: f64 = 0.6;

/// `prepareAhead` of a `Compactor` (`true`: these defaults).
#[derive(Clone, Debug, Default, Deserialize, TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(optional_fields)]
pub struct PrepareAheadOptions {
    /// After a `commit` that leaves the input past this share of the window, the summary
    /// the next compaction needs is made in the background. Default 0.6.
    #[serde(default, deserialize_with = "present")]
    pub threshold: Option<Ratio>,
}

impl PrepareAheadOptions {
    /// The soft threshold, as a share of the window.
    pub fn soft_threshold(&self) -> f64 {
        self.threshold.map_or(SOFT_THRESHOLD, |r| r.0)
    }
}

/// The text of the user message that stands in for the next turn's while planning ahead.
pub const NEXT_TURN: &str = "(the next turn)";
