//! Mentions: whether a text contains an identifier as a whole, not as part of a longer
//! word or path. The ledger uses it to decide which identifiers a summary kept.

use super::text::{char_at, char_before, char_len, is_word, word_at, word_before};

/// Whether `needle` occurs in `haystack` as a whole identifier, not as part of a longer
/// word or path: `a/b` is not mentioned in `xa/bc`, `src/a.py` not in `/x/src/a.py` or
/// `src/a.pyc`, `HAT12` not in `HAT123`. Sentence punctuation and a `:line` suffix around
/// it are fine (`see src/a.py.`, `src/a.py:12`). Case-sensitive; an empty needle is never
/// mentioned.
///
/// ```
/// use ctxfold::ids::mentions;
/// assert!(mentions("edited /testbed/a.py.", "/testbed/a.py"));
/// assert!(!mentions("edited /testbed/a.pyc", "/testbed/a.py"));
/// ```
pub fn mentions(haystack: &str, needle: &str) -> bool {
    if needle.is_empty() {
        return false;
    }
    let h = haystack.as_bytes();
    let mut from = 0;
    while let Some(p) = haystack[from..].find(needle) {
        let s = from + p;
        let e = s + needle.len();
        if !continues_before(h, s) && !continues_after(h, e) {
            return true;
        }
        from = s + char_len(h, s);
    }
    false
}

/// Whether the text before `s` makes the match the tail of something longer.
fn continues_before(h: &[u8], s: usize) -> bool {
    match char_before(h, s) {
        None => false,
        Some(c) if is_word(c) || matches!(c, '/' | '\\' | '~' | '@') => true,
        Some('.' | '-' | '+' | ':') => word_before(h, s - 1),
        Some(_) => false,
    }
}

/// Whether the text from `e` makes the match the head of something longer.
fn continues_after(h: &[u8], e: usize) -> bool {
    match char_at(h, e) {
        None => false,
        Some(c) if is_word(c) || matches!(c, '/' | '\\' | '@') => true,
        Some('.' | '-' | '+') => word_at(h, e + 1),
        Some(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::mentions;

    #[test]
    fn mentions_are_bounded() {
        assert!(mentions("see a/b here", "a/b"));
        assert!(!mentions("see xa/bc here", "a/b"));
        assert!(mentions("xa/bc and a/b.", "a/b"));
        assert!(!mentions("/x/src/a.py", "src/a.py"));
        assert!(!mentions("src/a.pyc", "src/a.py"));
        assert!(mentions("src/a.py:12", "src/a.py"));
        assert!(!mentions("HAT1234", "HAT123"));
        assert!(mentions("(HAT123)", "HAT123"));
        assert!(mentions("run `git status` first", "git status"));
        assert!(!mentions("www.example.com", "example.com"));
        assert!(!mentions("me@example.com", "example.com"));
        assert!(mentions("#1234.", "#1234"));
        assert!(!mentions("anything", ""));
    }
}
