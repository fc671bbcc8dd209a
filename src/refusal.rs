//! A provider's refusal of an input that does not fit its context window, read from the
//! error it answered with, and the budget that keeps the next input below its limit.
//!
//! Each API says it in its own words, and most say it only in words: OpenAI's
//! `context_length_exceeded` ("maximum context length is 128000 tokens. However, your
//! messages resulted in 130549 tokens"), Anthropic's `prompt is too long: 208310 tokens >
//! 200000 maximum` (or `input length and \`max_tokens\` exceed context limit: N + K > M`),
//! Gemini's `The input token count (N) exceeds the maximum number of tokens allowed (M)`,
//! vLLM's `you requested N tokens (X in the messages, Y in the completion)`, llama.cpp's
//! (and Ollama's, which passes it on) `exceed_context_size_error` with `n_prompt_tokens` and
//! `n_ctx`, LM Studio's `Trying to keep the first N tokens ... context length of only M
//! tokens`. `tests/refusals/` holds the bodies, each with where it was seen.
//!
//! Reading a provider's words is the point here: they are the provider's data, not
//! ctxfold's own errors (whose words nothing decides from). A body that matches no known
//! refusal is not one ([`read`] gives `None`, and callers rethrow the error as it was): a
//! rate limit on tokens per minute, an output cap too large, a body too large in bytes.

use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

use crate::compact::types::Budget;

/// What a refusal said: the provider's count of the input and its limit, each when it
/// gave it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize, TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Refusal {
    /// The input tokens the provider counted (the messages, and tool definitions where it
    /// counts them with the messages; without the completion vLLM adds).
    pub tokens: Option<u64>,
    /// The provider's limit: its context window (input and output, for most), or its input
    /// limit (Gemini).
    pub limit: Option<u64>,
}

/// The share of the limit left free below it when a refusal is planned again: the new
/// input's own ratio differs a little from the refused one's.
pub const MARGIN: f64 = 0.03;

/// How deep [`read`] looks into wrappers (an SDK error's `cause`, a body in a string in a
/// body: Ollama's passes llama.cpp's on as a string).
const DEPTH: usize = 8;

/// The refusal an error value holds, if it is one: a provider's error body (parsed, or the
/// text of one), or an object holding one where SDKs put it (`responseBody`, `data`, `error`,
/// `body`, `message`, `cause`: the AI SDK's `APICallError`, the OpenAI and Anthropic SDKs'
/// errors, as the package's JavaScript copies their fields).
pub fn read(error: &Value) -> Option<Refusal> {
    look(error, DEPTH)
}

fn look(v: &Value, depth: usize) -> Option<Refusal> {
    if depth == 0 {
        return None;
    }
    match v {
        Value::String(s) => match serde_json::from_str::<Value>(s) {
            Ok(inner @ (Value::Object(_) | Value::Array(_))) => look(&inner, depth - 1),
            _ => in_text(s),
        },
        Value::Array(items) => items.iter().find_map(|x| look(x, depth - 1)),
        Value::Object(obj) => {
            if let Some(r) = in_fields(obj) {
                return Some(r);
            }
            [
                "error",
                "responseBody",
                "data",
                "body",
                "message",
                "cause",
                "detail",
            ]
            .iter()
            .filter_map(|k| obj.get(*k))
            .find_map(|x| look(x, depth - 1))
        }
        _ => None,
    }
}

/// A refusal said in an error object's fields: llama.cpp's type with its counts, OpenAI's
/// code with the counts in its text.
fn in_fields(obj: &serde_json::Map<String, Value>) -> Option<Refusal> {
    let field = |k: &str| obj.get(k).and_then(Value::as_str);
    let count = |k: &str| obj.get(k).and_then(Value::as_u64);
    if field("type") == Some("exceed_context_size_error") {
        let from_text = field("message").and_then(in_text);
        return Some(Refusal {
            tokens: count("n_prompt_tokens").or(from_text.and_then(|r| r.tokens)),
            limit: count("n_ctx").or(from_text.and_then(|r| r.limit)),
        });
    }
    if field("code") == Some("context_length_exceeded") {
        let said = field("message").and_then(in_text);
        return Some(said.unwrap_or(Refusal {
            tokens: None,
            limit: None,
        }));
    }
    None
}

/// One way a refusal is worded: the words before the input's count, before the limit, and
/// which comes first (the text lowercased).
struct Form {
    /// Words the text must hold for the form to apply.
    marker: &'static str,
    tokens: Option<&'static str>,
    limit: Option<&'static str>,
}

const FORMS: &[Form] = &[
    // OpenAI; vLLM and other OpenAI-compatible servers ("you requested N tokens (X in the
    // messages, Y in the completion)": X is the input).
    Form {
        marker: "maximum context length is",
        tokens: Some("resulted in"),
        limit: Some("maximum context length is"),
    },
    // Anthropic.
    Form {
        marker: "prompt is too long:",
        tokens: Some("prompt is too long:"),
        limit: Some(">"),
    },
    Form {
        marker: "input length and `max_tokens` exceed context limit:",
        tokens: Some("exceed context limit:"),
        limit: Some(">"),
    },
    // Gemini.
    Form {
        marker: "the input token count",
        tokens: Some("the input token count ("),
        limit: Some("maximum number of tokens allowed ("),
    },
    // llama.cpp's newer wording, and Ollama's when it passes it on.
    Form {
        marker: "exceeds the available context size",
        tokens: Some("request ("),
        limit: Some("available context size ("),
    },
    // LM Studio.
    Form {
        marker: "when context the overflows",
        tokens: Some("trying to keep the first"),
        limit: Some("context length of only"),
    },
    Form {
        marker: "tokens to keep from the initial prompt is greater than the context length",
        tokens: None,
        limit: None,
    },
    // llama.cpp-based servers (LM Studio, llama-cpp-python).
    Form {
        marker: "cannot truncate prompt with n_keep",
        tokens: Some("n_keep ("),
        limit: Some("n_ctx ("),
    },
    Form {
        marker: "exceed context window of",
        tokens: Some("requested tokens ("),
        limit: Some("context window of"),
    },
];

/// A refusal said in words (a body's message, or a body that is text).
fn in_text(text: &str) -> Option<Refusal> {
    let lower = text.to_lowercase();
    let form = FORMS.iter().find(|f| lower.contains(f.marker))?;
    let after = |words: Option<&str>| words.and_then(|w| number_after(&lower, w));
    let tokens = if form.marker == "maximum context length is" && lower.contains("you requested") {
        // vLLM: "you requested N tokens (X in the messages, Y in the completion)": X.
        after(Some("tokens (")).or(after(Some("you requested")))
    } else {
        after(form.tokens)
    };
    Some(Refusal {
        tokens,
        limit: after(form.limit),
    })
}

/// The first whole number after `words` in `text` (digits with `,` or `_` between them),
/// skipping spaces and `(`.
fn number_after(text: &str, words: &str) -> Option<u64> {
    let at = text.find(words)? + words.len();
    let rest = text[at..].trim_start_matches([' ', '(']);
    let digits: String = rest
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == ',' || *c == '_')
        .filter(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// The ratio of the provider's tokens to ctxfold's that a refusal of an input ctxfold
/// counted as `counted` shows, when it is more than the one in force (`ratio_used`, 1
/// without one). With the count: `tokens / counted`. With only the limit, the count was
/// more than it: if ctxfold's estimate (`counted x ratio_used`) was within the limit, the
/// ratio is at least `limit / counted`, taken with the margin. `None`: nothing to learn.
pub fn ratio(refusal: &Refusal, counted: usize, ratio_used: Option<f64>) -> Option<f64> {
    if counted == 0 {
        return None;
    }
    let used = ratio_used.unwrap_or(1.0);
    let seen = match (refusal.tokens, refusal.limit) {
        (Some(n), _) => n as f64 / counted as f64,
        (None, Some(m)) if counted as f64 * used <= m as f64 => m as f64 * (1.0 + MARGIN) / counted as f64,
        _ => return None,
    };
    (seen > used).then_some(seen)
}

/// `budget` (in the provider's tokens) held strictly below a provider's `limit` with the
/// margin: the window at most the limit, the input at most the limit less the reserved
/// output (half the limit, when the reserved output would take all of it), less the margin.
pub fn limited(budget: Budget, limit: usize) -> Budget {
    let window = budget.window.min(limit);
    let room = match limit.checked_sub(budget.reserved_output) {
        Some(r) if r > 0 => r,
        _ => limit / 2,
    };
    let below = ((room as f64) * (1.0 - MARGIN)).floor() as usize;
    let input = budget.input.min(below.min(limit.saturating_sub(1)));
    Budget {
        window,
        input,
        threshold: budget.threshold.min(input),
        ..budget
    }
}

/// A conversation's correction after a refusal, for a caller that plans with `compact()`
/// (the AI SDK middleware): what it has learned, and the window and reserved output to plan
/// with so the input lands below the provider's limit.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, serde::Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Correction {
    /// The provider's tokens per ctxfold token (1: no correction).
    pub ratio: f64,
    /// The provider's limit (`null`: none said).
    pub limit: Option<usize>,
    /// The window ctxfold planned with before any correction.
    pub window: usize,
    /// The output reserved in it.
    pub reserved_output: usize,
    /// `contextWindow` to plan with now (ctxfold's tokens).
    pub context_window: usize,
    /// `reservedOutputTokens` to plan with now.
    pub reserved_output_tokens: usize,
}

impl Correction {
    /// The correction after `refusal` of an input ctxfold counted as `counted`: on top of
    /// `previous` (the conversation's earlier one), or of `budget` (the uncorrected budget
    /// the refused input was planned in).
    pub fn after(
        refusal: &Refusal,
        counted: usize,
        previous: Option<&Correction>,
        budget: Budget,
    ) -> Correction {
        let used = previous.map(|p| p.ratio);
        let ratio = ratio(refusal, counted, used).unwrap_or(used.unwrap_or(1.0));
        let said = refusal.limit.and_then(|m| usize::try_from(m).ok());
        let limit = match (previous.and_then(|p| p.limit), said) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let (window, reserved_output) = match previous {
            Some(p) => (p.window, p.reserved_output),
            None => (budget.window, budget.reserved_output),
        };
        let nominal = Budget {
            window,
            reserved_output,
            input: window.saturating_sub(reserved_output),
            threshold: window.saturating_sub(reserved_output),
        };
        let held = limit.map_or(nominal, |l| limited(nominal, l));
        let input = ((held.input as f64) / ratio).floor() as usize;
        Correction {
            ratio,
            limit,
            window,
            reserved_output,
            context_window: (input + held.reserved_output).max(1),
            reserved_output_tokens: held.reserved_output,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn budget(window: usize, reserved: usize) -> Budget {
        Budget {
            window,
            reserved_output: reserved,
            input: window - reserved,
            threshold: window - reserved,
        }
    }

    #[test]
    fn numbers_read_with_separators() {
        assert_eq!(number_after("limit: 1,048,576 tokens", "limit:"), Some(1_048_576));
        assert_eq!(number_after("count (42)", "count"), Some(42));
        assert_eq!(number_after("count none", "count"), None);
    }

    #[test]
    fn the_ratio_grows_only() {
        let both = Refusal {
            tokens: Some(1300),
            limit: Some(1000),
        };
        assert_eq!(ratio(&both, 1000, None), Some(1.3));
        assert_eq!(ratio(&both, 1000, Some(1.5)), None);
        // Only the limit: the count was more than it.
        let only = Refusal {
            tokens: None,
            limit: Some(1000),
        };
        let r = ratio(&only, 900, None).unwrap();
        assert!((r - 1000.0 * 1.03 / 900.0).abs() < 1e-12);
        // ctxfold already estimated more than the limit: the window was the error.
        assert_eq!(ratio(&only, 1200, None), None);
        assert_eq!(ratio(&both, 0, None), None);
    }

    #[test]
    fn the_budget_stays_below_the_limit() {
        let b = limited(budget(128_000, 8_000), 8_192);
        assert_eq!(b.window, 8_192);
        assert!(b.input < 8_192 - 8_000 + 1, "{b:?}");
        // A reserve the limit cannot hold: half the limit.
        let b = limited(budget(128_000, 16_000), 8_192);
        assert_eq!(b.input, (4_096.0_f64 * 0.97).floor() as usize);
        // A limit above the window changes only the margin's side of nothing.
        let b = limited(budget(8_000, 1_000), 200_000);
        assert_eq!(b, budget(8_000, 1_000));
        assert!(read(&json!({"error": {"code": "rate_limit_exceeded"}})).is_none());
    }

    #[test]
    fn a_correction_plans_the_input_below_the_limit_in_the_provider_s_tokens() {
        let r = Refusal {
            tokens: Some(12_000),
            limit: Some(8_192),
        };
        let c = Correction::after(&r, 10_000, None, budget(128_000, 4_096));
        assert_eq!((c.ratio, c.limit, c.window), (1.2, Some(8_192), 128_000));
        let input = c.context_window - c.reserved_output_tokens;
        assert!((input as f64) * c.ratio < 8_192.0 - 4_096.0, "{c:?}");
        // A later refusal builds on it: the smaller limit, the larger ratio.
        let again = Refusal {
            tokens: None,
            limit: Some(6_000),
        };
        let d = Correction::after(&again, input, Some(&c), budget(c.context_window, 4_096));
        assert_eq!((d.limit, d.window), (Some(6_000), 128_000));
        assert!(d.context_window < c.context_window);
    }
}
