//! The identifier extractor on the whole corpus, against the baseline census.
//!
//! The baseline is `tests/corpus/identifiers.json`, written by `convert.py` with Python
//! regexes (`ID_PATTERNS`). This test runs those exact patterns again through
//! `fancy-regex` (they need lookarounds), checks that they reproduce the file, and then
//! compares `ctxfold::ids::extract` with them message by message. It prints recall per
//! conversation and per kind, the misses, the identifiers only `extract` finds, what the
//! kinds beyond the baseline's seven catch (e-mail, command, quantity, address, host, error
//! code, environment variable, UUID, version, resource, money), and the time to scan the
//! corpus. Run with `--nocapture` to read the report. `tests/ids_census.rs` measures recall
//! and precision, here and on a labelled set.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use common::message_text;
use ctxfold::ids::{commands_from_call, extract, IdKind, Identifier};
use fancy_regex::Regex;
use serde_json::Value;

/// The seven kinds of the baseline, in the order they run.
const BASELINE_KINDS: [IdKind; 7] = [
    IdKind::Url,
    IdKind::HostPort,
    IdKind::Path,
    IdKind::ErrorName,
    IdKind::Ticket,
    IdKind::Hex,
    IdKind::Code,
];

/// `convert.py`'s `ID_PATTERNS`, verbatim.
fn baseline_patterns() -> Vec<(IdKind, Regex)> {
    let ext = "py|pyc|pyi|js|ts|tsx|jsx|rs|go|c|h|cc|cpp|hpp|java|rb|sh|pl|php|txt|md|rst|json|\
               yml|yaml|toml|cfg|ini|html|css|xml|csv|log|lock|sql|traj|pot|po|png|jpg|svg";
    let patterns = [
        (IdKind::Url, r#"\b(?:https?|ftp|wss?)://[^\s<>"'`)\]}]+"#.to_owned()),
        (
            IdKind::HostPort,
            format!(
                r"\b(?:localhost|(?:\d{{1,3}}\.){{3}}\d{{1,3}}|(?:[A-Za-z0-9-]+\.)+(?!(?:{ext}):)[A-Za-z]{{2,}}):\d{{2,5}}\b"
            ),
        ),
        (
            IdKind::Path,
            r"(?<![\w/.:-])(?:~|\.{1,2})?(?:/[\w.+@-]+){2,}/?|\b[\w.+@-]+(?:/[\w.+@-]+)+\.[A-Za-z][A-Za-z0-9]{0,5}\b"
                .to_owned(),
        ),
        (IdKind::ErrorName, r"\b[A-Z][A-Za-z0-9]*(?:Error|Exception|Warning)\b".to_owned()),
        (
            IdKind::Ticket,
            r"\b(?!(?:UTF|SHA|ISO|MD|TLS|SSL|HTTP)-)[A-Z][A-Z0-9]{1,9}-\d{1,6}\b|(?<![\w&#])#\d{3,7}\b".to_owned(),
        ),
        (
            IdKind::Hex,
            r"\b0x[0-9a-fA-F]{6,}\b|\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,64}\b".to_owned(),
        ),
        (
            IdKind::Code,
            r"\b(?!\d+T\d+\b)(?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{5,12}\b|\b[a-z]+(?:_[a-z]+)+_\d{2,}\b".to_owned(),
        ),
    ];
    patterns
        .into_iter()
        .map(|(k, p)| (k, Regex::new(&p).unwrap_or_else(|e| panic!("{p}: {e}"))))
        .collect()
}

/// `convert.py`'s `find_identifiers`: each kind in turn, each match masked with spaces.
fn baseline_find(patterns: &[(IdKind, Regex)], text: &str) -> Vec<(IdKind, String)> {
    let mut text = text.to_owned();
    let mut out = Vec::new();
    for (kind, re) in patterns {
        let mut masked = String::with_capacity(text.len());
        let mut last = 0;
        for m in re.find_iter(&text) {
            let m = m.unwrap();
            out.push((
                *kind,
                m.as_str().trim_end_matches(['.', ',', ';', ':']).to_owned(),
            ));
            masked.push_str(&text[last..m.start()]);
            masked.push_str(&" ".repeat(m.end() - m.start()));
            last = m.end();
        }
        masked.push_str(&text[last..]);
        text = masked;
    }
    out
}

fn kind_named(name: &str) -> IdKind {
    *IdKind::ALL.iter().find(|k| k.name() == name).unwrap()
}

/// identifiers.json: conversation -> set of (kind, identifier).
fn baseline_file() -> BTreeMap<String, BTreeSet<(IdKind, String)>> {
    let path = common::corpus_dir().join("identifiers.json");
    let json: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    json.as_object()
        .unwrap()
        .iter()
        .map(|(conv, kinds)| {
            let set = kinds
                .as_object()
                .unwrap()
                .iter()
                .flat_map(|(k, ids)| {
                    ids.as_object()
                        .unwrap()
                        .keys()
                        .map(move |id| (kind_named(k), id.clone()))
                })
                .collect();
            (conv.clone(), set)
        })
        .collect()
}

fn short(s: &str) -> String {
    if s.chars().count() > 90 {
        format!("{}...", s.chars().take(90).collect::<String>())
    } else {
        s.to_owned()
    }
}

#[derive(Default)]
struct Tally {
    baseline: usize,
    same_kind: usize,
    any_kind: usize,
}

impl Tally {
    fn add(&mut self, other: &Tally) {
        self.baseline += other.baseline;
        self.same_kind += other.same_kind;
        self.any_kind += other.any_kind;
    }
    fn recall(&self, n: usize) -> f64 {
        if self.baseline == 0 {
            1.0
        } else {
            n as f64 / self.baseline as f64
        }
    }
}

#[test]
fn agrees_with_the_baseline_census() {
    let patterns = baseline_patterns();
    let file = baseline_file();
    let convs = common::conversations();

    let mut total = Tally::default();
    let mut per_kind: BTreeMap<IdKind, Tally> = BTreeMap::new();
    let mut misses = Vec::new();
    let mut extras: BTreeMap<IdKind, BTreeSet<String>> = BTreeMap::new();
    let mut oracle_mismatch = 0;
    let mut differing_messages = 0;
    let mut messages = 0;
    let mut diffs = Vec::new();

    println!(
        "{:<62} {:>5} {:>6} {:>6} {:>6}",
        "conversation", "ids", "same", "any", "extra"
    );
    for conv in &convs {
        let mut mine: BTreeSet<(IdKind, String)> = BTreeSet::new();
        let mut oracle: BTreeSet<(IdKind, String)> = BTreeSet::new();
        for (i, m) in conv.json["messages"].as_array().unwrap().iter().enumerate() {
            let text = message_text(m);
            let found: Vec<(IdKind, String)> = extract(&text)
                .into_iter()
                .map(|Identifier { kind, text }| (kind, text))
                .collect();
            let expected = baseline_find(&patterns, &text);
            // Per message, as multisets of the baseline kinds.
            let mut a: Vec<_> = found
                .iter()
                .filter(|(k, _)| BASELINE_KINDS.contains(k))
                .cloned()
                .collect();
            let mut b = expected.clone();
            a.sort();
            b.sort();
            messages += 1;
            if a != b {
                differing_messages += 1;
                let only_mine: Vec<_> = a.iter().filter(|x| !b.contains(x)).collect();
                let only_regex: Vec<_> = b.iter().filter(|x| !a.contains(x)).collect();
                if diffs.len() < 40 {
                    diffs.push(format!(
                        "  {} #{i}: extract only {:?}; regex only {:?}",
                        conv.id, only_mine, only_regex
                    ));
                }
            }
            mine.extend(found);
            oracle.extend(expected);
        }
        let base = &file[&conv.id];
        if &oracle != base {
            oracle_mismatch += 1;
            println!(
                "  oracle differs from identifiers.json on {}: {:?} / {:?}",
                conv.id,
                oracle.difference(base).take(5).collect::<Vec<_>>(),
                base.difference(&oracle).take(5).collect::<Vec<_>>()
            );
        }
        let texts: BTreeSet<&str> = mine.iter().map(|(_, t)| t.as_str()).collect();
        let mut t = Tally::default();
        for (kind, id) in base {
            let k = per_kind.entry(*kind).or_default();
            t.baseline += 1;
            k.baseline += 1;
            if mine.contains(&(*kind, id.clone())) {
                t.same_kind += 1;
                k.same_kind += 1;
            }
            if texts.contains(id.as_str()) {
                t.any_kind += 1;
                k.any_kind += 1;
            } else {
                misses.push(format!("  {} {}: {}", conv.id, kind.name(), short(id)));
            }
        }
        let extra: Vec<_> = mine
            .iter()
            .filter(|x| BASELINE_KINDS.contains(&x.0) && !base.contains(*x))
            .collect();
        for (k, id) in &extra {
            extras
                .entry(*k)
                .or_default()
                .insert(format!("{}: {}", conv.id, short(id)));
        }
        println!(
            "{:<62} {:>5} {:>6} {:>6} {:>6}",
            conv.id,
            t.baseline,
            t.same_kind,
            t.any_kind,
            extra.len()
        );
        total.add(&t);
    }

    println!("\nrecall per kind (unique identifiers per conversation, summed):");
    for (kind, t) in &per_kind {
        println!(
            "  {:<11} {:>5} baseline  same kind {:.4}  any kind {:.4}",
            kind.name(),
            t.baseline,
            t.recall(t.same_kind),
            t.recall(t.any_kind)
        );
    }
    println!(
        "  {:<11} {:>5} baseline  same kind {:.4}  any kind {:.4}",
        "total",
        total.baseline,
        total.recall(total.same_kind),
        total.recall(total.any_kind)
    );
    println!("\nmisses ({}):", misses.len());
    misses.iter().for_each(|m| println!("{m}"));
    println!("\nfound by extract, not in the baseline:");
    for (kind, set) in &extras {
        println!("  {} ({}):", kind.name(), set.len());
        set.iter().take(15).for_each(|x| println!("    {x}"));
    }
    println!("\nmessages where extract and the baseline regexes differ: {differing_messages} of {messages}");
    diffs.iter().for_each(|d| println!("{d}"));

    assert_eq!(
        oracle_mismatch, 0,
        "the fancy-regex oracle must reproduce identifiers.json"
    );
    let recall = total.recall(total.same_kind);
    assert!(recall >= 0.97, "recall {recall:.4} < 0.97");
}

#[test]
fn extra_kinds_on_the_corpus() {
    let convs = common::conversations();
    let mut occurrences: BTreeMap<IdKind, usize> = BTreeMap::new();
    let mut unique: BTreeMap<IdKind, BTreeMap<String, usize>> = BTreeMap::new();
    let mut from_calls = 0;
    let mut calls = 0;
    let mut call_commands: BTreeSet<(String, String)> = BTreeSet::new();
    for conv in &convs {
        for m in conv.json["messages"].as_array().unwrap() {
            for id in extract(&message_text(m)) {
                if !BASELINE_KINDS.contains(&id.kind) {
                    *occurrences.entry(id.kind).or_default() += 1;
                    *unique.entry(id.kind).or_default().entry(id.text).or_default() += 1;
                }
            }
            for call in m["tool_calls"].as_array().into_iter().flatten() {
                calls += 1;
                let name = call["function"]["name"].as_str().unwrap();
                let args = call["function"]["arguments"].as_str().unwrap();
                for id in commands_from_call(name, args) {
                    from_calls += 1;
                    call_commands.insert((conv.id.clone(), id.text));
                }
            }
        }
    }
    println!("extra kinds found by extract in message text:");
    for (kind, n) in &occurrences {
        let u = &unique[kind];
        let mut top: Vec<_> = u.iter().collect();
        top.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        println!(
            "  {} : {} occurrences, {} unique; most frequent:",
            kind.name(),
            n,
            u.len()
        );
        top.iter()
            .take(25)
            .for_each(|(t, n)| println!("    {n:>4}  {}", short(t)));
    }
    println!(
        "commands_from_call: {from_calls} commands from {calls} tool calls ({} unique per conversation)",
        call_commands.len()
    );
    call_commands
        .iter()
        .take(10)
        .for_each(|(c, t)| println!("    {c}: {}", short(t)));
    // Every bash call of the agent transcripts carries a command.
    assert!(from_calls >= 1_300, "{from_calls}");
}

#[test]
fn scans_the_corpus_quickly() {
    let convs = common::conversations();
    let texts: Vec<String> = convs
        .iter()
        .flat_map(|c| c.json["messages"].as_array().unwrap().iter().map(message_text))
        .collect();
    let bytes: usize = texts.iter().map(String::len).sum();
    let start = Instant::now();
    let mut found = 0;
    for t in &texts {
        found += extract(t).len();
    }
    let elapsed = start.elapsed();
    println!(
        "extract over {} messages, {:.2} MB: {} identifiers in {:?} ({:.0} MB/s; other tests may share the cores)",
        texts.len(),
        bytes as f64 / 1e6,
        found,
        elapsed,
        bytes as f64 / 1e6 / elapsed.as_secs_f64()
    );
    assert!(found > 0);
}
