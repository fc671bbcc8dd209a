//! ctxfold's tokens equal tiktoken-rs's `encode_ordinary`, token for token, for both
//! encodings: on every message of the corpus, on a generated mix of hard text, and on
//! random strings.

mod common;

use ctxfold::tokenizer::{tokenizer, Encoding};
use proptest::prelude::*;
use tiktoken_rs::CoreBPE;

fn reference(encoding: Encoding) -> &'static CoreBPE {
    match encoding {
        Encoding::O200kBase => tiktoken_rs::o200k_base_singleton(),
        Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
    }
}

/// Compares tokens (not just counts) and reports the first difference readably.
fn check(encoding: Encoding, text: &str, what: &str) {
    let ours = tokenizer(encoding).unwrap().encode(text);
    let theirs = reference(encoding).encode_ordinary(text);
    if ours != theirs {
        let at = ours
            .iter()
            .zip(&theirs)
            .position(|(a, b)| a != b)
            .unwrap_or(ours.len().min(theirs.len()));
        let bpe = reference(encoding);
        let show = |t: &[u32]| {
            t.iter()
                .map(|&r| String::from_utf8_lossy(&bpe.decode_bytes(&[r]).unwrap()).into_owned())
                .collect::<Vec<_>>()
        };
        let lo = at.saturating_sub(3);
        panic!(
            "{encoding} differs on {what} at token {at}:\n  ours:   {:?}\n  theirs: {:?}",
            show(&ours[lo..(at + 4).min(ours.len())]),
            show(&theirs[lo..(at + 4).min(theirs.len())]),
        );
    }
    assert_eq!(
        tokenizer(encoding).unwrap().count(text),
        theirs.len(),
        "{encoding} count on {what}"
    );
}

#[test]
fn vocabularies_are_the_reference_vocabularies() {
    for encoding in Encoding::ALL {
        let vocab = tokenizer(encoding).unwrap().vocab();
        let bpe = reference(encoding);
        for rank in 0..vocab.len() as u32 {
            assert_eq!(
                vocab.token_bytes(rank).unwrap(),
                &bpe.decode_bytes(&[rank]).unwrap()[..],
                "{encoding} rank {rank}"
            );
        }
        assert!(bpe.decode_bytes(&[vocab.len() as u32]).is_err() || encoding == Encoding::O200kBase);
    }
}

#[test]
fn every_corpus_message_matches() {
    let mut messages = 0;
    let mut tokens = [0usize; 2];
    for conv in common::conversations() {
        for (i, text) in common::message_texts(&conv).iter().enumerate() {
            for (k, encoding) in Encoding::ALL.into_iter().enumerate() {
                check(encoding, text, &format!("{} text {i}", conv.id));
                tokens[k] += reference(encoding).encode_ordinary(text).len();
            }
            messages += 1;
        }
    }
    println!(
        "{messages} message texts, {} o200k and {} cl100k tokens, all equal",
        tokens[0], tokens[1]
    );
    assert!(messages > 9_000);
}

/// A small deterministic generator (SplitMix64), so failures reproduce.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a, T: ?Sized>(&mut self, xs: &'a [&'a T]) -> &'a T {
        xs[self.below(xs.len())]
    }
}

/// Words from a code point range.
fn script_words(rng: &mut Rng, ranges: &[(u32, u32)], words: usize, sep: &str) -> String {
    let mut s = String::new();
    for w in 0..words {
        if w > 0 {
            s.push_str(sep);
        }
        for _ in 0..1 + rng.below(8) {
            let (a, b) = ranges[rng.below(ranges.len())];
            if let Some(c) = char::from_u32(a + rng.below((b - a) as usize) as u32) {
                s.push(c);
            }
        }
        if rng.below(6) == 0 {
            s.push_str(rng.pick(&[",", ".", "。", "、", "!", "?", ";", ":", "»", "«"]));
        }
    }
    s
}

/// Source code from the crates cargo has unpacked (text nobody here wrote).
fn registry_sources(limit_bytes: usize) -> Vec<String> {
    let home = std::env::var("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|_| std::path::PathBuf::from(std::env::var("HOME").unwrap()).join(".cargo"));
    let mut out = Vec::new();
    let mut total = 0;
    let mut stack = vec![home.join("registry/src")];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut entries: Vec<_> = entries.map(|e| e.unwrap().path()).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                stack.push(p);
            } else if p
                .extension()
                .is_some_and(|x| x == "rs" || x == "md" || x == "toml")
            {
                if let Ok(text) = std::fs::read_to_string(&p) {
                    total += text.len();
                    out.push(text);
                    if total > limit_bytes {
                        return out;
                    }
                }
            }
        }
    }
    out
}

fn generated_corpus() -> Vec<String> {
    let mut rng = Rng(0x00C7_F01D);
    let mut out = Vec::new();
    let cjk = [
        (0x4E00, 0x9FFF),
        (0x3040, 0x309F),
        (0x30A0, 0x30FF),
        (0xAC00, 0xD7A3),
    ];
    let cyrillic = [(0x0410, 0x044F), (0x0400, 0x040F)];
    let others = [
        (0x0391, 0x03C9),
        (0x0600, 0x06FF),
        (0x0900, 0x097F),
        (0x0E00, 0x0E7F),
        (0x05D0, 0x05EA),
    ];
    let emoji = ["😀", "👍🏽", "👨‍👩‍👧‍👦", "🇫🇷", "🏳️‍🌈", "❤️", "🤖", "🔥🔥", "✅", "⚠️"];
    for _ in 0..300 {
        out.push(script_words(&mut rng, &cjk, 40, ""));
        out.push(script_words(&mut rng, &cyrillic, 60, " "));
        out.push(script_words(&mut rng, &others, 60, " "));
        let mut mixed = String::new();
        for _ in 0..40 {
            match rng.below(9) {
                0 => mixed.push_str(rng.pick(&emoji)),
                1 => mixed.push_str(&" ".repeat(1 + rng.below(40))),
                2 => mixed.push_str(&"\n".repeat(1 + rng.below(5))),
                3 => mixed
                    .push_str(rng.pick(&["\t", "\r\n", "\u{a0}", "\u{3000}", "\u{2003}", " \n ", "\n\t\t"])),
                4 => mixed
                    .push_str(rng.pick(&["don't", "DON'T", "we'll", "It'S", "o'ſ", "l'Ll", "'re", "'VE"])),
                5 => mixed.push_str(rng.pick(&[
                    "e\u{301}",
                    "a\u{308}\u{323}",
                    "\u{301}x",
                    "ǅungla",
                    "ᾈ",
                    "ΣΑΣ",
                    "ßẞ",
                ])),
                6 => mixed.push_str(&format!("{}", rng.next() % 10_000_000)),
                7 => mixed.push_str(rng.pick(&[
                    "{\"a\": [1, 2.5e-3, null]}",
                    "<|endoftext|>",
                    "<|im_start|>",
                    "https://example.com/a/b?c=d",
                    "C:\\Users\\x",
                    "x_y_z",
                    "0xDEADbeef",
                ])),
                _ => mixed.push_str(&script_words(&mut rng, &cyrillic, 3, " ")),
            }
        }
        out.push(mixed);
    }
    // Long runs: tiktoken's heap merge and the regex's backtracking both live here.
    for (ch, n) in [
        ("a", 5000),
        (" ", 3000),
        ("\n", 500),
        ("=", 2000),
        ("ab", 1500),
        ("9", 301),
        ("Ж", 700),
        ("🙂", 50),
        (" \n", 400),
        ("x ", 999),
    ] {
        out.push(ch.repeat(n));
    }
    // JSON and code.
    for conv in common::conversations().iter().step_by(5) {
        out.push(serde_json::to_string(&conv.json["messages"]).unwrap());
        out.push(serde_json::to_string_pretty(&conv.json["messages"].as_array().unwrap()[0..3]).unwrap());
    }
    out.extend(registry_sources(3_000_000));
    out
}

#[test]
fn generated_mix_matches() {
    let corpus = generated_corpus();
    let bytes: usize = corpus.iter().map(|s| s.len()).sum();
    for (i, text) in corpus.iter().enumerate() {
        for encoding in Encoding::ALL {
            check(encoding, text, &format!("generated text {i}"));
        }
    }
    println!("{} generated texts, {bytes} bytes, all equal", corpus.len());
    assert!(bytes > 1_000_000);
}

/// Characters that sit on class boundaries the patterns care about.
fn edge_char() -> impl Strategy<Value = char> {
    prop_oneof![
        4 => prop::sample::select(vec![
            ' ', '\n', '\r', '\t', '\'', 's', 'S', 't', 'r', 'e', 'l', 'L', 'v', 'd', 'm', 'ſ', 'A', 'z', '0', '9', '/', '.', '!', '_',
            '\u{a0}', '\u{3000}', '\u{2028}', '\u{85}', '\u{301}', '\u{308}', '\u{1c5}', '\u{2b0}', 'ª', '中', 'ア', 'Ж', 'ж',
            '٣', '²', '½', 'Ⅻ', '😀', '\u{200d}', '\u{fe0f}', '\u{1f3fd}', 'ǅ', 'ß', 'İ', 'K', 'Å', '\u{0}', '\u{7f}',
        ]),
        1 => any::<char>(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4000, ..ProptestConfig::default() })]

    #[test]
    fn random_strings_match(chars in prop::collection::vec(edge_char(), 0..120)) {
        let text: String = chars.into_iter().collect();
        for encoding in Encoding::ALL {
            let theirs = reference(encoding).encode_ordinary(&text);
            prop_assert_eq!(tokenizer(encoding).unwrap().count(&text), theirs.len(), "{} count on {:?}", encoding, text);
            prop_assert_eq!(tokenizer(encoding).unwrap().encode(&text), theirs, "{} on {:?}", encoding, text);
        }
    }

    #[test]
    fn arbitrary_unicode_matches(text in "\\PC{0,200}") {
        for encoding in Encoding::ALL {
            let theirs = reference(encoding).encode_ordinary(&text);
            prop_assert_eq!(tokenizer(encoding).unwrap().count(&text), theirs.len(), "{} count on {:?}", encoding, text);
            prop_assert_eq!(tokenizer(encoding).unwrap().encode(&text), theirs, "{} on {:?}", encoding, text);
        }
    }
}

#[test]
fn embedded_vocabularies_pass_their_checksum() {
    for encoding in Encoding::ALL {
        let data = encoding.embedded().expect("the default build embeds both");
        ctxfold::tokenizer::vocab::Vocab::parse(std::borrow::Cow::Borrowed(data), true).unwrap();
    }
}
