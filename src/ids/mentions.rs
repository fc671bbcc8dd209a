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
/// `a.py`, `$NAME` or `${NAME}` for `NAME`, `v1.2.0` for `1.2.0` and `1.2.0` for `v1.2.0`;
/// a ticket without its dash (`CS55012` for `CS-55012`); a number with its digits grouped
/// otherwise or its currency written otherwise (`$4500` for `$4,500`, `30,000 ms` for
/// `30000 ms`, `129.99 USD` for `$129.99`). A summary's identifier found nowhere is reported
/// unsupported and taken out; one of these forms is how a person abbreviates or a model
/// reformats, not an invention.
///
/// ```
/// use ctxfold::ids::grounded;
/// assert!(grounded("commit 3f9c2a7d1e5b4c8f0a6d", "3f9c2a7"));
/// assert!(grounded("commit 3f9c2a7d1e5b4c8f0a6d", "3F9C2A7"));
/// assert!(grounded("see /srv/app/src/a.py", "src/a.py"));
/// assert!(grounded("see https://deploy.acme.io/pipelines/8841", "deploy.acme.io"));
/// assert!(grounded("set DATABASE_URL first", "${DATABASE_URL}"));
/// assert!(grounded("upgrade to v15.3.0", "15.3.0"));
/// assert!(grounded("case CS-55012 for #A-21007", "CS55012"));
/// assert!(grounded("budget $4,500, timeout 30000 ms", "$4500"));
/// assert!(grounded("budget $4,500, timeout 30000 ms", "30,000 ms"));
/// assert!(grounded("it cost $129.99", "129.99 USD"));
/// assert!(!grounded("budget $4,500", "$45,000"));
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
    if let Some(dashed) = dashed_ticket(needle) {
        if mentions(haystack, &dashed) {
            return true;
        }
    }
    if let Some(number) = plain_number(needle) {
        if mentions(&plain_numbers(haystack), &number) {
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
            || (version && matches!(char_before(h, s), Some(':' | '@')))
            || (version && matches!(char_before(h, s), Some('v' | 'V')) && !word_before(h, s - 1));
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

/// `CS-55012` for `CS55012`: capitals, then digits (a ticket written without its dash).
fn dashed_ticket(needle: &str) -> Option<String> {
    let letters = needle.bytes().take_while(u8::is_ascii_uppercase).count();
    let digits = &needle[letters..];
    ((1..=10).contains(&letters) && digits.len() >= 3 && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| format!("{}-{digits}", &needle[..letters]))
}

/// A number as a summary may reformat it (`$4500`, `30,000 ms`, `129.99 USD`), in the form
/// [`plain_numbers`] gives a text: its currency left out, its digit groups joined. `None`
/// for a needle that is no number with at most a unit.
fn plain_number(needle: &str) -> Option<String> {
    let t = needle.trim_matches(|c: char| matches!(c, '$' | '€' | '£' | '¥') || c.is_whitespace());
    let t = ["USD", "EUR", "GBP", "JPY"]
        .iter()
        .fold(t, |t, code| t.trim_end_matches(code).trim_start_matches(code))
        .trim();
    let plain = plain_numbers(t);
    let digits = plain
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .count();
    (digits > 0
        && plain.starts_with(|c: char| c.is_ascii_digit())
        && plain.chars().skip(digits).all(|c| c.is_alphabetic() || c == ' '))
    .then_some(plain)
}

/// `text` with the thousands separators inside numbers taken out (`4,500` → `4500`) and its
/// currency signs spaced off, so numbers compare whatever their grouping.
fn plain_numbers(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    for (i, c) in text.char_indices() {
        let digit_at = |j: usize| b.get(j).is_some_and(u8::is_ascii_digit);
        if c == ',' && i > 0 && digit_at(i - 1) && digit_at(i + 1) && digit_at(i + 3) && !digit_at(i + 4) {
            continue;
        }
        if matches!(c, '$' | '€' | '£' | '¥') {
            out.push(' ');
            continue;
        }
        out.push(c);
    }
    out
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
