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

#[wasm_bindgen(inline_js = r#"
const seen = new WeakMap();
const dead = [];
const registry = typeof FinalizationRegistry === "function" ? new FinalizationRegistry((id) => dead.push(id)) : null;
let next = 1;
// Snapshots of an older generation are not trusted (clearCaches, a restarted module).
let generation = 0;
const ARRAY = { array: true };
const OBJECT = { object: true };
const binary = (v) => ArrayBuffer.isView(v) || v instanceof ArrayBuffer;
// The holder's own value: the replacer is handed a value after its toJSON (a Buffer's is
// { type: "Buffer", data: [...] }, which would be counted as an array of numbers).
const replacer = function (key, v) {
  const own = this[key];
  return binary(own) ? { $bytes: own.byteLength } : v;
};

// JSON.stringify writes a lone surrogate as an escape (\udXXX) that JSON parsers reject:
// make each one U+FFFD. An escape preceded by an odd number of backslashes is text.
const loneSurrogate = /(\\*)\\u(d[89a-f][0-9a-f]{2})/gi;
function wellFormed(json) {
  if (!json.includes("\\ud") && !json.includes("\\uD")) return json;
  return json.replace(loneSurrogate, (all, slashes) => (slashes.length % 2 ? all : `${slashes}\\ufffd`));
}

function snap(v, out, depth) {
  if (depth > 256) throw new TypeError("too deep");
  if (v === null || typeof v !== "object" || binary(v)) { out.push(v); return; }
  if (typeof v.toJSON === "function") { out.push(JSON.stringify(v)); return; }
  if (Array.isArray(v)) {
    out.push(ARRAY, v.length);
    for (let i = 0; i < v.length; i++) snap(v[i], out, depth + 1);
    return;
  }
  const keys = Object.keys(v);
  out.push(OBJECT, keys.length);
  for (const k of keys) { out.push(k); snap(v[k], out, depth + 1); }
}

// The index after v's part of the snapshot, or -1 if v differs from it.
function same(v, s, i, depth) {
  if (depth > 256) return -1;
  if (v === null || typeof v !== "object" || binary(v)) return s[i] === v ? i + 1 : -1;
  if (typeof v.toJSON === "function") return s[i] === JSON.stringify(v) ? i + 1 : -1;
  if (Array.isArray(v)) {
    if (s[i] !== ARRAY || s[i + 1] !== v.length) return -1;
    i += 2;
    for (let k = 0; k < v.length && i >= 0; k++) i = same(v[k], s, i, depth + 1);
    return i;
  }
  const keys = Object.keys(v);
  if (s[i] !== OBJECT || s[i + 1] !== keys.length) return -1;
  i += 2;
  for (const k of keys) {
    if (s[i] !== k) return -1;
    i = same(v[k], s, i + 1, depth + 1);
    if (i < 0) return -1;
  }
  return i;
}

// Reads a call's messages: ids for all, the JSON of those Rust has not seen, and what to
// register once Rust has stored them (see commit). With `all`, every message is sent.
export function describeMessages(input, all) {
  const isArray = Array.isArray(input);
  const list = isArray ? input : input?.messages;
  if (!Array.isArray(list)) return null;
  const items = Array.prototype.slice.call(list);
  let envelope = null;
  let envelopeObject = null;
  if (!isArray) {
    const { messages: _, ...rest } = input;
    envelope = wellFormed(JSON.stringify(rest, replacer));
    envelopeObject = rest;
  }
  const ids = new Uint32Array(items.length);
  const fresh = [];
  const pending = [];
  for (let i = 0; i < items.length; i++) {
    const m = items[i];
    const cacheable = registry !== null && typeof m === "object" && m !== null;
    const known = cacheable && !all ? seen.get(m) : undefined;
    if (known && known.generation === generation && same(m, known.snap, 0, 0) === known.snap.length) {
      ids[i] = known.id;
      continue;
    }
    const id = next++;
    ids[i] = id;
    fresh.push([id, m]);
    if (cacheable) {
      const entry = { id, snap: [], generation };
      try {
        snap(m, entry.snap, 0);
      } catch {
        continue; // too deep to remember: sent every time (JSON.stringify reports a cycle)
      }
      pending.push(m, entry);
    }
  }
  return {
    ids,
    items,
    fresh: fresh.length ? wellFormed(JSON.stringify(fresh, replacer)) : null,
    dead: Uint32Array.from(dead.splice(0)),
    envelope,
    envelopeObject,
    keep: registry !== null,
    pending,
  };
}

// Registers the messages of a described call: Rust has their JSON now.
export function commit(pending) {
  for (let k = 0; k < pending.length; k += 2) {
    const m = pending[k];
    const entry = pending[k + 1];
    const old = seen.get(m);
    if (old) {
      registry.unregister(old);
      dead.push(old.id);
    }
    seen.set(m, entry);
    registry.register(m, entry.id, entry);
  }
}

// Nothing registered before now is trusted again.
export function forgetMessages() {
  generation++;
}

// A copy ctxfold made of one of the caller's messages (a pruned tool result, a message a
// summary went into, a message cut to fit) is rendered from JSON, where binary data became
// { $bytes: n }, lone surrogates U+FFFD, Dates strings, and keys sorted. Every part of the
// copy equal (as JSON) to the original's part at the same place becomes the original value
// itself, keys in the original's order: only what ctxfold changed is new. An array one
// longer than the original's is taken as one with a part put first (a merged summary), and
// a string that ends with the original as one with text put first.
function sameJson(copy, original) {
  try {
    // As Rust saw the original: binary as markers, lone surrogates as U+FFFD.
    const sent = wellFormed(JSON.stringify(original, replacer));
    return sent !== undefined && JSON.stringify(copy) === JSON.stringify(JSON.parse(sent));
  } catch {
    return false;
  }
}
export function restoreOriginal(copy, original) {
  const restore = (c, o, depth) => {
    if (depth > 256) return c;
    if (sameJson(c, o)) return o;
    // A string that ends with the original as Rust saw it is the original with text put
    // first (a merged summary): the original's own characters are kept (a lone surrogate,
    // which Rust saw as U+FFFD).
    if (typeof c === "string" && typeof o === "string") {
      const seen = JSON.parse(wellFormed(JSON.stringify(o)));
      return seen !== o && c.endsWith(seen) ? c.slice(0, c.length - seen.length) + o : c;
    }
    if (c === null || o === null || typeof c !== "object" || typeof o !== "object" || binary(o)) return c;
    if (Array.isArray(c)) {
      if (!Array.isArray(o)) return c;
      const shift = c.length - o.length;
      if (shift !== 0 && shift !== 1) return c;
      return c.map((v, i) => (i - shift >= 0 ? restore(v, o[i - shift], depth + 1) : v));
    }
    if (Array.isArray(o)) return c;
    const out = {};
    for (const k of Object.keys(o)) if (Object.hasOwn(c, k)) out[k] = restore(c[k], o[k], depth + 1);
    for (const k of Object.keys(c)) if (!Object.hasOwn(out, k)) out[k] = c[k];
    return out;
  };
  return restore(copy, original, 0);
}
"#)]
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
