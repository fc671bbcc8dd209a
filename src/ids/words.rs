//! Word-shaped kinds: error names, tickets, hex ids and codes.
//!
//! Except for `#1234` tickets, each of these is one whole word (a maximal run of `\w`)
//! or a word, a `-` and digits, so the scanners test words rather than search the text.

use super::text::{char_len, digits_then_boundary, run, word_at, word_before};

/// Appends the whole words `keep` accepts. The whole-word kinds' patterns are made of word
/// characters between two `\b`, so a match is always one whole word: a maximal run of `\w`.
fn scan_words(b: &[u8], out: &mut Vec<(usize, usize)>, keep: impl Fn(&[u8]) -> bool) {
    let mut i = 0;
    while i < b.len() {
        if !word_at(b, i) {
            i += char_len(b, i);
            continue;
        }
        let mut e = i;
        loop {
            e = run(b, e, |c| c.is_ascii_alphanumeric() || c == b'_');
            if b.get(e).is_some_and(|&c| c >= 0x80) && word_at(b, e) {
                e += char_len(b, e);
            } else {
                break;
            }
        }
        if keep(&b[i..e]) {
            out.push((i, e));
        }
        i = e;
    }
}

// error_name: \b[A-Z][A-Za-z0-9]*(?:Error|Exception|Warning)\b
pub(super) fn scan_error_name(b: &[u8], out: &mut Vec<(usize, usize)>) {
    scan_words(b, out, |w| {
        w[0].is_ascii_uppercase()
            && w.iter().all(u8::is_ascii_alphanumeric)
            && ["Error", "Exception", "Warning"]
                .iter()
                .any(|s| w.len() > s.len() && w.ends_with(s.as_bytes()))
    });
}

// hex: \b0x[0-9a-fA-F]{6,}\b | \b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,64}\b
pub(super) fn scan_hex(b: &[u8], out: &mut Vec<(usize, usize)>) {
    scan_words(b, out, |w| {
        if w.len() >= 8 && w.starts_with(b"0x") && w[2..].iter().all(u8::is_ascii_hexdigit) {
            return true;
        }
        (7..=64).contains(&w.len())
            && w.iter().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f'))
            && w.iter().any(u8::is_ascii_digit)
            && w.iter().any(u8::is_ascii_alphabetic)
    });
}

// code: \b(?!\d+T\d+\b)(?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{5,12}\b
//     | \b[a-z]+(?:_[a-z]+)+_\d{2,}\b
pub(super) fn scan_code(b: &[u8], out: &mut Vec<(usize, usize)>) {
    scan_words(b, out, |w| {
        let upper = (5..=12).contains(&w.len())
            && w.iter().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
            && w.iter().any(u8::is_ascii_digit)
            && w.iter().any(u8::is_ascii_uppercase);
        if upper {
            // `11T08`: a date and time glued together.
            let t = w.iter().position(|&c| c == b'T').unwrap_or(0);
            let timestamp = t > 0
                && t + 1 < w.len()
                && w[..t].iter().all(u8::is_ascii_digit)
                && w[t + 1..].iter().all(u8::is_ascii_digit);
            return !timestamp;
        }
        snake_id(w)
    });
}

/// `[a-z]+(?:_[a-z]+)+_\d{2,}`: `omar_davis_3817`.
fn snake_id(w: &[u8]) -> bool {
    let Some(last) = w.iter().rposition(|&c| c == b'_') else {
        return false;
    };
    let (words, digits) = (&w[..last], &w[last + 1..]);
    digits.len() >= 2
        && digits.iter().all(u8::is_ascii_digit)
        && words.split(|&c| c == b'_').count() >= 2
        && words
            .split(|&c| c == b'_')
            .all(|p| !p.is_empty() && p.iter().all(u8::is_ascii_lowercase))
}

// ticket: \b(?!(?:UTF|SHA|ISO|MD|TLS|SSL|HTTP)-)[A-Z][A-Z0-9]{1,9}-\d{1,6}\b
//       | (?<![\w&#])#\d{3,7}\b

pub(super) fn scan_ticket(b: &[u8], out: &mut Vec<(usize, usize)>) {
    const NOT_TICKETS: [&[u8]; 7] = [b"UTF-", b"SHA-", b"ISO-", b"MD-", b"TLS-", b"SSL-", b"HTTP-"];
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let end = if c.is_ascii_uppercase() && !word_before(b, i) {
            let rest = &b[i..];
            let prefix = run(b, i + 1, |c| c.is_ascii_uppercase() || c.is_ascii_digit());
            if NOT_TICKETS.iter().any(|p| rest.starts_with(p))
                || !(1..=9).contains(&(prefix - i - 1))
                || b.get(prefix) != Some(&b'-')
            {
                None
            } else {
                digits_then_boundary(b, prefix + 1, 1, 6)
            }
        } else if c == b'#'
            && !word_before(b, i)
            && !matches!(i.checked_sub(1).map(|j| b[j]), Some(b'&' | b'#'))
        {
            digits_then_boundary(b, i + 1, 3, 7)
        } else {
            None
        };
        match end {
            Some(e) => {
                out.push((i, e));
                i = e;
            }
            None => i += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::ids::testing::of;
    use crate::ids::IdKind;

    #[test]
    fn error_names() {
        assert_eq!(
            of(
                IdKind::ErrorName,
                "TypeError: x; raised ValidationException and DeprecationWarning"
            ),
            ["TypeError", "ValidationException", "DeprecationWarning"]
        );
        assert!(of(IdKind::ErrorName, "Error Warning typeError TypeErrors Type_Error").is_empty());
    }

    #[test]
    fn tickets() {
        assert_eq!(
            of(IdKind::Ticket, "JIRA-123, ORA-03113 and #1234 (see #21961)"),
            ["JIRA-123", "ORA-03113", "#1234", "#21961"]
        );
        assert!(of(
            IdKind::Ticket,
            "UTF-8 SHA-256 ISO-8601 HTTP-2 #12 #12345678 &#1234; a#123"
        )
        .is_empty());
    }

    #[test]
    fn hexes() {
        assert_eq!(
            of(
                IdKind::Hex,
                "commit 9059efac2 at 0x7cf2d79c70d0 id 3739671ad08541e759230997bf0e50dc"
            ),
            ["9059efac2", "0x7cf2d79c70d0", "3739671ad08541e759230997bf0e50dc"]
        );
        // No digit; too short; upper case; 0x with 5 digits.
        assert!(of(IdKind::Hex, "deadbeef abc123 ABC12345 0x12345 facade12z").is_empty());
        assert_eq!(of(IdKind::Hex, "deadbeef1"), ["deadbeef1"]);
    }

    #[test]
    fn codes() {
        assert_eq!(
            of(
                IdKind::Code,
                "reservation JG7FMM, flight HAT028; user omar_davis_3817 get_object_or_404"
            ),
            ["JG7FMM", "HAT028", "omar_davis_3817", "get_object_or_404"]
        );
        // A timestamp, too short, no digit, no letter, lower case, one word before the number.
        assert!(of(
            IdKind::Code,
            "11T08 AB12 ABCDEF 123456 jg7fmm card_1234 omar_davis_3"
        )
        .is_empty());
    }
}
