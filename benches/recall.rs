//! Recall's search (`ctxfold::recall`) on the test corpus, against a plain scan of the
//! messages (each message scored by how many of the question's words it holds, ties newest
//! first: what one would write without an index).
//!
//! On the longest conversation: the median and 95th-percentile time of one search over its
//! probes' questions (index vs scan); the cost of a turn's `prepare` (one message appended:
//! load, append, count, plan, write) with the cached history's index extended vs without it
//! (target: at most 2x), and of the part the index adds to (parsing the message), and the
//! first search of a session, which indexes the whole history; the index's heap bytes vs the
//! history's JSON (target: at most 0.5). Then, on every conversation with probes: whether one
//! search (limit 5) with the probe's question returns one of its evidence messages, per
//! source, index vs scan.
//!
//! Run: `cargo bench --bench recall`, or unoptimised-but-quick `cargo test --bench recall`.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use ctxfold::compact::Summarizer;
use ctxfold::messages::Conversation;
use ctxfold::recall::{message_text, snippet, tokens, Index};
use ctxfold::session::memory::{run, MemoryStore};
use ctxfold::session::{Around, Done, Sessions};
use serde_json::{json, Value};

const APPEND_RATIO: f64 = 2.0;
const MEMORY_RATIO: f64 = 0.5;
const LIMIT: usize = 5;

struct Corpus {
    source: String,
    name: String,
    messages: Vec<Value>,
    probes: Vec<(String, Vec<u32>)>,
}

fn corpus() -> Vec<Corpus> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus/conversations");
    let mut out = Vec::new();
    for source in std::fs::read_dir(dir).expect("tests/corpus/conversations") {
        let source = source.unwrap().path();
        if !source.is_dir() {
            continue;
        }
        for file in std::fs::read_dir(&source).unwrap() {
            let path = file.unwrap().path();
            if path.extension().is_none_or(|e| e != "json") {
                continue;
            }
            let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            let probes = v["probes"].as_array().cloned().unwrap_or_default();
            out.push(Corpus {
                source: source.file_name().unwrap().to_string_lossy().into(),
                name: path.file_stem().unwrap().to_string_lossy().into(),
                messages: v["messages"].as_array().cloned().unwrap_or_default(),
                probes: probes
                    .iter()
                    .map(|p| {
                        let ev = p["evidence_message_indexes"]
                            .as_array()
                            .cloned()
                            .unwrap_or_default();
                        let ev = ev.iter().filter_map(Value::as_u64).map(|i| i as u32).collect();
                        (p["question"].as_str().unwrap_or_default().to_owned(), ev)
                    })
                    .collect(),
            });
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// The alternative: every message's text lowercased, scored by the question's words it holds.
fn scan(texts: &[String], query: &str, limit: usize) -> Vec<u32> {
    let mut words: Vec<String> = Vec::new();
    tokens::each(query, |t, _, _| {
        if !words.iter().any(|w| w == t) {
            words.push(t.to_owned());
        }
    });
    let mut scored: Vec<(usize, u32)> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let lower = t.to_lowercase();
            (
                words.iter().filter(|w| lower.contains(w.as_str())).count(),
                i as u32,
            )
        })
        .filter(|&(n, _)| n > 0)
        .collect();
    scored.sort_unstable_by(|a, b| b.cmp(a));
    scored.into_iter().take(limit).map(|(_, i)| i).collect()
}

fn percentile(mut xs: Vec<Duration>, p: f64) -> Duration {
    xs.sort_unstable();
    xs[((xs.len() - 1) as f64 * p).round() as usize]
}

/// Appends `messages` one at a time to a parsed history (and the index, with `index`), as
/// the cached history does (`Conversation::append`, then `Index::push_message`): the best of
/// `rounds` runs, per message.
fn append_cost(messages: &[Value], index: bool, rounds: usize) -> Duration {
    let mut best = Duration::MAX;
    for _ in 0..rounds {
        let start = Instant::now();
        let mut conv = Conversation::from_json(Value::Array(messages[..1].to_vec()), None).unwrap();
        let mut idx = index.then(|| Index::of(conv.messages()));
        for m in &messages[1..] {
            assert!(conv.append(vec![m.clone()]).unwrap(), "the format stays");
            if let Some(idx) = &mut idx {
                idx.push_message(conv.messages().last().unwrap());
            }
        }
        std::hint::black_box((&conv, &idx));
        best = best.min(start.elapsed());
    }
    best / messages.len() as u32
}

/// A turn's cost through the real path: `messages` given one `prepare` each to a `Sessions`
/// over a memory store (load, append to the cached history, count, plan, write). With
/// `searched`, a search has made the cached history's index first, so every turn extends it;
/// without, no search asked for it and no turn touches it. The best of `rounds` runs, per turn.
fn turn_cost(messages: &[Value], searched: bool, rounds: usize) -> Duration {
    let prepare = |sessions: &mut Sessions, store: &mut MemoryStore, new: Vec<Value>| {
        let done = run(
            sessions,
            |s| s.prepare("c", new, Around::default(), None),
            store,
            Summarizer::Extractive,
        );
        assert!(matches!(done, Ok(Done::Prepared(_))), "{done:?}");
    };
    let mut best = Duration::MAX;
    for _ in 0..rounds {
        let options = ctxfold::options::from_value("options", &json!({ "model": "gpt-4o" })).unwrap();
        let mut sessions = Sessions::new(options, 5, 1).unwrap();
        let mut store = MemoryStore::default();
        prepare(&mut sessions, &mut store, messages[..1].to_vec());
        if searched {
            let done = run(
                &mut sessions,
                |s| s.search("c", "x", 1),
                &mut store,
                Summarizer::Extractive,
            );
            assert!(done.is_ok(), "{done:?}");
        }
        let start = Instant::now();
        for m in &messages[1..] {
            prepare(&mut sessions, &mut store, vec![m.clone()]);
        }
        best = best.min(start.elapsed());
    }
    best / (messages.len() - 1) as u32
}

fn longest(all: &[Corpus]) {
    let c = all
        .iter()
        .max_by_key(|c| c.messages.len())
        .expect("a conversation");
    let conv = Conversation::from_json(Value::Array(c.messages.clone()), None).unwrap();
    let texts: Vec<String> = conv.messages().iter().map(message_text).collect();
    let index = Index::of(conv.messages());
    println!(
        "{} ({} messages, {} probes)",
        c.name,
        c.messages.len(),
        c.probes.len()
    );

    let (mut ours, mut scans, mut with_snippets) = (Vec::new(), Vec::new(), Vec::new());
    for (q, _) in &c.probes {
        let t = Instant::now();
        std::hint::black_box(index.search(q, LIMIT, |i| texts[i as usize].clone()));
        ours.push(t.elapsed());
        let t = Instant::now();
        let hits = index.search(q, LIMIT, |i| texts[i as usize].clone());
        for h in &hits {
            std::hint::black_box(snippet(&index, &texts[h.index as usize], q, 200));
        }
        with_snippets.push(t.elapsed());
        let t = Instant::now();
        std::hint::black_box(scan(&texts, q, LIMIT));
        scans.push(t.elapsed());
    }
    let (m_ours, m_scan) = (percentile(ours.clone(), 0.5), percentile(scans.clone(), 0.5));
    println!(
        "search, median (p95): index {:?} ({:?}), with 5 snippets {:?}; scan {:?} ({:?}); scan/index {:.1}x",
        m_ours,
        percentile(ours, 0.95),
        percentile(with_snippets, 0.5),
        m_scan,
        percentile(scans, 0.95),
        m_scan.as_secs_f64() / m_ours.as_secs_f64()
    );

    let rounds = if cfg!(debug_assertions) { 2 } else { 7 };
    let verdict = |ok: bool| if ok { "PASS" } else { "FAIL" };
    let without = turn_cost(&c.messages, false, rounds.min(3));
    let with = turn_cost(&c.messages, true, rounds.min(3));
    let ratio = with.as_secs_f64() / without.as_secs_f64();
    println!(
        "a turn's prepare (one message appended): with the index {with:?}, without {without:?}: {ratio:.2}x (target <= {APPEND_RATIO}x) {}",
        verdict(ratio <= APPEND_RATIO)
    );
    let without = append_cost(&c.messages, false, rounds);
    let with = append_cost(&c.messages, true, rounds);
    println!(
        "  of which parsing the message: with the index {with:?}, without {without:?}: {:.2}x (the index's own cost: {:?} a message)",
        with.as_secs_f64() / without.as_secs_f64(),
        with.saturating_sub(without)
    );
    let t = Instant::now();
    std::hint::black_box(Index::of(conv.messages()));
    let build = t.elapsed();
    let t = Instant::now();
    std::hint::black_box(index.search(&c.probes[0].0, LIMIT, |i| texts[i as usize].clone()));
    println!(
        "first search of a session (indexes the {} messages, then searches): {:?}",
        texts.len(),
        build + t.elapsed()
    );
    let t = Instant::now();
    for text in &texts {
        std::hint::black_box(ctxfold::ids::extract(text));
    }
    println!(
        "  (the identifier census, which the index no longer runs: {:?} a message)",
        t.elapsed() / texts.len() as u32
    );
    let json = serde_json::to_string(&c.messages).unwrap().len();
    let bytes = index.heap_bytes();
    let share = bytes as f64 / json as f64;
    println!(
        "index memory (every array by its capacity): {bytes} bytes vs history JSON {json} bytes: {share:.2} (target <= {MEMORY_RATIO}) {}; {} terms",
        verdict(share <= MEMORY_RATIO),
        index.terms()
    );
}

fn retrieval(all: &[Corpus]) {
    // source -> (probes, found by the index, found by the scan)
    let mut by: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new();
    for c in all.iter().filter(|c| !c.probes.is_empty()) {
        let Ok(conv) = Conversation::from_json(Value::Array(c.messages.clone()), None) else {
            println!("{}: does not parse, skipped", c.name);
            continue;
        };
        let texts: Vec<String> = conv.messages().iter().map(message_text).collect();
        let index = Index::of(conv.messages());
        let row = by.entry(&c.source).or_default();
        for (q, evidence) in &c.probes {
            row.0 += 1;
            row.1 += index
                .search(q, LIMIT, |i| texts[i as usize].clone())
                .iter()
                .any(|h| evidence.contains(&h.index)) as usize;
            row.2 += scan(&texts, q, LIMIT).iter().any(|i| evidence.contains(i)) as usize;
        }
    }
    println!("evidence in one search's {LIMIT} hits, per source: index vs scan");
    for (source, (n, ours, theirs)) in by {
        let pct = |k: usize| 100.0 * k as f64 / n as f64;
        println!(
            "  {source:<30} {n:>5} probes  index {:5.1} %  scan {:5.1} %",
            pct(ours),
            pct(theirs)
        );
    }
}

fn main() {
    let all = corpus();

    longest(&all);
    retrieval(&all);
}
