//! A summarizer's own request refused as too long for the provider's window: the text to
//! summarize cut to what fits below the limit the refusal gave, for the one retry
//! [`super::Exchange`] makes (a second refusal is `CONTEXT_OVERFLOW`).
//!
//! The request's count is the provider's (its refusal says it): the text is cut in the
//! same proportion as the count must shrink, keeping its start (the oldest messages, which a
//! summary of a summary needs first) and its end (the newest), with a line where the middle
//! was. Characters stand in for tokens here, at the request's own ratio.

use crate::compact::elide;
use crate::refusal::{Refusal, MARGIN};

/// The share kept when the refusal gives no count or no limit.
const UNKNOWN_SHARE: f64 = 0.5;

/// The retry's text, and the tokens the provider should count for the whole request.
pub fn shortened(refusal: &Refusal, text: &str, max_tokens: usize) -> (String, usize) {
    let share = match (refusal.tokens, refusal.limit) {
        (Some(n), Some(m)) if n > 0 => {
            let room = (m as f64 - max_tokens as f64).max(m as f64 / 2.0) * (1.0 - MARGIN);
            (room / n as f64).min(1.0 - MARGIN)
        }
        _ => UNKNOWN_SHARE,
    };
    let estimate = match refusal.tokens {
        Some(n) => (n as f64 * share).floor() as usize,
        None => (text.chars().count() as f64 * share / 4.0) as usize,
    };
    (cut(text, share), estimate)
}

/// `text` with its middle left out, `share` of it kept (two thirds from the start, a third
/// from the end, as [`elide::cut`] keeps them).
fn cut(text: &str, share: f64) -> String {
    let keep = ((text.len() as f64) * share.clamp(0.0, 1.0)).floor() as usize;
    elide::cut(text, keep, &|left_out| {
        format!("\n\n[{left_out} characters left out here: the text was too long for the summarizer's context window]\n\n")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_shrinks_as_the_count_must() {
        let text = "#".repeat(10_000);
        let r = Refusal {
            tokens: Some(4_000),
            limit: Some(2_000),
        };
        let (short, estimate) = shortened(&r, &text, 500);
        let kept = short.chars().filter(|c| *c == '#').count();
        let want = ((2_000.0 - 500.0) * 0.97 / 4_000.0 * 10_000.0) as usize;
        assert!(kept.abs_diff(want) <= 1, "{kept} vs {want}");
        assert!(short.contains("characters left out"));
        assert!(estimate < 2_000 - 500, "{estimate}");
        // No counts: half.
        let none = Refusal {
            tokens: None,
            limit: None,
        };
        assert_eq!(
            shortened(&none, &text, 500)
                .0
                .chars()
                .filter(|c| *c == '#')
                .count(),
            5_000
        );
        // Multi-byte text is cut on characters.
        let (s, _) = shortened(&r, &"é".repeat(100), 500);
        assert!(s.starts_with('é') && s.ends_with('é'));
    }
}
