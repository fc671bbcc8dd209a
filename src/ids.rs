//! Identifiers: the exact strings a summary must not lose.
//!
//! Compaction replaces old turns with a summary, and summaries written by a model drop
//! file paths, hashes and commands. This module finds those strings deterministically, so
//! the compactor can check which ones a summary kept, append the ones it dropped, and
//! flag identifiers a summary invented.
//!
//! - [`extract`] scans text for URLs, e-mail addresses, host:port pairs, paths, error
//!   names, tickets, hex ids, quantities, codes and shell commands.
//! - [`commands_from_call`] reads the command out of a shell-like tool call.
//! - [`Ledger`] counts and ranks what was found: most referenced first.
//! - [`mentions`] tells whether a text contains an identifier as a whole, not as part
//!   of a longer word or path.
//!
//! The first seven kinds follow the baseline census of the test corpus
//! (`shared/corpus/convert.py`, `ID_PATTERNS`) as closely as practical: the kinds run
//! in a fixed order over the text, and each match is masked before the next kind runs,
//! so a path inside a URL counts once, as the URL. The scanners are hand-written over
//! bytes because a regex engine would cost about 300 KB of WebAssembly; the integration
//! test `tests/ids.rs` checks them against the baseline's regexes on the whole corpus.

use std::collections::BTreeMap;

use serde::Serialize;

/// What an identifier is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IdKind {
    /// `http://`, `https://`, `ftp://`, `ws://` or `wss://` followed by anything up to
    /// whitespace, a quote, `<`, `>`, `` ` ``, `)`, `]` or `}`.
    Url,
    /// `localhost:8000`, `10.0.0.1:5432`, `web.chal.csaw.io:8000`; not `fields.py:1474`
    /// (a host ending in a file extension is a file and a line number).
    HostPort,
    /// `/abs/path` and `~/x/y`, `./a/b`, `../a/b` with at least two components, or a
    /// relative `dir/file.ext`.
    Path,
    /// `TypeError`, `ImportWarning`, `ValidationException`.
    ErrorName,
    /// `JIRA-123`, `ORA-03113` (not `UTF-8`, `SHA-256`, `ISO-8601`, `MD-5`, `TLS-1`,
    /// `SSL-3`, `HTTP-2`), and `#1234` (3 to 7 digits).
    Ticket,
    /// `0x7f3a2c10` (at least 6 hex digits), or lowercase hex of 7 to 64 characters with
    /// both a digit and a letter: git hashes, object ids.
    Hex,
    /// Upper-case codes of 5 to 12 characters with a digit and a letter (`JG7FMM`,
    /// `HAT123`, not the `11T08` of a timestamp), and `snake_case_ids_123`.
    Code,
    /// `name@example.com`.
    Email,
    /// A shell command: from a tool call ([`commands_from_call`]); in text, a line
    /// starting with `$ ` or `> ` and a known program (`$ pytest -x`), the first line of
    /// a ```` ```bash ```` block if it starts with one, or an inline code span with a
    /// known program and an argument (`` `git checkout src/a.py` ``).
    Command,
    /// A number with a unit: `512MB`, `2.5 GiB`, `30s`, `3 ms`, `99.9%`, `10k tokens`,
    /// `2.4GHz`, `40 MB/s`. See [`QUANTITY_UNITS`].
    Quantity,
}

impl IdKind {
    /// Every kind, in declaration order.
    pub const ALL: [IdKind; 10] = [
        IdKind::Url,
        IdKind::HostPort,
        IdKind::Path,
        IdKind::ErrorName,
        IdKind::Ticket,
        IdKind::Hex,
        IdKind::Code,
        IdKind::Email,
        IdKind::Command,
        IdKind::Quantity,
    ];

    /// The snake_case name used in results and in the corpus census (`host_port`).
    pub fn name(self) -> &'static str {
        match self {
            IdKind::Url => "url",
            IdKind::HostPort => "host_port",
            IdKind::Path => "path",
            IdKind::ErrorName => "error_name",
            IdKind::Ticket => "ticket",
            IdKind::Hex => "hex",
            IdKind::Code => "code",
            IdKind::Email => "email",
            IdKind::Command => "command",
            IdKind::Quantity => "quantity",
        }
    }
}

/// One identifier found in a text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Identifier {
    /// What it is.
    pub kind: IdKind,
    /// The identifier, verbatim (trailing `.,;:` removed).
    pub text: String,
}

impl Identifier {
    /// An identifier of `kind` with `text`.
    pub fn new(kind: IdKind, text: impl Into<String>) -> Self {
        Identifier {
            kind,
            text: text.into(),
        }
    }
}

/// Units a number must carry to be a [`IdKind::Quantity`]. Most may follow the number
/// after one space (`2.5 GiB`, `3 ms`); `s`, `h`, `us` and `%` must be attached (`30s`,
/// `99.9%`), as `2 s` or `3 us` is more often prose. A trailing `/s` makes a rate
/// (`40 MB/s`); any other `/` makes it something else (`8080/tcp`, `sed '1073s/a/b/'`).
/// `tokens` may have a `k` or `M` multiplier on the number (`10k tokens`). Decades
/// (`1960s`, `the 90s`) and progress bars (`[ 42%]`) are not quantities. Spelled-out
/// time (`3 days`) is not counted: in chat it is prose, not a setting.
pub const QUANTITY_UNITS: &[&str] = &[
    "KB", "MB", "GB", "TB", "PB", "kB", "KiB", "MiB", "GiB", "TiB", "PiB", "bytes", "ns", "us", "µs", "μs",
    "ms", "s", "sec", "secs", "min", "mins", "h", "hr", "hrs", "Hz", "kHz", "MHz", "GHz", "tokens", "%",
];

/// Identifiers in `text`, in order of appearance (repeats included), each found once per
/// occurrence.
///
/// Kinds run in the order URL, e-mail, host:port, path, error name, ticket, hex,
/// quantity, code; each match is masked before the next kind runs, so a URL's host:port
/// or path is counted once, as the URL. Commands are found on the unmasked text and do
/// not mask: a command and the path it names are both reported.
///
/// ```
/// use ctxfold::ids::{extract, IdKind};
/// let found = extract("TypeError in /testbed/a.py, see https://x.io/a/b.");
/// let found: Vec<(IdKind, &str)> = found.iter().map(|i| (i.kind, i.text.as_str())).collect();
/// assert_eq!(
///     found,
///     [(IdKind::ErrorName, "TypeError"), (IdKind::Path, "/testbed/a.py"), (IdKind::Url, "https://x.io/a/b")]
/// );
/// ```
pub fn extract(text: &str) -> Vec<Identifier> {
    // Matches are masked with spaces; a match covers whole characters, so the buffer
    // stays valid UTF-8 and byte offsets stay those of `text`.
    let mut buf = text.as_bytes().to_vec();
    let mut found: Vec<(usize, IdKind, &str)> = Vec::new();
    let scanners: [(IdKind, Scanner); 9] = [
        (IdKind::Url, scan_url),
        (IdKind::Email, scan_email),
        (IdKind::HostPort, scan_host_port),
        (IdKind::Path, scan_path),
        (IdKind::ErrorName, scan_error_name),
        (IdKind::Ticket, scan_ticket),
        (IdKind::Hex, scan_hex),
        (IdKind::Quantity, scan_quantity),
        (IdKind::Code, scan_code),
    ];
    let mut spans = Vec::new();
    for (kind, scan) in scanners {
        spans.clear();
        scan(&buf, &mut spans);
        for &(s, e) in &spans {
            let id = text[s..e].trim_end_matches(['.', ',', ';', ':']);
            if !id.is_empty() {
                found.push((s, kind, id));
            }
            buf[s..e].fill(b' ');
        }
    }
    commands_in_text(text, &mut found);
    found.sort_by_key(|&(s, kind, _)| (s, kind));
    found
        .into_iter()
        .map(|(_, kind, t)| Identifier::new(kind, t))
        .collect()
}

/// A scanner appends the byte ranges of its kind's matches, in order, to the vector.
type Scanner = fn(&[u8], &mut Vec<(usize, usize)>);

// ---------------------------------------------------------------------------------
// Characters. `\w` of the baseline regexes is Unicode: letters, digits and `_`.

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The character starting at byte `i` (a character boundary), if any.
fn char_at(b: &[u8], i: usize) -> Option<char> {
    let first = *b.get(i)?;
    if first < 0x80 {
        return Some(first as char);
    }
    let len = match first {
        0xF0.. => 4,
        0xE0.. => 3,
        _ => 2,
    };
    std::str::from_utf8(b.get(i..i + len)?).ok()?.chars().next()
}

/// The character ending at byte `i`, if any.
fn char_before(b: &[u8], i: usize) -> Option<char> {
    let last = *b.get(i.checked_sub(1)?)?;
    if last < 0x80 {
        return Some(last as char);
    }
    let mut start = i - 1;
    while start > 0 && i - start < 4 && b[start] & 0xC0 == 0x80 {
        start -= 1;
    }
    std::str::from_utf8(&b[start..i]).ok()?.chars().next()
}

#[inline]
fn word_at(b: &[u8], i: usize) -> bool {
    match b.get(i) {
        Some(&c) if c < 0x80 => c.is_ascii_alphanumeric() || c == b'_',
        Some(_) => char_at(b, i).is_some_and(is_word),
        None => false,
    }
}

#[inline]
fn word_before(b: &[u8], i: usize) -> bool {
    match i.checked_sub(1).map(|j| b[j]) {
        Some(c) if c < 0x80 => c.is_ascii_alphanumeric() || c == b'_',
        Some(_) => char_before(b, i).is_some_and(is_word),
        None => false,
    }
}

/// `\b`: a word character on exactly one side of `i`.
#[inline]
fn boundary(b: &[u8], i: usize) -> bool {
    word_before(b, i) != word_at(b, i)
}

/// The byte length of the character at `i` (1 past the end).
#[inline]
fn char_len(b: &[u8], i: usize) -> usize {
    match b.get(i) {
        Some(&c) if c >= 0xF0 => 4,
        Some(&c) if c >= 0xE0 => 3,
        Some(&c) if c >= 0xC0 => 2,
        _ => 1,
    }
}

/// The first `byte` at or after `i`.
fn find(b: &[u8], i: usize, byte: u8) -> Option<usize> {
    b.get(i..)?.iter().position(|&c| c == byte).map(|p| p + i)
}

/// The end of the run of bytes from `i` that satisfy `f`.
fn run(b: &[u8], i: usize, f: impl Fn(u8) -> bool) -> usize {
    i + b[i.min(b.len())..].iter().take_while(|&&c| f(c)).count()
}

/// `\d{min,max}\b` from `i`: the digit run must be maximal (a longer one has no `\b`
/// inside it) and followed by a non-word character.
fn digits_then_boundary(b: &[u8], i: usize, min: usize, max: usize) -> Option<usize> {
    let end = run(b, i, |c| c.is_ascii_digit());
    ((min..=max).contains(&(end - i)) && !word_at(b, end)).then_some(end)
}

// ---------------------------------------------------------------------------------
// url: \b(?:https?|ftp|wss?)://[^\s<>"'`)\]}]+

fn scan_url(b: &[u8], out: &mut Vec<(usize, usize)>) {
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

/// Python's `\s`: Unicode whitespace plus the ASCII separators `\x1c`..`\x1f`.
fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\x1c'..='\x1f').contains(&c)
}

// ---------------------------------------------------------------------------------
// email: local@domain.tld, local part [A-Za-z0-9._%+-] starting with a letter or digit.

fn scan_email(b: &[u8], out: &mut Vec<(usize, usize)>) {
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

fn is_file_ext(s: &[u8]) -> bool {
    FILE_EXT.iter().any(|e| e.as_bytes() == s)
}

fn is_host_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'-' || c == b'.'
}

/// The longest host name DNS allows; a longer run before a `:` is not a host, and
/// bounding it keeps a pathological run from being rescanned from each of its starts.
const MAX_HOST: usize = 253;

fn scan_host_port(b: &[u8], out: &mut Vec<(usize, usize)>) {
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

// ---------------------------------------------------------------------------------
// path:
//   (?<![\w/.:-])(?:~|\.{1,2})?(?:/[\w.+@-]+){2,}/?           absolute, ~/ and ./
// | \b[\w.+@-]+(?:/[\w.+@-]+)+\.[A-Za-z][A-Za-z0-9]{0,5}\b     relative dir/file.ext

#[inline]
fn seg_at(b: &[u8], i: usize) -> bool {
    matches!(b.get(i), Some(b'.' | b'+' | b'@' | b'-')) || word_at(b, i)
}

/// The end of the run of `[\w.+@-]` from `i`.
fn seg_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() {
        match b[i] {
            c if c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'+' | b'@' | b'-') => i += 1,
            c if c < 0x80 => break,
            _ => match char_at(b, i) {
                Some(ch) if is_word(ch) => i += ch.len_utf8(),
                _ => break,
            },
        }
    }
    i
}

/// What the relative alternative knows about one chain of `seg(/seg)*` (computed once
/// per chain, so a long chain with many word boundaries is not rescanned from each).
struct Chain {
    start: usize,
    end: usize,
    /// The last `.ext` that can end a match: (position of the dot, end of the
    /// extension, last `/` before the dot).
    best: Option<(usize, usize, usize)>,
}

fn chain_from(b: &[u8], i: usize) -> Chain {
    let mut slashes = Vec::new();
    let mut j = seg_end(b, i);
    while b.get(j) == Some(&b'/') && seg_at(b, j + 1) {
        slashes.push(j);
        j = seg_end(b, j + 1);
    }
    let end = j;
    let mut best = None;
    if let Some(&first_slash) = slashes.first() {
        // Backtracking gives the regex the last dot that is followed by a valid
        // extension; it needs a `/` between the start and the dot.
        let mut p = end;
        while p > first_slash + 1 {
            p -= 1;
            if b[p] != b'.' || !b[p + 1..end].first().is_some_and(u8::is_ascii_alphabetic) {
                continue;
            }
            let ext_end = run(b, p + 1, |c| c.is_ascii_alphanumeric());
            if ext_end - (p + 1) <= 6 && !word_at(b, ext_end) && b[p - 1] != b'/' {
                let slash = *slashes.iter().rev().find(|&&s| s < p).unwrap_or(&first_slash);
                best = Some((p, ext_end, slash));
                break;
            }
        }
    }
    Chain { start: i, end, best }
}

fn scan_path(b: &[u8], out: &mut Vec<(usize, usize)>) {
    let mut chain = Chain {
        start: 0,
        end: 0,
        best: None,
    };
    let mut i = 0;
    let mut run_end = 0;
    while i < b.len() {
        // Every match lies in a run of [\w.+@-/~] holding a `/`: go to the next `/`,
        // back to the start of its run, and try the starts of that run.
        if i >= run_end {
            let Some(slash) = find(b, i, b'/') else {
                break;
            };
            let mut s = slash;
            while s > i {
                match char_before(b, s) {
                    Some(c) if is_word(c) || matches!(c, '.' | '+' | '@' | '-' | '/' | '~') => {
                        s -= c.len_utf8()
                    }
                    _ => break,
                }
            }
            let mut j = slash;
            while j < b.len() && (seg_at(b, j) || matches!(b[j], b'/' | b'~')) {
                j += char_len(b, j);
            }
            i = s;
            run_end = j;
        }
        if let Some(e) = absolute_path_at(b, i) {
            out.push((i, e));
            i = e;
            continue;
        }
        if seg_at(b, i) && boundary(b, i) {
            if !(chain.start..chain.end).contains(&i) {
                chain = chain_from(b, i);
            }
            if let Some((p, ext_end, slash)) = chain.best {
                if i < slash && slash < p {
                    out.push((i, ext_end));
                    i = ext_end;
                    continue;
                }
            }
        }
        i += char_len(b, i);
    }
}

fn absolute_path_at(b: &[u8], i: usize) -> Option<usize> {
    if !matches!(b[i], b'~' | b'.' | b'/') {
        return None;
    }
    if let Some(c) = char_before(b, i) {
        if is_word(c) || matches!(c, '/' | '.' | ':' | '-') {
            return None;
        }
    }
    let prefixes: &[usize] = match b[i] {
        b'~' => &[1, 0],
        b'.' if b.get(i + 1) == Some(&b'.') => &[2, 1, 0],
        b'.' => &[1, 0],
        _ => &[0],
    };
    for &p in prefixes {
        let mut j = i + p;
        let mut segments = 0;
        while b.get(j) == Some(&b'/') && seg_at(b, j + 1) {
            j = seg_end(b, j + 1);
            segments += 1;
        }
        if segments >= 2 {
            return Some(if b.get(j) == Some(&b'/') { j + 1 } else { j });
        }
    }
    None
}

// ---------------------------------------------------------------------------------
// Whole-word kinds. Their patterns are made of word characters between two `\b`, so a
// match is always one whole word: a maximal run of `\w`.

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
fn scan_error_name(b: &[u8], out: &mut Vec<(usize, usize)>) {
    scan_words(b, out, |w| {
        w[0].is_ascii_uppercase()
            && w.iter().all(u8::is_ascii_alphanumeric)
            && ["Error", "Exception", "Warning"]
                .iter()
                .any(|s| w.len() > s.len() && w.ends_with(s.as_bytes()))
    });
}

// hex: \b0x[0-9a-fA-F]{6,}\b | \b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,64}\b
fn scan_hex(b: &[u8], out: &mut Vec<(usize, usize)>) {
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
fn scan_code(b: &[u8], out: &mut Vec<(usize, usize)>) {
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

// ---------------------------------------------------------------------------------
// ticket: \b(?!(?:UTF|SHA|ISO|MD|TLS|SSL|HTTP)-)[A-Z][A-Z0-9]{1,9}-\d{1,6}\b
//       | (?<![\w&#])#\d{3,7}\b

fn scan_ticket(b: &[u8], out: &mut Vec<(usize, usize)>) {
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

// ---------------------------------------------------------------------------------
// quantity: a number (`512`, `2.5`, `1,024`) and a unit of QUANTITY_UNITS.

fn scan_quantity(b: &[u8], out: &mut Vec<(usize, usize)>) {
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

// ---------------------------------------------------------------------------------
// Commands.

/// Programs that start a command in a code span or after a `$ ` prompt.
#[rustfmt::skip]
const CLI_WORDS: &[&str] = &[
    "git", "gh", "npm", "npx", "yarn", "pnpm", "bun", "deno", "node", "pip", "pip3", "pipx", "uv",
    "poetry", "conda", "python", "python3", "pytest", "tox", "cargo", "rustc", "rustup", "go",
    "gcc", "clang", "cmake", "mvn", "gradle", "javac", "docker", "docker-compose", "podman",
    "kubectl", "helm", "terraform", "aws", "gcloud", "az", "curl", "wget", "ssh", "scp", "rsync",
    "ls", "cd", "grep", "rg", "sed", "awk", "mkdir", "rm", "cp", "mv", "chmod", "chown", "tar",
    "unzip", "sudo", "apt", "apt-get", "brew", "systemctl", "journalctl", "psql", "mysql",
    "sqlite3", "redis-cli", "nc", "nmap", "bash", "sh", "zsh", "ruff", "mypy", "flake8", "eslint",
    "tsc", "jest", "vitest", "pylint", "isort", "nl", "make", "find", "cat", "echo", "touch",
    "head", "tail", "diff", "export", "source",
];

/// The CLI words that are also English: not trusted after a `> ` (a Markdown quote).
const PROSE_WORDS: &[&str] = &[
    "make", "find", "cat", "echo", "touch", "head", "tail", "diff", "export", "source", "go",
];

/// Commands longer than this are cut at a space before it.
const MAX_COMMAND: usize = 160;

/// The first line of `text`, trimmed and cut to [`MAX_COMMAND`] bytes at a space (so
/// the cut text still ends where a word ends).
fn command_line(text: &str) -> Option<&str> {
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))?;
    if line.len() <= MAX_COMMAND {
        return Some(line);
    }
    let mut cut = MAX_COMMAND;
    while !line.is_char_boundary(cut) {
        cut -= 1;
    }
    let head = &line[..cut];
    Some(match head.rfind(char::is_whitespace) {
        Some(s) if s > MAX_COMMAND / 2 => head[..s].trim_end(),
        _ => head,
    })
}

fn first_word(command: &str) -> &str {
    command.split_whitespace().next().unwrap_or("")
}

/// Whether `word` starts a command: a known program, or a path to an executable
/// (`./run.sh`). After a `> ` (`quoted`), which is also a Markdown quote, English-looking
/// programs and paths do not count.
fn starts_command(word: &str, quoted: bool) -> bool {
    if quoted {
        CLI_WORDS.contains(&word) && !PROSE_WORDS.contains(&word)
    } else {
        CLI_WORDS.contains(&word) || word.starts_with("./") || word.starts_with("~/") || word.starts_with('/')
    }
}

fn commands_in_text<'a>(text: &'a str, found: &mut Vec<(usize, IdKind, &'a str)>) {
    let mut fence: Option<bool> = None; // inside a fenced block: is it a shell block?
    let mut fence_taken = false;
    let mut offset = 0;
    for raw in text.split_inclusive('\n') {
        let line_start = offset;
        offset += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        let t = line.trim_start();
        let indent = line.len() - t.len();
        if let Some(info) = t.strip_prefix("```") {
            fence = match fence {
                Some(_) => None,
                None => Some(matches!(info.trim(), "bash" | "sh" | "shell" | "zsh")),
            };
            fence_taken = false;
            continue;
        }
        // Prompt templates put placeholders in shell blocks (`<action>`,
        // `your_command_here`): there too, only a known program starts a command.
        if fence == Some(true) && !fence_taken && !t.is_empty() && !t.starts_with('#') {
            fence_taken = true;
            if starts_command(first_word(t), false) {
                if let Some(cmd) = command_line(t) {
                    found.push((line_start + indent, IdKind::Command, cmd));
                }
            }
            continue;
        }
        let prompt = if t.starts_with("$ ") {
            Some(false)
        } else if t.starts_with("> ") {
            Some(true)
        } else {
            None
        };
        if let Some(quote) = prompt {
            let rest = t[2..].trim_start();
            if starts_command(first_word(rest), quote) {
                if let Some(cmd) = command_line(rest) {
                    found.push((line_start + (line.len() - rest.len()), IdKind::Command, cmd));
                }
                continue;
            }
        }
        if fence.is_none() {
            code_span_commands(line, line_start, found);
        }
    }
}

/// `` `git checkout src/a.py` ``: single-backtick spans whose first word is a CLI program
/// and that have an argument.
fn code_span_commands<'a>(line: &'a str, line_start: usize, found: &mut Vec<(usize, IdKind, &'a str)>) {
    let b = line.as_bytes();
    let mut i = 0;
    while let Some(open) = b[i..].iter().position(|&c| c == b'`').map(|p| p + i) {
        let close_run = run(b, open, |c| c == b'`');
        if close_run - open > 1 {
            // A longer backtick run opens a span closed by the same run; skip it whole.
            let ticks = &line[open..close_run];
            i = line[close_run..]
                .find(ticks)
                .map_or(close_run, |p| close_run + p + ticks.len());
            continue;
        }
        let Some(close) = b[open + 1..]
            .iter()
            .position(|&c| c == b'`')
            .map(|p| p + open + 1)
        else {
            break;
        };
        i = close + 1;
        if b.get(close + 1) == Some(&b'`') {
            continue;
        }
        let span = &line[open + 1..close];
        let cmd = span.trim();
        let word = first_word(cmd);
        if CLI_WORDS.contains(&word) && cmd.len() > word.len() && cmd.len() <= MAX_COMMAND {
            let start = line_start + open + 1 + (span.len() - span.trim_start().len());
            found.push((start, IdKind::Command, cmd));
        }
    }
}

/// Commands from a tool call: for a tool named like a shell (`bash`, `shell`,
/// `run_terminal_cmd`, `exec_command`, `container.exec`, ...), the `command`, `cmd` or
/// `script` field of its JSON arguments (a string, or an argv array such as
/// `["bash", "-lc", "ls"]`), first non-comment line, trimmed, at most 160 bytes. Arguments
/// that are not JSON are taken as the command itself. Other tools give nothing.
///
/// ```
/// use ctxfold::ids::commands_from_call;
/// let found = commands_from_call("bash", r#"{"command": "cd /testbed && pytest -x\necho done"}"#);
/// assert_eq!(found[0].text, "cd /testbed && pytest -x");
/// ```
pub fn commands_from_call(tool_name: &str, arguments_json: &str) -> Vec<Identifier> {
    if !is_shell_tool(tool_name) {
        return Vec::new();
    }
    let raw = arguments_json.trim();
    let value: serde_json::Value = match serde_json::from_str(raw) {
        Ok(v) => v,
        Err(_) if !raw.starts_with(['{', '[']) => serde_json::Value::String(raw.to_owned()),
        Err(_) => return Vec::new(),
    };
    let field = match &value {
        serde_json::Value::Object(o) => ["command", "cmd", "script"].iter().find_map(|k| o.get(*k)),
        v @ serde_json::Value::String(_) => Some(v),
        _ => None,
    };
    let text = match field {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(serde_json::Value::Array(argv)) => {
            let argv: Vec<&str> = argv.iter().filter_map(|a| a.as_str()).collect();
            // `["bash", "-lc", "script"]` runs the script; otherwise the argv is the command.
            match argv.as_slice() {
                [shell, flag, script]
                    if flag.starts_with('-') && flag.ends_with('c') && is_shell_tool(shell) =>
                {
                    (*script).to_owned()
                }
                _ => argv.join(" "),
            }
        }
        _ => return Vec::new(),
    };
    command_line(&text)
        .map(|c| vec![Identifier::new(IdKind::Command, c)])
        .unwrap_or_default()
}

/// Tool names containing one of these run shell commands (`execute_bash`, `local_shell`,
/// `run_terminal_cmd`); so do names with the word `run` or `sh`.
#[rustfmt::skip]
const SHELL_TOOLS: &[&str] = &["bash", "shell", "terminal", "exec", "command", "cmd", "zsh", "pwsh", "powershell"];

fn is_shell_tool(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    let name = name.rsplit('/').next().unwrap_or(&name);
    SHELL_TOOLS.iter().any(|w| name.contains(w))
        || name
            .split(|c: char| !c.is_ascii_alphanumeric())
            .any(|w| matches!(w, "run" | "sh"))
}

// ---------------------------------------------------------------------------------
// Ledger.

/// One identifier in a [`Ledger`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Entry {
    /// The identifier (the kind it had when first seen).
    pub id: Identifier,
    /// How many times it was added.
    pub count: usize,
    /// How many identifiers were added before its first occurrence.
    pub first: usize,
}

/// Identifiers deduplicated by text, counted, and ranked: most referenced first, then
/// in order of first appearance.
///
/// ```
/// use ctxfold::ids::{extract, Ledger};
/// let mut ledger = Ledger::new();
/// ledger.extend(extract("/a/b.py HAT123 /c/d.py HAT123"));
/// let top = &ledger.ranked()[0];
/// assert_eq!((top.0.text.as_str(), top.1), ("HAT123", 2));
/// ```
#[derive(Clone, Debug, Default)]
pub struct Ledger {
    entries: Vec<Entry>,
    index: BTreeMap<String, usize>,
    added: usize,
}

impl Ledger {
    /// An empty ledger.
    pub fn new() -> Self {
        Self::default()
    }

    /// Counts one occurrence of `id`.
    pub fn add(&mut self, id: Identifier) {
        match self.index.get(&id.text) {
            Some(&k) => self.entries[k].count += 1,
            None => {
                self.index.insert(id.text.clone(), self.entries.len());
                self.entries.push(Entry {
                    id,
                    count: 1,
                    first: self.added,
                });
            }
        }
        self.added += 1;
    }

    /// The entries in order of first appearance.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Identifiers with their counts, most referenced first, ties in order of first
    /// appearance.
    pub fn ranked(&self) -> Vec<(Identifier, usize)> {
        let mut order: Vec<&Entry> = self.entries.iter().collect();
        order.sort_by(|a, b| b.count.cmp(&a.count).then(a.first.cmp(&b.first)));
        order.into_iter().map(|e| (e.id.clone(), e.count)).collect()
    }

    /// How many distinct identifiers.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether nothing was added.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether an identifier with this text was added.
    pub fn contains(&self, text: &str) -> bool {
        self.index.contains_key(text)
    }
}

impl Extend<Identifier> for Ledger {
    fn extend<T: IntoIterator<Item = Identifier>>(&mut self, iter: T) {
        iter.into_iter().for_each(|id| self.add(id));
    }
}

// ---------------------------------------------------------------------------------
// Mentions.

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
    if needle.is_empty() {
        return false;
    }
    let h = haystack.as_bytes();
    let mut from = 0;
    while let Some(p) = haystack[from..].find(needle) {
        let s = from + p;
        let e = s + needle.len();
        if !continues_before(h, s) && !continues_after(h, e) {
            return true;
        }
        from = s + char_len(h, s);
    }
    false
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
    use super::*;

    fn ids(text: &str) -> Vec<(IdKind, String)> {
        extract(text).into_iter().map(|i| (i.kind, i.text)).collect()
    }

    fn of(kind: IdKind, text: &str) -> Vec<String> {
        extract(text)
            .into_iter()
            .filter(|i| i.kind == kind)
            .map(|i| i.text)
            .collect()
    }

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
    fn paths() {
        assert_eq!(
            of(
                IdKind::Path,
                "/testbed/django/db/models/base.py ~/x/y ./a/b ../c/d src/_pytest/main.py /dev/null."
            ),
            [
                "/testbed/django/db/models/base.py",
                "~/x/y",
                "./a/b",
                "../c/d",
                "src/_pytest/main.py",
                "/dev/null"
            ]
        );
        // One component; a relative path without an extension; a fraction.
        assert!(of(IdKind::Path, "/usr a/b 1/2 and/or").is_empty());
        // Backtracking finds the last extension: `a/b.tar.gz`, and `x/y.py` before a `/`.
        assert_eq!(of(IdKind::Path, "a/b.tar.gz"), ["a/b.tar.gz"]);
        assert_eq!(of(IdKind::Path, "x/y.py/zz"), ["x/y.py"]);
        // Trailing slash kept, sentence dot dropped.
        assert_eq!(of(IdKind::Path, "in /tmp/build/. Then"), ["/tmp/build/"]);
    }

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

    #[test]
    fn commands_in_text() {
        assert_eq!(
            of(
                IdKind::Command,
                "Run:\n$ pytest -rsx test_foo.py\r\n> git status\n> make sure it works\n$ 5 dollars"
            ),
            ["pytest -rsx test_foo.py", "git status"]
        );
        assert_eq!(
            of(
                IdKind::Command,
                "Use `git checkout src/a.py`, not `git` or `Package` or `sed -n`."
            ),
            ["git checkout src/a.py", "sed -n"]
        );
        assert_eq!(
            of(
                IdKind::Command,
                "```bash\n# list\nls -la /testbed\nrm x\n```\n```python\nls -la\n```"
            ),
            ["ls -la /testbed"]
        );
        assert!(of(
            IdKind::Command,
            "```bash\n<action>\n```\n```sh\nyour_command_here\n```"
        )
        .is_empty());
        // Pytest's failure marker and Python prompts are not commands.
        assert!(of(
            IdKind::Command,
            ">       assert 0\n>>> import os\n> This is a quote"
        )
        .is_empty());
        // The path inside a command is reported too.
        assert_eq!(
            ids("$ cat /etc/hosts/x"),
            [
                (IdKind::Command, "cat /etc/hosts/x".into()),
                (IdKind::Path, "/etc/hosts/x".into())
            ]
        );
    }

    #[test]
    fn commands_from_calls() {
        let cmd = |name: &str, args: &str| -> Vec<String> {
            commands_from_call(name, args)
                .into_iter()
                .map(|i| i.text)
                .collect()
        };
        assert_eq!(
            cmd("bash", r#"{"command": "cd /testbed && ls\necho hi"}"#),
            ["cd /testbed && ls"]
        );
        assert_eq!(
            cmd("run_terminal_cmd", r#"{"cmd": "  npm test  "}"#),
            ["npm test"]
        );
        assert_eq!(
            cmd("shell", r#"{"command": ["bash", "-lc", "cargo build"]}"#),
            ["cargo build"]
        );
        assert_eq!(cmd("exec", r#"{"command": ["ls", "-la"]}"#), ["ls -la"]);
        assert_eq!(cmd("Bash", "ls -F"), ["ls -F"]);
        assert!(cmd("get_user_details", r#"{"command": "x"}"#).is_empty());
        assert!(cmd("bash", r#"{"path": "x"}"#).is_empty());
        assert!(cmd("bash", r##"{"command": "#!/bin/sh\n"}"##).is_empty());
        let long = format!("{{\"command\": \"echo {}\"}}", "word ".repeat(60));
        let c = &cmd("bash", &long)[0];
        assert!(c.len() <= MAX_COMMAND && c.ends_with("word"), "{c}");
    }

    #[test]
    fn order_of_appearance_and_repeats() {
        assert_eq!(
            ids("TypeError at /a/b/c.py, again /a/b/c.py"),
            [
                (IdKind::ErrorName, "TypeError".into()),
                (IdKind::Path, "/a/b/c.py".into()),
                (IdKind::Path, "/a/b/c.py".into())
            ]
        );
    }

    #[test]
    fn unicode_text() {
        // `\w` is Unicode, as in the baseline: a path may start with a non-ASCII letter.
        assert_eq!(of(IdKind::Path, "é/a/b.py é/a/b"), ["é/a/b.py"]);
        assert_eq!(
            of(IdKind::Path, "— /données/fichier.txt"),
            ["/données/fichier.txt"]
        );
        assert_eq!(of(IdKind::Hex, "é9059efac2 9059efac2é 9059efac2"), ["9059efac2"]);
    }

    #[test]
    fn ledger_ranks_by_count_then_first_seen() {
        let mut l = Ledger::new();
        l.extend(extract("/a/b.py HAT123 /c/d.py HAT123 /a/b.py HAT123"));
        assert_eq!(l.len(), 3);
        assert!(l.contains("/c/d.py") && !l.contains("/c/d"));
        let ranked: Vec<(String, usize)> = l.ranked().into_iter().map(|(i, n)| (i.text, n)).collect();
        assert_eq!(
            ranked,
            [("HAT123".into(), 3), ("/a/b.py".into(), 2), ("/c/d.py".into(), 1)]
        );
        assert_eq!(l.entries()[1].first, 1);
    }

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

    #[test]
    fn pathological_input_is_linear() {
        // Long runs with many word boundaries and slashes, no matches at the end.
        let text = "a-b+c/".repeat(50_000)
            + &"x.y.".repeat(50_000)
            + &"/+".repeat(50_000)
            + &"a-".repeat(100_000)
            + ":80 ~/"
            + &"é/".repeat(50_000);
        let t = std::time::Instant::now();
        let _ = extract(&text);
        assert!(t.elapsed().as_secs() < 5);
    }
}
