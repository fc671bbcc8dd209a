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
//!
//! The modules, one idea each: the kinds and [`extract`] here, which runs the scanners
//! of `net` (URLs, e-mails, host:port), `path`, `words` (error names, tickets, hex ids,
//! codes) and `quantity` over the text, sharing the character helpers of `text`;
//! `commands` (commands in text and in tool calls), `ledger` and `mentions`.

mod commands;
mod ledger;
mod mentions;
mod net;
mod path;
mod quantity;
mod text;
mod words;

use serde::Serialize;

pub use commands::commands_from_call;
pub use ledger::{Entry, Ledger};
pub use mentions::mentions;
pub use quantity::QUANTITY_UNITS;

use commands::commands_in_text;
use net::{scan_email, scan_host_port, scan_url};
use path::scan_path;
use quantity::scan_quantity;
use words::{scan_code, scan_error_name, scan_hex, scan_ticket};

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

/// Shorthands for the scanners' tests.
#[cfg(test)]
mod testing {
    use super::{extract, IdKind};

    /// Every identifier of `text`, with its kind.
    pub fn ids(text: &str) -> Vec<(IdKind, String)> {
        extract(text).into_iter().map(|i| (i.kind, i.text)).collect()
    }

    /// The identifiers of `kind` in `text`.
    pub fn of(kind: IdKind, text: &str) -> Vec<String> {
        extract(text)
            .into_iter()
            .filter(|i| i.kind == kind)
            .map(|i| i.text)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::testing::{ids, of};
    use super::*;

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
