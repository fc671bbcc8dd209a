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

/// Whether `needle` is grounded in `haystack`: mentioned ([`mentions`]), or written there in
/// full where the needle is its usual short form: a hash of 7 or more hex digits that
/// starts a longer one (a short commit SHA), a path that ends a longer one at a `/` or `\\`
/// (`src/a.py` of `/srv/app/src/a.py`). A summary's identifier found nowhere is reported
/// unsupported and taken out; one of these forms is how a person abbreviates, not an
/// invention.
///
/// ```
/// use ctxfold::ids::grounded;
/// assert!(grounded("commit 3f9c2a7d1e5b4c8f0a6d", "3f9c2a7"));
/// assert!(grounded("see /srv/app/src/a.py", "src/a.py"));
/// assert!(!grounded("commit 3f9c2a7d1e5b4c8f0a6d", "3f9c2a"));
/// assert!(!grounded("see /srv/app/xsrc/a.py", "src/a.py"));
/// ```
pub fn grounded(haystack: &str, needle: &str) -> bool {
    if mentions(haystack, needle) {
        return true;
    }
    let hash = needle.len() >= 7
        && needle.bytes().all(|b| b.is_ascii_hexdigit())
        && needle.bytes().any(|b| b.is_ascii_digit());
    let path = needle.contains(['/', '\\']);
    if needle.is_empty() || !(hash || path) {
        return false;
    }
    let h = haystack.as_bytes();
    let mut from = 0;
    while let Some(p) = haystack[from..].find(needle) {
        let s = from + p;
        let e = s + needle.len();
        let tail = path && matches!(char_before(h, s), Some('/' | '\\'));
        let head = hash && char_at(h, e).is_some_and(|c| c.is_ascii_hexdigit());
        let before = tail || !continues_before(h, s);
        let after = head || !continues_after(h, e);
        if before && after {
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
