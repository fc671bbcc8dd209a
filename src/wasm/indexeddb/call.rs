//! One store call on an open database: its transaction, its requests, and what it answers.
//! A write also carries its version check, which runs inside the transaction.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Array, Promise};
use wasm_bindgen::prelude::*;
use web_sys::{Event, IdbDatabase, IdbKeyRange, IdbRequest, IdbTransaction, IdbTransactionMode};

use super::{failed, from_dom, settled, transaction, with_cause, At};
use crate::error::StoreOperation;
use crate::indexeddb::{self as schema, MESSAGES, META, RECORDS, STORES, SUMMARIES};
use crate::wasm::batch::{id_arg, stored_meta, Write};
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
enum Verdict {
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
    outcome: Rc<RefCell<Verdict>>,
    _on_meta: Closure<dyn FnMut()>,
}

/// One store call in progress, stepped by `lib/indexeddb.js`: `done()`, then
/// `finish(event)`. Not part of the public API.
#[wasm_bindgen(js_name = IdbCall, skip_typescript)]
pub struct IdbCall {
    at: At,
    tx: IdbTransaction,
    done: Promise,
    answer: Answer,
    check: Option<Check>,
}

#[wasm_bindgen(js_class = IdbCall)]
impl IdbCall {
    /// `load(id)`: the meta, or `null`.
    pub fn load(db: &IdbDatabase, id: JsValue) -> Result<IdbCall, JsValue> {
        let at = At::new(StoreOperation::Load, &id_arg(&id)?);
        let tx = transaction(&at, db, &[META], IdbTransactionMode::Readonly)?;
        let request = store(&tx, &at, META)?
            .get(&JsValue::from_str(&at.id))
            .map_err(|e| from_dom(&at, "", &e))?;
        Ok(IdbCall::new(at, tx, Answer::Value(request)))
    }

    /// `messages(id, from)`: the history from index `from` on.
    pub fn messages(db: &IdbDatabase, id: JsValue, from: JsValue) -> Result<IdbCall, JsValue> {
        let at = At::new(StoreOperation::Messages, &id_arg(&id)?);
        let from = from
            .as_f64()
            .and_then(schema::whole)
            .ok_or_else(|| invalid_argument("from", "a whole number of at least 0", &from))?;
        let tx = transaction(&at, db, &[MESSAGES], IdbTransactionMode::Readonly)?;
        let range = IdbKeyRange::bound(&key(&at.id, from as f64), &upper(&at.id))
            .map_err(|e| from_dom(&at, "", &e))?;
        let request = store(&tx, &at, MESSAGES)?
            .get_all_with_key(&range)
            .map_err(|e| from_dom(&at, "", &e))?;
        Ok(IdbCall::new(at, tx, Answer::Array(request)))
    }

    /// `summaries(id)`: every summary written, in `seq` order.
    pub fn summaries(db: &IdbDatabase, id: JsValue) -> Result<IdbCall, JsValue> {
        IdbCall::every(At::new(StoreOperation::Summaries, &id_arg(&id)?), SUMMARIES, db)
    }

    /// `records(id)`: every compaction record written, in `seq` order.
    pub fn records(db: &IdbDatabase, id: JsValue) -> Result<IdbCall, JsValue> {
        IdbCall::every(At::new(StoreOperation::Records, &id_arg(&id)?), RECORDS, db)
    }

    /// `list()`: every conversation's id.
    pub fn list(db: &IdbDatabase) -> Result<IdbCall, JsValue> {
        let at = At::new(StoreOperation::List, "");
        let tx = transaction(&at, db, &[META], IdbTransactionMode::Readonly)?;
        let request = store(&tx, &at, META)?
            .get_all_keys()
            .map_err(|e| from_dom(&at, "", &e))?;
        Ok(IdbCall::new(at, tx, Answer::Array(request)))
    }

    /// `delete(id)`: the conversation's meta, history, summaries and records, at once.
    pub fn delete(db: &IdbDatabase, id: JsValue) -> Result<IdbCall, JsValue> {
        let at = At::new(StoreOperation::Delete, &id_arg(&id)?);
        let tx = transaction(&at, db, &STORES, IdbTransactionMode::Readwrite)?;
        let all = everything(&at.id).map_err(|e| from_dom(&at, "", &e))?;
        for name in STORES {
            let key: &JsValue = if name == META {
                &JsValue::from_str(&at.id)
            } else {
                &all
            };
            store(&tx, &at, name)?
                .delete(key)
                .map_err(|e| from_dom(&at, "", &e))?;
        }
        Ok(IdbCall::new(at, tx, Answer::Nothing))
    }

    /// `write(id, expect, batch)`: everything or nothing. The stored meta is read first and
    /// everything is put behind that read at once, in one round trip to IndexedDB; the read's
    /// `success` handler, which runs before the transaction can commit, checks the stored
    /// version and length and aborts the transaction (nothing is kept) when they do not fit.
    pub fn write(db: &IdbDatabase, id: JsValue, expect: JsValue, batch: JsValue) -> Result<IdbCall, JsValue> {
        let write = Write::read(&id, &expect, &batch)?;
        let at = At::new(StoreOperation::Write, &write.id);
        let tx = transaction(&at, db, &write.stores(), IdbTransactionMode::Readwrite)?;
        let request = store(&tx, &at, META)?
            .get(&JsValue::from_str(&write.id))
            .map_err(|e| from_dom(&at, "", &e))?;
        if let Err(e) = write.put(&tx) {
            let _ = tx.abort();
            return Err(from_dom(&at, "a value could not be stored in IndexedDB", &e));
        }
        let outcome = Rc::new(RefCell::new(Verdict::Pending));
        let on_meta = {
            let (tx, request, outcome) = (tx.clone(), request.clone(), outcome.clone());
            Closure::<dyn FnMut()>::new(move || {
                let decided = match write.check(&request) {
                    Ok(()) => Verdict::Written,
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
        let mut call = IdbCall::new(at, tx, Answer::Nothing);
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
    /// transaction (`STALE_WRITE`, `QUOTA_EXCEEDED`, `STORE_ERROR`).
    pub fn finish(self, event: &Event) -> Result<JsValue, JsValue> {
        let at = &self.at;
        let outcome = self.check.as_ref().map(|c| c.outcome.replace(Verdict::Pending));
        if event.type_() == "complete" {
            return match (outcome, &self.answer) {
                (Some(Verdict::Written) | None, Answer::Nothing) => Ok(JsValue::UNDEFINED),
                (Some(_), _) => Err(failed(
                    at,
                    "the IndexedDB transaction completed without its version check".into(),
                )),
                (None, Answer::Value(r)) => {
                    result(at, r).map(|v| if v.is_undefined() { JsValue::NULL } else { v })
                }
                (None, Answer::Array(r)) => result(at, r),
            };
        }
        Err(match outcome {
            Some(Verdict::Refused(err)) => to_js(err),
            Some(Verdict::Failed(e)) => from_dom(at, "a value could not be stored in IndexedDB", &e),
            _ => match self.tx.error() {
                Some(dom) => from_dom(at, "the IndexedDB transaction was aborted", &dom),
                None => failed(
                    at,
                    "the IndexedDB transaction was aborted; nothing was written".into(),
                ),
            },
        })
    }
}

impl IdbCall {
    fn new(at: At, tx: IdbTransaction, answer: Answer) -> IdbCall {
        IdbCall {
            at,
            done: settled(&tx),
            tx,
            answer,
            check: None,
        }
    }

    /// Every value of the object store `name` under the conversation, in key order.
    fn every(at: At, name: &'static str, db: &IdbDatabase) -> Result<IdbCall, JsValue> {
        let tx = transaction(&at, db, &[name], IdbTransactionMode::Readonly)?;
        let range = everything(&at.id).map_err(|e| from_dom(&at, "", &e))?;
        let request = store(&tx, &at, name)?
            .get_all_with_key(&range)
            .map_err(|e| from_dom(&at, "", &e))?;
        Ok(IdbCall::new(at, tx, Answer::Array(request)))
    }
}

impl Write {
    /// The object stores the write touches.
    fn stores(&self) -> Vec<&'static str> {
        let mut stores = vec![META, MESSAGES];
        if !self.summaries.is_empty() {
            stores.push(SUMMARIES);
        }
        if !self.records.is_empty() {
            stores.push(RECORDS);
        }
        stores
    }

    /// Where the messages go if the batch fits the stored meta: `start`, or the new length
    /// less the messages (`None`: no stored length fits, and the check refuses the write).
    fn position(&self) -> Option<u64> {
        self.start
            .or_else(|| self.length.checked_sub(u64::from(self.messages.length())))
    }

    /// Puts everything, behind the read of the stored meta that [`Write::check`] judges.
    fn put(&self, tx: &IdbTransaction) -> Result<(), JsValue> {
        let Some(position) = self.position() else {
            return Ok(());
        };
        let messages = tx.object_store(MESSAGES)?;
        for (i, message) in self.messages.iter().enumerate() {
            messages.put_with_key(&message, &key(&self.id, (position + i as u64) as f64))?;
        }
        // `add`: a seq already stored is a broken batch, which aborts the transaction.
        if !self.summaries.is_empty() {
            let summaries = tx.object_store(SUMMARIES)?;
            for (seq, summary) in &self.summaries {
                summaries.add_with_key(summary, &key(&self.id, f64::from(*seq)))?;
            }
        }
        if !self.records.is_empty() {
            let records = tx.object_store(RECORDS)?;
            for (seq, record) in &self.records {
                records.add_with_key(record, &key(&self.id, f64::from(*seq)))?;
            }
        }
        tx.object_store(META)?
            .put_with_key(&self.meta, &JsValue::from_str(&self.id))
            .map(|_| ())
    }

    /// Runs in the stored meta's `success` handler, inside the transaction: checks the
    /// stored version, and that the messages were put where the stored length says. An
    /// `Err` means nothing may be kept.
    fn check(&self, request: &IdbRequest) -> Result<(), Verdict> {
        let stored = request.result().map_err(Verdict::Failed)?;
        let (found, stored_length) = stored_meta(&stored).ok_or_else(|| {
            Verdict::Refused(Error::Store {
                operation: StoreOperation::Write,
                id: self.id.clone(),
                reason: "the stored meta has no whole version and length; nothing was written".into(),
            })
        })?;
        // A seq stored already is refused by `add` in `put`, which aborts the transaction.
        let held = schema::Held {
            version: found,
            length: stored_length,
            ..schema::Held::default()
        };
        schema::check_write(&self.id, self.expect, held, self.appended()).map_err(Verdict::Refused)?;
        // Where the messages were put: the stored length, which `check_length` just said
        // (it is the batch's `start` when given, and the new length less the messages).
        debug_assert_eq!(self.position(), Some(stored_length));
        Ok(())
    }
}

/// The object store `name` of `tx`.
fn store(tx: &IdbTransaction, at: &At, name: &str) -> Result<web_sys::IdbObjectStore, JsValue> {
    tx.object_store(name)
        .map_err(|e| from_dom(at, &format!("no IndexedDB object store {name:?}"), &e))
}

/// The key `[id, n]`: a message's index, a summary's or record's `seq`.
pub(super) fn key(id: &str, n: f64) -> JsValue {
    Array::of2(&JsValue::from_str(id), &JsValue::from_f64(n)).into()
}

/// `[id, []]`: above every `[id, number]` key (arrays sort after numbers).
fn upper(id: &str) -> JsValue {
    Array::of2(&JsValue::from_str(id), &Array::new()).into()
}

/// Every key `[id, n]`: from `[id]` (a prefix sorts first) to `[id, []]`.
fn everything(id: &str) -> Result<JsValue, JsValue> {
    IdbKeyRange::bound(&Array::of1(&JsValue::from_str(id)), &upper(id)).map(Into::into)
}

/// A finished request's result.
fn result(at: &At, request: &IdbRequest) -> Result<JsValue, JsValue> {
    request
        .result()
        .map_err(|e| with_cause(failed(at, "the IndexedDB request has no result".into()), &e))
}
