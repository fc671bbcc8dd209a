//! ctxfold keeps LLM conversations inside the model's context window.
//!
//! This crate is the core: pure Rust, tested natively. [`tokenizer`] counts tokens exactly
//! for OpenAI's encodings, [`count`] counts conversations ([`messages`] reads their four
//! formats), [`compact`] fits them into a window, [`session`] keeps conversations in a store
//! (the `Compactor`: history, summaries, records, one write per call), [`options`] declares
//! what callers pass, and `typescript` generates the TypeScript of every shape that crosses
//! into JavaScript.
//! The JavaScript face (`src/wasm/`) is compiled only for `wasm32` and is the only code that
//! knows about JavaScript. `ARCHITECTURE.md` shows the layers and how a call flows.

pub mod compact;
pub mod config;
pub mod count;
pub mod error;
pub mod estimate;
pub mod ids;
pub mod indexeddb;
pub mod messages;
pub mod models;
pub mod options;
pub mod providers;
pub mod recall;
pub mod refusal;
pub mod session;
pub mod tokenizer;
#[cfg(not(target_arch = "wasm32"))]
pub mod typescript;

#[cfg(target_arch = "wasm32")]
mod wasm;

pub use error::Error;

/// Forgets every cache: message counts and the tokenizers' piece counts (to free their
/// memory, or to measure counting from scratch).
pub fn clear_caches() {
    count::clear_cache();
    tokenizer::clear_caches();
}
pub use tokenizer::{Encoding, Tokenizer};
