//! The `Compactor`'s reading calls ([`crate::session::views`]) for `lib/compactor.js`: JS
//! awaits the store and passes its answers in as they came; what comes back holds the
//! store's own objects (the messages, the meta, the summaries), so nothing is copied through
//! JSON and every key keeps its order.

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;

use super::super::error::{describe, to_js};
use super::CompactorCore;
use crate::session::views::{self, safe_whole, Answer};

impl Answer for JsValue {
    fn kind(&self) -> String {
        describe(self)
    }

    fn is_none(&self) -> bool {
        self.is_null() || self.is_undefined()
    }

    fn is_record(&self) -> bool {
        self.is_object() && !Array::is_array(self)
    }

    fn is_text(&self) -> bool {
        self.is_string()
    }

    fn items(&self) -> Option<Vec<Self>> {
        Array::is_array(self).then(|| self.unchecked_ref::<Array>().iter().collect())
    }

    fn field(&self, key: &str) -> Option<Self> {
        if !self.is_object() {
            return None;
        }
        // A getter that throws reads as no value (the error then says what was expected).
        Reflect::get(self, &JsValue::from_str(key))
            .ok()
            .filter(|v| !v.is_undefined())
    }

    fn whole(&self) -> Option<i64> {
        self.as_f64().and_then(safe_whole)
    }

    fn with_flag(&self, key: &str, on: bool) -> Self {
        let copy = Object::new();
        if let Some(obj) = self.dyn_ref::<Object>() {
            Object::assign(&copy, obj);
        }
        // Setting a property on a fresh object cannot fail.
        let _ = Reflect::set(&copy, &JsValue::from_str(key), &JsValue::from_bool(on));
        copy.into()
    }
}

/// A fresh object with `fields`, in that order.
fn object(fields: &[(&str, &JsValue)]) -> JsValue {
    let obj = Object::new();
    for (key, value) in fields {
        // Setting a property on a fresh object cannot fail.
        let _ = Reflect::set(&obj, &JsValue::from_str(key), value);
    }
    obj.into()
}

fn array(items: Vec<JsValue>) -> Array {
    items.into_iter().collect()
}

#[wasm_bindgen(js_class = CompactorCore)]
impl CompactorCore {
    /// `history(id)` from the store's answers: `meta` as `load` gave it, `messages` as
    /// `messages(id, 0)` and `records` as `records(id)` did (undefined when not read: there
    /// is no meta). `[{ index, message, summarizedBy }]`, each `message` the stored one.
    #[wasm_bindgen(js_name = history)]
    pub fn history_of(
        id: String,
        meta: JsValue,
        messages: JsValue,
        records: JsValue,
    ) -> Result<Array, JsValue> {
        let entries = views::history(&id, &meta, &messages, &records).map_err(to_js)?;
        Ok(entries
            .into_iter()
            .map(|e| {
                let by = e.summarized_by.map_or(JsValue::NULL, |s| JsValue::from(s as f64));
                object(&[
                    ("index", &JsValue::from(e.index as f64)),
                    ("message", &e.message),
                    ("summarizedBy", &by),
                ])
            })
            .collect())
    }

    /// `records(id)` from `load`'s and `records(id)`'s answers: copies of the records, each
    /// with `undone` set.
    #[wasm_bindgen(js_name = records)]
    pub fn records_of(id: String, meta: JsValue, records: JsValue) -> Result<Array, JsValue> {
        views::records(&id, &meta, &records).map(array).map_err(to_js)
    }

    /// `summaries(id)` from its answer, checked.
    #[wasm_bindgen(js_name = summaries)]
    pub fn summaries_of(id: String, summaries: JsValue) -> Result<Array, JsValue> {
        views::summaries(&id, &summaries).map(array).map_err(to_js)
    }

    /// `list()` from its answer, checked.
    #[wasm_bindgen(js_name = list)]
    pub fn list_of(ids: JsValue) -> Result<Array, JsValue> {
        views::list(&ids).map(array).map_err(to_js)
    }

    /// `export(id)` from the answers of `load`, `messages(id, 0)`, `summaries(id)` and
    /// `records(id)` (undefined when not read: there is no meta, and the conversation is
    /// `UNKNOWN_CONVERSATION`).
    #[wasm_bindgen(js_name = export)]
    pub fn export_of(
        id: String,
        meta: JsValue,
        messages: JsValue,
        summaries: JsValue,
        records: JsValue,
    ) -> Result<JsValue, JsValue> {
        let out = views::export(&id, meta, &messages, &summaries, &records).map_err(to_js)?;
        Ok(object(&[
            ("kind", &JsValue::from_str(out.kind)),
            ("exportVersion", &JsValue::from(out.export_version)),
            ("meta", &out.meta),
            ("messages", &array(out.messages)),
            ("summaries", &array(out.summaries)),
            ("records", &array(out.records)),
        ]))
    }

    /// Whether `import` deletes the conversation stored under `id` before it writes
    /// (`existing`: what `load` gave); `CONVERSATION_EXISTS` without `overwrite`.
    #[wasm_bindgen(js_name = importOver)]
    pub fn import_over(id: String, existing: JsValue, overwrite: bool) -> Result<bool, JsValue> {
        views::import_over(&id, &existing, overwrite).map_err(to_js)
    }
}
