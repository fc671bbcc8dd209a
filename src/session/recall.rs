//! `recall(id, { query, limit })`: what the model asks the recall tool for. The history's
//! search ([`super::search`]) over the messages the model's input does not hold now (the
//! ones a summary replaced), searched as deep as it takes to find `limit` of them, then
//! bounded in tokens and framed as data ([`crate::recall::excerpts`]).

use super::cached::Cached;
use super::search::in_input;
use super::StoredMeta;
use crate::compact::driver::Setup;
use crate::count::TextCounter;
use crate::options::CompactOptions;
use crate::recall::{excerpts, message_text, Candidate, Index, Recalled};
use crate::Error;

/// The `limit` best matches of `query` outside the model's input, within `max_tokens`.
pub(super) fn recall(
    cache: &mut Cached,
    meta: Option<&StoredMeta>,
    query: &str,
    limit: usize,
    counter: &dyn TextCounter,
    max_tokens: usize,
) -> Recalled {
    let (index, conv) = cache.searchable();
    let messages = conv.messages();
    let in_input = in_input(meta, messages);
    // Every match, best first: the ones in the input are left out after ranking.
    let candidates = index
        .search(query, index.len())
        .into_iter()
        .filter(|h| !in_input(h.index as usize))
        .take(limit)
        .map(|h| {
            let m = &messages[h.index as usize];
            Candidate {
                index: h.index,
                role: m.role,
                text: message_text(m),
            }
        })
        .collect();
    excerpts(index, query, candidates, counter, max_tokens)
}

/// What a recall in a conversation the store does not hold gives: nothing found, framed and
/// counted as any other.
pub(super) fn nothing(options: &CompactOptions) -> Result<Recalled, Error> {
    let setup = Setup::new(options.clone())?;
    let budget = setup.config.recall_max_tokens;
    Ok(excerpts(
        &Index::new(),
        "",
        Vec::new(),
        &setup.counting.counter,
        budget,
    ))
}
