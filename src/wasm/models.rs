//! `getModel` and `registerModel`: the model registry from JavaScript.

use wasm_bindgen::prelude::*;

use super::error::to_js;
use super::options;
use crate::models::{self, ModelInfo};

/// What the registry knows about a model id: window, output cap, tokenizer, and how it
/// matched. Unknown models get the defaults (200,000 tokens, generic estimate) and `known: false`.
///
/// ```ts
/// getModel("claude-sonnet-4-5-20250929").contextWindow; // 200000
/// ```
#[wasm_bindgen(js_name = getModel, unchecked_return_type = "ModelInfoResolved")]
pub fn get_model(#[wasm_bindgen(unchecked_param_type = "string")] id: JsValue) -> Result<JsValue, JsValue> {
    let id = id
        .as_string()
        .ok_or_else(|| super::error::invalid_argument("id", "a model id string", &id))?;
    super::to_plain(&models::resolve(&id))
}

/// Registers a model, or overrides a built-in one (for this process or page). What a
/// registration of a built-in model's id leaves out is that model's: its tokenizer, its
/// provider, its limits where they fit the new window (`{ id: "gpt-4o", contextWindow: 64000 }`
/// keeps the exact count). The registered id also matches the ids it is a prefix of, except
/// the built-in models' own (registering `gpt-4o` leaves `gpt-4o-mini` as it was). Returns
/// the registration it replaced (`null` when there was none: a built-in model is none).
///
/// ```ts
/// registerModel({ id: "my-finetune", contextWindow: 32768, tokenizer: { kind: "exact", encoding: "o200k_base" } });
/// ```
#[wasm_bindgen(js_name = registerModel, unchecked_return_type = "ModelInfo | null")]
pub fn register_model(
    #[wasm_bindgen(unchecked_param_type = "ModelInfo")] info: JsValue,
) -> Result<JsValue, JsValue> {
    let mut model: ModelInfo = options::read("info", &info, &[], false)?.value;
    let given = |field: &str| js_sys::Reflect::get(&info, &field.into()).is_ok_and(|v| !v.is_undefined());
    models::inherit(&mut model, &given);
    let info = model;
    let text = serde_json::to_string(&info).unwrap_or_default();
    let id = info.id.clone();
    let old = models::register(info).map_err(to_js)?;
    // A restarted module registers it again (see lifecycle).
    super::lifecycle::keep("model", &id, &JsValue::from_str(&text));
    match old {
        Some(old) => super::to_plain(&old),
        None => Ok(JsValue::NULL),
    }
}
