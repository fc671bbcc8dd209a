//! The index: a table of terms, each pointing at its newest entry in the postings' arena
//! ([`Arena`]), and each message's first byte there and its length in words.

use super::postings::Arena;
use super::tokens;
use crate::messages::Message;

/// A conversation's search index (see the module's docs).
///
/// Terms are kept by a 32-bit hash of their text, never the text: two terms that collide
/// share postings (a history of 10,000 distinct terms holds such a pair with odds of about 1
/// in 90, one of 100,000 about one pair), which blurs the ranking of two rare words and
/// loses nothing. The table is open-addressed over two arrays (the keys; each term's newest
/// entry), grown by a quarter, so a term costs about 11 bytes and owns no allocation.
#[derive(Clone, Debug, Default)]
pub struct Index {
    keys: Vec<u32>,
    /// A slot's term's newest entry plus one; 0: an empty slot; [`NONE`]: a term whose
    /// entries were all cut.
    lasts: Vec<u32>,
    /// Terms in the table.
    terms: usize,
    arena: Arena,
    /// Where each message starts in the arena (its length in words, then its entries).
    docs: Vec<u32>,
    /// Words in all messages.
    total: u64,
}

/// A term that is known but has no entry left.
const NONE: u32 = u32::MAX;

fn newest(slot: u32) -> Option<u32> {
    (slot != 0 && slot != NONE).then(|| slot - 1)
}

impl Index {
    /// An empty index.
    pub fn new() -> Self {
        Self::default()
    }

    /// Indexes `messages`, in order.
    pub fn of<'a>(messages: impl IntoIterator<Item = &'a Message>) -> Self {
        let mut index = Self::new();
        for m in messages {
            index.push_message(m);
        }
        index
    }

    /// Messages indexed.
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    /// Distinct terms seen.
    pub fn terms(&self) -> usize {
        self.terms
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// Adds the next message (its parts as [`super::message_text`] reads them, without
    /// joining them).
    pub fn push_message(&mut self, m: &Message) {
        let mut terms = Vec::new();
        super::readable::each_text(m, |t| hashes(t, &mut terms));
        self.add(terms);
    }

    /// Adds the next message, given its text.
    pub fn push(&mut self, text: &str) {
        let mut terms = Vec::new();
        hashes(text, &mut terms);
        self.add(terms);
    }

    fn add(&mut self, mut terms: Vec<u32>) {
        let words = terms.len() as u32;
        if self.docs.len() == self.docs.capacity() {
            self.docs.reserve_exact(self.docs.len() / 4 + 16);
        }
        self.docs.push(self.arena.push_words(words));
        self.total += u64::from(words);
        // Sorted, a message's terms are counted without a table, in the same order on every run.
        terms.sort_unstable();
        for run in terms.chunk_by(|a, b| a == b) {
            let slot = self.slot_for(run[0]);
            let at = self.arena.push(newest(self.lasts[slot]), run.len() as u32);
            self.lasts[slot] = at + 1;
        }
    }

    /// The slot of `key` (or the empty one it would take) in a table of this capacity.
    fn probe(keys: &[u32], lasts: &[u32], key: u32) -> usize {
        let cap = keys.len();
        // Multiply-shift onto any capacity, so the table need not be a power of two.
        let mut i = ((u64::from(key.wrapping_mul(0x9e37_79b9)) * cap as u64) >> 32) as usize;
        while lasts[i] != 0 && keys[i] != key {
            i += 1;
            if i == cap {
                i = 0;
            }
        }
        i
    }

    /// The slot of `key`, taken for it when it is new.
    fn slot_for(&mut self, key: u32) -> usize {
        // At most four slots in five taken, so a probe stays short.
        if (self.terms + 1) * 5 > self.keys.len() * 4 {
            self.grow();
        }
        let i = Self::probe(&self.keys, &self.lasts, key);
        if self.lasts[i] == 0 {
            self.keys[i] = key;
            self.lasts[i] = NONE;
            self.terms += 1;
        }
        i
    }

    fn grow(&mut self) {
        let cap = (self.keys.len() + self.keys.len() / 4).max(64);
        let mut keys = vec![0; cap];
        let mut lasts = vec![0; cap];
        for (&k, &l) in self.keys.iter().zip(&self.lasts).filter(|(_, &l)| l != 0) {
            let i = Self::probe(&keys, &lasts, k);
            keys[i] = k;
            lasts[i] = l;
        }
        self.keys = keys;
        self.lasts = lasts;
    }

    /// Keeps the first `len` messages.
    pub fn truncate(&mut self, len: usize) {
        if len >= self.docs.len() {
            return;
        }
        let cut = self.docs[len];
        for slot in &mut self.lasts {
            if newest(*slot).is_some_and(|at| at >= cut) {
                *slot = self.arena.kept(newest(*slot), cut).map_or(NONE, |at| at + 1);
            }
        }
        // Terms whose entries were all cut keep their slot: they cost a few bytes, and a
        // message appended again usually says them again.
        let dropped: u64 = self.docs[len..]
            .iter()
            .map(|&d| u64::from(self.arena.words(d)))
            .sum();
        self.total -= dropped;
        self.arena.truncate(cut);
        self.docs.truncate(len);
    }

    /// The postings of the term `term`: `(message, occurrences)`, newest first.
    pub(super) fn postings(&self, term: &str) -> Vec<(u32, u32)> {
        if self.keys.is_empty() {
            // Nothing indexed yet.
            return Vec::new();
        }
        let i = Self::probe(&self.keys, &self.lasts, hash(term));
        let mut doc = self.docs.len();
        self.arena
            .chain(newest(self.lasts[i]))
            .map(|(at, tf)| {
                // Entries come newest first: the message is at or before the last one's.
                doc = self.docs[..doc].partition_point(|&d| d <= at) - 1;
                (doc as u32, tf)
            })
            .collect()
    }

    /// Words in message `doc`.
    pub(super) fn doc_len(&self, doc: u32) -> u32 {
        self.arena.words(self.docs[doc as usize])
    }

    /// Mean words a message.
    pub(super) fn mean_len(&self) -> f32 {
        if self.docs.is_empty() {
            return 0.0;
        }
        (self.total as f64 / self.docs.len() as f64) as f32
    }

    /// Bytes the index holds on the heap, as allocated (every array by its capacity).
    pub fn heap_bytes(&self) -> usize {
        (self.keys.capacity() + self.lasts.capacity() + self.docs.capacity()) * 4 + self.arena.heap_bytes()
    }
}

/// Appends the hash of each term of `text` to `out`.
fn hashes(text: &str, out: &mut Vec<u32>) {
    tokens::each(text, |term, _, _| out.push(hash(term)));
}

/// A term's key: FNV-1a over its bytes, folded to 32 bits (the same on every run and build).
fn hash(term: &str) -> u32 {
    let h = term.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    (h ^ h >> 32) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn counts_words() {
        let mut index = Index::new();
        index.push("port 8080, see /etc/app/config.yaml");
        index.push("");
        index.push("port port end");
        assert_eq!(index.len(), 3);
        assert_eq!(index.doc_len(2), 3);
        assert_eq!(index.postings("port"), [(2, 2), (0, 1)]);
        assert_eq!(index.postings("yaml"), [(0, 1)]);
        assert!(index.postings("absent").is_empty());
    }

    #[test]
    fn truncate_forgets_the_newest() {
        let mut index = Index::new();
        index.push("alpha beta");
        index.push("beta gamma gamma");
        index.truncate(1);
        assert_eq!(index.len(), 1);
        assert!(index.postings("gamma").is_empty());
        assert_eq!(index.postings("beta"), [(0, 1)]);
        assert_eq!(index.mean_len(), 2.0);
        index.push("gamma");
        assert_eq!(index.postings("gamma"), [(1, 1)]);
    }

    const WORDS: [&str; 6] = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"];

    fn texts() -> impl Strategy<Value = Vec<String>> {
        let text = proptest::collection::vec(0..WORDS.len(), 0..6)
            .prop_map(|ws| ws.into_iter().map(|w| WORDS[w]).collect::<Vec<_>>().join(" "));
        proptest::collection::vec(text, 0..30)
    }

    proptest! {
        /// Cut back to any length and extended again, the index is the one built at once
        /// from what it holds: the chains' cut points and the table's kept terms lose nothing.
        #[test]
        fn cut_and_extended_is_built_at_once(before in texts(), after in texts(), keep in 0usize..30) {
            let mut index = Index::new();
            for t in &before {
                index.push(t);
            }
            let keep = keep.min(before.len());
            index.truncate(keep);
            for t in &after {
                index.push(t);
            }
            let mut fresh = Index::new();
            for t in before[..keep].iter().chain(&after) {
                fresh.push(t);
            }
            prop_assert_eq!(index.len(), fresh.len());
            prop_assert_eq!(index.mean_len(), fresh.mean_len());
            for w in WORDS {
                prop_assert_eq!(index.postings(w), fresh.postings(w), "{}", w);
            }
            for d in 0..index.len() as u32 {
                prop_assert_eq!(index.doc_len(d), fresh.doc_len(d));
            }
        }
    }

    #[test]
    fn the_table_grows_and_finds_every_term() {
        let mut index = Index::new();
        for i in 0..1000 {
            index.push(&format!("w{i} common"));
        }
        assert_eq!(index.terms(), 1001);
        assert_eq!(index.postings("w777"), [(777, 1)]);
        assert_eq!(index.postings("common").len(), 1000);
    }
}
