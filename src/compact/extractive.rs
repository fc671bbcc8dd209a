//! The built-in extractive summary: no model, deterministic, in the same schema.
//!
//! It picks sentences rather than writing any: decisions are assistant sentences with a
//! decision cue ("I'll", "decided", "let's", ...); facts are the lines of tool results that
//! report an outcome (the exception a traceback ends with, failures, passes), what the user
//! said first, and the sentences of the conversation that carry specifics a later question
//! asks for (dates, times, numbers, names; not lines of code, whose identifiers the ledger
//! keeps); open items are the user's last request and questions left at the end. A system
//! message past the head (an instruction given mid-conversation) is kept as a decision, its
//! first sentence. A sentence
//! either side marks (`Decision:`, `We agreed`, `Open items:`, `TODO`, `Next steps:`) goes
//! to its section, and outranks a cue's sentence when the summary is trimmed. Entities
//! are the ranked identifiers, then the names mentioned, most mentioned first. Each section
//! is trimmed, the least specific and oldest items first, until the whole fits the token
//! cap; a fold merges summaries the same way, keeping the exception a command ended with
//! longest. It is the fallback when a summarizer fails, and usable on its own (`summarizer:
//! "extractive"`), so ctxfold works with no model at all.

use std::collections::{HashMap, HashSet};

use crate::count::TextCounter;
use crate::ids::Identifier;
use crate::messages::{Message, MessageRole, Part};

use super::summary::HEADER;
use markup::{clean_line, clean_text};

mod markup;

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
/// What someone writes to mark a decision, by either side: it ranks above a cue's sentence.
const DECISION_LABELS: &[&str] = &[
    "decision:",
    "decided:",
    "we decided",
    "we agreed",
    "agreed to ",
    "final decision",
];
/// What marks an item left open, by either side.
const OPEN_CUES: &[&str] = &[
    "open item",
    "action item",
    "todo",
    "to-do",
    "next step",
    "follow-up",
    "follow up",
    "still need",
    "pending:",
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
    // At the end of a word: the start of an identifier would read as another identifier
    // (a UUID's first block), one the conversation never had.
    if !s[end..].starts_with(char::is_whitespace) {
        if let Some(space) = s[..end].rfind(char::is_whitespace).filter(|&i| i > 0) {
            end = space;
        }
    }
    format!("{}…", s[..end].trim_end())
}

/// An item of a section: its text and how long it is worth keeping (higher stays
/// longer; among equals the newer stays).
struct Item {
    text: String,
    rank: u32,
}

/// Items in the order first seen, with their positions by text: adding one, or raising the
/// rank of one already there, takes constant time (a chunk can hold thousands).
#[derive(Default)]
struct Items {
    list: Vec<Item>,
    at: HashMap<String, usize>,
}

impl Items {
    /// Adds `text`, or keeps the higher rank if it is there already.
    fn push(&mut self, text: String, rank: u32) {
        match self.at.get(&text) {
            Some(&k) => self.list[k].rank = self.list[k].rank.max(rank),
            None => {
                self.at.insert(text.clone(), self.list.len());
                self.list.push(Item { text, rank });
            }
        }
    }

    /// Adds one to the rank of `text` (a count of mentions), starting at 1.
    fn count(&mut self, text: String) {
        match self.at.get(&text) {
            Some(&k) => self.list[k].rank += 1,
            None => {
                self.at.insert(text.clone(), self.list.len());
                self.list.push(Item { text, rank: 1 });
            }
        }
    }
}

const MONTHS: &[&str] = &[
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];
const DAYS: &[&str] = &[
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];

/// A month or a day of the week, in any case: a date is near.
fn is_calendar_word(word: &str) -> bool {
    MONTHS.iter().chain(DAYS).any(|m| m.eq_ignore_ascii_case(word))
}

/// Whether `word` is a month, in any case.
fn is_month(word: &str) -> bool {
    MONTHS.iter().any(|m| m.eq_ignore_ascii_case(word))
}

/// A capitalised word that is not the start of a sentence is taken for a name: `Paris`,
/// `McGee's`, `Apex`. `I`, `I'm` and the like are not names.
fn is_name(word: &str) -> bool {
    let mut chars = word.chars();
    chars.next().is_some_and(|c| c.is_uppercase())
        && word.chars().any(char::is_lowercase)
        && !word.starts_with("I'")
        && !word.starts_with("I\u{2019}")
}

/// The words of a sentence with the punctuation around them trimmed, each with whether
/// it starts a sentence (first word, or after `:`, `.`, `!`, `?`).
fn words(s: &str) -> impl Iterator<Item = (&str, bool)> {
    let mut starts = true;
    s.split_whitespace().filter_map(move |raw| {
        let first = starts;
        starts = raw.ends_with([':', '.', '!', '?', '"', '\u{201d}']) || raw == "-" || raw == "\u{2014}";
        let w = raw.trim_matches(|c: char| !c.is_alphanumeric());
        (!w.is_empty()).then_some((w, first))
    })
}

/// How specific a sentence of conversation is: the dates, times, numbers and names a
/// later question asks for. "See you at McGee's on 17 March" scores, "Sounds great!"
/// does not.
fn specifics(s: &str) -> u32 {
    if looks_like_code(s) {
        return 0;
    }
    let mut score = 0;
    for (w, first) in words(s) {
        if is_calendar_word(w) {
            score += 2;
        } else if w.bytes().any(|b| b.is_ascii_digit()) || (!first && is_name(w)) {
            score += 1;
        }
    }
    score
}

/// A line of code or of a listing rather than a sentence: `18:print(x)`, `if a == b:`,
/// `"key": [1, 2]`. Its digits and capitals are not the facts a question asks for (and
/// the identifiers in it are in the ledger).
fn looks_like_code(s: &str) -> bool {
    let numbered = s
        .split_once(':')
        .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    let symbols = s
        .chars()
        .filter(|c| {
            matches!(
                c,
                '(' | ')' | '[' | ']' | '{' | '}' | '=' | '<' | '>' | '`' | '_' | '"' | '\\' | '|' | ';'
            )
        })
        .count();
    numbered || symbols * 12 > s.chars().count()
}

/// Runs of names in `sentences` ("Apex Legends", "Connecticut"), counted into `names`.
fn collect_names(sentences: &[&str], names: &mut Items) {
    for s in sentences {
        let mut run: Vec<&str> = Vec::new();
        let mut flush = |run: &mut Vec<&str>| {
            if !run.is_empty() {
                names.count(run.join(" "));
                run.clear();
            }
        };
        for (w, first) in words(s) {
            if !first && is_name(w) && !is_month(w) {
                run.push(w);
            } else {
                flush(&mut run);
            }
        }
        flush(&mut run);
    }
}

/// Sentences of conversation worth keeping score at least this.
const SPECIFIC: u32 = 2;
/// Sentences of conversation rank by how specific they are, at most this.
const RANK_SENTENCE_MAX: u32 = 99;
/// Ranks of facts from tool results: above every sentence of conversation (what a
/// command ended with is what a later step asks for), the exception above the rest.
const RANK_OUTCOME: u32 = 100;
const RANK_ERROR: u32 = 101;
const RANK_PINNED: u32 = u32::MAX;
/// Identifiers rank above every sentence: when the entities' turn comes to lose an item
/// and the weakest is an identifier, a sentence of conversation goes instead.
const RANK_IDENTIFIER: u32 = u32::MAX / 2;

/// What the messages say, sorted into the summary's sections as they are read.
#[derive(Default)]
struct Gathered {
    decisions: Items,
    facts: Items,
    open: Items,
    names: Items,
    first_user: Option<String>,
    last_user: Option<String>,
}

impl Gathered {
    fn user_text(&mut self, t: &str) {
        let cleaned = clean_text(t);
        let t = cleaned.as_str();
        let all = sentences(t);
        let s = all.first().map(|s| clip(s));
        if self.first_user.is_none() {
            self.first_user = s.clone();
        }
        if s.is_some() {
            self.last_user = s;
        }
        for q in t
            .lines()
            .map(str::trim)
            .filter(|l| l.ends_with('?') && l.len() > 12)
        {
            self.open.push(clip(q), 0);
        }
        for s in &all {
            let lower = s.to_lowercase();
            if labelled(&lower, DECISION_LABELS) {
                self.decisions.push(clip(s), RANK_OUTCOME);
                continue;
            }
            if labelled(&lower, OPEN_CUES) {
                self.open.push(clip(s), RANK_OUTCOME);
                continue;
            }
            let score = specifics(s);
            if score >= SPECIFIC {
                self.facts.push(clip(s), score.min(RANK_SENTENCE_MAX));
            }
        }
        collect_names(&all, &mut self.names);
    }

    fn assistant_text(&mut self, t: &str) {
        let cleaned = clean_text(t);
        let t = cleaned.as_str();
        let all = sentences(t);
        for &s in &all {
            let lower = s.to_lowercase();
            if labelled(&lower, DECISION_LABELS) {
                self.decisions.push(clip(s), RANK_OUTCOME);
            } else if labelled(&lower, OPEN_CUES) {
                self.open.push(clip(s), RANK_OUTCOME);
                continue;
            } else if DECISION_CUES.iter().any(|c| lower.contains(c)) {
                self.decisions.push(clip(s), 0);
            } else {
                let score = specifics(s);
                if score >= SPECIFIC {
                    self.facts.push(clip(s), score.min(RANK_SENTENCE_MAX));
                }
            }
            if lower.contains("todo") || lower.contains("next step") {
                self.open.push(clip(s), 0);
            }
        }
        collect_names(&all, &mut self.names);
    }

    /// A system message past the head (an instruction given mid-conversation): its first
    /// sentence, as a decision someone marked (a standing instruction outlives its turn).
    fn system_text(&mut self, t: &str) {
        if let Some(s) = sentences(t).first() {
            self.decisions
                .push(format!("System instruction: {}", clip(s)), RANK_OUTCOME);
        }
    }

    fn tool_result(&mut self, text: &str, is_error: bool) {
        // The exception a traceback ends with says more than its first line. Lines as a
        // fact could quote them: no markup, no numbered code.
        let lines: Vec<String> = text
            .lines()
            .filter_map(clean_line)
            .filter(|l| l.len() > 3)
            .collect();
        if let Some(l) = lines.iter().rev().find(|l| is_error_line(l)) {
            self.facts.push(clip(l), RANK_ERROR);
        } else if let Some(l) = lines.iter().find(|l| {
            let lower = l.to_lowercase();
            is_error || OUTCOME_CUES.iter().any(|c| lower.contains(c))
        }) {
            self.facts.push(clip(l), RANK_OUTCOME);
        }
    }
}

/// Whether a sentence (lower case) is marked with one of `labels`, as written in a chat:
/// at its start, after a bullet or bold markers (`- **Decision:**`, `Open items: ...`).
fn labelled(lower: &str, labels: &[&str]) -> bool {
    let start = lower.trim_start_matches(['-', '*', '#', '>', ' ', '_']);
    labels.iter().any(|l| start.starts_with(l))
}

/// An extractive summary of `messages` within `max_tokens`.
pub fn summarize(
    messages: &[&Message],
    ids: &[(Identifier, usize)],
    counter: &dyn TextCounter,
    max_tokens: usize,
) -> String {
    let mut g = Gathered::default();
    for m in messages {
        for part in &m.parts {
            match part {
                Part::Text(t) => {
                    // A summary ctxfold sent, back in this input, is read without its framing.
                    let t = super::summary::frame::unframed(t);
                    match m.role {
                        MessageRole::User => g.user_text(&t),
                        MessageRole::Assistant => g.assistant_text(&t),
                        MessageRole::System => g.system_text(&t),
                        MessageRole::Tool => {}
                    }
                }
                Part::ToolResult { text, is_error, .. } => g.tool_result(text, *is_error),
                _ => {}
            }
        }
    }
    let Gathered {
        decisions,
        facts,
        mut open,
        names,
        first_user,
        last_user,
    } = g;
    let mut facts = facts.list;
    if let Some(u) = first_user {
        facts.insert(
            0,
            Item {
                text: format!("The user asked: {u}"),
                rank: RANK_PINNED,
            },
        );
    }
    if let Some(u) = last_user {
        open.push(format!("Last request: {u}"), RANK_PINNED);
    }
    // Identifiers first, in their rank, as the ledger writes them (a group of one shape
    // once, no directory under another listed); then names, the most mentioned first.
    let entries = super::ledger::entries(ids, &|_| false);
    let mut entities: Vec<Item> = entries
        .iter()
        .enumerate()
        .map(|(k, e)| Item {
            text: e.text(true).0,
            rank: RANK_IDENTIFIER - k as u32,
        })
        .collect();
    let mut names = names.list;
    names.sort_by_key(|n| std::cmp::Reverse(n.rank));
    let mut seen: HashSet<String> = entities.iter().map(|e| e.text.clone()).collect();
    for name in names {
        if seen.insert(name.text.clone()) {
            entities.push(name);
        }
    }
    fit([decisions.list, entities, facts, open.list], counter, max_tokens)
}

fn render(sections: &[Vec<Item>; 4]) -> String {
    let section = |items: &[Item], sep: &str| {
        if items.is_empty() {
            "None".to_owned()
        } else {
            let texts: Vec<&str> = items.iter().map(|i| i.text.as_str()).collect();
            texts.join(sep)
        }
    };
    let [decisions, entities, facts, open] = sections;
    format!(
        "{HEADER}\n- **Decisions:** {}\n- **Entities:** {}\n- **Facts:** {}\n- **Open Items:** {}",
        section(decisions, "; "),
        section(entities, ", "),
        section(facts, "; "),
        section(open, "; "),
    )
}

/// Keeps the `keep` items that [`weakest`] would drop last, in their order: the same as
/// dropping the weakest one at a time, in O(n log n).
fn keep_strongest(items: &mut Vec<Item>, keep: usize) {
    if items.len() <= keep {
        return;
    }
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by(|&a, &b| items[a].rank.cmp(&items[b].rank).then(a.cmp(&b)));
    let mut dropped = vec![false; items.len()];
    for &k in &order[..items.len() - keep] {
        dropped[k] = true;
    }
    let mut k = 0;
    items.retain(|_| {
        k += 1;
        !dropped[k - 1]
    });
}

/// The item of `items` to drop first: the lowest rank, the oldest among equals.
fn weakest(items: &[Item]) -> Option<usize> {
    items
        .iter()
        .enumerate()
        .min_by(|(i, a), (j, b)| a.rank.cmp(&b.rank).then(i.cmp(j)))
        .map(|(k, _)| k)
}

/// At most this many items per section (decisions, entities, facts, open items) for
/// every 512 tokens of the cap, before the cap itself is applied: no section crowds out
/// the others, and a larger cap keeps more of each.
const CAPS: [usize; 4] = [6, 30, 24, 4];
/// At most this many facts from tool results, the latest.
const MAX_OUTCOMES: usize = 8;
const DECISIONS: usize = 0;
const ENTITIES: usize = 1;
const FACTS: usize = 2;
const OPEN: usize = 3;

/// Drops items until the summary fits, in turn from each section: its lowest-ranked item,
/// the oldest among equals. Items are counted one by one to get near the cap, then the
/// whole text is counted until it fits.
fn fit(mut sections: [Vec<Item>; 4], counter: &dyn TextCounter, max_tokens: usize) -> String {
    let per_512 = (max_tokens / 512).max(1);
    for (items, cap) in sections.iter_mut().zip(CAPS) {
        keep_strongest(items, cap * per_512);
    }
    // Outcomes of tool calls: the latest few.
    let outcome = |i: &Item| (RANK_OUTCOME..RANK_PINNED).contains(&i.rank);
    let mut outcomes = sections[FACTS].iter().filter(|i| outcome(i)).count();
    sections[FACTS].retain(|i| {
        let drop = outcome(i) && outcomes > MAX_OUTCOMES;
        outcomes -= usize::from(drop);
        !drop
    });
    let mut sizes: [Vec<usize>; 4] = Default::default();
    for (items, sizes) in sections.iter().zip(&mut sizes) {
        *sizes = items.iter().map(|i| counter.count(&i.text) + 1).collect();
    }
    let frame = counter.count(&render(&Default::default()));
    let mut estimate = frame + sizes.iter().flatten().sum::<usize>();
    let mut turn = 0;
    loop {
        if estimate <= max_tokens {
            let text = render(&sections);
            if counter.count(&text) <= max_tokens {
                return text;
            }
        }
        if sections.iter().all(Vec::is_empty) {
            return render(&sections);
        }
        let mut s = turn % 4;
        turn += 1;
        let Some(mut k) = weakest(&sections[s]) else {
            continue;
        };
        if s == ENTITIES && sections[s][k].rank > RANK_IDENTIFIER / 2 {
            if let Some(f) = weakest(&sections[FACTS]).filter(|&f| sections[FACTS][f].rank < RANK_OUTCOME) {
                (s, k) = (FACTS, f);
            }
        } else if s != ENTITIES && sections[s][k].rank >= RANK_OUTCOME {
            // What a command ended with, a decision or an open item someone marked as such:
            // a sentence of conversation in another section goes first.
            let weaker = [DECISIONS, FACTS, OPEN]
                .into_iter()
                .filter_map(|t| weakest(&sections[t]).map(|w| (t, w)))
                .filter(|&(t, w)| sections[t][w].rank < RANK_OUTCOME)
                .min_by_key(|&(t, w)| sections[t][w].rank);
            if let Some(found) = weaker {
                (s, k) = found;
            }
        }
        sections[s].remove(k);
        estimate = estimate.saturating_sub(sizes[s].remove(k));
    }
}

/// Folds several summaries into one by merging their sections (the oldest items, and
/// the last entities, dropped first when the whole does not fit).
pub fn fold(summaries: &[&str], counter: &dyn TextCounter, max_tokens: usize) -> String {
    let mut lists: [Items; 4] = Default::default();
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
                        lists[k].push(item.to_owned(), 0);
                    }
                }
            }
            if let Some(ids) = line.strip_prefix("Identifiers: ") {
                for id in ids.split(", ") {
                    lists[1].push(id.to_owned(), 0);
                }
            }
        }
    }
    let mut lists = lists.map(|l| l.list);
    // The exception a command ended with stays longest; other facts go oldest first
    // (measured: on the corpus, keeping the newest beats re-ranking by specifics).
    for f in &mut lists[FACTS] {
        if is_error_line(&f.text) {
            f.rank = RANK_ERROR;
        }
    }
    // Entities keep their order of rank: the last ones are the first to go.
    let n = lists[1].len() as u32;
    for (k, e) in lists[1].iter_mut().enumerate() {
        e.rank = n - k as u32;
    }
    fit(lists, counter, max_tokens)
}

#[cfg(test)]
mod tests;
