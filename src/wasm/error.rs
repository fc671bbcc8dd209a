//! Turns core errors into real JavaScript errors with a stable `code`.
//!
//! Domain errors are `Error`s named `CtxfoldError`; bad arguments are `TypeError`s or
//! `RangeError`s. Every one carries `code` (one of [`crate::error::Code`]), so callers
//! branch on `err.code` and `isCtxfoldError(err)` recognises all of them.

use js_sys::Reflect;
use wasm_bindgen::prelude::*;

use crate::error::Code;
use crate::Error;

/// Converts a core error into the JS error it is thrown as.
pub fn to_js(err: Error) -> JsValue {
    let message = err.to_string();
    let js: js_sys::Error = match &err {
        Error::InvalidArgument { .. } | Error::CallOutOfOrder { .. } | Error::UnknownOption { .. } => {
            js_sys::TypeError::new(&message).into()
        }
        Error::OutOfRange { .. } => js_sys::RangeError::new(&message).into(),
        _ => {
            let e = js_sys::Error::new(&message);
            e.set_name("CtxfoldError");
            e
        }
    };
    // Setting a property on a fresh Error cannot fail.
    let _ = Reflect::set(&js, &JsValue::from_str("code"), &JsValue::from_str(err.code()));
    if let Some(argument) = err.argument() {
        let _ = Reflect::set(&js, &JsValue::from_str("argument"), &JsValue::from_str(argument));
    }
    if let Error::UnknownOption { known, .. } = &err {
        let list: js_sys::Array = known.iter().map(|k| JsValue::from_str(k)).collect();
        let _ = Reflect::set(&js, &JsValue::from_str("known"), &list);
    }
    if let Error::InvalidMessage { path, .. } | Error::InvalidState { path, .. } = &err {
        let _ = Reflect::set(&js, &JsValue::from_str("path"), &JsValue::from_str(path));
    }
    if let Error::Http { status, excerpt, .. } = &err {
        let status = status.map_or(JsValue::NULL, JsValue::from);
        let _ = Reflect::set(&js, &JsValue::from_str("status"), &status);
        let _ = Reflect::set(&js, &JsValue::from_str("excerpt"), &JsValue::from_str(excerpt));
    }
    if let Error::StaleWrite { expected, found, .. } = &err {
        let found = found.map_or(JsValue::NULL, JsValue::from);
        let _ = Reflect::set(&js, &JsValue::from_str("expected"), &JsValue::from(*expected));
        let _ = Reflect::set(&js, &JsValue::from_str("found"), &found);
    }
    if let Error::Refused {
        tokens,
        limit,
        estimate,
    } = &err
    {
        let count = |n: &Option<u64>| n.map_or(JsValue::NULL, |n| JsValue::from(n as f64));
        let _ = Reflect::set(&js, &JsValue::from_str("providerTokens"), &count(tokens));
        let _ = Reflect::set(&js, &JsValue::from_str("providerLimit"), &count(limit));
        let _ = Reflect::set(
            &js,
            &JsValue::from_str("estimate"),
            &JsValue::from(*estimate as f64),
        );
    }
    js.into()
}

/// `true` if `value` is an error ctxfold threw.
///
/// ```ts
/// try { countTokens(text, { encoding: "p50k" }); }
/// catch (e) { if (isCtxfoldError(e) && e.code === "UNKNOWN_ENCODING") { ... } }
/// ```
#[wasm_bindgen(js_name = isCtxfoldError, unchecked_return_type = "value is CtxfoldError")]
pub fn is_ctxfold_error(#[wasm_bindgen(unchecked_param_type = "unknown")] value: JsValue) -> bool {
    if !value.is_instance_of::<js_sys::Error>() {
        return false;
    }
    Reflect::get(&value, &JsValue::from_str("code"))
        .ok()
        .and_then(|c| c.as_string())
        .is_some_and(|c| Code::ALL.iter().any(|k| k.as_str() == c))
}

#[wasm_bindgen(module = "/src/wasm/js/error.js")]
extern "C" {
    #[wasm_bindgen(js_name = kindOf, catch)]
    fn kind_of(value: &JsValue) -> Result<String, JsValue>;
}

/// What a JS value is, for error messages: `"number"`, `"null"`, `"an array"`, ... (Never
/// throws: `Array.isArray` of a revoked Proxy does, and that is "a revoked proxy".)
pub fn describe(value: &JsValue) -> String {
    kind_of(value).unwrap_or_else(|_| "a revoked proxy".into())
}

/// A `TypeError` for `argument`, which should have been `expected` but was `got`.
pub fn invalid_argument(argument: &str, expected: &str, got: &JsValue) -> JsValue {
    to_js(Error::InvalidArgument {
        argument: argument.to_owned(),
        expected: format!("{expected}, got {}", describe(got)),
    })
}
