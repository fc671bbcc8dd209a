//! The compaction state machine: plan, ask for summaries, check them, build the output.
//!
//! The core never waits on anything. [`Compaction::new`] plans and lists the summarizer
//! calls it needs ([`Compaction::requests`]); the caller (the JS layer, or a test) makes
//! them and hands the replies to [`Compaction::submit`], which may ask for one more round
//! (folding chunks); [`Compaction::finish`] then builds the output. Every failure of a
//! summarizer becomes the configured fallback here, so a turn is never lost to it.

use std::collections::HashMap;
use std::rc::Rc;

use serde::Serialize;

use super::ledger;
use super::partition::{choose_tail, head_len, Structure};
use super::prune::prune_text;
use super::state::{Chunk, FallbackUsed, Mark, State, VERSION};
use super::{extractive, summary};
use crate::config::{Config, Fallback, Overflow, Preset, Strategy, SummaryRole};
use crate::count::{count_each, count_message, Counter, TextCounter, REPLY_PRIMING};
use crate::ids::Identifier;
use crate::messages::{Conversation, Format, Message, NewMessage, Out, Part, Role};
use crate::tokenizer::hash::FastMap;
use crate::Error;

/// Everything a compaction needs, owned: a compaction in progress can be kept across the
/// caller's awaits (the JS face holds one while the summarizer runs).
pub struct Input {
    /// The conversation, as the caller sent it.
    pub conv: Rc<Conversation>,
    /// Resolved options.
    pub config: Rc<Config>,
    /// Counts tokens (exact, or the model's estimate).
    pub counter: Counter,
    /// The model's context window.
    pub window: usize,
    /// Tokens kept free for the reply.
    pub reserved_output: usize,
    /// What the previous turn returned, if the caller kept it.
    pub state: Option<State>,
    /// A manual compaction (`/compact`): runs below the threshold, and fails loudly.
    pub manual: bool,
    /// Now, as ISO 8601, for chunk records (the core has no clock).
    pub now: Option<String>,
}

/// The token budget.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Budget {
    /// The model's context window.
    pub window: usize,
    /// Tokens kept free for the reply.
    pub reserved_output: usize,
    /// What the input may take: window minus reserved output.
    pub input: usize,
    /// Compaction starts above this: `max(tokenFloor, thresholdRatio x window)`, at most `input`.
    pub threshold: usize,
}

/// Where tokens are, before any new compaction.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Breakdown {
    /// Everything that would be sent now: the request's input tokens.
    pub total: usize,
    /// System prompt(s) and pinned messages.
    pub head: usize,
    /// The summary message of earlier compactions.
    pub summaries: usize,
    /// Messages that a compaction now would summarize.
    pub middle: usize,
    /// Messages kept verbatim (tail and pinned newest user message).
    pub tail: usize,
    /// Tool results among all of the above (after pruning).
    pub tools: usize,
    /// Reply priming.
    pub framing: usize,
}

/// What pruning does.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Pruned {
    /// Tool outputs before this message index are pruned.
    pub boundary: usize,
    /// Whether the boundary moved this turn.
    pub advanced: bool,
    /// Messages whose tool outputs are pruned.
    pub messages: Vec<usize>,
    /// Bytes removed from tool outputs.
    pub bytes_removed: usize,
    /// Tokens saved.
    pub tokens_saved: usize,
    /// Identifiers that pruned outputs sent out no longer hold (the marker's room ran out).
    pub lost_ids: Vec<String>,
}

/// The plan: what a compaction would do, computed without calling a model.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Plan {
    /// The budget.
    pub budget: Budget,
    /// Tokens by part.
    pub tokens: Breakdown,
    /// `"threshold"` or `"manual"` if a compaction would run, else `null`.
    pub trigger: Option<&'static str>,
    /// The first message after the head.
    pub head_end: usize,
    /// The first message sent verbatim before this compaction (after earlier summaries).
    pub boundary: usize,
    /// Where the verbatim tail would start.
    pub tail_start: usize,
    /// The newest user message kept although its turn is split.
    pub pinned: Option<usize>,
    /// Messages a compaction would summarize.
    pub evict: Vec<usize>,
    /// Summarizer calls a compaction would make (before any fold): an upper bound from the
    /// cached counts; the rendered middle may need fewer (`Report::new_chunks` says how many).
    pub summarizer_calls: usize,
    /// Pruning.
    pub pruned: Pruned,
    /// Why the state passed in was not used, if it was not.
    pub state_reset: Option<String>,
}

/// One summarizer call.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Request {
    /// `"summarize"` (evicted messages) or `"fold"` (earlier summaries into one).
    pub kind: &'static str,
    /// The summarizer's instructions (schema, rules, domain prompt, per-call instructions).
    pub system: String,
    /// The text to summarize.
    pub prompt: String,
    /// The cap to pass to the model.
    pub max_tokens: usize,
    /// The deadline, in milliseconds.
    pub timeout_ms: u64,
    /// Which part this is, when the evicted span needs several calls: `[index, of]`.
    pub part: [usize; 2],
    /// The message indexes it covers.
    pub covers: Vec<usize>,
}

/// What a summarizer call came back with.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// A text (still to be checked).
    Text {
        /// The summary.
        text: String,
        /// The model that wrote it, if it said.
        model: Option<String>,
        /// Its usage report, if it gave one.
        usage: Option<serde_json::Value>,
    },
    /// The call failed: rejected, timed out, or returned something that is not a summary.
    Failed(String),
}

/// `full`, `summarized` or `truncated`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ContextStatus {
    /// Nothing summarized (tool outputs may be pruned).
    Full,
    /// Earlier turns are summarized.
    Summarized,
    /// A fallback marker or a truncated message stands in for earlier content.
    Truncated,
}

/// What happened, for the caller.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// Input tokens of the request as sent before (effective, earlier summaries applied).
    pub tokens_before: usize,
    /// Input tokens of the request returned.
    pub tokens_after: usize,
    /// The budget.
    pub budget: Budget,
    /// `"threshold"`, `"manual"`, or `null` when nothing was summarized this turn.
    pub trigger: Option<&'static str>,
    /// Messages summarized this turn.
    pub evicted: Vec<usize>,
    /// Summary chunks in the output.
    pub summary_chunks: usize,
    /// Summary chunks made this turn.
    pub new_chunks: usize,
    /// Whether the chunks were folded into one this turn.
    pub folded: bool,
    /// Identifiers of this turn's evicted messages that the output keeps.
    pub kept_ids: Vec<String>,
    /// Identifiers of this turn's evicted messages that the ledger budget could not keep.
    pub lost_ids: Vec<String>,
    /// Identifiers in new summaries that appear nowhere in the conversation.
    pub unsupported_ids: Vec<String>,
    /// The fallback used this turn, if any.
    pub fallback: Option<FallbackUsed>,
    /// Summary lines dropped: outside the schema, or reading as instructions.
    pub dropped_summary_lines: Vec<String>,
    /// The summary message's role in the output.
    pub summary_role: Option<&'static str>,
    /// The caller's message the summary was put at the start of (`alternateRoles`), if it was.
    pub summary_merged_into: Option<usize>,
    /// Output indexes after which a prompt-cache breakpoint belongs: after the head, after
    /// the summary (and the newest user message when it follows the summary), at the prune
    /// boundary.
    pub cache_breakpoints: Vec<usize>,
    /// Pruning.
    pub pruned: Pruned,
    /// Why the state passed in was not used, if it was not.
    pub state_reset: Option<String>,
    /// Messages cut to fit (`overflow: "truncate"` only).
    pub truncated_messages: Vec<usize>,
}

/// The result of a compaction.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// What goes out, in order, as items of the caller's array.
    pub order: Vec<Out>,
    /// Full, summarized or truncated.
    pub context_status: ContextStatus,
    /// What happened.
    pub report: Report,
    /// What to pass back next turn.
    pub state: State,
}

/// One summary chunk being made this turn.
struct Pending {
    ids: Vec<(Identifier, usize)>,
    done: Option<Chunk>,
}

/// A compaction in progress.
pub struct Compaction {
    input: Input,
    plan: Plan,
    budget: Budget,
    /// Tokens of each message as it would go out (pruned where pruned).
    tokens: Vec<usize>,
    /// Tool results replaced by pruning: message index -> (call id, text).
    edits: HashMap<usize, Vec<(String, String)>>,
    /// Chunks kept from earlier turns.
    chunks: Vec<Chunk>,
    pending: Vec<Pending>,
    requests: Vec<Request>,
    folding: bool,
    folded: bool,
    fallback: Option<FallbackUsed>,
    dropped: Vec<String>,
    unsupported: Vec<String>,
    /// Identifiers of this turn's evicted messages kept, and lost, at any stage (a fold
    /// can lose what a chunk kept).
    ids_kept: Vec<String>,
    ids_lost: Vec<String>,
    pinned_first: Option<usize>,
    source_text: Option<String>,
    /// Whether an identifier occurs anywhere in the source, for those a summary's own span
    /// did not hold (each is searched for in the whole conversation once).
    supported: HashMap<String, bool>,
    /// The messages' running digests, for the state's marks.
    digests: Vec<u64>,
    /// Identifiers each pruned message lost.
    prune_lost: HashMap<usize, Vec<String>>,
    /// The cap on one summary chunk's tokens.
    summary_max: usize,
}

/// Tokens a rendered message may take beyond its own count (the `[role calls tool]` prefix).
const RENDER_SLACK: usize = 8;

/// The default tokens kept free for the reply: 1/16 of the window, at least 1024, at
/// most the model's output cap and half the window.
pub fn default_reserved_output(window: usize, max_output: usize) -> usize {
    (window / 16).max(1024).min(max_output).min(window / 2)
}

/// The window and reserved output for a model and options: `contextWindow` and
/// `reservedOutputTokens` win; a model with its own input cap (GPT-5) reserves at least
/// what lies above it.
pub fn window_for(
    model: Option<&crate::models::ResolvedModel>,
    config: &Config,
) -> Result<(usize, usize), Error> {
    let window = config
        .context_window
        .or(model.map(|m| m.context_window as usize))
        .ok_or_else(|| Error::InvalidArgument {
            argument: "options".into(),
            expected: "a model (options.model) or a window (options.contextWindow)".into(),
        })?;
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
    Ok((window, reserved))
}

/// Tool name by call id (borrowed: nothing is copied).
fn tool_names(messages: &[Message]) -> FastMap<&str, &str> {
    let mut names = FastMap::default();
    for m in messages {
        for p in &m.parts {
            if let Part::ToolCall { id, name, .. } = p {
                names.insert(id.as_str(), name.as_str());
            }
        }
    }
    names
}

impl Compaction {
    /// Plans a compaction. Errors only for input that cannot fit at all (`CONTEXT_OVERFLOW`).
    pub fn new(input: Input) -> Result<Self, Error> {
        let cfg = Rc::clone(&input.config);
        let conv = Rc::clone(&input.conv);
        let messages = conv.messages();
        let n = messages.len();
        let window = input.window;
        let reserved = input.reserved_output.min(window.saturating_sub(1));
        let budget_input = window - reserved;
        let threshold = ((cfg.threshold_ratio * window as f64) as usize)
            .max(cfg.token_floor)
            .min(budget_input);
        let budget = Budget {
            window,
            reserved_output: reserved,
            input: budget_input,
            threshold,
        };

        // The state, checked against this history.
        let digests = input.conv.prefix_digests().to_vec();
        let (mut state, state_reset) = match input.state.clone() {
            None => (State::default(), None),
            Some(s) if s.version != VERSION => (
                State::default(),
                Some(format!("state version {} is not {VERSION}", s.version)),
            ),
            Some(s) => {
                let bad = [
                    ("boundary", s.boundary),
                    ("pruneBoundary", s.prune_boundary),
                    ("pinned", s.pinned),
                ]
                .into_iter()
                .find(|(_, m)| m.is_some_and(|m| !m.holds(&digests)));
                match bad {
                    Some((name, _)) => (
                        State::default(),
                        Some(format!(
                            "the history before state.{name} changed; starting over from the full history"
                        )),
                    ),
                    None => (s, None),
                }
            }
        };
        if cfg.preset == Preset::Off {
            state = State::default();
        }

        let structure = Structure::of(messages);
        let mut head_end = head_len(messages);
        // While the task is also the newest user message, it is kept as the newest one is
        // (after the summary of the steps that followed it); it joins the head once a later
        // turn starts.
        let pinned_first = if cfg.pin_first_user_turn {
            messages
                .iter()
                .position(Message::starts_turn)
                .filter(|&i| i >= head_end && messages[i + 1..].iter().any(Message::starts_turn))
        } else {
            None
        };
        if pinned_first == Some(head_end) {
            head_end += 1;
        }
        let pinned_first = pinned_first.filter(|&i| i >= head_end);
        let boundary = state.boundary.map_or(head_end, |m| m.index.max(head_end));
        // The pinned mark sits just after the pinned message.
        let old_pinned = state
            .pinned
            .and_then(|m| m.index.checked_sub(1))
            .filter(|&i| i < boundary && i >= head_end);

        // Pruning: tool outputs before the prune boundary; the boundary moves up to the
        // protected recent turns only when enough tool output has piled up past it.
        let raw = input.conv.counts(&input.counter);
        let names = tool_names(messages);
        let protect = structure
            .turn_starts
            .iter()
            .copied()
            .filter(|&s| s >= boundary)
            .rev()
            .nth(cfg.buffer_turns.max(1) - 1)
            .unwrap_or(boundary);
        let mut prune_at = state.prune_boundary.map_or(boundary, |m| m.index.max(boundary));
        let prune_threshold = cfg.prune_threshold_tokens.unwrap_or(window / 20);
        let piled: usize = (prune_at..protect.max(prune_at))
            .filter(|&i| messages[i].role == Role::Tool)
            .map(|i| raw[i])
            .sum();
        let advanced = cfg.preset != Preset::Off && protect > prune_at && piled > prune_threshold;
        if advanced {
            prune_at = protect;
        }
        let mut tokens = raw.clone();
        let mut edits = HashMap::new();
        let mut pruned = Pruned {
            boundary: prune_at,
            advanced,
            ..Pruned::default()
        };
        let mut prune_lost: HashMap<usize, Vec<String>> = HashMap::new();
        for i in boundary..prune_at {
            let mut m = messages[i].clone();
            let mut changed = Vec::new();
            for part in &mut m.parts {
                if let Part::ToolResult { call_id, text, .. } = part {
                    let tool = names.get(call_id.as_str()).copied().unwrap_or("tool");
                    if let Some(p) = prune_text(text, tool, cfg.tool_policy(tool), cfg.tool_output_max_bytes)
                    {
                        pruned.bytes_removed += text.len() - p.text.len().min(text.len());
                        changed.push((call_id.clone(), p.text.clone()));
                        prune_lost.entry(i).or_default().extend(p.lost_ids);
                        *text = p.text;
                    }
                }
            }
            if !changed.is_empty() {
                tokens[i] = count_each(std::slice::from_ref(&m), &input.counter)[0];
                pruned.tokens_saved += raw[i].saturating_sub(tokens[i]);
                pruned.messages.push(i);
                edits.insert(i, changed);
            }
        }

        let system_tokens = input
            .conv
            .system()
            .map_or(0, |s| count_message(&s, &input.counter));
        let chunk_tokens = |chunks: &[Chunk]| -> usize {
            if chunks.is_empty() {
                return 0;
            }
            let text = join_chunks(chunks);
            count_message(
                &Message {
                    role: Role::Assistant,
                    parts: vec![Part::Text(text)],
                    name: None,
                },
                &input.counter,
            )
        };
        let head_tokens =
            system_tokens + raw[..head_end].iter().sum::<usize>() + pinned_first.map_or(0, |i| raw[i]);
        let live: usize = (boundary..n)
            .filter(|&i| Some(i) != pinned_first)
            .map(|i| tokens[i])
            .sum();
        let old_pinned_tokens = old_pinned.map_or(0, |i| tokens[i]);
        let summaries = chunk_tokens(&state.chunks);
        let total = head_tokens + old_pinned_tokens + summaries + live + REPLY_PRIMING;
        let tools: usize = (boundary..n)
            .filter(|&i| messages[i].role == Role::Tool)
            .map(|i| tokens[i])
            .sum();

        let trigger = match cfg.preset {
            Preset::Off => None,
            _ if input.manual => Some("manual"),
            _ if total > threshold => Some("threshold"),
            _ => None,
        };

        // The tail, and with it the middle, assuming `k` summarizer calls; k is then
        // checked against what the middle needs.
        let summary_max = cfg.summary_tokens(window);
        let summary_slot = summary_max + cfg.ledger_tokens(window) + 16;
        let fixed = head_tokens + REPLY_PRIMING;
        let input_budget = cfg.summarizer_input_tokens.unwrap_or_else(|| {
            budget_input
                .saturating_sub(summary_max + 1024)
                .clamp(1024, 120_000)
        });
        let mut plan_parts = (n, None, Vec::new(), 0usize);
        if trigger.is_some() {
            let mut k = 1;
            for _ in 0..4 {
                let kept_summary = match cfg.strategy {
                    Strategy::Additive => summaries + k * summary_slot,
                    Strategy::Rolling => k * summary_slot,
                };
                let room = budget_input.saturating_sub(fixed + kept_summary);
                let (tail_budget, turns) = match cfg.keep_recent_tokens {
                    Some(t) => (t.min(room), usize::MAX),
                    None => (
                        ((cfg.buffer_max_ratio * window as f64) as usize).min(room),
                        cfg.buffer_turns,
                    ),
                };
                let (tail_start, pin) = choose_tail(&structure, &tokens, boundary, turns, tail_budget);
                let mut evict: Vec<usize> = Vec::new();
                if let Some(p) = old_pinned.filter(|&p| Some(p) != pin) {
                    evict.push(p);
                }
                evict.extend((boundary..tail_start).filter(|&i| Some(i) != pin && Some(i) != pinned_first));
                // Summarizer calls, bounded from the cached counts without rendering: a
                // rendered message is elided and never longer than the message plus its
                // `[role]` prefix, so packing those sizes in order gives at least as many
                // parts as the real rendering will.
                let calls = if evict.is_empty() {
                    0
                } else {
                    let mut parts = 1;
                    let mut used = 0;
                    for &i in &evict {
                        let cost = (tokens[i] + RENDER_SLACK).min(input_budget);
                        if used + cost > input_budget && used > 0 {
                            parts += 1;
                            used = 0;
                        }
                        used += cost;
                    }
                    parts
                };
                plan_parts = (
                    tail_start,
                    pin.or(old_pinned.filter(|&p| Some(p) == pin)),
                    evict,
                    calls,
                );
                if calls <= k {
                    break;
                }
                k = calls;
            }
        }
        let (tail_start, pinned, evict, calls) = plan_parts;
        let evict_tokens: usize = evict.iter().map(|&i| tokens[i]).sum();
        let plan = Plan {
            budget,
            tokens: Breakdown {
                total,
                head: head_tokens,
                summaries,
                middle: evict_tokens,
                tail: total - head_tokens - summaries - evict_tokens - REPLY_PRIMING,
                tools,
                framing: REPLY_PRIMING,
            },
            trigger,
            head_end,
            boundary,
            tail_start: if trigger.is_some() { tail_start } else { boundary },
            pinned: if trigger.is_some() { pinned } else { old_pinned },
            evict,
            summarizer_calls: calls,
            pruned,
            state_reset,
        };

        let mut c = Compaction {
            input,
            budget,
            tokens,
            edits,
            chunks: state.chunks.clone(),
            pending: Vec::new(),
            requests: Vec::new(),
            folding: false,
            folded: false,
            fallback: None,
            dropped: Vec::new(),
            unsupported: Vec::new(),
            ids_kept: Vec::new(),
            ids_lost: Vec::new(),
            pinned_first,
            source_text: None,
            supported: HashMap::new(),
            digests,
            prune_lost,
            summary_max,
            plan,
        };
        c.check_fits(&structure)?;
        if c.plan.trigger.is_some() && !c.plan.evict.is_empty() {
            c.request_summaries(&names, input_budget);
        }
        Ok(c)
    }

    /// The plan.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The summarizer calls to make now (empty when none are needed).
    pub fn requests(&self) -> &[Request] {
        &self.requests
    }

    /// The head, the pinned messages, the user's newest words (with the step they answer,
    /// when they came with tool results) and the reply must fit, whatever is summarized.
    fn check_fits(&self, structure: &Structure) -> Result<(), Error> {
        let last_user = self
            .input
            .conv
            .messages()
            .iter()
            .rposition(Message::starts_turn)
            .filter(|&i| i >= self.plan.head_end);
        let words = match (structure.newest_words, last_user) {
            // The step with the newest words, from its call to the words.
            (Some(w), Some(u)) => self.tokens[w.max(self.plan.head_end)..=u].iter().sum(),
            // Without a pinned message, the newest turn's user message must fit.
            (None, Some(u)) if self.plan.pinned.is_none() => self.tokens[u],
            _ => 0,
        };
        let needed =
            self.plan.tokens.head + self.plan.pinned.map_or(0, |i| self.tokens[i]) + words + REPLY_PRIMING;
        if needed > self.budget.input && self.input.config.overflow == Overflow::Error {
            return Err(Error::ContextOverflow {
                needed,
                available: self.budget.input,
                hint: "raise contextWindow, lower reservedOutputTokens, or set overflow: \"truncate\"",
            });
        }
        Ok(())
    }

    fn request_summaries(&mut self, names: &FastMap<&str, &str>, input_budget: usize) {
        let cfg = Rc::clone(&self.input.config);
        let messages = self.input.conv.messages();
        let mut rendered: Vec<String> = self
            .plan
            .evict
            .iter()
            .map(|&i| summary::render_message(&messages[i], names))
            .collect();
        let mut indexes = self.plan.evict.clone();
        if cfg.strategy == Strategy::Rolling && !self.chunks.is_empty() {
            // The previous summary leads, so the new one folds it in.
            rendered.insert(0, format!("[earlier summary]\n{}", join_chunks(&self.chunks)));
            indexes.insert(0, usize::MAX);
        }
        let parts = summary::chunk(&rendered, &self.input.counter, input_budget);
        let of = parts.len();
        let system = summary::system_prompt(cfg.summary_prompt.as_deref(), cfg.instructions.as_deref());
        for (k, (prompt, range)) in parts.into_iter().enumerate() {
            let covers: Vec<usize> = indexes[range]
                .iter()
                .copied()
                .filter(|&i| i != usize::MAX)
                .collect();
            let ids = ledger::collect(covers.iter().map(|&i| &messages[i]));
            self.requests.push(Request {
                kind: "summarize",
                system: system.clone(),
                prompt,
                max_tokens: self.summary_max,
                timeout_ms: cfg.summarizer_timeout_ms,
                part: [k, of],
                covers,
            });
            self.pending.push(Pending { ids, done: None });
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
            push_text(&mut near, &messages[i]);
        }
        if self.input.config.strategy == Strategy::Rolling {
            for c in &self.chunks {
                near.push_str(&c.text);
                near.push('\n');
            }
        }
        let mut out = Vec::new();
        let known: std::collections::HashSet<&str> = known.iter().map(|(i, _)| i.text.as_str()).collect();
        for id in ledger::unsupported(summary, &near, &known) {
            let anywhere = match self.supported.get(&id) {
                Some(&known) => known,
                None => {
                    let known = crate::ids::mentions(self.source(), &id);
                    self.supported.insert(id.clone(), known);
                    known
                }
            };
            if !anywhere {
                out.push(id);
            }
        }
        out
    }

    fn source(&mut self) -> &str {
        if self.source_text.is_none() {
            let mut s = String::new();
            if let Some(sys) = self.input.conv.system() {
                push_text(&mut s, &sys);
            }
            for m in self.input.conv.messages() {
                push_text(&mut s, m);
            }
            for c in &self.chunks {
                s.push_str(&c.text);
            }
            self.source_text = Some(s);
        }
        self.source_text.as_deref().unwrap_or_default()
    }

    /// Takes the replies to [`Compaction::requests`], in order.
    pub fn submit(&mut self, replies: Vec<Reply>) -> Result<(), Error> {
        if replies.len() != self.requests.len() {
            return Err(Error::InvalidArgument {
                argument: "replies".into(),
                expected: format!(
                    "{} replies, one per request, got {}",
                    self.requests.len(),
                    replies.len()
                ),
            });
        }
        let requests = std::mem::take(&mut self.requests);
        if self.folding {
            self.folding = false;
            let reply = replies.into_iter().next().expect("one fold reply");
            return self.finish_fold(reply);
        }
        for (k, reply) in replies.into_iter().enumerate() {
            let chunk = self.chunk_from(k, reply, &requests[k])?;
            self.pending[k].done = Some(chunk);
        }
        let generation = self.chunks.last().map_or(0, |c| c.generation);
        let new: Vec<Chunk> = self
            .pending
            .iter_mut()
            .enumerate()
            .map(|(k, p)| {
                let mut c = p.done.take().expect("every request has a reply");
                c.generation = generation + 1 + k as u32;
                c
            })
            .collect();
        match self.input.config.strategy {
            Strategy::Rolling => self.chunks = new,
            Strategy::Additive => self.chunks.extend(new),
        }
        // Fold once the chunks outgrow their share of the window.
        let cfg = Rc::clone(&self.input.config);
        let total: usize = self.chunks.iter().map(|c| c.tokens).sum();
        if self.chunks.len() > 1 && total as f64 > cfg.fold_ratio * self.budget.window as f64 {
            self.folding = true;
            self.requests.push(Request {
                kind: "fold",
                system: summary::fold_prompt(cfg.summary_prompt.as_deref()),
                prompt: self
                    .chunks
                    .iter()
                    .map(|c| c.text.as_str())
                    .collect::<Vec<_>>()
                    .join("\n\n"),
                max_tokens: self.summary_max,
                timeout_ms: cfg.summarizer_timeout_ms,
                part: [0, 1],
                covers: Vec::new(),
            });
        }
        Ok(())
    }

    /// Answers the pending requests with the built-in extractive summary: no model.
    pub fn submit_extractive(&mut self) -> Result<(), Error> {
        let counter: &dyn TextCounter = &{ self.input.counter };
        let max = self.summary_max;
        let messages = self.input.conv.messages();
        let replies = self
            .requests
            .iter()
            .enumerate()
            .map(|(k, r)| {
                let text = if r.kind == "fold" {
                    let texts: Vec<&str> = self.chunks.iter().map(|c| c.text.as_str()).collect();
                    extractive::fold(&texts, counter, max)
                } else {
                    let covered: Vec<&Message> = r.covers.iter().map(|&i| &messages[i]).collect();
                    let text = extractive::summarize(&covered, &self.pending[k].ids, counter, max);
                    if k == 0 && self.input.config.strategy == Strategy::Rolling && !self.chunks.is_empty() {
                        // Rolling: the one summary carries the previous one forward.
                        let mut texts: Vec<&str> = self.chunks.iter().map(|c| c.text.as_str()).collect();
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
            .collect();
        self.submit(replies)
    }

    /// A chunk from one reply: the checked summary with its ledger, or the fallback.
    fn chunk_from(&mut self, k: usize, reply: Reply, request: &Request) -> Result<Chunk, Error> {
        let cfg = Rc::clone(&self.input.config);
        let counter: &dyn TextCounter = &{ self.input.counter };
        let (model, usage, outcome) = match reply {
            Reply::Text { text, model, usage } => (
                model,
                usage,
                summary::check(&text, counter, self.summary_max).map_err(|r| r.to_string()),
            ),
            Reply::Failed(reason) => (None, None, Err(reason)),
        };
        let ids = self.pending[k].ids.clone();
        let (text, fallback) = match outcome {
            Ok(checked) => {
                self.dropped.extend(checked.dropped);
                self.dropped.extend(checked.suspicious);
                let found = self.unsupported_in(&checked.text, request, &ids);
                for id in found {
                    if !self.unsupported.contains(&id) {
                        self.unsupported.push(id);
                    }
                }
                (checked.text, None)
            }
            Err(reason) => {
                if self.input.manual {
                    return Err(Error::SummarizerFailed { reason });
                }
                match cfg.fallback {
                    Fallback::Error => return Err(Error::SummarizerFailed { reason }),
                    Fallback::Marker => (
                        summary::MARKER.to_owned(),
                        Some(FallbackUsed {
                            kind: "marker".into(),
                            reason,
                        }),
                    ),
                    Fallback::Extractive => {
                        let messages = self.input.conv.messages();
                        let covered: Vec<&Message> = request.covers.iter().map(|&i| &messages[i]).collect();
                        let text = extractive::summarize(&covered, &ids, counter, self.summary_max);
                        (
                            text,
                            Some(FallbackUsed {
                                kind: "extractive".into(),
                                reason,
                            }),
                        )
                    }
                }
            }
        };
        if fallback.is_some() {
            self.fallback = fallback.clone();
        }
        let applied = if text == summary::MARKER {
            ledger::Applied {
                text,
                kept: Vec::new(),
                lost: ids.iter().map(|(i, _)| i.text.clone()).collect(),
            }
        } else {
            ledger::apply(&text, &ids, counter, cfg.ledger_tokens(self.budget.window))
        };
        self.ids_kept.extend(applied.kept.iter().cloned());
        self.ids_lost.extend(applied.lost.iter().cloned());
        let tokens = counter.count(&applied.text);
        Ok(Chunk {
            generation: 0,
            text: applied.text,
            through: request.covers.iter().copied().max().unwrap_or(0),
            tokens,
            created_at: self.input.now.clone(),
            model,
            trigger: self.plan.trigger.unwrap_or("threshold").to_owned(),
            usage,
            kept_ids: applied.kept,
            lost_ids: applied.lost,
            fallback,
        })
    }

    fn finish_fold(&mut self, reply: Reply) -> Result<(), Error> {
        let counter: &dyn TextCounter = &{ self.input.counter };
        let cfg = Rc::clone(&self.input.config);
        let text = match reply {
            Reply::Text { text, .. } => summary::check(&text, counter, self.summary_max)
                .ok()
                .map(|c| c.text),
            Reply::Failed(_) => None,
        };
        // A failed fold keeps the chunks as they are: they still fit, or the fit check says so.
        let Some(text) = text else { return Ok(()) };
        // The identifiers the chunks carried must survive the fold too.
        let mut ids = Vec::new();
        for c in &self.chunks {
            for id in crate::ids::extract(&c.text) {
                if !ids.iter().any(|(i, _): &(Identifier, usize)| i.text == id.text) {
                    ids.push((id, 1));
                }
            }
        }
        let applied = ledger::apply(&text, &ids, counter, cfg.ledger_tokens(self.budget.window));
        // Sets, not searches of the lists: a long conversation loses thousands.
        let lost: std::collections::HashSet<&str> = applied.lost.iter().map(String::as_str).collect();
        self.ids_kept.retain(|k| !lost.contains(k.as_str()));
        let mut known: std::collections::HashSet<String> = self.ids_lost.iter().cloned().collect();
        for id in &applied.lost {
            if known.insert(id.clone()) {
                self.ids_lost.push(id.clone());
            }
        }
        let last = self.chunks.last().cloned().expect("a fold has chunks");
        self.chunks = vec![Chunk {
            generation: last.generation + 1,
            tokens: counter.count(&applied.text),
            text: applied.text,
            through: last.through,
            created_at: self.input.now.clone(),
            model: None,
            trigger: "fold".into(),
            usage: None,
            kept_ids: applied.kept,
            lost_ids: applied.lost,
            fallback: None,
        }];
        self.folded = true;
        Ok(())
    }

    /// Builds the output. Call when [`Compaction::requests`] is empty.
    pub fn finish(self) -> Result<Outcome, Error> {
        let conv = Rc::clone(&self.input.conv);
        let messages = conv.messages();
        let n = messages.len();
        let cfg = Rc::clone(&self.input.config);
        let compacted = self.plan.trigger.is_some() && !self.plan.evict.is_empty();
        let (start, pinned) = if compacted {
            (self.plan.tail_start, self.plan.pinned)
        } else {
            (self.plan.boundary, self.plan.pinned)
        };

        let mut order = Vec::new();
        let mut breakpoints = Vec::new();
        order.extend((0..self.plan.head_end).map(Out::Keep));
        if let Some(i) = self.pinned_first {
            order.push(Out::Keep(i));
        }
        if !order.is_empty() {
            breakpoints.push(order.len() - 1);
        }
        let mut summary_role = None;
        let mut summary_at = None;
        if !self.chunks.is_empty() {
            let any_user_before = order
                .iter()
                .any(|o| matches!(o, Out::Keep(i) if messages[*i].starts_turn()));
            let role = match cfg.summary_role {
                SummaryRole::Assistant if !any_user_before => Role::User,
                SummaryRole::Assistant => Role::Assistant,
                SummaryRole::User => Role::User,
                SummaryRole::System if conv.format() == Format::Anthropic => Role::User,
                SummaryRole::System => Role::System,
            };
            summary_role = Some(match role {
                Role::System => "system",
                Role::User => "user",
                _ => "assistant",
            });
            order.push(Out::New(NewMessage {
                role,
                text: join_chunks(&self.chunks),
            }));
            summary_at = Some(order.len() - 1);
        }
        // The newest user message of a split turn follows the summary of the steps before
        // it, as SPEC.md's `[head] [summary] [tail] [new message]` has it: a request never
        // ends with the summary (which a provider would take as the assistant's text to
        // continue), and the message is as stable as the summary between compactions.
        if let Some(i) = pinned {
            order.push(Out::Keep(i));
        }
        if summary_at.is_some() || pinned.is_some() {
            breakpoints.push(order.len() - 1);
        }
        for i in start..n {
            if Some(i) == pinned || Some(i) == self.pinned_first {
                continue;
            }
            match self.edits.get(&i) {
                Some(results) => order.push(Out::Edited {
                    index: i,
                    results: results.clone(),
                }),
                None => order.push(Out::Keep(i)),
            }
            if i + 1 == self.plan.pruned.boundary && self.plan.pruned.boundary > start {
                breakpoints.push(order.len() - 1);
            }
        }
        // With alternateRoles, a summary followed by a message of its own side goes at the
        // start of that message; the breakpoint after the summary then follows the two.
        let mut summary_merged_into = None;
        if let (true, Some(s)) = (cfg.alternate_roles, summary_at) {
            if let (Out::New(summary), Some(&Out::Keep(i))) = (&order[s], order.get(s + 1)) {
                if messages[i].role == summary.role && conv.merged_item(i, &summary.text).is_some() {
                    order[s + 1] = Out::Merged {
                        index: i,
                        text: summary.text.clone(),
                    };
                    order.remove(s);
                    for b in &mut breakpoints {
                        if *b > s {
                            *b -= 1;
                        }
                    }
                    summary_merged_into = Some(i);
                }
            }
        }
        breakpoints.dedup();

        // Count what goes out, and check it fits.
        let mut tokens_after = self.output_tokens(&order);
        let mut truncated_messages = Vec::new();
        if tokens_after > self.budget.input && cfg.overflow == Overflow::Truncate && cfg.preset != Preset::Off
        {
            truncated_messages = self.truncate_to_fit(&mut order, tokens_after - self.budget.input);
            tokens_after = self.output_tokens(&order);
        }
        if tokens_after > self.budget.input && cfg.preset != Preset::Off {
            return Err(Error::ContextOverflow {
                needed: tokens_after,
                available: self.budget.input,
                hint: if cfg.overflow == Overflow::Truncate {
                    "even with the largest messages truncated the input does not fit (an Anthropic top-level system prompt is never truncated)"
                } else {
                    "the newest turn and the summaries together do not fit; lower summaryMaxTokens, raise contextWindow, or set overflow: \"truncate\""
                },
            });
        }

        let truncated =
            !truncated_messages.is_empty() || self.chunks.iter().any(|c| c.text == summary::MARKER);
        let context_status = if truncated {
            ContextStatus::Truncated
        } else if !self.chunks.is_empty() {
            ContextStatus::Summarized
        } else {
            ContextStatus::Full
        };
        let state = State {
            version: VERSION,
            chunks: self.chunks.clone(),
            boundary: Some(Mark::at(&self.digests, start)).filter(|_| !self.chunks.is_empty()),
            prune_boundary: Some(Mark::at(&self.digests, self.plan.pruned.boundary))
                .filter(|_| self.plan.pruned.boundary > self.plan.head_end),
            // Just after the pinned message, so its check covers the message itself.
            pinned: pinned.map(|i| Mark::at(&self.digests, i + 1)),
        };
        let report = Report {
            tokens_before: self.plan.tokens.total,
            tokens_after,
            budget: self.budget,
            trigger: if compacted { self.plan.trigger } else { None },
            evicted: if compacted {
                self.plan.evict.clone()
            } else {
                Vec::new()
            },
            summary_chunks: self.chunks.len(),
            new_chunks: if compacted { self.pending.len() } else { 0 },
            folded: self.folded,
            kept_ids: self.ids_kept,
            lost_ids: self.ids_lost,
            unsupported_ids: self.unsupported,
            fallback: self.fallback,
            dropped_summary_lines: self.dropped,
            summary_role,
            summary_merged_into,
            cache_breakpoints: breakpoints,
            pruned: Pruned {
                lost_ids: order
                    .iter()
                    .filter_map(|o| match o {
                        Out::Edited { index, .. } => self.prune_lost.get(index),
                        _ => None,
                    })
                    .flatten()
                    .fold(
                        (Vec::new(), std::collections::HashSet::new()),
                        |(mut all, mut seen), id| {
                            if seen.insert(id) {
                                all.push(id.clone());
                            }
                            (all, seen)
                        },
                    )
                    .0,
                ..self.plan.pruned.clone()
            },
            state_reset: self.plan.state_reset.clone(),
            truncated_messages,
        };
        Ok(Outcome {
            order,
            context_status,
            report,
            state,
        })
    }
}

impl Compaction {
    /// Input tokens of an output order.
    fn output_tokens(&self, order: &[Out]) -> usize {
        let counter: &dyn TextCounter = &{ self.input.counter };
        let text_message = |role, text: &str| Message {
            role,
            parts: vec![Part::Text(text.to_owned())],
            name: None,
        };
        let system = self.input.conv.system().map_or(0, |s| count_message(&s, counter));
        system
            + REPLY_PRIMING
            + order
                .iter()
                .map(|o| match o {
                    Out::Keep(i) | Out::Edited { index: i, .. } => self.tokens[*i],
                    Out::Truncated { index, text } => {
                        let original = &self.input.conv.messages()[*index];
                        count_message(
                            &Message {
                                name: original.name.clone(),
                                ..text_message(original.role, text)
                            },
                            counter,
                        )
                    }
                    Out::New(m) => count_message(&text_message(m.role, &m.text), counter),
                    Out::Merged { index, text } => self
                        .input
                        .conv
                        .merged_message(*index, text)
                        .map_or(self.tokens[*index], |m| count_message(&m, counter)),
                })
                .sum::<usize>()
    }

    /// Cuts the largest kept text messages (system or user, text only) to their start and
    /// end around a marker until `over` tokens are gone. Returns the indexes cut.
    fn truncate_to_fit(&self, order: &mut [Out], mut over: usize) -> Vec<usize> {
        let messages = self.input.conv.messages();
        let counter: &dyn TextCounter = &{ self.input.counter };
        let mut candidates: Vec<(usize, usize)> = order
            .iter()
            .enumerate()
            .filter_map(|(k, o)| match o {
                Out::Keep(i)
                    if matches!(messages[*i].role, Role::System | Role::User)
                        && messages[*i].parts.len() == 1
                        && matches!(messages[*i].parts[0], Part::Text(_)) =>
                {
                    Some((k, *i))
                }
                _ => None,
            })
            .collect();
        candidates.sort_by_key(|&(_, i)| std::cmp::Reverse(self.tokens[i]));
        let mut cut = Vec::new();
        for (k, i) in candidates {
            if over == 0 {
                break;
            }
            let Part::Text(text) = &messages[i].parts[0] else {
                continue;
            };
            let want = self.tokens[i].saturating_sub(over);
            // The message as it will go out: its content replaced, its name kept.
            let as_message = |t: &str| {
                count_message(
                    &Message {
                        role: messages[i].role,
                        parts: vec![Part::Text(t.to_owned())],
                        name: messages[i].name.clone(),
                    },
                    counter,
                )
            };
            let t = super::elide::fit(text, want, &as_message, &truncation);
            let n = as_message(&t);
            over = over.saturating_sub(self.tokens[i].saturating_sub(n));
            order[k] = Out::Truncated { index: i, text: t };
            cut.push(i);
        }
        cut
    }
}

/// The marker of a message cut to fit (`overflow: "truncate"`).
fn truncation(removed: usize) -> String {
    format!("\n[… truncated {removed} characters to fit the context window …]\n")
}

fn join_chunks(chunks: &[Chunk]) -> String {
    chunks
        .iter()
        .map(|c| c.text.as_str())
        .collect::<Vec<_>>()
        .join("\n\n")
}

fn push_text(out: &mut String, m: &Message) {
    for p in &m.parts {
        match p {
            Part::Text(t) | Part::Reasoning(t) | Part::ToolResult { text: t, .. } => out.push_str(t),
            Part::ToolCall { name, arguments, .. } => {
                out.push_str(name);
                out.push_str(arguments);
            }
            _ => {}
        }
        out.push('\n');
    }
}
