//! A store write's arguments (`id`, `expect`, `batch`), read once from JavaScript: by
//! IndexedDBStore before its transaction, and by `checkWrite`, the check every JavaScript
//! store makes.

use js_sys::{Array, Reflect};
use wasm_bindgen::prelude::*;

use crate::indexeddb as schema;
use crate::wasm::error::{invalid_argument, to_js};

/// A write's arguments, checked before the transaction starts.
pub(super) struct Write {
    pub(super) id: String,
    pub(super) expect: u32,
    pub(super) messages: Array,
    /// Each summary with its `seq`.
    pub(super) summaries: Vec<(u32, JsValue)>,
    /// Each record with its `seq`.
    pub(super) records: Vec<(u32, JsValue)>,
    pub(super) meta: JsValue,
    pub(super) length: u64,
    /// `batch.start`, the history index of `messages[0]`, when given.
    pub(super) start: Option<u64>,
    /// The `seq` of each summary and of each record, in order.
    seqs: (Vec<u32>, Vec<u32>),
}

impl Write {
    /// What the batch appends, for [`schema::check_write`]. Its seqs live in `self.seqs`.
    pub(super) fn appended(&self) -> schema::Appended<'_> {
        schema::Appended {
            start: self.start,
            messages: u64::from(self.messages.length()),
            length: self.length,
            summaries: &self.seqs.0,
            records: &self.seqs.1,
        }
    }

    pub(super) fn read(id: &JsValue, expect: &JsValue, batch: &JsValue) -> Result<Write, JsValue> {
        let id = id_arg(id)?;
        let expect = expect
            .as_f64()
            .and_then(schema::counter)
            .ok_or_else(|| invalid_argument("expect", "a version: a whole number of at least 0", expect))?;
        if !batch.is_object() {
            return Err(invalid_argument("batch", "an object", batch));
        }
        let field = |key: &str| Reflect::get(batch, &JsValue::from_str(key));
        let list = |key: &str| -> Result<Array, JsValue> {
            let v = field(key)?;
            if v.is_undefined() {
                Ok(Array::new())
            } else if Array::is_array(&v) {
                Ok(v.unchecked_into())
            } else {
                Err(invalid_argument(&format!("batch.{key}"), "an array", &v))
            }
        };
        // Summaries and records are keyed by their `seq`.
        let numbered = |key: &str| -> Result<Vec<(u32, JsValue)>, JsValue> {
            let mut out = Vec::new();
            for (i, value) in list(key)?.iter().enumerate() {
                let seq = Reflect::get(&value, &JsValue::from_str("seq")).unwrap_or_default();
                let seq = seq.as_f64().and_then(schema::counter).ok_or_else(|| {
                    invalid_argument(
                        &format!("batch.{key}[{i}].seq"),
                        "a whole number of at least 0",
                        &seq,
                    )
                })?;
                out.push((seq, value));
            }
            Ok(out)
        };
        let messages = list("messages")?;
        let summaries = numbered("summaries")?;
        let records = numbered("records")?;
        let start = field("start")?;
        let start = if start.is_undefined() {
            None
        } else {
            Some(
                start
                    .as_f64()
                    .and_then(schema::whole)
                    .ok_or_else(|| invalid_argument("batch.start", "a whole number of at least 0", &start))?,
            )
        };
        let meta = field("meta")?;
        if !meta.is_object() {
            return Err(invalid_argument("batch.meta", "an object", &meta));
        }
        let number = |key: &str| -> Result<f64, JsValue> {
            let v = Reflect::get(&meta, &JsValue::from_str(key))?;
            v.as_f64().filter(|n| schema::whole(*n).is_some()).ok_or_else(|| {
                invalid_argument(&format!("batch.meta.{key}"), "a whole number of at least 0", &v)
            })
        };
        let version = schema::counter(number("version")?)
            .ok_or_else(|| invalid_argument("batch.meta.version", "a version below 2^32", &meta))?;
        let length = number("length")? as u64;
        schema::check_batch(expect, version).map_err(to_js)?;
        let seqs = (
            summaries.iter().map(|(seq, _)| *seq).collect(),
            records.iter().map(|(seq, _)| *seq).collect(),
        );
        Ok(Write {
            seqs,
            id,
            expect,
            messages,
            summaries,
            records,
            meta,
            length,
            start,
        })
    }
}

/// A conversation id: a string.
pub(super) fn id_arg(id: &JsValue) -> Result<String, JsValue> {
    id.as_string()
        .ok_or_else(|| invalid_argument("id", "a string", id))
}

/// The check every JavaScript store makes of a write (declared in `compactor/stores.rs`):
/// `stored` is the stored meta (`null`: none), `held` the seqs of the summaries and records
/// held (`{ summaries, records }`, each optional).
#[wasm_bindgen(js_name = checkWrite, skip_typescript)]
pub fn check_write(
    id: JsValue,
    expect: JsValue,
    batch: JsValue,
    stored: JsValue,
    held: JsValue,
) -> Result<(), JsValue> {
    let write = Write::read(&id, &expect, &batch)?;
    let (version, length) = stored_meta(&stored).ok_or_else(|| {
        invalid_argument(
            "stored",
            "the stored meta (with a whole version and length), or null for none",
            &stored,
        )
    })?;
    let seqs = |key: &str| -> Result<Vec<u32>, JsValue> {
        if held.is_null() || held.is_undefined() {
            return Ok(Vec::new());
        }
        let v = Reflect::get(&held, &JsValue::from_str(key))?;
        if v.is_undefined() {
            return Ok(Vec::new());
        }
        let list: Array = v
            .dyn_into()
            .map_err(|v| invalid_argument(&format!("held.{key}"), "an array of seqs", &v))?;
        list.iter()
            .enumerate()
            .map(|(i, seq)| {
                seq.as_f64().and_then(schema::counter).ok_or_else(|| {
                    invalid_argument(
                        &format!("held.{key}[{i}]"),
                        "a seq: a whole number of at least 0",
                        &seq,
                    )
                })
            })
            .collect()
    };
    let (summaries, records) = (seqs("summaries")?, seqs("records")?);
    let held = schema::Held {
        version,
        length,
        summaries: &summaries,
        records: &records,
    };
    schema::check_write(&write.id, write.expect, held, write.appended()).map_err(to_js)
}

/// A stored meta's version and length, as a write's check reads them: `(None, 0)` for no meta
/// (`null` or `undefined`), `None` for a meta without a whole version and length.
pub(super) fn stored_meta(stored: &JsValue) -> Option<(Option<u32>, u64)> {
    if stored.is_null() || stored.is_undefined() {
        return Some((None, 0));
    }
    let number = |key: &str| {
        Reflect::get(stored, &JsValue::from_str(key))
            .ok()
            .and_then(|v| v.as_f64())
    };
    let version = number("version").and_then(schema::counter)?;
    let length = number("length").and_then(schema::whole)?;
    Some((Some(version), length))
}
