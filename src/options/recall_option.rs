//! `recall`: whether the model has the recall tool ([`crate::recall::tool`]), so the summary
//! says earlier messages can be read again, and how many tokens one recall gives back.

use std::fmt;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use ts_rs::TS;

use super::Int;
use crate::config::RECALL_MAX_TOKENS;

/// The options of `recall`.
#[derive(Clone, Debug, Default, Deserialize, TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(optional_fields)]
pub struct RecallOptions {
    /// The most tokens one recall gives back, its framing included (passages are cut to fit,
    /// counted with the conversation's counter). From 100 to 100000. Default 1000.
    #[serde(default, deserialize_with = "super::present")]
    pub max_tokens: Option<Int<100, 100_000>>,
}

/// `recall`: `true` (on, the defaults), `false` (off) or its options (on).
#[derive(Clone, Debug)]
pub enum Recall {
    /// On with the defaults, or off.
    On(bool),
    /// On, with these options.
    With(RecallOptions),
}

impl Recall {
    /// Whether the model is told it can recall.
    pub fn on(&self) -> bool {
        matches!(self, Recall::On(true) | Recall::With(_))
    }

    /// The budget of one recall.
    pub fn max_tokens(&self) -> usize {
        match self {
            Recall::With(RecallOptions { max_tokens: Some(n) }) => n.get(),
            _ => RECALL_MAX_TOKENS,
        }
    }
}

impl<'de> Deserialize<'de> for Recall {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Either;
        impl<'de> Visitor<'de> for Either {
            type Value = Recall;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a boolean or { maxTokens }")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Recall, E> {
                Ok(Recall::On(v))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Recall, A::Error> {
                let o = RecallOptions::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(Recall::With(o))
            }
        }
        d.deserialize_any(Either)
    }
}
