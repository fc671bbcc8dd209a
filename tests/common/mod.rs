//! Shared helpers for the integration tests: finding and reading `../shared/corpus`.
#![allow(dead_code)]

use std::path::PathBuf;

/// The corpus directory: `$CTXFOLD_CORPUS`, or `../shared/corpus` next to the repository.
/// Panics with instructions when it is missing: these tests must not pass vacuously.
pub fn corpus_dir() -> PathBuf {
    let candidates = [
        std::env::var_os("CTXFOLD_CORPUS").map(PathBuf::from),
        Some(PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../shared/corpus"
        ))),
        Some(PathBuf::from("/work/shared/corpus")),
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|p| p.join("conversations").is_dir())
        .expect("the conversation corpus was not found: set CTXFOLD_CORPUS to the directory holding conversations/")
}

/// One corpus conversation: its id and its parsed JSON.
pub struct Conversation {
    pub id: String,
    pub json: serde_json::Value,
}

/// Every conversation, sorted by id.
pub fn conversations() -> Vec<Conversation> {
    let dir = corpus_dir().join("conversations");
    let mut out: Vec<Conversation> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
            Conversation {
                id: json["id"].as_str().unwrap().to_owned(),
                json,
            }
        })
        .collect();
    out.sort_by(|a, b| a.id.cmp(&b.id));
    assert!(
        out.len() >= 30,
        "expected the full corpus, found {} conversations",
        out.len()
    );
    out
}

/// Every string a message carries that a provider tokenizes: content, tool names, arguments.
pub fn message_texts(conv: &Conversation) -> Vec<String> {
    let mut out = Vec::new();
    for m in conv.json["messages"].as_array().unwrap() {
        if let Some(c) = m["content"].as_str() {
            out.push(c.to_owned());
        }
        for call in m["tool_calls"].as_array().into_iter().flatten() {
            out.push(call["function"]["name"].as_str().unwrap().to_owned());
            out.push(call["function"]["arguments"].as_str().unwrap().to_owned());
        }
    }
    out
}

/// `convert.py`'s `message_text`: a message's content, then each call's name and
/// arguments, joined by newlines (the text the baseline census scanned).
pub fn message_text(m: &serde_json::Value) -> String {
    let mut parts = vec![m["content"].as_str().unwrap_or("").to_owned()];
    for call in m["tool_calls"].as_array().into_iter().flatten() {
        parts.push(call["function"]["name"].as_str().unwrap().to_owned());
        parts.push(call["function"]["arguments"].as_str().unwrap().to_owned());
    }
    parts.join("\n")
}
pub mod compact;
