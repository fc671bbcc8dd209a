//! The one entry of a compaction, for every caller: options in; the counter chosen, the
//! budget resolved, the state read; then the engine run through its summarizer rounds.
//!
//! [`Setup::new`] turns a call's [`CompactOptions`] into what the engine needs.
//! [`Setup::start`] plans a conversation ([`Compaction`]); [`run`] answers its requests with
//! a [`Summarizer`] until it can finish. A caller that must await its summarizer (the
//! JavaScript face) steps the same protocol itself: `requests()`, then `submit()`, until
//! there are none, then `finish()`; it never decides anything on the way.

use std::rc::Rc;

use super::engine::Compaction;
use super::state::CompactState;
use super::types::{Budget, CompactOutcome, CompactPlan, Input, Reply, Request};
use crate::config::Config;
use crate::count::{Counting, Memo};
use crate::messages::{Conversation, MessageFormat};
use crate::options::CompactOptions;
use crate::Error;

/// A call's options, resolved.
pub struct Setup {
    /// The knobs.
    pub config: Rc<Config>,
    /// The counter, and the model if one was named.
    pub counting: Counting,
    /// The window, the reply's share, the input budget and the threshold.
    pub budget: Budget,
    /// What the previous turn returned.
    pub state: Option<CompactState>,
    /// A manual compaction (`/compact`).
    pub manual: bool,
    /// See [`Input::ahead`].
    pub ahead: bool,
    /// The messages' format, if the caller named it.
    pub format: Option<MessageFormat>,
}

impl Setup {
    /// Resolves `options`: the counter (`encoding`, `model`, or with only a `contextWindow`
    /// the generic estimate of an unknown model), then the budget.
    pub fn new(options: CompactOptions) -> Result<Setup, Error> {
        let config = Config::new(&options);
        let format = options.format;
        let allow_estimate = options.allow_estimate.unwrap_or(false);
        let counting = match Counting::choose(options.encoding, options.model.as_deref(), allow_estimate)? {
            Some(c) => c,
            None if config.context_window.is_some() => Counting::for_model(crate::models::resolve(""), true)?,
            None => {
                return Err(Error::InvalidArgument {
                    argument: "options.model".into(),
                    expected: "a model id, or options.contextWindow (with or without options.encoding)"
                        .into(),
                })
            }
        };
        let budget = Budget::resolve(counting.model.as_ref(), &config)?;
        Ok(Setup {
            config: Rc::new(config),
            counting,
            budget,
            state: options
                .state
                .as_deref()
                .map(|raw| crate::options::parse_state::<CompactState>("options.state", raw.get()))
                .transpose()?,
            manual: options.manual.unwrap_or(false),
            ahead: false,
            format,
        })
    }

    /// Plans `conv` (counted through `memo`). `now` dates new summary chunks (the core has
    /// no clock); only a compaction that will run makes any.
    pub fn start(
        &self,
        conv: Rc<Conversation>,
        memo: &mut Memo,
        now: Option<String>,
    ) -> Result<Compaction, Error> {
        let (counts, _) = memo.counts(&conv, &self.counting.counter);
        Compaction::new(Input {
            conv,
            counts,
            config: Rc::clone(&self.config),
            counter: self.counting.counter,
            budget: self.budget,
            state: self.state.clone(),
            manual: self.manual,
            ahead: self.ahead,
            now,
        })
    }

    /// What a compaction would do now, without a summarizer.
    pub fn plan(&self, conv: Rc<Conversation>, memo: &mut Memo) -> Result<CompactPlan, Error> {
        Ok(self.start(conv, memo, None)?.plan().clone())
    }
}

/// Who answers a compaction's summarizer requests, for a caller that need not await them.
pub enum Summarizer<'a> {
    /// The built-in extractive summary (no model).
    Extractive,
    /// A function: a test's double for an LLM, or a synchronous summarizer.
    Model(&'a mut dyn FnMut(&Request) -> Reply),
}

/// Runs `compaction` through its rounds to the end. Returns the outcome and how many
/// summarizer calls were made.
pub fn run(mut compaction: Compaction, mut summarizer: Summarizer) -> Result<(CompactOutcome, usize), Error> {
    let mut calls = 0;
    while !compaction.requests().is_empty() {
        calls += compaction.requests().len();
        match &mut summarizer {
            Summarizer::Extractive => compaction.submit_extractive()?,
            Summarizer::Model(f) => {
                let replies = compaction.requests().iter().map(&mut **f).collect();
                compaction.submit(replies)?
            }
        }
    }
    Ok((compaction.finish()?, calls))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn setup(v: serde_json::Value) -> Result<Setup, Error> {
        Setup::new(crate::options::from_value("options", &v)?)
    }

    #[test]
    fn a_bad_state_is_invalid_state_at_its_path() {
        let e = setup(json!({"contextWindow": 8192, "state": {"version": 1}}))
            .err()
            .unwrap();
        assert_eq!(e.code(), "INVALID_STATE", "{e}");
        assert!(e.to_string().contains("options.state"), "{e}");
        let e = setup(
            json!({"contextWindow": 8192, "state": {"version": 1, "chunks": [{"text": 5}],
            "boundary": null, "pruneBoundary": null, "pinned": null}}),
        )
        .err()
        .unwrap();
        assert!(e.to_string().contains("options.state.chunks[0]"), "{e}");
        assert!(setup(json!({"contextWindow": 8192, "state": null}))
            .unwrap()
            .state
            .is_none());
    }

    #[test]
    fn the_counter_and_the_budget_follow_the_options() {
        let s = setup(json!({"model": "gpt-4o"})).unwrap();
        assert!(s.counting.exact);
        assert_eq!(s.budget.window, 128_000);
        let s = setup(json!({"contextWindow": 5000})).unwrap();
        assert!(!s.counting.exact, "a window alone counts as an unknown model");
        assert_eq!(setup(json!({})).err().unwrap().code(), "INVALID_ARGUMENT");
        // An encoding with a model: the model's window, counted with the encoding.
        let s = setup(json!({"model": "claude-sonnet-4-5", "encoding": "o200k_base"})).unwrap();
        assert!(s.counting.exact);
        assert!(s.budget.window >= 200_000);
    }

    /// A window no one gave: a model the table does not know, or one a local server serves,
    /// with no `contextWindow`, is an error that says which model and what fixes it; the
    /// same model with a window, or registered, is counted as before.
    #[test]
    fn a_window_no_one_gave_is_unknown_model() {
        let message = |v: serde_json::Value| match setup(v) {
            Ok(s) => format!("Ok: window {}", s.budget.window),
            Err(e) => format!("{}: {e}", e.code()),
        };
        let e = message(json!({"model": "gpt4o"}));
        assert!(e.starts_with("UNKNOWN_MODEL: unknown model \"gpt4o\""), "{e}");
        assert!(e.contains("\"gpt-4o\"") && e.contains("contextWindow"), "{e}");
        for id in [
            "llama3.1:8b",
            "ollama/llama3.1",
            "qwen2.5-coder:latest",
            "lm_studio/qwen2.5-7b-instruct",
        ] {
            let e = message(json!({"model": id}));
            assert!(e.starts_with("UNKNOWN_MODEL: model"), "{id}: {e}");
            assert!(
                e.contains("served by") && e.contains("contextWindow"),
                "{id}: {e}"
            );
        }
        let e = message(json!({"model": "ollama:llama3.1"}));
        assert!(e.contains("Ollama"), "{e}");
        // Hosted ids with a colon stay what the table says.
        for (id, window) in [
            ("us.anthropic.claude-sonnet-4-20250514-v1:0", 200_000),
            ("meta-llama/llama-3.3-70b-instruct:free", 128_000),
            ("ft:gpt-4o-mini-2024-07-18:my-org::abc123", 128_000),
            ("openai:gpt-4o", 128_000),
        ] {
            assert_eq!(
                message(json!({"model": id})),
                format!("Ok: window {window}"),
                "{id}"
            );
        }
        // A window given, or the model registered, is what fixes it.
        for id in ["gpt4o", "llama3.1:8b"] {
            assert_eq!(
                message(json!({"model": id, "contextWindow": 8192})),
                "Ok: window 8192"
            );
        }
        crate::models::register(crate::models::ModelInfo {
            id: "test-driver-ollama:7b".into(),
            provider: crate::models::Provider::Unknown,
            context_window: 16_384,
            max_output_tokens: None,
            max_input_tokens: None,
            tokenizer: crate::models::DEFAULT_TOKENIZER,
        })
        .unwrap();
        assert_eq!(
            message(json!({"model": "test-driver-ollama:7b"})),
            "Ok: window 16384"
        );
        crate::models::unregister("test-driver-ollama:7b");
    }
}
