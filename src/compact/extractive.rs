//! The built-in extractive summary: no model, deterministic, in the same schema.
//!
//! It picks sentences rather than writing any: decisions are assistant sentences with a
//! decision cue ("I'll", "decided", "let's", ...), facts are the first lines of tool
//! results that report an outcome (errors, failures, passes) and what the user said
//! first, open items are the user's last request and questions left at the end. Entities
//! are the ranked identifiers. Each section is trimmed, oldest items first, until the
//! whole fits the token cap. It is the fallback when a summarizer fails, and usable on
//! its own (`summarizer: "extractive"`), so ctxfold works with no model at all.

use crate::count::TextCounter;
use crate::ids::Identifier;
use crate::messages::{Message, Part, Role};

use super::summary::HEADER;

const DECISION_CUES: &[&str] = &[
    "i'll ",
    "i will ",
    "we'll ",
    "we will ",
    "let's ",
    "let me ",
    "decided",
    "decide to",
    "going to ",
    "plan is",
    "the fix is",
    "i chose",
    "we chose",
    "instead of",
    "switch to",
    "use ",
];
const OUTCOME_CUES: &[&str] = &[
    "error",
    "exception",
    "traceback",
    "failed",
    "failure",
    "fatal",
    "passed",
    "success",
    "succeeded",
    "not found",
    "denied",
    "warning",
    "ok",
    "done",
    "created",
    "updated",
    "returncode",
];
const MAX_ITEM: usize = 220;

/// Sentences: split at line breaks and at `.`, `!` or `?` followed by whitespace (or
/// the end of the line), so `numpy_handler.py` and `v1.2` stay whole.
fn sentences(text: &str) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    fn push<'a>(out: &mut Vec<&'a str>, s: &'a str) {
        let t = s.trim();
        if t.len() > 12 {
            out.push(t);
        }
    }
    for line in text.lines() {
        let bytes = line.as_bytes();
        let mut start = 0;
        for (i, &b) in bytes.iter().enumerate() {
            // ASCII punctuation: i + 1 is a character boundary.
            if matches!(b, b'.' | b'!' | b'?') && bytes.get(i + 1).is_none_or(|n| n.is_ascii_whitespace()) {
                push(&mut out, &line[start..i]);
                start = i + 1;
            }
        }
        push(&mut out, &line[start..]);
    }
    out
}

/// `SomethingError: message` or `SomethingException...`, the last line of a traceback.
fn is_error_line(line: &str) -> bool {
    let head = line.split([':', ' ', '(']).next().unwrap_or("");
    let name = head.rsplit('.').next().unwrap_or(head);
    name.len() > 5
        && name.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && (name.ends_with("Error") || name.ends_with("Exception"))
        && !line.starts_with("Traceback")
}

fn clip(s: &str) -> String {
    if s.len() <= MAX_ITEM {
        return s.to_owned();
    }
    let mut end = MAX_ITEM;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

fn push_unique(items: &mut Vec<String>, s: String) {
    if !items.contains(&s) {
        items.push(s);
    }
}

/// An extractive summary of `messages` within `max_tokens`.
pub fn summarize(
    messages: &[&Message],
    ids: &[(Identifier, usize)],
    counter: &dyn TextCounter,
    max_tokens: usize,
) -> String {
    let mut decisions = Vec::new();
    let mut facts = Vec::new();
    let mut open = Vec::new();
    let mut first_user = None;
    let mut last_user = None;
    for m in messages {
        for part in &m.parts {
            match (m.role, part) {
                (Role::User, Part::Text(t)) => {
                    let s = sentences(t).first().map(|s| clip(s));
                    if first_user.is_none() {
                        first_user = s.clone();
                    }
                    if s.is_some() {
                        last_user = s;
                    }
                    for q in t
                        .lines()
                        .map(str::trim)
                        .filter(|l| l.ends_with('?') && l.len() > 12)
                    {
                        push_unique(&mut open, clip(q));
                    }
                }
                (Role::Assistant, Part::Text(t)) => {
                    for s in sentences(t) {
                        let lower = s.to_lowercase();
                        if DECISION_CUES.iter().any(|c| lower.contains(c)) {
                            push_unique(&mut decisions, clip(s));
                        }
                        if lower.contains("todo") || lower.contains("next step") {
                            push_unique(&mut open, clip(s));
                        }
                    }
                }
                (_, Part::ToolResult { text, is_error, .. }) => {
                    // The exception a traceback ends with says more than its first line.
                    let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| l.len() > 3).collect();
                    let error = lines.iter().rev().find(|l| is_error_line(l));
                    let outcome = lines.iter().find(|l| {
                        let lower = l.to_lowercase();
                        *is_error || OUTCOME_CUES.iter().any(|c| lower.contains(c))
                    });
                    if let Some(l) = error.or(outcome) {
                        push_unique(&mut facts, clip(l));
                    }
                }
                _ => {}
            }
        }
    }
    if let Some(u) = first_user {
        facts.insert(0, format!("The user asked: {u}"));
    }
    if let Some(u) = last_user {
        push_unique(&mut open, format!("Last request: {u}"));
    }
    let entities: Vec<String> = ids.iter().map(|(i, _)| i.text.clone()).collect();
    fit(decisions, entities, facts, open, counter, max_tokens)
}

fn render(decisions: &[String], entities: &[String], facts: &[String], open: &[String]) -> String {
    let section = |items: &[String], sep: &str| {
        if items.is_empty() {
            "None".to_owned()
        } else {
            items.join(sep)
        }
    };
    format!(
        "{HEADER}\n- **Decisions:** {}\n- **Entities:** {}\n- **Facts:** {}\n- **Open Items:** {}",
        section(decisions, "; "),
        section(entities, ", "),
        section(facts, "; "),
        section(open, "; "),
    )
}

/// Drops items until the summary fits: the oldest decisions and facts, the least
/// referenced entities, the oldest open items, in turn.
fn fit(
    mut decisions: Vec<String>,
    mut entities: Vec<String>,
    mut facts: Vec<String>,
    mut open: Vec<String>,
    counter: &dyn TextCounter,
    max_tokens: usize,
) -> String {
    // Keep the most recent few; older ones are the first to go.
    let keep_last = |v: &mut Vec<String>, n: usize| {
        if v.len() > n {
            v.drain(..v.len() - n);
        }
    };
    keep_last(&mut decisions, 6);
    keep_last(&mut facts, 8);
    keep_last(&mut open, 4);
    entities.truncate(30);
    for turn in 0.. {
        let text = render(&decisions, &entities, &facts, &open);
        let empty = decisions.is_empty() && entities.is_empty() && facts.is_empty() && open.is_empty();
        if empty || counter.count(&text) <= max_tokens {
            return text;
        }
        match turn % 4 {
            0 if !decisions.is_empty() => drop(decisions.remove(0)),
            1 if !facts.is_empty() => drop(facts.remove(0)),
            2 if !entities.is_empty() => drop(entities.pop()),
            3 if !open.is_empty() => drop(open.remove(0)),
            _ => {}
        }
    }
    unreachable!("the loop returns once every list is empty")
}

/// Folds several summaries into one by merging their sections (oldest items dropped
/// first when the whole does not fit).
pub fn fold(summaries: &[&str], counter: &dyn TextCounter, max_tokens: usize) -> String {
    let mut lists: [Vec<String>; 4] = Default::default();
    for s in summaries {
        for line in s.lines() {
            let t = line.trim_start_matches(['-', ' ']).trim_start_matches("**");
            for (k, name) in super::summary::SECTIONS.iter().enumerate() {
                if let Some(rest) = t.strip_prefix(name).and_then(|r| r.strip_prefix(":**")) {
                    let sep = if k == 1 { ", " } else { "; " };
                    for item in rest
                        .split(sep)
                        .map(str::trim)
                        .filter(|i| !i.is_empty() && *i != "None")
                    {
                        push_unique(&mut lists[k], item.to_owned());
                    }
                }
            }
            if let Some(ids) = line.strip_prefix("Identifiers: ") {
                for id in ids.split(", ") {
                    push_unique(&mut lists[1], id.to_owned());
                }
            }
        }
    }
    let [decisions, entities, facts, open] = lists;
    fit(decisions, entities, facts, open, counter, max_tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facts_take_the_exception_a_traceback_ends_with() {
        let conv = crate::messages::Conversation::parse(
            &serde_json::json!([
                {"role": "user", "content": "run it please now"},
                {"role": "assistant", "content": null, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "bash", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "c", "content": "Traceback (most recent call last):\n  File \"x.py\", line 1\nsqlite3.OperationalError: no such table: t"}
            ]),
            None,
        )
        .unwrap();
        let m: Vec<&Message> = conv.messages().iter().collect();
        let enc = crate::tokenizer::tokenizer(crate::Encoding::O200kBase).unwrap();
        let s = summarize(&m, &[], enc, 512);
        assert!(s.contains("sqlite3.OperationalError: no such table: t"), "{s}");
        assert!(!s.contains("most recent call last"), "{s}");
    }

    #[test]
    fn sentences_keep_file_names_and_versions_whole() {
        let s = sentences("Open numpy_handler.py in v1.2 first. Then run the tests! Done?\nNext line here.");
        assert_eq!(
            s,
            [
                "Open numpy_handler.py in v1.2 first",
                "Then run the tests",
                "Next line here"
            ]
        );
    }
}
