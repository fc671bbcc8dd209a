//! `search(id, query, { limit })`: the stored messages that best match a query, from the
//! cached history's index ([`crate::recall`]), each with its role, a snippet cut from the
//! message, and whether the model's input holds it now. History is append-only, so an undo
//! or `/new` changes only the last: it is read from the stored state at each search.

use serde::Serialize;
use ts_rs::TS;

use super::cached::Cached;
use super::StoredMeta;
use crate::compact::partition::head_len;
use crate::compact::state::CompactState;
use crate::messages::{Message, MessageRole};
use crate::recall::{message_text, snippet};

/// How long a snippet is, in bytes (about).
pub const SNIPPET_BYTES: usize = 200;

/// One message `search` found.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SearchHit {
    /// Its index in the stored history.
    pub index: u32,
    /// Who it is from.
    pub role: MessageRole,
    /// The passage around the best match (`…` where it was cut).
    pub snippet: String,
    /// Whether the model's input holds it verbatim now (not summarized away).
    pub in_input: bool,
    /// Its BM25 score: higher is better, comparable within one search only.
    pub score: f32,
}

/// The `limit` best matches of `query` in the cached history, best first, ties newest first.
pub(super) fn search(
    cache: &mut Cached,
    meta: Option<&StoredMeta>,
    query: &str,
    limit: usize,
) -> Vec<SearchHit> {
    let (index, conv) = cache.searchable();
    let messages = conv.messages();
    let hits = index.search(query, limit, |i| message_text(&messages[i as usize]));
    let in_input = in_input(meta.map(|m| &m.state), messages);
    hits.into_iter()
        .map(|h| {
            let i = h.index as usize;
            let m = &messages[i];
            SearchHit {
                index: h.index,
                role: m.role,
                snippet: snippet(index, &message_text(m), query, SNIPPET_BYTES),
                in_input: in_input(i),
                score: h.score,
            }
        })
        .collect()
}

/// Whether the model's input holds message `i` of `messages` verbatim now, as `state` says:
/// the head, the verbatim tail, the pinned first user message and any provider compaction;
/// all of them before any compaction.
pub(super) fn in_input<'a>(
    state: Option<&'a CompactState>,
    messages: &'a [Message],
) -> impl Fn(usize) -> bool + 'a {
    let head = head_len(messages);
    move |i: usize| {
        let Some(boundary) = state.and_then(|s| s.boundary.as_ref()) else {
            return true;
        };
        let pinned = state
            .and_then(|s| s.pinned.as_ref())
            .is_some_and(|p| p.index == i + 1);
        // A provider's compaction goes out whatever was summarized around it.
        i < head || i >= boundary.index || pinned || messages[i].holds_compaction()
    }
}
