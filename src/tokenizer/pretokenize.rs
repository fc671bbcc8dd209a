//! The pre-tokenizers: the two regular expressions tiktoken splits text with, written out
//! as hand-made matchers.
//!
//! tiktoken runs these patterns through a backtracking regex engine; that is most of its
//! cost, and compiling them is most of its start-up time. Each function below gives the
//! end of the match the regex would find at a position, alternative by alternative and
//! in the regex's order, with the backtracking spelled out where it changes the result.
//! Every character starts a match of some alternative, so a split is a plain loop.
//! Exactness is checked against tiktoken-rs over the corpus and by property tests.

use super::unicode::{
    bit, class_at, BLOCKS_ASCII, LETTER, LETTER_OTHER, LOWER, MARK, NUMBER, OTHER, SPACE, UPPER,
};

/// Which pattern to split with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// `o200k_base`.
    O200k,
    /// `cl100k_base`.
    Cl100k,
}

/// Calls `f` with every piece of `text`, in order. The pieces concatenate to `text`.
#[inline]
pub fn split(pattern: Pattern, text: &str, mut f: impl FnMut(&[u8])) {
    let s = text.as_bytes();
    let mut i = 0;
    match pattern {
        Pattern::O200k => {
            while i < s.len() {
                let e = o200k_end(s, i);
                f(&s[i..e]);
                i = e;
            }
        }
        Pattern::Cl100k => {
            while i < s.len() {
                let e = cl100k_end(s, i);
                f(&s[i..e]);
                i = e;
            }
        }
    }
}

/// `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`
const UPPERISH: u8 = bit(UPPER) | bit(LETTER_OTHER) | bit(MARK);
/// `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`
const LOWERISH: u8 = bit(LOWER) | bit(LETTER_OTHER) | bit(MARK);
/// In both sets above.
const BOTH: u8 = UPPERISH & LOWERISH;
/// `[^\r\n\p{L}\p{N}]` without its `\r\n` exception, which is tested on the byte.
const PREFIX: u8 = bit(OTHER) | bit(MARK) | bit(SPACE);
/// `[^\s\p{L}\p{N}]`
const PUNCT: u8 = bit(OTHER) | bit(MARK);

#[inline(always)]
fn is_newline(b: u8) -> bool {
    b == b'\r' || b == b'\n'
}

/// End of the longest run of characters in `set` starting at `i`.
#[inline(always)]
fn run(s: &[u8], mut i: usize, set: u8) -> usize {
    while i < s.len() {
        let (c, l) = class_at(s, i);
        if bit(c) & set == 0 {
            break;
        }
        i += l;
    }
    i
}

/// `(?i:'s|'t|'re|'ve|'m|'ll|'d)?` at `e`: the end after an optional contraction.
///
/// Case-insensitive matching in Unicode mode lets `s` also match U+017F (ſ, `C5 BF`).
#[inline(always)]
fn contraction(s: &[u8], e: usize) -> usize {
    if e + 1 >= s.len() || s[e] != b'\'' {
        return e;
    }
    let at = |k: usize| s.get(e + k).map_or(0, |b| b.to_ascii_lowercase());
    match at(1) {
        b's' | b't' | b'm' | b'd' => e + 2,
        0xc5 if s.get(e + 2) == Some(&0xbf) => e + 3,
        b'r' | b'v' if at(2) == b'e' => e + 3,
        b'l' if at(2) == b'l' => e + 3,
        _ => e,
    }
}

/// `[UPPERISH]*[LOWERISH]+` + contraction at `j`, with the engine's backtracking.
///
/// The greedy upper-ish run gives back characters one at a time until a lower-ish one
/// can start: either the character after the run is lower-case, or the run gives back
/// to its last character that is in both sets (a mark, `Lm` or `Lo`).
#[inline(always)]
fn upper_then_lower(s: &[u8], j: usize) -> Option<usize> {
    let mut k = j;
    let mut last_both = usize::MAX;
    while k < s.len() {
        let (c, l) = class_at(s, k);
        if bit(c) & UPPERISH == 0 {
            if bit(c) & LOWERISH != 0 {
                return Some(contraction(s, run(s, k, LOWERISH)));
            }
            break;
        }
        if bit(c) & BOTH != 0 {
            last_both = k;
        }
        k += l;
    }
    (last_both != usize::MAX).then(|| contraction(s, run(s, last_both, LOWERISH)))
}

/// `[UPPERISH]+[LOWERISH]*` + contraction at `j`.
#[inline(always)]
fn upper_run(s: &[u8], j: usize) -> Option<usize> {
    let k = run(s, j, UPPERISH);
    (k > j).then(|| contraction(s, run(s, k, LOWERISH)))
}

/// Whitespace run at `i` (which is whitespace): its end, the start of its last character
/// and the position of its last `\r` or `\n`.
#[inline(always)]
fn space_run(s: &[u8], i: usize) -> (usize, usize, Option<usize>) {
    let (mut k, mut last, mut newline) = (i, i, None);
    while k < s.len() {
        let (c, l) = class_at(s, k);
        if c != SPACE {
            break;
        }
        if is_newline(s[k]) {
            newline = Some(k);
        }
        last = k;
        k += l;
    }
    (k, last, newline)
}

/// ` ?[^\s\p{L}\p{N}]+` then a run of `tail` bytes, or `None`.
#[inline(always)]
fn punct(s: &[u8], i: usize, m0: u8, tail: impl Fn(u8) -> bool) -> Option<usize> {
    let j = if s[i] == b' ' && i + 1 < s.len() && bit(class_at(s, i + 1).0) & PUNCT != 0 {
        i + 1
    } else if m0 & PUNCT != 0 {
        i
    } else {
        return None;
    };
    let mut e = run(s, j, PUNCT);
    while e < s.len() && tail(s[e]) {
        e += 1;
    }
    Some(e)
}

/// End of the `o200k_base` match at `i`:
///
/// ```text
/// [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
/// |[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
/// |\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
/// ```
fn o200k_end(s: &[u8], i: usize) -> usize {
    if s[i] < 0x80 {
        if let Some(e) = ascii_word(s, i, true).or_else(|| ascii_other(s, i, true)) {
            return e;
        }
    }
    let (c0, l0) = class_at(s, i);
    let m0 = bit(c0);
    let prefix = m0 & PREFIX != 0 && !is_newline(s[i]) && i + l0 < s.len();
    let letterish = m0 & (UPPERISH | LOWERISH) != 0;
    if prefix || letterish {
        // Alternative 1 with the optional prefix taken, then without it; then alternative 2.
        if prefix {
            if let Some(e) = upper_then_lower(s, i + l0) {
                return e;
            }
        }
        if letterish {
            if let Some(e) = upper_then_lower(s, i) {
                return e;
            }
        }
        if prefix {
            if let Some(e) = upper_run(s, i + l0) {
                return e;
            }
        }
        if letterish {
            if let Some(e) = upper_run(s, i) {
                return e;
            }
        }
    }
    if c0 == NUMBER {
        return numbers(s, i, l0);
    }
    if let Some(e) = punct(s, i, m0, |b| is_newline(b) || b == b'/') {
        return e;
    }
    // c0 is whitespace.
    let (end, last, newline) = space_run(s, i);
    match newline {
        Some(p) => p + 1,              // \s*[\r\n]+
        None if end == s.len() => end, // \s+(?!\S) at the end of the text
        None if last > i => last,      // \s+(?!\S): leave the last one to the next piece
        None => end,                   // \s+
    }
}

/// The common case of both patterns, all in ASCII: an optional space or punctuation
/// byte, then upper-case letters, then lower-case ones (`o200k_base` with its contraction
/// suffix). Returns `None`, and the caller takes the general path, unless the whole
/// match is ASCII and ends before an ASCII byte: a non-ASCII letter or mark could
/// continue it. In ASCII there are no characters in both upper- and lower-ish sets, so
/// the regex never backtracks here.
#[inline(always)]
fn ascii_word(s: &[u8], i: usize, o200k: bool) -> Option<usize> {
    let n = s.len();
    let b0 = s[i];
    let j = if b0.is_ascii_alphabetic() {
        i
    } else if (b0.is_ascii_punctuation() || b0 == b' ' || b0 == b'\t' || (0x0b..=0x0c).contains(&b0))
        && i + 1 < n
        && s[i + 1].is_ascii_alphabetic()
    {
        i + 1
    } else {
        return None;
    };
    let mut k = j;
    if o200k {
        while k < n && s[k].is_ascii_uppercase() {
            k += 1;
        }
        while k < n && s[k].is_ascii_lowercase() {
            k += 1;
        }
    } else {
        while k < n && s[k].is_ascii_alphabetic() {
            k += 1;
        }
    }
    if k < n && s[k] >= 0x80 {
        return None;
    }
    Some(if o200k { contraction(s, k) } else { k })
}

/// The rest of the ASCII cases: digits, punctuation runs and whitespace runs, with the
/// same rules as the general matchers below, taken only while every byte that could
/// change the match is ASCII (`None` otherwise: the general path decides).
#[inline(always)]
fn ascii_other(s: &[u8], i: usize, o200k: bool) -> Option<usize> {
    let n = s.len();
    let b0 = s[i];
    // Non-ASCII bytes get no class here (255): every test below then fails or defers.
    let class = |b: u8| {
        if b < 0x80 {
            BLOCKS_ASCII[b as usize]
        } else {
            u8::MAX
        }
    };
    let next = |k: usize| s.get(k).copied();
    // A byte after which the general path would ask about a non-ASCII character.
    let unsure = |k: usize| next(k).is_some_and(|b| b >= 0x80);
    match class(b0) {
        NUMBER => {
            let mut e = i + 1;
            while e < n && e < i + 3 && s[e].is_ascii_digit() {
                e += 1;
            }
            (e == i + 3 || !unsure(e)).then_some(e)
        }
        OTHER | SPACE
            if b0 != b' ' && class(b0) == OTHER
                || (b0 == b' ' && next(i + 1).is_some_and(|b| class(b) == OTHER)) =>
        {
            // Alternatives with a letter after the prefix are out: the byte after the
            // prefix is ASCII and not a letter (ascii_word took the letter case).
            let j = if b0 == b' ' { i + 1 } else { i };
            if unsure(j + 1) || (j == i && next(i + 1).is_some_and(|b| b.is_ascii_alphabetic())) {
                return None;
            }
            let mut e = j + 1;
            while e < n && s[e] < 0x80 && class(s[e]) == OTHER {
                e += 1;
            }
            if unsure(e) {
                return None;
            }
            while e < n && (s[e] == b'\r' || s[e] == b'\n' || (o200k && s[e] == b'/')) {
                e += 1;
            }
            Some(e)
        }
        SPACE => {
            let mut e = i;
            let mut newline = None;
            while e < n && s[e] < 0x80 && class(s[e]) == SPACE {
                if is_newline(s[e]) {
                    newline = Some(e);
                }
                e += 1;
            }
            if unsure(e) {
                return None;
            }
            // A space then a letter is a prefix (ascii_word); then a digit or
            // punctuation only after a run of one.
            if e == i + 1 && b0 != b'\r' && b0 != b'\n' && e < n {
                return if s[e].is_ascii_alphabetic() { None } else { Some(e) };
            }
            Some(if !o200k && e == n {
                e // \s++$
            } else if let Some(p) = newline {
                p + 1
            } else if e == n {
                e
            } else {
                e - 1 // \s+(?!\S): the last space goes with what follows
            })
        }
        _ => None,
    }
}

/// `\p{N}{1,3}` at `i`, whose first character (`l0` bytes) is a number.
#[inline(always)]
fn numbers(s: &[u8], i: usize, l0: usize) -> usize {
    let mut e = i + l0;
    for _ in 0..2 {
        if e >= s.len() {
            break;
        }
        let (c, l) = class_at(s, e);
        if c != NUMBER {
            break;
        }
        e += l;
    }
    e
}

/// End of the `cl100k_base` match at `i`, as tiktoken-rs writes the pattern:
///
/// ```text
/// '(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+
/// |\s++$|\s*[\r\n]|\s+(?!\S)|\s
/// ```
fn cl100k_end(s: &[u8], i: usize) -> usize {
    if s[i] == b'\'' {
        let e = contraction(s, i);
        if e != i {
            return e;
        }
    }
    if s[i] < 0x80 {
        if let Some(e) = ascii_word(s, i, false).or_else(|| ascii_other(s, i, false)) {
            return e;
        }
    }
    let (c0, l0) = class_at(s, i);
    let m0 = bit(c0);
    if m0 & LETTER != 0 {
        return run(s, i, LETTER);
    }
    // The prefix is possessive: once taken it is not given back.
    if m0 & PREFIX != 0 && !is_newline(s[i]) && i + l0 < s.len() && bit(class_at(s, i + l0).0) & LETTER != 0 {
        return run(s, i + l0, LETTER);
    }
    if c0 == NUMBER {
        return numbers(s, i, l0);
    }
    if let Some(e) = punct(s, i, m0, is_newline) {
        return e;
    }
    let (end, last, newline) = space_run(s, i);
    if end == s.len() {
        return end; // \s++$
    }
    match newline {
        Some(p) => p + 1,         // \s*[\r\n]
        None if last > i => last, // \s+(?!\S)
        None => i + l0,           // \s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(p: Pattern, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        split(p, text, |b| out.push(String::from_utf8(b.to_vec()).unwrap()));
        out
    }

    #[test]
    fn o200k_examples() {
        let p = |t| pieces(Pattern::O200k, t);
        assert_eq!(p("Hello world"), ["Hello", " world"]);
        assert_eq!(p("don't DON'T"), ["don't", " DON'T"]);
        assert_eq!(p("ABCdef"), ["ABCdef"]);
        assert_eq!(p("12345"), ["123", "45"]);
        assert_eq!(p("a  b"), ["a", " ", " b"]);
        assert_eq!(p("x\n\n  y"), ["x", "\n\n", " ", " y"]);
        assert_eq!(p("end  "), ["end", "  "]);
        assert_eq!(p("path/to//x"), ["path", "/to", "//", "x"]);
        assert_eq!(p(" !!\n/"), [" !!\n/"]);
        assert_eq!(p("中文字"), ["中文字"]);
    }

    #[test]
    fn cl100k_examples() {
        let p = |t| pieces(Pattern::Cl100k, t);
        assert_eq!(p("Hello world"), ["Hello", " world"]);
        assert_eq!(p("don't"), ["don", "'t"]);
        assert_eq!(p("'sam"), ["'s", "am"]);
        assert_eq!(p("a  b"), ["a", " ", " b"]);
        assert_eq!(p("x\n\n  y"), ["x", "\n\n", " ", " y"]);
        assert_eq!(p("end \n "), ["end", " \n "]);
        assert_eq!(p("12345"), ["123", "45"]);
    }
}
