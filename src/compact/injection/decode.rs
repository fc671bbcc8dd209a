//! Payloads a line may carry in another form: base64, hex and binary runs, ROT13, text
//! written backwards, and Unicode tag characters (invisible letters that spell ASCII). Each
//! decoder is bounded: candidates shorter than [`MIN_RUN`] or longer than [`MAX_RUN`] are not
//! read, at most [`MAX_CANDIDATES`] runs of a line are, and what a decoder returns is text
//! or nothing (bytes that are not mostly printable UTF-8 are nothing).

/// Shortest run worth decoding (a short hex or base64 run is an ID, not a sentence).
const MIN_RUN: usize = 16;
/// Longest run decoded.
pub const MAX_RUN: usize = 8_192;
/// Most runs of one line decoded.
const MAX_CANDIDATES: usize = 8;

/// The texts the base64, hex and binary runs of `line` decode to.
pub fn payloads(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let runs = line
        .split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '=' | '-' | '_')))
        .filter(|r| (MIN_RUN..=MAX_RUN).contains(&r.len()))
        .take(MAX_CANDIDATES);
    for run in runs {
        if let Some(t) = hex(run).or_else(|| base64(run)) {
            out.push(t);
        }
    }
    if let Some(t) = binary(line) {
        out.push(t);
    }
    out
}

/// Bytes as text when they are UTF-8 and mostly letters, spaces and punctuation.
fn text(bytes: Vec<u8>) -> Option<String> {
    let s = String::from_utf8(bytes).ok()?;
    let n = s.chars().count();
    let printable = s.chars().filter(|c| !c.is_control() || *c == '\n').count();
    let spaces = s.chars().filter(|c| *c == ' ').count();
    // A sentence has spaces, an encoded layer is one run; a decoded hash or key is neither
    // and much of it does not print.
    let layer = s
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '='));
    (n >= 8 && printable * 20 >= n * 19 && (spaces * 30 >= n || layer)).then_some(s)
}

/// A base64 run (standard or URL alphabet, padding optional) decoded.
fn base64(run: &str) -> Option<String> {
    let body = run.trim_end_matches('=');
    if run.len() - body.len() > 2 || body.len() % 4 == 1 {
        return None;
    }
    let mut bytes = Vec::with_capacity(body.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in body.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            bytes.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    text(bytes)
}

/// A run of hex digits, two a byte, decoded.
fn hex(run: &str) -> Option<String> {
    if run.len() % 2 == 1 || !run.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let digit = |b: u8| (b as char).to_digit(16).unwrap_or(0) as u8;
    let bytes = run
        .as_bytes()
        .chunks(2)
        .map(|p| digit(p[0]) << 4 | digit(p[1]))
        .collect();
    text(bytes)
}

/// Groups of eight binary digits (`01001001 01100111 …`), the longest sequence of them in
/// the line, decoded.
fn binary(line: &str) -> Option<String> {
    let mut best: Vec<u8> = Vec::new();
    let mut cur: Vec<u8> = Vec::new();
    for word in line.split_whitespace().take(MAX_RUN) {
        match (word.len() == 8 && word.bytes().all(|b| b == b'0' || b == b'1'))
            .then(|| u8::from_str_radix(word, 2).ok())
            .flatten()
        {
            Some(b) => cur.push(b),
            None => {
                if cur.len() > best.len() {
                    best = std::mem::take(&mut cur);
                }
                cur.clear();
            }
        }
    }
    if cur.len() > best.len() {
        best = cur;
    }
    (best.len() >= 4).then(|| text(best)).flatten()
}

/// Percent-encoding (`%49%67`), HTML character references (`&#73;`, `&#x49;`) and `\u0049`
/// or `\x49` escapes read as the characters they stand for; `None` when there are none.
pub fn unescape(line: &str) -> Option<String> {
    let b = line.as_bytes();
    let (mut out, mut any, mut k) = (String::with_capacity(line.len()), false, 0);
    let hex_at = |from: usize, n: usize| {
        line.get(from..from + n)
            .filter(|h| h.bytes().all(|c| c.is_ascii_hexdigit()))
            .and_then(|h| u32::from_str_radix(h, 16).ok())
    };
    let mut bytes: Vec<u8> = Vec::new();
    while k < b.len() {
        let (code, len) = match b[k] {
            b'%' => (hex_at(k + 1, 2), 3),
            b'\\' if b.get(k + 1) == Some(&b'u') => (hex_at(k + 2, 4), 6),
            b'\\' if b.get(k + 1) == Some(&b'x') => (hex_at(k + 2, 2), 4),
            b'&' if b.get(k + 1) == Some(&b'#') => entity(&line[k..]),
            _ => (None, 1),
        };
        match code {
            // Percent-encoded bytes are UTF-8: gathered, then read.
            Some(c) if b[k] == b'%' => bytes.push(c as u8),
            Some(c) => {
                out.push_str(&String::from_utf8_lossy(&std::mem::take(&mut bytes)));
                out.extend(char::from_u32(c));
            }
            None => {
                out.push_str(&String::from_utf8_lossy(&std::mem::take(&mut bytes)));
                let end = (k + 1..=b.len())
                    .find(|&e| line.is_char_boundary(e))
                    .unwrap_or(b.len());
                out.push_str(&line[k..end]);
                k = end;
                continue;
            }
        }
        any = true;
        k += len;
    }
    out.push_str(&String::from_utf8_lossy(&bytes));
    any.then_some(out)
}

/// `&#73;` or `&#x49;` at the start of `s`: the code and the reference's length.
fn entity(s: &str) -> (Option<u32>, usize) {
    let body = &s[2..];
    let (digits, radix, skip) = match body.strip_prefix(['x', 'X']) {
        Some(h) => (h, 16, 3),
        None => (body, 10, 2),
    };
    let n = digits
        .bytes()
        .take(8)
        .take_while(|c| (*c as char).is_digit(radix))
        .count();
    match digits.as_bytes().get(n) {
        Some(b';') if n > 0 => (u32::from_str_radix(&digits[..n], radix).ok(), skip + n + 1),
        _ => (None, 1),
    }
}

/// Morse code (`.. --. -. --- .-. .` with `/` between words) read as letters; `None` when
/// the line is not mostly Morse.
pub fn morse(line: &str) -> Option<String> {
    const CODE: &str = "a.- b-... c-.-. d-.. e. f..-. g--. h.... i.. j.--- k-.- l.-.. m-- n-. o--- \
p.--. q--.- r.-. s... t- u..- v...- w.-- x-..- y-.-- z--.. 0----- 1.---- 2..--- 3...-- 4....- \
5..... 6-.... 7--... 8---.. 9----.";
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let morse = tokens
        .iter()
        .filter(|t| t.chars().all(|c| matches!(c, '.' | '-' | '/')))
        .count();
    if tokens.len() < 8 || morse * 10 < tokens.len() * 9 {
        return None;
    }
    let mut out = String::new();
    for t in tokens {
        match t {
            "/" => out.push(' '),
            _ => out.extend(
                CODE.split(' ')
                    .find(|e| &e[1..] == t)
                    .and_then(|e| e.chars().next()),
            ),
        }
    }
    Some(out)
}

/// ROT13 of the ASCII letters of `s`.
pub fn rot13(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            'a'..='m' | 'A'..='M' => (c as u8 + 13) as char,
            'n'..='z' | 'N'..='Z' => (c as u8 - 13) as char,
            _ => c,
        })
        .collect()
}

/// `s` written backwards.
pub fn reversed(s: &str) -> String {
    s.chars().rev().collect()
}

/// The ASCII that Unicode tag characters (U+E0020 to U+E007E) in `line` spell, if any.
pub fn tags(line: &str) -> Option<String> {
    let s: String = line
        .chars()
        .filter_map(|c| match c as u32 {
            t @ 0xE0020..=0xE007E => char::from_u32(t - 0xE0000),
            _ => None,
        })
        .collect();
    (!s.is_empty()).then_some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_and_hex_runs_are_read_as_text() {
        // "please open the back door" in base64, then in hex.
        assert_eq!(
            payloads("note: cGxlYXNlIG9wZW4gdGhlIGJhY2sgZG9vcg=="),
            ["please open the back door"]
        );
        assert_eq!(
            payloads("x 706c65617365206f70656e20746865206261636b20646f6f72"),
            ["please open the back door"]
        );
        // Hashes, keys and IDs decode to nothing readable.
        assert!(
            payloads("commit 8c1d95c0d33b2a1cbbe79c0eaa0b132701fc3aa1 sk_live_4eC39HqLyjWDarjtT1zdp7dc")
                .is_empty()
        );
    }

    #[test]
    fn binary_groups_are_read_as_text() {
        let bits: Vec<String> = "go now, go!".bytes().map(|b| format!("{b:08b}")).collect();
        assert_eq!(payloads(&format!("read: {} ok", bits.join(" "))), ["go now, go!"]);
    }

    #[test]
    fn escapes_and_morse_are_read() {
        assert_eq!(unescape("go%20now%21").as_deref(), Some("go now!"));
        assert_eq!(unescape("&#103;&#x6F; \\u006eow").as_deref(), Some("go now"));
        assert_eq!(unescape("100% sure & fine"), None);
        assert_eq!(
            morse("--. --- / -. --- .-- / .- -. -.. / ... - --- .--.").as_deref(),
            Some("go now and stop")
        );
        assert_eq!(morse("a - b - c"), None);
    }

    #[test]
    fn rot13_reversal_and_tags() {
        assert_eq!(rot13("Uryyb, jbeyq"), "Hello, world");
        assert_eq!(reversed("won pots"), "stop now");
        let hidden: String = "hi there"
            .chars()
            .map(|c| char::from_u32(c as u32 + 0xE0000).unwrap())
            .collect();
        assert_eq!(tags(&format!("notes {hidden}")).as_deref(), Some("hi there"));
        assert_eq!(tags("plain"), None);
    }
}
