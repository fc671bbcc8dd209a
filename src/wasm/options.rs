//! Reading JS arguments: options objects whose unknown keys are errors, and values brought
//! over as JSON.
//!
//! An options object is read once, by JS, into a plain copy ([`Options::new`]): a getter or
//! a Proxy trap that throws becomes a `TypeError` here, before any state is touched, and
//! every later read is of the copy (so it cannot throw, or change between two reads).

use js_sys::{Object, Reflect};
use wasm_bindgen::prelude::*;

use super::error::{describe, invalid_argument, to_js};
use crate::Error;

#[wasm_bindgen(inline_js = r#"
export function toJson(value) {
  return JSON.stringify(value, (_key, v) =>
    ArrayBuffer.isView(v) || v instanceof ArrayBuffer ? { $bytes: v.byteLength } : v);
}
// A plain copy of an options object's own enumerable properties (null for an array).
export function readOptions(o) {
  if (Array.isArray(o)) return null;
  const copy = {};
  for (const k of Object.keys(o)) copy[k] = o[k];
  return copy;
}
"#)]
extern "C" {
    /// JSON text of `value`; binary data becomes `{ "$bytes": length }`.
    #[wasm_bindgen(js_name = toJson, catch)]
    fn to_json(value: &JsValue) -> Result<Option<String>, JsValue>;
    #[wasm_bindgen(js_name = readOptions, catch)]
    fn read_options(value: &JsValue) -> Result<Option<Object>, JsValue>;
}

/// Brings a JS value over as JSON.
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

/// An options object, read once into a plain copy whose keys are checked.
pub struct Options<'a> {
    name: &'a str,
    /// The copy; `None` when the options were optional and absent.
    copy: Option<Object>,
}

impl<'a> Options<'a> {
    /// `value` must be an object whose keys are all in `allowed` (or, if `optional`,
    /// undefined / null). A number that is not finite (NaN, Infinity) is an error here,
    /// before JSON would turn it into `null`.
    pub fn new(name: &'a str, value: &JsValue, allowed: &[&str], optional: bool) -> Result<Self, JsValue> {
        if optional && (value.is_undefined() || value.is_null()) {
            return Ok(Options { name, copy: None });
        }
        let not_options = || {
            let keys = allowed.join(", ");
            invalid_argument(name, &format!("an options object (keys: {keys})"), value)
        };
        if !value.is_object() || value.is_function() {
            return Err(not_options());
        }
        let copy = read_options(value)
            .map_err(|e| {
                to_js(Error::InvalidArgument {
                    argument: name.to_owned(),
                    expected: format!(
                        "an options object that can be read (reading it threw: {})",
                        Reflect::get(&e, &"message".into())
                            .ok()
                            .and_then(|m| m.as_string())
                            .unwrap_or_else(|| describe(&e))
                    ),
                })
            })?
            .ok_or_else(not_options)?;
        for key in Object::keys(&copy).iter() {
            let key = key.as_string().unwrap_or_default();
            if !allowed.contains(&key.as_str()) {
                return Err(to_js(Error::InvalidArgument {
                    argument: format!("{name}.{key}"),
                    expected: format!("no such option (known: {})", allowed.join(", ")),
                }));
            }
            let v = Reflect::get(&copy, &JsValue::from_str(&key)).unwrap_or(JsValue::UNDEFINED);
            if let Some(x) = v.as_f64().filter(|x| !x.is_finite()) {
                return Err(to_js(Error::OutOfRange {
                    argument: format!("{name}.{key}"),
                    reason: format!("expected a finite number, got {}", js_number(x)),
                }));
            }
        }
        Ok(Options {
            name,
            copy: Some(copy),
        })
    }

    /// The value of `key`, or `None` when it is absent or undefined.
    pub fn get(&self, key: &'static str) -> Option<JsValue> {
        let v = Reflect::get(self.copy.as_ref()?, &js_str(key)).ok()?;
        (!v.is_undefined()).then_some(v)
    }

    /// The plain copy (for JSON), or `undefined`.
    pub fn value(&self) -> JsValue {
        self.copy.clone().map_or(JsValue::UNDEFINED, Into::into)
    }

    /// The path of a key, for errors: `options.encoding`.
    pub fn path(&self, key: &str) -> String {
        format!("{}.{key}", self.name)
    }

    /// An optional string option.
    pub fn string(&self, key: &'static str) -> Result<Option<String>, JsValue> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => v
                .as_string()
                .map(Some)
                .ok_or_else(|| invalid_argument(&self.path(key), "a string", &v)),
        }
    }

    /// An optional boolean option.
    pub fn boolean(&self, key: &'static str) -> Result<Option<bool>, JsValue> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => v
                .as_bool()
                .map(Some)
                .ok_or_else(|| invalid_argument(&self.path(key), "a boolean", &v)),
        }
    }
}

/// How JS writes a number that is not finite.
fn js_number(x: f64) -> &'static str {
    if x.is_nan() {
        "NaN"
    } else if x > 0.0 {
        "Infinity"
    } else {
        "-Infinity"
    }
}
