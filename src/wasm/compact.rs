//! `compact` and `plan`: the compaction engine from JavaScript.
//!
//! `plan` is one synchronous call. `compact` is a [`CompactCall`] that the package's
//! JavaScript drives (`pkg-template/lib/compact.js`): plan, then for each round of
//! summarizer requests call the caller's `summarizer` (with an `AbortSignal` that fires at
//! the deadline) and hand the replies back, then build the output from the caller's own
//! objects: kept messages are the very objects passed in, so nothing about them changes.
//! Driving from JS keeps every wasm call inside the caller's promise: an error or a trap in
//! any step rejects it, and nothing waits on a promise that can no longer settle.

use std::rc::Rc;

use js_sys::{Array, Object, Reflect};
use serde::Serialize;
use wasm_bindgen::prelude::*;

use super::error::{invalid_argument, to_js};
use super::options::{json_arg, Options};
use super::tokenizer_choice::Counting;
use super::transfer::{conversation_arg, restore_original, Incoming};
use crate::compact::engine::window_for;
use crate::compact::{Compaction, Input, Reply, State};
use crate::config::{Config, KNOWN};
use crate::messages::{Format, Out};
use crate::Error;

#[wasm_bindgen(inline_js = r#"
export function now() {
  return new Date().toISOString();
}
"#)]
extern "C" {
    fn now() -> String;
}

#[wasm_bindgen(typescript_custom_section)]
const TS_COMPACT: &str = r#"
/** One summarizer call. Pass `messages` (or `system` and `prompt`) to your LLM with `maxTokens`, and honour `signal`. */
export interface SummaryRequest {
  /** `"summarize"`: evicted messages; `"fold"`: earlier summaries merged into one. */
  kind: "summarize" | "fold";
  /** The summarizer's instructions: the schema, the rules, your domain prompt and per-call instructions. */
  system: string;
  /** The text to summarize. */
  prompt: string;
  /** `system` and `prompt` as chat messages, ready for an OpenAI-compatible API. */
  messages: [{ role: "system"; content: string }, { role: "user"; content: string }];
  /** The output cap to pass to the model (`max_tokens`). */
  maxTokens: number;
  /** The deadline in milliseconds; `signal` aborts when it passes. */
  timeoutMs: number;
  /** `[index, of]` when the evicted span needs several calls. */
  part: [number, number];
  /** Indexes (in the array passed to `compact`) of the messages this call covers. */
  covers: number[];
  /** Aborts at the deadline. */
  signal: AbortSignal;
}

/** What a summarizer returns: the summary text, or the text with the model and its usage. */
export type SummaryResult = string | { text: string; model?: string; usage?: unknown };

/** Your LLM, summarizing: `request.messages` in, the summary text out. */
export type Summarizer = (request: SummaryRequest) => Promise<SummaryResult> | SummaryResult;

/** What a fallback replaced, and why. */
export interface FallbackUsed {
  /** `"extractive"` or `"marker"`. */
  kind: "extractive" | "marker";
  /** Why the summarizer's reply was not used. */
  reason: string;
}

/** A summary made by one compaction. */
export interface SummaryChunk {
  /** 1 for the first compaction of a conversation, then counting up. */
  generation: number;
  /** The summary text, identifier ledger included. */
  text: string;
  /** Index of the last message it covers. */
  through: number;
  /** Its tokens. */
  tokens: number;
  /** When it was made (ISO 8601). */
  createdAt?: string;
  /** The summarizer's model, if it said. */
  model?: string;
  /** `"threshold"`, `"manual"` or `"fold"`. */
  trigger: string;
  /** The summarizer's usage report, as it gave it. */
  usage?: unknown;
  /** Identifiers of the evicted messages the chunk keeps. */
  keptIds: string[];
  /** Identifiers that did not fit the ledger budget. */
  lostIds: string[];
  /** The fallback used, if any. */
  fallback?: FallbackUsed;
}

/** A position in the history, with a check on the message before it. */
export interface StateMark {
  /** A message index. */
  index: number;
  /** A hash of the message before it (hex). */
  check: string;
}

/** What to pass back as `options.state` next turn: small, JSON-serialisable. */
export interface CompactState {
  /** The state format's version. */
  version: number;
  /** Summaries, oldest first. */
  chunks: SummaryChunk[];
  /** Messages from here on are sent verbatim. */
  boundary: StateMark | null;
  /** Tool outputs before this are pruned. */
  pruneBoundary: StateMark | null;
  /** The newest user message kept verbatim although its turn was split. */
  pinned: StateMark | null;
}

/** The token budget. */
export interface Budget {
  /** The model's context window. */
  window: number;
  /** Tokens kept free for the reply. */
  reservedOutput: number;
  /** What the input may take: window minus reserved output. */
  input: number;
  /** Compaction starts above this. */
  threshold: number;
}

/** What pruning does. */
export interface PruneReport {
  /** Tool outputs before this message index are pruned. */
  boundary: number;
  /** Whether the boundary moved this turn. */
  advanced: boolean;
  /** Messages whose tool outputs are pruned. */
  messages: number[];
  /** Bytes removed from tool outputs. */
  bytesRemoved: number;
  /** Tokens saved. */
  tokensSaved: number;
  /** Identifiers pruned outputs no longer hold (the rest are listed in their truncation markers). */
  lostIds: string[];
}

/** What a compaction did. */
export interface CompactReport {
  /** Input tokens before (earlier summaries applied). */
  tokensBefore: number;
  /** Input tokens of the messages returned. */
  tokensAfter: number;
  /** The budget. */
  budget: Budget;
  /** `"threshold"` or `"manual"` when messages were summarized this turn, else `null`. */
  trigger: "threshold" | "manual" | null;
  /** Indexes of the messages summarized this turn. */
  evicted: number[];
  /** Summary chunks in the output. */
  summaryChunks: number;
  /** Summary chunks made this turn. */
  newChunks: number;
  /** Whether the chunks were folded into one this turn. */
  folded: boolean;
  /** Identifiers of this turn's evicted messages that the output keeps. */
  keptIds: string[];
  /** Identifiers the ledger budget could not keep. */
  lostIds: string[];
  /** Identifiers in new summaries found nowhere in the conversation (hallucinated or injected). */
  unsupportedIds: string[];
  /** The fallback used this turn, if any. */
  fallback: FallbackUsed | null;
  /** Summary lines dropped: outside the schema, or reading as instructions to the model. */
  droppedSummaryLines: string[];
  /** The summary message's role. */
  summaryRole: "assistant" | "user" | "system" | null;
  /** With `alternateRoles`: the index (in your messages) of the message the summary was put at the start of, or `null` when it went out as a message of its own. */
  summaryMergedInto: number | null;
  /** Indexes in the returned messages after which a prompt-cache breakpoint belongs. */
  cacheBreakpoints: number[];
  /** Pruning. */
  pruned: PruneReport;
  /** Why `options.state` was not used, if it was not. */
  stateReset: string | null;
  /** Messages cut to fit (`overflow: "truncate"` only). */
  truncatedMessages: number[];
  /** Milliseconds spent: planning, waiting for summarizers, and in all. */
  timings: { planMs: number; summarizeMs: number; totalMs: number };
}

/** Options of `compact` and `plan`. Every knob has a default; unknown keys are errors. Give a `model`, or a `contextWindow` (then tokens are counted as for an unknown model, with the generic estimate, unless `encoding` is given). */
export interface CompactOptions {
  /** The model: its window, output cap and tokenizer (exact or calibrated estimate). */
  model?: string;
  /** Count with this encoding instead of the model's. */
  encoding?: Encoding;
  /** Count with the model's calibrated estimate when its exact vocabulary is not loaded (`ctxfold/lite` before `loadVocabulary`), instead of throwing `VOCABULARY_NOT_LOADED`. Default false. */
  allowEstimate?: boolean;
  /** The messages' format; detected when omitted. */
  format?: MessageFormat;
  /** Who writes summaries: your LLM (a function), or the built-in extractive summary (default). */
  summarizer?: Summarizer | "extractive";
  /** What the previous turn returned, for stateless callers. */
  state?: CompactState | null;
  /** Compact now, whatever the threshold (`/compact`); a failing summarizer then throws. */
  manual?: boolean;
  /** `off`, `default`, `conservative` or `aggressive`. */
  preset?: "off" | "default" | "conservative" | "aggressive";
  /** Compact above `max(tokenFloor, thresholdRatio x contextWindow)`. Default 0.7. */
  thresholdRatio?: number;
  /** Never compact below this many tokens. Default 4096. */
  tokenFloor?: number;
  /** The context window, overriding the model's. */
  contextWindow?: number;
  /** Tokens kept free for the reply. Default: 1/16 of the window, at least 1024 (but at most half the window), at most the model's output cap. */
  reservedOutputTokens?: number;
  /** Recent turns kept verbatim, degrading when they do not fit. Default 4. */
  bufferTurns?: number;
  /** The verbatim tail never takes more than this share of the window. Default 0.3. */
  bufferMaxRatio?: number;
  /** Instead of `bufferTurns`: keep as many recent turns as fit this many tokens. */
  keepRecentTokens?: number;
  /** Pin the first user message (the task) in the head, before the summary, once a later user message exists (until then it is the newest user message, which always follows the summary). Default false. */
  pinFirstUserTurn?: boolean;
  /** Old tool outputs larger than this are pruned. Default 4096. */
  toolOutputMaxBytes?: number;
  /** Pruning runs when old tool output passes this many tokens. Default 1/20 of the window. */
  pruneThresholdTokens?: number;
  /** Policy for tools not in `toolPolicies`. Default `truncate`. */
  defaultToolPolicy?: "keep" | "truncate" | "stub" | "summarize";
  /** Per tool name. */
  toolPolicies?: Record<string, "keep" | "truncate" | "stub" | "summarize">;
  /** Hard cap on one summary's tokens (a model is asked for about 200 words). Default: 1/16 of the window, from 512 to 4096. */
  summaryMaxTokens?: number;
  /** Budget for the identifier ledger line. Default: 1/50 of the window, at least 160. */
  ledgerMaxTokens?: number;
  /** Summarizer deadline. Default 25000. */
  summarizerTimeoutMs?: number;
  /** Largest input of one summarizer call. Default: the input budget less the summary cap and 1024, at most 120000. */
  summarizerInputTokens?: number;
  /** The summary's role. Default `assistant` (a user message when it would come first). */
  summaryRole?: "assistant" | "user" | "system";
  /** Keep user and assistant messages alternating: a summary that would sit next to a message of its own side (two user or two assistant messages in a row) goes at the start of that message's content instead, in a copy (your object is untouched). For providers and chat templates that require strict alternation. Default false. */
  alternateRoles?: boolean;
  /** `additive` (default) or `rolling`. */
  strategy?: "additive" | "rolling";
  /** Chunks fold into one past this share of the window. Default 0.15. */
  foldRatio?: number;
  /** What a failed summary falls back to. Default `extractive`. */
  fallback?: "extractive" | "marker" | "error";
  /** When even the head and the newest user message do not fit. Default `error`. */
  overflow?: "error" | "truncate";
  /** A domain prompt added to the summarizer's instructions. */
  summaryPrompt?: string;
  /** Per-call instructions (e.g. from `/compact focus on the API`). */
  instructions?: string;
}

/** The result of `compact`: `M` is what was passed in (an array of your message type, or an object with a `messages` array), and `messages` comes back in that shape. */
export interface CompactResult<M = unknown[]> {
  /** The input to send, in the format and shape the messages came in: your own objects where kept, new ones (summaries, pruned outputs) in your format. */
  messages: M extends readonly (infer E)[] ? E[] : M extends { readonly messages: readonly (infer E)[] } ? Omit<M, "messages"> & { messages: E[] } : M;
  /** `full`, `summarized`, or `truncated` after a marker fallback. */
  contextStatus: "full" | "summarized" | "truncated";
  /** What happened. */
  report: CompactReport;
  /** Pass back as `options.state` next turn. */
  state: CompactState;
}

/**
 * Fits a conversation into the model's window: prunes old tool outputs, summarizes the
 * middle through `options.summarizer` (your LLM, or the built-in extractive summary), keeps
 * the head and recent turns verbatim, and reports what it did. Under the threshold the
 * messages come back unchanged. A failing summarizer falls back (see `fallback`); only
 * `CONTEXT_OVERFLOW`, bad input, or `fallback: "error"` / `manual` compactions reject.
 * Never throws synchronously: every error is a rejection.
 *
 * ```ts
 * const { messages: input, state } = await compact(history, {
 *   model: "gpt-4o",
 *   summarizer: async (req) => (await llm(req.messages, { max_tokens: req.maxTokens, signal: req.signal })).text,
 *   state: previousState,
 * });
 * ```
 */
export function compact<M extends Conversation>(messages: M, options: CompactOptions): Promise<CompactResult<M>>;

/** What `plan` returns: the same decisions `compact` would make, without calling a model. */
export interface CompactPlan {
  /** The budget. */
  budget: Budget;
  /** Tokens by part, before any new compaction. */
  tokens: { total: number; head: number; summaries: number; middle: number; tail: number; tools: number; framing: number };
  /** `"threshold"` or `"manual"` if a compaction would run, else `null`. */
  trigger: "threshold" | "manual" | null;
  /** The first message after the head. */
  headEnd: number;
  /** The first message sent verbatim now. */
  boundary: number;
  /** Where the verbatim tail would start. */
  tailStart: number;
  /** The newest user message kept although its turn is split. */
  pinned: number | null;
  /** Messages a compaction would summarize. */
  evict: number[];
  /** Summarizer calls a compaction would make. */
  summarizerCalls: number;
  /** Pruning. */
  pruned: PruneReport;
  /** Why `options.state` was not used, if it was not. */
  stateReset: string | null;
}
"#;

/// Keys that are not compaction knobs.
const JS_KEYS: &[&str] = &[
    "model",
    "encoding",
    "format",
    "summarizer",
    "state",
    "manual",
    "allowEstimate",
];

/// A call's options and conversation, read and checked.
struct Setup {
    incoming: Incoming,
    config: Config,
    counting: Counting,
    window: usize,
    reserved: usize,
    state: Option<State>,
    manual: bool,
    summarizer: Option<js_sys::Function>,
}

fn setup(messages: &JsValue, options: &JsValue) -> Result<Setup, JsValue> {
    let allowed: Vec<&str> = KNOWN.iter().chain(JS_KEYS).copied().collect();
    let opts = Options::new("options", options, &allowed, false)?;
    let format = opts
        .string("format")?
        .map(|f| Format::from_name(&f))
        .transpose()
        .map_err(to_js)?;
    let summarizer = match opts.get("summarizer") {
        None => None,
        Some(v) if v.as_string().as_deref() == Some("extractive") => None,
        Some(v) if v.is_function() => Some(v.unchecked_into::<js_sys::Function>()),
        Some(v) => {
            return Err(invalid_argument(
                "options.summarizer",
                "a function or \"extractive\"",
                &v,
            ))
        }
    };
    let state = match opts.get("state") {
        Some(v) if !v.is_null() => {
            let json = json_arg("options.state", &v)?;
            Some(serde_json::from_value::<State>(json).map_err(|e| {
                to_js(Error::InvalidState {
                    path: "options.state".into(),
                    reason: e.to_string(),
                })
            })?)
        }
        _ => None,
    };
    let manual = opts.boolean("manual")?.unwrap_or(false);
    // The compaction knobs, read by the core (JS-only keys removed).
    let mut knobs = json_arg("options", &opts.value())?;
    if let Some(obj) = knobs.as_object_mut() {
        for k in JS_KEYS {
            obj.remove(*k);
        }
    }
    let config = Config::from_json(&knobs).map_err(to_js)?;
    let counting = match Counting::from_options(&opts, true)? {
        Some(c) => c,
        // A window without a model: counted as an unknown model is (the generic estimate).
        None if config.context_window.is_some() => Counting::for_model(crate::models::resolve(""), true)?,
        None => {
            return Err(to_js(Error::InvalidArgument {
                argument: "options.model".into(),
                expected: "a model id, or options.contextWindow (with or without options.encoding)".into(),
            }))
        }
    };
    let (window, reserved) = window_for(counting.model(), &config).map_err(to_js)?;
    let incoming = conversation_arg(messages, format)?;
    Ok(Setup {
        incoming,
        config,
        counting,
        window,
        reserved,
        state,
        manual,
        summarizer,
    })
}

impl Setup {
    /// The engine's input. `now` dates new summary chunks; only `compact` makes any.
    fn input(&self, now: Option<String>) -> Input {
        Input {
            conv: Rc::clone(&self.incoming.conv),
            config: Rc::new(self.config.clone()),
            counter: self.counting.owned(),
            window: self.window,
            reserved_output: self.reserved,
            state: self.state.clone(),
            manual: self.manual,
            now,
        }
    }
}

fn plain<T: Serialize>(v: &T) -> Result<JsValue, JsValue> {
    super::to_plain(v)
}

/// What compaction would do now, without calling a model: the token breakdown (head,
/// middle, tail, tools, summaries), whether it would trigger, where it would cut, and
/// what pruning would do.
///
/// ```ts
/// const p = plan(messages, { model: "gpt-4o" });
/// if (p.trigger) showMeter(p.tokens.total / p.budget.input);
/// ```
#[wasm_bindgen(js_name = plan, unchecked_return_type = "CompactPlan")]
pub fn plan(
    #[wasm_bindgen(unchecked_param_type = "Conversation")] messages: JsValue,
    #[wasm_bindgen(unchecked_param_type = "CompactOptions")] options: JsValue,
) -> Result<JsValue, JsValue> {
    let s = setup(&messages, &options)?;
    let c = Compaction::new(s.input(None)).map_err(to_js)?;
    let result = plain(c.plan());
    drop(c);
    s.incoming.done();
    result
}

/// One `compact()` in progress, driven by the package's JavaScript (`lib/compact.js`): it
/// asks [`CompactCall::requests`], calls the summarizer with a deadline, hands the replies
/// to [`CompactCall::submit`], and ends with [`CompactCall::finish`]. Every step is a
/// synchronous call from an async JS function, so whatever a step throws (an error, or a
/// trap) rejects the caller's promise. Not part of the public API.
#[wasm_bindgen(js_name = CompactCall, skip_typescript)]
pub struct CompactCall {
    setup: Setup,
    compaction: Compaction,
    started: f64,
    planned: f64,
}

#[wasm_bindgen(js_class = CompactCall)]
impl CompactCall {
    /// Reads the arguments and plans; with no summarizer function, also runs the built-in
    /// extractive summary, so there is nothing to request.
    pub fn start(messages: JsValue, options: JsValue) -> Result<CompactCall, JsValue> {
        let started = js_sys::Date::now();
        let setup = setup(&messages, &options)?;
        let mut compaction = Compaction::new(setup.input(Some(now()))).map_err(to_js)?;
        if setup.summarizer.is_none() {
            while !compaction.requests().is_empty() {
                compaction.submit_extractive().map_err(to_js)?;
            }
        }
        Ok(CompactCall {
            setup,
            compaction,
            started,
            planned: js_sys::Date::now(),
        })
    }

    /// The summarizer function.
    pub fn summarizer(&self) -> JsValue {
        self.setup
            .summarizer
            .clone()
            .map_or(JsValue::UNDEFINED, Into::into)
    }

    /// The summarizer calls to make now, as plain objects (with `messages` for a chat API),
    /// or `null` when there are none.
    pub fn requests(&self) -> Result<JsValue, JsValue> {
        let requests = self.compaction.requests();
        if requests.is_empty() {
            return Ok(JsValue::NULL);
        }
        let out = Array::new();
        for r in requests {
            let req = plain(r)?;
            let messages = plain(&serde_json::json!([
                {"role": "system", "content": r.system},
                {"role": "user", "content": r.prompt},
            ]))?;
            Reflect::set(&req, &"messages".into(), &messages)?;
            out.push(&req);
        }
        Ok(out.into())
    }

    /// The replies to [`CompactCall::requests`], in order: each `{ value }` (what the
    /// summarizer returned) or `{ failed }` (why it failed: a rejection, the deadline).
    pub fn submit(&mut self, replies: js_sys::Array) -> Result<(), JsValue> {
        let replies = replies.iter().map(|r| reply_from(&r)).collect();
        self.compaction.submit(replies).map_err(to_js)
    }

    /// Builds the result. `summarize_ms`: the time spent waiting for the summarizer.
    pub fn finish(self, summarize_ms: f64) -> Result<JsValue, JsValue> {
        let CompactCall {
            setup,
            compaction,
            started,
            planned,
        } = self;
        let outcome = compaction.finish().map_err(to_js)?;
        let conv = &setup.incoming.conv;
        let out_items = Array::new();
        for o in &outcome.order {
            let item = match o {
                Out::Keep(i) => setup.incoming.items.get(*i as u32),
                Out::New(_) => plain(&conv.render_item(o))?,
                Out::Edited { index, .. } | Out::Truncated { index, .. } | Out::Merged { index, .. } => {
                    restore_original(
                        plain(&conv.render_item(o))?,
                        &setup.incoming.items.get(*index as u32),
                    )
                }
            };
            out_items.push(&item);
        }
        let out_messages: JsValue = match &setup.incoming.envelope_object {
            None => out_items.into(),
            Some(envelope) => {
                let obj = Object::assign(&Object::new(), envelope);
                Reflect::set(&obj, &JsValue::from_str("messages"), &out_items)?;
                obj.into()
            }
        };
        let result = Object::new();
        Reflect::set(&result, &"messages".into(), &out_messages)?;
        Reflect::set(&result, &"contextStatus".into(), &plain(&outcome.context_status)?)?;
        let report = plain(&outcome.report)?;
        let timings = plain(&serde_json::json!({
            "planMs": planned - started,
            "summarizeMs": summarize_ms,
            "totalMs": js_sys::Date::now() - started,
        }))?;
        Reflect::set(&report, &"timings".into(), &timings)?;
        Reflect::set(&result, &"report".into(), &report)?;
        Reflect::set(&result, &"state".into(), &plain(&outcome.state)?)?;
        setup.incoming.done();
        Ok(result.into())
    }
}

/// A summarizer's reply as the driver passes it: `{ value }` or `{ failed }`.
fn reply_from(r: &JsValue) -> Reply {
    let get = |k: &str| {
        Reflect::get(r, &JsValue::from_str(k))
            .ok()
            .filter(|x| !x.is_undefined())
    };
    if let Some(reason) = get("failed") {
        return Reply::Failed(
            reason
                .as_string()
                .unwrap_or_else(|| "the summarizer failed".into()),
        );
    }
    let v = get("value").unwrap_or(JsValue::UNDEFINED);
    if let Some(text) = v.as_string() {
        return Reply::Text {
            text,
            model: None,
            usage: None,
        };
    }
    if v.is_object() {
        let field = |k: &str| {
            Reflect::get(&v, &JsValue::from_str(k))
                .ok()
                .filter(|x| !x.is_undefined())
        };
        if let Some(text) = field("text").and_then(|t| t.as_string()) {
            let model = field("model").and_then(|m| m.as_string());
            let usage = field("usage").and_then(|u| json_arg("usage", &u).ok());
            return Reply::Text { text, model, usage };
        }
    }
    Reply::Failed(format!(
        "the summarizer returned {}, not a string or {{ text }}",
        super::error::describe(&v)
    ))
}
