//! Ranking: BM25 over the query's words, plus the identifiers the census finds in the query,
//! matched exactly and weighed [`ID_BOOST`] times; ties go to the newest message.

use super::index::{id_term, Index};
use super::tokens;

/// BM25's term-frequency saturation.
const K1: f32 = 1.2;
/// BM25's length normalisation.
const B: f32 = 0.75;
/// How much more an identifier's exact match weighs than a word's.
pub const ID_BOOST: f32 = 2.0;

/// A query's terms, each once, with its weight.
#[derive(Clone, Debug, PartialEq)]
pub struct Query {
    /// `(term, boost)`: words at 1, identifiers (marked) at [`ID_BOOST`].
    pub terms: Vec<(String, f32)>,
}

impl Query {
    /// The terms of `text`.
    pub fn parse(text: &str) -> Self {
        let mut terms: Vec<(String, f32)> = Vec::new();
        let mut add = |term: String, boost: f32| {
            if !terms.iter().any(|(t, _)| *t == term) {
                terms.push((term, boost));
            }
        };
        tokens::each(text, |term, _, _| add(term.to_owned(), 1.0));
        for id in crate::ids::extract(text) {
            add(id_term(&id.text), ID_BOOST);
        }
        Query { terms }
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
    pub(super) fn idf(&self, docs: u32) -> f32 {
        let n = self.len() as f32;
        let df = docs as f32;
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    /// The `limit` messages that best match `query`, best first, ties newest first. A
    /// message no term of the query is in is not found.
    pub fn search(&self, query: &str, limit: usize) -> Vec<Hit> {
        self.search_query(&Query::parse(query), limit)
    }

    /// [`Index::search`] for a parsed query.
    pub fn search_query(&self, query: &Query, limit: usize) -> Vec<Hit> {
        if limit == 0 || self.is_empty() {
            return Vec::new();
        }
        let mut scores = vec![0f32; self.len()];
        let mean = self.mean_len().max(1.0);
        for (term, boost) in &query.terms {
            let Some(postings) = self.postings(term) else {
                continue;
            };
            let weight = boost * self.idf(postings.docs());
            for (doc, tf) in postings.iter() {
                let tf = tf as f32;
                let norm = K1 * (1.0 - B + B * self.doc_len(doc) as f32 / mean);
                scores[doc as usize] += weight * tf * (K1 + 1.0) / (tf + norm);
            }
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

    /// The weight each of the query's terms has in this index (0 for one it lacks): what the
    /// snippet looks for.
    pub(super) fn weights(&self, query: &Query) -> Vec<(String, f32)> {
        query
            .terms
            .iter()
            .map(|(t, boost)| {
                (
                    t.clone(),
                    self.postings(t).map_or(0.0, |p| boost * self.idf(p.docs())),
                )
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(texts: &[&str]) -> Index {
        let mut index = Index::new();
        for t in texts {
            index.push(t);
        }
        index
    }

    fn found(index: &Index, q: &str) -> Vec<u32> {
        index.search(q, 10).into_iter().map(|h| h.index).collect()
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
        let q = Query::parse("what is in /etc/app/config.yaml");
        assert!(q
            .terms
            .iter()
            .any(|(t, b)| t.starts_with('\u{1}') && *b == ID_BOOST));
    }

    #[test]
    fn cjk_queries_match_inside_sentences() {
        let idx = index(&["我们明天去东京旅行", "今天下雨了"]);
        assert_eq!(found(&idx, "东京"), [0]);
    }

    #[test]
    fn search_after_truncate_sees_only_what_is_kept() {
        let mut idx = index(&["keep word", "drop word unique"]);
        idx.truncate(1);
        assert!(found(&idx, "unique").is_empty());
        assert_eq!(found(&idx, "word"), [0]);
    }
}
