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
    occurrences(haystack, needle, stands_whole).next().is_some()
}

/// The byte ranges where `needle` occurs in `haystack` as a whole identifier (as
/// [`mentions`] finds it), in order.
pub fn whole(haystack: &str, needle: &str) -> Vec<(usize, usize)> {
    occurrences(haystack, needle, stands_whole).collect()
}

/// Whether the match `s..e` is not part of a longer word or path.
fn stands_whole(h: &[u8], s: usize, e: usize) -> bool {
    !continues_before(h, s) && !continues_after(h, e)
}

/// The matches `s..e` of `needle` in `haystack` that `fits(bytes, s, e)` accepts, in order,
/// without overlap (an empty needle has none).
fn occurrences<'a>(
    haystack: &'a str,
    needle: &'a str,
    fits: impl Fn(&[u8], usize, usize) -> bool + 'a,
) -> impl Iterator<Item = (usize, usize)> + 'a {
    let h = haystack.as_bytes();
    let mut from = 0;
    std::iter::from_fn(move || {
        if needle.is_empty() {
            return None;
        }
        while let Some(p) = haystack.get(from..)?.find(needle) {
            let (s, e) = (from + p, from + p + needle.len());
            if fits(h, s, e) {
                from = e;
                return Some((s, e));
            }
            from = s + char_len(h, s);
        }
        None
    })
}

/// Whether `needle` is grounded in `haystack`: mentioned ([`mentions`]), or written there in
/// a fuller form of which the needle is the usual short one: a hash of 7 or more hex digits
/// that starts a longer one (a short commit SHA, in either case); a path that ends a longer
/// one at a `/`, `\\` or `:` (`src/a.py` of `/srv/app/src/a.py`, `role/x` of an ARN); a host
/// or origin that starts a URL's path (`api.acme.io`, `https://api.acme.io`); a version that
/// is an image's tag or a package's (`1.4.0` of `api:1.4.0`); `./a.py` for
/// `a.py`, `$NAME` or `${NAME}` for `NAME`, `v1.2.0` for `1.2.0`. A summary's identifier found
/// nowhere is reported unsupported and taken out; one of these forms is how a person
/// abbreviates, not an invention.
///
/// ```
/// use ctxfold::ids::grounded;
/// assert!(grounded("commit 3f9c2a7d1e5b4c8f0a6d", "3f9c2a7"));
/// assert!(grounded("commit 3f9c2a7d1e5b4c8f0a6d", "3F9C2A7"));
/// assert!(grounded("see /srv/app/src/a.py", "src/a.py"));
/// assert!(grounded("see https://deploy.acme.io/pipelines/8841", "deploy.acme.io"));
/// assert!(grounded("set DATABASE_URL first", "${DATABASE_URL}"));
/// assert!(!grounded("commit 3f9c2a7d1e5b4c8f0a6d", "3f9c2a"));
/// assert!(!grounded("see /srv/app/xsrc/a.py", "src/a.py"));
/// assert!(!grounded("see https://deploy.acme.io.evil.net/x", "deploy.acme.io"));
/// ```
pub fn grounded(haystack: &str, needle: &str) -> bool {
    if mentions(haystack, needle) {
        return true;
    }
    let bare = needle
        .strip_prefix("${")
        .and_then(|n| n.strip_suffix('}'))
        .or_else(|| needle.strip_prefix('$'))
        .or_else(|| needle.strip_prefix("./"))
        .or_else(|| {
            needle
                .strip_prefix('v')
                .filter(|n| n.starts_with(|c: char| c.is_ascii_digit()))
        });
    if let Some(bare) = bare.filter(|b| !b.is_empty()) {
        if grounded(haystack, bare) {
            return true;
        }
    }
    let hash = needle.len() >= 7
        && needle.bytes().all(|b| b.is_ascii_hexdigit())
        && needle.bytes().any(|b| b.is_ascii_digit());
    if hash
        && needle.bytes().any(|b| b.is_ascii_uppercase())
        && fuller(haystack, &needle.to_ascii_lowercase(), true)
    {
        return true;
    }
    fuller(haystack, needle, hash)
}

/// Whether `needle` occurs in `haystack` as the short form of a longer identifier there (see
/// [`grounded`]): `hash`, the start of a longer hash; a path, the end of a longer one; a
/// host or origin, the start of a URL.
fn fuller(haystack: &str, needle: &str, hash: bool) -> bool {
    let path = needle.contains(['/', '\\']);
    let host = !path && needle.contains('.') && !needle.contains(char::is_whitespace);
    let origin = needle.contains("://") && !needle[needle.find("://").unwrap_or(0) + 3..].contains('/');
    let version = needle.starts_with(|c: char| c.is_ascii_digit()) && needle.contains('.');
    if needle.is_empty() || !(hash || path || host || origin || version) {
        return false;
    }
    occurrences(haystack, needle, move |h, s, e| {
        // A path's end, or a version that is an image's tag or a package's (`api:1.4.0`).
        let tail = (path && matches!(char_before(h, s), Some('/' | '\\' | ':')))
            || (version && matches!(char_before(h, s), Some(':' | '@')));
        let head = hash && char_at(h, e).is_some_and(|c| c.is_ascii_hexdigit());
        // A host right after `//`, or an origin, that a URL's path, query or port follows.
        let url_host = host && s >= 2 && &h[s - 2..s] == b"//";
        let url_start = (url_host || origin) && matches!(char_at(h, e), Some('/' | '?' | '#' | ':'));
        let before = tail || url_host || !continues_before(h, s);
        let after = head || url_start || !continues_after(h, e);
        before && after
    })
    .next()
    .is_some()
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
