//! A provider's refusal of an input as too long, from JavaScript: read from a copy of the
//! error's fields (`pkg-template/lib/refusal.js` makes it), the correction a `compact()`
//! caller plans with after it, and the typed error of a second refusal.

use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::error::to_js;
use super::options::json_arg;
use crate::compact::types::Budget;
use crate::refusal::{read, Correction, Refusal};
use crate::Error;

fn refusal_arg(value: &JsValue) -> Result<Refusal, JsValue> {
    serde_json::from_value(json_arg("refusal", value)?).map_err(|e| {
        to_js(Error::InvalidArgument {
            argument: "refusal".into(),
            expected: format!("{{ tokens, limit }} as readRefusal gives it ({e})"),
        })
    })
}

/// The refusal `fields` (a JSON copy of an error's fields) holds: `{ tokens, limit }`, or
/// `null` when it is no refusal of an input as too long.
#[wasm_bindgen(js_name = readRefusal, skip_typescript)]
pub fn read_refusal(fields: JsValue) -> Result<JsValue, JsValue> {
    let v: Value = json_arg("error", &fields)?;
    match read(&v) {
        Some(r) => super::to_plain(&r),
        None => Ok(JsValue::NULL),
    }
}

/// The correction after `refusal` of an input ctxfold counted as `counted`, planned in
/// a window of `window` with `reserved` for the output (a report's budget), on top of
/// `previous` (`null`: none yet).
#[wasm_bindgen(js_name = correctAfterRefusal, skip_typescript)]
pub fn correct_after_refusal(
    refusal: JsValue,
    counted: f64,
    previous: JsValue,
    window: f64,
    reserved: f64,
) -> Result<JsValue, JsValue> {
    let refusal = refusal_arg(&refusal)?;
    let previous: Option<Correction> = match previous.is_null() || previous.is_undefined() {
        true => None,
        false => Some(serde_json::from_value(json_arg("previous", &previous)?).map_err(internal)?),
    };
    let (window, reserved) = (window.max(1.0) as usize, reserved.max(0.0) as usize);
    let input = window.saturating_sub(reserved);
    let budget = Budget {
        window,
        reserved_output: reserved,
        input,
        threshold: input,
    };
    let c = Correction::after(&refusal, counted.max(0.0) as usize, previous.as_ref(), budget);
    super::to_plain(&c)
}

/// The `CONTEXT_OVERFLOW` of a second refusal: what it said, and ctxfold's estimate of the
/// refused input (in the provider's tokens).
#[wasm_bindgen(js_name = refusedAgain, skip_typescript)]
pub fn refused_again(refusal: JsValue, estimate: f64) -> Result<JsValue, JsValue> {
    let r = refusal_arg(&refusal)?;
    Ok(to_js(Error::Refused {
        tokens: r.tokens,
        limit: r.limit,
        estimate: estimate.max(0.0).round() as usize,
    }))
}

/// Only ctxfold's own JavaScript passes these shapes back.
fn internal(e: serde_json::Error) -> JsValue {
    to_js(Error::Internal {
        reason: format!("a correction's shape did not read: {e}"),
    })
}
