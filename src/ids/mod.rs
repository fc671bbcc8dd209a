//! Identifiers: the exact strings a summary must not lose.
//!
//! Compaction replaces old turns with a summary, and summaries written by a model drop
//! file paths, hashes and commands. This module finds those strings deterministically, so
//! the compactor can check which ones a summary kept, append the ones it dropped, and
//! flag identifiers a summary invented.
//!
//! - [`extract`] scans text for what people would call an identifier: URLs, e-mail
//!   addresses, host:port pairs and host names, IP and MAC addresses, paths (POSIX,
//!   home-relative and Windows), error names and codes, environment variables, UUIDs,
//!   hashes, versions, tickets, Kubernetes and cloud resources, codes, money, quantities
//!   and shell commands; not ordinary words in capitals or plain numbers.
//! - [`commands_from_call`] reads the command out of a shell-like tool call.
//! - [`Ledger`] counts and ranks what was found: most referenced first.
//! - [`mentions`] tells whether a text contains an identifier as a whole, not as part
//!   of a longer word or path.
//!
//! Seven kinds follow the baseline census of the test corpus (`tests/corpus/convert.py`,
//! `ID_PATTERNS`): URL, host:port, path, error name, ticket, hex and code. The scanners run
//! in a fixed order over the text, and each match is masked before the next runs, so a
//! path inside a URL counts once, as the URL. The scanners are hand-written over bytes
//! because a regex engine would cost about 300 KB of WebAssembly; the integration test
//! `tests/ids.rs` checks them against the baseline's regexes on the whole corpus, and
//! `tests/ids_census.rs` measures recall and precision on the corpus and on a labelled set
//! written for it.
//!
//! The modules, one idea each: the kinds and [`extract`] here; the scanners in `net` (URLs,
//! e-mail, host:port), `windows` and `path`, `env` (`$VAR`), `address` (IP and MAC),
//! `resource` (Kubernetes objects, ARNs), `words` (one pass over whole words, tickets,
//! UUIDs), `numbers` (versions, money) with `quantity`, and `hosts`, sharing the
//! character helpers of `text` and the lists of `codes`; `commands` (commands in text and
//! in tool calls), `ledger` and `mentions`; `group` (identifiers that differ only in a
//! number, written once).

mod address;
mod codes;
mod commands;
mod env;
pub mod group;
mod hosts;
mod mentions;
mod net;
mod numbers;
mod path;
mod quantity;
mod rank;
mod resource;
mod text;
mod windows;
mod words;

use serde::Serialize;

pub use commands::commands_from_call;
pub use mentions::{grounded, mentions, whole};
pub use quantity::QUANTITY_UNITS;
pub use rank::{Entry, Ledger};

use commands::commands_in_text;

/// What an identifier is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IdKind {
    /// A URL: `http://`, `https://`, `ftp://`, `ws://`, `wss://` or another known scheme
    /// (`postgres://`, `s3://`, `ssh://`, ...) followed by anything up to
    /// whitespace, a quote, `<`, `>`, `` ` ``, `)`, `]` or `}`; and `git@github.com:a/b.git`.
    Url,
    /// `localhost:8000`, `10.0.0.1:5432`, `web.chal.csaw.io:8000`, `[::1]:8443`, and
    /// without a dot `db-prod-1:5432`, `redis:6379`, `api:8080`; not `fields.py:1474` (a
    /// host ending in a file extension is a file and a line number) or `frames:59`.
    HostPort,
    /// `/abs/path`, `./a/b`, `../a/b` with at least two components, `~/x` and `$HOME/x`,
    /// a relative `dir/file.ext` or `.hidden/dir`, and Windows paths (`C:\Users\x`,
    /// `\\server\share`, `%APPDATA%\x`).
    Path,
    /// `TypeError`, `ImportWarning`, `ValidationException`.
    ErrorName,
    /// `JIRA-123`, `ORA-03113` (not `UTF-8`, `SHA-256`, `ISO-8601`, `MD-5`, `TLS-1`,
    /// `SSL-3`, `HTTP-2`), `#1234` (3 to 7 digits), `acme/widgets#2210`,
    /// `CVE-2024-3094` and `GHSA-4x2v-8q7m-c9pq`.
    Ticket,
    /// `0x7f3a2c10` (at least 6 hex digits), or lowercase hex of 7 to 64 characters with
    /// both a digit and a letter: git hashes, object ids.
    Hex,
    /// Upper-case codes of 5 to 12 characters with a digit and a letter (`JG7FMM`,
    /// `HAT123`, `E0308`, not the `11T08` of a timestamp), a capital and three digits
    /// (`E501`), ULIDs, and `snake_case_ids_123`.
    Code,
    /// `name@example.com`.
    Email,
    /// A shell command: from a tool call ([`commands_from_call`]); in text, a line
    /// starting with `$ `, `> ` or a PowerShell prompt and a known program (`$ pytest
    /// -x`), the first line of a ```` ```bash ```` block if it starts with one, or an inline
    /// code span with a known program and an argument (`` `git checkout src/a.py` ``).
    Command,
    /// A number with a unit: `512MB`, `2.5 GiB`, `30s`, `3 ms`, `99.9%`, `10k tokens`,
    /// `2.4GHz`, `40 MB/s`, `250m`, `512Mi`. See [`QUANTITY_UNITS`].
    Quantity,
    /// An IP address (`10.0.3.17`, `10.20.0.0/16`, `2001:db8::1`, `fe80::1%eth0`) or a
    /// MAC address (`3c:22:fb:8a:19:04`).
    Address,
    /// A host name with a known top-level domain and no port: `registry.npmjs.org`,
    /// `kafka-2.kafka.svc.cluster.local`, with its path if one follows.
    Host,
    /// An error code that is a word: errno names (`ECONNREFUSED`, `ENOENT`), signals
    /// (`SIGTERM`), `NXDOMAIN`, `ERR_MODULE_NOT_FOUND`, `CrashLoopBackOff`, `AccessDenied`.
    ErrorCode,
    /// An environment variable: `$HOME`, `${PORT}`, `%APPDATA%`, or a name in capitals
    /// with an underscore (`DATABASE_URL`).
    EnvVar,
    /// A UUID: `3f2b8c1e-9d4a-4e6b-8c2f-7a1d5e9b0c34`.
    Uuid,
    /// A version: `1.4.2`, `v2.0.0-rc.1`, `1.9.3+build.42`, `v1.2`, `version 4.2`.
    Version,
    /// A Kubernetes object (`deployment/payments-api`), an ARN (`arn:aws:iam::1:user/x`),
    /// or an AWS resource id (`i-0a1b2c3d4e5f67890`).
    Resource,
    /// An amount of money: `$49.99`, `€249`, `$12.4k`, `$29/month`, `19.99 USD`,
    /// `EUR 16.50`, `120 euros`.
    Money,
}

impl IdKind {
    /// Every kind, in declaration order.
    pub const ALL: [IdKind; 18] = [
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
        IdKind::Address,
        IdKind::Host,
        IdKind::ErrorCode,
        IdKind::EnvVar,
        IdKind::Uuid,
        IdKind::Version,
        IdKind::Resource,
        IdKind::Money,
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
            IdKind::Address => "address",
            IdKind::Host => "host",
            IdKind::ErrorCode => "error_code",
            IdKind::EnvVar => "env_var",
            IdKind::Uuid => "uuid",
            IdKind::Version => "version",
            IdKind::Resource => "resource",
            IdKind::Money => "money",
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
/// The scanners run in a fixed order (`SCANNERS`); each match is masked before the next
/// scanner runs, so a URL's host:port or path is counted once, as the URL. Commands are
/// found on the unmasked text and do not mask: a command and the path it names are both
/// reported.
///
/// ```
/// use ctxfold::ids::{extract, IdKind};
/// let found = extract("TypeError in /testbed/a.py, see https://x.io/a/b.");
/// let found: Vec<(IdKind, &str)> = found.iter().map(|i| (i.kind, i.text.as_str())).collect();
/// assert_eq!(
///     found,
///     [(IdKind::ErrorName, "TypeError"), (IdKind::Path, "/testbed/a.py"), (IdKind::Url, "https://x.io/a/b")]
/// );
/// let found = extract("connect ECONNREFUSED db-prod-1:5432");
/// let found: Vec<(IdKind, &str)> = found.iter().map(|i| (i.kind, i.text.as_str())).collect();
/// assert_eq!(found, [(IdKind::ErrorCode, "ECONNREFUSED"), (IdKind::HostPort, "db-prod-1:5432")]);
/// ```
pub fn extract(text: &str) -> Vec<Identifier> {
    // Matches are masked with spaces; a match covers whole characters, so the buffer
    // stays valid UTF-8 and byte offsets stay those of `text`.
    let mut buf = text.as_bytes().to_vec();
    let mut found: Vec<(usize, IdKind, &str)> = Vec::new();
    let mut spans = Vec::new();
    for scan in SCANNERS {
        spans.clear();
        scan(&buf, &mut spans);
        for &(s, e, kind) in &spans {
            let id = text[s..e].trim_end_matches(['.', ',', ';', ':']);
            if !id.is_empty() {
                found.push((s, kind, id));
            }
            buf[s..e].fill(b' ');
        }
    }
    commands_in_text(text, &mut found);
    found.sort_by_key(|&(s, kind, _)| (s, kind));
    // A container image's tag right after its path (`ghcr.io/acme/api:1.4.0`): one identifier.
    let mut out: Vec<(usize, IdKind, &str)> = Vec::with_capacity(found.len());
    for (s, kind, t) in found {
        if let Some(last) = out.last_mut() {
            let end = last.0 + last.2.len();
            let image = last.1 == IdKind::Host && last.2.contains('/');
            if image && kind == IdKind::Version && s == end + 1 && text.as_bytes()[end] == b':' {
                last.2 = &text[last.0..s + t.len()];
                continue;
            }
        }
        out.push((s, kind, t));
    }
    out.into_iter()
        .map(|(_, kind, t)| Identifier::new(kind, t))
        .collect()
}

/// A match: its byte range in the text and its kind.
type Span = (usize, usize, IdKind);

/// A scanner appends its matches, in order, to the vector.
type Scanner = fn(&[u8], &mut Vec<Span>);

/// The scanners, in the order they run. The seven kinds of the baseline keep their order
/// (URL, host:port, path, then the words); the others are placed where they must take their
/// text before another kind takes part of it: an ARN before the paths and host:port see its
/// parts, a Windows path or `$HOME/...` before the POSIX path scanner sees its `/...` tail,
/// an IPv6 address before the words see its groups, a UUID before the hex and ticket
/// scanners see its parts, an address or a version before a quantity sees its last number.
const SCANNERS: [Scanner; 14] = [
    net::scan_url,
    net::scan_email,
    resource::scan_arn,
    net::scan_host_port,
    windows::scan_windows_paths,
    env::scan_sigils,
    path::scan_path,
    address::scan_colon_addresses,
    resource::scan_k8s,
    words::scan_dashed,
    words::scan_ticket,
    numbers::scan_numbers,
    hosts::scan_hosts,
    words::scan_words,
];

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
