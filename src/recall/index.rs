//! The index: terms, their postings, and each message's length.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::postings::Postings;
use super::tokens;
use crate::messages::Message;

/// An identifier's term starts with this, so `8080` the word and `8080` the port differ.
pub(super) const ID_MARK: char = '\u{1}';

/// A conversation's search index (see the module's docs).
///
/// Terms are kept by a 64-bit hash of their text, never the text: two terms that collide
/// would share postings, which at a million terms happens with odds of about 3 in 10^8.
#[derive(Clone, Debug, Default)]
pub struct Index {
    terms: HashMap<u64, u32, Keyed>,
    postings: Vec<Postings>,
    /// Words in each message.
    lens: Vec<u32>,
    /// Their sum.
    total: u64,
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
        self.lens.len()
    }

    /// Distinct terms seen (words and identifiers).
    pub fn terms(&self) -> usize {
        self.postings.len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.lens.is_empty()
    }

    /// Adds the next message.
    pub fn push_message(&mut self, m: &Message) {
        self.push(&super::message_text(m));
    }

    /// Adds the next message, given its text.
    pub fn push(&mut self, text: &str) {
        let doc = self.lens.len() as u32;
        let mut counts: HashMap<u64, u32, Keyed> = HashMap::default();
        let mut words = 0u32;
        tokens::each(text, |term, _, _| {
            words += 1;
            *counts.entry(hash(term)).or_default() += 1;
        });
        for id in crate::ids::extract(text) {
            *counts.entry(hash(&id_term(&id.text))).or_default() += 1;
        }
        let mut sorted: Vec<_> = counts.into_iter().collect();
        // The same order on every run, so a term's id does not depend on a hash seed.
        sorted.sort_unstable();
        for (term, tf) in sorted {
            let id = self.term_id(term);
            self.postings[id as usize].push(doc, tf);
        }
        self.lens.push(words);
        self.total += u64::from(words);
    }

    fn term_id(&mut self, term: u64) -> u32 {
        if let Some(&id) = self.terms.get(&term) {
            return id;
        }
        let id = self.postings.len() as u32;
        self.terms.insert(term, id);
        self.postings.push(Postings::default());
        id
    }

    /// Keeps the first `len` messages.
    pub fn truncate(&mut self, len: usize) {
        if len >= self.lens.len() {
            return;
        }
        for p in &mut self.postings {
            p.truncate(len as u32);
        }
        let dropped: u64 = self.lens[len..].iter().map(|&n| u64::from(n)).sum();
        self.total -= dropped;
        self.lens.truncate(len);
        // Terms whose postings emptied keep their id: they cost a few bytes, and a message
        // appended again usually says them again.
    }

    /// The postings of `term` (a word, or an identifier's [`id_term`]).
    pub(super) fn postings(&self, term: &str) -> Option<&Postings> {
        self.terms
            .get(&hash(term))
            .map(|&id| &self.postings[id as usize])
            .filter(|p| !p.is_empty())
    }

    /// Words in message `doc`.
    pub(super) fn doc_len(&self, doc: u32) -> u32 {
        self.lens[doc as usize]
    }

    /// Mean words a message.
    pub(super) fn mean_len(&self) -> f32 {
        if self.lens.is_empty() {
            return 0.0;
        }
        (self.total as f64 / self.lens.len() as f64) as f32
    }

    /// Bytes the index holds on the heap, as allocated (for the hash table an estimate: its
    /// buckets by capacity, a control byte each).
    pub fn heap_bytes(&self) -> usize {
        let bucket = std::mem::size_of::<(u64, u32)>() + 1;
        let table = self.terms.capacity() * bucket;
        let postings = self.postings.capacity() * std::mem::size_of::<Postings>()
            + self.postings.iter().map(Postings::heap_bytes).sum::<usize>();
        table + postings + self.lens.capacity() * 4
    }
}

/// The tables' keys are hashes already: they are their own hash.
type Keyed = BuildHasherDefault<Own>;

/// A [`Hasher`] that passes a `u64` through.
#[derive(Default)]
struct Own(u64);

impl Hasher for Own {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        // Only `u64` keys are hashed; this is the fallback the trait requires.
        self.0 = bytes.iter().fold(self.0, |h, &b| h.rotate_left(8) ^ u64::from(b));
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// A term's key: FNV-1a over its bytes (the same on every run and build).
fn hash(term: &str) -> u64 {
    term.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The term an identifier is indexed under: its text lowercased, marked.
pub(super) fn id_term(text: &str) -> String {
    let mut term = String::with_capacity(text.len() + 1);
    term.push(ID_MARK);
    term.extend(text.chars().flat_map(char::to_lowercase));
    term
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_words_and_identifiers() {
        let mut index = Index::new();
        index.push("port 8080, see /etc/app/config.yaml");
        index.push("port port end");
        assert_eq!(index.len(), 2);
        assert_eq!(index.doc_len(1), 3);
        assert_eq!(
            index.postings("port").unwrap().iter().collect::<Vec<_>>(),
            [(0, 1), (1, 2)]
        );
        let path = index
            .postings(&id_term("/etc/app/config.yaml"))
            .expect("the path is a term");
        assert_eq!(path.iter().collect::<Vec<_>>(), [(0, 1)]);
        assert!(index.postings("absent").is_none());
    }

    #[test]
    fn truncate_forgets_the_newest() {
        let mut index = Index::new();
        index.push("alpha beta");
        index.push("beta gamma gamma");
        index.truncate(1);
        assert_eq!(index.len(), 1);
        assert!(index.postings("gamma").is_none());
        assert_eq!(index.mean_len(), 2.0);
        index.push("gamma");
        assert_eq!(
            index.postings("gamma").unwrap().iter().collect::<Vec<_>>(),
            [(1, 1)]
        );
    }
}
