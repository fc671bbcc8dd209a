//! The `Compactor` from JavaScript: a translation around the core's [`Sessions`], and the
//! TypeScript of the class, its store contract and its stores.
//!
//! [`CompactorCore`] holds one compactor's [`Sessions`] (the options, and each conversation's
//! history parsed once and extended); each call makes a [`CompactorCall`], which the
//! package's JavaScript (`pkg-template/lib/compactor.js`) steps as `compact.js` steps a
//! `CompactCall`: `next()` says what the call needs (the meta, history from an index,
//! summaries, the timings, a write), JS awaits the store or the summarizer and hands the
//! answer back, until `next()` says it is done. Every step is a synchronous wasm call inside
//! the caller's promise, so an error or a trap in any of them rejects it. Each step and the
//! result carry the events to send, and each summarizer request its key. JS keeps its own
//! copy of each conversation's history items (the objects it returns), as long as the core's
//! cache: `end()` says how long that is after each call, and which conversations' caches it
//! dropped ([`call`]). The store contract's TypeScript is in [`stores`].

mod call;
mod stores;
mod views;

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Object, Reflect};
use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::error::{invalid_argument, to_js};
use super::options::{self, json_arg};
use crate::options::{ImportOptions, ManualCompactOptions, SearchOptions};
use crate::recall::tool::{RecallArgs, RecallToolOptions};
use crate::session::options::{CompactorOptions, CompactorSettings, SET_ASIDE};
use crate::session::{refused, Around, Call, ExportedConversation, Sessions, REFUSED_OPTIONS};
use crate::Error;
use call::CompactorCall;

/// The `Compactor` class and what its calls take and give (the class itself is
/// `pkg-template/lib/compactor.js`; the shapes of results and records are generated).
#[wasm_bindgen(typescript_custom_section)]
const TS_COMPACTOR: &str = include_str!("compactor.d.ts");

/// One compactor's core: its options and the conversations' caches. Not part of the public
/// API (the `Compactor` class in `lib/compactor.js` holds one).
#[wasm_bindgen(js_name = CompactorCore, skip_typescript)]
pub struct CompactorCore {
    sessions: Rc<RefCell<Sessions>>,
    settings: CompactorSettings,
}

/// A conversation id: a non-empty string, well-formed UTF-16.
/// A number that JSON cannot carry, as JavaScript writes it.
fn js_number(n: f64) -> &'static str {
    match n {
        f64::INFINITY => "Infinity",
        f64::NEG_INFINITY => "-Infinity",
        _ => "NaN",
    }
}

/// A count in a usage report (at `path`) that JSON cannot carry, with its path: `NaN` or
/// `Infinity`, which `JSON.stringify` would write as `null` (read as no count at all).
fn non_finite_count(usage: &JsValue, path: &str, depth: u8) -> Option<(String, f64)> {
    if depth > 2 || !usage.is_object() {
        return None;
    }
    crate::session::usage::REPORT_KEYS.iter().find_map(|key| {
        // A getter that throws is left to the JSON copy, which says so.
        let v = Reflect::get(usage, &JsValue::from_str(key)).ok()?;
        let at = format!("{path}.{key}");
        match v.as_f64() {
            Some(n) if !n.is_finite() => Some((at, n)),
            Some(_) => None,
            None => non_finite_count(&v, &at, depth + 1),
        }
    })
}

fn conversation_id(id: &JsValue) -> Result<String, JsValue> {
    // A lone surrogate (half an emoji, from a cut string) would be read as U+FFFD, and two
    // ids would name one conversation.
    let whole = id
        .dyn_ref::<js_sys::JsString>()
        .is_some_and(|s| s.is_valid_utf16());
    match id.as_string() {
        Some(s) if !s.is_empty() && whole => Ok(s),
        _ => Err(invalid_argument(
            "conversationId",
            "a non-empty string without lone surrogates (half of an emoji)",
            id,
        )),
    }
}

/// History items: an array (or, where `one` allows, a single message object).
fn items_arg(argument: &str, value: &JsValue, one: bool) -> Result<Vec<Value>, JsValue> {
    match json_arg(argument, value)? {
        Value::Array(items) => Ok(items),
        obj @ Value::Object(_) if one => Ok(vec![obj]),
        _ => Err(invalid_argument(
            argument,
            if one {
                "a message or an array of messages"
            } else {
                "an array of messages"
            },
            value,
        )),
    }
}

#[wasm_bindgen(js_class = CompactorCore)]
impl CompactorCore {
    /// `options`: the user's options object as it is ([`CompactorOptions`]; the values only
    /// JavaScript holds are skipped). `seed`: the epochs of new conversations.
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue, seed: f64) -> Result<CompactorCore, JsValue> {
        let read = options::read_set_aside::<serde_json::Map<String, Value>, CompactorOptions>(
            "options",
            &options,
            &["summarizer"],
            &SET_ASIDE,
        )?;
        // Refused by their keys: `state: null` would read as no state.
        if let Some(key) = REFUSED_OPTIONS.iter().find(|k| read.value.contains_key(**k)) {
            return Err(to_js(refused(key)));
        }
        let options: CompactorOptions =
            crate::options::from_value("options", &Value::Object(read.value)).map_err(to_js)?;
        let settings = options.settings();
        let sessions = Sessions::with_options(options, seed as u64).map_err(to_js)?;
        Ok(CompactorCore {
            sessions: Rc::new(RefCell::new(sessions)),
            settings,
        })
    }

    /// What JS needs of the options to await calls, defaults applied: `{ attempts,
    /// maxCachedConversations, storeTimeoutMs, prepareAhead, ownKeys }` (`ownKeys`: the keys
    /// that are not `compact()`'s options).
    #[wasm_bindgen(getter)]
    pub fn settings(&self) -> Result<JsValue, JsValue> {
        super::to_plain(&self.settings)
    }

    /// Checks a conversation id (for the calls JS makes without the core).
    #[wasm_bindgen(js_name = checkId)]
    pub fn check_id(id: JsValue) -> Result<String, JsValue> {
        conversation_id(&id)
    }

    /// The names of the events a `Compactor` sends, in the docs' order.
    pub fn events() -> Vec<String> {
        (crate::session::events::CompactorEventName::ALL.iter())
            .map(|e| e.as_str().to_owned())
            .collect()
    }

    fn call(&self, make: impl FnOnce(&mut Sessions) -> Call) -> CompactorCall {
        let call = make(&mut self.sessions.borrow_mut());
        CompactorCall::new(Rc::clone(&self.sessions), call)
    }

    /// `prepare(id, newMessages)`: an array, or `{ messages, system?, tools? }`.
    pub fn prepare(&self, id: JsValue, messages: JsValue, now: String) -> Result<CompactorCall, JsValue> {
        const EXPECTED: &str = "an array of messages, or { messages, system?, tools? }";
        let id = conversation_id(&id)?;
        let (items, around) = match json_arg("newMessages", &messages)? {
            Value::Array(items) => (items, Around::default()),
            Value::Object(mut obj) => {
                if let Some(key) = obj
                    .keys()
                    .find(|k| !["messages", "system", "tools"].contains(&k.as_str()))
                {
                    return Err(to_js(Error::InvalidArgument {
                        argument: format!("newMessages.{key}"),
                        expected: EXPECTED.into(),
                    }));
                }
                let field = |name: &str| Reflect::get(&messages, &name.into()).unwrap_or(JsValue::UNDEFINED);
                let tools = obj.remove("tools");
                if tools.as_ref().is_some_and(|t| !t.is_array() && !t.is_null()) {
                    let expected = "an array of tool definitions (null: none from now on)";
                    return Err(invalid_argument("newMessages.tools", expected, &field("tools")));
                }
                let around = Around {
                    system: obj.remove("system"),
                    tools,
                };
                match obj.remove("messages") {
                    Some(Value::Array(items)) => (items, around),
                    _ => {
                        return Err(invalid_argument(
                            "newMessages.messages",
                            "an array of messages",
                            &field("messages"),
                        ))
                    }
                }
            }
            _ => return Err(invalid_argument("newMessages", EXPECTED, &messages)),
        };
        Ok(self.call(|s| s.prepare(&id, items, around, Some(now))))
    }

    /// `commit(id, reply, usage?)`.
    pub fn commit(
        &self,
        id: JsValue,
        reply: JsValue,
        usage: JsValue,
        now: String,
    ) -> Result<CompactorCall, JsValue> {
        let id = conversation_id(&id)?;
        let reply = items_arg("reply", &reply, true)?;
        let usage = if usage.is_undefined() || usage.is_null() {
            None
        } else if let Some(n) = usage.as_f64() {
            if !n.is_finite() {
                return Err(to_js(Error::InvalidArgument {
                    argument: "usage".into(),
                    expected: format!("a count of input tokens, got {}", js_number(n)),
                }));
            }
            Some(serde_json::json!(n))
        } else {
            if let Some((path, n)) = non_finite_count(&usage, "usage", 0) {
                return Err(to_js(Error::InvalidArgument {
                    argument: path,
                    expected: format!("a count of input tokens, got {}", js_number(n)),
                }));
            }
            Some(json_arg("usage", &usage)?)
        };
        Ok(self.call(|s| s.commit(&id, reply, usage, Some(now))))
    }

    /// `compact(id, { instructions })`.
    pub fn compact(&self, id: JsValue, options: JsValue, now: String) -> Result<CompactorCall, JsValue> {
        let id = conversation_id(&id)?;
        let o = options::read::<ManualCompactOptions>("options", &options, &[], true)?.value;
        Ok(self.call(|s| s.compact(&id, o.instructions, Some(now))))
    }

    /// `prune(id)`.
    pub fn prune(&self, id: JsValue, now: String) -> Result<CompactorCall, JsValue> {
        let id = conversation_id(&id)?;
        Ok(self.call(|s| s.prune(&id, Some(now))))
    }

    /// `overflowed(id, error)`: `refusal` is what `readRefusal` read from the provider's error.
    pub fn overflowed(&self, id: JsValue, refusal: JsValue, now: String) -> Result<CompactorCall, JsValue> {
        let id = conversation_id(&id)?;
        let refusal: crate::refusal::Refusal = serde_json::from_value(json_arg("refusal", &refusal)?)
            .map_err(|e| {
                to_js(Error::InvalidArgument {
                    argument: "refusal".into(),
                    expected: format!("{{ tokens, limit }} as readRefusal gives it ({e})"),
                })
            })?;
        Ok(self.call(|s| s.overflowed(&id, refusal, Some(now))))
    }

    /// `undo(id)`.
    pub fn undo(&self, id: JsValue, now: String) -> Result<CompactorCall, JsValue> {
        let id = conversation_id(&id)?;
        Ok(self.call(|s| s.undo(&id, Some(now))))
    }

    /// `status(id)`.
    pub fn status(&self, id: JsValue) -> Result<CompactorCall, JsValue> {
        let id = conversation_id(&id)?;
        Ok(self.call(|s| s.status(&id)))
    }

    /// `search(id, query, { limit })`: the stored messages that best match `query`.
    pub fn search(&self, id: JsValue, query: JsValue, options: JsValue) -> Result<CompactorCall, JsValue> {
        let id = conversation_id(&id)?;
        let Some(query) = query.as_string() else {
            return Err(invalid_argument("query", "a string", &query));
        };
        let o = options::read::<SearchOptions>("options", &options, &[], true)?.value;
        let limit = o.limit().map_err(to_js)?;
        Ok(self.call(|s| s.search(&id, &query, limit)))
    }

    /// `recall(id, { query, limit })`: the messages the model's input does not hold that best
    /// match, within the recall budget, framed for a tool result. The arguments are the
    /// model's, checked here (`args.query`).
    pub fn recall(&self, id: JsValue, args: JsValue) -> Result<CompactorCall, JsValue> {
        let id = conversation_id(&id)?;
        let a = options::read::<RecallArgs>("args", &args, &[], false)?.value;
        let query = a.query().map_err(to_js)?.to_owned();
        Ok(self.call(|s| s.recall(&id, &query, a.limit())))
    }

    /// The recall tool's definition in `options.format`'s shape (`recallTool`). For the AI
    /// SDK its schema is wrapped by the SDK's own `jsonSchema` (what it throws is thrown as
    /// it is); the face adds `execute`.
    #[wasm_bindgen(js_name = recallTool)]
    pub fn recall_tool(options: JsValue) -> Result<JsValue, JsValue> {
        let read = options::read::<RecallToolOptions>("options", &options, &["jsonSchema"], false)?;
        let wrap = read.function("jsonSchema");
        read.value.check(wrap.is_some()).map_err(to_js)?;
        let definition = super::to_plain(&crate::recall::tool::definition(read.value.format))?;
        if let Some(wrap) = wrap {
            let key = JsValue::from_str("inputSchema");
            let schema = wrap.call1(&JsValue::NULL, &Reflect::get(&definition, &key)?)?;
            Reflect::set(&definition, &key, &schema)?;
        }
        Ok(definition)
    }

    /// The summarizer requests to make ahead of the next turn (`prepareAhead`); its result
    /// is an array of them (empty: nothing to prepare).
    pub fn ahead(&self, id: JsValue, now: String) -> Result<CompactorCall, JsValue> {
        let id = conversation_id(&id)?;
        Ok(self.call(|s| s.ahead(&id, Some(now))))
    }

    /// The options of `import` (checked), as `{ id, overwrite }`.
    #[wasm_bindgen(js_name = importOptions)]
    pub fn import_options(options: JsValue) -> Result<JsValue, JsValue> {
        let o = options::read::<ImportOptions>("options", &options, &[], true)?.value;
        if let Some(id) = &o.id {
            conversation_id(&JsValue::from_str(id)).map_err(|_| {
                to_js(Error::InvalidArgument {
                    argument: "options.id".into(),
                    expected: "a non-empty string without lone surrogates".into(),
                })
            })?;
        }
        let out = Object::new();
        Reflect::set(&out, &"id".into(), &o.id.map_or(JsValue::UNDEFINED, |s| s.into()))?;
        Reflect::set(&out, &"overwrite".into(), &o.overwrite.unwrap_or(false).into())?;
        Ok(out.into())
    }

    /// The batch that `import(data)` writes (expecting no conversation), under `id` or the
    /// one it was exported with: `{ id, batch }`.
    pub fn import(&self, data: JsValue, id: JsValue, now: String) -> Result<JsValue, JsValue> {
        let data: ExportedConversation = serde_json::from_value(json_arg("data", &data)?).map_err(|e| {
            to_js(Error::InvalidArgument {
                argument: "data".into(),
                expected: format!("a conversation as export() gives it ({e})"),
            })
        })?;
        let id = id.as_string();
        let batch = self
            .sessions
            .borrow_mut()
            .import(data, id, Some(now))
            .map_err(to_js)?;
        let out = Object::new();
        Reflect::set(&out, &"id".into(), &batch.meta.id.clone().into())?;
        Reflect::set(&out, &"batch".into(), &super::to_plain(&batch)?)?;
        Ok(out.into())
    }

    /// Forgets a conversation's cache (deleted, or replaced).
    pub fn forget(&self, id: String) {
        self.sessions.borrow_mut().forget(&id);
    }
}

/// `copy` (a changed copy of the history item `original`, made through JSON) with every
/// part ctxfold did not change replaced by the original's, keys in the original's order: as
/// `compact()` returns the caller's changed messages, so the two give the same bytes.
#[wasm_bindgen(js_name = __ctxfoldRestoreOriginal, skip_typescript)]
pub fn restore_original(copy: JsValue, original: JsValue) -> JsValue {
    super::transfer::restore_original(copy, &original)
}

/// A `STORE_ERROR` for a store method that failed (JS sets the original error as `cause`).
/// An `operation` that names no store method is `INTERNAL` (ctxfold's JS names them).
#[wasm_bindgen(js_name = __ctxfoldStoreError, skip_typescript)]
pub fn store_error(operation: String, id: String, reason: String) -> JsValue {
    to_js(match operation.parse::<crate::error::StoreOperation>() {
        Ok(operation) => Error::Store {
            operation,
            id,
            reason,
        },
        Err(e) => e,
    })
}

/// A `CONVERSATION_EXISTS` or `UNKNOWN_CONVERSATION` error for what JS finds in the store.
#[wasm_bindgen(js_name = __ctxfoldConversationError, skip_typescript)]
pub fn conversation_error(exists: bool, id: String) -> JsValue {
    to_js(if exists {
        Error::ConversationExists { id }
    } else {
        Error::UnknownConversation { id }
    })
}
