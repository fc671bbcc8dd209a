//! `compact` and `plan` from JavaScript: a translation around the core's driver
//! ([`crate::compact::driver`]).
//!
//! `plan` is one synchronous call. `compact` is a [`CompactCall`] that the package's
//! JavaScript steps (`pkg-template/lib/compact.js`): start, then for each round of summarizer
//! requests call the caller's `summarizer` (with an `AbortSignal` that fires at the deadline)
//! and hand the replies back, then finish, which builds the output from the caller's own
//! objects. Stepping from JS keeps every wasm call inside the caller's promise: an error or
//! a trap in any step rejects it, and nothing waits on a promise that can no longer settle.

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;

use super::error::to_js;
use super::options;
use super::reply::reply_from;
use super::transfer::{conversation_arg, Incoming};
use crate::compact::{Compaction, Setup};
use crate::options::CompactOptions;

#[wasm_bindgen(module = "/src/wasm/js/compact.js")]
extern "C" {
    fn now() -> String;
}

/// Reads a call's options and conversation.
fn setup(
    messages: &JsValue,
    options: &JsValue,
) -> Result<(Setup, Option<js_sys::Function>, Incoming), JsValue> {
    let read = options::read::<CompactOptions>("options", options, &["summarizer"], false)?;
    let summarizer = read.function("summarizer");
    let setup = Setup::new(read.value).map_err(to_js)?;
    let incoming = conversation_arg(messages, setup.format)?;
    Ok((setup, summarizer, incoming))
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
    let (setup, _, mut incoming) = setup(&messages, &options)?;
    let plan = setup
        .plan(incoming.conv.clone(), &mut incoming.memo)
        .map_err(to_js);
    incoming.done();
    super::to_plain(&plan?)
}

/// One `compact()` in progress, stepped by the package's JavaScript (`lib/compact.js`).
/// Not part of the public API.
#[wasm_bindgen(js_name = CompactCall, skip_typescript)]
pub struct CompactCall {
    incoming: Incoming,
    compaction: Compaction,
    summarizer: Option<js_sys::Function>,
    started: f64,
    planned: f64,
}

#[wasm_bindgen(js_class = CompactCall)]
impl CompactCall {
    /// Reads the arguments and plans; with no summarizer function, the built-in extractive
    /// summary answers at once, so there is nothing to request.
    pub fn start(messages: JsValue, options: JsValue) -> Result<CompactCall, JsValue> {
        let started = js_sys::Date::now();
        let (setup, summarizer, mut incoming) = setup(&messages, &options)?;
        let mut compaction = setup
            .start(incoming.conv.clone(), &mut incoming.memo, Some(now()))
            .map_err(to_js)?;
        if summarizer.is_none() {
            while !compaction.requests().is_empty() {
                compaction.submit_extractive().map_err(to_js)?;
            }
        }
        Ok(CompactCall {
            incoming,
            compaction,
            summarizer,
            started,
            planned: js_sys::Date::now(),
        })
    }

    /// The summarizer function.
    pub fn summarizer(&self) -> JsValue {
        self.summarizer.clone().map_or(JsValue::UNDEFINED, Into::into)
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
            let req = super::to_plain(r)?;
            let messages = super::to_plain(&r.chat_messages())?;
            Reflect::set(&req, &"messages".into(), &messages)?;
            out.push(&req);
        }
        Ok(out.into())
    }

    /// The replies to [`CompactCall::requests`], in order: each `{ value }` (what the
    /// summarizer returned) or `{ failed }` (why it failed: a rejection, the deadline).
    pub fn submit(&mut self, replies: Array) -> Result<(), JsValue> {
        let replies = replies.iter().map(|r| reply_from(&r)).collect();
        self.compaction.submit(replies).map_err(to_js)
    }

    /// Builds the result. `summarize_ms`: the time spent waiting for the summarizer.
    pub fn finish(self, summarize_ms: f64) -> Result<JsValue, JsValue> {
        let CompactCall {
            incoming,
            compaction,
            started,
            planned,
            ..
        } = self;
        let mut outcome = compaction.finish().map_err(to_js)?;
        outcome.report.timings.plan_ms = planned - started;
        outcome.report.timings.summarize_ms = summarize_ms;
        outcome.report.timings.total_ms = js_sys::Date::now() - started;
        let messages = incoming.output(&outcome.order)?;
        // `messages` first, then the outcome's fields.
        let result = Object::new();
        Reflect::set(&result, &"messages".into(), &messages)?;
        let result = Object::assign(&result, super::to_plain(&outcome)?.unchecked_ref());
        Ok(result.into())
    }
}
