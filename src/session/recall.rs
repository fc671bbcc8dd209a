//! `recall(id, { query, limit })`: what the model asks the recall tool for. The history's
//! search ([`super::search`]) over the messages the model's input does not hold now (the
//! ones a summary replaced), searched as deep as it takes to find `limit` of them, then
//! bounded in tokens and framed as data ([`crate::recall::excerpts`]). [`in_prompt`] is the
//! same over a whole conversation a stateless caller holds and the state `compact()` gave it
//! (the AI SDK middleware's: the prompt the SDK passes is the whole conversation).

use super::cached::Cached;
use super::search::in_input;
use super::StoredMeta;
use crate::compact::driver::Setup;
use crate::compact::state::CompactState;
use crate::count::TextCounter;
use crate::messages::{Conversation, Message};
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
    let state = meta.map(|m| &m.state);
    found(index, conv.messages(), state, (query, limit), counter, max_tokens)
}

/// [`recall`] over `conv`, a whole conversation, and `state`, what `compact()` gave for it:
/// the index is made for the call.
pub fn in_prompt(
    conv: &Conversation,
    state: Option<&CompactState>,
    (query, limit): (&str, usize),
    counter: &dyn TextCounter,
    max_tokens: usize,
) -> Recalled {
    let messages = conv.messages();
    found(
        &Index::of(messages),
        messages,
        state,
        (query, limit),
        counter,
        max_tokens,
    )
}

/// The `limit` best matches of `query` in `index` (of `messages`) that `state`'s input does
/// not hold.
fn found(
    index: &Index,
    messages: &[Message],
    state: Option<&CompactState>,
    (query, limit): (&str, usize),
    counter: &dyn TextCounter,
    max_tokens: usize,
) -> Recalled {
    let in_input = in_input(state, messages);
    // Every match, best first: the ones in the input are left out after ranking.
    let candidates = index
        .search(query, index.len(), |i| message_text(&messages[i as usize]))
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
