//! `IndexedDBStore`'s IO: every IndexedDB call the store makes, through web-sys. The layout
//! and the rules (object stores, keys, upgrades, the version check) are the core's
//! ([`crate::indexeddb`]).
//!
//! The package's JavaScript (`pkg-template/lib/indexeddb.js`) steps each call as it steps a
//! `compact()`: `IdbOpen::start` or one of `IdbCall`'s constructors makes the
//! transaction and its requests in one synchronous wasm call; JS awaits `done()`, a promise
//! whose `resolve` is the transaction's (or open request's) own event handler, so it settles
//! when IndexedDB says so and no Rust runs to settle it; then `finish(event)` reads the
//! answer or words the error. No Rust future is involved: a trap can only happen inside a
//! guarded synchronous call, where it rejects the caller's promise, and JS gives every call a
//! deadline besides.
//!
//! The one step that cannot wait for JS is a write's version check: it has to read the
//! stored meta and decide to keep the write or not inside the same transaction, before it
//! commits. The write's puts are made with the read of the meta, so the whole write is one
//! round trip to IndexedDB; the check runs in the meta request's `success` handler
//! ([`call`]), synchronously, before the transaction can commit, and aborts it (nothing is
//! kept) when the batch does not fit the stored meta. If that handler threw, IndexedDB would
//! abort the transaction too (an exception in a `success` handler does), so a write is whole
//! or absent whatever happens.

mod call;
mod open;

use js_sys::Reflect;
use wasm_bindgen::prelude::*;
use web_sys::{IdbDatabase, IdbTransaction, IdbTransactionMode};

use super::error::to_js;
use crate::error::StoreOperation;
use crate::indexeddb::IndexedDBStoreOptions;
use crate::Error;

/// Which call an error belongs to: the operation, and the conversation's id (`""` for
/// `open` and `list`), as `STORE_ERROR`'s message shows them (`store.write("c") failed: ...`).
#[derive(Clone)]
struct At {
    operation: StoreOperation,
    id: String,
}

impl At {
    fn new(operation: StoreOperation, id: &str) -> At {
        At {
            operation,
            id: id.to_owned(),
        }
    }
}

/// What a store takes and is, declared once: the options are the core's
/// (`IndexedDBStoreOptions`, generated); this is the class.
#[wasm_bindgen(typescript_custom_section)]
const TS_INDEXEDDB: &str = include_str!("indexeddb.d.ts");

/// Reads `new IndexedDBStore(options)`'s options (for `lib/indexeddb.js`): `{ database,
/// timeoutMs }` with the defaults filled in.
#[wasm_bindgen(js_name = idbOptions, skip_typescript)]
pub fn options(options: JsValue) -> Result<JsValue, JsValue> {
    let read = super::options::read::<IndexedDBStoreOptions>("options", &options, &[], true)?;
    let out = js_sys::Object::new();
    Reflect::set(&out, &"database".into(), &read.value.database().into())?;
    Reflect::set(
        &out,
        &"timeoutMs".into(),
        &(read.value.timeout_ms() as f64).into(),
    )?;
    Ok(out.into())
}

/// The error of a call that missed its deadline (for `lib/indexeddb.js`). `blocked`: the
/// database could not be opened because another tab holds it open at an older version.
#[wasm_bindgen(js_name = idbTimeout, skip_typescript)]
pub fn timeout(operation: String, id: String, ms: f64, blocked: bool) -> JsValue {
    let operation = match operation.parse::<StoreOperation>() {
        Ok(operation) => operation,
        Err(e) => return to_js(e),
    };
    let why = if blocked {
        "; the IndexedDB database is being upgraded and another tab keeps it open at the older version (close or reload that tab)"
    } else {
        ""
    };
    failed(
        &At::new(operation, &id),
        format!("no answer within {ms} ms{why}; the call was aborted and wrote nothing"),
    )
}

/// `error` (a DOMException, or anything IndexedDB threw) as the typed error of the call
/// `at`, with `error` as its `cause`: `QUOTA_EXCEEDED` for a `QuotaExceededError`, else
/// `STORE_ERROR`.
fn from_dom(at: &At, context: &str, error: &JsValue) -> JsValue {
    let text = |key: &str| {
        Reflect::get(error, &JsValue::from_str(key))
            .ok()
            .and_then(|v| v.as_string())
            .unwrap_or_default()
    };
    let (name, message) = (text("name"), text("message"));
    let what = match (name.is_empty(), message.is_empty()) {
        (true, true) => super::error::describe(error),
        (false, true) => name.clone(),
        (true, false) => message,
        (false, false) => format!("{name}: {message}"),
    };
    let reason = if context.is_empty() {
        what
    } else {
        format!("{context}: {what}")
    };
    let (operation, id) = (at.operation, at.id.clone());
    let err = if name == "QuotaExceededError" {
        Error::QuotaExceeded {
            operation,
            id,
            reason,
        }
    } else {
        Error::Store {
            operation,
            id,
            reason,
        }
    };
    with_cause(to_js(err), error)
}

/// `err` with `cause` set (on a fresh Error, setting a property cannot fail).
fn with_cause(err: JsValue, cause: &JsValue) -> JsValue {
    let _ = Reflect::set(&err, &JsValue::from_str("cause"), cause);
    err
}

/// A `STORE_ERROR` of the call `at` with no DOM error behind it.
fn failed(at: &At, reason: String) -> JsValue {
    to_js(Error::Store {
        operation: at.operation,
        id: at.id.clone(),
        reason,
    })
}

/// A transaction over `stores`. A connection that is closing (another tab deleted or
/// upgraded the database, or `close()` was called) throws `InvalidStateError`, which JS
/// answers by opening the database again.
fn transaction(
    at: &At,
    db: &IdbDatabase,
    stores: &[&str],
    mode: IdbTransactionMode,
) -> Result<IdbTransaction, JsValue> {
    let names = js_sys::Array::new();
    for s in stores {
        names.push(&JsValue::from_str(s));
    }
    db.transaction_with_str_sequence_and_mode(&names, mode)
        .map_err(|e| from_dom(at, "could not start an IndexedDB transaction", &e))
}

/// A promise that resolves with the first `complete` or `abort` event of `tx`. Its resolve
/// function is the handler itself: no Rust runs when it settles.
fn settled(tx: &IdbTransaction) -> js_sys::Promise {
    js_sys::Promise::new(&mut |resolve, _reject| {
        tx.set_oncomplete(Some(&resolve));
        tx.set_onabort(Some(&resolve));
    })
}

/// Closes a connection (for `lib/indexeddb.js`'s `close()`, and a connection found closing).
#[wasm_bindgen(js_name = idbClose, skip_typescript)]
pub fn close(db: &IdbDatabase) {
    db.close();
}
