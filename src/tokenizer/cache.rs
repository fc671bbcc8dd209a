//! A small exact cache of how many tokens a merged piece became.
//!
//! Pieces that are not a token themselves (identifiers, paths, long or rare words) cost
//! ten or more lookups to merge, and in real conversations the same ones come back again
//! and again. The cache keys on the piece's bytes (kept in an arena, compared in full),
//! so a hit is always right; it is direct-mapped and starts over when the arena fills,
//! so its memory is bounded.

use super::vocab::eq_bytes;

const SLOTS: usize = 1 << 12;
const ARENA: usize = 1 << 17;
/// Longer pieces are rare and would crowd the arena.
pub const MAX_PIECE: usize = 96;

#[derive(Clone, Copy, Default)]
struct Slot {
    hash: u64,
    start: u32,
    len: u16,
    count: u16,
}

/// Piece bytes -> token count.
pub struct MergeCache {
    slots: Vec<Slot>,
    arena: Vec<u8>,
}

impl Default for MergeCache {
    fn default() -> Self {
        MergeCache {
            slots: vec![Slot::default(); SLOTS],
            arena: Vec::with_capacity(ARENA),
        }
    }
}

impl MergeCache {
    /// The cached count of `piece`, whose hash is `hash`.
    #[inline]
    pub fn get(&self, piece: &[u8], hash: u64) -> Option<usize> {
        let s = self.slots[(hash as usize) & (SLOTS - 1)];
        (s.hash == hash
            && s.len as usize == piece.len()
            && eq_bytes(
                &self.arena[s.start as usize..s.start as usize + piece.len()],
                piece,
            ))
        .then_some(s.count as usize)
    }

    /// Remembers that `piece` (at most [`MAX_PIECE`] bytes) merges into `count` tokens.
    #[inline]
    pub fn put(&mut self, piece: &[u8], hash: u64, count: usize) {
        debug_assert!(piece.len() <= MAX_PIECE);
        if self.arena.len() + piece.len() > ARENA {
            self.arena.clear();
            self.slots.fill(Slot::default());
        }
        let start = self.arena.len() as u32;
        self.arena.extend_from_slice(piece);
        self.slots[(hash as usize) & (SLOTS - 1)] = Slot {
            hash,
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
        let mut c = MergeCache::default();
        c.put(b"identifier", 7, 3);
        assert_eq!(c.get(b"identifier", 7), Some(3));
        // Same hash and length, other bytes: a miss, never a wrong count.
        assert_eq!(c.get(b"identifiex", 7), None);
        assert_eq!(c.get(b"identifier", 8), None);
    }

    #[test]
    fn starts_over_when_full() {
        let mut c = MergeCache::default();
        let piece = [b'x'; MAX_PIECE];
        for i in 0..(ARENA / MAX_PIECE + 10) as u64 {
            c.put(&piece, i, 5);
        }
        assert!(c.arena.len() <= ARENA);
        assert_eq!(c.get(&piece, (ARENA / MAX_PIECE + 9) as u64), Some(5));
    }
}
