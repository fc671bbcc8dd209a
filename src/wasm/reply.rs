//! A summarizer's reply, from JavaScript to the core's [`Reply`], for `compact()` and the
//! `Compactor` alike.

use js_sys::Reflect;
use wasm_bindgen::prelude::*;

use super::options::json_arg;
use crate::compact::Reply;

/// A summarizer's reply as the driver passes it: `{ value }` or `{ failed }`, where a value
/// is a string or `{ text, model?, usage? }`.
pub(super) fn reply_from(r: &JsValue) -> Reply {
    let get = |o: &JsValue, k: &str| {
        Reflect::get(o, &JsValue::from_str(k))
            .ok()
            .filter(|x| !x.is_undefined())
    };
    if let Some(reason) = get(r, "failed") {
        return Reply::Failed(
            reason
                .as_string()
                .unwrap_or_else(|| "the summarizer failed".into()),
        );
    }
    let v = get(r, "value").unwrap_or(JsValue::UNDEFINED);
    if let Some(text) = v.as_string() {
        return Reply::Text {
            text,
            model: None,
            usage: None,
        };
    }
    if let Some(text) = v
        .is_object()
        .then(|| get(&v, "text"))
        .flatten()
        .and_then(|t| t.as_string())
    {
        return Reply::Text {
            text,
            model: get(&v, "model").and_then(|m| m.as_string()),
            usage: get(&v, "usage").and_then(|u| json_arg("usage", &u).ok()),
        };
    }
    Reply::Failed(format!(
        "the summarizer returned {}, not a string or {{ text }}",
        super::error::describe(&v)
    ))
}
