//! `getModel` and `registerModel`: the model registry from JavaScript.

use wasm_bindgen::prelude::*;

use super::error::to_js;
use super::options::json_arg;
use crate::models::{self, ModelInfo};
use crate::Error;

#[wasm_bindgen(typescript_custom_section)]
const TS_MODELS: &str = r#"
/** How a model's tokens are counted. */
export type ModelTokenizer =
  | { kind: "exact"; encoding: Encoding }
  | { kind: "estimate"; family: "claude" | "gemini" | "llama" | "mistral" | "mistralSpm" | "generic" };

/** A model to register (or override). */
export interface ModelInfo {
  /** The id; it also matches ids it is a prefix of (`"my-model"` matches `"my-model-2025"`). */
  id: string;
  /** Who serves it. */
  provider?: "openai" | "anthropic" | "google" | "meta" | "mistral" | "unknown";
  /** Input plus output tokens. */
  contextWindow: number;
  /** The most output tokens per response. */
  maxOutputTokens?: number | null;
  /** A cap on input below `contextWindow - maxOutputTokens`. */
  maxInputTokens?: number | null;
  /** How to count its tokens. Default: the generic estimate. */
  tokenizer?: ModelTokenizer;
}

/** A model as the registry resolved an id. */
export interface ModelInfoResolved {
  /** The id as asked. */
  requested: string;
  /** The canonical id matched (for unknown models, the asked id, normalized). */
  id: string;
  /** Who serves it. */
  provider: "openai" | "anthropic" | "google" | "meta" | "mistral" | "unknown";
  /** Input plus output tokens. */
  contextWindow: number;
  /** The most output tokens per response, where published. */
  maxOutputTokens: number | null;
  /** A separate input cap, where there is one. */
  maxInputTokens: number | null;
  /** How its tokens are counted. */
  tokenizer: ModelTokenizer;
  /** `override` (registered), `exact`, `prefix` (family), or `default` (unknown model). */
  matchedBy: "override" | "exact" | "prefix" | "default";
  /** `false` when nothing matched and the defaults (200k window, generic estimate) apply. */
  known: boolean;
}
"#;

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

/// Registers a model, or overrides a built-in one (for this process or page). Returns
/// the registration it replaced, if any.
///
/// ```ts
/// registerModel({ id: "my-finetune", contextWindow: 32768, tokenizer: { kind: "exact", encoding: "o200k_base" } });
/// ```
#[wasm_bindgen(js_name = registerModel, unchecked_return_type = "ModelInfo | null")]
pub fn register_model(
    #[wasm_bindgen(unchecked_param_type = "ModelInfo")] info: JsValue,
) -> Result<JsValue, JsValue> {
    let json = json_arg("info", &info)?;
    let text = json.to_string();
    let info: ModelInfo = serde_json::from_value(json).map_err(|e| {
        to_js(Error::InvalidArgument {
            argument: "info".into(),
            expected: format!("a model description ({e})"),
        })
    })?;
    let id = info.id.clone();
    let old = models::register(info).map_err(to_js)?;
    // A restarted module registers it again (see lifecycle).
    super::lifecycle::keep("model", &id, &JsValue::from_str(&text));
    match old {
        Some(old) => super::to_plain(&old),
        None => Ok(JsValue::NULL),
    }
}
