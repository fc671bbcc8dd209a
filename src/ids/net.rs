//! Network names: URLs, e-mail addresses and host:port pairs.
//!
//! Each scanner is anchored on the byte its kind cannot do without (`://`, `@`, `:` and a
//! digit) and works outwards from it, so text without one costs a single `memchr`-like pass.

use super::text::{boundary, char_at, digits_then_boundary, find, is_space, run, word_at, word_before};

// ---------------------------------------------------------------------------------
// url: \b(?:https?|ftp|wss?)://[^\s<>"'`)\]}]+

pub(super) fn scan_url(b: &[u8], out: &mut Vec<(usize, usize)>) {
    // Anchored on `://`: at most one of the schemes ends right before it.
    let mut i = 0;
    while let Some(colon) = find(b, i, b':') {
        i = colon + 1;
        if !b[colon..].starts_with(b"://") {
            continue;
        }
        let Some(scheme) = ["https", "http", "ftp", "wss", "ws"]
            .iter()
            .find(|s| b[..colon].ends_with(s.as_bytes()))
        else {
            continue;
        };
        let s = colon - scheme.len();
        if word_before(b, s) {
            continue;
        }
        if let Some(e) = url_end(b, colon + 3) {
            out.push((s, e));
            i = e;
        }
    }
}

/// `[^\s<>"'`)\]}]+` from `start`.
fn url_end(b: &[u8], start: usize) -> Option<usize> {
    let mut j = start;
    while let Some(c) = char_at(b, j) {
        if is_space(c) || matches!(c, '<' | '>' | '"' | '\'' | '`' | ')' | ']' | '}') {
            break;
        }
        j += c.len_utf8();
    }
    (j > start).then_some(j)
}

// ---------------------------------------------------------------------------------
// email: local@domain.tld, local part [A-Za-z0-9._%+-] starting with a letter or digit.

pub(super) fn scan_email(b: &[u8], out: &mut Vec<(usize, usize)>) {
    let mut last_end = 0;
    let mut i = 0;
    while let Some(at) = b[i..].iter().position(|&c| c == b'@').map(|p| p + i) {
        i = at + 1;
        if let Some((s, e)) = email_at(b, at, last_end) {
            out.push((s, e));
            last_end = e;
            i = e;
        }
    }
}

fn email_at(b: &[u8], at: usize, not_before: usize) -> Option<(usize, usize)> {
    let is_local = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'%' | b'+' | b'-');
    let mut s = at;
    while s > not_before && is_local(b[s - 1]) {
        s -= 1;
    }
    // What precedes the local part: a path (`/home/u@x`), an escape (`\n@pytest.fixture`
    // in JSON text) or a longer word mean this is not an address.
    if s > 0 && (word_before(b, s) || matches!(b[s - 1], b'/' | b'\\' | b'@' | b':')) {
        return None;
    }
    while s < at && !b[s].is_ascii_alphanumeric() {
        s += 1;
    }
    if s == at {
        return None;
    }
    // Domain: two or more labels, the last all letters and not a file extension.
    let mut j = at + 1;
    let mut labels = 0;
    let mut last = (0, 0);
    loop {
        let e = run(b, j, |c| c.is_ascii_alphanumeric() || c == b'-');
        if e == j || b[j] == b'-' || b[e - 1] == b'-' {
            break;
        }
        labels += 1;
        last = (j, e);
        if b.get(e) == Some(&b'.') && b.get(e + 1).is_some_and(|c| c.is_ascii_alphanumeric()) {
            j = e + 1;
        } else {
            break;
        }
    }
    let (ts, te) = last;
    let tld = &b[ts..te];
    let ok = labels >= 2
        && (2..=24).contains(&tld.len())
        && tld.iter().all(u8::is_ascii_alphabetic)
        && !is_file_ext(tld)
        && !word_at(b, te)
        && !matches!(b.get(te), Some(b'@' | b'-'));
    ok.then_some((s, te))
}

// ---------------------------------------------------------------------------------
// host_port:
// \b(?:localhost|(?:\d{1,3}\.){3}\d{1,3}|(?:[A-Za-z0-9-]+\.)+(?!(?:EXT):)[A-Za-z]{2,}):\d{2,5}\b

const FILE_EXT: &[&str] = &[
    "py", "pyc", "pyi", "js", "ts", "tsx", "jsx", "rs", "go", "c", "h", "cc", "cpp", "hpp", "java", "rb",
    "sh", "pl", "php", "txt", "md", "rst", "json", "yml", "yaml", "toml", "cfg", "ini", "html", "css", "xml",
    "csv", "log", "lock", "sql", "traj", "pot", "po", "png", "jpg", "svg",
];

pub(super) fn is_file_ext(s: &[u8]) -> bool {
    FILE_EXT.iter().any(|e| e.as_bytes() == s)
}

fn is_host_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'-' || c == b'.'
}

/// The longest host name DNS allows; a longer run before a `:` is not a host, and
/// bounding it keeps a pathological run from being rescanned from each of its starts.
const MAX_HOST: usize = 253;

pub(super) fn scan_host_port(b: &[u8], out: &mut Vec<(usize, usize)>) {
    // Anchored on `:` and a digit. Everything before the `:` is in [A-Za-z0-9.-], so the
    // match starts in the run of those that ends at the `:`.
    let mut from = 0;
    let mut i = 0;
    while let Some(colon) = find(b, i, b':') {
        i = colon + 1;
        if !b.get(colon + 1).is_some_and(u8::is_ascii_digit) {
            continue;
        }
        let mut s = colon;
        while s > from && is_host_byte(b[s - 1]) {
            s -= 1;
        }
        if colon - s > MAX_HOST {
            continue;
        }
        for start in s..colon {
            if boundary(b, start) {
                if let Some(e) = host_port_at(b, start) {
                    out.push((start, e));
                    from = e;
                    i = e;
                    break;
                }
            }
        }
    }
}

fn host_port_at(b: &[u8], i: usize) -> Option<usize> {
    let port = |j: usize| {
        if b.get(j) == Some(&b':') {
            digits_then_boundary(b, j + 1, 2, 5)
        } else {
            None
        }
    };
    if b[i..].starts_with(b"localhost") {
        if let Some(e) = port(i + 9) {
            return Some(e);
        }
    }
    // IPv4: each digit run is 1..3 long and followed by `.` (three times) or `:`.
    let mut j = i;
    let mut ip = true;
    for k in 0..4 {
        let e = run(b, j, |c| c.is_ascii_digit());
        if !(1..=3).contains(&(e - j)) || (k < 3 && b.get(e) != Some(&b'.')) {
            ip = false;
            break;
        }
        j = if k < 3 { e + 1 } else { e };
    }
    if ip {
        if let Some(e) = port(j) {
            return Some(e);
        }
    }
    // Dotted host: labels then a letters-only top-level part that is not a file extension.
    let mut j = i;
    let mut labels = 0;
    loop {
        let e = run(b, j, |c| c.is_ascii_alphanumeric() || c == b'-');
        if e > j && b.get(e) == Some(&b'.') {
            labels += 1;
            j = e + 1;
        } else {
            break;
        }
    }
    let tld_end = run(b, j, |c| c.is_ascii_alphabetic());
    if labels == 0 || tld_end - j < 2 || is_file_ext(&b[j..tld_end]) {
        return None;
    }
    port(tld_end)
}

#[cfg(test)]
mod tests {
    use crate::ids::testing::{ids, of};
    use crate::ids::IdKind;

    #[test]
    fn urls() {
        assert_eq!(
            of(
                IdKind::Url,
                "see https://github.com/a/b/issues/12. and (http://x.io/p)"
            ),
            ["https://github.com/a/b/issues/12", "http://x.io/p"]
        );
        assert_eq!(
            of(IdKind::Url, "wss://h:8/x ftp://f/y"),
            ["wss://h:8/x", "ftp://f/y"]
        );
        assert!(of(IdKind::Url, "xhttp://a.b HTTP://a.b http:// ").is_empty());
        // The path and host:port inside a URL count once, as the URL.
        assert_eq!(
            ids("http://web.chal.csaw.io:8000/cgi-bin/file.pl?/etc/passwd"),
            [(
                IdKind::Url,
                "http://web.chal.csaw.io:8000/cgi-bin/file.pl?/etc/passwd".into()
            )]
        );
    }

    #[test]
    fn host_ports() {
        assert_eq!(
            of(
                IdKind::HostPort,
                "nc crypto.chal.csaw.io:4242; localhost:8080 10.0.0.1:5432."
            ),
            ["crypto.chal.csaw.io:4242", "localhost:8080", "10.0.0.1:5432"]
        );
        // A file and a line number, not a host.
        assert!(of(IdKind::HostPort, "fields.py:1474 a.b.rs:20 x.json:12").is_empty());
        // Port of one digit or six; a host without a dot.
        assert!(of(IdKind::HostPort, "a.com:8 a.com:123456 server:8080 1.2.3:80").is_empty());
    }

    #[test]
    fn emails() {
        assert_eq!(
            of(
                IdKind::Email,
                "mail omar.davis7857@example.com or sloria1@gmail.com."
            ),
            ["omar.davis7857@example.com", "sloria1@gmail.com"]
        );
        assert!(of(
            IdKind::Email,
            r"\n@pytest.fixture a@b user@host x@y.py @types/node"
        )
        .is_empty());
    }
}
