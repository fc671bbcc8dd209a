//! Bringing a conversation into wasm without sending what is already here.
//!
//! Chat apps call `countMessages`, `plan` and `compact` every turn with the same history
//! plus a message or two. Serialising the whole history to JSON and parsing it again costs
//! more than planning it, so each message object is sent once: JS remembers it in a
//! `WeakMap` with an id and a structural snapshot (its keys, lengths and leaf values, strings
//! kept by reference), and on the next call checks the object against the snapshot: a walk
//! over its nodes, not its bytes. A changed message (mutated in place, deeply or not) gets a
//! new id and is sent again. Rust keeps the JSON of recent ids (a bounded store), and the
//! last conversation it built: the next call keeps that conversation up to the first
//! message that differs (usually the end: the array grew, or its last message was replaced)
//! and parses only what follows.
//!
//! Robustness, in order of the ways this can go wrong:
//! - JS registers the messages of a call only after Rust has stored their JSON
//!   ([`commit`]): a message that fails to serialise or parse (a cycle, a BigInt, a
//!   throwing getter) leaves no trace, and the good messages beside it work on the next call.
//! - The store is bounded ([`STORE_BYTES`]); an id it no longer holds (evicted, or lost with
//!   a restarted module) is not an error: the call asks JS to send every message again.
//! - `clearCaches()` and a module restart empty the store and bump a generation in JS, so
//!   no snapshot from before is trusted.
//! - Strings are sent well-formed: a lone UTF-16 surrogate (which JSON text may carry but
//!   JSON parsers reject) becomes U+FFFD, as it does when a string crosses into wasm anywhere
//!   else (`countTokens("x\ud83d")`).
//! - The caller's array is copied once, at the start: an output built after an `await`
//!   refers to the objects of that moment, whatever the caller does to the array meanwhile.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::rc::Rc;

use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::error::{describe, to_js};
use super::options::js_message;
use crate::count::Memo;
use crate::messages::{Conversation, MessageFormat, Out};
use crate::Error;

#[wasm_bindgen(module = "/src/wasm/js/transfer.js")]
extern "C" {
    #[wasm_bindgen(js_name = describeMessages, catch)]
    fn describe_messages(input: &JsValue, all: bool) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch)]
    fn commit(pending: &JsValue) -> Result<(), JsValue>;
    #[wasm_bindgen(js_name = forgetMessages)]
    fn forget_messages();
    #[wasm_bindgen(js_name = restoreOriginal, catch)]
    fn restore_original_js(copy: &JsValue, original: &JsValue) -> Result<JsValue, JsValue>;
}

/// `copy` (made through JSON from the caller's item `original`) with every part ctxfold
/// did not change replaced by the caller's own value.
pub fn restore_original(copy: JsValue, original: &JsValue) -> JsValue {
    restore_original_js(&copy, original).unwrap_or(copy)
}

/// The most JSON text the store keeps; the oldest entries go first. A chat history's
/// messages are all sent on the first call and found in the last conversation after that,
/// so the store only saves work when calls interleave conversations; it must not hold every
/// message a long-lived page ever sent.
const STORE_BYTES: usize = 4 << 20;

/// The JSON text of recently sent messages, by id, oldest first. Text, not parsed values:
/// its memory is what it says (a parsed value takes several times its text), and it is
/// parsed again only when a conversation must be built anew.
#[derive(Default)]
struct Store {
    json: HashMap<u32, Box<str>>,
    order: VecDeque<u32>,
    bytes: usize,
}

impl Store {
    fn insert(&mut self, id: u32, text: &str) {
        self.bytes += text.len();
        if let Some(old) = self.json.insert(id, text.into()) {
            self.bytes -= old.len();
        }
        self.order.push_back(id);
        while self.bytes > STORE_BYTES {
            let Some(old) = self.order.pop_front() else { break };
            self.remove(old);
        }
    }

    fn remove(&mut self, id: u32) {
        if let Some(text) = self.json.remove(&id) {
            self.bytes -= text.len();
        }
    }
}

/// The last conversation built, to extend when the next call's ids extend its own.
struct Recent {
    ids: Vec<u32>,
    envelope: Option<String>,
    format: Option<MessageFormat>,
    conv: Conversation,
    memo: Memo,
}

thread_local! {
    static STORE: RefCell<Store> = RefCell::new(Store::default());
    static RECENT: RefCell<Option<Recent>> = const { RefCell::new(None) };
}

/// Forgets everything: the last conversation, the stored JSON, and (in JS) every message
/// object registered so far.
pub fn forget_all() {
    RECENT.with(|r| r.borrow_mut().take());
    STORE.with(|s| *s.borrow_mut() = Store::default());
    forget_messages();
}

/// Runs `f` with the store borrowed (for the test of a trap in the middle of a call).
pub fn while_holding_the_store(f: impl FnOnce()) {
    STORE.with(|s| {
        let _held = s.borrow_mut();
        f();
    });
}

/// A conversation read from JS; hand it back with [`Incoming::done`] when finished.
pub struct Incoming {
    /// The parsed conversation (shared with a compaction while one runs).
    pub conv: Rc<Conversation>,
    /// Its message counts, remembered for the next call.
    pub memo: Memo,
    /// The caller's items, copied when the call began (the objects to send back).
    pub items: js_sys::Array,
    /// For an object with a `messages` array, its other fields, copied when the call began.
    pub envelope_object: Option<js_sys::Object>,
    ids: Vec<u32>,
    envelope: Option<String>,
    format: Option<MessageFormat>,
    keep: bool,
}

impl Incoming {
    /// The output of a compaction as the caller's shape: kept items are the caller's own
    /// objects, new and changed ones are rendered in its format (with every part ctxfold did
    /// not change restored to the caller's value), inside the caller's envelope if it had
    /// one. Hands the conversation back ([`Incoming::done`]).
    pub fn output(self, order: &[Out]) -> Result<JsValue, JsValue> {
        let items = js_sys::Array::new();
        for o in order {
            items.push(&match o {
                Out::Keep(i) => self.items.get(*i as u32),
                Out::New(_) => super::to_plain(&self.conv.render_item(o))?,
                Out::Edited { index, .. } | Out::Truncated { index, .. } | Out::Merged { index, .. } => {
                    let copy = super::to_plain(&self.conv.render_item(o))?;
                    restore_original(copy, &self.items.get(*index as u32))
                }
            });
        }
        let messages: JsValue = match &self.envelope_object {
            None => items.into(),
            Some(envelope) => {
                let obj = js_sys::Object::assign(&js_sys::Object::new(), envelope);
                js_sys::Reflect::set(&obj, &"messages".into(), &items)?;
                obj.into()
            }
        };
        self.done();
        Ok(messages)
    }

    /// Keeps the conversation for the next call to extend (if nothing else holds it).
    pub fn done(self) {
        if !self.keep {
            return;
        }
        if let Ok(conv) = Rc::try_unwrap(self.conv) {
            let recent = Recent {
                ids: self.ids,
                envelope: self.envelope,
                format: self.format,
                conv,
                memo: self.memo,
            };
            RECENT.with(|r| *r.borrow_mut() = Some(recent));
        }
    }
}

/// What JS said about a call's messages.
struct Described {
    ids: Vec<u32>,
    items: js_sys::Array,
    envelope_object: Option<js_sys::Object>,
    fresh: Option<String>,
    dead: Vec<u32>,
    envelope: Option<String>,
    keep: bool,
    pending: JsValue,
}

fn field(obj: &JsValue, key: &str) -> JsValue {
    // The object is our own, made by describeMessages: reading it cannot throw.
    js_sys::Reflect::get(obj, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

fn describe_call(messages: &JsValue, all: bool) -> Result<Described, JsValue> {
    let desc = describe_messages(messages, all).map_err(|e| {
        to_js(Error::InvalidArgument {
            argument: "messages".into(),
            expected: format!(
                "JSON-serialisable messages (no cycles, no BigInt, no throwing getters): {}",
                js_message(&e)
            ),
        })
    })?;
    if desc.is_null() {
        return Err(to_js(Error::InvalidArgument {
            argument: "messages".into(),
            expected: format!(
                "an array of messages, or an object with a `messages` array, got {}",
                describe(messages)
            ),
        }));
    }
    let u32s = |key| {
        field(&desc, key)
            .dyn_into::<js_sys::Uint32Array>()
            .map(|a| a.to_vec())
            .unwrap_or_default()
    };
    Ok(Described {
        ids: u32s("ids"),
        dead: u32s("dead"),
        items: field(&desc, "items").unchecked_into(),
        envelope_object: Some(field(&desc, "envelopeObject"))
            .filter(|o| o.is_object())
            .map(JsCast::unchecked_into),
        fresh: field(&desc, "fresh").as_string(),
        envelope: field(&desc, "envelope").as_string(),
        keep: field(&desc, "keep").as_bool().unwrap_or(false),
        pending: field(&desc, "pending"),
    })
}

/// Reads `messages` (an array, or an object with a `messages` array) in `format`.
pub fn conversation_arg(messages: &JsValue, format: Option<MessageFormat>) -> Result<Incoming, JsValue> {
    let d = describe_call(messages, false)?;
    match read(d, format)? {
        Ok(incoming) => Ok(incoming),
        // An id the store no longer holds: everything again, from JS.
        Err(Missing) => match read(describe_call(messages, true)?, format)? {
            Ok(incoming) => Ok(incoming),
            Err(Missing) => Err(to_js(Error::InvalidArgument {
                argument: "messages".into(),
                expected: "messages that can be read (sent twice, still incomplete: an internal error)"
                    .into(),
            })),
        },
    }
}

/// An id neither sent now nor stored.
struct Missing;

/// How deeply JSON may nest. serde_json's own limit is 128, which valid messages can pass
/// (a tool call's arguments); past this, parsing would risk the wasm stack.
const MAX_DEPTH: usize = 512;

/// Parses JSON text that may nest up to [`MAX_DEPTH`] levels.
fn parse<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, JsValue> {
    let bad = |reason: String| {
        to_js(Error::InvalidArgument {
            argument: "messages".into(),
            expected: format!("JSON-serialisable messages ({reason})"),
        })
    };
    if depth(text) > MAX_DEPTH {
        return Err(bad(format!("nested more than {MAX_DEPTH} levels deep")));
    }
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let value = T::deserialize(&mut de).map_err(|e| bad(e.to_string()))?;
    de.end().map_err(|e| bad(e.to_string()))?;
    Ok(value)
}

/// The deepest nesting of arrays and objects in JSON text.
fn depth(text: &str) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for &b in text.as_bytes() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

fn read(d: Described, format: Option<MessageFormat>) -> Result<Result<Incoming, Missing>, JsValue> {
    // The new messages' JSON, by id: each one's text as it came, and parsed.
    let raw: Vec<(u32, Box<serde_json::value::RawValue>)> = match &d.fresh {
        None => Vec::new(),
        Some(text) => parse(text)?,
    };
    let fresh: Vec<(u32, Value)> = raw
        .iter()
        .map(|(id, text)| Ok((*id, parse(text.get())?)))
        .collect::<Result<_, JsValue>>()?;
    // Rust has the JSON now: JS may register the objects.
    STORE.with(|store| {
        let mut store = store.borrow_mut();
        for id in &d.dead {
            store.remove(*id);
        }
        if d.keep {
            for (id, text) in &raw {
                store.insert(*id, text.get());
            }
        }
    });
    drop(raw);
    if d.keep {
        commit(&d.pending)?;
    }
    let fresh: HashMap<u32, Value> = fresh.into_iter().collect();

    // Reuse the last conversation up to the first message that differs (the array grew, or
    // its last messages were replaced), and parse only what follows.
    let recent = RECENT.with(|r| r.borrow_mut().take());
    if let Some(mut recent) = recent.filter(|r| r.envelope == d.envelope && r.format == format) {
        let common = recent.ids.iter().zip(&d.ids).take_while(|(a, b)| a == b).count();
        if common > 0 {
            let Some(more) = d.ids[common..]
                .iter()
                .map(|id| item(*id, &fresh))
                .collect::<Option<Vec<_>>>()
            else {
                return Ok(Err(Missing));
            };
            recent.conv.truncate(common);
            recent.memo.truncate(common);
            if recent.conv.append(more).map_err(to_js)? {
                return Ok(Ok(Incoming {
                    conv: Rc::new(recent.conv),
                    memo: recent.memo,
                    items: d.items,
                    envelope_object: d.envelope_object,
                    ids: d.ids,
                    envelope: d.envelope,
                    format,
                    keep: d.keep,
                }));
            }
        }
    }

    // Otherwise build it: from the store and the new messages, without JSON parsing.
    let Some(items) = d
        .ids
        .iter()
        .map(|id| item(*id, &fresh))
        .collect::<Option<Vec<_>>>()
    else {
        return Ok(Err(Missing));
    };
    let input = match &d.envelope {
        None => Value::Array(items),
        Some(text) => {
            let mut obj: serde_json::Map<String, Value> = parse(text)?;
            obj.insert("messages".into(), Value::Array(items));
            Value::Object(obj)
        }
    };
    let conv = Conversation::from_json(input, format).map_err(to_js)?;
    Ok(Ok(Incoming {
        conv: Rc::new(conv),
        memo: Memo::default(),
        items: d.items,
        envelope_object: d.envelope_object,
        ids: d.ids,
        envelope: d.envelope,
        format,
        keep: d.keep,
    }))
}

/// A message's JSON: just sent, or kept from an earlier call. (Copied, not taken: an
/// array may hold one object twice, and a conversation that cannot be extended is built
/// again from the same items.)
fn item(id: u32, fresh: &HashMap<u32, Value>) -> Option<Value> {
    if let Some(v) = fresh.get(&id) {
        return Some(v.clone());
    }
    STORE.with(|store| {
        let store = store.borrow();
        parse(store.json.get(&id)?).ok()
    })
}
