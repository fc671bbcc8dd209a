//! One store call on an open database: its transaction, its requests, and what it answers.
//! A write also carries its version check, which runs inside the transaction.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Array, Promise, Reflect};
use wasm_bindgen::prelude::*;
use web_sys::{Event, IdbDatabase, IdbKeyRange, IdbRequest, IdbTransaction, IdbTransactionMode};

use super::{failed, from_dom, settled, transaction, with_cause, STORE};
use crate::indexeddb::{self as schema, MESSAGES, META, RECORDS, STORES, SUMMARIES};
use crate::wasm::error::{invalid_argument, to_js};
use crate::Error;

/// What a call answers once its transaction completed.
enum Answer {
    /// `undefined`.
    Nothing,
    /// The request's result, `null` for none (a `get` that found nothing).
    Value(IdbRequest),
    /// The request's result, an array (`getAll`, `getAllKeys`).
    Array(IdbRequest),
}

/// What a write's version check decided.
enum Outcome {
    /// The check has not run.
    Pending,
    /// Everything was put; the transaction commits.
    Written,
    /// Refused (a stale version, a batch that does not fit the stored meta): nothing written.
    Refused(Error),
    /// A request could not be made (a value that cannot be cloned, for one).
    Failed(JsValue),
}

/// A write's check, kept alive until the call finishes.
struct Check {
    outcome: Rc<RefCell<Outcome>>,
    _on_meta: Closure<dyn FnMut()>,
}

/// One store call in progress, stepped by `lib/indexeddb.js`: `done()`, then
/// `finish(event)`. Not part of the public API.
#[wasm_bindgen(js_name = IdbCall, skip_typescript)]
pub struct IdbCall {
    operation: &'static str,
    tx: IdbTransaction,
    done: Promise,
    answer: Answer,
    check: Option<Check>,
}

#[wasm_bindgen(js_class = IdbCall)]
impl IdbCall {
    /// `load(id)`: the meta, or `null`.
    pub fn load(db: &IdbDatabase, id: JsValue) -> Result<IdbCall, JsValue> {
        let id = id_arg(&id)?;
        let tx = transaction("load", db, &[META], IdbTransactionMode::Readonly)?;
        let request = store(&tx, "load", META)?
            .get(&JsValue::from_str(&id))
            .map_err(|e| from_dom("load", "", &e))?;
        Ok(IdbCall::new("load", tx, Answer::Value(request)))
    }

    /// `messages(id, from)`: the history from index `from` on.
    pub fn messages(db: &IdbDatabase, id: JsValue, from: JsValue) -> Result<IdbCall, JsValue> {
        let id = id_arg(&id)?;
        let from = from
            .as_f64()
            .and_then(schema::whole)
            .ok_or_else(|| invalid_argument("from", "a whole number of at least 0", &from))?;
        let tx = transaction("messages", db, &[MESSAGES], IdbTransactionMode::Readonly)?;
        let range = IdbKeyRange::bound(&key2(&id, from as f64), &upper(&id))
            .map_err(|e| from_dom("messages", "", &e))?;
        let request = store(&tx, "messages", MESSAGES)?
            .get_all_with_key(&range)
            .map_err(|e| from_dom("messages", "", &e))?;
        Ok(IdbCall::new("messages", tx, Answer::Array(request)))
    }

    /// `summaries(id)`: every summary chunk written, oldest first.
    pub fn summaries(db: &IdbDatabase, id: JsValue) -> Result<IdbCall, JsValue> {
        IdbCall::every("summaries", SUMMARIES, db, &id)
    }

    /// `records(id)`: every compaction record written, oldest first.
    pub fn records(db: &IdbDatabase, id: JsValue) -> Result<IdbCall, JsValue> {
        IdbCall::every("records", RECORDS, db, &id)
    }

    /// `list()`: every conversation's id.
    pub fn list(db: &IdbDatabase) -> Result<IdbCall, JsValue> {
        let tx = transaction("list", db, &[META], IdbTransactionMode::Readonly)?;
        let request = store(&tx, "list", META)?
            .get_all_keys()
            .map_err(|e| from_dom("list", "", &e))?;
        Ok(IdbCall::new("list", tx, Answer::Array(request)))
    }

    /// `delete(id)`: the conversation's meta, history, summaries and records, at once.
    pub fn delete(db: &IdbDatabase, id: JsValue) -> Result<IdbCall, JsValue> {
        let id = id_arg(&id)?;
        let tx = transaction("delete", db, &STORES, IdbTransactionMode::Readwrite)?;
        let all = everything(&id).map_err(|e| from_dom("delete", "", &e))?;
        for name in STORES {
            let key: &JsValue = if name == META {
                &JsValue::from_str(&id)
            } else {
                &all
            };
            store(&tx, "delete", name)?
                .delete(key)
                .map_err(|e| from_dom("delete", "", &e))?;
        }
        Ok(IdbCall::new("delete", tx, Answer::Nothing))
    }

    /// `write(id, expect, batch)`: checks the stored version inside the transaction, then
    /// appends and puts everything, or nothing.
    pub fn write(db: &IdbDatabase, id: JsValue, expect: JsValue, batch: JsValue) -> Result<IdbCall, JsValue> {
        let write = Write::read(&id, &expect, &batch)?;
        let tx = transaction("write", db, &STORES, IdbTransactionMode::Readwrite)?;
        let request = store(&tx, "write", META)?
            .get(&JsValue::from_str(&write.id))
            .map_err(|e| from_dom("write", "", &e))?;
        let outcome = Rc::new(RefCell::new(Outcome::Pending));
        let on_meta = {
            let (tx, request, outcome) = (tx.clone(), request.clone(), outcome.clone());
            Closure::<dyn FnMut()>::new(move || {
                let decided = match write.apply(&tx, &request) {
                    Ok(()) => Outcome::Written,
                    Err(refused) => {
                        // Rolls back whatever was put already; it cannot fail on an active
                        // transaction.
                        let _ = tx.abort();
                        refused
                    }
                };
                if let Ok(mut slot) = outcome.try_borrow_mut() {
                    *slot = decided;
                }
            })
        };
        request.set_onsuccess(Some(on_meta.as_ref().unchecked_ref()));
        let mut call = IdbCall::new("write", tx, Answer::Nothing);
        call.check = Some(Check {
            outcome,
            _on_meta: on_meta,
        });
        Ok(call)
    }

    /// Resolves with the transaction's `complete` or `abort` event.
    pub fn done(&self) -> Promise {
        self.done.clone()
    }

    /// Aborts the transaction (at the deadline); nothing it did is kept. A transaction that
    /// already finished is left as it is.
    pub fn abort(&self) {
        let _ = self.tx.abort();
    }

    /// The answer, once `done()` resolved with `event`; or the typed error of an aborted
    /// transaction (`STALE_WRITE`, `QUOTA_EXCEEDED`, `STORE_FAILED`).
    pub fn finish(self, event: &Event) -> Result<JsValue, JsValue> {
        let op = self.operation;
        let outcome = self.check.as_ref().map(|c| c.outcome.replace(Outcome::Pending));
        if event.type_() == "complete" {
            return match (outcome, &self.answer) {
                (Some(Outcome::Written) | None, Answer::Nothing) => Ok(JsValue::UNDEFINED),
                (Some(_), _) => Err(failed(
                    op,
                    "the transaction completed without its version check".into(),
                )),
                (None, Answer::Value(r)) => {
                    result(op, r).map(|v| if v.is_undefined() { JsValue::NULL } else { v })
                }
                (None, Answer::Array(r)) => result(op, r),
            };
        }
        Err(match outcome {
            Some(Outcome::Refused(err)) => to_js(err),
            Some(Outcome::Failed(e)) => from_dom(op, "a value could not be stored", &e),
            _ => match self.tx.error() {
                Some(dom) => from_dom(op, "the transaction was aborted", &dom),
                None => failed(op, "the transaction was aborted; nothing was written".into()),
            },
        })
    }
}

impl IdbCall {
    fn new(operation: &'static str, tx: IdbTransaction, answer: Answer) -> IdbCall {
        IdbCall {
            operation,
            done: settled(&tx),
            tx,
            answer,
            check: None,
        }
    }

    /// Every value of `name` under the conversation, in key order.
    fn every(
        operation: &'static str,
        name: &'static str,
        db: &IdbDatabase,
        id: &JsValue,
    ) -> Result<IdbCall, JsValue> {
        let id = id_arg(id)?;
        let tx = transaction(operation, db, &[name], IdbTransactionMode::Readonly)?;
        let range = everything(&id).map_err(|e| from_dom(operation, "", &e))?;
        let request = store(&tx, operation, name)?
            .get_all_with_key(&range)
            .map_err(|e| from_dom(operation, "", &e))?;
        Ok(IdbCall::new(operation, tx, Answer::Array(request)))
    }
}

/// A write's arguments, checked before the transaction starts.
struct Write {
    id: String,
    expect: u64,
    messages: Array,
    summaries: Array,
    records: Array,
    meta: JsValue,
    length: u64,
    /// `batch.start`, the history index of `messages[0]`, when given.
    start: Option<u64>,
}

impl Write {
    fn read(id: &JsValue, expect: &JsValue, batch: &JsValue) -> Result<Write, JsValue> {
        let id = id_arg(id)?;
        let expect = expect
            .as_f64()
            .and_then(schema::whole)
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
        let messages = list("messages")?;
        let summaries = list("summaries")?;
        let records = list("records")?;
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
        let number = |key: &str| -> Result<u64, JsValue> {
            let v = Reflect::get(&meta, &JsValue::from_str(key))?;
            v.as_f64().and_then(schema::whole).ok_or_else(|| {
                invalid_argument(&format!("batch.meta.{key}"), "a whole number of at least 0", &v)
            })
        };
        let version = number("version")?;
        let length = number("length")?;
        schema::check_batch(expect, version).map_err(to_js)?;
        Ok(Write {
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

    /// Runs in the stored meta's `success` handler, inside the transaction: checks the
    /// stored version and length, then puts everything. An `Err` means nothing may be kept.
    fn apply(&self, tx: &IdbTransaction, request: &IdbRequest) -> Result<(), Outcome> {
        let stored = request.result().map_err(Outcome::Failed)?;
        let (found, stored_length) = if stored.is_undefined() || stored.is_null() {
            (0, 0)
        } else {
            let number = |key: &str| {
                Reflect::get(&stored, &JsValue::from_str(key))
                    .ok()
                    .and_then(|v| v.as_f64())
                    .and_then(schema::whole)
            };
            match (number("version"), number("length")) {
                (Some(v), Some(l)) => (v, l),
                _ => {
                    return Err(Outcome::Refused(Error::StoreFailed {
                        store: STORE,
                        operation: "write",
                        reason: format!(
                            "the stored meta of conversation {:?} has no whole version and length; nothing was written",
                            self.id
                        ),
                    }))
                }
            }
        };
        schema::check_version(&self.id, self.expect, found).map_err(Outcome::Refused)?;
        let appended = u64::from(self.messages.length());
        schema::check_length(stored_length, self.start, appended, self.length).map_err(Outcome::Refused)?;
        let version = (self.expect + 1) as f64;
        let put = |name: &str, value: &JsValue, key: &JsValue| -> Result<(), Outcome> {
            tx.object_store(name)
                .and_then(|s| s.put_with_key(value, key))
                .map(|_| ())
                .map_err(Outcome::Failed)
        };
        for (i, message) in self.messages.iter().enumerate() {
            put(
                MESSAGES,
                &message,
                &key2(&self.id, (stored_length + i as u64) as f64),
            )?;
        }
        for (i, chunk) in self.summaries.iter().enumerate() {
            put(SUMMARIES, &chunk, &key3(&self.id, version, i as f64))?;
        }
        for (i, record) in self.records.iter().enumerate() {
            put(RECORDS, &record, &key3(&self.id, version, i as f64))?;
        }
        put(META, &self.meta, &JsValue::from_str(&self.id))
    }
}

/// A conversation id: a string.
fn id_arg(id: &JsValue) -> Result<String, JsValue> {
    id.as_string()
        .ok_or_else(|| invalid_argument("id", "a string", id))
}

/// The object store `name` of `tx`.
fn store(
    tx: &IdbTransaction,
    operation: &'static str,
    name: &str,
) -> Result<web_sys::IdbObjectStore, JsValue> {
    tx.object_store(name)
        .map_err(|e| from_dom(operation, &format!("no object store {name:?}"), &e))
}

/// The key `[id, n]`.
pub(super) fn key2(id: &str, n: f64) -> JsValue {
    Array::of2(&JsValue::from_str(id), &JsValue::from_f64(n)).into()
}

/// The key `[id, a, b]`.
pub(super) fn key3(id: &str, a: f64, b: f64) -> JsValue {
    Array::of3(
        &JsValue::from_str(id),
        &JsValue::from_f64(a),
        &JsValue::from_f64(b),
    )
    .into()
}

/// `[id, []]`: above every `[id, number, ...]` key (arrays sort after numbers).
fn upper(id: &str) -> JsValue {
    Array::of2(&JsValue::from_str(id), &Array::new()).into()
}

/// Every key `[id, ...]`: from `[id]` (a prefix sorts first) to `[id, []]`.
fn everything(id: &str) -> Result<JsValue, JsValue> {
    IdbKeyRange::bound(&Array::of1(&JsValue::from_str(id)), &upper(id)).map(Into::into)
}

/// A finished request's result.
fn result(operation: &'static str, request: &IdbRequest) -> Result<JsValue, JsValue> {
    request
        .result()
        .map_err(|e| with_cause(failed(operation, "the request has no result".into()), &e))
}
