//! Bringing a conversation into wasm without sending what is already here.
//!
//! Chat apps call `countMessages`, `plan` and `compact` every turn with the same history
//! plus a message or two. Serialising the whole history to JSON and parsing it again costs
//! more than planning it, so each message object is sent once: JS remembers it in a
//! `WeakMap` with an id and a structural snapshot (its keys, lengths and leaf values, strings
//! kept by reference), and on the next call checks the object against the snapshot: a walk
//! over its nodes, not its bytes. A changed message (mutated in place, deeply or not) gets a
//! new id and is sent again. Rust keeps the JSON of every live id, and the last conversation
//! it built: the next call keeps that conversation up to the first message that differs
//! (usually the end: the array grew, or its last message was replaced) and parses only
//! what follows.
//! When JS collects a message object, a `FinalizationRegistry` queues its id and the next
//! call frees it here. Without `FinalizationRegistry`, nothing is kept: every call sends all.

use std::cell::RefCell;
use std::collections::HashMap;

use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::error::{invalid_argument, to_js};
use crate::messages::{Conversation, Format};
use crate::Error;

#[wasm_bindgen(inline_js = r#"
const seen = new WeakMap();
const dead = [];
const registry = typeof FinalizationRegistry === "function" ? new FinalizationRegistry((id) => dead.push(id)) : null;
let next = 1;
const ARRAY = { array: true };
const OBJECT = { object: true };
const binary = (v) => ArrayBuffer.isView(v) || v instanceof ArrayBuffer;
const replacer = (_key, v) => (binary(v) ? { $bytes: v.byteLength } : v);

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

export function describeMessages(input) {
  const items = Array.isArray(input) ? input : input?.messages;
  if (!Array.isArray(items)) return null;
  let envelope = null;
  if (!Array.isArray(input)) {
    const { messages: _, ...rest } = input;
    envelope = JSON.stringify(rest, replacer);
  }
  const ids = new Uint32Array(items.length);
  const fresh = [];
  for (let i = 0; i < items.length; i++) {
    const m = items[i];
    const cacheable = registry !== null && typeof m === "object" && m !== null;
    const known = cacheable ? seen.get(m) : undefined;
    if (known && same(m, known.snap, 0, 0) === known.snap.length) {
      ids[i] = known.id;
      continue;
    }
    const id = next++;
    ids[i] = id;
    fresh.push([id, m]);
    if (known) {
      registry.unregister(known);
      dead.push(known.id);
    }
    if (cacheable) {
      const entry = { id, snap: [] };
      try {
        snap(m, entry.snap, 0);
      } catch {
        continue; // too deep to remember: sent every time (JSON.stringify reports a cycle)
      }
      seen.set(m, entry);
      registry.register(m, entry.id, entry);
    }
  }
  return {
    ids,
    fresh: fresh.length ? JSON.stringify(fresh, replacer) : null,
    dead: Uint32Array.from(dead.splice(0)),
    envelope,
    keep: registry !== null,
  };
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = describeMessages, catch)]
    fn describe_messages(input: &JsValue) -> Result<JsValue, JsValue>;
}

/// The last conversation built, to extend when the next call's ids extend its own.
struct Recent {
    ids: Vec<u32>,
    envelope: Option<String>,
    format: Option<Format>,
    conv: Conversation,
}

thread_local! {
    /// The JSON of every message object JS still holds, by id.
    static STORE: RefCell<HashMap<u32, Value>> = RefCell::new(HashMap::new());
    static RECENT: RefCell<Option<Recent>> = const { RefCell::new(None) };
}

/// Forgets the last conversation (and the counts it remembers). The messages' JSON stays:
/// JS refers to it by id.
pub fn forget_recent() {
    RECENT.with(|r| r.borrow_mut().take());
}

/// A conversation read from JS; hand it back with [`Incoming::done`] when finished.
pub struct Incoming {
    /// The parsed conversation.
    pub conv: Conversation,
    ids: Vec<u32>,
    envelope: Option<String>,
    format: Option<Format>,
    keep: bool,
}

impl Incoming {
    /// Keeps the conversation for the next call to extend.
    pub fn done(self) {
        if self.keep {
            let recent = Recent {
                ids: self.ids,
                envelope: self.envelope,
                format: self.format,
                conv: self.conv,
            };
            RECENT.with(|r| *r.borrow_mut() = Some(recent));
        }
    }
}

fn get<T: JsCast>(obj: &JsValue, key: &str) -> Result<T, JsValue> {
    js_sys::Reflect::get(obj, &JsValue::from_str(key))?.dyn_into::<T>()
}

/// Reads `messages` (an array, or an object with a `messages` array) in `format`.
pub fn conversation_arg(messages: &JsValue, format: Option<Format>) -> Result<Incoming, JsValue> {
    let desc = describe_messages(messages).map_err(|_| {
        invalid_argument(
            "messages",
            "JSON-serialisable messages (no cycles, no BigInt)",
            messages,
        )
    })?;
    if desc.is_null() {
        return Err(to_js(Error::InvalidArgument {
            argument: "messages".into(),
            expected: format!(
                "an array of messages, or an object with a `messages` array, got {}",
                super::error::describe(messages)
            ),
        }));
    }
    let ids: Vec<u32> = get::<js_sys::Uint32Array>(&desc, "ids")?.to_vec();
    let dead: Vec<u32> = get::<js_sys::Uint32Array>(&desc, "dead")?.to_vec();
    let keep = js_sys::Reflect::get(&desc, &"keep".into())?
        .as_bool()
        .unwrap_or(false);
    let fresh = js_sys::Reflect::get(&desc, &"fresh".into())?.as_string();
    let envelope = js_sys::Reflect::get(&desc, &"envelope".into())?.as_string();

    // The new messages' JSON, by id.
    let fresh: Vec<(u32, Value)> = match fresh {
        None => Vec::new(),
        Some(text) => serde_json::from_str(&text).map_err(|e| {
            to_js(Error::InvalidArgument {
                argument: "messages".into(),
                expected: format!("JSON-serialisable messages ({e})"),
            })
        })?,
    };
    STORE.with(|store| {
        let mut store = store.borrow_mut();
        for id in &dead {
            store.remove(id);
        }
        if keep {
            for (id, value) in &fresh {
                store.insert(*id, value.clone());
            }
        }
    });
    let fresh: HashMap<u32, Value> = fresh.into_iter().collect();

    // Reuse the last conversation up to the first message that differs (the array grew, or
    // its last messages were replaced), and parse only what follows.
    let recent = RECENT.with(|r| r.borrow_mut().take());
    if let Some(mut recent) = recent.filter(|r| r.envelope == envelope && r.format == format) {
        let common = recent.ids.iter().zip(&ids).take_while(|(a, b)| a == b).count();
        if common > 0 {
            let more = ids[common..]
                .iter()
                .map(|id| take_item(*id, &fresh))
                .collect::<Result<Vec<_>, _>>()?;
            recent.conv.truncate(common);
            if recent.conv.append(more).map_err(to_js)? {
                return Ok(Incoming {
                    conv: recent.conv,
                    ids,
                    envelope,
                    format,
                    keep,
                });
            }
        }
    }

    // Otherwise build it: from the store and the new messages, without JSON parsing.
    let items = ids
        .iter()
        .map(|id| take_item(*id, &fresh))
        .collect::<Result<Vec<_>, _>>()?;
    let input = match &envelope {
        None => Value::Array(items),
        Some(text) => {
            let mut obj: serde_json::Map<String, Value> = serde_json::from_str(text).map_err(|e| {
                to_js(Error::InvalidArgument {
                    argument: "messages".into(),
                    expected: format!("JSON-serialisable data ({e})"),
                })
            })?;
            obj.insert("messages".into(), Value::Array(items));
            Value::Object(obj)
        }
    };
    let conv = Conversation::from_json(input, format).map_err(to_js)?;
    Ok(Incoming {
        conv,
        ids,
        envelope,
        format,
        keep,
    })
}

/// A message's JSON: just sent, or kept from an earlier call. (Copied, not taken: an
/// array may hold one object twice, and a conversation that cannot be extended is built
/// again from the same items.)
fn take_item(id: u32, fresh: &HashMap<u32, Value>) -> Result<Value, JsValue> {
    if let Some(v) = fresh.get(&id) {
        return Ok(v.clone());
    }
    STORE
        .with(|store| store.borrow().get(&id).cloned())
        .ok_or_else(|| {
            JsValue::from(js_sys::Error::new(&format!(
                "ctxfold: message {id} is not known (internal error)"
            )))
        })
}
