//! The `Compactor` from JavaScript: a translation around the core's [`Sessions`], and the
//! TypeScript of the class, its store contract and its stores.
//!
//! [`CompactorCore`] holds one compactor's [`Sessions`] (the options, and each conversation's
//! history parsed once and extended); each call makes a [`CompactorCall`], which the
//! package's JavaScript (`pkg-template/lib/compactor.js`) steps as `compact.js` steps a
//! `CompactCall`: `next()` says what the call needs (the meta, history from an index,
//! summaries, the timings, a write), JS awaits the store or the summarizer and hands the
//! answer back, until `next()` says it is done. Every step is a synchronous wasm call inside
//! the caller's promise, so an error or a trap in any of them rejects it. JS keeps its own
//! copy of each conversation's history items (the objects it returns), as long as the core's
//! cache: `end()` says how long that is after each call.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Array, Object, Reflect};
use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::error::{describe, invalid_argument, to_js};
use super::options::{self, json_arg};
use crate::compact::types::Timings;
use crate::options::{ImportOptions, ManualCompactOptions};
use crate::session::{
    refused, Call, Done, ExportedConversation, Piece, Sessions, Step, StoredMeta, REFUSED_OPTIONS,
};
use crate::Error;

/// The store contract, and the stores ctxfold ships (their code is in
/// `pkg-template/lib/compactor.js`).
#[wasm_bindgen(typescript_custom_section)]
const TS_STORE: &str = r#"
/**
 * Where a `Compactor` keeps its conversations. Implement it over anything that can hold JSON
 * and make one change atomic (KV with transactions, SQLite, IndexedDB, your server): every
 * method is async, and `write` is one transaction checked against a version. The meta,
 * summaries and records are ctxfold's (read only `meta.version`, `batch.start` and the `seq`
 * of summaries and records); messages are yours, stored as JSON. Copy values in and out, so
 * a caller changing an object later changes nothing stored. `tests/support/store-conformance.mjs`
 * in ctxfold's repository checks a store against this contract.
 *
 * ```ts
 * const rows = new Map<string, { meta: StoredMeta; messages: unknown[]; summaries: StoredSummary[]; records: CompactionRecord[] }>();
 * const copy = <T>(v: T): T => structuredClone(v);
 * const store: CompactorStore = {
 *   async load(id) { return copy(rows.get(id)?.meta ?? null); },
 *   async messages(id, from) { return copy(rows.get(id)?.messages.slice(from) ?? []); },
 *   async write(id, expect, batch) {
 *     const row = rows.get(id);
 *     if ((row?.meta.version ?? 0) !== expect) throw staleWriteError(id, expect, row?.meta.version ?? null);
 *     const next = row ?? { meta: batch.meta, messages: [], summaries: [], records: [] };
 *     next.messages.push(...copy(batch.messages));
 *     next.summaries.push(...copy(batch.summaries));
 *     next.records.push(...copy(batch.records));
 *     next.meta = copy(batch.meta);
 *     rows.set(id, next);
 *   },
 *   async summaries(id) { return copy(rows.get(id)?.summaries ?? []); },
 *   async records(id) { return copy(rows.get(id)?.records ?? []); },
 *   async list() { return [...rows.keys()]; },
 *   async delete(id) { rows.delete(id); },
 * };
 * ```
 */
export interface CompactorStore {
  /** The conversation's meta (small, read on every call), or `null` if there is none. */
  load(id: string): Promise<StoredMeta | null>;
  /** History items from index `from` on, in order (`[]` past the end, or for an unknown id). */
  messages(id: string, from: number): Promise<unknown[]>;
  /**
   * One transaction. Rejects with a `STALE_WRITE` error (see `staleWriteError`), writing
   * nothing, unless the stored meta's version is `expect` (0: no meta yet); else appends
   * `batch.messages` at `batch.start` (the stored meta's `length`), adds `batch.summaries` and
   * `batch.records`, and puts `batch.meta` (whose version is `expect + 1`).
   */
  write(id: string, expect: number, batch: WriteBatch): Promise<void>;
  /** Every summary written, in `seq` order (undone and folded ones too). */
  summaries(id: string): Promise<StoredSummary[]>;
  /** Every compaction record written, in `seq` order. */
  records(id: string): Promise<CompactionRecord[]>;
  /** The ids of the conversations stored. */
  list(): Promise<string[]>;
  /** Removes the conversation: meta, messages, summaries and records. */
  delete(id: string): Promise<void>;
  /**
   * For a store that several tabs of one origin share (IndexedDB): a name for it, so that
   * calls on one conversation also wait for each other across tabs through the Web Locks
   * API (`navigator.locks`, where present). Without it, only calls through one `Compactor`
   * wait for each other, and `write`'s version check keeps the others from losing anything.
   */
  readonly lockName?: string;
}

/**
 * The default store: conversations in this process's memory (gone when it ends), every value
 * copied in and out with `structuredClone`.
 *
 * ```ts
 * const store = new MemoryStore();
 * const compactor = new Compactor({ model: "gpt-4o", store });
 * await store.list(); // the conversations' ids
 * ```
 */
export class MemoryStore implements CompactorStore {
  constructor();
  load(id: string): Promise<StoredMeta | null>;
  messages(id: string, from: number): Promise<unknown[]>;
  write(id: string, expect: number, batch: WriteBatch): Promise<void>;
  summaries(id: string): Promise<StoredSummary[]>;
  records(id: string): Promise<CompactionRecord[]>;
  list(): Promise<string[]>;
  delete(id: string): Promise<void>;
}

/**
 * The error a store rejects a stale `write` with: a `CtxfoldError` whose `code` is
 * `"STALE_WRITE"`. `found` is the stored version (`null`: no conversation).
 *
 * ```ts
 * if (stored !== expect) throw staleWriteError(id, expect, stored ?? null);
 * ```
 */
export function staleWriteError(id: string, expected: number, found: number | null): CtxfoldError;
"#;

/// The `STALE_WRITE` error a store rejects a write with (declared above, with its docs).
#[wasm_bindgen(js_name = staleWriteError, skip_typescript)]
pub fn stale_write_error(id: JsValue, expected: JsValue, found: JsValue) -> JsValue {
    let number = |v: &JsValue| {
        v.as_f64()
            .filter(|n| *n >= 0.0 && n.fract() == 0.0)
            .map(|n| n as u32)
    };
    to_js(Error::StaleWrite {
        id: id.as_string().unwrap_or_default(),
        expected: number(&expected).unwrap_or(0),
        found: number(&found),
        attempts: 0,
    })
}

/// The `Compactor` class and what its calls take and give (the class itself is
/// `pkg-template/lib/compactor.js`; the shapes of results and records are generated).
#[wasm_bindgen(typescript_custom_section)]
const TS_COMPACTOR: &str = r#"
/** What a provider reported about a call's input: its usage object as it came (or a number). */
export type ProviderUsage =
  | number
  | {
      /** OpenAI Chat Completions. */
      prompt_tokens?: number;
      /** OpenAI Responses; Anthropic (without the cached part, added from the next two). */
      input_tokens?: number;
      /** Anthropic: input read from its prompt cache. */
      cache_read_input_tokens?: number | null;
      /** Anthropic: input written to its prompt cache. */
      cache_creation_input_tokens?: number | null;
      /** The AI SDK (`{ total }` in its provider-level usage). */
      inputTokens?: number | { total?: number | undefined } | undefined;
      /** Gemini. */
      promptTokenCount?: number;
      /** A whole response: its `usage`. */
      usage?: ProviderUsage | null;
      /** A whole Gemini response: its `usageMetadata`. */
      usageMetadata?: ProviderUsage | null;
      /** What else the provider reports (output tokens, details). */
      [other: string]: unknown;
    };

/** The events of a `Compactor`, by name, with what each handler gets. */
export interface CompactorEvents {
  /** A compaction is about to call the summarizer (show progress). */
  compactionStart: { conversationId: string; plan: CompactPlan };
  /** A compaction was stored: its record. */
  compactionEnd: { conversationId: string; record: CompactionRecord };
  /** The prune boundary moved: old tool outputs were shortened. */
  pruned: { conversationId: string; pruned: PruneReport };
  /** A fallback stood in for a summary the summarizer did not give. */
  fallback: { conversationId: string; fallback: FallbackUsed; record: CompactionRecord | null };
}

/** Options of a `Compactor`: `compact()`'s (without `state` and `manual`), a store, a summarizer and handlers. */
export interface CompactorOptions extends Omit<CompactOptions, "state" | "manual" | "summarizer"> {
  /** Where conversations are kept. Default: a new `MemoryStore`. */
  store?: CompactorStore;
  /** Who writes summaries: your LLM (a function), or the built-in extractive summary (default). */
  summarizer?: Summarizer | "extractive";
  /** Handlers to add at once, as `on(name, handler)` adds them. */
  on?: { [E in keyof CompactorEvents]?: (event: CompactorEvents[E]) => void };
  /** How many times a call loads again and redoes its work after a `STALE_WRITE` (another tab or isolate wrote first). Default 4. */
  writeRetries?: number;
}

/** The input `prepare` and `compact` return: send `messages` (and `system`, for Anthropic). */
export interface PrepareResult<M = unknown> extends PrepareOutcome {
  /** The model input: your stored messages where kept, new ones (summaries, pruned tool outputs) in your format. */
  messages: M[];
  /** Anthropic's top-level `system`, when the conversation has one. */
  system?: unknown;
}

/** One message of a conversation's full history. */
export interface HistoryEntry<M = unknown> {
  /** Its index: the message's stable id (the history is append-only). */
  index: number;
  /** The message, as stored. */
  message: M;
  /** The `seq` of the compaction that summarized it (`null`: never summarized, or only by an undone one). */
  summarizedBy: number | null;
}

/**
 * Conversations that remember: each `prepare` appends what is new to the stored history,
 * compacts when the input passes the threshold, stores what the compaction made, and
 * returns the model input; `commit` appends the reply and learns from the provider's usage.
 * Calls on one conversation run one after another (across tabs too, for a store with a
 * `lockName`, through `navigator.locks`); the store's version check keeps any other writer
 * from losing anything.
 *
 * ```ts
 * const compactor = new Compactor({ model: "gpt-4o", summarizer: mySummarizer });
 * const { messages } = await compactor.prepare("chat-42", [{ role: "user", content: "Hi!" }]);
 * const reply = await openai.chat.completions.create({ model: "gpt-4o", messages });
 * await compactor.commit("chat-42", reply.choices[0].message, reply.usage);
 * ```
 */
export declare class Compactor<M = unknown> {
  constructor(options: CompactorOptions);
  /** The store. */
  readonly store: CompactorStore;
  /**
   * Appends `newMessages` (what is new since the last call: the user's message, tool results)
   * to the stored history, compacts if the input passes the threshold, and returns the model
   * input `[head] [summaries] [tail] [new]`. For Anthropic pass `{ system, messages }`: the
   * `system` is kept (and replaced when another is passed).
   *
   * ```ts
   * const { messages, contextStatus, report } = await compactor.prepare(id, [userMessage]);
   * ```
   */
  prepare(conversationId: string, newMessages: readonly M[] | { messages: readonly M[]; system?: unknown }): Promise<PrepareResult<M>>;
  /**
   * Appends the model's reply (a message, or several: an assistant message with tool calls,
   * then the next step's), and with the provider's `usage` corrects the next trigger
   * decision: ctxfold's count of the input `prepare` returned against what the provider says.
   *
   * ```ts
   * await compactor.commit(id, response.choices[0].message, response.usage);
   * ```
   */
  commit(conversationId: string, reply: M | readonly M[], usage?: ProviderUsage | null): Promise<CommitOutcome>;
  /**
   * Compacts now, whatever the threshold (`/compact`), with `instructions` for the
   * summarizer; a summarizer that fails is an error (`SUMMARIZER_FAILED`), not a fallback.
   *
   * ```ts
   * const { report } = await compactor.compact(id, { instructions: "keep the API decisions" });
   * ```
   */
  compact(conversationId: string, options?: ManualCompactOptions): Promise<PrepareResult<M>>;
  /**
   * Undoes the latest compaction: its summaries drop out and the boundaries it moved come
   * back (the history is intact). The next `prepare` builds the input that turn would have
   * built without it, unless the threshold makes it compact again. `null` when there is
   * nothing to undo.
   *
   * ```ts
   * const undone = await compactor.undo(id); // { compaction: 3, chunks: 2, boundary: 41 }
   * ```
   */
  undo(conversationId: string): Promise<UndoOutcome | null>;
  /** The full history, each message with its index and the compaction that summarized it. */
  history(conversationId: string): Promise<HistoryEntry<M>[]>;
  /** Every summary made, oldest first (folded and undone ones too). */
  summaries(conversationId: string): Promise<StoredSummary[]>;
  /** One record per compaction, oldest first (`undone` set for those undone). */
  records(conversationId: string): Promise<CompactionRecord[]>;
  /**
   * Where the conversation stands: the window's use by part, the latest compaction, the
   * estimate's error per model. `null` for a conversation the store does not hold.
   *
   * ```ts
   * const s = await compactor.status(id);
   * meter.value = s.estimate.tokens / s.estimate.input;
   * ```
   */
  status(conversationId: string): Promise<ConversationStatus | null>;
  /** The ids of the stored conversations. */
  list(): Promise<string[]>;
  /** Removes a conversation from the store. */
  delete(conversationId: string): Promise<void>;
  /** The whole conversation as JSON-serialisable data, for `import`. */
  export(conversationId: string): Promise<ExportedConversation>;
  /** Stores an exported conversation (under `options.id`, or its own); resolves to its id. */
  import(data: ExportedConversation, options?: ImportOptions): Promise<string>;
  /**
   * Adds an event handler; returns a function that removes it.
   *
   * ```ts
   * const stop = compactor.on("compactionStart", () => spinner.show());
   * compactor.on("compactionEnd", ({ record }) => toast(`Compacted (${record.tokensBefore} -> ${record.tokensAfter})`));
   * ```
   */
  on<E extends keyof CompactorEvents>(name: E, handler: (event: CompactorEvents[E]) => void): () => void;
  /** Removes an event handler. */
  off<E extends keyof CompactorEvents>(name: E, handler: (event: CompactorEvents[E]) => void): void;
}

/** What `durableObjectStore` uses of a Durable Object's `ctx.storage`. */
export interface DurableObjectStorageLike {
  get(key: string): Promise<unknown>;
  get(keys: string[]): Promise<Map<string, unknown>>;
  list(options?: { prefix?: string; start?: string }): Promise<Map<string, unknown>>;
  transaction<T>(closure: (txn: DurableObjectTransactionLike) => Promise<T>): Promise<T>;
}

/** What `durableObjectStore` uses of a Durable Object storage transaction. */
export interface DurableObjectTransactionLike {
  get(key: string): Promise<unknown>;
  get(keys: string[]): Promise<Map<string, unknown>>;
  put(entries: Record<string, unknown>): Promise<void>;
  delete(keys: string[]): Promise<number>;
  list(options?: { prefix?: string; start?: string }): Promise<Map<string, unknown>>;
}

/**
 * A store over a Durable Object's storage (`ctx.storage`): one `write` is one
 * `storage.transaction`. One Durable Object per conversation is how this scales past one
 * machine; one object may also hold many. Values larger than Durable Object storage takes
 * are split across keys.
 *
 * ```ts
 * export class Chat extends DurableObject {
 *   compactor = new Compactor({ model: "claude-sonnet-4-5", store: durableObjectStore(this.ctx.storage) });
 * }
 * ```
 */
export function durableObjectStore(storage: DurableObjectStorageLike, options?: { prefix?: string }): CompactorStore;
"#;

/// One compactor's core: its options and the conversations' caches. Not part of the public
/// API (the `Compactor` class in `lib/compactor.js` holds one).
#[wasm_bindgen(js_name = CompactorCore, skip_typescript)]
pub struct CompactorCore {
    sessions: Rc<RefCell<Sessions>>,
}

/// A conversation id: a non-empty string.
fn conversation_id(id: &JsValue) -> Result<String, JsValue> {
    match id.as_string() {
        Some(s) if !s.is_empty() => Ok(s),
        _ => Err(invalid_argument("conversationId", "a non-empty string", id)),
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
    /// `options`: `compact()`'s, less what JS keeps (`store`, `on`, `writeRetries`; the
    /// summarizer function is taken out here). `attempts`: writes tried before `STALE_WRITE`.
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue, attempts: u32, seed: f64) -> Result<CompactorCore, JsValue> {
        let read =
            options::read::<serde_json::Map<String, Value>>("options", &options, &["summarizer"], false)?;
        // Refused by their keys: `state: null` would read as no state.
        if let Some(key) = REFUSED_OPTIONS.iter().find(|k| read.value.contains_key(**k)) {
            return Err(to_js(refused(key)));
        }
        let value = crate::options::from_value("options", &Value::Object(read.value)).map_err(to_js)?;
        let sessions = Sessions::new(value, attempts, seed as u64).map_err(to_js)?;
        Ok(CompactorCore {
            sessions: Rc::new(RefCell::new(sessions)),
        })
    }

    /// Checks a conversation id (for the calls JS makes without the core).
    #[wasm_bindgen(js_name = checkId)]
    pub fn check_id(id: JsValue) -> Result<String, JsValue> {
        conversation_id(&id)
    }

    fn call(&self, make: impl FnOnce(&mut Sessions) -> Call) -> CompactorCall {
        let call = make(&mut self.sessions.borrow_mut());
        CompactorCall {
            sessions: Rc::clone(&self.sessions),
            call: Some(call),
        }
    }

    /// `prepare(id, newMessages)`: an array, or `{ messages, system? }`.
    pub fn prepare(&self, id: JsValue, messages: JsValue, now: String) -> Result<CompactorCall, JsValue> {
        let id = conversation_id(&id)?;
        let (items, system) = match json_arg("newMessages", &messages)? {
            Value::Array(items) => (items, None),
            Value::Object(mut obj) => {
                if let Some(key) = obj.keys().find(|k| *k != "messages" && *k != "system") {
                    return Err(to_js(Error::InvalidArgument {
                        argument: format!("newMessages.{key}"),
                        expected: "an array of messages, or { messages, system? }".into(),
                    }));
                }
                let system = obj.remove("system");
                match obj.remove("messages") {
                    Some(Value::Array(items)) => (items, system),
                    _ => {
                        return Err(invalid_argument(
                            "newMessages.messages",
                            "an array of messages",
                            &Reflect::get(&messages, &"messages".into()).unwrap_or(JsValue::UNDEFINED),
                        ))
                    }
                }
            }
            _ => {
                return Err(invalid_argument(
                    "newMessages",
                    "an array of messages, or { messages, system? }",
                    &messages,
                ))
            }
        };
        Ok(self.call(|s| s.prepare(&id, items, system, Some(now))))
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
            Some(serde_json::json!(n))
        } else {
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

    /// The options of `import` (checked), as `{ id, overwrite }`.
    #[wasm_bindgen(js_name = importOptions)]
    pub fn import_options(options: JsValue) -> Result<JsValue, JsValue> {
        let o = options::read::<ImportOptions>("options", &options, &[], true)?.value;
        if let Some(id) = &o.id {
            conversation_id(&JsValue::from_str(id)).map_err(|_| {
                to_js(Error::InvalidArgument {
                    argument: "options.id".into(),
                    expected: "a non-empty string".into(),
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

/// One `Compactor` call in progress, stepped by `lib/compactor.js`. Not part of the public API.
#[wasm_bindgen(js_name = CompactorCall, skip_typescript)]
pub struct CompactorCall {
    sessions: Rc<RefCell<Sessions>>,
    call: Option<Call>,
}

fn set(obj: &Object, key: &str, value: &JsValue) -> Result<(), JsValue> {
    Reflect::set(obj, &JsValue::from_str(key), value).map(|_| ())
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

    /// What the call needs now: `{ load: true }`, `{ read: from }`, `{ summarize: requests,
    /// first, plan }`, `{ finish: true }`, `{ write: batch, expect }` or `{ done: true }`.
    pub fn next(&mut self) -> Result<JsValue, JsValue> {
        let call = self.inner()?;
        let out = Object::new();
        match call.step() {
            Step::Load => set(&out, "load", &JsValue::TRUE)?,
            Step::Read { from } => set(&out, "read", &(from as f64).into())?,
            Step::Summarize { requests, first } => {
                let list = Array::new();
                for r in requests {
                    let req = super::to_plain(r)?;
                    Reflect::set(&req, &"messages".into(), &super::to_plain(&r.chat_messages())?)?;
                    list.push(&req);
                }
                set(&out, "summarize", &list)?;
                set(&out, "first", &first.into())?;
                if first {
                    if let Some(plan) = call.plan() {
                        set(&out, "plan", &super::to_plain(plan)?)?;
                    }
                }
            }
            Step::Finish => set(&out, "finish", &JsValue::TRUE)?,
            Step::Write { expect, batch } => {
                set(&out, "write", &super::to_plain(batch)?)?;
                set(&out, "expect", &expect.into())?;
            }
            Step::Done => set(&out, "done", &JsValue::TRUE)?,
        }
        Ok(out.into())
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
                    operation: "load",
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
        let call = self.inner()?;
        call.loaded(meta, length as usize)
            .map(|kept| kept as u32)
            .map_err(to_js)
    }

    /// The store's `messages(id, from)`.
    pub fn read(&mut self, items: JsValue) -> Result<(), JsValue> {
        let call = self.inner()?;
        if !Array::is_array(&items) {
            return Err(to_js(Error::Store {
                operation: "messages",
                id: call.id().to_owned(),
                reason: format!("returned {}, not an array", describe(&items)),
            }));
        }
        let items = match json_arg("messages", &items)? {
            Value::Array(items) => items,
            _ => Vec::new(),
        };
        self.inner()?.read(items).map_err(to_js)
    }

    /// The summarizer's replies: each `{ value }` or `{ failed }` (as `compact()` passes them).
    pub fn submit(&mut self, replies: Array) -> Result<(), JsValue> {
        let replies = replies.iter().map(|r| super::compact::reply_from(&r)).collect();
        self.inner()?.submit(replies).map_err(to_js)
    }

    /// Answers the summaries with the built-in extractive summary.
    #[wasm_bindgen(js_name = submitExtractive)]
    pub fn submit_extractive(&mut self) -> Result<(), JsValue> {
        self.inner()?.submit_extractive().map_err(to_js)
    }

    /// The call's timings, in milliseconds.
    pub fn finish(&mut self, plan_ms: f64, summarize_ms: f64, total_ms: f64) -> Result<(), JsValue> {
        self.inner()?
            .finish(Timings {
                plan_ms,
                summarize_ms,
                total_ms,
            })
            .map_err(to_js)
    }

    /// The write landed.
    pub fn written(&mut self) -> Result<(), JsValue> {
        self.inner()?.written().map_err(to_js)
    }

    /// The store refused the write as stale; `found`: the version it holds, if it said.
    pub fn stale(&mut self, found: JsValue) -> Result<(), JsValue> {
        let found = found.as_f64().filter(|n| *n >= 0.0).map(|n| n as u32);
        self.inner()?.stale(found).map_err(to_js)
    }

    /// The result, once done. `prepare` and `compact`: `{ pieces, system?, ...outcome }`,
    /// where each piece is a history index (an item JS holds) or `{ item, of? }`: an item
    /// ctxfold made, a changed copy of history item `of` when it is one.
    pub fn result(&mut self) -> Result<JsValue, JsValue> {
        let done = self.inner()?.take_done().ok_or_else(|| {
            to_js(Error::Internal {
                reason: "a Compactor call's result was asked for before it finished".into(),
            })
        })?;
        match done {
            Done::Prepared(p) => {
                let out: Object = super::to_plain(&p.outcome)?.unchecked_into();
                let pieces = Array::new();
                for piece in &p.pieces {
                    pieces.push(&match piece {
                        Piece::Keep(i) => (*i as f64).into(),
                        Piece::Item { item, of } => {
                            let obj = Object::new();
                            set(&obj, "item", &super::to_plain(item)?)?;
                            if let Some(i) = of {
                                set(&obj, "of", &(*i as f64).into())?;
                            }
                            obj.into()
                        }
                    });
                }
                set(&out, "pieces", &pieces)?;
                if let Some(system) = &p.system {
                    set(&out, "system", &super::to_plain(system)?)?;
                }
                Ok(out.into())
            }
            Done::Committed(c) => super::to_plain(&c),
            Done::Undone(u) => super::to_plain(&u),
            Done::Status(s) => super::to_plain(&s),
        }
    }

    /// Ends the call (finished or not): returns how many history items the core keeps for
    /// the conversation, which JS keeps as many of.
    pub fn end(&mut self) -> u32 {
        match self.call.take() {
            Some(call) => self.sessions.borrow_mut().end(call) as u32,
            None => 0,
        }
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
#[wasm_bindgen(js_name = __ctxfoldStoreError, skip_typescript)]
pub fn store_error(operation: String, id: String, reason: String) -> JsValue {
    let operation = match operation.as_str() {
        "load" => "load",
        "messages" => "messages",
        "write" => "write",
        "summaries" => "summaries",
        "records" => "records",
        "list" => "list",
        _ => "delete",
    };
    to_js(Error::Store {
        operation,
        id,
        reason,
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
