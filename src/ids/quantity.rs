//! Quantities: a number with a unit (`512MB`, `2.5 GiB`, `30s`, `99.9%`, `40 MB/s`).

use super::text::{char_at, run, word_at, word_before};

/// Units a number must carry to be a [`IdKind::Quantity`](super::IdKind::Quantity). Most
/// may follow the number after one space (`2.5 GiB`, `3 ms`); `s`, `h`, `us` and `%` must be
/// attached (`30s`, `99.9%`), as `2 s` or `3 us` is more often prose. A trailing `/s` makes a rate
/// (`40 MB/s`); any other `/` makes it something else (`8080/tcp`, `sed '1073s/a/b/'`).
/// `tokens` may have a `k` or `M` multiplier on the number (`10k tokens`). Decades
/// (`1960s`, `the 90s`) and progress bars (`[ 42%]`) are not quantities. Spelled-out
/// time (`3 days`) is not counted: in chat it is prose, not a setting.
pub const QUANTITY_UNITS: &[&str] = &[
    "KB", "MB", "GB", "TB", "PB", "kB", "KiB", "MiB", "GiB", "TiB", "PiB", "bytes", "ns", "us", "µs", "μs",
    "ms", "s", "sec", "secs", "min", "mins", "h", "hr", "hrs", "Hz", "kHz", "MHz", "GHz", "tokens", "%",
];

// quantity: a number (`512`, `2.5`, `1,024`) and a unit of QUANTITY_UNITS.

pub(super) fn scan_quantity(b: &[u8], out: &mut Vec<(usize, usize)>) {
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() {
            if let Some(e) = quantity_at(b, i) {
                out.push((i, e));
                i = e;
                continue;
            }
            // The rest of this number cannot start a quantity.
            i = run(b, i, |c| c.is_ascii_alphanumeric() || c == b'.' || c == b',');
            continue;
        }
        i += 1;
    }
}

fn quantity_at(b: &[u8], i: usize) -> Option<usize> {
    // Not inside a word, a version (`v1.2`), a path, a time (`10:30`) or `#123`.
    match i.checked_sub(1).map(|j| b[j]) {
        Some(b'.' | b',' | b'/' | b'\\' | b':' | b'#' | b'$') => return None,
        Some(b'-') if word_before(b, i - 1) => return None,
        _ if word_before(b, i) => return None,
        _ => {}
    }
    let int_end = run(b, i, |c| c.is_ascii_digit());
    let mut j = int_end;
    // Thousands separators, only in exact groups of three.
    if int_end - i <= 3 {
        while b.get(j) == Some(&b',') && run(b, j + 1, |c| c.is_ascii_digit()) == j + 4 {
            j += 4;
        }
    }
    let mut decimal = false;
    if b.get(j) == Some(&b'.') && b.get(j + 1).is_some_and(u8::is_ascii_digit) {
        j = run(b, j + 1, |c| c.is_ascii_digit());
        decimal = true;
    }
    let number_end = j;
    if b.get(j) == Some(&b'%') {
        // `[ 42%]` is a progress bar.
        return (b.get(j + 1) != Some(&b']') && !word_at(b, j + 1)).then_some(j + 1);
    }
    // `10k tokens`, `1.5M tokens`.
    if matches!(b.get(j), Some(b'k' | b'K' | b'M')) && b[j + 1..].starts_with(b" tokens") {
        return unit_end(b, j + 8);
    }
    let spaced = b.get(j) == Some(&b' ');
    if spaced {
        j += 1;
    }
    let u_end = {
        let mut e = j;
        while let Some(c) = char_at(b, e) {
            if !(c.is_ascii_alphabetic() || c == 'µ' || c == 'μ') {
                break;
            }
            e += c.len_utf8();
        }
        e
    };
    let unit = std::str::from_utf8(&b[j..u_end]).ok()?;
    if unit.is_empty() || !QUANTITY_UNITS.contains(&unit) {
        return None;
    }
    if spaced && matches!(unit, "s" | "h" | "us") {
        return None;
    }
    if unit == "s" && !decimal && !spaced && is_decade(b, i, number_end) {
        return None;
    }
    // `40 MB/s`: a rate.
    let mut e = u_end;
    if b[e..].starts_with(b"/s") && unit.ends_with('B') && !word_at(b, e + 2) {
        e += 2;
    }
    unit_end(b, e)
}

/// `1960s`, `the 90s`, `'80s`, `in her 30s`: decades and ages, not durations (`30s` alone
/// is a duration).
fn is_decade(b: &[u8], start: usize, end: usize) -> bool {
    let digits = &b[start..end];
    if !digits.ends_with(b"0") {
        return false;
    }
    if digits.len() == 4 {
        return matches!(digits[0], b'1' | b'2');
    }
    if digits.len() != 2 {
        return false;
    }
    if (start > 0 && b[start - 1] == b'\'') || b[..start].ends_with("’".as_bytes()) {
        return true;
    }
    let before = &b[..start];
    let Some(before) = before.strip_suffix(b" ") else {
        return false;
    };
    let word_start = before
        .iter()
        .rposition(|c| !c.is_ascii_alphabetic())
        .map_or(0, |p| p + 1);
    let word = before[word_start..].to_ascii_lowercase();
    const DECADE_WORDS: [&[u8]; 10] = [
        b"the", b"my", b"your", b"his", b"her", b"their", b"our", b"early", b"late", b"mid",
    ];
    DECADE_WORDS.contains(&word.as_slice())
}

/// A quantity ends where a word, a path (`8080/tcp`) or a dotted name ends.
fn unit_end(b: &[u8], e: usize) -> Option<usize> {
    if word_at(b, e) || b.get(e) == Some(&b'/') {
        return None;
    }
    if matches!(b.get(e), Some(b'.' | b'-')) && word_at(b, e + 1) {
        return None;
    }
    Some(e)
}

#[cfg(test)]
mod tests {
    use crate::ids::testing::{ids, of};
    use crate::ids::IdKind;

    #[test]
    fn quantities() {
        assert_eq!(
            of(
                IdKind::Quantity,
                "512MB, 2.5 GiB in 30s (3 ms), 99.9% of 10k tokens at 40 MB/s, 1,024 bytes, 0.52s"
            ),
            [
                "512MB",
                "2.5 GiB",
                "30s",
                "3 ms",
                "99.9%",
                "10k tokens",
                "40 MB/s",
                "1,024 bytes",
                "0.52s"
            ]
        );
        assert!(of(
            IdKind::Quantity,
            "8080/tcp sed '1073s/a/b/' the 90s, '80s, in her 30s, 1960s [ 42%] v1.2ms 10:30s 3 s 10k HAT30s 2 days"
        )
        .is_empty());
        // A quantity is not also a code.
        assert_eq!(ids("100MB"), [(IdKind::Quantity, "100MB".into())]);
    }
}
