//! The structural rules: who a sentence addresses (a second-person pronoun, an imperative
//! at the start of a clause, a note to the model), and what it asks for (to drop the
//! instructions, reveal them, take on a role without limits, control the form of every
//! reply, call a tool, send data out, obey a hidden payload). Each rule is a few words of the
//! vocabularies of [`super::cues`] in order and near each other, so it holds for sentences it
//! was not written from.

use super::cues::{stems, K};
use std::collections::HashMap;
use std::sync::OnceLock;

/// The folded text as words, with where each begins a phrase of each vocabulary.
pub struct Words {
    words: Vec<String>,
    /// Punctuation that ends a phrase (`,`, `:`, `;`, `.`) between word k and the one before.
    stop: Vec<bool>,
    /// Word k is joined to the one before by `.` or `(` alone (`main.py`, `add_q(x)`).
    tight: Vec<bool>,
    /// A quotation mark opens before word k.
    quoted: Vec<bool>,
    /// Bit `k`: a phrase of vocabulary `K` starts at the word.
    hits: Vec<u32>,
    /// Word k starts a clause (see [`Words::clause`]).
    clause: Vec<bool>,
}

const ALL: [K; 32] = [
    K::Drop,
    K::DropLast,
    K::Orders,
    K::Earlier,
    K::You,
    K::Yours,
    K::Secret,
    K::Reveal,
    K::RevealLast,
    K::Verbatim,
    K::Henceforth,
    K::Without,
    K::Limits,
    K::Loose,
    K::Unbound,
    K::Reply,
    K::Answer,
    K::Send,
    K::Call,
    K::Produce,
    K::Harm,
    K::Obey,
    K::Encoded,
    K::Note,
    K::Model,
    K::Voice,
    K::Joiner,
    K::Disable,
    K::Persona,
    K::Reading,
    K::Imperative,
    K::Subject,
];

/// A phrase's words, folded: `(exact, stem)`, a whole word or a stem (see [`hit`]).
type Phrase = Vec<(bool, String)>;

/// Every vocabulary's phrases, found by their first stem, so that finding the phrases that
/// start at a word costs a few lookups and not one comparison per phrase.
struct Lexicon {
    /// Each phrase with the bit of its vocabulary.
    phrases: Vec<(u32, Phrase)>,
    /// Phrases whose first stem is a whole word, by that word.
    whole: HashMap<String, Vec<usize>>,
    /// Phrases whose first stem is a Latin word's beginning, by that stem.
    start: HashMap<String, Vec<usize>>,
    /// Phrases whose first stem, in another script, may sit anywhere in a word.
    inside: HashMap<String, Vec<usize>>,
    /// The byte lengths the stems of `start` and of `inside` have.
    start_lens: Vec<usize>,
    inside_lens: Vec<usize>,
}

fn lexicon() -> &'static Lexicon {
    static LEX: OnceLock<Lexicon> = OnceLock::new();
    LEX.get_or_init(|| {
        let mut lex = Lexicon {
            phrases: Vec::new(),
            whole: HashMap::new(),
            start: HashMap::new(),
            inside: HashMap::new(),
            start_lens: Vec::new(),
            inside_lens: Vec::new(),
        };
        for &k in &ALL {
            for p in stems(k) {
                let folded = super::fold::fold(p, false);
                let phrase: Phrase = words_of(&folded)
                    .words
                    .into_iter()
                    .enumerate()
                    .map(|(n, w)| match w.strip_prefix('=') {
                        Some(x) => (true, x.to_owned()),
                        // In a phrase, every word but the last is whole.
                        None => (n + 1 < p.split(' ').count(), w),
                    })
                    .collect();
                let Some((exact, first)) = phrase.first().cloned() else {
                    continue;
                };
                let (map, lens) = match (exact, first.is_ascii()) {
                    (true, _) => (&mut lex.whole, None),
                    (false, true) => (&mut lex.start, Some(&mut lex.start_lens)),
                    (false, false) => (&mut lex.inside, Some(&mut lex.inside_lens)),
                };
                if let Some(lens) = lens {
                    if !lens.contains(&first.len()) {
                        lens.push(first.len());
                    }
                }
                map.entry(first).or_default().push(lex.phrases.len());
                lex.phrases.push((1 << k as u32, phrase));
            }
        }
        lex.start_lens.sort_unstable();
        lex.inside_lens.sort_unstable();
        lex
    })
}

impl Lexicon {
    /// The bits of the vocabularies with a phrase that starts at word `i` of `words`.
    fn starting(&self, words: &[String], i: usize) -> u32 {
        let w = words[i].trim_matches('\'');
        let mut bits = 0u32;
        let mut try_all = |found: Option<&Vec<usize>>| {
            for &p in found.into_iter().flatten() {
                let (bit, phrase) = &self.phrases[p];
                if bits & bit == 0
                    && i + phrase.len() <= words.len()
                    && phrase[1..]
                        .iter()
                        .zip(&words[i + 1..])
                        .all(|((e, s), w)| hit(w, *e, s))
                {
                    bits |= bit;
                }
            }
        };
        try_all(self.whole.get(w));
        for &n in self.start_lens.iter().take_while(|&&n| n <= w.len()) {
            if w.is_char_boundary(n) {
                try_all(self.start.get(&w[..n]));
            }
        }
        // A stem in another script is never inside a word that is all ASCII.
        if !w.is_ascii() {
            for (at, _) in w.char_indices() {
                let rest = &w[at..];
                for &n in self.inside_lens.iter().take_while(|&&n| n <= rest.len()) {
                    if rest.is_char_boundary(n) {
                        try_all(self.inside.get(&rest[..n]));
                    }
                }
            }
        }
        bits
    }
}

/// A folded text split into words, with what stands between each word and the one before.
#[derive(Default)]
struct Split {
    words: Vec<String>,
    brk: Vec<bool>,
    stop: Vec<bool>,
    tight: Vec<bool>,
    quoted: Vec<bool>,
}

impl Split {
    fn push(&mut self, word: String, sep: &str) {
        self.brk
            .push(self.words.is_empty() || sep.chars().any(|c| !c.is_whitespace()));
        self.stop
            .push(self.words.is_empty() || sep.contains([',', ':', ';', '.', '!', '?', '(', ')']));
        self.tight
            .push(!self.words.is_empty() && matches!(sep, "." | "(" | "::"));
        // Not code: `print("x")`, `` `x` ``.
        let code = sep.contains(['(', '`']);
        self.quoted
            .push(!code && (sep.contains(['"', '“', '«']) || word.starts_with('\'')));
        self.words.push(word);
    }
}

/// Words (letters, digits, `_`, `'`, a leading `=` kept for stems) and their separators.
fn words_of(folded: &str) -> Split {
    let mut out = Split::default();
    let mut cur = String::new();
    let mut sep = String::new();
    for c in folded.chars() {
        // Combining marks (Arabic vowel signs, accents left apart) belong to their word.
        let mark = matches!(c, '\u{0300}'..='\u{036F}' | '\u{064B}'..='\u{065F}' | '\u{0670}');
        if c.is_alphanumeric() || mark || c == '_' || c == '\'' || (c == '=' && cur.is_empty()) {
            cur.push(c);
            continue;
        }
        if !cur.is_empty() {
            out.push(std::mem::take(&mut cur), &sep);
            sep.clear();
        }
        // A long run of punctuation says no more than its first characters.
        if sep.len() < 16 {
            sep.push(c);
        }
    }
    if !cur.is_empty() {
        out.push(cur, &sep);
    }
    out
}

fn hit(word: &str, exact: bool, stem: &str) -> bool {
    let word = word.trim_matches('\'');
    if exact {
        word == stem
    } else if stem.is_ascii() {
        word.starts_with(stem)
    } else {
        word.contains(stem)
    }
}

impl Words {
    pub fn new(folded: &str) -> Words {
        let Split {
            words,
            brk,
            stop,
            tight,
            quoted,
        } = words_of(folded);
        let lex = lexicon();
        let hits: Vec<u32> = (0..words.len()).map(|i| lex.starting(&words, i)).collect();
        // A clause starts at the first word, after punctuation or a conjunction, or after
        // words that may open one ("please", "also") that do: one pass, left to right.
        let joiner = 1 << K::Joiner as u32;
        let mut clause = vec![false; words.len()];
        for i in 0..words.len() {
            clause[i] = i == 0
                || brk[i]
                || matches!(
                    words[i - 1].as_str(),
                    "and" | "then" | "et" | "y" | "und" | "e" | "ve" | "и"
                )
                || (hits[i - 1] & joiner != 0 && clause[i - 1]);
        }
        Words {
            words,
            stop,
            tight,
            quoted,
            hits,
            clause,
        }
    }

    fn is(&self, i: usize, k: K) -> bool {
        self.hits.get(i).is_some_and(|b| b & (1 << k as u32) != 0)
    }

    fn any(&self, k: K) -> bool {
        (0..self.words.len()).any(|i| self.is(i, k))
    }

    /// A word of `b` within `gap` words after a word of `a` (or in the same word, for a
    /// script written without spaces).
    fn near(&self, a: K, b: K, gap: usize) -> bool {
        self.after(a, b, gap, |_| true)
    }

    fn after(&self, a: K, b: K, gap: usize, keep: impl Fn(usize) -> bool) -> bool {
        (0..self.words.len())
            .filter(|&i| self.is(i, a) && keep(i))
            .any(|i| {
                let same = !self.words[i].is_ascii();
                (i + usize::from(!same)..=(i + gap).min(self.words.len().saturating_sub(1)))
                    .any(|j| self.is(j, b))
            })
    }

    /// Whether word `i` starts a clause: the first word, after punctuation or a conjunction
    /// ("and", "then"), or after words that may open one ("please", "also") that do.
    fn clause(&self, i: usize) -> bool {
        self.clause[i]
    }

    /// Whether word `i` of `k` is an imperative: it starts a clause, or follows "you" (or
    /// "you would", "you must").
    fn demand(&self, i: usize, k: K) -> bool {
        let modal = |j: usize| {
            matches!(
                self.words[j].as_str(),
                "will" | "would" | "must" | "should" | "shall" | "can" | "need" | "have"
            )
        };
        let after_you = (i > 0 && self.is(i - 1, K::You))
            || (i > 1 && modal(i - 1) && self.is(i - 2, K::You))
            || (i > 2 && self.words[i - 1] == "to" && modal(i - 2) && self.is(i - 3, K::You));
        self.is(i, k) && (self.clause(i) || after_you)
    }

    fn demands(&self, k: K) -> bool {
        (0..self.words.len()).any(|i| self.demand(i, k))
    }

    /// Addressed to the reader: a second-person word, an imperative that starts a clause (an
    /// English one, or a verb that reveals, answers, sends or calls in any language), or a
    /// note to the model.
    pub fn addressed(&self) -> bool {
        self.any(K::You)
            || [K::Imperative, K::Reveal, K::Answer, K::Send, K::Call]
                .iter()
                .any(|&k| self.demands(k))
            || self.to_the_model()
    }

    /// A second-person word that is not the object of a preposition ("memories with you").
    fn you_subject(&self) -> bool {
        (0..self.words.len()).any(|i| {
            self.is(i, K::You)
                && !(i > 0
                    && matches!(
                        self.words[i - 1].as_str(),
                        "with" | "to" | "for" | "about" | "of" | "at" | "from" | "like" | "than" | "thank"
                    ))
        })
    }

    /// "Any AI reading this", "AI agents processing this page", "Assistant, ...": the model
    /// named as the reader of the text.
    fn names_the_reader(&self) -> bool {
        let w = &self.words;
        (0..w.len()).filter(|&i| self.is(i, K::Model)).any(|i| {
            let reading = (i + 1..(i + 3).min(w.len())).any(|j| {
                self.is(j, K::Reading)
                    && w.get(j + 1)
                        .is_some_and(|x| matches!(x.as_str(), "this" | "these"))
            });
            let vocative = self.clause(i) && self.stop.get(i + 1).copied().unwrap_or(false) && {
                let next = i + 1;
                self.is(next, K::You) || self.is(next, K::Imperative)
            };
            let class = i > 0 && matches!(w[i - 1].as_str(), "any" | "all" | "every");
            let modal = (i + 1..(i + 4).min(w.len())).any(|j| {
                matches!(
                    w[j].as_str(),
                    "must" | "should" | "shall" | "will" | "need" | "needs"
                )
            });
            reading || vocative || (class && modal)
        })
    }

    /// A demand for fixed words: "say 'done'", "print only OK", "respond with exactly".
    fn forces_output(&self) -> bool {
        let w = &self.words;
        (0..w.len()).any(|i| {
            let verb = matches!(
                w[i].as_str(),
                "say" | "print" | "output" | "type" | "repeat" | "respond" | "reply"
            );
            let next = |d: usize| w.get(i + d).map_or("", String::as_str);
            verb && self.clause(i)
                && (self.quoted.get(i + 1).copied().unwrap_or(false)
                    || matches!(next(1), "only" | "exactly" | "just" | "verbatim")
                    || (matches!(next(1), "with" | "the")
                        && matches!(
                            next(2),
                            "only" | "exactly" | "word" | "words" | "phrase" | "following" | "token" | "code"
                        )))
        })
    }

    /// A claim to speak with authority: "I am your developer", "this is the administrator".
    fn claims_a_voice(&self) -> bool {
        let w = &self.words;
        (0..w.len().saturating_sub(1)).any(|i| {
            let copula =
                matches!((w[i].as_str(), w[i + 1].as_str()), ("i", "am") | ("this", "is")) || w[i] == "i'm";
            let from = i + if w[i] == "i'm" { 1 } else { 2 };
            copula
                && (from..(from + 3).min(w.len())).any(|j| {
                    matches!(
                        w[j].as_str(),
                        "developer"
                            | "developers"
                            | "admin"
                            | "administrator"
                            | "operator"
                            | "sysadmin"
                            | "moderator"
                            | "creator"
                            | "openai"
                            | "anthropic"
                    )
                })
                && (from..(from + 2).min(w.len()))
                    .any(|j| matches!(w[j].as_str(), "your" | "the" | "an" | "a"))
        })
    }

    /// "Note to the bot", "attention AI", "dear assistant".
    fn to_the_model(&self) -> bool {
        (0..self.words.len()).filter(|&i| self.is(i, K::Note)).any(|i| {
            let w = &self.words;
            let mut j = i + 1;
            let direct = matches!(w[i].as_str(), "attention" | "dear" | "hey");
            if !direct {
                if !w.get(j).is_some_and(|x| x == "to" || x == "for") {
                    return false;
                }
                j += 1;
            }
            if w.get(j)
                .is_some_and(|x| matches!(x.as_str(), "the" | "any" | "all" | "every"))
            {
                j += 1;
            }
            self.is(j, K::Model)
        })
    }

    /// A verb that drops the instructions, not reported ("asked to ignore") and not the
    /// speaker taking back their own words ("ignore my previous email").
    fn drops(&self) -> bool {
        let w = &self.words;
        let keep = |i: usize| {
            let reported = i > 0 && w[i - 1] == "to" && !(i > 1 && self.is(i - 2, K::You));
            let next = |d: usize| w.get(i + d).map_or("", String::as_str);
            let own = matches!(
                next(1),
                "my" | "mon" | "ma" | "mes" | "mi" | "mis" | "meine" | "meinen"
            ) || (next(1) == "la" && next(2) == "mia");
            !(reported || own)
        };
        let joined_output = (0..w.len())
            .filter(|&i| self.is(i, K::Drop) && keep(i))
            .any(|i| (i + 1..(i + 9).min(w.len())).any(|j| w[j] == "and" && self.is(j + 1, K::Reveal)));
        joined_output
            || self.after(K::Drop, K::Orders, 5, keep)
            || self.after(K::Drop, K::Earlier, 5, keep)
            || (0..w.len())
                .filter(|&i| self.is(i, K::DropLast))
                .any(|i| (i.saturating_sub(6)..=i).any(|j| self.is(j, K::Orders)))
    }

    /// A tool named in snake case right after a verb that runs it ("call delete_file"), or
    /// as "the … tool" ("use the email tool").
    fn calls_a_tool(&self) -> bool {
        let w = &self.words;
        let named = (0..w.len()).any(|i| {
            self.demand(i, K::Call)
                && w.get(i + 1).is_some_and(|x| x == "the")
                && (i + 3..(i + 5).min(w.len())).any(|j| matches!(w[j].as_str(), "tool" | "function"))
        });
        named
            || (0..self.words.len()).any(|i| {
                self.demand(i, K::Call)
                    && !self.stop.get(i + 1).copied().unwrap_or(true)
                    && !self.tight.get(i + 2).copied().unwrap_or(false)
                    && self.words.get(i + 1).is_some_and(|t| {
                        let parts: Vec<&str> = t.split('_').collect();
                        parts.len() >= 2
                            && parts.iter().all(|p| !p.is_empty() && p.is_ascii())
                            && parts[0].chars().all(|c| c.is_ascii_alphabetic())
                    })
            })
    }
}

/// Whether the folded text asks the model for something a record never asks for: the
/// strong shapes hold anywhere; the weaker ones when the text is addressed to the reader.
/// `addresses`: an email address or a URL is in the text; `statement`: the line stands in a
/// section of statements (not Open Items, where a to-do may name a tool or a recipient).
pub fn asks(w: &Words, addresses: bool, statement: bool) -> bool {
    let strong = w.drops()
        || w.after(K::Yours, K::Orders, 3, |_| true)
        || w.to_the_model()
        || w.any(K::Unbound)
        || (w.demands(K::Reveal) && (w.near(K::Reveal, K::Secret, 6) || w.near(K::Secret, K::Reveal, 6)))
        || (w.any(K::RevealLast) && w.any(K::Secret))
        || (w.any(K::Obey) && w.any(K::Encoded))
        || (w.demands(K::Produce) && w.any(K::Harm))
        || w.names_the_reader()
        || w.claims_a_voice();
    if strong {
        return true;
    }
    if !w.addressed() {
        return false;
    }
    let you = w.you_subject();
    let henceforth = w.any(K::Henceforth);
    let unbound = w.any(K::Loose) || w.near(K::Without, K::Limits, 3) || w.near(K::Disable, K::Limits, 3);
    // "every response" is the API's as often as the model's: it needs "you" or "from now
    // on", or to open with "respond"/"reply".
    let reply = (0..w.words.len())
        .any(|i| w.is(i, K::Reply) && (you || henceforth || (w.clause(i) && w.is(i, K::Answer))));
    // A persona is a game ("act as a tour guide") unless it has no limits or does harm.
    let persona = w.any(K::Persona) && (unbound || w.any(K::Harm));
    persona
        || (henceforth && (you || w.demands(K::Imperative)))
        || (unbound && (you || w.demands(K::Imperative) || w.any(K::Answer) || w.any(K::Model)))
        || reply
        || (w.any(K::Reveal) && w.any(K::Verbatim))
        || (w.demands(K::Send) && (addresses || w.near(K::Send, K::Secret, 8)) && statement)
        || w.forces_output()
        || (w.calls_a_tool() && (statement || addresses))
}

/// A label that speaks as the system, the developer or the assistant at the start of
/// `spoken` (the line after its list marker): `SYSTEM NOTE:`, `Reasoning (assistant):`,
/// `[SYSTEM]`, `Administrator override:`, or `System:` before words to the reader.
pub fn voice_label(spoken: &str, rest_addressed: impl Fn(&str) -> bool) -> bool {
    let Some((label, rest)) = spoken.split_once(':') else {
        return false;
    };
    let n = label.split_whitespace().count();
    if n == 0 || n > 4 || label.len() > 40 {
        return false;
    }
    let folded = super::fold::fold(label, true);
    let w = Words::new(&folded);
    if !w.any(K::Voice) {
        return false;
    }
    // `(assistant)`, `[SYSTEM]`: the voice in brackets, not `with root.as_cwd()`.
    let bracketed: String = label
        .split(['(', '['])
        .skip(1)
        .filter_map(|p| p.split([')', ']']).next())
        .collect::<Vec<_>>()
        .join(" ");
    let voiced = Words::new(&super::fold::fold(&bracketed, true)).any(K::Voice);
    // `System: Ubuntu 22.04` is the environment; `Assistant:` alone is a forged turn.
    let turn = label.trim().eq_ignore_ascii_case("assistant");
    let letters: Vec<char> = label.chars().filter(|c| c.is_alphabetic()).collect();
    let shouted = letters.len() >= 4 && letters.iter().all(|c| c.is_uppercase());
    let words_only = label.chars().all(|c| c.is_alphabetic() || " *#-".contains(c));
    shouted || turn || voiced || (n >= 2 && words_only) || rest_addressed(rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_vocabulary_has_its_bit() {
        for (bit, k) in ALL.iter().enumerate() {
            assert_eq!(*k as usize, bit, "{k:?}");
        }
    }

    /// The phrases that start at each word, found by comparing every phrase at every word.
    fn every_phrase_at_every_word(folded: &str) -> (Vec<u32>, Vec<bool>) {
        let w = Words::new(folded);
        let brk = words_of(folded).brk;
        let lex = lexicon();
        let hits = (0..w.words.len())
            .map(|i| {
                lex.phrases
                    .iter()
                    .filter(|(_, p)| {
                        p.len() + i <= w.words.len()
                            && p.iter().zip(&w.words[i..]).all(|((e, s), x)| hit(x, *e, s))
                    })
                    .fold(0, |bits, (bit, _)| bits | bit)
            })
            .collect();
        // A clause by walking back over the words that may open one.
        let clause = (0..w.words.len())
            .map(|i| {
                let mut k = i;
                loop {
                    if k == 0 || brk[k] {
                        return true;
                    }
                    if matches!(
                        w.words[k - 1].as_str(),
                        "and" | "then" | "et" | "y" | "und" | "e" | "ve" | "и"
                    ) {
                        return true;
                    }
                    if !w.is(k - 1, K::Joiner) {
                        return false;
                    }
                    k -= 1;
                }
            })
            .collect();
        (hits, clause)
    }

    #[test]
    fn the_lexicon_index_finds_what_comparing_every_phrase_finds() {
        let mut lines = super::super::outside_lines();
        // Every stem on its own and glued to the next, in every vocabulary.
        for &k in &ALL {
            lines.push(stems(k).join(" "));
            lines.push(stems(k).concat());
        }
        assert!(lines.len() > 1000, "{}", lines.len());
        for line in &lines {
            for folded in [
                super::super::fold::fold(line, true),
                super::super::fold::fold(line, false),
            ] {
                let w = Words::new(&folded);
                let (hits, clause) = every_phrase_at_every_word(&folded);
                assert_eq!(w.hits, hits, "{folded}");
                assert_eq!(w.clause, clause, "{folded}");
            }
        }
    }

    #[test]
    fn clauses_start_after_punctuation_and_joiners() {
        let w = Words::new("note: please then call it, and so on");
        assert!(w.clause(0) && w.clause(1) && w.clause(3));
        assert!(!w.clause(4) && w.clause(5));
    }
}
