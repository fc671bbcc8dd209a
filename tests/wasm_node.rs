//! wasm32 tests in Node (the wasm-bindgen-test runner's default):
//!
//! ```sh
//! CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
//!   cargo test --target wasm32-unknown-unknown --test wasm_node
//! ```
//!
//! The tests are in `wasm_shared/`; natively this file compiles to nothing.
#![cfg(target_arch = "wasm32")]

mod wasm_shared;
