//! Start-up, panics and restarts of the module.
//!
//! A panic in Rust compiled to wasm with `panic = "abort"` traps: the instance is left
//! mid-call, with whatever it held (a `RefCell` borrowed, a cache half-written), and every
//! later call could fail. Two halves handle it. Here: at start-up a panic hook prints the
//! panic's message and stack on the console (`console_error_panic_hook`), so a panic is
//! never silent. In the package's JavaScript (`pkg-template/lib/guard.js`): a call that
//! ends in a `WebAssembly.RuntimeError` (a panic, or a trap no hook sees: out of memory or
//! stack) makes a fresh instance at once (`__wbg_reset_state`) and throws a typed
//! `INTERNAL` error; the next call runs on the fresh instance. (Not wasm-bindgen's
//! `schedule_reinit`: it makes the fresh instance inside the next call, after that call
//! checked its object is current, so an object of the old instance could reach the new one.)
//! What a fresh instance would lack, it gets back here:
//! [`start`] runs again and reinstalls the vocabularies loaded and the models registered
//! before (JS keeps them), and tells the transfer layer to trust no message it sent before.

use wasm_bindgen::prelude::*;

use crate::{models, tokenizer};

#[wasm_bindgen(module = "/src/wasm/js/lifecycle.js")]
extern "C" {
    /// Keeps `payload` to install again after a restart.
    pub fn keep(kind: &str, key: &str, payload: &JsValue);
    #[wasm_bindgen(js_name = keptItems)]
    fn kept_items() -> js_sys::Array;
}

/// Runs when the module is instantiated, the first time and after every restart.
#[wasm_bindgen(start)]
pub fn start() {
    std::panic::set_hook(Box::new(console_error_panic_hook::hook));
    super::transfer::forget_all();
    for item in kept_items().iter() {
        let item: js_sys::Array = item.unchecked_into();
        let payload = item.get(1);
        match item.get(0).as_string().as_deref() {
            Some("vocabulary") => {
                let bytes: js_sys::Uint8Array = payload.unchecked_into();
                // It was checked when it was first loaded.
                let _ = tokenizer::load(bytes.to_vec());
            }
            Some("model") => {
                if let Some(info) = payload
                    .as_string()
                    .and_then(|json| serde_json::from_str::<models::ModelInfo>(&json).ok())
                {
                    let _ = models::register(info);
                }
            }
            _ => {}
        }
    }
}

/// Panics while holding the transfer layer's store, as a bug in the middle of a call
/// would: for the tests of what happens after a trap (never called by ctxfold itself; not
/// exported by the package's entry points). Without a restart, every later call that reads
/// messages would fail.
#[wasm_bindgen(js_name = __ctxfoldTestPanic, skip_typescript)]
pub fn test_panic(message: String) {
    super::transfer::while_holding_the_store(|| panic!("{message}"));
}

/// The typed `INTERNAL` error, worded here (used by the package's JavaScript after a trap,
/// on the fresh instance).
#[wasm_bindgen(js_name = __ctxfoldInternalError, skip_typescript)]
pub fn internal_error(reason: String) -> JsValue {
    super::error::to_js(crate::Error::Internal { reason })
}
