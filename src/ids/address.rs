//! Addresses: IPv4 and IPv6 addresses (with a CIDR prefix length or an IPv6 zone when
//! written), and MAC addresses (`3c:22:fb:8a:19:04`, `00-1B-44-11-3A-B7`).
//!
//! An address with a port is a host:port pair and is found before these run; an address
//! inside a URL is part of the URL.

use super::text::{digits_then_boundary, find, run, word_at, word_before};
use super::{IdKind, Span};

/// `10.0.3.17`, `10.20.0.0/16` at `i` (a digit): the end. Each part has one to three
/// digits and is at most 255; a fifth part (`1.2.3.4.5`) or a letter after it means it is
/// something else.
pub(super) fn ipv4_at(b: &[u8], i: usize) -> Option<usize> {
    if i > 0 && (word_before(b, i) || matches!(b[i - 1], b'.' | b'-')) {
        return None;
    }
    let mut j = i;
    for k in 0..4 {
        let e = run(b, j, |c| c.is_ascii_digit());
        if !(1..=3).contains(&(e - j)) || std::str::from_utf8(&b[j..e]).ok()?.parse::<u16>().ok()? > 255 {
            return None;
        }
        if k < 3 {
            if b.get(e) != Some(&b'.') {
                return None;
            }
            j = e + 1;
        } else {
            j = e;
        }
    }
    if word_at(b, j)
        || (matches!(b.get(j), Some(b'.' | b':')) && b.get(j + 1).is_some_and(u8::is_ascii_digit))
    {
        return None;
    }
    Some(prefix_length(b, j, 32).unwrap_or(j))
}

/// `/16` at `j`, at most `max`: the end.
fn prefix_length(b: &[u8], j: usize, max: u16) -> Option<usize> {
    if b.get(j) != Some(&b'/') {
        return None;
    }
    let e = digits_then_boundary(b, j + 1, 1, 3)?;
    let n: u16 = std::str::from_utf8(&b[j + 1..e]).ok()?.parse().ok()?;
    (n <= max && b.get(e) != Some(&b'/')).then_some(e)
}

fn is_v6_byte(c: u8) -> bool {
    c.is_ascii_hexdigit() || c == b':'
}

/// Appends the IPv6 and colon-separated MAC addresses of `b`, anchored on `:`.
pub(super) fn scan_colon_addresses(b: &[u8], out: &mut Vec<Span>) {
    let mut i = 0;
    while let Some(colon) = find(b, i, b':') {
        let mut s = colon;
        while s > 0 && is_v6_byte(b[s - 1]) {
            s -= 1;
        }
        let mut e = run(b, colon, |c| is_v6_byte(c) || c == b'.');
        i = e.max(colon + 1);
        if s > 0 && (word_before(b, s) || matches!(b[s - 1], b'.' | b'-' | b'/')) {
            continue;
        }
        // A trailing `.` or a single trailing `:` is punctuation, not part of the address.
        while e > colon && b[e - 1] == b'.' {
            e -= 1;
        }
        if e >= 2 && b[e - 1] == b':' && b[e - 2] != b':' {
            e -= 1;
        }
        if word_at(b, e) || b.get(e) == Some(&b'.') && word_at(b, e + 1) {
            continue;
        }
        let text = &b[s..e];
        if is_mac(text, b':') {
            out.push((s, e, IdKind::Address));
        } else if is_ipv6(text) {
            let mut end = e;
            if b.get(end) == Some(&b'%') {
                let z = run(b, end + 1, |c| {
                    c.is_ascii_alphanumeric() || c == b'.' || c == b'_'
                });
                if z > end + 1 {
                    end = z;
                }
            }
            end = prefix_length(b, end, 128).unwrap_or(end);
            out.push((s, end, IdKind::Address));
            i = end;
        }
    }
}

/// `00:1a:2b:3c:4d:5e` with `sep` between six pairs of hex digits.
pub(super) fn is_mac(text: &[u8], sep: u8) -> bool {
    text.len() == 17
        && text.chunks(3).all(|c| {
            c[0].is_ascii_hexdigit() && c[1].is_ascii_hexdigit() && c.get(2).is_none_or(|&x| x == sep)
        })
        && text.iter().any(u8::is_ascii_digit)
}

/// Whether `text` is an IPv6 address: groups of one to four hex digits, eight of them or
/// fewer around one `::`, the last two possibly written as an IPv4 address; with a digit,
/// so that `abc::def` (a path in code) is not one, and with three groups or a group of
/// three digits or more, so that a slice (`a[1::2]`) is not one either (`::1` is).
pub(super) fn is_ipv6(text: &[u8]) -> bool {
    if text == b"::1" {
        return true;
    }
    if !text.iter().any(u8::is_ascii_digit) || text.windows(3).any(|w| w == b":::") {
        return false;
    }
    let groups = text.split(|&c| c == b':').filter(|g| !g.is_empty()).count();
    let longest = text.split(|&c| c == b':').map(<[u8]>::len).max().unwrap_or(0);
    if groups < 3 && longest < 3 {
        return false;
    }
    let halves: Vec<&[u8]> = match text.windows(2).position(|w| w == b"::") {
        Some(p) => {
            if text[p + 2..].windows(2).any(|w| w == b"::") {
                return false;
            }
            vec![&text[..p], &text[p + 2..]]
        }
        None => vec![text],
    };
    let compressed = halves.len() == 2;
    let mut groups = 0;
    let last_half = halves.len() - 1;
    for (h, half) in halves.iter().enumerate() {
        if half.is_empty() {
            continue;
        }
        let parts: Vec<&[u8]> = half.split(|&c| c == b':').collect();
        for (k, part) in parts.iter().enumerate() {
            let last = h == last_half && k == parts.len() - 1;
            if last && part.contains(&b'.') {
                if ipv4_at(part, 0) != Some(part.len()) {
                    return false;
                }
                groups += 2;
            } else if (1..=4).contains(&part.len()) && part.iter().all(u8::is_ascii_hexdigit) {
                groups += 1;
            } else {
                return false;
            }
        }
    }
    if compressed {
        groups <= 7
    } else {
        groups == 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::testing::of;

    #[test]
    fn ipv4() {
        assert_eq!(
            of(IdKind::Address, "at 10.0.3.17, and 10.20.0.0/16 or 0.0.0.0/0."),
            ["10.0.3.17", "10.20.0.0/16", "0.0.0.0/0"]
        );
        assert!(of(
            IdKind::Address,
            "1.2.3.4.5 256.1.1.1 1.2.3 v1.2.3.4 a1.2.3.4 1.2.3.4a"
        )
        .is_empty());
    }

    #[test]
    fn ipv6() {
        assert_eq!(
            of(
                IdKind::Address,
                "client ::1, fe80::1ff:fe23:4567:890a%eth0 and 2001:db8:85a3::8a2e:370:7334; 2001:db8:100::/48 ::ffff:10.0.0.1"
            ),
            [
                "::1",
                "fe80::1ff:fe23:4567:890a%eth0",
                "2001:db8:85a3::8a2e:370:7334",
                "2001:db8:100::/48",
                "::ffff:10.0.0.1"
            ]
        );
        assert!(of(
            IdKind::Address,
            "at 10:30:00 and 20:50, std::vec, abc::def, 1:2:3, :: alone, a:b:c, a[1::2]"
        )
        .is_empty());
        assert_eq!(of(IdKind::Address, "1:2:3:4:5:6:7:8"), ["1:2:3:4:5:6:7:8"]);
    }

    #[test]
    fn macs() {
        assert_eq!(
            of(
                IdKind::Address,
                "lease for 3c:22:fb:8a:19:04 and 00-1B-44-11-3A-B7."
            ),
            ["3c:22:fb:8a:19:04", "00-1B-44-11-3A-B7"]
        );
    }
}
