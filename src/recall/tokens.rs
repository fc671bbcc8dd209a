//! Words as the index sees them: runs of letters and digits, lowercased (Unicode-aware);
//! in a script written without spaces (Han, kana, Hangul) every two neighbouring characters
//! are one term, so a query matches inside a sentence without a dictionary. A few English
//! stop words are left out, and English plurals are read as their singular (Harman's "S"
//! stemmer: `reservations` is `reservation`, `queries` `query`), so a question in the singular
//! finds a list in the plural (a tool's `payment_methods`) and the other way round.

/// One term of a text and where it is (bytes), for the snippet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// The term, lowercased.
    pub term: String,
    /// Its first byte in the text.
    pub start: usize,
    /// The byte after it.
    pub end: usize,
}

/// Longer runs are not words (base64, minified code): the census keeps what matters of them.
const MAX_WORD: usize = 48;

/// Whether `c` is written without spaces between words.
fn unspaced(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // hiragana, katakana
        | 0x3400..=0x4DBF    // CJK extension A
        | 0x4E00..=0x9FFF    // CJK unified
        | 0xF900..=0xFAFF    // compatibility ideographs
        | 0xAC00..=0xD7AF    // Hangul syllables
        | 0x20000..=0x2FFFF) // supplementary ideographs
}

/// Calls `f` with each term of `text`, in order.
pub fn each(text: &str, mut f: impl FnMut(&str, usize, usize)) {
    let bytes = text.as_bytes();
    let mut word = String::new();
    let mut word_start = 0;
    let mut word_chars = 0;
    let mut prev_cjk: Option<(usize, char)> = None;
    let mut term = String::new();
    let mut at = 0;
    while at < bytes.len() {
        let b = bytes[at];
        if b < 0x80 {
            // ASCII, most of what is read: no decoding, no case tables, and a word that is
            // all ASCII is handed over from the text itself when it is lowercase already.
            prev_cjk = None;
            if !b.is_ascii_alphanumeric() {
                flush(&mut word, word_start, at, word_chars, &mut f);
                word_chars = 0;
                at += 1;
                continue;
            }
            let start = at;
            while at < bytes.len() && bytes[at].is_ascii_alphanumeric() {
                at += 1;
            }
            let run = &text[start..at];
            if word_chars == 0 && bytes.get(at).is_none_or(|&n| n < 0x80) {
                ascii_word(run, start, &mut term, &mut f);
                continue;
            }
            if word_chars == 0 {
                word_start = start;
            }
            word.extend(run.bytes().map(|c| c.to_ascii_lowercase() as char));
            word_chars += run.len();
            continue;
        }
        let c = text[at..].chars().next().expect("a character starts here");
        let end = at + c.len_utf8();
        if unspaced(c) {
            flush(&mut word, word_start, at, word_chars, &mut f);
            word_chars = 0;
            match prev_cjk {
                Some((start, p)) => {
                    term.clear();
                    term.push(p);
                    term.push(c);
                    f(&term, start, end);
                }
                None if !text[end..].chars().next().is_some_and(unspaced) => {
                    // A lone character is its own term.
                    term.clear();
                    term.push(c);
                    f(&term, at, end);
                }
                None => {}
            }
            prev_cjk = Some((at, c));
        } else if c.is_alphanumeric() {
            prev_cjk = None;
            if word_chars == 0 {
                word_start = at;
            }
            word.extend(c.to_lowercase());
            word_chars += 1;
        } else {
            prev_cjk = None;
            flush(&mut word, word_start, at, word_chars, &mut f);
            word_chars = 0;
        }
        at = end;
    }
    flush(&mut word, word_start, text.len(), word_chars, &mut f);
}

/// English words too common to tell messages apart, sorted: neither indexed nor searched
/// (a question's `what is in` would otherwise rank every short message).
const STOP: &[&str] = &[
    "a", "about", "an", "and", "are", "as", "at", "be", "been", "but", "by", "can", "did", "do", "does",
    "for", "from", "had", "has", "have", "he", "her", "his", "how", "i", "if", "in", "is", "it", "its", "me",
    "my", "of", "on", "or", "our", "s", "she", "so", "t", "that", "the", "their", "them", "they", "this",
    "to", "was", "we", "were", "what", "when", "where", "which", "who", "why", "will", "with", "you", "your",
];

/// A word of at most 8 bytes as one number (its bytes, big-endian).
const fn packed(word: &[u8]) -> u64 {
    let mut v = 0u64;
    let mut i = 0;
    while i < word.len() {
        v = v << 8 | word[i] as u64;
        i += 1;
    }
    v
}

/// [`STOP`] packed and sorted: a word is looked up as one number, not compared as text
/// (which was most of the indexing's time).
const STOP_PACKED: [u64; 64] = {
    // Padded with words no text has, so the search halves evenly.
    let mut out = [u64::MAX; 64];
    let mut i = 0;
    while i < STOP.len() {
        out[i] = packed(STOP[i].as_bytes());
        i += 1;
    }
    // Insertion sort, at compile time.
    let mut i = 1;
    while i < out.len() {
        let mut j = i;
        while j > 0 && out[j - 1] > out[j] {
            let t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
            j -= 1;
        }
        i += 1;
    }
    out
};

/// Whether `word` (lowercased) is a stop word.
pub fn is_stop(word: &str) -> bool {
    if word.len() > 5 {
        return false;
    }
    let v = packed(word.as_bytes());
    // A binary search without branches to mispredict (the table's length is a power of two).
    let mut i = 0;
    let mut half = STOP_PACKED.len() / 2;
    while half > 0 {
        if STOP_PACKED[i + half] <= v {
            i += half;
        }
        half /= 2;
    }
    STOP_PACKED[i] == v
}

/// Hands over `run`, a whole word of ASCII letters and digits at `start`, lowercased.
fn ascii_word(run: &str, start: usize, buf: &mut String, f: &mut impl FnMut(&str, usize, usize)) {
    if run.len() > MAX_WORD {
        return;
    }
    let word = if run.bytes().any(|c| c.is_ascii_uppercase()) {
        buf.clear();
        buf.extend(run.bytes().map(|c| c.to_ascii_lowercase() as char));
        buf.as_str()
    } else {
        run
    };
    if !is_stop(word) {
        f(&singular(word), start, start + run.len());
    }
}

/// `word` (lowercased) without its English plural ending, by Harman's "S" stemmer (1991):
/// `-ies` but not `-eies`/`-aies` is `-y`; `-es` but not `-aes`/`-ees`/`-oes` is `-e`; `-s`
/// but not `-us`/`-ss` goes; words of three letters or fewer are left as they are. Only
/// ASCII endings are touched, so the result is a prefix of the word plus at most a `y`.
fn singular(word: &str) -> std::borrow::Cow<'_, str> {
    let b = word.as_bytes();
    let n = b.len();
    if n <= 3 || b[n - 1] != b's' {
        return word.into();
    }
    let ends = |suffix: &str| word.ends_with(suffix);
    if ends("ies") && !ends("eies") && !ends("aies") {
        return format!("{}y", &word[..n - 3]).into();
    }
    if ends("es") && !ends("aes") && !ends("ees") && !ends("oes") {
        return word[..n - 1].into();
    }
    if ends("us") || ends("ss") {
        return word.into();
    }
    word[..n - 1].into()
}

fn flush(word: &mut String, start: usize, end: usize, chars: usize, f: &mut impl FnMut(&str, usize, usize)) {
    if chars > 0 && chars <= MAX_WORD && !is_stop(word) {
        f(&singular(word), start, end);
    }
    word.clear();
}

/// The terms of `text`, with where they are.
pub fn tokens(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    each(text, |term, start, end| {
        out.push(Token {
            term: term.to_owned(),
            start,
            end,
        })
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(text: &str) -> Vec<String> {
        tokens(text).into_iter().map(|t| t.term).collect()
    }

    #[test]
    fn words_are_lowercased_and_split_on_punctuation() {
        assert_eq!(terms("Hello, Wörld! ÉCOLE v2"), ["hello", "wörld", "école", "v2"]);
        assert_eq!(terms("What is in the box"), ["box"]);
        assert_eq!(terms("snake_case-id"), ["snake", "case", "id"]);
        assert_eq!(terms("Naïve CAFÉS, cafés"), ["naïve", "café", "café"]);
        assert_eq!(terms("Über2 x東京"), ["über2", "x", "東京"]);
    }

    #[test]
    fn plurals_are_read_as_singulars() {
        assert_eq!(
            terms("Reservations queries horses trees status glass gas IDs John's 1990s"),
            [
                "reservation",
                "query",
                "horse",
                "tree",
                "status",
                "glass",
                "gas",
                "ids",
                "john",
                "1990"
            ]
        );
        assert_eq!(terms("payment_methods"), ["payment", "method"]);
    }

    #[test]
    fn offsets_point_at_the_original_text() {
        let text = "Straße ist LANG, Straßes";
        for t in tokens(text) {
            assert!(text[t.start..t.end].to_lowercase().starts_with(&t.term), "{t:?}");
        }
    }

    #[test]
    fn cjk_is_read_as_bigrams() {
        assert_eq!(terms("東京タワー"), ["東京", "京タ", "タワ", "ワー"]);
        assert_eq!(terms("我 去"), ["我", "去"]);
        assert_eq!(terms("go東京go"), ["go", "東京", "go"]);
    }

    #[test]
    fn the_stop_list_is_sorted_and_short() {
        assert!(STOP.windows(2).all(|w| w[0] < w[1]));
        assert!(STOP.iter().all(|w| w.len() <= 5 && is_stop(w)));
        assert!(!is_stop("abou") && !is_stop("thes") && !is_stop("x"));
    }

    #[test]
    fn very_long_runs_are_not_words() {
        let blob = "a".repeat(MAX_WORD + 1);
        assert_eq!(terms(&format!("x {blob} y")), ["x", "y"]);
    }
}
