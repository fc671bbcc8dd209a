//! wasm32 tests in headless Chromium: wasm-bindgen-test-runner serves the page and
//! `tests/support/wasm-browser-runner.mjs` drives Debian's Chromium to it with playwright-core:
//!
//! ```sh
//! CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER="node tests/support/wasm-browser-runner.mjs" \
//!   cargo test --target wasm32-unknown-unknown --test wasm_browser
//! ```
//!
//! The tests are in `wasm_shared/`; natively this file compiles to nothing.
#![cfg(target_arch = "wasm32")]

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod wasm_shared;
