//! The summarizer rounds: the requests for the evicted span, each reply checked (schema,
//! instructions, invented identifiers) and given its identifier ledger, or replaced by the
//! configured fallback; then, when the chunks outgrow their share of the window, folds: in
//! groups that each fit one summarizer call, round after round until they fit.

use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::rc::Rc;

use super::super::state::{ChunkTrigger, FallbackKind, FallbackUsed, SummaryChunk};
use super::super::types::{Reply, Request, RequestKind, Source};
use super::super::{extractive, ledger, prune, summary};
use super::{join_chunks, Compaction};
use crate::config::{Fallback, Strategy, ToolPolicy};
use crate::ids::Identifier;
use crate::messages::Message;
use crate::Error;

/// Tokens a summary message's framing may differ by between roles (estimated models).
const ROLE_SLACK: usize = 4;

/// One summary chunk being made this turn: the identifiers of the messages it covers, and
/// the chunk once its reply came.
struct Pending {
    ids: Vec<(Identifier, usize)>,
    done: Option<SummaryChunk>,
}

/// The rounds' progress.
pub(super) struct Rounds {
    /// The calls to make now.
    pub requests: Vec<Request>,
    pending: Vec<Pending>,
    /// The summary chunks: the earlier turns', then this turn's.
    pub chunks: Vec<SummaryChunk>,
    /// The requests are folds, each of these chunks (empty: no fold).
    folding: Vec<Range<usize>>,
    /// Whether the chunks were folded this turn.
    pub folded: bool,
    /// Every chunk made this turn, in the order made: a chunk later folded (or shrunk) too.
    pub made: Vec<SummaryChunk>,
    /// The fallback used this turn, if any.
    pub fallback: Option<FallbackUsed>,
    /// Summary lines dropped.
    pub dropped: Vec<String>,
    /// Identifiers in summaries found nowhere in the conversation.
    pub unsupported: Vec<String>,
    /// Identifiers of this turn's evicted messages kept, and lost, at any stage (a fold can
    /// lose what a chunk kept).
    pub ids_kept: Vec<String>,
    pub ids_lost: Vec<String>,
    /// The whole conversation's text, made once when an identifier must be looked for in it.
    source_text: Option<String>,
    /// Whether an identifier occurs anywhere in the source, for those a summary's own span
    /// did not hold (each is searched for in the whole conversation once).
    supported: HashMap<String, bool>,
}

impl Rounds {
    pub fn new(chunks: Vec<SummaryChunk>) -> Self {
        Rounds {
            requests: Vec::new(),
            pending: Vec::new(),
            chunks,
            folding: Vec::new(),
            folded: false,
            made: Vec::new(),
            fallback: None,
            dropped: Vec::new(),
            unsupported: Vec::new(),
            ids_kept: Vec::new(),
            ids_lost: Vec::new(),
            source_text: None,
            supported: HashMap::new(),
        }
    }

    /// Summary chunks made this turn.
    pub fn new_chunks(&self) -> usize {
        self.pending.len()
    }
}

impl Compaction {
    /// The requests for the evicted span: its messages rendered, split into prompts that
    /// each fit one call.
    pub(super) fn request_summaries(&mut self) {
        let cfg = Rc::clone(&self.input.config);
        let conv = Rc::clone(&self.input.conv);
        let messages = conv.messages();
        let names = prune::tool_names(messages);
        let whole = |tool: &str| cfg.tool_policy(tool) == ToolPolicy::Summarize;
        let mut rendered: Vec<String> = self
            .plan
            .evict
            .iter()
            .map(|&i| summary::render_message(&messages[i], &|id| names.of(i, id), &whole))
            .collect();
        let mut sources: Vec<Source> = self.plan.evict.iter().map(|&i| Source::Message(i)).collect();
        if cfg.strategy == Strategy::Rolling && !self.rounds.chunks.is_empty() {
            // The previous summary leads, so the new one folds it in.
            rendered.insert(
                0,
                format!("[earlier summary]\n{}", join_chunks(&self.rounds.chunks)),
            );
            sources.insert(0, Source::EarlierSummary);
        }
        let parts = summary::chunk(&rendered, &self.input.counter, self.summarizer_input);
        let of = parts.len();
        let system = summary::system_prompt(cfg.summary_prompt.as_deref(), cfg.instructions.as_deref());
        for (k, (prompt, range)) in parts.into_iter().enumerate() {
            let covers: Vec<usize> = sources[range]
                .iter()
                .filter_map(|s| match s {
                    Source::Message(i) => Some(*i),
                    Source::EarlierSummary => None,
                })
                .collect();
            let ids = ledger::collect(covers.iter().map(|&i| &messages[i]));
            self.rounds.requests.push(Request {
                kind: RequestKind::Summarize,
                system: system.clone(),
                prompt,
                max_tokens: self.summary_max,
                timeout_ms: cfg.summarizer_timeout_ms,
                part: [k, of],
                covers,
            });
            self.rounds.pending.push(Pending { ids, done: None });
        }
    }

    /// Takes one round's replies: the chunks, then a fold request if they outgrew their share.
    pub(super) fn take_replies(&mut self, replies: Vec<Reply>) -> Result<(), Error> {
        if replies.len() != self.rounds.requests.len() {
            return Err(Error::InvalidArgument {
                argument: "replies".into(),
                expected: format!(
                    "{} replies, one per request, got {}",
                    self.rounds.requests.len(),
                    replies.len()
                ),
            });
        }
        let requests = std::mem::take(&mut self.rounds.requests);
        if !self.rounds.folding.is_empty() {
            let groups = self.rounds.folding.clone();
            let mut folded = Vec::with_capacity(groups.len());
            for (k, reply) in replies.into_iter().enumerate() {
                folded.push(self.finish_fold(reply, &requests[k], groups[k].clone())?);
            }
            // Each group's chunks give way to its fold, in place.
            let old = std::mem::take(&mut self.rounds.chunks);
            let mut at = 0;
            for (group, chunk) in groups.iter().zip(folded) {
                self.rounds.chunks.extend(old[at..group.start].iter().cloned());
                self.rounds.made.push(chunk.clone());
                self.rounds.chunks.push(chunk);
                at = group.end;
            }
            self.rounds.chunks.extend(old[at..].iter().cloned());
            self.rounds.folding.clear();
            self.rounds.folded = true;
            // Still too large (the groups were many): the folds fold in the next round.
            self.request_fold_if_large();
            return Ok(());
        }
        for (k, reply) in replies.into_iter().enumerate() {
            let chunk = self.chunk_from(k, reply, &requests[k])?;
            self.rounds.pending[k].done = Some(chunk);
        }
        let generation = self.rounds.chunks.last().map_or(0, |c| c.generation);
        let new: Vec<SummaryChunk> = self
            .rounds
            .pending
            .iter_mut()
            .enumerate()
            .map(|(k, p)| {
                let mut c = p.done.take().expect("every request has a reply");
                c.generation = generation + 1 + k as u32;
                c
            })
            .collect();
        self.rounds.made.extend(new.iter().cloned());
        match self.input.config.strategy {
            Strategy::Rolling => self.rounds.chunks = new,
            Strategy::Additive => self.rounds.chunks.extend(new),
        }
        self.request_fold_if_large();
        Ok(())
    }

    /// Folds the chunks once they outgrow their share of the window: consecutive chunks in
    /// groups of at least two, each as many as one summarizer call takes
    /// (`summarizerInputTokens`), folded in one round; the next round folds the folds while
    /// they are still large (each round leaves one chunk fewer at least).
    fn request_fold_if_large(&mut self) {
        let cfg = Rc::clone(&self.input.config);
        let chunks = &self.rounds.chunks;
        let total: usize = chunks.iter().map(|c| c.tokens).sum();
        if chunks.len() < 2 || total as f64 <= cfg.fold_ratio * self.input.budget.fold_base() as f64 {
            return;
        }
        let mut groups = Vec::new();
        let mut start = 0;
        while start < chunks.len() {
            let (mut end, mut taken) = (start, 0);
            // Each chunk and the blank line between them (a token: `taken + tokens + 1 <= limit`).
            while end < chunks.len()
                && (end - start < 2 || taken + chunks[end].tokens < self.summarizer_input)
            {
                taken += chunks[end].tokens + 1;
                end += 1;
            }
            // A last group of one folds with nothing: it stays as it is.
            if end - start > 1 {
                groups.push(start..end);
            }
            start = end;
        }
        let system = summary::fold_prompt(cfg.summary_prompt.as_deref());
        for (k, group) in groups.iter().enumerate() {
            let prompt = chunks[group.clone()]
                .iter()
                .map(|c| c.text.as_str())
                .collect::<Vec<_>>()
                .join("\n\n");
            self.rounds.requests.push(Request {
                kind: RequestKind::Fold,
                system: system.clone(),
                prompt,
                max_tokens: self.summary_max,
                timeout_ms: cfg.summarizer_timeout_ms,
                part: [k, groups.len()],
                covers: Vec::new(),
            });
        }
        self.rounds.folding = groups;
    }

    /// The built-in extractive summary's answers to the pending requests: no model.
    pub(super) fn extractive_replies(&self) -> Vec<Reply> {
        let counter = self.counter();
        let max = self.summary_max;
        let messages = self.input.conv.messages();
        let chunks = &self.rounds.chunks;
        self.rounds
            .requests
            .iter()
            .enumerate()
            .map(|(k, r)| {
                let text = if r.kind == RequestKind::Fold {
                    let texts: Vec<&str> = chunks[self.rounds.folding[r.part[0]].clone()]
                        .iter()
                        .map(|c| c.text.as_str())
                        .collect();
                    extractive::fold(&texts, counter, max)
                } else {
                    let covered: Vec<&Message> = r.covers.iter().map(|&i| &messages[i]).collect();
                    let text = extractive::summarize(&covered, &self.rounds.pending[k].ids, counter, max);
                    if k == 0 && self.input.config.strategy == Strategy::Rolling && !chunks.is_empty() {
                        // Rolling: the one summary carries the previous one forward.
                        let mut texts: Vec<&str> = chunks.iter().map(|c| c.text.as_str()).collect();
                        texts.push(&text);
                        extractive::fold(&texts, counter, max)
                    } else {
                        text
                    }
                };
                Reply::Text {
                    text,
                    model: Some("extractive".into()),
                    usage: None,
                }
            })
            .collect()
    }

    /// What the caller's prompt asks of a summary beyond the schema: `summaryPrompt` and
    /// `instructions` (sections they name are kept).
    fn asked(&self) -> String {
        let cfg = &self.input.config;
        [cfg.summary_prompt.as_deref(), cfg.instructions.as_deref()]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// A chunk from one reply: the checked summary with its ledger, or the fallback.
    fn chunk_from(&mut self, k: usize, reply: Reply, request: &Request) -> Result<SummaryChunk, Error> {
        let (model, usage, outcome) = match reply {
            Reply::Text { text, model, usage } => (
                model,
                usage,
                summary::check_asked(&text, self.counter(), self.summary_max, &self.asked())
                    .map_err(|r| r.to_string()),
            ),
            Reply::Failed(reason) => (None, None, Err(reason)),
        };
        let ids = self.rounds.pending[k].ids.clone();
        let (text, fallback) = match outcome {
            Ok(checked) => {
                self.rounds.dropped.extend(checked.dropped);
                self.rounds.dropped.extend(checked.suspicious);
                (self.verified(checked.text, request, &ids), None)
            }
            Err(reason) => self.fallback_for(reason, request, &ids)?,
        };
        if fallback.is_some() {
            self.rounds.fallback = fallback.clone();
        }
        let applied = self.with_ledger(text, &ids, self.new_chunk_tokens(k));
        self.rounds.ids_kept.extend(applied.kept.iter().cloned());
        self.rounds.ids_lost.extend(applied.lost.iter().cloned());
        let tokens = self.counter().count(&applied.text);
        Ok(SummaryChunk {
            generation: 0,
            text: applied.text,
            through: request.covers.iter().copied().max().unwrap_or(0),
            tokens,
            created_at: self.input.now.clone(),
            model,
            trigger: self
                .plan
                .trigger
                .map_or(ChunkTrigger::Threshold, ChunkTrigger::from),
            usage,
            kept_ids: applied.kept,
            lost_ids: applied.lost,
            fallback,
        })
    }

    /// Replaces the summaries with one chunk of at most `room` tokens (the summary message
    /// included): their extractive fold, or the marker when not even its frame fits. The
    /// identifiers the chunks kept that the new one does not say are reported lost.
    pub(super) fn shrink_summaries(&mut self, room: usize) {
        let text = {
            let texts: Vec<&str> = self.rounds.chunks.iter().map(|c| c.text.as_str()).collect();
            let fold = extractive::fold(
                &texts,
                self.counter(),
                room.saturating_sub(super::plan::framing(&self.input)),
            );
            // Counted as an assistant message; a few tokens spare for another role's framing.
            let fits = super::chunk_tokens(
                &[SummaryChunk {
                    text: fold.clone(),
                    ..self.rounds.chunks[0].clone()
                }],
                self.counter(),
                self.input.config.recall,
            ) + ROLE_SLACK
                <= room;
            if fits {
                fold
            } else {
                summary::MARKER.to_owned()
            }
        };
        let said = ledger::Held::new(&text);
        let mut kept = Vec::new();
        for id in std::mem::take(&mut self.rounds.ids_kept) {
            if said.holds(&id) {
                kept.push(id);
            } else if !self.rounds.ids_lost.contains(&id) {
                self.rounds.ids_lost.push(id);
            }
        }
        self.rounds.ids_kept = kept;
        let last = self.rounds.chunks.last().cloned().expect("chunks to shrink");
        let (kept_ids, lost_ids) = (self.rounds.ids_kept.clone(), self.rounds.ids_lost.clone());
        self.rounds.chunks = vec![SummaryChunk {
            generation: last.generation + 1,
            tokens: self.counter().count(&text),
            text,
            trigger: ChunkTrigger::Fold,
            kept_ids,
            lost_ids,
            ..last
        }];
        self.rounds.made.push(self.rounds.chunks[0].clone());
        self.rounds.folded = true;
    }

    /// The summary tokens the input holds before request `k`'s chunk, and what the later
    /// requests of this round reserve: the chunks kept from earlier turns (additive), the
    /// chunks of this round made so far, a whole slot for each one still to come.
    fn new_chunk_tokens(&self, k: usize) -> usize {
        // A chunk joins the others with a blank line: a token or two each.
        let joined = |c: &SummaryChunk| c.tokens + 2;
        let kept: usize = match self.input.config.strategy {
            Strategy::Additive => self.rounds.chunks.iter().map(joined).sum(),
            Strategy::Rolling => 0,
        };
        let made: usize = self.rounds.pending[..k]
            .iter()
            .filter_map(|p| p.done.as_ref())
            .map(joined)
            .sum();
        let later = self.rounds.pending.len().saturating_sub(k + 1) * self.summary_slot;
        kept + made + later
    }

    /// `text` with its identifier ledger (within [`Compaction::ledger_budget`], beside `taken`
    /// tokens of other summaries); the marker carries none, and loses every identifier.
    fn with_ledger(&self, text: String, ids: &[(Identifier, usize)], taken: usize) -> ledger::Applied {
        if text == summary::MARKER {
            return ledger::Applied {
                text,
                kept: Vec::new(),
                lost: ids.iter().map(|(i, _)| i.text.clone()).collect(),
            };
        }
        let budget = self.ledger_budget(&text, taken);
        ledger::apply(&text, ids, self.counter(), budget)
    }

    /// The ledger budget for a summary whose text is `text`, with `taken` tokens of other
    /// summaries beside it: the room the target leaves (measured now that the text is
    /// made), at least the reserved ledger; or `ledgerMaxTokens` when it is set.
    fn ledger_budget(&self, text: &str, taken: usize) -> usize {
        let cfg = &self.input.config;
        let reserved = cfg.ledger_tokens(self.input.budget.window, self.input.budget.room());
        if !cfg.ledger_grows() {
            return reserved;
        }
        let own = self.counter().count(text);
        self.summary_room.saturating_sub(taken + own).max(reserved)
    }

    /// What stands in for a summary that failed: the configured fallback, or the error a
    /// manual compaction or `fallback: "error"` asks for.
    fn fallback_for(
        &self,
        reason: String,
        request: &Request,
        ids: &[(Identifier, usize)],
    ) -> Result<(String, Option<FallbackUsed>), Error> {
        if self.input.manual {
            return Err(Error::SummarizerFailed { reason });
        }
        let (kind, text) = match self.input.config.fallback {
            Fallback::Error => return Err(Error::SummarizerFailed { reason }),
            Fallback::Marker => (FallbackKind::Marker, summary::MARKER.to_owned()),
            Fallback::Extractive => {
                let messages = self.input.conv.messages();
                let covered: Vec<&Message> = request.covers.iter().map(|&i| &messages[i]).collect();
                let text = extractive::summarize(&covered, ids, self.counter(), self.summary_max);
                (FallbackKind::Extractive, text)
            }
        };
        Ok((text, Some(FallbackUsed { kind, reason })))
    }

    /// A fold's reply replaces the chunks with one, whose ledger carries the identifiers the
    /// chunks held. It is checked as a summary is: lines outside the sections and lines that
    /// are instructions are dropped and reported, invented identifiers reported. A failed
    /// fold is the configured fallback (the extractive fold of the chunks, or the marker),
    /// flagged, since planning counts on the fold (the chunks alone may not fit); or the error
    /// a manual compaction or `fallback: "error"` asks for.
    /// A fold's reply: the chunk that takes the place of the chunks in `group`.
    fn finish_fold(
        &mut self,
        reply: Reply,
        request: &Request,
        group: Range<usize>,
    ) -> Result<SummaryChunk, Error> {
        let checked = match reply {
            Reply::Text { text, .. } => {
                summary::check_asked(&text, self.counter(), self.summary_max, &self.asked())
                    .map_err(|r| r.to_string())
            }
            Reply::Failed(reason) => Err(reason),
        };
        let text = match checked {
            Ok(checked) => {
                self.rounds.dropped.extend(checked.dropped);
                self.rounds.dropped.extend(checked.suspicious);
                self.verified(checked.text, request, &[])
            }
            Err(reason) if self.input.manual || self.input.config.fallback == Fallback::Error => {
                return Err(Error::SummarizerFailed { reason });
            }
            Err(reason) => {
                let (kind, text) = match self.input.config.fallback {
                    Fallback::Marker => (FallbackKind::Marker, summary::MARKER.to_owned()),
                    _ => {
                        let texts: Vec<&str> = self.rounds.chunks[group.clone()]
                            .iter()
                            .map(|c| c.text.as_str())
                            .collect();
                        (
                            FallbackKind::Extractive,
                            extractive::fold(&texts, self.counter(), self.summary_max),
                        )
                    }
                };
                // The first failure of the turn is the one reported.
                self.rounds.fallback.get_or_insert(FallbackUsed { kind, reason });
                text
            }
        };
        let mut ids = Vec::new();
        for c in &self.rounds.chunks[group.clone()] {
            for id in ledger::identifiers_of(&c.text) {
                if !ids.iter().any(|(i, _): &(Identifier, usize)| i.text == id.text) {
                    ids.push((id, 1));
                }
            }
        }
        let applied = self.with_ledger(text, &ids, 0);
        // Sets, not searches of the lists: a long conversation loses thousands.
        let lost: HashSet<&str> = applied.lost.iter().map(String::as_str).collect();
        self.rounds.ids_kept.retain(|k| !lost.contains(k.as_str()));
        let mut known: HashSet<String> = self.rounds.ids_lost.iter().cloned().collect();
        for id in &applied.lost {
            if known.insert(id.clone()) {
                self.rounds.ids_lost.push(id.clone());
            }
        }
        let through = self.rounds.chunks[group.end - 1].through;
        let newest = self.rounds.chunks.iter().map(|c| c.generation).max().unwrap_or(0);
        Ok(SummaryChunk {
            generation: newest + 1 + request.part[0] as u32,
            tokens: self.counter().count(&applied.text),
            text: applied.text,
            through,
            created_at: self.input.now.clone(),
            model: None,
            trigger: ChunkTrigger::Fold,
            usage: None,
            kept_ids: applied.kept,
            lost_ids: applied.lost,
            fallback: None,
        })
    }

    /// A checked summary's text with the identifiers it invented reported, and removed
    /// unless `keepUnsupportedIds`.
    fn verified(&mut self, text: String, request: &Request, known: &[(Identifier, usize)]) -> String {
        let invented = self.unsupported_in(&text, request, known);
        for id in &invented {
            if !self.rounds.unsupported.contains(id) {
                self.rounds.unsupported.push(id.clone());
            }
        }
        if self.input.config.keep_unsupported_ids {
            text
        } else {
            ledger::without(&text, &invented)
        }
    }

    /// Identifiers of `summary` found nowhere in the conversation. Each is looked for first
    /// in the messages the request covered (where a faithful summary took it from), and only
    /// if not there in the whole conversation, once per identifier: the check is linear in
    /// the conversation, not in the conversation times the number of summaries.
    fn unsupported_in(
        &mut self,
        summary: &str,
        request: &Request,
        known: &[(Identifier, usize)],
    ) -> Vec<String> {
        let messages = self.input.conv.messages();
        let mut near = String::new();
        for &i in &request.covers {
            super::push_text(&mut near, &messages[i]);
        }
        // A rolling summary and a fold are made from the chunks (a fold: its group's).
        if self.input.config.strategy == Strategy::Rolling || request.kind == RequestKind::Fold {
            let taken = match request.kind {
                RequestKind::Fold => self.rounds.folding[request.part[0]].clone(),
                _ => 0..self.rounds.chunks.len(),
            };
            for c in &self.rounds.chunks[taken] {
                near.push_str(&c.text);
                near.push('\n');
            }
        }
        let known: HashSet<&str> = known.iter().map(|(i, _)| i.text.as_str()).collect();
        let mut out = Vec::new();
        for id in ledger::unsupported(summary, &near, &known) {
            let anywhere = match self.rounds.supported.get(&id) {
                Some(&known) => known,
                None => {
                    let known = ledger::grounded(self.source(), &id);
                    self.rounds.supported.insert(id.clone(), known);
                    known
                }
            };
            if !anywhere {
                out.push(id);
            }
        }
        out
    }

    /// The whole conversation's text (system, messages, earlier chunks), made once.
    fn source(&mut self) -> &str {
        if self.rounds.source_text.is_none() {
            let mut s = String::new();
            if let Some(sys) = self.input.conv.system() {
                super::push_text(&mut s, &sys);
            }
            for m in self.input.conv.messages() {
                super::push_text(&mut s, m);
            }
            for c in &self.rounds.chunks {
                s.push_str(&c.text);
            }
            self.rounds.source_text = Some(s);
        }
        self.rounds.source_text.as_deref().unwrap_or_default()
    }
}
