//! wasm32 tests in headless Chromium, driven by chromedriver with the flags in
//! `webdriver.json`:
//!
//! ```sh
//! CHROMEDRIVER=/usr/bin/chromedriver \
//! CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
//!   cargo test --target wasm32-unknown-unknown --test wasm_browser
//! ```
//!
//! The tests are in `wasm_shared/`; natively this file compiles to nothing.
#![cfg(target_arch = "wasm32")]

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod wasm_shared;
