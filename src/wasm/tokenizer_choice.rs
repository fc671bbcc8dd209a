//! `{ encoding }` or `{ model }`: which counter an options object asks for.

use wasm_bindgen::prelude::*;

use super::error::to_js;
use super::options::Options;
use crate::count::TextCounter;
use crate::estimate::Estimator;
use crate::models::{self, ResolvedModel};
use crate::tokenizer::{self, Encoding, Tokenizer};
use crate::Error;

/// The counter chosen, and the model if one was named.
pub enum Counting {
    /// An exact encoding.
    Exact(&'static Tokenizer),
    /// A model: its encoding when that is loaded, else its calibrated estimate.
    Model(ResolvedModel, Option<&'static Tokenizer>),
}

impl Counting {
    /// Reads `encoding` or `model` from `options` (one is required unless `optional`).
    pub fn from_options(options: &Options, optional: bool) -> Result<Option<Self>, JsValue> {
        match (options.string("encoding")?, options.string("model")?) {
            (Some(_), Some(_)) => Err(to_js(Error::InvalidArgument {
                argument: options.path("model"),
                expected: "either options.encoding or options.model, not both".into(),
            })),
            (Some(name), None) => {
                let t = tokenizer::tokenizer(Encoding::from_name(&name).map_err(to_js)?).map_err(to_js)?;
                Ok(Some(Counting::Exact(t)))
            }
            (None, Some(id)) => {
                let model = models::resolve(&id);
                let exact = match model.tokenizer {
                    Estimator::Exact { encoding } if tokenizer::is_available(encoding) => {
                        tokenizer::tokenizer(encoding).ok()
                    }
                    _ => None,
                };
                Ok(Some(Counting::Model(model, exact)))
            }
            (None, None) if optional => Ok(None),
            (None, None) => Err(to_js(Error::InvalidArgument {
                argument: options.path("encoding"),
                expected: "an encoding (\"o200k_base\", \"cl100k_base\") or options.model".into(),
            })),
        }
    }

    /// The counter.
    pub fn counter(&self) -> &dyn TextCounter {
        match self {
            Counting::Exact(t) | Counting::Model(_, Some(t)) => *t,
            Counting::Model(m, None) => &m.tokenizer,
        }
    }

    /// The model, if one was named.
    pub fn model(&self) -> Option<&ResolvedModel> {
        match self {
            Counting::Model(m, _) => Some(m),
            Counting::Exact(_) => None,
        }
    }

    /// `"exact"` or `"estimate"`.
    pub fn method(&self) -> &'static str {
        match self {
            Counting::Exact(_) | Counting::Model(_, Some(_)) => "exact",
            Counting::Model(_, None) => "estimate",
        }
    }
}
