//! Opening the database at the current schema version, upgrading an older one in the
//! upgrade's own transaction (all of it or none of it: an upgrade that fails leaves the
//! database as it was).

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use js_sys::{Array, Function, Promise, Reflect};
use wasm_bindgen::prelude::*;
use web_sys::{
    Event, IdbCursorWithValue, IdbDatabase, IdbFactory, IdbOpenDbRequest, IdbRequest, IdbTransaction,
};

use super::call::key;
use super::{failed, from_dom, with_cause, At};
use crate::error::StoreOperation;
use crate::indexeddb::{self as schema, UpgradeStep, MESSAGES, META, RECORDS, STORES, SUMMARIES};
use crate::indexeddb::{SCHEMA_VERSION, V1_CONVERSATIONS};

/// Why an upgrade failed, kept for `finish`.
type Failure = Rc<RefCell<Option<JsValue>>>;

/// The version 1 split's cursor handler, made during the upgrade and kept until `finish`.
type CursorHandler = Rc<RefCell<Option<Closure<dyn FnMut()>>>>;

/// Opening the database, stepped by `lib/indexeddb.js`: `done()`, then `finish(event)`.
/// Not part of the public API.
#[wasm_bindgen(js_name = IdbOpen, skip_typescript)]
pub struct IdbOpen {
    request: IdbOpenDbRequest,
    done: Promise,
    blocked: Rc<Cell<bool>>,
    failure: Failure,
    _on_upgrade: Closure<dyn FnMut(web_sys::IdbVersionChangeEvent)>,
    _on_blocked: Closure<dyn FnMut()>,
    _cursor: CursorHandler,
}

#[wasm_bindgen(js_class = IdbOpen)]
impl IdbOpen {
    /// Starts opening `name` at [`SCHEMA_VERSION`].
    pub fn start(name: String) -> Result<IdbOpen, JsValue> {
        let factory = Reflect::get(&js_sys::global(), &JsValue::from_str("indexedDB"))
            .ok()
            .filter(|f| f.is_object())
            .ok_or_else(|| {
                failed(
                    &At::new(StoreOperation::Open, ""),
                    "this runtime has no IndexedDB (no global indexedDB)".into(),
                )
            })?
            .unchecked_into::<IdbFactory>();
        let request = factory.open_with_u32(&name, SCHEMA_VERSION).map_err(|e| {
            from_dom(
                &At::new(StoreOperation::Open, ""),
                &format!("could not open IndexedDB database {name:?}"),
                &e,
            )
        })?;
        let done = Promise::new(&mut |resolve, _reject| {
            request.set_onsuccess(Some(&resolve));
            request.set_onerror(Some(&resolve));
        });
        let blocked = Rc::new(Cell::new(false));
        let on_blocked = {
            let blocked = blocked.clone();
            Closure::<dyn FnMut()>::new(move || blocked.set(true))
        };
        request.set_onblocked(Some(on_blocked.as_ref().unchecked_ref()));
        let failure: Failure = Rc::default();
        let cursor: CursorHandler = Rc::default();
        let on_upgrade = {
            let (request, failure, cursor) = (request.clone(), failure.clone(), Rc::clone(&cursor));
            Closure::<dyn FnMut(_)>::new(move |event: web_sys::IdbVersionChangeEvent| {
                let from = event.old_version() as u32;
                if let Err(e) = upgrade(&request, from, &failure, &cursor) {
                    fail(&failure, &request.transaction(), e);
                }
            })
        };
        request.set_onupgradeneeded(Some(on_upgrade.as_ref().unchecked_ref()));
        Ok(IdbOpen {
            request,
            done,
            blocked,
            failure,
            _on_upgrade: on_upgrade,
            _on_blocked: on_blocked,
            _cursor: cursor,
        })
    }

    /// Resolves with the open request's `success` or `error` event.
    pub fn done(&self) -> Promise {
        self.done.clone()
    }

    /// Whether another connection at an older version blocks the upgrade.
    pub fn blocked(&self) -> bool {
        self.blocked.get()
    }

    /// The open database, once `done()` resolved with `event`; or the typed error.
    pub fn finish(self, event: &Event) -> Result<JsValue, JsValue> {
        if event.type_() == "success" {
            let db: IdbDatabase = self
                .request
                .result()
                .map_err(|e| from_dom(&At::new(StoreOperation::Open, ""), "", &e))?
                .unchecked_into();
            // A database of that name and version that another library made.
            if let Some(name) = STORES.iter().find(|n| !db.object_store_names().contains(n)) {
                db.close();
                return Err(failed(
                    &At::new(StoreOperation::Open, ""),
                    format!(
                        "the IndexedDB database {:?} has no {name:?} store: it is not ctxfold's (another library's?); give IndexedDBStore a database name of its own",
                        db.name()
                    ),
                ));
            }
            // Another tab upgrading or deleting the database asks this connection to close;
            // the next call opens it again.
            let close = Reflect::get(&db, &JsValue::from_str("close"))?
                .unchecked_into::<Function>()
                .bind0(&db);
            db.set_onversionchange(Some(&close));
            return Ok(db.into());
        }
        if let Some(err) = self.failure.borrow_mut().take() {
            return Err(err);
        }
        let dom = self.request.error().ok().flatten();
        Err(match dom {
            Some(dom) if dom.name() == "VersionError" => with_cause(
                failed(&At::new(StoreOperation::Open, ""),
                    format!(
                        "the IndexedDB database has a schema version above {SCHEMA_VERSION}, written by a newer ctxfold ({})",
                        dom.message()
                    ),
                ),
                &dom,
            ),
            Some(dom) => from_dom(&At::new(StoreOperation::Open, ""), "could not open the IndexedDB database", &dom),
            None => failed(&At::new(StoreOperation::Open, ""), "the IndexedDB database could not be opened".into()),
        })
    }
}

/// Records `err` as the upgrade's failure and aborts its transaction.
fn fail(failure: &Failure, tx: &Option<IdbTransaction>, err: JsValue) {
    if let Ok(mut slot) = failure.try_borrow_mut() {
        slot.get_or_insert(err);
    }
    if let Some(tx) = tx {
        let _ = tx.abort();
    }
}

/// The `upgradeneeded` handler: brings a database at version `from` to the current schema.
fn upgrade(
    request: &IdbOpenDbRequest,
    from: u32,
    failure: &Failure,
    cursor: &CursorHandler,
) -> Result<(), JsValue> {
    let steps = schema::upgrade(from).map_err(crate::wasm::error::to_js)?;
    let db: IdbDatabase = request
        .result()
        .map_err(|e| from_dom(&At::new(StoreOperation::Open, ""), "", &e))?
        .unchecked_into();
    let tx = request.transaction().ok_or_else(|| {
        failed(
            &At::new(StoreOperation::Open, ""),
            "the upgrade has no transaction".into(),
        )
    })?;
    for step in steps {
        match step {
            UpgradeStep::CreateStores => {
                for name in STORES {
                    if !db.object_store_names().contains(name) {
                        db.create_object_store(name).map_err(|e| {
                            from_dom(
                                &At::new(StoreOperation::Open, ""),
                                &format!("could not create object store {name:?}"),
                                &e,
                            )
                        })?;
                    }
                }
            }
            UpgradeStep::SplitConversations => {
                // Version 1 with no ctxfold store: another library's database by that name.
                if !db.object_store_names().contains(V1_CONVERSATIONS) {
                    return Err(failed(
                        &At::new(StoreOperation::Open, ""),
                        format!(
                            "the IndexedDB database {:?} is at version 1 without ctxfold's {V1_CONVERSATIONS:?} store: it is not ctxfold's (another library's?); give IndexedDBStore a database name of its own",
                            db.name()
                        ),
                    ));
                }
                let walk = tx
                    .object_store(V1_CONVERSATIONS)
                    .and_then(|s| s.open_cursor())
                    .map_err(|e| {
                        from_dom(
                            &At::new(StoreOperation::Open, ""),
                            "could not read schema version 1",
                            &e,
                        )
                    })?;
                let on_step = {
                    let (walk, tx, db, failure) = (walk.clone(), tx.clone(), db.clone(), failure.clone());
                    Closure::<dyn FnMut()>::new(move || {
                        if let Err(e) = split_one(&walk, &tx, &db) {
                            fail(&failure, &Some(tx.clone()), e);
                        }
                    })
                };
                walk.set_onsuccess(Some(on_step.as_ref().unchecked_ref()));
                if let Ok(mut slot) = cursor.try_borrow_mut() {
                    *slot = Some(on_step);
                }
            }
        }
    }
    Ok(())
}

/// One step of the version 1 split: the conversation under the cursor goes into the current
/// stores, then the cursor moves on; past the last one, `conversations` is deleted.
fn split_one(walk: &IdbRequest, tx: &IdbTransaction, db: &IdbDatabase) -> Result<(), JsValue> {
    let context = "upgrading from schema version 1";
    let at = walk
        .result()
        .map_err(|e| from_dom(&At::new(StoreOperation::Open, ""), context, &e))?;
    if at.is_null() || at.is_undefined() {
        return db
            .delete_object_store(V1_CONVERSATIONS)
            .map_err(|e| from_dom(&At::new(StoreOperation::Open, ""), context, &e));
    }
    let cursor: IdbCursorWithValue = at.unchecked_into();
    let record = cursor
        .value()
        .map_err(|e| from_dom(&At::new(StoreOperation::Open, ""), context, &e))?;
    let get = |key: &str| Reflect::get(&record, &JsValue::from_str(key)).unwrap_or_default();
    let id = get("id").as_string().ok_or_else(|| {
        failed(
            &At::new(StoreOperation::Open, ""),
            format!("{context}: a conversation record without a string id"),
        )
    })?;
    let list = |key: &str| -> Result<Array, JsValue> {
        let v = get(key);
        if v.is_undefined() {
            Ok(Array::new())
        } else if Array::is_array(&v) {
            Ok(v.unchecked_into())
        } else {
            Err(failed(
                &At::new(StoreOperation::Open, ""),
                format!("{context}: conversation {id:?} has {key} that is not an array"),
            ))
        }
    };
    let put = |name: &str, value: &JsValue, key: &JsValue| {
        tx.object_store(name)
            .and_then(|s| s.put_with_key(value, key))
            .map(|_| ())
            .map_err(|e| from_dom(&At::new(StoreOperation::Open, ""), context, &e))
    };
    for (i, message) in list("messages")?.iter().enumerate() {
        put(MESSAGES, &message, &key(&id, i as f64))?;
    }
    // Keyed by their `seq`, as writes key them (their place in the list, had one none).
    let seq = |value: &JsValue, i: usize| {
        Reflect::get(value, &JsValue::from_str("seq"))
            .ok()
            .and_then(|s| s.as_f64())
            .and_then(schema::counter)
            .map_or(i as f64, f64::from)
    };
    for (i, summary) in list("summaries")?.iter().enumerate() {
        put(SUMMARIES, &summary, &key(&id, seq(&summary, i)))?;
    }
    for (i, record) in list("records")?.iter().enumerate() {
        put(RECORDS, &record, &key(&id, seq(&record, i)))?;
    }
    let meta = get("meta");
    if meta.is_object() {
        put(META, &meta, &JsValue::from_str(&id))?;
    }
    cursor
        .continue_()
        .map_err(|e| from_dom(&At::new(StoreOperation::Open, ""), context, &e))
}
