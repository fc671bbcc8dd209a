//! `{ encoding }` or `{ model }`: which counter an options object asks for.

use wasm_bindgen::prelude::*;

use super::error::to_js;
use super::options::Options;
use crate::count::{Counter, TextCounter};
use crate::estimate::Estimator;
use crate::models::{self, ResolvedModel};
use crate::tokenizer::{self, Encoding};
use crate::Error;

/// The counter chosen, and the model if one was named.
pub struct Counting {
    counter: Counter,
    model: Option<ResolvedModel>,
    exact: bool,
}

impl Counting {
    /// Reads `encoding` or `model` from `options` (one is required unless `optional`).
    /// A model whose encoding is known but not loaded (the lite build) is an error
    /// (`VOCABULARY_NOT_LOADED`) unless `allowEstimate` is set.
    pub fn from_options(options: &Options, optional: bool) -> Result<Option<Self>, JsValue> {
        match (options.string("encoding")?, options.string("model")?) {
            (Some(_), Some(_)) => Err(to_js(Error::InvalidArgument {
                argument: options.path("model"),
                expected: "either options.encoding or options.model, not both".into(),
            })),
            (Some(name), None) => {
                let t = tokenizer::tokenizer(Encoding::from_name(&name).map_err(to_js)?).map_err(to_js)?;
                Ok(Some(Counting {
                    counter: Counter::Exact(t),
                    model: None,
                    exact: true,
                }))
            }
            (None, Some(id)) => {
                let allow_estimate = options.boolean("allowEstimate")?.unwrap_or(false);
                Self::for_model(models::resolve(&id), allow_estimate).map(Some)
            }
            (None, None) if optional => Ok(None),
            (None, None) => Err(to_js(Error::InvalidArgument {
                argument: options.path("encoding"),
                expected: "an encoding (\"o200k_base\", \"cl100k_base\") or options.model".into(),
            })),
        }
    }

    /// A model's counter: its encoding when that is loaded, else its calibrated estimate
    /// (for a model with a known encoding, only if `allow_estimate`).
    pub fn for_model(model: ResolvedModel, allow_estimate: bool) -> Result<Self, JsValue> {
        let (counter, exact) = match model.tokenizer {
            Estimator::Exact { encoding } if tokenizer::is_available(encoding) => (
                Counter::Exact(tokenizer::tokenizer(encoding).map_err(to_js)?),
                true,
            ),
            Estimator::Exact { encoding } if !allow_estimate => {
                return Err(to_js(Error::VocabularyNotLoaded {
                    encoding: encoding.name(),
                }))
            }
            estimator => (Counter::Estimate(estimator), false),
        };
        Ok(Counting {
            counter,
            model: Some(model),
            exact,
        })
    }

    /// The counter.
    pub fn counter(&self) -> &dyn TextCounter {
        &self.counter
    }

    /// The counter, owned.
    pub fn owned(&self) -> Counter {
        self.counter
    }

    /// The model, if one was named.
    pub fn model(&self) -> Option<&ResolvedModel> {
        self.model.as_ref()
    }

    /// `"exact"` or `"estimate"`.
    pub fn method(&self) -> &'static str {
        if self.exact {
            "exact"
        } else {
            "estimate"
        }
    }
}
