//! Shared helpers for the integration tests: reading the conversation corpus in `tests/corpus/`.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The corpus directory, `tests/corpus/` (the one holding `conversations/` and
/// `identifiers.json`).
pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

/// Every conversation file (`conversations/<source>/<id>.json`), sorted by file name.
pub fn conversation_files() -> Vec<PathBuf> {
    let dir = corpus_dir().join("conversations");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .flat_map(|source| std::fs::read_dir(source).unwrap().map(|e| e.unwrap().path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort_by(|a, b| a.file_name().cmp(&b.file_name()));
    files
}

/// One corpus conversation: its id and its parsed JSON.
pub struct Conversation {
    pub id: String,
    pub json: serde_json::Value,
}

/// Every conversation, sorted by id.
pub fn conversations() -> Vec<Conversation> {
    let mut out: Vec<Conversation> = conversation_files()
        .into_iter()
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
