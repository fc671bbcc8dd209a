//! ctxfold keeps LLM conversations inside the model's context window.
//!
//! This crate is the core: pure Rust, tested natively. [`tokenizer`] counts tokens exactly
//! for OpenAI's encodings. The JavaScript face (`src/wasm/`) is compiled only for
//! `wasm32` and is the only code that knows about JavaScript.

pub mod compact;
pub mod config;
pub mod count;
pub mod error;
pub mod estimate;
pub mod ids;
pub mod messages;
pub mod models;
pub mod providers;
pub mod tokenizer;

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
