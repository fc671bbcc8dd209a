//! The token budget of a call: the window, what is kept free for the reply, what the input
//! may take, and the threshold above which a compaction runs.

use super::types::Budget;
use crate::config::Config;
use crate::models::ModelInfoResolved;
use crate::Error;

/// The default tokens kept free for the reply: 1/16 of the window, at least 1024, at
/// most the model's output cap (a quarter of the window without one) and half the window.
pub fn default_reserved_output(window: usize, max_output: usize) -> usize {
    (window / 16).max(1024).min(max_output).min(window / 2)
}

impl Budget {
    /// The budget for a model (if one was named) and options: `contextWindow` and
    /// `reservedOutputTokens` win (without `contextWindow`, a model whose window ctxfold
    /// cannot know is `UNKNOWN_MODEL`: [`crate::models::known_window`]); a model with its own input cap (GPT-5) reserves at least
    /// what lies above it. The threshold is `max(tokenFloor, thresholdRatio x window)`, at
    /// most the input budget.
    pub fn resolve(model: Option<&ModelInfoResolved>, config: &Config) -> Result<Budget, Error> {
        let window = match (config.context_window, model) {
            (Some(window), _) => window,
            (None, Some(m)) => crate::models::known_window(m)? as usize,
            (None, None) => {
                return Err(Error::InvalidArgument {
                    argument: "options".into(),
                    expected: "a model (options.model) or a window (options.contextWindow)".into(),
                })
            }
        };
        let max_output = model
            .and_then(|m| m.max_output_tokens)
            .map_or(window / 4, |m| m as usize);
        let mut reserved = config
            .reserved_output_tokens
            .unwrap_or_else(|| default_reserved_output(window, max_output));
        if let Some(max_input) = model.and_then(|m| m.max_input_tokens) {
            reserved = reserved.max(window.saturating_sub(max_input as usize));
        }
        if reserved >= window {
            return Err(Error::OutOfRange {
                argument: "options.reservedOutputTokens".into(),
                reason: format!("{reserved} leaves nothing of the {window}-token window for input"),
            });
        }
        Ok(Budget::new(window, reserved, config))
    }

    /// What a compaction works within: the threshold (at most the input budget). Its target
    /// is `targetRatio` of this, and the summary and ledger it reserves are sized from it, so
    /// that a low threshold does not get a summary slot larger than the target.
    pub fn room(&self) -> usize {
        self.threshold.min(self.input)
    }

    /// What `foldRatio` is a share of: the window, scaled down by `room / input` when the
    /// threshold is below the input budget (a compaction at 1,200 tokens of an 8k window
    /// folds its summaries past 30 % of 1,376, not of 8,000, which they would pass only
    /// long after every turn had compacted again).
    pub fn fold_base(&self) -> usize {
        ((self.window as u128 * self.room() as u128) / self.input.max(1) as u128) as usize
    }

    /// The budget of a `window` with `reserved` tokens kept for the reply (less than the
    /// window: at most `window - 1` is kept).
    pub fn new(window: usize, reserved: usize, config: &Config) -> Budget {
        let reserved = reserved.min(window.saturating_sub(1));
        let input = window - reserved;
        let threshold = ((config.threshold_ratio * window as f64) as usize)
            .max(config.token_floor)
            .min(input);
        Budget {
            window,
            reserved_output: reserved,
            input,
            threshold,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_output_scales_with_the_window_within_bounds() {
        assert_eq!(default_reserved_output(128_000, 16_384), 8000);
        assert_eq!(default_reserved_output(8192, 4096), 1024);
        // Never more than half a small window, nor more than the model can write.
        assert_eq!(default_reserved_output(1100, 4096), 550);
        assert_eq!(default_reserved_output(200_000, 512), 512);
    }

    #[test]
    fn threshold_is_the_larger_of_floor_and_ratio_within_the_input() {
        let config = Config::from_json(&serde_json::json!({"contextWindow": 10_000})).unwrap();
        let b = Budget::resolve(None, &config).unwrap();
        assert_eq!(
            (b.window, b.reserved_output, b.input, b.threshold),
            (10_000, 1024, 8976, 8976)
        );
        // 0.9 of the window is past the input budget here: the threshold is the budget.
        let config =
            Config::from_json(&serde_json::json!({"contextWindow": 10_000, "thresholdRatio": 0.7})).unwrap();
        assert_eq!(Budget::resolve(None, &config).unwrap().threshold, 7000);
        let floor =
            Config::from_json(&serde_json::json!({"contextWindow": 5000, "tokenFloor": 4500})).unwrap();
        let b = Budget::resolve(None, &floor).unwrap();
        assert_eq!(b.threshold, b.input.min(4500));
        let e = Budget::resolve(
            None,
            &Config::from_json(&serde_json::json!({"contextWindow": 100, "reservedOutputTokens": 100}))
                .unwrap(),
        )
        .unwrap_err();
        assert_eq!(e.code(), "OUT_OF_RANGE");
    }
}
