//! The wasm32 tests, shared by `tests/wasm_node.rs` (Node) and `tests/wasm_browser.rs`
//! (headless Chromium): the core as it runs inside the shipped module, with 32-bit
//! `usize` and the wasm allocator. The JS-facing functions (`countTokens`, ...) are
//! tested through the built package in `tests/js/`, `tests/browser/` and `tests/workerd/`.
//!
//! Every test runs under the default features and under `--no-default-features` (the
//! lite build): what depends on the embedded vocabularies checks `cfg(feature = ...)`.

use std::borrow::Cow;
use std::sync::OnceLock;

use ctxfold::tokenizer::{self, tokenizer, Encoding, Tokenizer};
use ctxfold::Error;
use wasm_bindgen_test::wasm_bindgen_test;

const CL100K: &[u8] = include_bytes!("../../vocab/cl100k_base.ctxv");
const O200K: &[u8] = include_bytes!("../../vocab/o200k_base.ctxv");
const FIXTURE: &str = include_str!("../fixtures/cross-runtime.json");

/// Token ids from OpenAI's tokenizer (js-tiktoken, special tokens as ordinary text).
const KNOWN: &[(Encoding, &str, &[u32])] = &[
    (Encoding::O200kBase, "Hello, world!", &[13225, 11, 2375, 0]),
    (
        Encoding::O200kBase,
        "tiktoken is great!",
        &[83, 8251, 2488, 382, 2212, 0],
    ),
    (
        Encoding::O200kBase,
        "  indented\n\tcode",
        &[220, 1383, 23537, 198, 86873],
    ),
    (
        Encoding::O200kBase,
        "日本語のテキスト",
        &[9048, 40909, 3385, 16056, 18368, 38236],
    ),
    (
        Encoding::O200kBase,
        "<|endoftext|>",
        &[27, 91, 419, 1440, 919, 91, 29],
    ),
    (Encoding::Cl100kBase, "Hello, world!", &[9906, 11, 1917, 0]),
    (
        Encoding::Cl100kBase,
        "tiktoken is great!",
        &[83, 1609, 5963, 374, 2294, 0],
    ),
    (
        Encoding::Cl100kBase,
        "  indented\n\tcode",
        &[220, 1280, 16243, 198, 44443],
    ),
    (
        Encoding::Cl100kBase,
        "日本語のテキスト",
        &[9080, 22656, 45918, 252, 16144, 57933, 62903, 71634],
    ),
    (
        Encoding::Cl100kBase,
        "<|endoftext|>",
        &[27, 91, 8862, 728, 428, 91, 29],
    ),
];

fn file_of(encoding: Encoding) -> &'static [u8] {
    match encoding {
        Encoding::O200kBase => O200K,
        Encoding::Cl100kBase => CL100K,
    }
}

/// The tokenizer for `encoding`: the embedded one, or in the lite build one made from its
/// file and kept here, so that only `load_installs_a_vocabulary_once` installs anything and
/// the lite build's "not loaded" state does not depend on the order tests run in.
fn ready(encoding: Encoding) -> &'static Tokenizer {
    if encoding.embedded().is_some() {
        return tokenizer(encoding).unwrap();
    }
    static O200K_LOADED: OnceLock<Tokenizer> = OnceLock::new();
    static CL100K_LOADED: OnceLock<Tokenizer> = OnceLock::new();
    let slot = match encoding {
        Encoding::O200kBase => &O200K_LOADED,
        Encoding::Cl100kBase => &CL100K_LOADED,
    };
    slot.get_or_init(|| Tokenizer::from_bytes(Cow::Borrowed(file_of(encoding)), true).unwrap())
}

/// One case of the shared fixture: a text and its count per encoding.
struct Case {
    name: String,
    text: String,
    counts: Vec<(Encoding, usize)>,
}

fn fixture_cases() -> Vec<Case> {
    let json: serde_json::Value = serde_json::from_str(FIXTURE).unwrap();
    json["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|case| Case {
            name: case["name"].as_str().unwrap().to_owned(),
            text: case["text"].as_str().unwrap().to_owned(),
            counts: Encoding::ALL
                .into_iter()
                .map(|e| (e, case["expected"][e.name()].as_u64().unwrap() as usize))
                .collect(),
        })
        .collect()
}

#[wasm_bindgen_test]
fn known_strings_give_tiktokens_tokens() {
    for &(encoding, text, tokens) in KNOWN {
        let t = ready(encoding);
        assert_eq!(t.encode(text), tokens, "{encoding} {text:?}");
        assert_eq!(t.count(text), tokens.len(), "{encoding} {text:?}");
        assert_eq!(
            t.decode_bytes(tokens).unwrap(),
            text.as_bytes(),
            "{encoding} {text:?}"
        );
    }
}

#[wasm_bindgen_test]
fn fixture_counts_match() {
    let cases = fixture_cases();
    assert!(cases.len() >= 10);
    for Case { name, text, counts } in cases {
        for (encoding, expected) in counts {
            assert_eq!(ready(encoding).count(&text), expected, "{name} {encoding}");
        }
    }
}

#[wasm_bindgen_test]
fn truncate_cuts_at_token_boundaries() {
    let t = ready(Encoding::O200kBase);
    let text = "Hello, world! The quick brown fox jumps over the lazy dog.";
    assert_eq!(t.truncate(text, 0), "");
    assert_eq!(t.truncate(text, 2), "Hello,");
    assert_eq!(t.truncate(text, 1000), text);
    // A multi-byte character is never split.
    let cjk = "日本語のテキスト";
    for n in 0..8 {
        assert!(cjk.is_char_boundary(t.truncate(cjk, n).len()));
    }
}

#[wasm_bindgen_test]
fn a_verified_file_counts_like_the_tokenizer_in_use() {
    // The lite package's path: bytes arrive at run time and are checked before use.
    for encoding in Encoding::ALL {
        let loaded = Tokenizer::from_bytes(Cow::Borrowed(file_of(encoding)), true).unwrap();
        assert_eq!(loaded.encoding(), encoding);
        for Case { name, text, .. } in fixture_cases() {
            assert_eq!(
                loaded.count(&text),
                ready(encoding).count(&text),
                "{name} {encoding}"
            );
        }
    }
}

#[wasm_bindgen_test]
fn load_installs_a_vocabulary_once() {
    #[cfg(not(feature = "cl100k"))]
    {
        assert!(!tokenizer::is_available(Encoding::Cl100kBase));
        let err = tokenizer(Encoding::Cl100kBase).unwrap_err();
        assert_eq!(err.code(), "VOCABULARY_NOT_LOADED");
        assert!(err.to_string().contains("loadVocabulary"), "{err}");
    }
    assert_eq!(tokenizer::load(CL100K.to_vec()), Ok(Encoding::Cl100kBase));
    assert!(tokenizer::is_available(Encoding::Cl100kBase));
    // Loading again keeps the tokenizer in place.
    let before: *const Tokenizer = tokenizer(Encoding::Cl100kBase).unwrap();
    assert_eq!(tokenizer::load(CL100K.to_vec()), Ok(Encoding::Cl100kBase));
    assert!(std::ptr::eq(before, tokenizer(Encoding::Cl100kBase).unwrap()));
    assert_eq!(tokenizer(Encoding::Cl100kBase).unwrap().count("Hello, world!"), 4);
}

#[wasm_bindgen_test]
fn bad_vocabulary_bytes_are_invalid_vocabulary() {
    let code = |bytes: Vec<u8>| Tokenizer::from_bytes(Cow::Owned(bytes), true).unwrap_err().code();
    assert_eq!(code(b"not a vocabulary".to_vec()), "INVALID_VOCABULARY");
    assert_eq!(code(Vec::new()), "INVALID_VOCABULARY");
    assert_eq!(code(CL100K[..CL100K.len() / 2].to_vec()), "INVALID_VOCABULARY");
    let mut flipped = CL100K.to_vec();
    let mid = flipped.len() / 2;
    flipped[mid] ^= 0x55;
    assert_eq!(code(flipped), "INVALID_VOCABULARY", "checksum");
    let mut version = CL100K.to_vec();
    version[4] = 99;
    assert_eq!(code(version), "INVALID_VOCABULARY");
    // tokenizer::load checks the same way, and a bad file installs nothing.
    assert_eq!(
        tokenizer::load(b"CTXV".to_vec()).unwrap_err().code(),
        "INVALID_VOCABULARY"
    );
    // In the lite build nothing installs o200k_base, so a rejected file must leave it absent.
    #[cfg(not(feature = "o200k"))]
    {
        let mut bad = O200K.to_vec();
        let mid = bad.len() / 2;
        bad[mid] ^= 0x55;
        assert_eq!(tokenizer::load(bad).unwrap_err().code(), "INVALID_VOCABULARY");
        assert!(!tokenizer::is_available(Encoding::O200kBase));
        assert_eq!(
            tokenizer(Encoding::O200kBase).unwrap_err().code(),
            "VOCABULARY_NOT_LOADED"
        );
    }
}

#[wasm_bindgen_test]
fn encoding_names_and_error_codes() {
    for encoding in Encoding::ALL {
        assert_eq!(Encoding::from_name(encoding.name()), Ok(encoding));
    }
    let err = Encoding::from_name("p50k_base").unwrap_err();
    assert_eq!(err.code(), "UNKNOWN_ENCODING");
    assert!(err.to_string().contains("p50k_base"), "{err}");
    let err = Error::InvalidArgument {
        argument: "text".into(),
        expected: "a string".into(),
    };
    assert_eq!(err.code(), "INVALID_ARGUMENT");
    // Codes are distinct and listed.
    let codes: Vec<&str> = ctxfold::error::Code::ALL.iter().map(|c| c.as_str()).collect();
    for (i, a) in codes.iter().enumerate() {
        assert!(!codes[i + 1..].contains(a), "{a} twice");
    }
}

#[wasm_bindgen_test]
fn the_build_embeds_what_its_features_say() {
    assert_eq!(Encoding::O200kBase.embedded().is_some(), cfg!(feature = "o200k"));
    assert_eq!(
        Encoding::Cl100kBase.embedded().is_some(),
        cfg!(feature = "cl100k")
    );
}
