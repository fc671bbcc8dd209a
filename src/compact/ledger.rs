//! The identifier ledger: identifiers are checked, not hoped for.
//!
//! The identifiers of the evicted messages (paths, host:port, URLs, tickets, hashes,
//! error names, commands, quantities, e-mails) are extracted deterministically and
//! ranked, most referenced first. Those a summary does not mention are appended to it
//! verbatim in one `Identifiers:` line, as many as fit the ledger budget; the rest are
//! reported lost. Identifiers in a summary that appear nowhere in the conversation are
//! reported unsupported (a hallucination, or something injected through a tool output) and
//! taken out of its text ([`without`]) unless `keepUnsupportedIds`.

use std::collections::HashSet;

use super::haystack::Haystack;
use crate::count::TextCounter;
use crate::ids::{self, Identifier, Ledger};
use crate::messages::{Message, Part};

/// The identifiers of `messages`, ranked.
pub fn collect<'a>(messages: impl IntoIterator<Item = &'a Message>) -> Vec<(Identifier, usize)> {
    let mut ledger = Ledger::new();
    for m in messages {
        for part in &m.parts {
            match part {
                Part::Text(t) | Part::ToolResult { text: t, .. } => {
                    ids::extract(t).into_iter().for_each(|i| ledger.add(i))
                }
                Part::ToolCall { name, arguments, .. } => {
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

/// Appends the identifiers `summary` does not mention, within `budget` tokens.
pub fn apply(
    summary: &str,
    ids: &[(Identifier, usize)],
    counter: &dyn TextCounter,
    budget: usize,
) -> Applied {
    // A chunk can have thousands of identifiers: the haystacks turn away, without a search,
    // those that cannot occur in the summary or the line.
    let in_summary = Haystack::new(summary);
    let mut kept = Vec::new();
    let mut missing = Vec::new();
    for (id, _) in ids {
        if in_summary.mentions(&id.text) {
            kept.push(id.text.clone());
        } else {
            missing.push(id.text.clone());
        }
    }
    let mut line = Haystack::default();
    let mut lost = Vec::new();
    // A summary that ends with an `Identifiers:` line already (a rolling summary's reply
    // copies the one before it) has that line continued, not a second one.
    let (summary, prefix) = match continued_line(summary) {
        Some((body, true)) => (body, " "),
        Some((body, false)) => (body, ", "),
        None => (summary, "\nIdentifiers: "),
    };
    let mut used = counter.count(prefix);
    for id in missing {
        // An identifier a longer one already carries (a path inside a kept URL) is kept.
        if in_summary.mentions(&id) || line.mentions(&id) {
            kept.push(id);
            continue;
        }
        let piece = if line.text().is_empty() {
            id.clone()
        } else {
            format!(", {id}")
        };
        let cost = counter.count(&piece);
        if used + cost <= budget {
            used += cost;
            line.push_str(&piece);
            kept.push(id);
        } else {
            lost.push(id);
        }
    }
    let line = line.text();
    let text = if line.is_empty() {
        summary.to_owned()
    } else {
        format!("{summary}{prefix}{line}")
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
/// (identifiers extracted from `near`, which then need no search). The caller looks for
/// what is left in the rest of the conversation.
pub fn unsupported(summary: &str, near: &str, known: &HashSet<&str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for id in ids::extract(summary) {
        if !known.contains(id.text.as_str()) && !ids::grounded(near, &id.text) && !out.contains(&id.text) {
            out.push(id.text);
        }
    }
    out
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
    use crate::count::TextCounter;
    use crate::ids;

    struct Bytes;
    impl TextCounter for Bytes {
        fn count(&self, text: &str) -> usize {
            text.len()
        }
        fn cache_key(&self) -> u64 {
            0
        }
    }

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
