//! An exact cache of how many tokens a piece is.
//!
//! Real text repeats its pieces: words, identifiers, paths, and in CJK text whole runs of
//! characters. A piece's count costs a vocabulary lookup (two or three cache misses in a
//! table of megabytes) or, when it is not one token, a merge of ten or more lookups. This
//! cache answers repeats from one slot: pieces of up to eight bytes are keyed exactly by
//! their bytes packed in a word (no comparison needed); longer ones keep their bytes in an
//! arena and are compared in full, so a hit is always right. It is four-way
//! set-associative (the four 16-byte slots of a set are one 64-byte cache line; a new
//! piece goes in front and the oldest is dropped) and starts over when the arena fills, so
//! its memory is bounded (2 MB of slots, 4 MB of arena). Its 131,072 slots hold the 61,010
//! distinct pieces of the 7.5 MB benchmark corpus; with two ways, conflicts cost 14,000
//! misses a warm pass there, with four about a tenth of that.

use super::hash::word;
use super::vocab::eq_bytes;

const WAYS: usize = 4;
const SETS: usize = 1 << 15;
const ARENA: usize = 1 << 22;
/// Longer pieces are rare and would crowd the arena.
pub const MAX_PIECE: usize = 1024;

/// `len == 0` marks an empty slot (pieces are never empty).
#[derive(Clone, Copy, Default)]
struct Slot {
    /// The piece as a word (up to 8 bytes), or its hash.
    key: u64,
    /// Where a longer piece's bytes are in the arena.
    start: u32,
    len: u16,
    count: u16,
}

/// Piece bytes -> token count.
pub struct PieceCache {
    slots: Vec<Slot>,
    arena: Vec<u8>,
}

impl Default for PieceCache {
    fn default() -> Self {
        PieceCache {
            slots: vec![Slot::default(); WAYS * SETS],
            arena: Vec::new(),
        }
    }
}

#[inline(always)]
fn set_of(hash: u64) -> usize {
    WAYS * ((hash as usize) & (SETS - 1))
}

/// The set of a short piece: one multiply of its packed bytes (`word`), high bits.
#[inline(always)]
fn short_set(word: u64, len: usize) -> usize {
    let h = (word ^ (len as u64) << 59).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    WAYS * ((h >> (64 - SETS.trailing_zeros())) as usize)
}

impl PieceCache {
    /// The cached count of a piece of three to eight bytes, packed as `word`.
    #[inline(always)]
    pub fn get_short(&self, word: u64, len: usize) -> Option<usize> {
        let set = short_set(word, len);
        self.slots[set..set + WAYS]
            .iter()
            .find(|s| s.len as usize == len && s.key == word)
            .map(|s| s.count as usize)
    }

    /// Remembers a short piece's count.
    #[inline(always)]
    pub fn put_short(&mut self, word: u64, len: usize, count: usize) {
        let set = short_set(word, len);
        self.slots.copy_within(set..set + WAYS - 1, set + 1);
        self.slots[set] = Slot {
            key: word,
            start: 0,
            len: len as u16,
            count: count as u16,
        };
    }

    /// The cached count of `piece` (nine to [`MAX_PIECE`] bytes), whose hash is `hash`.
    #[inline(always)]
    pub fn get(&self, piece: &[u8], hash: u64) -> Option<usize> {
        let set = set_of(hash);
        let (len, short) = (piece.len(), piece.len() <= 8);
        let key = if short { word(piece) } else { hash };
        for s in &self.slots[set..set + WAYS] {
            if s.len as usize == len
                && s.key == key
                && (short || eq_bytes(&self.arena[s.start as usize..s.start as usize + len], piece))
            {
                return Some(s.count as usize);
            }
        }
        None
    }

    /// Remembers that `piece` (at most [`MAX_PIECE`] bytes) is `count` tokens.
    #[inline]
    pub fn put(&mut self, piece: &[u8], hash: u64, count: usize) {
        debug_assert!(!piece.is_empty() && piece.len() <= MAX_PIECE);
        let set = set_of(hash);
        // The newest goes in front; the oldest is dropped.
        self.slots.copy_within(set..set + WAYS - 1, set + 1);
        if piece.len() <= 8 {
            self.slots[set] = Slot {
                key: word(piece),
                start: 0,
                len: piece.len() as u16,
                count: count as u16,
            };
            return;
        }
        if self.arena.len() + piece.len() > ARENA {
            // Start over: forget every long piece (their bytes are gone); short ones stay.
            self.arena.clear();
            for s in &mut self.slots {
                if s.len > 8 {
                    *s = Slot::default();
                }
            }
        }
        if self.arena.capacity() == 0 {
            self.arena.reserve_exact(ARENA);
        }
        let start = self.arena.len() as u32;
        self.arena.extend_from_slice(piece);
        self.slots[set] = Slot {
            key: hash,
            start,
            len: piece.len() as u16,
            count: count as u16,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hits_only_on_equal_bytes() {
        let mut c = PieceCache::default();
        c.put(b"identifier", 7, 3);
        assert_eq!(c.get(b"identifier", 7), Some(3));
        // Same hash and length, other bytes: a miss, never a wrong count.
        assert_eq!(c.get(b"identifiex", 7), None);
        assert_eq!(c.get(b"identifier", 8), None);
        // Short pieces are keyed by their packed bytes: equal bytes hit, others miss.
        c.put_short(word(b" the"), 4, 1);
        assert_eq!(c.get_short(word(b" the"), 4), Some(1));
        assert_eq!(c.get_short(word(b" thx"), 4), None);
        assert_eq!(c.get_short(word(b" the"), 5), None);
    }

    #[test]
    fn four_pieces_in_one_set_all_hit_and_the_fifth_drops_the_oldest() {
        let mut c = PieceCache::default();
        let names: [&[u8]; 5] = [
            b"alpha-one",
            b"beta-two!",
            b"gamma-3rd",
            b"delta-4th",
            b"epsilon-5",
        ];
        let hash = |k: usize| 42 + (k * SETS) as u64; // same set, different hashes
        for (k, n) in names[..4].iter().enumerate() {
            c.put(n, hash(k), k + 1);
        }
        for (k, n) in names[..4].iter().enumerate() {
            assert_eq!(c.get(n, hash(k)), Some(k + 1));
        }
        c.put(names[4], hash(4), 5);
        assert_eq!(c.get(names[0], hash(0)), None, "the oldest way is dropped");
        assert_eq!(c.get(names[4], hash(4)), Some(5));
    }

    #[test]
    fn starts_over_when_the_arena_is_full() {
        let mut c = PieceCache::default();
        let piece = [b'x'; MAX_PIECE];
        c.put(b"short", 1, 2);
        for i in 0..(ARENA / MAX_PIECE + 10) as u64 {
            c.put(&piece, i << 20 | 2, 5);
        }
        assert!(c.arena.len() <= ARENA);
        let last = (ARENA / MAX_PIECE + 9) as u64;
        assert_eq!(c.get(&piece, last << 20 | 2), Some(5));
        assert_eq!(c.get(b"short", 1), Some(2), "short pieces survive a restart");
    }
}
