//! A small, fast, non-cryptographic hash for byte strings.
//!
//! Used for the vocabulary table (keys are 1-128 bytes, most under 8) and for the
//! count cache (keys are whole messages). Reads eight bytes at a time; the final
//! mix spreads every input bit over the high bits the table indexes with.

const K: u64 = 0x9E37_79B9_7F4A_7C15;
const K2: u64 = 0xD6E8_FEB8_6659_FD93;

#[inline(always)]
fn mix(h: u64, word: u64) -> u64 {
    (h ^ word).wrapping_mul(K).rotate_left(23)
}

/// Up to eight bytes as one word, without a copy (a variable-length copy is a `memcpy`
/// call on wasm32). Overlapping loads cover every byte, so for a given length different
/// bytes give different words: callers may compare words instead of bytes.
#[inline(always)]
pub fn word(b: &[u8]) -> u64 {
    let n = b.len();
    if n >= 8 {
        u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
    } else if n >= 4 {
        let lo = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64;
        let hi = u32::from_le_bytes([b[n - 4], b[n - 3], b[n - 2], b[n - 1]]) as u64;
        lo | hi << 32
    } else if n > 0 {
        b[0] as u64 | (b[n / 2] as u64) << 8 | (b[n - 1] as u64) << 16
    } else {
        0
    }
}

/// Hashes `bytes` with `seed`.
#[inline]
pub fn hash_bytes_seeded(bytes: &[u8], seed: u64) -> u64 {
    let mut h = seed ^ (bytes.len() as u64).wrapping_mul(K2);
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        h = mix(h, word(c));
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        h = mix(h, word(rest));
    }
    h ^= h >> 32;
    h = h.wrapping_mul(K2);
    h ^ (h >> 29)
}

/// Hashes `bytes`.
#[inline]
pub fn hash_bytes(bytes: &[u8]) -> u64 {
    hash_bytes_seeded(bytes, 0)
}

/// A `Hasher` for maps keyed by short strings (tool-call ids): one pass of
/// [`hash_bytes_seeded`] per write, instead of SipHash. Not for keys an attacker picks to
/// collide on purpose; ours come from the caller's own messages.
#[derive(Default, Clone, Copy)]
pub struct FastHasher(u64);

impl std::hash::Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        self.0 = hash_bytes_seeded(bytes, self.0);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// A `HashMap` with [`FastHasher`].
pub type FastMap<K, V> = std::collections::HashMap<K, V, std::hash::BuildHasherDefault<FastHasher>>;
/// A `HashSet` with [`FastHasher`].
pub type FastSet<K> = std::collections::HashSet<K, std::hash::BuildHasherDefault<FastHasher>>;

/// Two independent 64-bit hashes in one pass, fed field by field without copying: the
/// content key of the count cache (a wrong hit needs both lanes to collide).
#[derive(Clone, Copy, Debug)]
pub struct Hash128 {
    a: u64,
    b: u64,
}

const KB: u64 = 0xC2B2_AE3D_27D4_EB4F;

impl Hash128 {
    /// A hasher seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        Hash128 {
            a: seed ^ K,
            b: seed.rotate_left(32) ^ KB,
        }
    }

    #[inline(always)]
    fn word(&mut self, w: u64) {
        self.a = (self.a ^ w).wrapping_mul(K).rotate_left(23);
        self.b = (self.b ^ w.rotate_left(17)).wrapping_mul(KB).rotate_left(29);
    }

    /// Feeds a field: its length, then its bytes (so field boundaries are unambiguous).
    #[inline]
    pub fn field(&mut self, bytes: &[u8]) {
        self.word(bytes.len() as u64);
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.word(word(c));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            self.word(word(rest));
        }
    }

    /// Feeds a small number.
    #[inline]
    pub fn number(&mut self, n: u64) {
        self.word(n ^ 0x9E37_79B9);
    }

    /// Both lanes, mixed.
    pub fn finish(&self) -> (u64, u64) {
        let fin = |mut h: u64, k: u64| {
            h ^= h >> 32;
            h = h.wrapping_mul(k);
            h ^ (h >> 29)
        };
        (fin(self.a, K2), fin(self.b, K))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn length_and_content_both_matter() {
        assert_ne!(hash_bytes(b""), hash_bytes(b"\0"));
        assert_ne!(hash_bytes(b"ab"), hash_bytes(b"ba"));
        assert_ne!(hash_bytes(b"12345678"), hash_bytes(b"123456789"));
        assert_eq!(hash_bytes(b"hello"), hash_bytes(b"hello"));
    }

    #[test]
    fn word_is_injective_per_length() {
        let mut seen = std::collections::HashSet::new();
        for len in 0..=3usize {
            for v in 0u32..1 << (8 * len) {
                assert!(
                    seen.insert((len, word(&v.to_le_bytes()[..len]))),
                    "len {len} value {v}"
                );
            }
        }
        for len in 4..=8usize {
            let key: Vec<u8> = (1..=len as u8).collect();
            for i in 0..len {
                let mut other = key.clone();
                other[i] ^= 0x80;
                assert_ne!(word(&key), word(&other), "len {len} byte {i}");
            }
        }
    }

    #[test]
    fn hash128_separates_fields_and_lanes() {
        let h = |fields: &[&[u8]]| {
            let mut x = Hash128::new(1);
            for f in fields {
                x.field(f);
            }
            x.finish()
        };
        assert_ne!(h(&[b"ab", b"c"]), h(&[b"a", b"bc"]));
        assert_eq!(h(&[b"ab", b"c"]), h(&[b"ab", b"c"]));
        let (a, b) = h(&[b"hello"]);
        assert_ne!(a, b);
    }

    #[test]
    fn high_bits_spread_over_short_keys() {
        // The vocabulary table indexes with the top bits; sequential short keys must not pile up.
        let mut buckets = [0u32; 256];
        for i in 0u32..65_536 {
            buckets[(hash_bytes(&i.to_le_bytes()[..3]) >> 56) as usize] += 1;
        }
        let (min, max) = (buckets.iter().min().unwrap(), buckets.iter().max().unwrap());
        assert!(*min > 180 && *max < 340, "skewed: min {min}, max {max}");
    }
}
