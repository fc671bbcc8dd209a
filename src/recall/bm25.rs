//! Ranking: BM25 over the query's words, plus the identifiers the census finds in the query,
//! each matched where a message holds it whole ([`crate::ids::whole`], case aside) and weighed
//! [`ID_BOOST`] times a word; ties go to the newest message.
//!
//! Identifiers are not indexed: a message's census would cost more than the rest of its
//! indexing. A query's identifier is looked for in the messages that hold the rarest of its
//! words (all of them when it has none the index keeps), in their text, which the caller
//! gives.

use super::index::Index;
use super::tokens;

/// BM25's term-frequency saturation.
const K1: f32 = 1.2;
/// BM25's length normalisation.
const B: f32 = 0.75;
/// How much more an identifier's exact match weighs than a word's.
pub const ID_BOOST: f32 = 2.0;
/// An identifier's term in [`Index::weights`] starts with this, so `8080` the word and
/// `8080` the port differ.
pub(super) const ID_MARK: char = '\u{1}';

/// A query's terms, each once.
#[derive(Clone, Debug, PartialEq)]
pub struct Query {
    /// Its words, as the index reads them.
    pub words: Vec<String>,
    /// The identifiers the census finds in it, lowercased.
    pub ids: Vec<String>,
}

impl Query {
    /// The terms of `text`.
    pub fn parse(text: &str) -> Self {
        let mut words: Vec<String> = Vec::new();
        tokens::each(text, |term, _, _| {
            if !words.iter().any(|t| t == term) {
                words.push(term.to_owned());
            }
        });
        let mut ids: Vec<String> = Vec::new();
        for id in crate::ids::extract(text) {
            let id = id.text.to_lowercase();
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
        Query { words, ids }
    }
}

/// One message found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    /// Its index in the history.
    pub index: u32,
    /// Its score (higher is better).
    pub score: f32,
}

impl Index {
    /// A term's inverse document frequency (BM25's, kept positive).
    pub(super) fn idf(&self, docs: usize) -> f32 {
        let n = self.len() as f32;
        let df = docs as f32;
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    /// The `limit` messages that best match `query`, best first, ties newest first; `text`
    /// gives a message's text ([`super::message_text`]), read for the query's identifiers. A
    /// message no term of the query is in is not found.
    pub fn search(&self, query: &str, limit: usize, text: impl Fn(u32) -> String) -> Vec<Hit> {
        self.search_query(&Query::parse(query), limit, text)
    }

    /// [`Index::search`] for a parsed query.
    pub fn search_query(&self, query: &Query, limit: usize, text: impl Fn(u32) -> String) -> Vec<Hit> {
        if limit == 0 || self.is_empty() {
            return Vec::new();
        }
        let mut scores = vec![0f32; self.len()];
        let mean = self.mean_len().max(1.0);
        let mut add = |postings: &[(u32, u32)], boost: f32| {
            let weight = boost * self.idf(postings.len());
            for &(doc, tf) in postings {
                let tf = tf as f32;
                let norm = K1 * (1.0 - B + B * self.doc_len(doc) as f32 / mean);
                scores[doc as usize] += weight * tf * (K1 + 1.0) / (tf + norm);
            }
        };
        for term in &query.words {
            add(&self.postings(term), 1.0);
        }
        for id in &query.ids {
            add(&self.mentions(id, &text), ID_BOOST);
        }
        let mut hits: Vec<Hit> = scores
            .into_iter()
            .enumerate()
            .filter(|&(_, s)| s > 0.0)
            .map(|(i, score)| Hit {
                index: i as u32,
                score,
            })
            .collect();
        let order = |a: &Hit, b: &Hit| b.score.total_cmp(&a.score).then(b.index.cmp(&a.index));
        if hits.len() > limit {
            hits.select_nth_unstable_by(limit - 1, order);
            hits.truncate(limit);
        }
        hits.sort_unstable_by(order);
        hits
    }

    /// The messages that hold identifier `id` (lowercased) whole: `(message, times)`.
    fn mentions(&self, id: &str, text: &impl Fn(u32) -> String) -> Vec<(u32, u32)> {
        let candidates = match self.rarest_word(id) {
            Some(Some(postings)) => postings.into_iter().map(|(doc, _)| doc).collect(),
            // A word of it no message has: no message holds it.
            Some(None) => Vec::new(),
            None => (0..self.len() as u32).collect::<Vec<_>>(),
        };
        candidates
            .into_iter()
            .filter_map(|doc| {
                let n = crate::ids::whole(&text(doc).to_lowercase(), id).len() as u32;
                (n > 0).then_some((doc, n))
            })
            .collect()
    }

    /// The postings of the rarest word of `id` (`Some(None)`: a word no message has; `None`:
    /// `id` has no plain ASCII word, whose edges a message reads the same way).
    fn rarest_word(&self, id: &str) -> Option<Option<Vec<(u32, u32)>>> {
        let mut rarest: Option<Option<Vec<(u32, u32)>>> = None;
        tokens::each(id, |term, _, _| {
            if !term.is_ascii() || matches!(rarest, Some(None)) {
                return;
            }
            let p = self.postings(term);
            if p.is_empty() {
                rarest = Some(None);
            } else if rarest
                .as_ref()
                .is_none_or(|r| r.as_ref().is_some_and(|r| p.len() < r.len()))
            {
                rarest = Some(Some(p));
            }
        });
        rarest
    }

    /// The weight each of the query's terms has in this index (0 for a word it lacks; an
    /// identifier twice its rarest word's): what the snippet looks for.
    pub(super) fn weights(&self, query: &Query) -> Vec<(String, f32)> {
        let word = |t: &str| match self.postings(t).len() {
            0 => 0.0,
            n => self.idf(n),
        };
        let mut out: Vec<(String, f32)> = query.words.iter().map(|t| (t.clone(), word(t))).collect();
        for id in &query.ids {
            let mut best = 0f32;
            tokens::each(id, |t, _, _| best = best.max(word(t)));
            out.push((format!("{ID_MARK}{id}"), ID_BOOST * best));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Texts {
        index: Index,
        texts: Vec<String>,
    }

    fn index(texts: &[&str]) -> Texts {
        let mut index = Index::new();
        for t in texts {
            index.push(t);
        }
        let texts = texts.iter().map(|t| t.to_string()).collect();
        Texts { index, texts }
    }

    impl Texts {
        fn search(&self, q: &str, limit: usize) -> Vec<Hit> {
            self.index.search(q, limit, |i| self.texts[i as usize].clone())
        }
    }

    fn found(idx: &Texts, q: &str) -> Vec<u32> {
        idx.search(q, 10).into_iter().map(|h| h.index).collect()
    }

    #[test]
    fn rarer_and_more_frequent_terms_rank_higher() {
        let idx = index(&[
            "we talked about the weather",
            "the deploy failed on the staging cluster",
            "deploy deploy deploy again",
            "lunch was good",
        ]);
        assert_eq!(found(&idx, "Deploy staging"), [1, 2]);
        assert_eq!(found(&idx, "DEPLOY"), [2, 1]);
        assert!(found(&idx, "nothing matches").is_empty());
    }

    #[test]
    fn ties_go_to_the_newest() {
        let idx = index(&["the cat sat", "a dog", "the cat sat"]);
        assert_eq!(found(&idx, "cat"), [2, 0]);
        assert_eq!(idx.search("cat", 1)[0].index, 2);
    }

    #[test]
    fn identifiers_match_exactly_and_weigh_more() {
        let idx = index(&[
            "config lives in etc app config yaml and etc app config yaml",
            "open /etc/app/config.yaml please",
            "filler text here",
        ]);
        // Both hold the words; only the second holds the path, so it wins despite fewer words.
        assert_eq!(found(&idx, "/etc/app/config.yaml")[0], 1);
        let q = Query::parse("what is in /etc/app/CONFIG.yaml");
        assert_eq!(q.ids, ["/etc/app/config.yaml"]);
        // Whole: not inside a longer path; case aside.
        let idx = index(&["see /x/etc/app/config.yaml", "open /etc/app/Config.yaml", "etc"]);
        assert_eq!(found(&idx, "/etc/app/config.yaml")[0], 1);
        let idx = index(&[
            "commit 3f9c2a7d1e5b4c8f0a6d3f9c2a7d1e5b4c8f0a6d3f9c2a7d1e5b4c8f0a6d1234 landed",
            "no",
        ]);
        // A hash longer than any word is found by its text alone.
        assert_eq!(
            found(
                &idx,
                "3f9c2a7d1e5b4c8f0a6d3f9c2a7d1e5b4c8f0a6d3f9c2a7d1e5b4c8f0a6d1234"
            ),
            [0]
        );
    }

    #[test]
    fn cjk_queries_match_inside_sentences() {
        let idx = index(&["我们明天去东京旅行", "今天下雨了"]);
        assert_eq!(found(&idx, "东京"), [0]);
    }

    #[test]
    fn search_after_truncate_sees_only_what_is_kept() {
        let mut idx = index(&["keep word", "drop word unique"]);
        idx.index.truncate(1);
        idx.texts.truncate(1);
        assert!(found(&idx, "unique").is_empty());
        assert_eq!(found(&idx, "word"), [0]);
    }
}
