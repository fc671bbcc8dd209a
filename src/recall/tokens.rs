//! Words as the index sees them: runs of letters and digits, lowercased (Unicode-aware);
//! in a script written without spaces (Han, kana, Hangul) every two neighbouring characters
//! are one term, so a query matches inside a sentence without a dictionary. A few English
//! stop words are left out.

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
    let mut word = String::new();
    let mut word_start = 0;
    let mut word_chars = 0;
    let mut prev_cjk: Option<(usize, char)> = None;
    let mut term = String::new();
    for (at, c) in text.char_indices() {
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
            continue;
        }
        prev_cjk = None;
        if c.is_alphanumeric() {
            if word_chars == 0 {
                word_start = at;
            }
            word.extend(c.to_lowercase());
            word_chars += 1;
        } else {
            flush(&mut word, word_start, at, word_chars, &mut f);
            word_chars = 0;
        }
    }
    flush(&mut word, word_start, text.len(), word_chars, &mut f);
}

/// English words too common to tell messages apart, sorted: neither indexed nor searched
/// (a question's `what is in` would otherwise rank every short message).
const STOP: &[&str] = &[
    "a", "about", "an", "and", "are", "as", "at", "be", "been", "but", "by", "can", "did", "do", "does",
    "for", "from", "had", "has", "have", "he", "her", "his", "how", "i", "if", "in", "is", "it", "its", "me",
    "my", "of", "on", "or", "our", "she", "so", "that", "the", "their", "them", "they", "this", "to", "was",
    "we", "were", "what", "when", "where", "which", "who", "why", "will", "with", "you", "your",
];

/// Whether `word` (lowercased) is a stop word.
pub fn is_stop(word: &str) -> bool {
    STOP.binary_search(&word).is_ok()
}

fn flush(word: &mut String, start: usize, end: usize, chars: usize, f: &mut impl FnMut(&str, usize, usize)) {
    if chars > 0 && chars <= MAX_WORD && !is_stop(word) {
        f(word, start, end);
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
    }

    #[test]
    fn offsets_point_at_the_original_text() {
        let text = "Straße ist LANG";
        for t in tokens(text) {
            assert_eq!(text[t.start..t.end].to_lowercase(), t.term);
        }
    }

    #[test]
    fn cjk_is_read_as_bigrams() {
        assert_eq!(terms("東京タワー"), ["東京", "京タ", "タワ", "ワー"]);
        assert_eq!(terms("我 去"), ["我", "去"]);
        assert_eq!(terms("go東京go"), ["go", "東京", "go"]);
    }

    #[test]
    fn the_stop_list_is_sorted() {
        assert!(STOP.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn very_long_runs_are_not_words() {
        let blob = "a".repeat(MAX_WORD + 1);
        assert_eq!(terms(&format!("x {blob} y")), ["x", "y"]);
    }
}
