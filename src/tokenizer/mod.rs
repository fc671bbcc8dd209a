//! Exact BPE token counts for OpenAI's `o200k_base` and `cl100k_base` encodings.
//!
//! Same tokens as tiktoken's `encode_ordinary` (special-token strings in the text are
//! ordinary text, as providers treat message content): a [`pretokenize`] split by
//! hand-written matchers for tiktoken's two patterns, then [`bpe`] merges over a
//! [`vocab`] that is usable as soon as its bytes are in memory.
//!
//! ```
//! use ctxfold::tokenizer::{tokenizer, Encoding};
//! let enc = tokenizer(Encoding::O200kBase).unwrap();
//! assert_eq!(enc.count("Hello, world!"), 4);
//! ```

mod bpe;
mod cache;
pub mod hash;
mod pretokenize;
mod unicode;
mod unicode_table;
pub mod vocab;

use std::borrow::Cow;
use std::sync::{Mutex, OnceLock};

use crate::error::Error;
pub use pretokenize::Pattern;
use vocab::Vocab;

/// A BPE encoding ctxfold counts exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, ts_rs::TS)]
pub enum Encoding {
    /// GPT-4o, GPT-4.1, GPT-5, o1/o3/o4 models.
    #[serde(rename = "o200k_base")]
    O200kBase,
    /// GPT-4, GPT-4 Turbo, GPT-3.5 Turbo, text-embedding-3.
    #[serde(rename = "cl100k_base")]
    Cl100kBase,
}

impl Encoding {
    /// Every encoding, in the order the docs list them.
    pub const ALL: [Encoding; 2] = [Encoding::O200kBase, Encoding::Cl100kBase];

    /// The tiktoken name, e.g. `"o200k_base"`.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::O200kBase => "o200k_base",
            Encoding::Cl100kBase => "cl100k_base",
        }
    }

    /// Looks an encoding up by its tiktoken name.
    pub fn from_name(name: &str) -> Result<Self, Error> {
        Self::ALL
            .into_iter()
            .find(|e| e.name() == name)
            .ok_or_else(|| Error::UnknownEncoding {
                name: name.to_owned(),
            })
    }

    fn pattern(self) -> Pattern {
        match self {
            Encoding::O200kBase => Pattern::O200k,
            Encoding::Cl100kBase => Pattern::Cl100k,
        }
    }

    fn slot(self) -> &'static OnceLock<Tokenizer> {
        static O200K: OnceLock<Tokenizer> = OnceLock::new();
        static CL100K: OnceLock<Tokenizer> = OnceLock::new();
        match self {
            Encoding::O200kBase => &O200K,
            Encoding::Cl100kBase => &CL100K,
        }
    }

    /// The vocabulary compiled into this build, if any.
    pub fn embedded(self) -> Option<&'static [u8]> {
        match self {
            #[cfg(feature = "o200k")]
            Encoding::O200kBase => Some(include_bytes!("../../vocab/o200k_base.ctxv")),
            #[cfg(feature = "cl100k")]
            Encoding::Cl100kBase => Some(include_bytes!("../../vocab/cl100k_base.ctxv")),
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }
}

impl std::fmt::Display for Encoding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A ready tokenizer for one encoding.
pub struct Tokenizer {
    encoding: Encoding,
    vocab: Vocab,
    pieces: Mutex<cache::PieceCache>,
}

impl std::fmt::Debug for Tokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tokenizer")
            .field("encoding", &self.encoding)
            .field("vocab", &self.vocab)
            .finish()
    }
}

impl Tokenizer {
    /// Builds a tokenizer from a `.ctxv` vocabulary file. The file names its encoding.
    pub fn from_bytes(data: Cow<'static, [u8]>, verify: bool) -> Result<Self, Error> {
        let name = vocab::peek_name(&data)?;
        let encoding = Encoding::from_name(name).map_err(|_| Error::InvalidVocabulary {
            reason: format!("the file is for {name:?}, which ctxfold does not know"),
        })?;
        let vocab = Vocab::parse(data, verify)?;
        Ok(Tokenizer {
            encoding,
            vocab,
            pieces: Mutex::default(),
        })
    }

    /// The encoding this tokenizer implements.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// The vocabulary behind it.
    pub fn vocab(&self) -> &Vocab {
        &self.vocab
    }

    /// The number of tokens in `text`.
    pub fn count(&self, text: &str) -> usize {
        // Another thread counting with this tokenizer holds the cache: go without it.
        let mut guard = self.pieces.try_lock().ok();
        let mut n = 0;
        pretokenize::split(self.encoding.pattern(), text, |piece| {
            n += match piece.len() {
                1 => 1,
                // The direct pair table answers faster than any cache.
                2 => 1 + self.vocab.rank(piece).is_none() as usize,
                len if len <= 8 => {
                    let w = hash::word(piece);
                    match guard.as_deref_mut() {
                        Some(cache) => cache.get_short(w, len).unwrap_or_else(|| {
                            let k = self.count_piece(piece, hash::hash_bytes(piece));
                            cache.put_short(w, len, k);
                            k
                        }),
                        None => self.count_piece(piece, hash::hash_bytes(piece)),
                    }
                }
                len => {
                    let h = hash::hash_bytes(piece);
                    match guard.as_deref_mut().filter(|_| len <= cache::MAX_PIECE) {
                        Some(cache) => cache.get(piece, h).unwrap_or_else(|| {
                            let k = self.count_piece(piece, h);
                            cache.put(piece, h, k);
                            k
                        }),
                        None => self.count_piece(piece, h),
                    }
                }
            };
        });
        n
    }

    /// Forgets the cached piece counts.
    pub fn clear_cache(&self) {
        if let Ok(mut cache) = self.pieces.lock() {
            *cache = cache::PieceCache::default();
        }
    }

    /// Tokens in one piece of two bytes or more, whose hash is `h`.
    #[inline]
    fn count_piece(&self, piece: &[u8], h: u64) -> usize {
        let known = if piece.len() == 2 {
            self.vocab.rank(piece).is_some()
        } else {
            self.vocab.rank_with_hash(piece, h).is_some()
        };
        if known {
            1
        } else if piece.len() == 2 {
            2
        } else {
            bpe::merge_count(&self.vocab, piece)
        }
    }

    /// The tokens of `text`.
    pub fn encode(&self, text: &str) -> Vec<u32> {
        let mut out = Vec::with_capacity(text.len() / 3);
        pretokenize::split(self.encoding.pattern(), text, |piece| {
            match self.vocab.rank(piece) {
                Some(r) => out.push(r),
                None => bpe::merge(&self.vocab, piece, |a, b| {
                    out.push(self.vocab.rank(&piece[a..b]).expect("merged parts are tokens"))
                }),
            }
        });
        out
    }

    /// The bytes of `tokens`, concatenated. Unknown ids are an error.
    pub fn decode_bytes(&self, tokens: &[u32]) -> Result<Vec<u8>, Error> {
        let mut out = Vec::with_capacity(tokens.len() * 4);
        for (i, &t) in tokens.iter().enumerate() {
            let bytes = self.vocab.token_bytes(t).ok_or_else(|| Error::InvalidArgument {
                argument: format!("tokens[{i}]"),
                expected: format!("a token id below {} for {}", self.vocab.len(), self.encoding),
            })?;
            out.extend_from_slice(bytes);
        }
        Ok(out)
    }

    /// The longest prefix of `text` made of its first `max_tokens` tokens or fewer, cut at
    /// a token boundary that is also a character boundary. BPE is not prefix-stable, so a
    /// caller that needs a bound on the prefix's own count recounts it.
    pub fn truncate<'t>(&self, text: &'t str, max_tokens: usize) -> &'t str {
        let (mut n, mut cut, mut at) = (0, 0, 0);
        pretokenize::split(self.encoding.pattern(), text, |piece| {
            let start = at;
            at += piece.len();
            if n >= max_tokens {
                return;
            }
            if piece.len() == 1 || self.vocab.rank(piece).is_some() {
                n += 1;
                cut = at;
                return;
            }
            bpe::merge(&self.vocab, piece, |_, b| {
                if n < max_tokens {
                    n += 1;
                    if text.is_char_boundary(start + b) {
                        cut = start + b;
                    }
                }
            });
        });
        &text[..cut]
    }
}

/// The tokenizer for `encoding`: the embedded vocabulary on first use, or the one given to
/// [`load`]. Errors with [`Error::VocabularyNotLoaded`] in a build without it.
pub fn tokenizer(encoding: Encoding) -> Result<&'static Tokenizer, Error> {
    let slot = encoding.slot();
    if let Some(t) = slot.get() {
        return Ok(t);
    }
    let data = encoding.embedded().ok_or(Error::VocabularyNotLoaded {
        encoding: encoding.name(),
    })?;
    let t = Tokenizer::from_bytes(Cow::Borrowed(data), false)?;
    Ok(slot.get_or_init(|| t))
}

/// Forgets the piece counts every loaded tokenizer has cached.
pub fn clear_caches() {
    for e in Encoding::ALL {
        if let Some(t) = e.slot().get() {
            t.clear_cache();
        }
    }
}

/// Whether `encoding` is ready without loading anything.
pub fn is_available(encoding: Encoding) -> bool {
    encoding.slot().get().is_some() || encoding.embedded().is_some()
}

/// The SHA-256 of every vocabulary file ctxfold ships (`vocab/SHA256SUMS`, in `sha256sum`
/// format), compiled in: a file loaded at run time must be one of them. The format's own
/// checksum catches corruption; this catches a file made to look valid.
const PINNED: &str = include_str!("../../vocab/SHA256SUMS");

/// The pinned SHA-256 of `encoding`'s file, as hex.
pub fn pinned_sha256(encoding: Encoding) -> Option<&'static str> {
    PINNED.lines().find_map(|line| {
        let (hex, file) = line.split_once("  ")?;
        (file.strip_suffix(".ctxv")? == encoding.name()).then_some(hex)
    })
}

/// Installs a vocabulary loaded at run time (the lite build ships none). Returns its
/// encoding. The bytes must be the shipped file (their SHA-256 is pinned), so loading an
/// encoding that is already present changes nothing.
pub fn load(data: Vec<u8>) -> Result<Encoding, Error> {
    use sha2::{Digest, Sha256};
    let encoding = Encoding::from_name(vocab::peek_name(&data)?).map_err(|e| Error::InvalidVocabulary {
        reason: e.to_string(),
    })?;
    let digest: String = Sha256::digest(&data).iter().map(|b| format!("{b:02x}")).collect();
    if pinned_sha256(encoding) != Some(digest.as_str()) {
        return Err(Error::InvalidVocabulary {
            reason: format!(
                "not the {} file ctxfold ships (its SHA-256 is {digest}, not the one pinned in this build)",
                encoding.name()
            ),
        });
    }
    let slot = encoding.slot();
    if slot.get().is_none() {
        let t = Tokenizer::from_bytes(Cow::Owned(data), true)?;
        let _ = slot.set(t);
    }
    Ok(encoding)
}

#[cfg(test)]
mod pin_tests {
    use super::*;
    use sha2::{Digest, Sha256};

    /// The pins are the files in `vocab/`: a vocabulary rebuilt without updating
    /// `vocab/SHA256SUMS` (or the other way round) fails here.
    #[test]
    fn the_pinned_digests_are_the_shipped_files() {
        for e in Encoding::ALL {
            let path = format!("{}/vocab/{}.ctxv", env!("CARGO_MANIFEST_DIR"), e.name());
            let bytes = std::fs::read(&path).unwrap();
            let digest: String = Sha256::digest(&bytes)
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            assert_eq!(pinned_sha256(e), Some(digest.as_str()), "{path}");
        }
    }

    /// A file made to pass the format's own checks (its checksum is not cryptographic),
    /// named cl100k_base, with one token changed: refused, and the real file loads after it.
    #[test]
    fn a_crafted_vocabulary_is_refused() {
        let real = std::fs::read(format!("{}/vocab/cl100k_base.ctxv", env!("CARGO_MANIFEST_DIR"))).unwrap();
        let parsed = vocab::Vocab::parse(Cow::Owned(real.clone()), true).unwrap();
        let mut tokens: Vec<Vec<u8>> = (0..parsed.len() as u32)
            .map(|r| parsed.token_bytes(r).unwrap().to_vec())
            .collect();
        tokens.swap(1000, 1001);
        let crafted = vocab::serialize("cl100k_base", &tokens);
        assert!(
            vocab::Vocab::parse(Cow::Owned(crafted.clone()), true).is_ok(),
            "the format accepts it"
        );
        let err = load(crafted).unwrap_err();
        assert_eq!(err.code(), "INVALID_VOCABULARY");
        assert!(err.to_string().contains("SHA-256"), "{err}");
        assert_eq!(load(real), Ok(Encoding::Cl100kBase));
    }
}
