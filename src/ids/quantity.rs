//! Quantities: a number with a unit (`512MB`, `2.5 GiB`, `30s`, `99.9%`, `40 MB/s`).

use super::text::{char_at, run, word_at, word_before};

/// Units a number must carry to be a [`IdKind::Quantity`](super::IdKind::Quantity). Most
/// may follow the number after one space (`2.5 GiB`, `3 ms`); `s`, `h`, `us` and `m` and `%`
/// must be attached (`30s`, `250m`, `99.9%`), as `2 s` or `3 m` is more often prose. A trailing
/// `/s` makes a rate (`40 MB/s`); any other `/` makes it something else (`8080/tcp`,
/// `sed '1073s/a/b/'`). `tokens` may have a `k` or `M` multiplier on the number (`10k
/// tokens`). Decades (`1960s`, `the 90s`), progress bars (`[ 42%]`) and terminal colour
/// codes (`[0m`) are not quantities. Spelled-out time (`3 days`) is not counted: in chat it
/// is prose, not a setting.
#[rustfmt::skip]
pub const QUANTITY_UNITS: &[&str] = &[
    // Sizes: bytes, bits, and the Kubernetes binary suffixes (`512Mi`).
    "KB", "MB", "GB", "TB", "PB", "kB", "KiB", "MiB", "GiB", "TiB", "PiB", "bytes", "Ki", "Mi", "Gi",
    "Ti", "Pi", "Kb", "Mb", "Gb", "Tb", "kb",
    // Time and frequency; `m` is also Kubernetes' thousandth of a CPU (`250m`).
    "ns", "us", "µs", "μs", "ms", "s", "sec", "secs", "min", "mins", "h", "hr", "hrs", "m", "Hz", "kHz",
    "MHz", "GHz",
    // Rates, throughput and compute.
    "bps", "kbps", "Kbps", "Mbps", "Gbps", "rps", "qps", "RPS", "QPS", "TPS", "fps", "rpm", "IOPS", "vCPU",
    "vCPUs", "tokens",
    // Length, mass, volume, screens, power, temperature.
    "mm", "cm", "km", "kg", "mg", "ml", "mL", "px", "dpi", "V", "mV", "W", "kW", "MW", "kWh", "mA",
    "mAh", "°C", "°F",
    "%",
];

/// Counted things that are a quantity only as a rate (`40 req/s`, `300 ops/sec`).
const RATE_UNITS: &[&str] = &[
    "req", "requests", "ops", "msgs", "messages", "events", "queries", "rows", "writes", "reads",
];

/// The end of the number at `i` (`512`, `2.5`, `1,024`: thousands separators only in
/// exact groups of three) and whether it has a decimal part.
pub(super) fn number_end(b: &[u8], i: usize) -> (usize, bool) {
    let int_end = run(b, i, |c| c.is_ascii_digit());
    let mut j = int_end;
    if int_end - i <= 3 {
        while b.get(j) == Some(&b',') && run(b, j + 1, |c| c.is_ascii_digit()) == j + 4 {
            j += 4;
        }
    }
    if b.get(j) == Some(&b'.') && b.get(j + 1).is_some_and(u8::is_ascii_digit) {
        return (run(b, j + 1, |c| c.is_ascii_digit()), true);
    }
    (j, false)
}

// quantity: a number and a unit of QUANTITY_UNITS.

pub(super) fn quantity_at(b: &[u8], i: usize) -> Option<usize> {
    // Not inside a word, a version (`v1.2`), a path, a time (`10:30`) or `#123`.
    match i.checked_sub(1).map(|j| b[j]) {
        Some(b'.' | b',' | b'/' | b'\\' | b':' | b'#' | b'$') => return None,
        Some(b'-') if word_before(b, i - 1) => return None,
        _ if word_before(b, i) => return None,
        _ => {}
    }
    let (number_end, decimal) = number_end(b, i);
    let mut j = number_end;
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
            if !(c.is_ascii_alphabetic() || c == 'µ' || c == 'μ' || (c == '°' && e == j)) {
                break;
            }
            e += c.len_utf8();
        }
        e
    };
    let unit = std::str::from_utf8(&b[j..u_end]).ok()?;
    if unit.is_empty() {
        return None;
    }
    if !QUANTITY_UNITS.contains(&unit) {
        // `40 req/s`.
        let rate = RATE_UNITS.contains(&unit).then(|| rate_end(b, u_end)).flatten()?;
        return unit_end(b, rate);
    }
    if spaced && matches!(unit, "s" | "h" | "us" | "m") {
        return None;
    }
    if unit == "s" && !decimal && !spaced && is_decade(b, i, number_end) {
        return None;
    }
    // `\x1b[0m`, `[31;1m`: terminal colours.
    if unit == "m" && i > 0 && matches!(b[i - 1], b'[' | b';') {
        return None;
    }
    // `40 MB/s`, `2k tokens/s`: a rate.
    let mut e = u_end;
    if unit.ends_with(['B', 'b']) || unit == "tokens" {
        e = rate_end(b, e).unwrap_or(e);
    }
    unit_end(b, e)
}

/// `/s`, `/sec` or `/min` at `e`: the end.
fn rate_end(b: &[u8], e: usize) -> Option<usize> {
    ["/sec", "/min", "/s"]
        .iter()
        .find(|p| b[e..].starts_with(p.as_bytes()) && !word_at(b, e + p.len()))
        .map(|p| e + p.len())
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
