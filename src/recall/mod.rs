//! Recall: search over a conversation's stored history.
//!
//! [`Index`] is sans-IO and append-only like the history it mirrors: each message is added
//! once, as it is appended, and a cut back (a store that holds less than the cache) drops
//! the newest. It keeps no message text: each message's word terms ([`tokens`]: lowercased,
//! plurals read as singulars, stop words left out) with their counts, as varints in one
//! arena ([`postings`]), and the messages' lengths. [`Index::search`] ranks by BM25 (k1 1.2,
//! b 0.75); the identifiers the census ([`crate::ids::extract`]) finds in the query are looked
//! for whole in the text of the messages that hold their words, and weigh [`ID_BOOST`] times
//! a word; ties go to the newest. [`snippet`] cuts the passage around the best hit out of the
//! message's text, which the caller holds ([`message_text`]).
//!
//! The model reads the history through the recall tool ([`tool`]: its name, description and
//! schema, declared once): [`excerpts`] bounds what a call gives back in tokens and frames
//! it as data.

mod bm25;
pub mod excerpts;
mod index;
mod postings;
mod readable;
mod snippet;
pub mod tokens;
pub mod tool;

pub use bm25::{Hit, Query, ID_BOOST};
pub use excerpts::{excerpts, Candidate, RecallMatch, Recalled};
pub use index::Index;
pub use readable::{each_text, message_text};
pub use snippet::snippet;
