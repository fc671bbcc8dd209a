//! Word-shaped kinds: error names, hex ids, codes, error codes and environment variable
//! names, which are each one whole word; tickets (`JIRA-123`, `#1234`, `CVE-2024-3094`,
//! `acme/widgets#2210`), which join words with `-` or follow a `#`; and the hyphenated
//! ids found from a `-`: UUIDs, MAC addresses written with dashes, AWS resource ids.
//!
//! One pass reads every whole word (a maximal run of `\w`) once and asks each word kind in
//! turn, so adding a kind adds a test per word, not a pass over the text.

use super::address::is_mac;
use super::codes::{is_error_code, is_upper_snake};
use super::resource::aws_id_at;
use super::text::{char_len, digits_then_boundary, find, run, word_at, word_before};
use super::{IdKind, Span};

/// Appends every whole word that is an identifier, with its kind. The whole-word kinds'
/// patterns are made of word characters between two `\b`, so a match is always one whole
/// word: a maximal run of `\w`.
pub(super) fn scan_words(b: &[u8], out: &mut Vec<Span>) {
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
        if let Some(kind) = word_kind(&b[i..e]) {
            out.push((i, e, kind));
        }
        i = e;
    }
}

/// The kind of a whole word, if it is an identifier. The first three follow the baseline
/// census; error codes and environment variables come after them.
fn word_kind(w: &[u8]) -> Option<IdKind> {
    if is_error_name(w) {
        Some(IdKind::ErrorName)
    } else if is_hex(w) {
        Some(IdKind::Hex)
    } else if is_code(w) {
        Some(IdKind::Code)
    } else if !w[0].is_ascii_uppercase() {
        None
    } else if is_error_code(w) {
        Some(IdKind::ErrorCode)
    } else if is_upper_snake(w) {
        Some(IdKind::EnvVar)
    } else {
        None
    }
}

// error_name: \b[A-Z][A-Za-z0-9]*(?:Error|Exception|Warning)\b
fn is_error_name(w: &[u8]) -> bool {
    w[0].is_ascii_uppercase()
        && w.iter().all(u8::is_ascii_alphanumeric)
        && ["Error", "Exception", "Warning"]
            .iter()
            .any(|s| w.len() > s.len() && w.ends_with(s.as_bytes()))
}

// hex: \b0x[0-9a-fA-F]{6,}\b | \b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,64}\b
fn is_hex(w: &[u8]) -> bool {
    if w.len() >= 8 && w.starts_with(b"0x") && w[2..].iter().all(u8::is_ascii_hexdigit) {
        return true;
    }
    (7..=64).contains(&w.len())
        && w.iter().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f'))
        && w.iter().any(u8::is_ascii_digit)
        && w.iter().any(u8::is_ascii_alphabetic)
}

// code: \b(?!\d+T\d+\b)(?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{5,12}\b
//     | \b[a-z]+(?:_[a-z]+)+_\d{2,}\b
// and beyond the baseline: a capital and three digits (`E501`, `F401`: lint codes), and
// longer words of capitals and digits (ULIDs, tracking numbers, key ids).
fn is_code(w: &[u8]) -> bool {
    let upper_digits = |w: &[u8]| w.iter().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit());
    let upper = (5..=12).contains(&w.len())
        && upper_digits(w)
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
    if w.len() == 4 && w[0].is_ascii_uppercase() && w[1..].iter().all(u8::is_ascii_digit) {
        return true;
    }
    // Longer: tracking numbers, serials, ULIDs, access key ids (`1Z999AA10123456784`).
    if (13..=40).contains(&w.len()) && upper_digits(w) {
        let digits = w.iter().filter(|c| c.is_ascii_digit()).count();
        return digits >= 2 && w.len() - digits >= 2;
    }
    snake_id(w)
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
// and beyond the baseline: up to 8 digits (`CUS-0098812`), one capital and 4 to 8 digits
// (`A-88213`), `CVE-2024-3094`, `GHSA-xxxx-xxxx-xxxx`, `owner/repo#123`; not `COVID-19`.

pub(super) fn scan_ticket(b: &[u8], out: &mut Vec<Span>) {
    const NOT_TICKETS: [&[u8]; 9] = [
        b"UTF-", b"SHA-", b"ISO-", b"MD-", b"TLS-", b"SSL-", b"HTTP-", b"COVID-", b"SARS-",
    ];
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let mut start = i;
        let end = if c.is_ascii_uppercase() && !word_before(b, i) {
            let rest = &b[i..];
            let prefix = run(b, i + 1, |c| c.is_ascii_uppercase() || c.is_ascii_digit());
            if let Some(e) = advisory_at(b, i) {
                Some(e)
            } else if NOT_TICKETS.iter().any(|p| rest.starts_with(p))
                || prefix - i - 1 > 9
                || b.get(prefix) != Some(&b'-')
            {
                None
            } else if prefix == i + 1 {
                // `A-88213`: one capital needs a longer number (`F-16`, `B-52` are names).
                digits_then_boundary(b, prefix + 1, 4, 8).map(|e| ticket_suffix(b, e))
            } else {
                digits_then_boundary(b, prefix + 1, 1, 8).map(|e| ticket_suffix(b, e))
            }
        } else if c == b'#' && !matches!(i.checked_sub(1).map(|j| b[j]), Some(b'&' | b'#')) {
            if !word_before(b, i) {
                digits_then_boundary(b, i + 1, 3, 7)
            } else if let Some(s) = repo_before(b, i) {
                start = s;
                digits_then_boundary(b, i + 1, 1, 7)
            } else {
                None
            }
        } else {
            None
        };
        match end {
            Some(e) => {
                out.push((start, e, IdKind::Ticket));
                i = e;
            }
            None => i += 1,
        }
    }
}

/// A ticket's end past the capitals and digits that follow it after a dash, at most two
/// groups of at most 8 (`HVJ-55821-K`, `INC-2024-00123`); a group in lower case (`JIRA-123-fix`,
/// a branch name) is not the ticket's.
fn ticket_suffix(b: &[u8], mut end: usize) -> usize {
    for _ in 0..2 {
        if b.get(end) != Some(&b'-') {
            break;
        }
        let e = run(b, end + 1, |c| c.is_ascii_uppercase() || c.is_ascii_digit());
        if !(1..=8).contains(&(e - end - 1))
            || word_at(b, e)
            || (b.get(e) == Some(&b'-')
                && word_at(b, e + 1)
                && !b[e + 1].is_ascii_uppercase()
                && !b[e + 1].is_ascii_digit())
        {
            break;
        }
        end = e;
    }
    end
}

/// `CVE-2024-3094` and `GHSA-4x2v-8q7m-c9pq` at `i`: the end.
fn advisory_at(b: &[u8], i: usize) -> Option<usize> {
    let rest = &b[i..];
    if let Some(r) = rest.strip_prefix(b"CVE-") {
        let year = run(r, 0, |c| c.is_ascii_digit());
        if year == 4 && r.get(4) == Some(&b'-') {
            return digits_then_boundary(b, i + 9, 4, 7);
        }
    }
    if rest.starts_with(b"GHSA-") {
        let mut j = i + 5;
        for k in 0..3 {
            let e = run(b, j, |c| c.is_ascii_lowercase() || c.is_ascii_digit());
            if e - j != 4 || (k < 2 && b.get(e) != Some(&b'-')) {
                return None;
            }
            j = if k < 2 { e + 1 } else { e };
        }
        return (!word_at(b, j)).then_some(j);
    }
    None
}

/// The start of `owner/repo` right before the `#` at `hash`, if that is what precedes it.
fn repo_before(b: &[u8], hash: usize) -> Option<usize> {
    let name = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-');
    let back = |mut j: usize| {
        while j > 0 && name(b[j - 1]) {
            j -= 1;
        }
        j
    };
    let repo = back(hash);
    if repo == hash || repo == 0 || b[repo - 1] != b'/' {
        return None;
    }
    let owner = back(repo - 1);
    let ok = owner < repo - 1
        && (owner == 0 || !(word_before(b, owner) || matches!(b[owner - 1], b'/' | b'.' | b'-')));
    ok.then_some(owner)
}

// Hyphenated: UUIDs (8-4-4-4-12 hex digits, either case), MAC addresses written with
// `-`, and AWS resource ids (`i-0a1b2c3d4e5f67890`).

/// Appends the UUIDs, dashed MAC addresses and AWS resource ids of `b`, anchored on `-`.
pub(super) fn scan_dashed(b: &[u8], out: &mut Vec<Span>) {
    let mut i = 0;
    while let Some(dash) = find(b, i, b'-') {
        i = dash + 1;
        let mut s = dash;
        while s > 0 && b[s - 1].is_ascii_alphanumeric() {
            s -= 1;
        }
        if s == dash || word_before(b, s) || (s > 0 && matches!(b[s - 1], b'-' | b'.')) {
            continue;
        }
        let mac = || {
            let e = (s + 17).min(b.len());
            let ok = dash - s == 2 && is_mac(&b[s..e], b'-') && !word_at(b, e) && b.get(e) != Some(&b'-');
            ok.then_some((e, IdKind::Address))
        };
        let found = uuid_at(b, s)
            .map(|e| (e, IdKind::Uuid))
            .or_else(mac)
            .or_else(|| aws_id_at(b, s).map(|e| (e, IdKind::Resource)));
        if let Some((e, kind)) = found {
            out.push((s, e, kind));
            i = e;
        }
    }
}

fn uuid_at(b: &[u8], s: usize) -> Option<usize> {
    if b.get(s + 8) != Some(&b'-') {
        return None;
    }
    let mut j = s;
    for (k, len) in [8, 4, 4, 4, 12].into_iter().enumerate() {
        let e = run(b, j, |c| c.is_ascii_hexdigit());
        if e - j != len || (k < 4 && b.get(e) != Some(&b'-')) {
            return None;
        }
        j = if k < 4 { e + 1 } else { e };
    }
    (!word_at(b, j) && b.get(j) != Some(&b'-')).then_some(j)
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
            of(
                IdKind::Ticket,
                "JIRA-123, ORA-03113 and #1234 (see #21961), CUS-0098812, A-88213, CVE-2024-3094, GHSA-4x2v-8q7m-c9pq, acme/widgets#2210"
            ),
            [
                "JIRA-123",
                "ORA-03113",
                "#1234",
                "#21961",
                "CUS-0098812",
                "A-88213",
                "CVE-2024-3094",
                "GHSA-4x2v-8q7m-c9pq",
                "acme/widgets#2210"
            ]
        );
        assert_eq!(
            of(
                IdKind::Ticket,
                "booking HVJ-55821-K, INC-2024-00123; JIRA-123-fix, OPS-7-AB-CD-EF"
            ),
            ["HVJ-55821-K", "INC-2024-00123", "JIRA-123", "OPS-7-AB-CD"]
        );
        assert!(of(
            IdKind::Ticket,
            "UTF-8 SHA-256 ISO-8601 HTTP-2 #12 #12345678 &#1234; a#123 COVID-19 F-16 B-52 AB-123456789"
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
                "reservation JG7FMM, flight HAT028; user omar_davis_3817 get_object_or_404; E501, 1Z999AA10123456784"
            ),
            ["JG7FMM", "HAT028", "omar_davis_3817", "get_object_or_404", "E501", "1Z999AA10123456784"]
        );
        // A timestamp, too short, no digit, no letter, lower case, one word before the number.
        assert!(of(
            IdKind::Code,
            "11T08 AB12 ABCDEF 123456 jg7fmm card_1234 omar_davis_3"
        )
        .is_empty());
    }
}
