//! `compact` and `plan`: the compaction engine from JavaScript.
//!
//! `compact` drives [`crate::compact::Compaction`]: it plans, calls the caller's
//! `summarizer` for each request (with an `AbortSignal` that fires at the deadline), hands
//! the replies back, and builds the output from the caller's own objects: kept messages
//! are the very objects passed in, so nothing about them changes.

use js_sys::{Array, Object, Promise, Reflect};
use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::error::{invalid_argument, to_js};
use super::options::{json_arg, Options};
use super::tokenizer_choice::Counting;
use super::transfer::{conversation_arg, Incoming};
use crate::compact::engine::window_for;
use crate::compact::{Compaction, Input, Reply, Request, State};
use crate::config::{Config, KNOWN};
use crate::messages::{Format, Out};
use crate::Error;

#[wasm_bindgen(inline_js = r#"
export function callSummarizer(fn, request, timeoutMs) {
  const controller = new AbortController();
  let timer;
  const deadline = new Promise((_, reject) => {
    timer = setTimeout(() => {
      const reason = new Error(`the summarizer did not answer within ${timeoutMs} ms`);
      reason.name = "TimeoutError";
      controller.abort(reason);
      reject(reason);
    }, timeoutMs);
  });
  const call = Promise.resolve().then(() => fn({ ...request, signal: controller.signal }));
  return Promise.race([call, deadline]).finally(() => clearTimeout(timer));
}
export function now() {
  return new Date().toISOString();
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = callSummarizer)]
    fn call_summarizer(f: &js_sys::Function, request: &JsValue, timeout_ms: f64) -> Promise;
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

/** Options of `compact` and `plan`. Every knob has a default; unknown keys are errors. */
export interface CompactOptions {
  /** The model: its window, output cap and tokenizer (exact or calibrated estimate). */
  model?: string;
  /** Count with this encoding instead of the model's. */
  encoding?: Encoding;
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
  /** Tokens kept free for the reply. Default: 1/16 of the window, at least 1024, at most the model's output cap. */
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

/** The result of `compact`. */
export interface CompactResult<M = unknown> {
  /** The input to send, in the format the messages came in. */
  messages: M;
  /** `full`, `summarized`, or `truncated` after a marker fallback. */
  contextStatus: "full" | "summarized" | "truncated";
  /** What happened. */
  report: CompactReport;
  /** Pass back as `options.state` next turn. */
  state: CompactState;
}

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
const JS_KEYS: &[&str] = &["model", "encoding", "format", "summarizer", "state", "manual"];

struct Setup {
    incoming: Incoming,
    config: Config,
    counting: Counting,
    window: usize,
    reserved: usize,
    state: Option<State>,
    manual: bool,
    summarizer: Option<js_sys::Function>,
    items: JsValue,
}

fn setup(messages: &JsValue, options: &JsValue) -> Result<Setup, JsValue> {
    let allowed: Vec<&str> = KNOWN.iter().chain(JS_KEYS).copied().collect();
    let opts = Options::new("options", options, &allowed, false)?;
    let counting = Counting::from_options(&opts, true)?;
    let format = opts
        .string("format")?
        .map(|f| Format::from_name(&f))
        .transpose()
        .map_err(to_js)?;
    let summarizer = match Reflect::get(options, &JsValue::from_str("summarizer"))? {
        v if v.is_undefined() || v.as_string().as_deref() == Some("extractive") => None,
        v if v.is_function() => Some(v.unchecked_into::<js_sys::Function>()),
        v => {
            return Err(invalid_argument(
                "options.summarizer",
                "a function or \"extractive\"",
                &v,
            ))
        }
    };
    let state = match Reflect::get(options, &JsValue::from_str("state"))? {
        v if v.is_undefined() || v.is_null() => None,
        v => {
            let json = json_arg("options.state", &v)?;
            Some(serde_json::from_value::<State>(json).map_err(|e| {
                to_js(Error::InvalidState {
                    path: "options.state".into(),
                    reason: e.to_string(),
                })
            })?)
        }
    };
    let manual = match Reflect::get(options, &JsValue::from_str("manual"))? {
        v if v.is_undefined() => false,
        v => v
            .as_bool()
            .ok_or_else(|| invalid_argument("options.manual", "a boolean", &v))?,
    };
    // The compaction knobs, read by the core (JS-only keys removed).
    let mut knobs = json_arg("options", options)?;
    if let Some(obj) = knobs.as_object_mut() {
        for k in JS_KEYS {
            obj.remove(*k);
        }
    }
    let config = Config::from_json(&knobs).map_err(to_js)?;
    let counting = match counting {
        Some(c) => c,
        None => {
            return Err(to_js(Error::InvalidArgument {
                argument: "options.model".into(),
                expected: "a model id (or options.encoding with options.contextWindow)".into(),
            }))
        }
    };
    let (window, reserved) = window_for(counting.model(), &config).map_err(to_js)?;
    let incoming = conversation_arg(messages, format)?;
    let items = if Array::is_array(messages) {
        messages.clone()
    } else {
        Reflect::get(messages, &JsValue::from_str("messages"))?
    };
    Ok(Setup {
        incoming,
        config,
        counting,
        window,
        reserved,
        state,
        manual,
        summarizer,
        items,
    })
}

impl Setup {
    /// The engine's input. `now` dates new summary chunks; only `compact` makes any.
    fn input(&self, now: Option<String>) -> Input<'_> {
        Input {
            conv: &self.incoming.conv,
            config: &self.config,
            counter: self.counting.counter(),
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
    #[wasm_bindgen(unchecked_param_type = "unknown[] | { messages: unknown[]; system?: unknown }")] messages: JsValue,
    #[wasm_bindgen(unchecked_param_type = "CompactOptions")] options: JsValue,
) -> Result<JsValue, JsValue> {
    let s = setup(&messages, &options)?;
    let c = Compaction::new(s.input(None)).map_err(to_js)?;
    let result = plain(c.plan());
    drop(c);
    s.incoming.done();
    result
}

/// Fits a conversation into the model's window: prunes old tool outputs, summarizes the
/// middle through `options.summarizer` (your LLM, or the built-in extractive summary), keeps
/// the head and recent turns verbatim, and reports what it did. Under the threshold the
/// messages come back unchanged. A failing summarizer falls back (see `fallback`); only
/// `CONTEXT_OVERFLOW`, bad input, or `fallback: "error"` / `manual` compactions throw.
///
/// ```ts
/// const { messages: input, state } = await compact(history, {
///   model: "gpt-4o",
///   summarizer: async (req) => (await llm(req.messages, { max_tokens: req.maxTokens, signal: req.signal })).text,
///   state: previousState,
/// });
/// ```
#[wasm_bindgen(js_name = compact, unchecked_return_type = "Promise<CompactResult>")]
pub async fn compact(
    #[wasm_bindgen(unchecked_param_type = "unknown[] | { messages: unknown[]; system?: unknown }")] messages: JsValue,
    #[wasm_bindgen(unchecked_param_type = "CompactOptions")] options: JsValue,
) -> Result<JsValue, JsValue> {
    let t0 = js_sys::Date::now();
    let s = setup(&messages, &options)?;
    let mut c = Compaction::new(s.input(Some(now()))).map_err(to_js)?;
    let t_plan = js_sys::Date::now();
    let mut waited = 0.0;
    let mut first_rejection: Option<JsValue> = None;
    while !c.requests().is_empty() {
        match &s.summarizer {
            None => c.submit_extractive().map_err(to_js)?,
            Some(f) => {
                let t = js_sys::Date::now();
                let replies = call_all(f, c.requests(), &mut first_rejection).await?;
                waited += js_sys::Date::now() - t;
                if let Err(e) = c.submit(replies) {
                    return Err(with_cause(to_js(e), first_rejection));
                }
            }
        }
    }
    let outcome = c
        .finish()
        .map_err(|e| with_cause(to_js(e), first_rejection.clone()))?;
    let out_items = Array::new();
    let items = s.items.unchecked_ref::<Array>();
    for o in &outcome.order {
        let item = match o {
            Out::Keep(i) => items.get(*i as u32),
            Out::Edited { .. } | Out::Truncated { .. } | Out::New(_) | Out::Merged { .. } => {
                let json = s.incoming.conv.render(std::slice::from_ref(o));
                let one = json.get("messages").unwrap_or(&json)[0].clone();
                plain(&one)?
            }
        };
        out_items.push(&item);
    }
    let out_messages: JsValue = if Array::is_array(&messages) {
        out_items.into()
    } else {
        let obj = Object::assign(&Object::new(), messages.unchecked_ref());
        Reflect::set(&obj, &JsValue::from_str("messages"), &out_items)?;
        obj.into()
    };
    let result = Object::new();
    Reflect::set(&result, &"messages".into(), &out_messages)?;
    Reflect::set(&result, &"contextStatus".into(), &plain(&outcome.context_status)?)?;
    let report = plain(&outcome.report)?;
    let end = js_sys::Date::now();
    let timings = plain(&serde_json::json!({
        "planMs": t_plan - t0,
        "summarizeMs": waited,
        "totalMs": end - t0,
    }))?;
    Reflect::set(&report, &"timings".into(), &timings)?;
    Reflect::set(&result, &"report".into(), &report)?;
    Reflect::set(&result, &"state".into(), &plain(&outcome.state)?)?;
    s.incoming.done();
    Ok(result.into())
}

/// Calls the summarizer for every request at once and waits for all of them.
async fn call_all(
    f: &js_sys::Function,
    requests: &[Request],
    first_rejection: &mut Option<JsValue>,
) -> Result<Vec<Reply>, JsValue> {
    let promises: Vec<Promise> = requests
        .iter()
        .map(|r| {
            let req = plain(r)?;
            let messages = plain(&serde_json::json!([
                {"role": "system", "content": r.system},
                {"role": "user", "content": r.prompt},
            ]))?;
            Reflect::set(&req, &"messages".into(), &messages)?;
            Ok(call_summarizer(f, &req, r.timeout_ms as f64))
        })
        .collect::<Result<_, JsValue>>()?;
    let mut replies = Vec::with_capacity(promises.len());
    for p in promises {
        replies.push(match JsFuture::from(p).await {
            Ok(v) => reply_from(&v),
            Err(e) => {
                let reason = error_message(&e);
                if first_rejection.is_none() {
                    *first_rejection = Some(e);
                }
                Reply::Failed(reason)
            }
        });
    }
    Ok(replies)
}

/// A summarizer's return value: a string, or `{ text, model?, usage? }`.
fn reply_from(v: &JsValue) -> Reply {
    if let Some(text) = v.as_string() {
        return Reply::Text {
            text,
            model: None,
            usage: None,
        };
    }
    if v.is_object() {
        let get = |k: &str| {
            Reflect::get(v, &JsValue::from_str(k))
                .ok()
                .filter(|x| !x.is_undefined())
        };
        if let Some(text) = get("text").and_then(|t| t.as_string()) {
            let model = get("model").and_then(|m| m.as_string());
            let usage = get("usage").and_then(|u| json_arg("usage", &u).ok());
            return Reply::Text { text, model, usage };
        }
    }
    Reply::Failed(format!(
        "the summarizer returned {}, not a string or {{ text }}",
        super::error::describe(v)
    ))
}

fn error_message(e: &JsValue) -> String {
    let name = Reflect::get(e, &"name".into()).ok().and_then(|n| n.as_string());
    let message = Reflect::get(e, &"message".into())
        .ok()
        .and_then(|m| m.as_string());
    match (name.as_deref(), message) {
        (Some("TimeoutError"), Some(m)) => m,
        (_, Some(m)) => format!("the summarizer rejected: {m}"),
        _ => format!(
            "the summarizer rejected with {}",
            e.as_string().unwrap_or_else(|| super::error::describe(e))
        ),
    }
}

/// Keeps a rejected summarizer's original error as the `cause`.
fn with_cause(err: JsValue, cause: Option<JsValue>) -> JsValue {
    if let Some(c) = cause {
        let _ = Reflect::set(&err, &"cause".into(), &c);
    }
    err
}
