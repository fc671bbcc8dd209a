//! Recall over a conversation a stateless caller holds (the AI SDK middleware: the prompt the
//! SDK passes is the whole conversation, and `compact()`'s state says what its input keeps).
//! Not part of the public API.

use wasm_bindgen::prelude::*;

use super::error::to_js;
use super::options;
use super::transfer::conversation_arg;
use crate::compact::driver::Setup;
use crate::options::CompactOptions;
use crate::recall::tool::RecallArgs;

/// What the recall tool answers for `args` (the model's, checked: `args.query`) over
/// `messages` and `options.state`, counted and bounded as `options` (compact()'s) say.
#[wasm_bindgen(js_name = __ctxfoldRecallOver, skip_typescript)]
pub fn recall_over(messages: JsValue, args: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let a = options::read::<RecallArgs>("args", &args, &[], false)?.value;
    let query = a.query().map_err(to_js)?;
    let o = options::read::<CompactOptions>("options", &options, &["summarizer"], false)?.value;
    let setup = Setup::new(o).map_err(to_js)?;
    let incoming = conversation_arg(&messages, setup.format)?;
    let recalled = crate::session::recall::in_prompt(
        &incoming.conv,
        setup.state.as_ref(),
        (query, a.limit()),
        &setup.counting.counter,
        setup.config.recall_max_tokens,
    );
    incoming.done();
    super::to_plain(&recalled)
}
