//! plan() with the count cache, against counting from scratch, natively.
//!
//! On the largest corpus conversation: counting all its messages with every cache empty,
//! then plan() (the whole compaction decision: counts, structure, tail, pruning) on the
//! same conversation with one more message, caches warm. Prints both and the ratio; the
//! target is at most 1/20. Run: `cargo bench --bench plan_cache`.

use std::time::Instant;

use ctxfold::compact::{Budget, Compaction, Input};
use ctxfold::config::Config;
use ctxfold::count::{count_each, Memo};
use ctxfold::messages::Conversation;
use ctxfold::tokenizer::{tokenizer, Encoding};
use serde_json::{json, Value};

/// Every corpus conversation file (`tests/corpus/conversations/<source>/<id>.json`).
fn corpus_files() -> Vec<std::path::PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/conversations");
    std::fs::read_dir(dir)
        .unwrap()
        .flat_map(|source| std::fs::read_dir(source.unwrap().path()).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    // The largest conversation, by bytes.
    let (name, messages) = corpus_files()
        .into_iter()
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .max_by_key(|(_, b)| b.len())
        .map(|(n, b)| {
            (
                n,
                serde_json::from_slice::<Value>(&b).unwrap()["messages"].clone(),
            )
        })
        .unwrap();
    let counter = tokenizer(Encoding::O200kBase).unwrap();
    let config = std::rc::Rc::new(Config::from_json(&json!({})).unwrap());
    let base = Conversation::parse(&messages, None).unwrap();
    let bytes: usize = messages.to_string().len();

    let rounds = 15;
    let mut scratch = Vec::new();
    let mut planned = Vec::new();
    for r in 0..rounds {
        ctxfold::clear_caches();
        let t = Instant::now();
        let counts = count_each(base.messages(), counter);
        scratch.push(t.elapsed().as_secs_f64() * 1e3);
        assert!(counts.iter().sum::<usize>() > 0);

        // One more message, new each round; parsed before timing (plan's input).
        let mut more = messages.as_array().unwrap().clone();
        more.push(
            json!({"role": "user", "content": format!("And now round {r}: what failed in the last run?")}),
        );
        let conv = std::rc::Rc::new(Conversation::parse(&Value::Array(more), None).unwrap());
        count_each(base.messages(), counter); // warm, as after the previous turn
        let t = Instant::now();
        let counts = Memo::default().counts(&conv, counter).0;
        let c = Compaction::new(Input {
            conv,
            counts,
            config: config.clone(),
            counter: counter.into(),
            budget: Budget::new(128_000, 8_000, &config),
            state: None,
            manual: false,
            ahead: false,
            now: None,
        })
        .unwrap();
        planned.push(t.elapsed().as_secs_f64() * 1e3);
        assert!(c.plan().tokens.total > 0);
    }
    let (s, p) = (median(scratch), median(planned));
    println!("{name}: {} messages, {} bytes", base.messages().len(), bytes);
    println!("count from scratch (caches empty): {s:.3} ms   plan() with one more message: {p:.3} ms   ratio 1/{:.1}", s / p);
    println!(
        "{}  plan() <= 1/20 of counting from scratch (native)",
        if p * 20.0 <= s { "PASS" } else { "FAIL" }
    );
}
