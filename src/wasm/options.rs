//! Reading JS arguments: options objects whose unknown keys are errors, and message
//! arrays brought over as JSON.

use js_sys::{Object, Reflect};
use wasm_bindgen::prelude::*;

use super::error::{invalid_argument, to_js};
use crate::Error;

#[wasm_bindgen(inline_js = r#"
export function toJson(value) {
  return JSON.stringify(value, (_key, v) =>
    ArrayBuffer.isView(v) || v instanceof ArrayBuffer ? { $bytes: v.byteLength } : v);
}
"#)]
extern "C" {
    /// JSON text of `value`; binary data becomes `{ "$bytes": length }`.
    #[wasm_bindgen(js_name = toJson, catch)]
    fn to_json(value: &JsValue) -> Result<Option<String>, JsValue>;
}

/// Brings a JS value (messages) over as JSON.
pub fn json_arg(argument: &str, value: &JsValue) -> Result<serde_json::Value, JsValue> {
    let text = to_json(value)
        .map_err(|_| invalid_argument(argument, "JSON-serialisable data (no cycles, no BigInt)", value))?
        .ok_or_else(|| invalid_argument(argument, "an array or an object", value))?;
    serde_json::from_str(&text).map_err(|e| {
        to_js(Error::InvalidArgument {
            argument: argument.into(),
            expected: format!("JSON-serialisable data ({e})"),
        })
    })
}

/// A JS string for a Rust constant, made once: a fresh `JsValue::from_str` decodes UTF-8
/// on every call, which costs more than the rest of a short `countTokens`.
pub fn js_str(s: &'static str) -> JsValue {
    JsValue::from_str(wasm_bindgen::intern(s))
}

/// An options object: checks its keys on construction, then reads them.
pub struct Options<'a> {
    name: &'a str,
    value: &'a JsValue,
}

impl<'a> Options<'a> {
    /// `value` must be an object whose keys are all in `allowed` (or, if `optional`,
    /// undefined / null).
    pub fn new(name: &'a str, value: &'a JsValue, allowed: &[&str], optional: bool) -> Result<Self, JsValue> {
        if optional && (value.is_undefined() || value.is_null()) {
            return Ok(Options { name, value });
        }
        if !value.is_object() || js_sys::Array::is_array(value) {
            let keys = allowed.join(", ");
            return Err(invalid_argument(
                name,
                &format!("an options object (keys: {keys})"),
                value,
            ));
        }
        for key in Object::keys(value.unchecked_ref::<Object>()).iter() {
            let key = key.as_string().unwrap_or_default();
            if !allowed.contains(&key.as_str()) {
                return Err(to_js(Error::InvalidArgument {
                    argument: format!("{name}.{key}"),
                    expected: format!("no such option (known: {})", allowed.join(", ")),
                }));
            }
        }
        Ok(Options { name, value })
    }

    fn get(&self, key: &'static str) -> Result<Option<JsValue>, JsValue> {
        if !self.value.is_object() {
            return Ok(None);
        }
        let v = Reflect::get(self.value, &js_str(key))?;
        Ok((!v.is_undefined()).then_some(v))
    }

    /// The path of a key, for errors: `options.encoding`.
    pub fn path(&self, key: &str) -> String {
        format!("{}.{key}", self.name)
    }

    /// An optional string option.
    pub fn string(&self, key: &'static str) -> Result<Option<String>, JsValue> {
        match self.get(key)? {
            None => Ok(None),
            Some(v) => v
                .as_string()
                .map(Some)
                .ok_or_else(|| invalid_argument(&self.path(key), "a string", &v)),
        }
    }
}
