//! The provider's usage report: the input tokens it counted, read from what each API
//! returns, and the correction it gives ctxfold's count ([`UsageAnchor`]).
//!
//! A report is paired with the input the `prepare` just before it returned, which ctxfold
//! counted. Their ratio corrects the next trigger decision: it compares `counted x ratio`
//! with the threshold. The next input is the last one plus what came since (the reply, the
//! tool results, the next user message), so this is seeds 001's and 004's "the last reported
//! input plus the count of what is new", with what is new counted at the same ratio: for a
//! model whose tokenizer ctxfold only estimates (Claude, Gemini), the error that is left is
//! how much the ratio of the new part differs from the whole's.

use serde_json::Value;

use super::stored::{StoredMeta, UsageAnchor};
use crate::refusal::Refusal;
use crate::Error;

/// A ratio outside this range is not this input's report (a report of another request, the
/// output tokens, tool definitions many times the conversation, input tokens without the
/// cached ones): it is not taken. The low end is the largest over-estimate measured for a
/// whole conversation (docs/estimates.md: +61 % for the lite build's character estimate,
/// +81 % on Greek prose via o200k), with room: a lower report would let the budget grow
/// past what the window holds. For a model ctxfold counts exactly, a report below its count
/// comes from a part it only sizes (an image) or from input left out (cached tokens): the
/// next decision takes a ratio of at least 1, so the report may shrink the budget (tools, a
/// system prompt sent beside the messages), never grow it.
pub const PLAUSIBLE: (f64, f64) = (0.5, 4.0);

/// The keys [`reported_input`] reads a usage report's counts from, and the wrappers it looks
/// inside (`usage`, `usageMetadata`; `inputTokens` may hold `{ total }`).
pub const REPORT_KEYS: [&str; 9] = [
    "prompt_tokens",
    "input_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
    "inputTokens",
    "total",
    "promptTokenCount",
    "usage",
    "usageMetadata",
];

/// The input tokens a provider reported. Accepts each API's usage object: OpenAI Chat
/// Completions `{ prompt_tokens }`, OpenAI Responses `{ input_tokens }`, Anthropic `{
/// input_tokens, cache_read_input_tokens, cache_creation_input_tokens }` (summed: Anthropic
/// counts cached input apart), the AI SDK's `{ inputTokens }` (a number, or `{ total }` in its
/// provider-level `LanguageModelV3Usage`), Gemini's `{ promptTokenCount }`; or a response
/// holding one of those as `usage` or `usageMetadata`; or a plain number. `None`: an object
/// without the input tokens (a provider that left them out: the AI SDK's `inputTokens:
/// undefined`), which is no error, only nothing to learn from; a count that is not a
/// non-negative integer, or a report that is no object, is.
pub fn reported_input(usage: &Value) -> Result<Option<u64>, Error> {
    let bad = |what: String| {
        Error::InvalidArgument {
        argument: "usage".into(),
        expected: format!(
            "a provider's usage report with the input tokens (prompt_tokens, input_tokens, inputTokens or promptTokenCount), {what}"
        ),
    }
    };
    let count = |v: &Value, key: &str| -> Result<Option<u64>, Error> {
        match v {
            Value::Null => Ok(None),
            Value::Number(n) => n
                .as_f64()
                .filter(|x| *x >= 0.0 && x.fract() == 0.0 && *x <= 1e12)
                .map(|x| Some(x as u64))
                .ok_or_else(|| bad(format!("got {key}: {n}"))),
            other => Err(bad(format!("got {key}: {}", crate::messages::json_kind(other)))),
        }
    };
    let field = |obj: &serde_json::Map<String, Value>, key: &str| -> Result<Option<u64>, Error> {
        obj.get(key).map_or(Ok(None), |v| count(v, key))
    };
    let obj = match usage {
        Value::Number(_) => return count(usage, "usage"),
        Value::Object(obj) => obj,
        other => return Err(bad(format!("got {}", crate::messages::json_kind(other)))),
    };
    for wrapper in ["usage", "usageMetadata"] {
        if let Some(inner @ Value::Object(_)) = obj.get(wrapper) {
            return reported_input(inner);
        }
    }
    if let Some(n) = field(obj, "prompt_tokens")? {
        return Ok(Some(n));
    }
    if let Some(n) = field(obj, "input_tokens")? {
        // Anthropic's input_tokens leaves out what was read from or written to its cache.
        let cached = field(obj, "cache_read_input_tokens")?.unwrap_or(0)
            + field(obj, "cache_creation_input_tokens")?.unwrap_or(0);
        return Ok(Some(n + cached));
    }
    match obj.get("inputTokens") {
        Some(Value::Object(parts)) => {
            if let Some(n) = field(parts, "total")? {
                return Ok(Some(n));
            }
        }
        Some(v) => {
            if let Some(n) = count(v, "inputTokens")? {
                return Ok(Some(n));
            }
        }
        None => {}
    }
    field(obj, "promptTokenCount")
}

/// The anchor after a report of `reported` tokens for an input ctxfold counted as `counted`,
/// when the trigger decision had used `ratio_used`. `Err` says why the report is not taken.
pub fn anchor(
    previous: Option<&UsageAnchor>,
    model: &str,
    reported: u64,
    counted: usize,
    ratio_used: Option<f64>,
    at: Option<String>,
) -> Result<UsageAnchor, String> {
    if counted == 0 || reported == 0 {
        return Err(format!(
            "the report ({reported} tokens) or ctxfold's count ({counted}) is 0"
        ));
    }
    let ratio = reported as f64 / counted as f64;
    if !(PLAUSIBLE.0..=PLAUSIBLE.1).contains(&ratio) {
        return Err(format!(
            "{reported} tokens reported for an input ctxfold counted as {counted}: a ratio of {ratio:.2}, outside {}..{}, is not this input's report",
            PLAUSIBLE.0, PLAUSIBLE.1
        ));
    }
    let error = counted as f64 / reported as f64 - 1.0;
    let corrected_error = ratio_used.map(|r| counted as f64 * r / reported as f64 - 1.0);
    let reports = previous.map_or(0, |p| p.reports) + 1;
    let mean = |old: f64, n: u32, x: f64| old + (x - old) / n as f64;
    let mean_abs_error = mean(previous.map_or(0.0, |p| p.mean_abs_error), reports, error.abs());
    // Reports with a correction: every one after the first that had one.
    let mean_abs_corrected_error = match (corrected_error, previous) {
        (None, p) => p.and_then(|p| p.mean_abs_corrected_error),
        (Some(e), Some(p)) => {
            let corrected_before = corrected_reports(p);
            Some(mean(
                p.mean_abs_corrected_error.unwrap_or(0.0),
                corrected_before + 1,
                e.abs(),
            ))
        }
        (Some(e), None) => Some(e.abs()),
    };
    Ok(UsageAnchor {
        model: model.to_owned(),
        // At most 4x a count: it fits.
        reported: usize::try_from(reported).unwrap_or(usize::MAX),
        counted,
        ratio,
        reports,
        error,
        corrected_error,
        mean_abs_error,
        mean_abs_corrected_error,
        at,
        limit: previous.and_then(|p| p.limit),
    })
}

/// A provider's refusal of the input the last `prepare` returned as too long, taken into
/// `meta` as a usage report would be: its count (or what its limit says of the count) into
/// the model's anchor ([`anchor`]), its limit as the anchor's `limit`. The call then plans
/// again with both. `Err`: a refusal of an input already planned again after one
/// ([`Error::Refused`]), or one that has no input to pair with.
pub fn refused(meta: &mut StoredMeta, refusal: &Refusal, at: Option<String>) -> Result<(), Error> {
    let li = (meta.last_input.clone())
        .filter(|li| li.length == meta.length)
        .ok_or_else(|| Error::InvalidArgument {
            argument: "error".into(),
            expected: "a refusal of the input the last prepare() returned, with nothing appended since"
                .into(),
        })?;
    if li.replanned {
        let estimate = li
            .ratio
            .map_or(li.tokens, |r| (li.tokens as f64 * r).round() as usize);
        return Err(Error::Refused {
            tokens: refusal.tokens,
            limit: refusal.limit,
            estimate,
        });
    }
    let previous = meta.anchors.iter().find(|a| a.model == li.model).cloned();
    let learned = crate::refusal::ratio(refusal, li.tokens, li.ratio).and_then(|r| {
        let reported = (r * li.tokens as f64).ceil() as u64;
        anchor(
            previous.as_ref(),
            &li.model,
            reported,
            li.tokens,
            li.ratio,
            at.clone(),
        )
        .ok()
    });
    let mut next = learned.or(previous).unwrap_or_else(|| UsageAnchor {
        model: li.model.clone(),
        reported: 0,
        counted: li.tokens,
        ratio: 1.0,
        reports: 0,
        error: 0.0,
        corrected_error: None,
        mean_abs_error: 0.0,
        mean_abs_corrected_error: None,
        at,
        limit: None,
    });
    if let Some(m) = refusal.limit.and_then(|m| usize::try_from(m).ok()) {
        next.limit = Some(next.limit.map_or(m, |l| l.min(m)));
    }
    meta.anchors.retain(|a| a.model != li.model);
    meta.anchors.push(next);
    Ok(())
}

/// How many of an anchor's reports had a correction: all but the first, once one had.
fn corrected_reports(a: &UsageAnchor) -> u32 {
    match a.mean_abs_corrected_error {
        None => 0,
        Some(_) => a.reports.saturating_sub(1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_api_s_usage_is_read() {
        let cases = [
            (
                json!({"prompt_tokens": 120, "completion_tokens": 5, "total_tokens": 125}),
                120,
            ),
            (
                json!({"input_tokens": 90, "output_tokens": 3, "input_tokens_details": {"cached_tokens": 64}}),
                90,
            ),
            (
                json!({"input_tokens": 10, "cache_read_input_tokens": 800, "cache_creation_input_tokens": 30, "output_tokens": 7}),
                840,
            ),
            (
                json!({"inputTokens": 77, "outputTokens": 1, "totalTokens": 78}),
                77,
            ),
            (
                json!({"inputTokens": {"total": 64, "noCache": 4, "cacheRead": 60}, "outputTokens": {"total": 2}}),
                64,
            ),
            (json!({"promptTokenCount": 55, "candidatesTokenCount": 3}), 55),
            (json!({"usageMetadata": {"promptTokenCount": 56}}), 56),
            (json!({"id": "chatcmpl-1", "usage": {"prompt_tokens": 57}}), 57),
            (json!(58), 58),
        ];
        for (usage, want) in cases {
            assert_eq!(reported_input(&usage).unwrap(), Some(want), "{usage}");
        }
        // A report without the input tokens: nothing to learn from, no error.
        for none in [
            json!({"completion_tokens": 5}),
            json!({"inputTokens": null, "outputTokens": 5}),
            json!({"inputTokens": {"total": null}}),
            json!({}),
        ] {
            assert_eq!(reported_input(&none).unwrap(), None, "{none}");
        }
        for bad in [json!("12"), json!(-1), json!({"prompt_tokens": "x"})] {
            let e = reported_input(&bad).unwrap_err();
            assert_eq!(e.code(), "INVALID_ARGUMENT", "{bad}");
            assert!(e.to_string().contains("usage"), "{e}");
        }
    }

    #[test]
    fn the_anchor_keeps_the_ratio_and_the_errors() {
        let first = anchor(None, "claude", 1200, 1000, None, None).unwrap();
        assert_eq!(first.ratio, 1.2);
        assert!((first.error - (1000.0 / 1200.0 - 1.0)).abs() < 1e-12);
        assert_eq!(first.corrected_error, None);
        assert_eq!(first.mean_abs_corrected_error, None);
        // The next input, counted 1500, predicted 1800; the provider says 1818.
        let second = anchor(Some(&first), "claude", 1818, 1500, Some(first.ratio), None).unwrap();
        assert_eq!(second.reports, 2);
        let e = 1800.0 / 1818.0 - 1.0;
        assert!((second.corrected_error.unwrap() - e).abs() < 1e-12);
        assert!((second.mean_abs_corrected_error.unwrap() - e.abs()).abs() < 1e-12);
        let third = anchor(Some(&second), "claude", 2000, 1650, Some(second.ratio), None).unwrap();
        let e3 = (1650.0 * second.ratio / 2000.0 - 1.0_f64).abs();
        assert!((third.mean_abs_corrected_error.unwrap() - (e.abs() + e3) / 2.0).abs() < 1e-12);
        assert!(anchor(None, "m", 10_000, 1000, None, None)
            .unwrap_err()
            .contains("not this input's"));
        assert!(anchor(None, "m", 0, 1000, None, None).is_err());
    }
}
