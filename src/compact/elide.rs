//! Cutting the middle out of a text so that it fits, always in a bounded number of steps.
//!
//! A summarizer prompt elides a long message, and `overflow: "truncate"` cuts a message
//! that cannot fit otherwise. Both keep the start and the end of the text around a marker
//! that says how much was removed. [`fit`] finds the longest such cut that fits a token
//! budget by bisection over the kept bytes, so it makes at most about `log2(len)` counts
//! whatever the counter does (an estimate need not be monotonic, and a marker adds tokens
//! back); when even the marker alone is too long it gives the marker alone, and the caller
//! decides (the engine's fit check then reports the overflow).

/// The share of the kept bytes taken from the start of a text (the rest from its end), as
/// a fraction: `Share(2, 3)`.
#[derive(Clone, Copy, Debug)]
pub struct Share(pub usize, pub usize);

/// Two thirds from the start: a summarizer prompt's elisions and a message cut to fit.
const TEXT_HEAD: Share = Share(2, 3);

/// Byte positions `(head_end, tail_start)` that keep about `keep` bytes of `text`, `head`
/// of them from the start and the rest from the end, at character boundaries. The part
/// removed is `head_end..tail_start`; `keep >= text.len()` removes nothing.
pub fn around(text: &str, keep: usize, head: Share) -> (usize, usize) {
    if keep >= text.len() {
        return (text.len(), text.len());
    }
    let head_bytes = keep * head.0 / head.1;
    let head_end = floor_char(text, head_bytes);
    let tail_start = ceil_char(text, text.len() - (keep - head_bytes));
    (head_end, tail_start.max(head_end))
}

/// [`around`], with each cut moved to a line break when one is near (within a fifth of the
/// part kept on that side), so a pruned tool output keeps whole lines.
pub fn around_lines(text: &str, keep: usize, head: Share) -> (usize, usize) {
    let (head_end, tail_start) = around(text, keep, head);
    (line_cut(text, head_end, true), line_cut(text, tail_start, false))
}

fn line_cut(s: &str, at: usize, head: bool) -> usize {
    let slack = at.min(s.len() - at) / 5 + 1;
    if head {
        let lo = floor_char(s, at.saturating_sub(slack));
        s[lo..at].rfind('\n').map_or(at, |k| lo + k + 1)
    } else {
        let hi = ceil_char(s, (at + slack).min(s.len()));
        s[at..hi].find('\n').map_or(at, |k| at + k + 1)
    }
}

/// `text` with about `keep` bytes kept around `marker(removed characters)`, or `text` itself
/// when nothing would be removed.
pub fn cut(text: &str, keep: usize, marker: &dyn Fn(usize) -> String) -> String {
    let (head_end, tail_start) = around(text, keep, TEXT_HEAD);
    if head_end == tail_start {
        return text.to_owned();
    }
    let removed = text[head_end..tail_start].chars().count();
    format!("{}{}{}", &text[..head_end], marker(removed), &text[tail_start..])
}

/// The longest cut of `text` (as [`cut`] makes it) whose `count` is at most `max`; `text`
/// itself if it fits; the marker alone (`cut(text, 0)`) if nothing fits, for the caller to
/// judge. Makes O(log len) calls of `count`, whatever `count` does.
pub fn fit(
    text: &str,
    max: usize,
    count: &dyn Fn(&str) -> usize,
    marker: &dyn Fn(usize) -> String,
) -> String {
    if count(text) <= max {
        return text.to_owned();
    }
    // Bisection over the kept bytes: the best cut that fitted so far, and the range left.
    let mut best = None;
    let (mut lo, mut hi) = (0usize, text.len());
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let candidate = cut(text, mid, marker);
        if count(&candidate) <= max {
            best = Some(candidate);
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    best.unwrap_or_else(|| cut(text, 0, marker))
}

/// The nearest character boundary at or before `i`.
pub fn floor_char(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The nearest character boundary at or after `i`.
pub fn ceil_char(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    fn marker(n: usize) -> String {
        format!(" […{n} characters…] ")
    }

    #[test]
    fn around_keeps_two_thirds_from_the_start() {
        let text = "abcdefghij";
        assert_eq!(around(text, 6, TEXT_HEAD), (4, 8));
        assert_eq!(around(text, 10, TEXT_HEAD), (10, 10));
        assert_eq!(around(text, 0, TEXT_HEAD), (0, 10));
        // Character boundaries: never inside "é" (2 bytes).
        let text = "éééééé";
        let (h, t) = around(text, 5, TEXT_HEAD);
        assert!(text.is_char_boundary(h) && text.is_char_boundary(t));
    }

    #[test]
    fn fit_keeps_what_fits() {
        let text = "word ".repeat(200);
        let count = |s: &str| s.split_whitespace().count();
        let out = fit(&text, 50, &count, &marker);
        assert!(count(&out) <= 50, "{out}");
        assert!(
            count(&out) >= 45,
            "bisection finds a near-maximal cut: {}",
            count(&out)
        );
        assert!(out.contains("characters…]"));
        assert_eq!(fit("short", 50, &count, &marker), "short");
    }

    #[test]
    fn fit_gives_the_marker_alone_when_nothing_fits() {
        // The marker counts 2 words: with a budget of 1 nothing fits.
        let text = "a b c d e f g h";
        let count = |s: &str| s.split_whitespace().count();
        assert_eq!(fit(text, 1, &count, &marker), " […15 characters…] ");
    }

    #[test]
    fn fit_is_bounded_for_any_counter() {
        // A counter that is not monotonic in the text's length (as estimates need not be)
        // still ends, in O(log n) counts.
        let calls = Cell::new(0usize);
        let text = "x".repeat(100_000);
        let count = |s: &str| {
            calls.set(calls.get() + 1);
            if s.len() % 7 == 0 {
                10
            } else {
                s.len() / 10 + 311
            }
        };
        let out = fit(&text, 300, &count, &marker);
        assert!(count(&out) <= 300 || out == cut(&text, 0, &marker));
        assert!(calls.get() < 100, "{} counts", calls.get());
    }
}
