//! Characters and runs over the bytes of a UTF-8 text: what the scanners share.
//!
//! The scanners follow the baseline's Python regexes, whose `\w` is Unicode (letters, digits
//! and `_`) and whose `\s` includes `\x1c`..`\x1f`. These helpers answer those questions at a
//! byte offset, with an ASCII fast path, so the scanners never decode the whole text.

/// `\w` of the baseline regexes, which is Unicode: letters, digits and `_`.
pub(super) fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The character starting at byte `i` (a character boundary), if any.
pub(super) fn char_at(b: &[u8], i: usize) -> Option<char> {
    let first = *b.get(i)?;
    if first < 0x80 {
        return Some(first as char);
    }
    let len = match first {
        0xF0.. => 4,
        0xE0.. => 3,
        _ => 2,
    };
    std::str::from_utf8(b.get(i..i + len)?).ok()?.chars().next()
}

/// The character ending at byte `i`, if any.
pub(super) fn char_before(b: &[u8], i: usize) -> Option<char> {
    let last = *b.get(i.checked_sub(1)?)?;
    if last < 0x80 {
        return Some(last as char);
    }
    let mut start = i - 1;
    while start > 0 && i - start < 4 && b[start] & 0xC0 == 0x80 {
        start -= 1;
    }
    std::str::from_utf8(&b[start..i]).ok()?.chars().next()
}

#[inline]
pub(super) fn word_at(b: &[u8], i: usize) -> bool {
    match b.get(i) {
        Some(&c) if c < 0x80 => c.is_ascii_alphanumeric() || c == b'_',
        Some(_) => char_at(b, i).is_some_and(is_word),
        None => false,
    }
}

#[inline]
pub(super) fn word_before(b: &[u8], i: usize) -> bool {
    match i.checked_sub(1).map(|j| b[j]) {
        Some(c) if c < 0x80 => c.is_ascii_alphanumeric() || c == b'_',
        Some(_) => char_before(b, i).is_some_and(is_word),
        None => false,
    }
}

/// `\b`: a word character on exactly one side of `i`.
#[inline]
pub(super) fn boundary(b: &[u8], i: usize) -> bool {
    word_before(b, i) != word_at(b, i)
}

/// The byte length of the character at `i` (1 past the end).
#[inline]
pub(super) fn char_len(b: &[u8], i: usize) -> usize {
    match b.get(i) {
        Some(&c) if c >= 0xF0 => 4,
        Some(&c) if c >= 0xE0 => 3,
        Some(&c) if c >= 0xC0 => 2,
        _ => 1,
    }
}

/// The first `byte` at or after `i`.
pub(super) fn find(b: &[u8], i: usize, byte: u8) -> Option<usize> {
    b.get(i..)?.iter().position(|&c| c == byte).map(|p| p + i)
}

/// The end of the run of bytes from `i` that satisfy `f`.
pub(super) fn run(b: &[u8], i: usize, f: impl Fn(u8) -> bool) -> usize {
    i + b[i.min(b.len())..].iter().take_while(|&&c| f(c)).count()
}

/// `\d{min,max}\b` from `i`: the digit run must be maximal (a longer one has no `\b`
/// inside it) and followed by a non-word character.
pub(super) fn digits_then_boundary(b: &[u8], i: usize, min: usize, max: usize) -> Option<usize> {
    let end = run(b, i, |c| c.is_ascii_digit());
    ((min..=max).contains(&(end - i)) && !word_at(b, end)).then_some(end)
}

/// Python's `\s`: Unicode whitespace plus the ASCII separators `\x1c`..`\x1f`.
pub(super) fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\x1c'..='\x1f').contains(&c)
}
