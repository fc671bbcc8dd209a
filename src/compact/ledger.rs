//! The identifier ledger: identifiers are checked, not hoped for.
//!
//! The identifiers of the evicted messages (paths, host:port, URLs, tickets, hashes,
//! error names, commands, quantities, e-mails) are extracted deterministically and
//! ranked, most referenced first. Those a summary does not mention are appended to it
//! in one `Identifiers:` line, as many as fit the ledger budget; the rest are reported
//! lost. The line says each thing once ([`entries`]): identifiers of one shape that differ
//! only in a number are one group (`10.0.3.{1-60}:5432`, [the notation](crate::ids::group),
//! lossless; a group too large for the room is its first and last number and a count,
//! and its other members are reported lost), paths of one directory are that directory
//! once and their names in braces (`src/app/{main.py,util.py}`), and a directory mentioned once under a
//! directory the summary or the line keeps is not listed (reported lost: its name is gone,
//! only where it lies is kept). Identifiers in a summary that appear nowhere in the
//! conversation are reported unsupported (a hallucination, or something injected through a
//! tool output) and taken out of its text ([`without`]) unless `keepUnsupportedIds`.

use std::collections::{HashMap, HashSet};

use super::haystack::Haystack;
use super::listing::Listing;
use crate::count::TextCounter;
use crate::ids::group::{self, Group, Part};
use crate::ids::{self, IdKind, Identifier, Ledger};
use crate::messages::{Message, Part as MessagePart};

/// A group whose lossless form lists more numbers and ranges than this is written lossily
/// (first, last and count): past that, the list tells a reader little more than its ends.
pub const LOSSLESS_PIECES: usize = 32;

/// The identifiers of `messages`, ranked.
pub fn collect<'a>(messages: impl IntoIterator<Item = &'a Message>) -> Vec<(Identifier, usize)> {
    let mut ledger = Ledger::new();
    for m in messages {
        for part in &m.parts {
            match part {
                MessagePart::Text(t) | MessagePart::ToolResult { text: t, .. } => {
                    ids::extract(t).into_iter().for_each(|i| ledger.add(i))
                }
                MessagePart::ToolCall { name, arguments, .. } => {
                    ids::extract(arguments).into_iter().for_each(|i| ledger.add(i));
                    ids::commands_from_call(name, arguments)
                        .into_iter()
                        .for_each(|i| ledger.add(i));
                }
                _ => {}
            }
        }
    }
    ledger.ranked()
}

/// The outcome of checking one summary against the identifiers it had to keep.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Applied {
    /// The summary with the ledger line appended (if any identifier was missing).
    pub text: String,
    /// Identifiers the summary or the ledger line keeps.
    pub kept: Vec<String>,
    /// Identifiers that did not fit the ledger budget.
    pub lost: Vec<String>,
}

/// What a text holds of the identifiers: those it mentions ([`ids::mentions`]), the
/// members of the groups written in it ([`group::expand`]; a lossy group's first and last),
/// and the directories a longer path in it starts with (`./doc/en` in `./doc/en/usage`).
pub struct Held {
    text: Haystack,
    grouped: HashSet<String>,
}

impl Held {
    /// What `text` holds.
    pub fn new(text: &str) -> Self {
        let grouped = group::expand(text).into_iter().flat_map(|w| w.members).collect();
        Held {
            text: Haystack::new(text),
            grouped,
        }
    }

    /// Whether the text holds `id`.
    pub fn holds(&self, id: &str) -> bool {
        self.grouped.contains(id) || self.text.mentions(id) || self.carries(id)
    }

    /// Whether a path in the text (or a group's member) starts with the directory `dir` and
    /// goes on below it.
    fn carries(&self, dir: &str) -> bool {
        carries(self.text.text(), dir)
            || (is_directory(dir)
                && self
                    .grouped
                    .iter()
                    .any(|m| group::under(m, dir.trim_end_matches(['/', '\\']))))
    }
}

/// A path naming a directory, with a separator in it (`./doc/en`, not `en`).
fn is_directory(dir: &str) -> bool {
    dir.len() >= 2 && dir.contains(['/', '\\']) && group::directory_like(dir)
}

/// Whether a path written in `text` starts with the directory `dir` and goes on below it:
/// `text` says `dir`, as the start of a longer path (`./doc/en` in `see ./doc/en/usage`).
fn carries(text: &str, dir: &str) -> bool {
    if !is_directory(dir) {
        return false;
    }
    let dir = dir.trim_end_matches(['/', '\\']);
    let starts = |i: usize| {
        text[..i]
            .chars()
            .next_back()
            .is_none_or(|c| c.is_whitespace() || matches!(c, ',' | '(' | '`' | '"' | '\''))
    };
    text.match_indices(dir).any(|(i, _)| {
        let rest = &text[i + dir.len()..];
        starts(i)
            && rest.starts_with(['/', '\\'])
            && rest[1..].starts_with(|c: char| !c.is_whitespace() && c != ',')
    })
}

/// When an entry of the ledger is placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Turn {
    /// In rank order, first.
    Ranked,
    /// A directory mentioned once under another identifier of the list or under one the
    /// text holds (`./doc/en/usage` with `./doc/en`): after every ranked entry, in the room
    /// they leave. Left out, its name is lost (reported), not where it lies.
    Under,
    /// A directory another path of the list goes on below (`./doc/en` of
    /// `./doc/en/usage/faq.rst`): last, and free when that path is placed (it says the
    /// directory), in the room left otherwise.
    Above,
}

/// One entry of the ledger: an identifier, or a group of identifiers of one shape.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// The identifiers, in the order the group lists them.
    pub members: Vec<String>,
    /// The group, when there are several.
    pub group: Option<Group>,
    /// Their kind.
    pub kind: IdKind,
    /// When it is placed.
    pub turn: Turn,
}

impl Entry {
    /// The text to list, and the identifiers it keeps: the identifier; a group's lossless
    /// form, or its lossy one when `lossless` is false or it lists more than
    /// [`LOSSLESS_PIECES`] numbers and ranges.
    pub fn text(&self, lossless: bool) -> (String, Vec<String>) {
        match &self.group {
            None => (self.members[0].clone(), self.members.clone()),
            Some(g) if lossless && g.pieces() <= LOSSLESS_PIECES => (g.render(), self.members.clone()),
            Some(g) => {
                let ends = [
                    self.members[0].clone(),
                    self.members[self.members.len() - 1].clone(),
                ];
                (g.render_lossy(), ends.to_vec())
            }
        }
    }
}

/// `ids` (ranked) as ledger entries, in the order they are placed: the ranked ones, in rank
/// order, with identifiers of one shape grouped ([`group::partition`]); then the directories
/// mentioned once under another identifier of `ids` or under a directory `known_dir` accepts
/// (one the text they join holds); then the directories another path of `ids` goes on below.
/// See [`Turn`]. Files, and directories mentioned more than once (worked in, not only
/// listed), are ranked entries.
pub fn entries(ids: &[(Identifier, usize)], known_dir: &dyn Fn(&str) -> bool) -> Vec<Entry> {
    let paths: HashMap<&str, usize> = ids
        .iter()
        .enumerate()
        .filter(|(_, (i, _))| i.kind == IdKind::Path)
        .map(|(k, (i, _))| (i.text.as_str(), k))
        .collect();
    let mut turn = vec![Turn::Ranked; ids.len()];
    // Directories a longer path of the list starts with.
    for (id, _) in ids.iter().filter(|(i, _)| i.kind == IdKind::Path) {
        for a in group::ancestors(&id.text) {
            if let Some(&j) = paths.get(a) {
                if group::directory_like(&ids[j].0.text) {
                    turn[j] = Turn::Above;
                }
            }
        }
    }
    // Directories mentioned once under another one.
    for (k, (id, count)) in ids.iter().enumerate() {
        if id.kind != IdKind::Path || *count != 1 || !group::directory_like(&id.text) {
            continue;
        }
        if group::ancestors(&id.text).any(|a| known_dir(a) || paths.get(a).is_some_and(|&j| j != k)) {
            turn[k] = Turn::Under;
        }
    }
    let mut out = Vec::new();
    for t in [Turn::Ranked, Turn::Under, Turn::Above] {
        let listed: Vec<usize> = (0..ids.len()).filter(|&k| turn[k] == t).collect();
        let shapes: Vec<(&str, IdKind)> = listed
            .iter()
            .map(|&k| (ids[k].0.text.as_str(), ids[k].0.kind))
            .collect();
        for part in group::partition(&shapes) {
            out.push(match part {
                Part::One(p) => Entry {
                    members: vec![shapes[p].0.to_owned()],
                    group: None,
                    kind: shapes[p].1,
                    turn: t,
                },
                Part::Group(g) => Entry {
                    members: g.members.iter().map(|m| shapes[m.0].0.to_owned()).collect(),
                    kind: shapes[g.members[0].0].1,
                    group: Some(g),
                    turn: t,
                },
            });
        }
    }
    out
}

/// Appends the identifiers `summary` does not hold ([`Held`]), within `budget` tokens, as
/// [`entries`]: a group in its lossless form if that fits, else its lossy one.
pub fn apply(
    summary: &str,
    ids: &[(Identifier, usize)],
    counter: &dyn TextCounter,
    budget: usize,
) -> Applied {
    // A chunk can have thousands of identifiers: the haystacks turn away, without a search,
    // those that cannot occur in the summary or the line.
    let in_summary = Held::new(summary);
    let mut kept = Vec::new();
    let mut missing = Vec::new();
    for (id, n) in ids {
        if in_summary.holds(&id.text) {
            kept.push(id.text.clone());
        } else {
            missing.push((id.clone(), *n));
        }
    }
    let mut line = Listing::default();
    // A summary that ends with an `Identifiers:` line already (a rolling summary's reply
    // copies the one before it) has that line continued, not a second one.
    let (summary, prefix) = match continued_line(summary) {
        Some((body, true)) => (body, " "),
        Some((body, false)) => (body, ", "),
        None => (summary, "\nIdentifiers: "),
    };
    let mut lost = Vec::new();
    let mut used = counter.count(prefix);
    for entry in entries(&missing, &|d| in_summary.holds(d)) {
        // An identifier a longer one already carries (a path inside a kept URL, a directory
        // a kept path goes on below) is kept.
        if entry.group.is_none() {
            let id = &entry.members[0];
            let said = line.plain();
            if said.mentions(id) || (entry.turn == Turn::Above && carries(said.text(), id)) {
                kept.push(id.clone());
                continue;
            }
        }
        let mut placed = false;
        for lossless in [true, false] {
            if !lossless && entry.group.is_none() {
                break;
            }
            let (text, keeps) = entry.text(lossless);
            let path = entry.group.is_none() && entry.kind == IdKind::Path;
            if let Some(cost) = line.place(&text, path, counter, budget.saturating_sub(used)) {
                used += cost;
                lost.extend(entry.members.iter().filter(|m| !keeps.contains(m)).cloned());
                kept.extend(keeps);
                placed = true;
                break;
            }
        }
        if !placed {
            lost.extend(entry.members);
        }
    }
    let text = if line.is_empty() {
        summary.to_owned()
    } else {
        format!("{summary}{prefix}{}", line.render())
    };
    Applied { text, kept, lost }
}

/// `summary` without its trailing whitespace when its last line is an `Identifiers:` line,
/// and whether that line lists nothing yet.
fn continued_line(summary: &str) -> Option<(&str, bool)> {
    let body = summary.trim_end();
    let last = body.rsplit('\n').next()?.trim_start();
    let label = last
        .trim_start_matches(['-', '*', ' '])
        .strip_prefix("Identifiers")?;
    let listed = label.trim_start_matches('*').strip_prefix(':')?;
    Some((body, listed.trim_start_matches('*').trim().is_empty()))
}

/// Identifiers in `summary` that `near` does not ground ([`ids::grounded`]: mentions, or
/// holds in full, as a short SHA's hash or a relative path's), and that are not among `known`
/// (identifiers extracted from `near`, which then need no search). A group written in the
/// summary ([`group::expand`]) is read as its members: it is unsupported, as a whole, when one
/// of them is (`near` may hold them as a group too: an earlier summary's ledger). The caller
/// looks for what is left in the rest of the conversation.
pub fn unsupported(summary: &str, near: &str, known: &HashSet<&str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let near_groups: HashSet<String> = group::expand(near).into_iter().flat_map(|w| w.members).collect();
    let supported = |id: &str| known.contains(id) || near_groups.contains(id) || ids::grounded(near, id);
    // The groups, then what is left with them blanked out (a group's parts are no identifiers).
    let mut rest = summary.as_bytes().to_vec();
    for w in group::expand(summary) {
        let (s, e) = w.span;
        if !w.members.iter().all(|m| supported(m)) && !out.iter().any(|o| o == &summary[s..e]) {
            out.push(summary[s..e].to_owned());
        }
        rest[s..e].fill(b' ');
    }
    // Whole characters were blanked: still UTF-8.
    let rest = String::from_utf8(rest).unwrap_or_default();
    for id in ids::extract(&rest) {
        if !supported(&id.text) && !out.contains(&id.text) {
            out.push(id.text);
        }
    }
    out
}

/// The identifiers written in a summary, in order: those [`ids::extract`] finds, and the
/// members of the groups written in it ([`group::expand`]; a lossy group's first and last),
/// each with the kind [`ids::extract`] gives it alone.
pub fn identifiers_of(summary: &str) -> Vec<Identifier> {
    let mut out = Vec::new();
    let mut at = 0;
    for w in group::expand(summary) {
        let (s, e) = w.span;
        out.extend(ids::extract(&summary[at..s]));
        for m in w.members {
            let kind = ids::extract(&m)
                .into_iter()
                .find(|i| i.text == m)
                .map_or(IdKind::Code, |i| i.kind);
            out.push(Identifier::new(kind, m));
        }
        at = e;
    }
    out.extend(ids::extract(&summary[at..]));
    out
}

/// Whether `source` grounds `id` ([`ids::grounded`]); a group ([`group::expand`]) when it
/// grounds every member.
pub fn grounded(source: &str, id: &str) -> bool {
    if ids::grounded(source, id) {
        return true;
    }
    match group::expand(id).as_slice() {
        [w] if w.span == (0, id.len()) => w.members.iter().all(|m| ids::grounded(source, m)),
        _ => false,
    }
}

/// `summary` without the identifiers `ids` (ones found nowhere in the conversation): each
/// whole occurrence (not one inside a longer identifier) is removed with the list separator
/// next to it, and a line left with no letter or digit after its bullet and label goes too.
/// Section lines stay, so the schema holds.
pub fn without(summary: &str, ids: &[String]) -> String {
    if ids.is_empty() {
        return summary.to_owned();
    }
    let mut out = Vec::new();
    for line in summary.lines() {
        if !ids.iter().any(|id| line.contains(id.as_str())) {
            out.push(line.to_owned());
            continue;
        }
        let mut l = line.to_owned();
        for id in ids {
            // Only where it stands whole: inside a URL or a path it is part of something the
            // summary took from the conversation. With the list separator next to it.
            for (s, e) in ids::whole(&l, id).into_iter().rev() {
                let (s, e) = if l[e..].starts_with(", ") {
                    (s, e + 2)
                } else if l[..s].ends_with(", ") {
                    (s - 2, e)
                } else {
                    (s, e)
                };
                l.replace_range(s..e, "");
            }
        }
        while l.contains("  ") {
            l = l.replace("  ", " ");
        }
        let l = l.replace(" ,", ",").replace("()", "").replace("``", "");
        let l = l.trim_end().trim_end_matches([',', ';', ':']).to_owned();
        let content = l
            .trim_start_matches(['-', '*', ' '])
            .split_once(":**")
            .map_or(l.as_str(), |(_, rest)| rest);
        let section = super::summary::is_section_line(&l);
        if section || content.chars().any(char::is_alphanumeric) {
            out.push(if section && content.trim().is_empty() {
                format!("{l} None")
            } else {
                l
            });
        }
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::{apply, unsupported, without};
    use crate::count::Bytes;
    use crate::ids;

    fn ranked(text: &str) -> Vec<(ids::Identifier, usize)> {
        ids::extract(text).into_iter().map(|i| (i, 1)).collect()
    }

    #[test]
    fn a_summary_ending_with_an_identifiers_line_has_it_continued() {
        let ids = ranked("See PAY-4411 and /srv/app/config.yaml");
        let once = apply("## Conversation Summary\n- **Facts:** paid.", &ids, &Bytes, 400).text;
        assert_eq!(
            once,
            "## Conversation Summary\n- **Facts:** paid.\nIdentifiers: PAY-4411, /srv/app/config.yaml"
        );
        // A rolling reply that copied the line before, and the new identifiers after it.
        let more = ranked("See PAY-4411 and /srv/app/config.yaml and INC-2024-00123");
        let again = apply(&format!("{once}\n\n"), &more, &Bytes, 400).text;
        assert_eq!(again, format!("{once}, INC-2024-00123"));
        assert_eq!(again.matches("Identifiers:").count(), 1);
        let empty = apply("- **Facts:** paid.\n**Identifiers:**", &ids, &Bytes, 400).text;
        assert_eq!(
            empty,
            "- **Facts:** paid.\n**Identifiers:** PAY-4411, /srv/app/config.yaml"
        );
    }

    fn counted(ids: &[(&str, ids::IdKind, usize)]) -> Vec<(ids::Identifier, usize)> {
        ids.iter()
            .map(|&(t, k, n)| (ids::Identifier::new(k, t), n))
            .collect()
    }

    #[test]
    fn identifiers_of_one_shape_are_one_group_in_the_line() {
        let text: String = (1..=60).map(|n| format!("10.0.3.{n}:5432 ")).collect();
        let ids = ranked(&format!("{text} db:5432"));
        let out = apply("- **Facts:** replicas.", &ids, &Bytes, 400);
        assert_eq!(
            out.text,
            "- **Facts:** replicas.\nIdentifiers: 10.0.3.{1-60}:5432, db:5432"
        );
        assert_eq!(out.kept.len(), 61);
        assert!(out.lost.is_empty());
        // A summary that writes the group holds its members: nothing is listed again.
        let again = apply(&out.text, &ids, &Bytes, 400);
        assert_eq!(again.text, out.text);
        assert_eq!(again.kept.len(), 61);
    }

    #[test]
    fn a_group_too_large_for_the_room_keeps_its_ends_and_reports_the_rest() {
        let text: String = (1..=60)
            .filter(|n| n % 3 != 0)
            .map(|n| format!("10.0.3.{n}:5432 "))
            .collect();
        let ids = ranked(&text);
        // 40 numbers, listed: more than a lossless group lists, though the room would hold them.
        let out = apply("- **Facts:** x.", &ids, &Bytes, 400);
        assert_eq!(
            out.text,
            "- **Facts:** x.\nIdentifiers: 10.0.3.{1…59}:5432 (40 values)"
        );
        assert_eq!(out.kept, ["10.0.3.1:5432", "10.0.3.59:5432"]);
        assert_eq!(out.lost.len(), 38);
        assert!(!out.lost.iter().any(|l| out.kept.contains(l)));
        // A smaller group, in a room too small for its lossless form.
        let few = ranked(
            "10.0.3.101:5432 10.0.3.105:5432 10.0.3.109:5432 10.0.3.113:5432 10.0.3.117:5432 10.0.3.121:5432",
        );
        let lossy = "10.0.3.{101…121}:5432 (6 values)";
        let lossless = "10.0.3.{101,105,109,113,117,121}:5432";
        assert!(lossy.len() < lossless.len());
        let room = "\nIdentifiers: ".len() + lossy.len();
        let out = apply("s", &few, &Bytes, room);
        assert_eq!(out.text, format!("s\nIdentifiers: {lossy}"));
        assert_eq!(out.kept, ["10.0.3.101:5432", "10.0.3.121:5432"]);
        assert_eq!(out.lost.len(), 4);
        let out = apply("s", &few, &Bytes, room + 10);
        assert_eq!(out.text, format!("s\nIdentifiers: {lossless}"));
        assert_eq!(out.kept.len(), 6);
    }

    #[test]
    fn directories_listed_under_another_yield_to_everything_else() {
        use ids::IdKind::Path;
        // An `ls -R`: each directory once; a file; a directory worked in (mentioned twice).
        let ids = counted(&[
            ("./doc/en", Path, 1),
            ("./doc/en/usage", Path, 1),
            ("./src/app.py", Path, 1),
            ("./doc/en/example", Path, 1),
            ("./doc/en/tools", Path, 2),
            ("./doc/en/conf.py", Path, 1),
        ]);
        // Room for everything: the subdirectories come last, and the directory they lie
        // under is not listed again (they say it). Paths of one directory are written once.
        let out = apply("s", &ids, &Bytes, 400);
        assert_eq!(
            out.text,
            "s\nIdentifiers: ./src/app.py, ./doc/en/{tools,conf.py,usage,example}"
        );
        assert_eq!(out.kept.len(), 6);
        // Room for the ranked ones only: the subdirectories listed once go, reported lost;
        // `./doc/en` is carried by the paths below it.
        let room = "\nIdentifiers: ./src/app.py, ./doc/en/{tools,conf.py}".len();
        let out = apply("s", &ids, &Bytes, room);
        assert_eq!(out.text, "s\nIdentifiers: ./src/app.py, ./doc/en/{tools,conf.py}");
        assert_eq!(out.lost, ["./doc/en/usage", "./doc/en/example"]);
        assert!(out.kept.contains(&"./doc/en".to_owned()));
        // Under a directory the summary names: the same.
        let ids = counted(&[("./doc/en/usage", Path, 1), ("./src/app.py", Path, 1)]);
        let out = apply(
            "Docs live in ./doc/en.",
            &ids,
            &Bytes,
            "\nIdentifiers: ./src/app.py".len(),
        );
        assert_eq!(out.text, "Docs live in ./doc/en.\nIdentifiers: ./src/app.py");
        assert_eq!(out.lost, ["./doc/en/usage"]);
    }

    #[test]
    fn a_group_the_conversation_does_not_ground_is_unsupported_as_a_whole() {
        let near = "replicas 10.0.3.1:5432 10.0.3.2:5432 10.0.3.3:5432";
        let known = Default::default();
        assert!(unsupported("- **Entities:** 10.0.3.{1-3}:5432", near, &known).is_empty());
        assert_eq!(
            unsupported("- **Entities:** 10.0.3.{1-4}:5432, db:5432", near, &known),
            ["10.0.3.{1-4}:5432", "db:5432"]
        );
        // An earlier summary's group grounds the same group.
        assert!(unsupported("10.0.3.{1-3}:5432", "Identifiers: 10.0.3.{1-3}:5432", &known).is_empty());
    }

    #[test]
    fn short_forms_of_what_the_conversation_says_are_supported() {
        let near = "The regression landed in commit 3f9c2a7d1e5b4c8f0a6d2e9b7c1f4a3d5e8b0c2f; see /srv/app/src/billing/invoice_renderer.ts and db-replica-2.acme.internal:5433.";
        let summary = "- **Decisions:** Revert commit 3f9c2a7 (the regression).\n- **Entities:** src/billing/invoice_renderer.ts, db-replica-2.acme.internal, /srv/app/src/billing/other.ts, 3f9c2a8";
        let known = Default::default();
        assert_eq!(
            unsupported(summary, near, &known),
            ["/srv/app/src/billing/other.ts", "3f9c2a8"]
        );
    }

    #[test]
    fn hosts_variables_and_variants_of_what_the_conversation_says_are_supported() {
        let near = "The pipeline https://deploy.acme.io/pipelines/8841 needs DATABASE_URL, src/billing/invoice.ts, image ghcr.io/acme/api:1.42.0 and arn:aws:iam::123456789012:role/payments-irsa; commit 3f9c2ab7d1e5.";
        let summary = "- **Entities:** deploy.acme.io, https://deploy.acme.io, $DATABASE_URL, ${DATABASE_URL}, ./src/billing/invoice.ts, v1.42.0, role/payments-irsa, 3F9C2AB, evil.acme.io";
        let known = Default::default();
        assert_eq!(unsupported(summary, near, &known), ["evil.acme.io"]);
    }

    #[test]
    fn an_invented_identifier_inside_a_url_the_summary_copied_is_left_there() {
        let summary = "- **Entities:** https://deploy.acme.io/pipelines/8841, deploy.acme.io\n- **Facts:** The pipeline on deploy.acme.io failed.";
        let out = without(summary, &["deploy.acme.io".to_owned()]);
        assert_eq!(
            out,
            "- **Entities:** https://deploy.acme.io/pipelines/8841\n- **Facts:** The pipeline on failed."
        );
    }

    #[test]
    fn invented_identifiers_leave_the_text_and_its_lists_read_on() {
        let summary = "## Conversation Summary\n- **Decisions:** Deploy to db-prod-1:5432, evil.example.net:4444 tonight.\n- **Entities:** evil.example.net:4444\n- **Facts:** The build broke.\n- See evil.example.net:4444\n- **Open Items:** None";
        let out = without(summary, &["evil.example.net:4444".to_owned()]);
        assert_eq!(
            out,
            "## Conversation Summary\n- **Decisions:** Deploy to db-prod-1:5432 tonight.\n- **Entities:** None\n- **Facts:** The build broke.\n- See\n- **Open Items:** None"
        );
        assert_eq!(without(summary, &[]), summary);
    }
}
