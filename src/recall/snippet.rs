//! The passage of a message shown beside a hit: the window of the text whose query terms
//! weigh most, cut at character boundaries, with `…` where it was cut.

use super::bm25::{Query, ID_MARK};
use super::index::Index;
use super::tokens;

/// About `width` bytes of `text` (the hit's [`super::message_text`]) around its best match
/// with `query`, as `index` weighs the terms. Without a match, the text's beginning.
pub fn snippet(index: &Index, text: &str, query: &str, width: usize) -> String {
    let weights = index.weights(&Query::parse(query));
    // (start, end, the term's place in the query, its weight)
    let mut hits: Vec<(usize, usize, usize, f32)> = Vec::new();
    tokens::each(text, |term, start, end| {
        if let Some((k, (_, w))) = weights.iter().enumerate().find(|(_, (t, _))| t == term) {
            hits.push((start, end, k, *w));
        }
    });
    let lower = text.to_lowercase();
    // Identifiers are found as text (lowercasing keeps byte offsets only for most scripts:
    // a match is used only where it lands on the same bytes).
    for (k, (term, w)) in weights
        .iter()
        .enumerate()
        .filter(|(_, (t, _))| t.starts_with(ID_MARK))
    {
        let needle = &term[ID_MARK.len_utf8()..];
        if lower.len() == text.len() {
            for (at, _) in lower.match_indices(needle) {
                hits.push((at, at + needle.len(), k, *w));
            }
        }
    }
    hits.sort_unstable_by_key(|h| h.0);
    // The matched span centred in the passage (its first match at a quarter when it fills it).
    let (start, end) = best_window(&hits, width).unwrap_or((0, 0));
    let slack = width.saturating_sub(end - start);
    cut(
        text,
        start.saturating_sub((slack / 2).max(width / 4).min(slack)),
        width,
    )
}

/// Where the window of `width` bytes that weighs most starts, and where its last match ends
/// (each term counted once: two terms of the same weight are still two), the tightest of
/// those that weigh the same.
fn best_window(hits: &[(usize, usize, usize, f32)], width: usize) -> Option<(usize, usize)> {
    let mut best: Option<(f32, (usize, usize))> = None;
    for (i, &(start, ..)) in hits.iter().enumerate() {
        let mut seen: Vec<usize> = Vec::new();
        let mut total = 0.0;
        let mut last = start;
        for &(_, e, k, w) in &hits[i..] {
            if e > start + width {
                break;
            }
            last = last.max(e);
            if !seen.contains(&k) {
                seen.push(k);
                total += w;
            }
        }
        // Of windows that weigh the same, the tightest: its matches are one passage.
        let tighter = |(b, (s, l)): (f32, (usize, usize))| total > b || (total == b && last - start < l - s);
        if best.is_none_or(tighter) {
            best = Some((total, (start, last)));
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

    /// Two query terms found in as many messages weigh the same: the window holding both
    /// beats the one holding only the first.
    #[test]
    fn terms_of_equal_weight_count_apart() {
        let mut index = Index::new();
        let text = format!(
            "alpha {} alpha beta {}",
            "filler words here ".repeat(20),
            "more filler ".repeat(20)
        );
        index.push(&text);
        index.push("nothing");
        let s = snippet(&index, &text, "alpha beta", 40);
        assert!(s.contains("beta"), "{s}");
    }

    #[test]
    fn without_a_match_it_is_the_beginning() {
        let mut index = Index::new();
        index.push("short text");
        assert_eq!(snippet(&index, "short text", "absent", 100), "short text");
    }
}
