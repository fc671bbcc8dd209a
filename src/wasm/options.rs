//! Reading an options object: once, by JS, into JSON text that the core's serde types
//! read ([`crate::options`]).
//!
//! JS copies the object's own enumerable properties (a getter or a Proxy trap that throws
//! becomes a `TypeError` here, before any state is touched), sets aside the functions the
//! call takes (`summarizer`), skips the keys whose values only JavaScript holds (a
//! `Compactor`'s `store`, `on`, `waitUntil`), rejects numbers JSON cannot carry (`NaN`, `Infinity`, which
//! `JSON.stringify` would turn into `null`) and any other function, and writes the rest as
//! JSON. The core then reads every key, its type and its range in one pass.

use js_sys::{Function, Reflect};
use serde::de::DeserializeOwned;
use wasm_bindgen::prelude::*;

use super::error::{describe, invalid_argument, to_js};
use crate::Error;

#[wasm_bindgen(module = "/src/wasm/js/transfer.js")]
extern "C" {
    /// JSON text of `value`; binary data becomes `{ "$bytes": length }`.
    #[wasm_bindgen(js_name = toJson, catch)]
    fn to_json(value: &JsValue) -> Result<Option<String>, JsValue>;
    #[wasm_bindgen(js_name = readOptions, catch)]
    fn read_options(
        value: &JsValue,
        function_keys: Vec<String>,
        set_aside: Vec<String>,
    ) -> Result<JsValue, JsValue>;
}

/// An options object read into `T`, with the functions it carried.
pub struct Read<T> {
    /// The options.
    pub value: T,
    /// The functions, by key (only keys the call takes).
    pub functions: Vec<(String, Function)>,
}

impl<T> Read<T> {
    /// The function given for `key`, if any.
    pub fn function(&self, key: &str) -> Option<Function> {
        self.functions
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, f)| f.clone())
    }
}

/// Reads `value` (named `name` in errors) as `T`; `undefined` and `null` read as `{}` when
/// `optional`. Functions are taken only for `function_keys`.
pub fn read<T: DeserializeOwned>(
    name: &str,
    value: &JsValue,
    function_keys: &[&str],
    optional: bool,
) -> Result<Read<T>, JsValue> {
    read_known::<T, T>(name, value, function_keys, optional)
}

/// [`read`], where `K` (a type with every option the call knows) says whether a key given a
/// function is an option at all: a misspelt one is "no such option", as any unknown key.
pub fn read_known<T: DeserializeOwned, K: DeserializeOwned>(
    name: &str,
    value: &JsValue,
    function_keys: &[&str],
    optional: bool,
) -> Result<Read<T>, JsValue> {
    read_with::<T, K>(name, value, function_keys, &[], optional)
}

/// [`read_known`] of a required object whose keys in `set_aside` (values only JavaScript
/// holds: a store, handlers) are not read at all.
pub fn read_set_aside<T: DeserializeOwned, K: DeserializeOwned>(
    name: &str,
    value: &JsValue,
    function_keys: &[&str],
    set_aside: &[&str],
) -> Result<Read<T>, JsValue> {
    read_with::<T, K>(name, value, function_keys, set_aside, false)
}

fn read_with<T: DeserializeOwned, K: DeserializeOwned>(
    name: &str,
    value: &JsValue,
    function_keys: &[&str],
    set_aside: &[&str],
    optional: bool,
) -> Result<Read<T>, JsValue> {
    if optional && (value.is_undefined() || value.is_null()) {
        return Ok(Read {
            value: crate::options::parse(name, "{}").map_err(to_js)?,
            functions: Vec::new(),
        });
    }
    let owned = |keys: &[&str]| keys.iter().map(|k| (*k).to_owned()).collect();
    let read = read_options(value, owned(function_keys), owned(set_aside)).map_err(|e| {
        to_js(Error::InvalidArgument {
            argument: name.to_owned(),
            expected: format!("an options object that can be read as JSON ({})", js_message(&e)),
        })
    })?;
    if read.is_null() {
        let what = if name == "options" {
            "an options object"
        } else {
            "an object"
        };
        return Err(invalid_argument(name, what, value));
    }
    let field = |k: &str| Reflect::get(&read, &JsValue::from_str(k)).unwrap_or(JsValue::UNDEFINED);
    if let Some(problem) = field("problem").dyn_ref::<js_sys::Array>() {
        let key = problem.get(1).as_string().unwrap_or_default();
        let argument = format!("{name}.{key}");
        return Err(to_js(match problem.get(0).as_string().as_deref() {
            Some("number") => Error::OutOfRange {
                argument,
                reason: format!(
                    "expected a finite number, got {}",
                    problem.get(2).as_string().unwrap_or_default()
                ),
            },
            // A function where the call takes none: a misspelt option says so first.
            _ => match crate::options::parse::<K>(name, &format!("{{{}:null}}", serde_json::json!(key))) {
                Err(e @ Error::UnknownOption { .. }) => e,
                _ => Error::InvalidArgument {
                    argument,
                    expected: "a value that is not a function, got function".into(),
                },
            },
        }));
    }
    let json = field("json").as_string().unwrap_or_else(|| "{}".into());
    let functions = js_sys::Object::entries(field("functions").unchecked_ref())
        .iter()
        .map(|pair| {
            let pair: js_sys::Array = pair.unchecked_into();
            (
                pair.get(0).as_string().unwrap_or_default(),
                pair.get(1).unchecked_into(),
            )
        })
        .collect();
    Ok(Read {
        value: crate::options::parse(name, &json).map_err(to_js)?,
        functions,
    })
}

/// Brings a JS value over as JSON (a summarizer's usage report, a model to register).
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

/// The message of a JS error, or what the value is.
pub fn js_message(e: &JsValue) -> String {
    Reflect::get(e, &JsValue::from_str("message"))
        .ok()
        .and_then(|m| m.as_string())
        .unwrap_or_else(|| e.as_string().unwrap_or_else(|| describe(e)))
}
