//! The ledger: identifiers deduplicated by text, counted, and ranked.

use std::collections::BTreeMap;

use serde::Serialize;

use super::Identifier;

/// One identifier in a [`Ledger`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Entry {
    /// The identifier (the kind it had when first seen).
    pub id: Identifier,
    /// How many times it was added.
    pub count: usize,
    /// How many identifiers were added before its first occurrence.
    pub first: usize,
}

/// Identifiers deduplicated by text, counted, and ranked: most referenced first, then
/// in order of first appearance.
///
/// ```
/// use ctxfold::ids::{extract, Ledger};
/// let mut ledger = Ledger::new();
/// ledger.extend(extract("/a/b.py HAT123 /c/d.py HAT123"));
/// let top = &ledger.ranked()[0];
/// assert_eq!((top.0.text.as_str(), top.1), ("HAT123", 2));
/// ```
#[derive(Clone, Debug, Default)]
pub struct Ledger {
    entries: Vec<Entry>,
    index: BTreeMap<String, usize>,
    added: usize,
}

impl Ledger {
    /// An empty ledger.
    pub fn new() -> Self {
        Self::default()
    }

    /// Counts one occurrence of `id`.
    pub fn add(&mut self, id: Identifier) {
        match self.index.get(&id.text) {
            Some(&k) => self.entries[k].count += 1,
            None => {
                self.index.insert(id.text.clone(), self.entries.len());
                self.entries.push(Entry {
                    id,
                    count: 1,
                    first: self.added,
                });
            }
        }
        self.added += 1;
    }

    /// The entries in order of first appearance.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Identifiers with their counts, most referenced first, ties in order of first
    /// appearance.
    pub fn ranked(&self) -> Vec<(Identifier, usize)> {
        let mut order: Vec<&Entry> = self.entries.iter().collect();
        order.sort_by(|a, b| b.count.cmp(&a.count).then(a.first.cmp(&b.first)));
        order.into_iter().map(|e| (e.id.clone(), e.count)).collect()
    }

    /// How many distinct identifiers.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether nothing was added.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether an identifier with this text was added.
    pub fn contains(&self, text: &str) -> bool {
        self.index.contains_key(text)
    }
}

impl Extend<Identifier> for Ledger {
    fn extend<T: IntoIterator<Item = Identifier>>(&mut self, iter: T) {
        iter.into_iter().for_each(|id| self.add(id));
    }
}

#[cfg(test)]
mod tests {
    use super::Ledger;
    use crate::ids::extract;

    #[test]
    fn ledger_ranks_by_count_then_first_seen() {
        let mut l = Ledger::new();
        l.extend(extract("/a/b.py HAT123 /c/d.py HAT123 /a/b.py HAT123"));
        assert_eq!(l.len(), 3);
        assert!(l.contains("/c/d.py") && !l.contains("/c/d"));
        let ranked: Vec<(String, usize)> = l.ranked().into_iter().map(|(i, n)| (i.text, n)).collect();
        assert_eq!(
            ranked,
            [("HAT123".into(), 3), ("/a/b.py".into(), 2), ("/c/d.py".into(), 1)]
        );
        assert_eq!(l.entries()[1].first, 1);
    }
}
