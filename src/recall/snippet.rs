//! The passage of a message shown beside a hit: the window of the text whose query terms
//! weigh most, cut at character boundaries, with `…` where it was cut.

use super::bm25::{Query, ID_MARK};
use super::index::Index;
use super::tokens;

/// About `width` bytes of `text` (the hit's [`super::message_text`]) around its best match
/// with `query`, as `index` weighs the terms. Without a match, the text's beginning.
pub fn snippet(index: &Index, text: &str, query: &str, width: usize) -> String {
    let weights = index.weights(&Query::parse(query));
    let mut hits: Vec<(usize, usize, f32)> = Vec::new();
    tokens::each(text, |term, start, end| {
        if let Some((_, w)) = weights.iter().find(|(t, _)| t == term) {
            hits.push((start, end, *w));
        }
    });
    let lower = text.to_lowercase();
    // Identifiers are found as text (lowercasing keeps byte offsets only for most scripts:
    // a match is used only where it lands on the same bytes).
    for (term, w) in weights.iter().filter(|(t, _)| t.starts_with(ID_MARK)) {
        let needle = &term[ID_MARK.len_utf8()..];
        if lower.len() == text.len() {
            for (at, _) in lower.match_indices(needle) {
                hits.push((at, at + needle.len(), *w));
            }
        }
    }
    hits.sort_unstable_by_key(|h| h.0);
    let start = best_window(&hits, width).unwrap_or(0);
    cut(text, start.saturating_sub(width / 4), width)
}

/// Where the window of `width` bytes that weighs most starts (each term counted once).
fn best_window(hits: &[(usize, usize, f32)], width: usize) -> Option<usize> {
    let mut best: Option<(f32, usize)> = None;
    for (i, &(start, _, _)) in hits.iter().enumerate() {
        let mut seen: Vec<f32> = Vec::new();
        let mut total = 0.0;
        for &(_, e, w) in &hits[i..] {
            if e > start + width {
                break;
            }
            if !seen.contains(&w) {
                seen.push(w);
                total += w;
            }
        }
        if best.is_none_or(|(b, _)| total > b) {
            best = Some((total, start));
        }
    }
    best.map(|(_, start)| start)
}

/// `width` bytes of `text` from about `from`, on character boundaries, whitespace folded.
fn cut(text: &str, from: usize, width: usize) -> String {
    let mut start = from.min(text.len());
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (start + width).min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    out.push_str(&text[start..end].split_whitespace().collect::<Vec<_>>().join(" "));
    if end < text.len() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_around_the_best_hit() {
        let mut index = Index::new();
        let text = format!(
            "{} the answer is zebra {}",
            "lorem ipsum ".repeat(30),
            "dolor sit ".repeat(30)
        );
        index.push(&text);
        index.push("nothing here");
        let s = snippet(&index, &text, "zebra", 60);
        assert!(s.contains("zebra"), "{s}");
        assert!(s.starts_with('…') && s.ends_with('…'), "{s}");
        assert!(s.len() < 80, "{s}");
    }

    #[test]
    fn cuts_on_character_boundaries() {
        let mut index = Index::new();
        let text = "日本語のテキスト".repeat(20) + "東京タワー";
        index.push(&text);
        let s = snippet(&index, &text, "東京", 30);
        assert!(s.contains("東京"), "{s}");
    }

    #[test]
    fn without_a_match_it_is_the_beginning() {
        let mut index = Index::new();
        index.push("short text");
        assert_eq!(snippet(&index, "short text", "absent", 100), "short text");
    }
}
