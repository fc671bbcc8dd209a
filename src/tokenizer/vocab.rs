//! The vocabulary: every token's bytes in rank order, and the table that finds a rank by bytes.
//!
//! The file layout (`.ctxv`) is chosen for two things: it compresses as well as the
//! smallest vocabulary files shipped for JavaScript today, and it needs no decoding
//! before use. It holds every token's length (one byte each, in rank order), then
//! every token's bytes (in rank order), then a checksum:
//!
//! ```text
//! "CTXV" | version u8 | name_len u8 | name | n u32le | len[n] u8 | bytes | checksum u64le
//! ```
//!
//! Keeping the lengths apart from the bytes lets gzip model each stream on its own
//! (o200k_base: 993 KB gzip -9, against 1,049 KB for interleaved length-prefixed tokens).
//!
//! At load the bytes are used where they lie (an embedded vocabulary is never copied) and
//! a lookup table is built by counting sort: hash every token, count tokens per bucket
//! (about three each), then write two `u64`s per token in bucket order: rank, length,
//! offset and a 14-bit tag, and the token's first eight bytes. Every pass is sequential or lands in a small array, so o200k
//! builds in a few milliseconds; an open-addressing table of the same tokens took ten
//! times longer, nearly all of it scattered first writes to fresh memory. A lookup reads
//! the bucket's bounds and its few entries; only tokens longer than eight bytes are
//! compared against the stored bytes. One- and
//! two-byte keys, the most common lookups while merging, go through direct tables.

use std::borrow::Cow;
use std::sync::OnceLock;

use super::hash::{hash_bytes, hash_bytes_seeded, word};
use crate::error::Error;

const MAGIC: &[u8; 4] = b"CTXV";
const VERSION: u8 = 1;
const CHECKSUM_SEED: u64 = 0x6374_7866_6f6c_6421; // "ctxfold!"

const TAG_BITS: u32 = 14;
const LEN_BITS: u32 = 8;
const OFFSET_BITS: u32 = 22;
const TAG_MASK: u64 = (1 << TAG_BITS) - 1;
const LEN_SHIFT: u32 = TAG_BITS;
const OFFSET_SHIFT: u32 = TAG_BITS + LEN_BITS;
const RANK_SHIFT: u32 = TAG_BITS + LEN_BITS + OFFSET_BITS;
/// The largest vocabulary the slot layout can address.
pub const MAX_TOKENS: usize = 1 << (64 - RANK_SHIFT);
const MAX_TOTAL_BYTES: usize = 1 << OFFSET_BITS;

/// "No token" in the direct tables.
const NONE: u32 = u32::MAX;

/// A vocabulary ready for lookups.
pub struct Vocab {
    name: String,
    data: Cow<'static, [u8]>,
    /// Where the token bytes start inside `data`.
    bytes_start: usize,
    bytes_len: usize,
    len: usize,
    /// `entries[bounds[b]..bounds[b + 1]]` are the tokens whose hash falls in bucket `b`.
    bounds: Vec<u32>,
    /// Per token: `[rank | offset | length | tag, first eight bytes]`.
    entries: Vec<[u64; 2]>,
    shift: u32,
    single: [u32; 256],
    pairs: Vec<u32>,
    /// Start of each token's bytes, built on the first `decode`.
    offsets: OnceLock<Vec<u32>>,
}

impl std::fmt::Debug for Vocab {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Vocab")
            .field("name", &self.name)
            .field("len", &self.len)
            .finish()
    }
}

fn invalid(reason: impl Into<String>) -> Error {
    Error::InvalidVocabulary {
        reason: reason.into(),
    }
}

/// Reads the name written in a `.ctxv` header without parsing the rest.
pub fn peek_name(data: &[u8]) -> Result<&str, Error> {
    if data.len() < 6 || &data[..4] != MAGIC {
        return Err(invalid(
            "not a ctxfold vocabulary (the file does not start with \"CTXV\")",
        ));
    }
    if data[4] != VERSION {
        return Err(invalid(format!(
            "unsupported vocabulary version {} (this build reads version {VERSION})",
            data[4]
        )));
    }
    let name_len = data[5] as usize;
    let name = data
        .get(6..6 + name_len)
        .ok_or_else(|| invalid("truncated header"))?;
    std::str::from_utf8(name).map_err(|_| invalid("the encoding name is not UTF-8"))
}

impl Vocab {
    /// Parses a `.ctxv` file and builds the lookup tables.
    ///
    /// `verify` checks the trailing checksum; embedded vocabularies skip it (the build
    /// wrote them and the tests read them), loaded ones do not.
    pub fn parse(data: Cow<'static, [u8]>, verify: bool) -> Result<Self, Error> {
        let name = peek_name(&data)?.to_owned();
        let mut at = 6 + name.len();
        let n_bytes = data.get(at..at + 4).ok_or_else(|| invalid("truncated header"))?;
        let len = u32::from_le_bytes([n_bytes[0], n_bytes[1], n_bytes[2], n_bytes[3]]) as usize;
        at += 4;
        if !(256..=MAX_TOKENS).contains(&len) {
            return Err(invalid(format!("{len} tokens: expected 256 to {MAX_TOKENS}")));
        }
        let lengths = data
            .get(at..at + len)
            .ok_or_else(|| invalid("truncated token lengths"))?;
        if let Some(rank) = lengths.iter().position(|&l| l == 0) {
            return Err(invalid(format!("token {rank} is empty")));
        }
        let bytes_len: usize = lengths.iter().map(|&l| l as usize).sum();
        if bytes_len > MAX_TOTAL_BYTES {
            return Err(invalid(format!(
                "{bytes_len} bytes of tokens: at most {MAX_TOTAL_BYTES}"
            )));
        }
        let bytes_start = at + len;
        let end = bytes_start + bytes_len;
        if data.len() != end + 8 {
            return Err(invalid(format!(
                "{} bytes, expected {} for {len} tokens",
                data.len(),
                end + 8
            )));
        }
        if verify {
            let stored = u64::from_le_bytes(data[end..end + 8].try_into().expect("8 bytes"));
            if stored != hash_bytes_seeded(&data[..end], CHECKSUM_SEED) {
                return Err(invalid("checksum mismatch: the file is corrupt or truncated"));
            }
        }

        let lengths = &data[at..at + len];
        let bytes = &data[bytes_start..end];
        // About three tokens per bucket.
        let bits = (len / 3).next_power_of_two().trailing_zeros().max(4);
        let shift = 64 - bits;
        let mut single = [NONE; 256];
        let mut pairs = vec![NONE; 1 << 16];
        let mut hashes = Vec::with_capacity(len);
        let mut bounds = vec![0u32; (1 << bits) + 1];
        let mut offset = 0usize;
        for (rank, &l) in lengths.iter().enumerate() {
            let key = &bytes[offset..offset + l as usize];
            match key {
                [b] => single[*b as usize] = rank as u32,
                [a, b] => pairs[(*a as usize) << 8 | *b as usize] = rank as u32,
                _ => {}
            }
            let h = hash_bytes(key);
            bounds[(h >> shift) as usize + 1] += 1;
            hashes.push(h);
            offset += l as usize;
        }
        for b in 0..1 << bits {
            bounds[b + 1] += bounds[b];
        }
        let mut cursor = bounds.clone();
        let mut entries = vec![[0u64; 2]; len];
        let mut offset = 0usize;
        for (rank, (&h, &l)) in hashes.iter().zip(lengths).enumerate() {
            let b = (h >> shift) as usize;
            let meta = (rank as u64) << RANK_SHIFT
                | (offset as u64) << OFFSET_SHIFT
                | (l as u64) << LEN_SHIFT
                | (h & TAG_MASK);
            entries[cursor[b] as usize] = [meta, head_word(&bytes[offset..offset + l as usize])];
            cursor[b] += 1;
            offset += l as usize;
        }
        let vocab = Vocab {
            name,
            bytes_start,
            bytes_len,
            len,
            bounds,
            entries,
            shift,
            single,
            pairs,
            offsets: OnceLock::new(),
            data,
        };
        if let Some(byte) = vocab.single.iter().position(|&r| r == NONE) {
            return Err(invalid(format!("no token for the single byte 0x{byte:02x}")));
        }
        if verify {
            vocab.check_unique()?;
        }
        Ok(vocab)
    }

    /// Two tokens with the same bytes would make ranks ambiguous. Only loaded files are
    /// checked: the embedded ones are checked by the test suite.
    fn check_unique(&self) -> Result<(), Error> {
        for bucket in self.bounds.windows(2) {
            let entries = &self.entries[bucket[0] as usize..bucket[1] as usize];
            for (i, &[a, _]) in entries.iter().enumerate() {
                for &[b, _] in &entries[i + 1..] {
                    if (a ^ b) & (TAG_MASK | 0xFF << LEN_SHIFT) == 0
                        && self.entry_bytes(a) == self.entry_bytes(b)
                    {
                        return Err(invalid(format!(
                            "token {} repeats token {}",
                            b >> RANK_SHIFT,
                            a >> RANK_SHIFT
                        )));
                    }
                }
            }
        }
        Ok(())
    }

    #[inline(always)]
    fn entry_bytes(&self, e: u64) -> &[u8] {
        let start = self.bytes_start + ((e >> OFFSET_SHIFT) & ((1 << OFFSET_BITS) - 1)) as usize;
        &self.data[start..start + ((e >> LEN_SHIFT) & 0xFF) as usize]
    }

    /// The rank of the token whose bytes are `key`, if there is one.
    #[inline]
    pub fn rank(&self, key: &[u8]) -> Option<u32> {
        let r = match key.len() {
            1 => self.single[key[0] as usize],
            2 => self.pairs[(key[0] as usize) << 8 | key[1] as usize],
            _ => return self.rank_hashed(key),
        };
        (r != NONE).then_some(r)
    }

    #[inline]
    fn rank_hashed(&self, key: &[u8]) -> Option<u32> {
        self.rank_with_hash(key, hash_bytes(key))
    }

    /// [`Vocab::rank`] for a key of three bytes or more whose [`hash_bytes`] is known.
    #[inline]
    pub fn rank_with_hash(&self, key: &[u8], h: u64) -> Option<u32> {
        let b = (h >> self.shift) as usize;
        let want = (key.len() as u64) << LEN_SHIFT | (h & TAG_MASK);
        let head = head_word(key);
        for &[meta, first] in &self.entries[self.bounds[b] as usize..self.bounds[b + 1] as usize] {
            if meta & (TAG_MASK | 0xFF << LEN_SHIFT) == want
                && first == head
                && (key.len() <= 8 || eq_bytes(&self.entry_bytes(meta)[8..], &key[8..]))
            {
                return Some((meta >> RANK_SHIFT) as u32);
            }
        }
        None
    }

    /// The rank of a single byte: every vocabulary has one for each of the 256 values.
    #[inline(always)]
    pub fn byte_rank(&self, byte: u8) -> u32 {
        self.single[byte as usize]
    }

    /// The name written in the file, e.g. `o200k_base`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Number of tokens (special tokens excluded).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Always false: a vocabulary has at least the 256 single bytes.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The bytes of the token with this rank.
    pub fn token_bytes(&self, rank: u32) -> Option<&[u8]> {
        let offsets = self.offsets.get_or_init(|| {
            let lengths = &self.data[self.bytes_start - self.len..self.bytes_start];
            let mut offsets = Vec::with_capacity(self.len + 1);
            let mut at = 0u32;
            offsets.push(0);
            for &l in lengths {
                at += l as u32;
                offsets.push(at);
            }
            offsets
        });
        let r = rank as usize;
        if r >= self.len {
            return None;
        }
        let (a, b) = (offsets[r] as usize, offsets[r + 1] as usize);
        Some(&self.data[self.bytes_start + a..self.bytes_start + b])
    }

    /// Total size of the token bytes.
    pub fn bytes_len(&self) -> usize {
        self.bytes_len
    }
}

/// The word [`Vocab`] keeps beside each entry: the first eight bytes, or all of a shorter key.
#[inline(always)]
fn head_word(key: &[u8]) -> u64 {
    word(&key[..key.len().min(8)])
}

/// Byte equality a word at a time (a `memcmp` call costs more than these short keys, and
/// on wasm32 it is a byte loop).
#[inline(always)]
pub fn eq_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let (mut ca, mut cb) = (a.chunks_exact(8), b.chunks_exact(8));
    for (x, y) in (&mut ca).zip(&mut cb) {
        if word(x) != word(y) {
            return false;
        }
    }
    word(ca.remainder()) == word(cb.remainder())
}

/// Writes a `.ctxv` file from tokens in rank order.
pub fn serialize(name: &str, tokens: &[Vec<u8>]) -> Vec<u8> {
    assert!(name.len() < 256 && tokens.len() <= MAX_TOKENS);
    let mut out = Vec::with_capacity(16 + tokens.iter().map(|t| t.len() + 1).sum::<usize>());
    out.extend_from_slice(MAGIC);
    out.push(VERSION);
    out.push(name.len() as u8);
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(&(tokens.len() as u32).to_le_bytes());
    for t in tokens {
        assert!(
            !t.is_empty() && t.len() < 256,
            "token length {} out of range",
            t.len()
        );
        out.push(t.len() as u8);
    }
    for t in tokens {
        out.extend_from_slice(t);
    }
    let checksum = hash_bytes_seeded(&out, CHECKSUM_SEED);
    out.extend_from_slice(&checksum.to_le_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> Vec<Vec<u8>> {
        let mut tokens: Vec<Vec<u8>> = (0..=255u8).map(|b| vec![b]).collect();
        for t in [
            "ab",
            "abc",
            "hello",
            " world",
            "a very long token that spans more than eight",
        ] {
            tokens.push(t.as_bytes().to_vec());
        }
        tokens
    }

    #[test]
    fn round_trip_and_lookup() {
        let tokens = tiny();
        let v = Vocab::parse(Cow::Owned(serialize("tiny", &tokens)), true).unwrap();
        assert_eq!(v.name(), "tiny");
        assert_eq!(v.len(), tokens.len());
        for (rank, t) in tokens.iter().enumerate() {
            assert_eq!(v.rank(t), Some(rank as u32), "{t:?}");
            assert_eq!(v.token_bytes(rank as u32), Some(&t[..]));
        }
        assert_eq!(v.rank(b"abcd"), None);
        assert_eq!(v.rank(b"hellp"), None);
        assert_eq!(v.rank(b"zz"), None);
        assert_eq!(v.token_bytes(tokens.len() as u32), None);
    }

    #[test]
    fn rejects_bad_files() {
        let good = serialize("tiny", &tiny());
        let err = |data: Vec<u8>| Vocab::parse(Cow::Owned(data), true).unwrap_err().to_string();

        assert!(err(b"nope".to_vec()).contains("CTXV"));
        let mut corrupt = good.clone();
        let at = corrupt.len() - 20;
        corrupt[at] ^= 1;
        assert!(err(corrupt).contains("checksum"));
        assert!(err(good[..good.len() - 1].to_vec()).contains("expected"));
        let mut version = good.clone();
        version[4] = 9;
        assert!(err(version).contains("version 9"));

        let mut dup = tiny();
        dup.push(b"abc".to_vec());
        assert!(err(serialize("d", &dup)).contains("token 261 repeats token 257"));
        let missing: Vec<Vec<u8>> = tiny().into_iter().skip(1).chain([b"xy".to_vec()]).collect();
        assert!(err(serialize("m", &missing)).contains("0x00"));
    }
}
