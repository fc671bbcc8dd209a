//! Identifiers that start with a number or a sign before one: IPv4 addresses, versions
//! (`1.4.2`, `v2.0.0-rc.1`, `v1.2`, `version 4.2`), money (`$49.99`, `€249`, `$12.4k`,
//! `$29/month`, `19.99 USD`, `EUR 16.50`, `120 euros`) and quantities (`512MB`, `30s`).
//!
//! One pass over the text: at each number the kinds are tried in that order. A plain
//! number (`5432`, `2024`, `3.14`) is none of them.

use super::address::ipv4_at;
use super::quantity::{number_end, quantity_at};
use super::text::{run, word_at, word_before};
use super::{IdKind, Span};

/// Appends the addresses, versions, amounts of money and quantities of `b`.
pub(super) fn scan_numbers(b: &[u8], out: &mut Vec<Span>) {
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let found = if c.is_ascii_digit() {
            number_at(b, i)
        } else if matches!(c, b'v' | b'V') && b.get(i + 1).is_some_and(u8::is_ascii_digit) {
            version_at(b, i).map(|e| (i, e, IdKind::Version))
        } else if matches!(c, b'$' | 0xC2 | 0xE2) {
            money_after_symbol(b, i).map(|e| (i, e, IdKind::Money))
        } else if c.is_ascii_uppercase() {
            money_after_code(b, i).map(|e| (i, e, IdKind::Money))
        } else {
            None
        };
        match found {
            Some(span) => {
                out.push(span);
                i = span.1;
            }
            // The rest of this number cannot start anything.
            None if c.is_ascii_digit() => {
                i = run(b, i, |c| c.is_ascii_alphanumeric() || c == b'.' || c == b',')
            }
            None => i += 1,
        }
    }
}

fn number_at(b: &[u8], i: usize) -> Option<Span> {
    if let Some(e) = ipv4_at(b, i) {
        return Some((i, e, IdKind::Address));
    }
    if let Some(e) = version_at(b, i) {
        return Some((i, e, IdKind::Version));
    }
    if let Some(e) = money_before_code(b, i) {
        return Some((i, e, IdKind::Money));
    }
    quantity_at(b, i).map(|e| (i, e, IdKind::Quantity))
}

// ---------------------------------------------------------------------------------
// Versions.

/// A version at `i`: three or four numeric parts (`1.4.2`, `2.8.1.0`) with an optional
/// `v`, a pre-release (`-rc.1`) and build (`+build.42`); or two parts after a `v` (`v1.2`)
/// or the word `version` (`version 4.2`). Parts have no leading zero, so dates written
/// with dots (`2024.05.01`) are not versions.
fn version_at(b: &[u8], i: usize) -> Option<usize> {
    if i > 0 && (word_before(b, i) || matches!(b[i - 1], b'.' | b'-' | b',' | b'\\')) {
        return None;
    }
    let prefixed = matches!(b[i], b'v' | b'V');
    let mut j = if prefixed { i + 1 } else { i };
    let mut parts = 0;
    loop {
        let e = run(b, j, |c| c.is_ascii_digit());
        if e == j || e - j > 9 || (e - j > 1 && b[j] == b'0') {
            return None;
        }
        parts += 1;
        j = e;
        if b.get(j) == Some(&b'.') && b.get(j + 1).is_some_and(u8::is_ascii_digit) && parts < 4 {
            j += 1;
        } else {
            break;
        }
    }
    let keyword = || {
        let before = &b[..i];
        before
            .strip_suffix(b" ")
            .is_some_and(|w| w.ends_with(b"version") || w.ends_with(b"Version"))
    };
    if parts < 2 || (parts == 2 && !prefixed && !keyword()) {
        return None;
    }
    // A fifth part: a section number or an address, not a version.
    if b.get(j) == Some(&b'.') && b.get(j + 1).is_some_and(u8::is_ascii_digit) {
        return None;
    }
    if parts >= 3 {
        for sep in [b'-', b'+'] {
            if b.get(j) == Some(&sep) {
                j = label_end(b, j + 1).unwrap_or(j);
            }
        }
    }
    (!word_at(b, j)).then_some(j)
}

/// The end of a pre-release or build label at `j`: dot-separated alphanumerics (`rc.1`,
/// `final-0`, `build.42`).
fn label_end(b: &[u8], j: usize) -> Option<usize> {
    let mut e = run(b, j, |c| c.is_ascii_alphanumeric() || c == b'.' || c == b'-');
    while e > j && matches!(b[e - 1], b'.' | b'-') {
        e -= 1;
    }
    (e > j && b[j].is_ascii_alphanumeric()).then_some(e)
}

// ---------------------------------------------------------------------------------
// Money.

/// Currency codes and words that follow or precede an amount.
#[rustfmt::skip]
const CURRENCY_CODES: &[&str] = &[
    "AUD", "BRL", "CAD", "CHF", "CNY", "DKK", "EUR", "GBP", "HKD", "INR", "JPY", "KRW", "MXN", "NOK",
    "NZD", "PLN", "SEK", "SGD", "USD", "ZAR",
];
const CURRENCY_WORDS: &[&str] = &["dollars", "euros", "pounds", "cents", "yen", "rupees", "bucks"];
const MULTIPLIER_WORDS: &[&str] = &["thousand", "million", "billion", "trillion"];

/// `$`, `€`, `£`, `¥` or `₹` at `i`: its length.
fn symbol_len(b: &[u8], i: usize) -> Option<usize> {
    let rest = &b[i..];
    if rest.starts_with(b"$") {
        Some(1)
    } else if ["£", "¥"].iter().any(|s| rest.starts_with(s.as_bytes())) {
        Some(2)
    } else if ["€", "₹"].iter().any(|s| rest.starts_with(s.as_bytes())) {
        Some(3)
    } else {
        None
    }
}

/// `$49.99`, `€249`, `$12.4k`, `$3.4 million`, `$29/month`, `$0.023/GB` at the symbol `i`.
fn money_after_symbol(b: &[u8], i: usize) -> Option<usize> {
    let len = symbol_len(b, i)?;
    if word_before(b, i) || (i > 0 && matches!(b[i - 1], b'$' | b'\\')) {
        return None;
    }
    let start = i + len;
    if !b.get(start).is_some_and(u8::is_ascii_digit) {
        return None;
    }
    let (num_end, decimal) = number_end(b, start);
    let mut e = num_end;
    // `$12.4k`, `$3B`, `$1.2bn`, or `$3.4 million`.
    let suffix = run(b, e, |c| c.is_ascii_alphabetic());
    if matches!(&b[e..suffix], b"k" | b"K" | b"m" | b"M" | b"b" | b"B" | b"bn") {
        e = suffix;
    } else if let Some(w) = word_after(b, e, MULTIPLIER_WORDS) {
        e = w;
    } else if suffix > e {
        return None;
    }
    // `$1` in a shell line (`awk '{print $1}'`, `echo $1`) is a parameter, not money; `$0`
    // is the script's name.
    if b[i] == b'$' && e == start + 1 && !decimal && (b[start] == b'0' || shell_parameter(b, i, e)) {
        return None;
    }
    // `$29/month`, `$0.023/GB`: a price per unit.
    if b.get(e) == Some(&b'/') {
        let u = run(b, e + 1, |c| c.is_ascii_alphabetic());
        if (1..=8).contains(&(u - e - 1)) && !word_at(b, u) && b.get(u) != Some(&b'/') {
            e = u;
        }
    }
    (!word_at(b, e)).then_some(e)
}

/// Whether the `$N` at `i..e` reads as a shell or awk parameter.
fn shell_parameter(b: &[u8], i: usize, e: usize) -> bool {
    if matches!(b.get(e), Some(b'}' | b'"' | b'\'' | b')' | b';'))
        || (i > 0 && matches!(b[i - 1], b'{' | b'(' | b'"'))
    {
        return true;
    }
    let before = b[..i].strip_suffix(b" ").unwrap_or(&b[..i]);
    [
        "print", "echo", "printf", "shift", "set", "local", "exit", "return", "$0",
    ]
    .iter()
    .any(|w| before.ends_with(w.as_bytes()))
}

/// The end of ` word` at `e` (one space, then one of `words`, then no more letters).
fn word_after(b: &[u8], e: usize, words: &[&str]) -> Option<usize> {
    if b.get(e) != Some(&b' ') {
        return None;
    }
    let w_end = run(b, e + 1, |c| c.is_ascii_alphabetic());
    let word = std::str::from_utf8(&b[e + 1..w_end]).ok()?;
    (words.contains(&word) && !word_at(b, w_end)).then_some(w_end)
}

/// `19.99 USD`, `120 euros`, `2.3 billion dollars` at the digit `i`.
fn money_before_code(b: &[u8], i: usize) -> Option<usize> {
    if i > 0 && (word_before(b, i) || matches!(b[i - 1], b'.' | b',' | b'/' | b':' | b'#')) {
        return None;
    }
    if let Some(e) = amount_then_symbol(b, i) {
        return Some(e);
    }
    let (mut e, _) = number_end(b, i);
    if let Some(m) = word_after(b, e, MULTIPLIER_WORDS) {
        e = m;
    }
    word_after(b, e, CURRENCY_CODES).or_else(|| word_after(b, e, CURRENCY_WORDS))
}

/// `3.500 €`, `1.299,00 €`, `12,50 €`, `249€`, `4,500 $`: an amount (grouped and with a
/// decimal comma as much of Europe writes it, or as English does) before its currency sign,
/// after a space, a no-break space or none.
fn amount_then_symbol(b: &[u8], i: usize) -> Option<usize> {
    // Grouped by dots, with a decimal comma.
    let int_end = run(b, i, |c| c.is_ascii_digit());
    let mut european = int_end;
    if int_end - i <= 3 {
        while b.get(european) == Some(&b'.') && run(b, european + 1, |c| c.is_ascii_digit()) == european + 4 {
            european += 4;
        }
    }
    if b.get(european) == Some(&b',') {
        let d = run(b, european + 1, |c| c.is_ascii_digit());
        if (1..=2).contains(&(d - european - 1)) {
            european = d;
        }
    }
    let english = number_end(b, i).0;
    for e in [european.max(english), european.min(english)] {
        let gap = [&b" "[..], "\u{a0}".as_bytes(), "\u{202f}".as_bytes()]
            .iter()
            .find(|s| b[e..].starts_with(s))
            .map_or(0, |s| s.len());
        if let Some(len) = symbol_len(b, e + gap) {
            let end = e + gap + len;
            if !word_at(b, end) {
                return Some(end);
            }
        }
    }
    None
}

/// `EUR 16.50`, `USD 1,500` at the capital `i`.
fn money_after_code(b: &[u8], i: usize) -> Option<usize> {
    let start = i + 4;
    if b.get(i + 3) != Some(&b' ') || !b.get(start).is_some_and(u8::is_ascii_digit) || word_before(b, i) {
        return None;
    }
    let code = std::str::from_utf8(&b[i..i + 3]).ok()?;
    if !CURRENCY_CODES.contains(&code) {
        return None;
    }
    let (e, _) = number_end(b, start);
    let continues = word_at(b, e) || (b.get(e) == Some(&b'.') && word_at(b, e + 1));
    (!continues).then_some(e)
}

#[cfg(test)]
mod tests {
    use crate::ids::testing::of;
    use crate::ids::IdKind;

    #[test]
    fn versions() {
        assert_eq!(
            of(
                IdKind::Version,
                "from 4.17.20 to v4.17.21; >=1.4.0 <2.0.0, 2.0.0-rc.1 and 1.9.3+build.42, v1.2 and version 4.2, inflight@1.0.6."
            ),
            ["4.17.20", "v4.17.21", "1.4.0", "2.0.0", "2.0.0-rc.1", "1.9.3+build.42", "v1.2", "4.2", "1.0.6"]
        );
        assert!(of(
            IdKind::Version,
            "3.14 Python 3.11 Chapter 3.2 2024.05.01 1.2.3.4.5 v1 x1.2.3 1.2.3a 10:30:00 1.x"
        )
        .is_empty());
    }

    #[test]
    fn money() {
        assert_eq!(
            of(
                IdKind::Money,
                "charged $49.99 twice, €249 per month, £2,400 yearly, $12.4k and $3.4 million, $29/month, $0.023/GB, 19.99 USD, EUR 16.50, 120 euros, 2.3 billion dollars, $5."
            ),
            [
                "$49.99",
                "€249",
                "£2,400",
                "$12.4k",
                "$3.4 million",
                "$29/month",
                "$0.023/GB",
                "19.99 USD",
                "EUR 16.50",
                "120 euros",
                "2.3 billion dollars",
                "$5"
            ]
        );
        assert!(of(
            IdKind::Money,
            "awk '{print $1}', echo $1, \"$2\", $0 $PATH 5 USDT 10 USD5 a$5 $5abc billed in EUR"
        )
        .is_empty());
        // Amounts before their sign, as much of Europe writes them.
        assert_eq!(
            of(
                IdKind::Money,
                "Budget 3.500 €, Flug 1.299,00 €, Snack 12,50 €, Taxi 49€, Hotel 4,500\u{a0}€."
            ),
            ["3.500 €", "1.299,00 €", "12,50 €", "49€", "4,500\u{a0}€"]
        );
    }
}
