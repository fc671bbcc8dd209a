//! One `Compactor` call, stepped by `lib/compactor.js`: what it needs next, the answers to
//! it, and its result, each a synchronous wasm call.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Array, Object, Reflect};
use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::super::error::{describe, to_js};
use super::super::options::{self, json_arg};
use super::super::reply::reply_from;
use super::super::to_plain;
use crate::compact::types::Timings;
use crate::error::StoreOperation;
use crate::session::events::{outcome_events, CompactionFailedEvent, CompactorEvent};
use crate::session::request_key::request_key;
use crate::session::{Call, Done, Piece, Sessions, Step, StoredMeta};
use crate::Error;

/// One `Compactor` call in progress, stepped by `lib/compactor.js`. Not part of the public API.
#[wasm_bindgen(js_name = CompactorCall, skip_typescript)]
pub struct CompactorCall {
    sessions: Rc<RefCell<Sessions>>,
    call: Option<Call>,
}

fn set(obj: &Object, key: &str, value: &JsValue) -> Result<(), JsValue> {
    Reflect::set(obj, &JsValue::from_str(key), value).map(|_| ())
}

/// JS answered `step` with `got`: the call is at another step (`lib/compactor.js` stepped it
/// out of order).
fn out_of_order(step: &Step<'_>, got: &'static str) -> JsValue {
    to_js(Error::CallOutOfOrder {
        expected: step.name(),
        got,
    })
}

/// `events` as the handlers get them, `error` set on each `compactionFailed`.
fn events_js(events: &[CompactorEvent], error: &JsValue) -> Result<Array, JsValue> {
    let out = Array::new();
    for event in events {
        let obj: Object = to_plain(event)?.unchecked_into();
        if matches!(
            event,
            CompactorEvent::CompactionFailed(CompactionFailedEvent { .. })
        ) {
            set(&obj, "error", error)?;
        }
        out.push(&obj);
    }
    Ok(out)
}

/// `requests`, each as `{ key, request }`: the request with its chat messages, and the key
/// that says which summary made ahead answers it.
fn keyed(requests: &[crate::compact::Request]) -> Result<Array, JsValue> {
    let list = Array::new();
    for r in requests {
        let request = to_plain(r)?;
        Reflect::set(&request, &"messages".into(), &to_plain(&r.chat_messages())?)?;
        let entry = Object::new();
        set(&entry, "key", &request_key(r).into())?;
        set(&entry, "request", &request)?;
        list.push(&entry);
    }
    Ok(list)
}

impl CompactorCall {
    /// A call of the compactor whose sessions are `sessions`.
    pub(super) fn new(sessions: Rc<RefCell<Sessions>>, call: Call) -> Self {
        CompactorCall {
            sessions,
            call: Some(call),
        }
    }
}

#[wasm_bindgen(js_class = CompactorCall)]
impl CompactorCall {
    fn inner(&mut self) -> Result<&mut Call, JsValue> {
        self.call.as_mut().ok_or_else(|| {
            to_js(Error::Internal {
                reason: "a Compactor call was used after it ended".into(),
            })
        })
    }

    /// What the call needs now: `{ load: true }`, `{ read: from }`, `{ summarize: [{ key,
    /// request }], plan? }`, `{ finish: true }`, `{ write: batch, expect }` or `{ done: true }`;
    /// each with `events` (to send now, in order) and `owed` (the `compactionFailed` a
    /// failure would send, while a start is open).
    pub fn next(&mut self) -> Result<JsValue, JsValue> {
        let call = self.inner()?;
        let events = call.due();
        let owed = call.owed();
        let out = Object::new();
        set(&out, "events", &events_js(&events, &JsValue::UNDEFINED)?.into())?;
        if let Some(owed) = owed {
            set(&out, "owed", &to_plain(&owed)?)?;
        }
        match call.step() {
            Step::Load(_) => set(&out, "load", &JsValue::TRUE)?,
            Step::Read(read) => set(&out, "read", &(read.from() as f64).into())?,
            Step::Summarize(s) => set(&out, "summarize", &keyed(s.requests())?.into())?,
            Step::Finish(_) => set(&out, "finish", &JsValue::TRUE)?,
            Step::Write(w) => {
                if let Some(batch) = w.batch() {
                    set(&out, "write", &to_plain(batch)?)?;
                }
                set(&out, "expect", &w.expects().into())?;
            }
            Step::Done => set(&out, "done", &JsValue::TRUE)?,
        }
        Ok(out.into())
    }

    /// Answers `{ load }` without the store when the core may go on from the meta it wrote
    /// last (`length`: the history items JS holds); `false`: load from the store.
    #[wasm_bindgen(js_name = assumeCached)]
    pub fn assume_cached(&mut self, length: u32) -> Result<bool, JsValue> {
        match self.inner()?.step() {
            Step::Load(load) => (load.assume_cached(length as usize))
                .map(|handle| handle.is_none())
                .map_err(to_js),
            other => Err(out_of_order(&other, "assumeCached")),
        }
    }

    /// The store's `load(id)`; `length`: how many history items JS holds for the
    /// conversation. Returns how many of them JS keeps (the rest the core no longer trusts).
    pub fn loaded(&mut self, meta: JsValue, length: u32) -> Result<u32, JsValue> {
        let call = self.inner()?;
        let meta = if meta.is_null() || meta.is_undefined() {
            None
        } else {
            let bad = |reason: String| {
                to_js(Error::Store {
                    operation: StoreOperation::Load,
                    id: call.id().to_owned(),
                    reason,
                })
            };
            if !meta.is_object() {
                return Err(bad(format!("returned {}, not a meta or null", describe(&meta))));
            }
            let value = json_arg("meta", &meta).map_err(|e| bad(options::js_message(&e)))?;
            let meta: StoredMeta = serde_json::from_value(value)
                .map_err(|e| bad(format!("returned a meta that does not read ({e})")))?;
            Some(meta)
        };
        match self.inner()?.step() {
            Step::Load(load) => (load.loaded(meta, length as usize))
                .map(|kept| kept as u32)
                .map_err(to_js),
            other => Err(out_of_order(&other, "loaded")),
        }
    }

    /// The store's `messages(id, from)`.
    pub fn read(&mut self, items: JsValue) -> Result<(), JsValue> {
        let call = self.inner()?;
        if !Array::is_array(&items) {
            return Err(to_js(Error::Store {
                operation: StoreOperation::Messages,
                id: call.id().to_owned(),
                reason: format!("returned {}, not an array", describe(&items)),
            }));
        }
        let items = match json_arg("messages", &items)? {
            Value::Array(items) => items,
            _ => Vec::new(),
        };
        match self.inner()?.step() {
            Step::Read(read) => read.read(items).map_err(to_js),
            other => Err(out_of_order(&other, "read")),
        }
    }

    /// The summarizer's replies: each `{ value }` or `{ failed }` (as `compact()` passes them).
    pub fn submit(&mut self, replies: Array) -> Result<(), JsValue> {
        let replies = replies.iter().map(|r| reply_from(&r)).collect();
        match self.inner()?.step() {
            Step::Summarize(s) => s.submit(replies).map_err(to_js),
            other => Err(out_of_order(&other, "submit")),
        }
    }

    /// Answers the summaries with the built-in extractive summary.
    #[wasm_bindgen(js_name = submitExtractive)]
    pub fn submit_extractive(&mut self) -> Result<(), JsValue> {
        match self.inner()?.step() {
            Step::Summarize(s) => s.submit_extractive().map_err(to_js),
            other => Err(out_of_order(&other, "submitExtractive")),
        }
    }

    /// The call's timings, in milliseconds.
    pub fn finish(&mut self, plan_ms: f64, summarize_ms: f64, total_ms: f64) -> Result<(), JsValue> {
        let timings = Timings {
            plan_ms,
            summarize_ms,
            total_ms,
        };
        match self.inner()?.step() {
            Step::Finish(f) => f.finish(timings).map_err(to_js),
            other => Err(out_of_order(&other, "finish")),
        }
    }

    /// The write landed.
    pub fn written(&mut self) -> Result<(), JsValue> {
        match self.inner()?.step() {
            Step::Write(w) => w.written().map_err(to_js),
            other => Err(out_of_order(&other, "written")),
        }
    }

    /// The store refused the write as stale (`error`: what it threw); `found`: the version it
    /// holds, if it said. Gives `{ events, error? }`: the events to send now (the
    /// `compactionFailed` of a started compaction, `retried`), and the call's error when it
    /// gives up (`STALE_WRITE` after its attempts), which JS throws after sending them.
    pub fn stale(&mut self, found: JsValue, error: JsValue) -> Result<JsValue, JsValue> {
        let found = found.as_f64().filter(|n| *n >= 0.0).map(|n| n as u32);
        let call = self.inner()?;
        let went = match call.step() {
            Step::Write(w) => w.stale(found),
            other => return Err(out_of_order(&other, "stale")),
        };
        let out = Object::new();
        set(&out, "events", &events_js(&call.due(), &error)?.into())?;
        if let Err(e) = went {
            set(&out, "error", &to_js(e))?;
        }
        Ok(out.into())
    }

    /// The call fails with `error`: the events to send (a started compaction's
    /// `compactionFailed`).
    pub fn fail(&mut self, error: JsValue) -> Result<Array, JsValue> {
        let events = self.inner()?.fail();
        events_js(&events, &error)
    }

    /// The result, once the call reached its write (the core makes it with the batch, so JS
    /// takes it while the store writes) or is done. `prepare` and `compact`: `{ pieces, system?, tools?, ...outcome }`,
    /// where each piece is a history index (an item JS holds) or `{ item, of? }`: an item
    /// ctxfold made, a changed copy of history item `of` when it is one; `events`: the ones
    /// to send once the write landed, in order; `madeAheadSpent`: whether the summaries made
    /// ahead answer nothing from now on. `ahead`: `[{ key, request }]`.
    pub fn result(&mut self) -> Result<JsValue, JsValue> {
        let call = self.inner()?;
        let id = call.id().to_owned();
        let done = call.take_done().ok_or_else(|| {
            to_js(Error::Internal {
                reason: "a Compactor call's result was asked for before it finished".into(),
            })
        })?;
        match done {
            Done::Prepared(p) => {
                let out: Object = to_plain(&p.outcome)?.unchecked_into();
                let pieces = Array::new();
                for piece in &p.pieces {
                    pieces.push(&match piece {
                        Piece::Keep(i) => (*i as f64).into(),
                        Piece::Item { item, of } => {
                            let obj = Object::new();
                            set(&obj, "item", &to_plain(item)?)?;
                            if let Some(i) = of {
                                set(&obj, "of", &(*i as f64).into())?;
                            }
                            obj.into()
                        }
                    });
                }
                set(&out, "pieces", &pieces)?;
                let events = outcome_events(&id, &p.outcome);
                set(&out, "events", &events_js(&events, &JsValue::UNDEFINED)?.into())?;
                set(&out, "madeAheadSpent", &p.spends_made_ahead().into())?;
                for (key, value) in [("system", &p.system), ("tools", &p.tools)] {
                    if let Some(v) = value {
                        set(&out, key, &to_plain(v)?)?;
                    }
                }
                Ok(out.into())
            }
            Done::Committed(c) => to_plain(&c),
            Done::Undone(u) => to_plain(&u),
            Done::Status(s) => to_plain(&s),
            Done::Searched(hits) => to_plain(&hits),
            Done::Recalled(r) => to_plain(&r),
            Done::Ahead(requests) => Ok(keyed(&requests)?.into()),
        }
    }

    /// Ends the call (finished or not): `{ kept, dropped }`, how many history items the core
    /// keeps for the conversation (`null`: none), which JS keeps as many of, and the
    /// conversations whose cached histories it dropped, which JS drops too.
    pub fn end(&mut self) -> Result<JsValue, JsValue> {
        match self.call.take() {
            Some(call) => to_plain(&self.sessions.borrow_mut().end(call)),
            None => to_plain(&crate::session::Ended {
                kept: None,
                dropped: Vec::new(),
            }),
        }
    }
}
