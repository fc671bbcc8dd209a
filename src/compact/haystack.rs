//! Looking for many identifiers in one text.
//!
//! A compaction checks thousands of identifiers against a summary, a ledger line or the
//! kept part of a pruned output ([`crate::ids::mentions`], a search each). A [`Haystack`]
//! also keeps which byte trigrams its text holds, as a 65,536-bit set of their hashes, and
//! turns away without a search any identifier with a trigram the set lacks: no false
//! negatives, and a false positive only costs the search it would have cost anyway.

use crate::ids;

/// A text to look for identifiers in, that can grow at its end.
pub struct Haystack {
    text: String,
    bits: Vec<u64>,
}

impl Default for Haystack {
    fn default() -> Self {
        Haystack {
            text: String::new(),
            bits: vec![0; 1 << 10],
        }
    }
}

impl Haystack {
    /// A haystack of `text`.
    pub fn new(text: &str) -> Self {
        let mut h = Haystack::default();
        h.push_str(text);
        h
    }

    /// The text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The text, taken.
    pub fn into_text(self) -> String {
        self.text
    }

    /// Appends `more`; the trigrams that cross the join are added too.
    pub fn push_str(&mut self, more: &str) {
        let from = self.text.len().saturating_sub(2);
        self.text.push_str(more);
        for w in self.text.as_bytes()[from..].windows(3) {
            let k = slot(w);
            self.bits[k >> 6] |= 1 << (k & 63);
        }
    }

    /// Whether the text mentions `id` (as [`ids::mentions`] decides).
    pub fn mentions(&self, id: &str) -> bool {
        self.may_hold(id) && ids::mentions(&self.text, id)
    }

    /// `false` only if `needle` cannot occur in the text.
    fn may_hold(&self, needle: &str) -> bool {
        needle.as_bytes().windows(3).all(|w| {
            let k = slot(w);
            self.bits[k >> 6] & (1 << (k & 63)) != 0
        })
    }
}

fn slot(w: &[u8]) -> usize {
    let x = u32::from_le_bytes([w[0], w[1], w[2], 0]);
    (x.wrapping_mul(0x9E37_79B1) >> 16) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_turns_away_a_needle_the_text_holds() {
        let text = "Use db-prod-1:5432 and /etc/app/config.yaml; see FRE-512. Ünïcødé ok";
        let h = Haystack::new(text);
        for start in 0..text.len() {
            for end in start..=text.len() {
                if text.is_char_boundary(start) && text.is_char_boundary(end) {
                    assert!(h.may_hold(&text[start..end]), "{:?}", &text[start..end]);
                }
            }
        }
        assert!(!h.may_hold("ECONNREFUSED"));
        assert!(h.mentions("db-prod-1:5432") && h.mentions("FRE-512") && !h.mentions("FRE-51"));
    }

    #[test]
    fn appending_keeps_the_trigrams_across_the_join() {
        let mut h = Haystack::new("ab");
        h.push_str(", cd");
        assert!(h.may_hold("ab, cd") && h.may_hold("b, c"));
        assert_eq!(h.text(), "ab, cd");
    }
}
