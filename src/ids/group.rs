//! Groups: identifiers of one shape that differ only in one number, written once; and
//! paths in one directory.
//!
//! A log lists `10.0.3.1:5432` to `10.0.3.60:5432`, a directory `part-0001.csv` to
//! `part-0040.csv`: sixty identifiers that say one thing sixty times. [`partition`] finds
//! them, [`Group::render`] writes each group once, and [`expand`] reads a written group back.
//!
//! # The notation
//!
//! `PREFIX{LIST}SUFFIX`, where LIST is numbers and ranges separated by commas (no spaces):
//!
//! - `10.0.3.{1-60}:5432` is `10.0.3.1:5432`, `10.0.3.2:5432`, ..., `10.0.3.60:5432`;
//! - `10.0.3.{1,4,7-9}:5432` is `10.0.3.1:5432`, `10.0.3.4:5432`, `10.0.3.7:5432`,
//!   `10.0.3.8:5432`, `10.0.3.9:5432`;
//! - `part-{0001-0003,0007}.csv` is `part-0001.csv`, `part-0002.csv`, `part-0003.csv`,
//!   `part-0007.csv`: a number written with leading zeros keeps its width, and every
//!   number of such a group has that width.
//!
//! `a-b` is every integer from `a` to `b`, both included; it is written for three or more
//! numbers in a row (two are `a,b`). This form is lossless: expanding it gives exactly the
//! identifiers it was written for, which [`partition`] checks.
//!
//! A group too large for its room is written lossily, as its first and last number with an
//! ellipsis and a count after it: `10.0.3.{1…250}:5432 (120 values)` says that 120
//! identifiers of that shape were seen, from `…1:5432` to `…250:5432`, not which ones lie
//! between. [`expand`] gives only the first and the last of such a group.
//!
//! Paths in one directory are written once too, as the directory and their names in braces,
//! as a shell expands them: `src/app/{main.py,util.py,config/init.py}` is `src/app/main.py`,
//! `src/app/util.py` and `src/app/config/init.py`. [`expand`] reads such a group when the
//! text before the braces ends with a path separator, nothing follows them, and they hold
//! two or more names without spaces, quotes or brackets.
//!
//! # What is grouped
//!
//! Identifiers of the same kind whose text is the same but for one run of decimal digits
//! (at most 18 digits). The run must stand at the start or the end of its word (`E501`,
//! `node3`, `30s`, `part-0001`), not inside one (`JG7FMM`, a hash's `9c2a7`), and the word
//! must have no other digit: a booking code or a hash is a name, not a number. Versions,
//! quantities, money, hashes, UUIDs and commands are never grouped: `v1.2.3` and `v1.2.4`
//! are two releases, `$49.98` and `$49.99` two prices, and `{3-4}` in a version reads as a
//! range constraint. An identifier with whitespace or a brace is not grouped either.

use std::collections::BTreeMap;

use super::IdKind;

/// The longest digit run that is grouped: its value fits a `u64`.
const MAX_DIGITS: usize = 18;

/// What a written group expands to: at most this many identifiers (a range a model wrote
/// could be `{1-999999999}`).
const MAX_EXPANSION: u64 = 100_000;

/// Whether identifiers of `kind` are grouped.
fn groupable(kind: IdKind) -> bool {
    !matches!(
        kind,
        IdKind::Version | IdKind::Quantity | IdKind::Money | IdKind::Hex | IdKind::Uuid | IdKind::Command
    )
}

/// The digit runs of `text` that may vary in a group: their byte ranges.
fn runs(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let s = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        let e = i;
        // The rest of its word: letters only, and on one side only.
        let mut l = s;
        while l > 0 && b[l - 1].is_ascii_alphanumeric() {
            l -= 1;
        }
        let mut r = e;
        while r < b.len() && b[r].is_ascii_alphanumeric() {
            r += 1;
        }
        let other_digits = b[l..s].iter().chain(&b[e..r]).any(u8::is_ascii_digit);
        let both_sides = l < s && r > e;
        if e - s <= MAX_DIGITS && !other_digits && !both_sides {
            out.push((s, e));
        }
    }
    out
}

/// How a number is written: its width when it has leading zeros (`0007`: 4), else 0.
fn width_of(digits: &str) -> usize {
    if digits.len() > 1 && digits.starts_with('0') {
        digits.len()
    } else {
        0
    }
}

/// `n` written with `width` (0: as is).
fn write(n: u64, width: usize) -> String {
    format!("{n:0width$}")
}

/// What the identifiers of one group share: the kind, the text around the number, and the
/// width of the number.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Shape<'a> {
    kind: IdKind,
    prefix: &'a str,
    suffix: &'a str,
    width: usize,
}

/// A group: identifiers of one shape, by their position in the list [`partition`] was
/// given, with their numbers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// The text before the number.
    pub prefix: String,
    /// The text after the number.
    pub suffix: String,
    /// The width of the numbers when written with leading zeros, else 0.
    pub width: usize,
    /// The members: (position in the list, number), in increasing order of number.
    pub members: Vec<(usize, u64)>,
}

impl Group {
    /// The identifier of the member with `n`.
    pub fn member(&self, n: u64) -> String {
        format!("{}{}{}", self.prefix, write(n, self.width), self.suffix)
    }

    /// The lossless form: `10.0.3.{1-3,7}:5432`.
    pub fn render(&self) -> String {
        let mut pieces: Vec<String> = Vec::new();
        let nums: Vec<u64> = self.members.iter().map(|&(_, n)| n).collect();
        let mut k = 0;
        while k < nums.len() {
            let mut j = k;
            while j + 1 < nums.len() && nums[j + 1] == nums[j] + 1 {
                j += 1;
            }
            if j - k >= 2 {
                pieces.push(format!(
                    "{}-{}",
                    write(nums[k], self.width),
                    write(nums[j], self.width)
                ));
            } else {
                pieces.extend((k..=j).map(|x| write(nums[x], self.width)));
            }
            k = j + 1;
        }
        format!("{}{{{}}}{}", self.prefix, pieces.join(","), self.suffix)
    }

    /// How many numbers and ranges the lossless form lists.
    pub fn pieces(&self) -> usize {
        let r = self.render();
        r[self.prefix.len()..r.len() - self.suffix.len()]
            .split(',')
            .count()
    }

    /// The lossy form: the first and the last number, and how many there are:
    /// `10.0.3.{1…250}:5432 (120 values)`.
    pub fn render_lossy(&self) -> String {
        let first = self.members.first().map_or(0, |m| m.1);
        let last = self.members.last().map_or(0, |m| m.1);
        format!(
            "{}{{{}…{}}}{} ({} values)",
            self.prefix,
            write(first, self.width),
            write(last, self.width),
            self.suffix,
            self.members.len()
        )
    }
}

/// One entry of a partition: a group of two or more identifiers, or one identifier alone
/// (its position in the list).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Part {
    /// Identifiers of one shape.
    Group(Group),
    /// An identifier that shares its shape with no other.
    One(usize),
}

impl Part {
    /// The positions it covers, the first (the lowest) first.
    pub fn first(&self) -> usize {
        match self {
            Part::Group(g) => g.members.iter().map(|m| m.0).min().unwrap_or(0),
            Part::One(i) => *i,
        }
    }
}

/// `ids` (texts and kinds, distinct) partitioned into groups of one shape and identifiers
/// alone, in the order of each part's first identifier in `ids` (so a ranked list stays
/// ranked). The largest groups are taken first; an identifier is in one part only.
///
/// ```
/// use ctxfold::ids::{group, IdKind};
/// let ids = [("10.0.3.1:5432", IdKind::HostPort), ("db:5432", IdKind::HostPort), ("10.0.3.2:5432", IdKind::HostPort)];
/// let parts = group::partition(&ids);
/// let texts: Vec<String> = parts.iter().map(|p| match p {
///     group::Part::Group(g) => g.render(),
///     group::Part::One(i) => ids[*i].0.to_owned(),
/// }).collect();
/// assert_eq!(texts, ["10.0.3.{1,2}:5432", "db:5432"]);
/// ```
pub fn partition(ids: &[(&str, IdKind)]) -> Vec<Part> {
    let mut shapes: BTreeMap<Shape, Vec<(usize, u64)>> = BTreeMap::new();
    for (i, &(text, kind)) in ids.iter().enumerate() {
        if !groupable(kind) || text.contains(|c: char| c.is_whitespace() || c == '{' || c == '}') {
            continue;
        }
        for (s, e) in runs(text) {
            let digits = &text[s..e];
            let Ok(n) = digits.parse::<u64>() else { continue };
            let shape = Shape {
                kind,
                prefix: &text[..s],
                suffix: &text[e..],
                width: width_of(digits),
            };
            shapes.entry(shape).or_default().push((i, n));
        }
    }
    let mut candidates: Vec<(Shape, Vec<(usize, u64)>)> =
        shapes.into_iter().filter(|(_, m)| m.len() >= 2).collect();
    // The largest first; among equals, the one whose best identifier ranks first.
    candidates.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.1[0].0.cmp(&b.1[0].0)));
    let mut taken = vec![false; ids.len()];
    let mut parts = Vec::new();
    for (shape, members) in candidates {
        let mut members: Vec<(usize, u64)> = members.into_iter().filter(|m| !taken[m.0]).collect();
        if members.len() < 2 {
            continue;
        }
        members.sort_by_key(|m| m.1);
        members.dedup_by_key(|m| m.1);
        if members.len() < 2 {
            continue;
        }
        let group = Group {
            prefix: shape.prefix.to_owned(),
            suffix: shape.suffix.to_owned(),
            width: shape.width,
            members,
        };
        // Lossless by construction; checked, so a shape this module misjudges is listed
        // one by one rather than written wrong.
        let expected: Vec<String> = group.members.iter().map(|m| ids[m.0].0.to_owned()).collect();
        if expand(&group.render()).first().map(|e| &e.members) != Some(&expected) {
            continue;
        }
        for m in &group.members {
            taken[m.0] = true;
        }
        parts.push(Part::Group(group));
    }
    parts.extend((0..ids.len()).filter(|&i| !taken[i]).map(Part::One));
    parts.sort_by_key(Part::first);
    parts
}

/// A group written in a text, read back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Written {
    /// Its byte range in the text (the whole `PREFIX{...}SUFFIX`, without a lossy form's
    /// count).
    pub span: (usize, usize),
    /// The identifiers it stands for: every one for the lossless form; the first and the
    /// last for the lossy one.
    pub members: Vec<String>,
    /// Whether it stands for every member (`{1-3,7}`), not just the first and the last
    /// (`{1…250}`).
    pub lossless: bool,
}

/// The groups written in `text` ([the notation](self)), in order. Only a brace whose
/// content is numbers and ranges (or the lossy `a…b`) is read; the group is the run of
/// non-space characters around it, without the punctuation a list or a sentence puts
/// around a word.
///
/// ```
/// use ctxfold::ids::group::expand;
/// let found = expand("Identifiers: 10.0.3.{1,4,7-9}:5432, db:5432");
/// assert_eq!(found[0].members, ["10.0.3.1:5432", "10.0.3.4:5432", "10.0.3.7:5432", "10.0.3.8:5432", "10.0.3.9:5432"]);
/// assert!(found[0].lossless);
/// let lossy = expand("10.0.3.{1…250}:5432 (120 values)");
/// assert_eq!(lossy[0].members, ["10.0.3.1:5432", "10.0.3.250:5432"]);
/// assert!(!lossy[0].lossless);
/// ```
pub fn expand(text: &str) -> Vec<Written> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(p) = text[from..].find('{') {
        let open = from + p;
        from = open + 1;
        let Some(q) = text[open..].find('}') else { break };
        let close = open + q;
        let body = &text[open + 1..close];
        let (numbers, lossless, names) = match read_body(body) {
            Some((numbers, lossless)) => (numbers, lossless, false),
            None => match read_names(body) {
                Some(names) => (names, true, true),
                None => continue,
            },
        };
        // The word around the braces.
        let mut s = open;
        while s > 0 && !b[s - 1].is_ascii_whitespace() {
            s -= 1;
        }
        let mut e = close + 1;
        while e < b.len() && !b[e].is_ascii_whitespace() {
            e += 1;
        }
        let lead = ['(', '[', '`', '"', '\''];
        let trail = ['.', ',', ';', ':', ')', ']', '`', '"', '\''];
        let word = &text[s..e];
        let trimmed = word.trim_start_matches(lead);
        let s = s + (word.len() - trimmed.len());
        let trimmed = text[s..e].trim_end_matches(trail);
        let e = s + trimmed.len();
        if s > open || e <= close {
            from = close + 1;
            continue;
        }
        let (prefix, suffix) = (&text[s..open], &text[close + 1..e]);
        let in_directory = prefix.ends_with(['/', '\\'])
            && suffix.is_empty()
            && prefix.contains(|c: char| c != '/' && c != '\\');
        if prefix.contains(['{', '}']) || suffix.contains(['{', '}']) || (names && !in_directory) {
            from = close + 1;
            continue;
        }
        let members = numbers
            .into_iter()
            .map(|n| format!("{prefix}{n}{suffix}"))
            .collect();
        out.push(Written {
            span: (s, e),
            members,
            lossless,
        });
        from = e.max(close + 1);
    }
    out
}

/// The numbers a group's braces hold, written as in the group, and whether the form is
/// lossless; `None` if the content is not the notation.
fn read_body(body: &str) -> Option<(Vec<String>, bool)> {
    let number = |s: &str| !s.is_empty() && s.len() <= MAX_DIGITS && s.bytes().all(|c| c.is_ascii_digit());
    if let Some((a, z)) = body.split_once('…') {
        return (number(a) && number(z)).then(|| (vec![a.to_owned(), z.to_owned()], false));
    }
    let mut out = Vec::new();
    for item in body.split(',') {
        match item.split_once('-') {
            None if number(item) => out.push(item.to_owned()),
            Some((a, z)) if number(a) && number(z) => {
                // `{0001-0012}` keeps the width of its numbers, `{8-12}` has none: not `{01-123}`.
                let width = width_of(a);
                if (width != 0 && z.len() != width) || (width == 0 && width_of(z) != 0) {
                    return None;
                }
                let (x, y) = (a.parse::<u64>().ok()?, z.parse::<u64>().ok()?);
                if y <= x || y - x >= MAX_EXPANSION || out.len() as u64 + (y - x) >= MAX_EXPANSION {
                    return None;
                }
                out.extend((x..=y).map(|n| write(n, width)));
            }
            _ => return None,
        }
    }
    Some((out, true))
}

/// The names a directory group's braces hold (`{main.py,config/init.py}`): two or more,
/// none empty, none starting with a separator or holding a quote, a bracket or a space;
/// `None` if the content is not that.
fn read_names(body: &str) -> Option<Vec<String>> {
    let names: Vec<&str> = body.split(',').collect();
    let name = |n: &&str| {
        !n.is_empty()
            && !n.starts_with(['/', '\\'])
            && !n.contains(|c: char| c.is_whitespace() || "{}()[]<>\"'`".contains(c))
    };
    (names.len() >= 2 && names.iter().all(name)).then(|| names.into_iter().map(str::to_owned).collect())
}

/// Whether a path names a directory, as far as its text tells: it ends with `/`, or its
/// last component has no extension (`./doc/en/usage`, `.github`; also `Makefile`, which the
/// text cannot tell apart).
pub fn directory_like(path: &str) -> bool {
    if path.ends_with('/') || path.ends_with('\\') {
        return true;
    }
    let last = path.rsplit(['/', '\\']).next().unwrap_or(path);
    !last.is_empty() && !last[1..].contains('.')
}

/// Whether `path` lies under `dir` (`./doc/en/usage` under `./doc/en` or `./doc/en/`), not
/// `dir` itself.
pub fn under(path: &str, dir: &str) -> bool {
    if dir.is_empty() || path.len() <= dir.len() || !path.starts_with(dir) {
        return false;
    }
    let rest = &path[dir.len()..];
    let sep = |c: char| c == '/' || c == '\\';
    if dir.ends_with(sep) {
        !rest.trim_start_matches(sep).is_empty()
    } else {
        rest.starts_with(sep) && !rest.trim_start_matches(sep).is_empty()
    }
}

/// The directories `path` lies under, the nearest first: `./doc/en/usage` gives
/// `./doc/en`, `./doc`, `.`, each with and without the trailing separator.
pub fn ancestors(path: &str) -> impl Iterator<Item = &str> {
    let trimmed = path.trim_end_matches(['/', '\\']);
    let mut end = trimmed.len();
    std::iter::from_fn(move || {
        let cut = trimmed[..end].rfind(['/', '\\'])?;
        end = cut;
        Some(cut)
    })
    .flat_map(move |cut| [&trimmed[..cut + 1], &trimmed[..cut]])
    .filter(|a| !a.is_empty())
}

#[cfg(test)]
mod tests {
    use super::{expand, partition, Part};
    use crate::ids::IdKind;

    /// The parts of `ids` as the ledger writes them: a group's lossless form, or the one.
    fn written(ids: &[(&str, IdKind)]) -> Vec<String> {
        partition(ids)
            .iter()
            .map(|p| match p {
                Part::Group(g) => g.render(),
                Part::One(i) => ids[*i].0.to_owned(),
            })
            .collect()
    }

    /// Every part's expansion is exactly the identifiers it was written for.
    fn assert_lossless(ids: &[(&str, IdKind)]) {
        for p in partition(ids) {
            if let Part::Group(g) = p {
                let mut want: Vec<&str> = g.members.iter().map(|m| ids[m.0].0).collect();
                let found = expand(&g.render());
                assert_eq!(found.len(), 1, "{}", g.render());
                let mut got: Vec<&str> = found[0].members.iter().map(String::as_str).collect();
                want.sort_unstable();
                got.sort_unstable();
                assert_eq!(got, want, "{}", g.render());
            }
        }
    }

    fn hosts(numbers: impl IntoIterator<Item = u32>) -> Vec<String> {
        numbers.into_iter().map(|n| format!("10.0.3.{n}:5432")).collect()
    }

    fn of(texts: &[String], kind: IdKind) -> Vec<(&str, IdKind)> {
        texts.iter().map(|t| (t.as_str(), kind)).collect()
    }

    #[test]
    fn a_contiguous_run_is_one_range() {
        let h = hosts(1..=60);
        let ids = of(&h, IdKind::HostPort);
        assert_eq!(written(&ids), ["10.0.3.{1-60}:5432"]);
        assert_lossless(&ids);
        // Past a power of ten, and two in a row are listed, not a range.
        let n: Vec<String> = ["node-9", "node-10", "node-11", "db-1", "db-2"]
            .map(String::from)
            .to_vec();
        assert_eq!(written(&of(&n, IdKind::Host)), ["node-{9-11}", "db-{1,2}"]);
    }

    #[test]
    fn gaps_are_listed_and_runs_stay_ranges() {
        let h = hosts([7, 1, 4, 8, 9]);
        let ids = of(&h, IdKind::HostPort);
        assert_eq!(written(&ids), ["10.0.3.{1,4,7-9}:5432"]);
        assert_lossless(&ids);
    }

    #[test]
    fn shapes_and_kinds_are_not_mixed() {
        let ids = [
            ("10.0.3.1:5432", IdKind::HostPort),
            ("/var/log/app.log", IdKind::Path),
            ("10.0.3.2:5432", IdKind::HostPort),
            ("10.0.4.1:6379", IdKind::HostPort),
            ("10.0.3.3", IdKind::Address),
            ("10.0.3.4", IdKind::Address),
            ("x-1", IdKind::Path),
            ("x-2", IdKind::Code),
        ];
        assert_eq!(
            written(&ids),
            [
                "10.0.3.{1,2}:5432",
                "/var/log/app.log",
                "10.0.4.1:6379",
                "10.0.3.{3,4}",
                "x-1",
                "x-2"
            ]
        );
        assert_lossless(&ids);
    }

    #[test]
    fn versions_prices_hashes_and_codes_inside_words_are_not_grouped() {
        // Two releases are two facts, and `v1.2.{3,4}` reads like a range constraint.
        let versions = [
            ("v1.2.3", IdKind::Version),
            ("v1.2.4", IdKind::Version),
            ("1.2.5", IdKind::Version),
        ];
        assert_eq!(written(&versions), ["v1.2.3", "v1.2.4", "1.2.5"]);
        let money = [("$49.98", IdKind::Money), ("$49.99", IdKind::Money)];
        assert_eq!(written(&money), ["$49.98", "$49.99"]);
        // Hashes, and a number inside a word with other digits or letters on both sides.
        let hex = [
            ("3f9c2a7", IdKind::Hex),
            ("3f9c2a8", IdKind::Hex),
            ("0x7f3a2c10", IdKind::Hex),
            ("0x7f3a2c11", IdKind::Hex),
        ];
        assert_eq!(written(&hex), ["3f9c2a7", "3f9c2a8", "0x7f3a2c10", "0x7f3a2c11"]);
        let words = [
            ("objects/9c2a7d1/x", IdKind::Path),
            ("objects/9c2a7d2/x", IdKind::Path),
            ("JG7FMM", IdKind::Code),
            ("JG8FMM", IdKind::Code),
        ];
        assert_eq!(
            written(&words),
            ["objects/9c2a7d1/x", "objects/9c2a7d2/x", "JG7FMM", "JG8FMM"]
        );
        // A number at the end of its word is one: error codes, tickets.
        let codes = [
            ("E501", IdKind::Code),
            ("E502", IdKind::Code),
            ("JIRA-123", IdKind::Ticket),
            ("JIRA-125", IdKind::Ticket),
        ];
        assert_eq!(written(&codes), ["E{501,502}", "JIRA-{123,125}"]);
    }

    #[test]
    fn numbered_files_keep_their_width() {
        let files: Vec<String> = [1, 2, 3, 7, 98, 99, 100]
            .iter()
            .map(|n| format!("data/part-{n:04}.csv"))
            .collect();
        let ids = of(&files, IdKind::Path);
        assert_eq!(written(&ids), ["data/part-{0001-0003,0007,0098-0100}.csv"]);
        assert_lossless(&ids);
        // Written with and without leading zeros: two shapes.
        let mixed = [
            ("part-1.csv", IdKind::Path),
            ("part-0002.csv", IdKind::Path),
            ("part-3.csv", IdKind::Path),
        ];
        assert_eq!(written(&mixed), ["part-{1,3}.csv", "part-0002.csv"]);
        assert_lossless(&mixed);
    }

    #[test]
    fn a_huge_group_is_written_lossily_and_read_back_as_its_ends() {
        let h = hosts((1..=250).filter(|n| n % 2 == 1 || *n == 250));
        let parts = partition(&of(&h, IdKind::HostPort));
        let [Part::Group(g)] = parts.as_slice() else {
            panic!("{parts:?}")
        };
        assert_eq!(g.pieces(), 126);
        assert_eq!(g.render_lossy(), "10.0.3.{1…250}:5432 (126 values)");
        let read = expand(&format!("Identifiers: {}, db:5432", g.render_lossy()));
        assert_eq!(read[0].members, ["10.0.3.1:5432", "10.0.3.250:5432"]);
        assert!(!read[0].lossless);
    }

    #[test]
    fn only_the_notation_is_read() {
        let text = "fn main() { x } ${HOME} {a,b} v{01-123} n{5-3} `data/part-{0009-0011}.csv`.";
        let found = expand(text);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(
            found[0].members,
            ["data/part-0009.csv", "data/part-0010.csv", "data/part-0011.csv"]
        );
        assert_eq!(
            &text[found[0].span.0..found[0].span.1],
            "data/part-{0009-0011}.csv"
        );
        // A range too large to be one a ledger wrote.
        assert!(expand("n{1-999999999}").is_empty());
    }

    #[test]
    fn paths_of_one_directory_are_read_with_it() {
        let found = expand("Identifiers: src/app/{main.py,config/init.py}, ./doc/{a,b}.");
        let members: Vec<&Vec<String>> = found.iter().map(|w| &w.members).collect();
        assert_eq!(
            members,
            [
                &vec!["src/app/main.py".to_owned(), "src/app/config/init.py".to_owned()],
                &vec!["./doc/a".to_owned(), "./doc/b".to_owned()]
            ]
        );
        assert!(found.iter().all(|w| w.lossless));
        // Not a directory before the braces, text after them, one name, a name with a
        // quote or starting at the root: code and shell text, not the notation.
        for no in [
            "set {a,b}",
            "x{a,b}",
            "/{a,b}",
            "src/{a,b}.py",
            "src/{a}",
            "src/{a,'b'}",
            "src/{a,/b}",
        ] {
            assert!(expand(no).is_empty(), "{no}");
        }
    }
}
