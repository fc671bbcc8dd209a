//! Pruning old tool outputs, without a model call.
//!
//! A tool output larger than `toolOutputMaxBytes` becomes its start and its end around
//! `...truncated N bytes...`, or a one-line stub naming the tool, as the tool's policy
//! says. Identifiers only the removed part held (paths, errors, hashes, URLs, ...) are kept
//! in the marker (`...truncated N bytes, which mentioned: a, b...`), most mentioned first,
//! within a quarter of the byte limit; the ones that do not fit are reported. The result
//! depends only on the output, the tool and the options, so the same old message always
//! prunes to the same bytes: the prefix a provider caches stays byte-identical from one
//! request to the next. It is never longer than the limit, so pruning it again is a no-op.
//! The prune boundary moves only under pressure (the input past `pruneRatio` of the window).
//!
//! The newest step's outputs (what the model is about to read) are never pruned or evicted;
//! when the input does not fit they are cut in place to what room is left ([`cut_step`]).

use std::collections::HashMap;

use super::elide::{self, Share};
use super::haystack::Haystack;
use super::partition::Structure;
use super::types::PruneReport;
use crate::config::{Config, Preset, ToolPolicy};
use crate::count::{count_each, count_message, TextCounter};
use crate::ids::{self, Ledger};
use crate::messages::{Message, MessageRole, Part};
use crate::tokenizer::hash::FastMap;

/// Share of the kept bytes taken from the start (the rest from the end).
const HEAD_SHARE: Share = Share(3, 5);
/// The longest `\n...truncated N bytes, which mentioned: ...\n` can be, identifiers aside.
const MARKER_ROOM: usize = 64;

/// A pruned tool output.
#[derive(Clone, Debug, PartialEq)]
pub struct PrunedOutput {
    /// What replaces the output.
    pub text: String,
    /// Identifiers of the removed part that neither the kept part nor the marker holds.
    pub lost_ids: Vec<String>,
}

/// The pruned form of `output` under `policy`, or `None` to keep it.
pub fn prune_text(output: &str, tool: &str, policy: ToolPolicy, max_bytes: usize) -> Option<PrunedOutput> {
    if output.len() <= max_bytes {
        return None;
    }
    match policy {
        ToolPolicy::Keep | ToolPolicy::Summarize => None,
        ToolPolicy::Stub => {
            let base = format!("[{tool} output pruned: {} bytes", output.len());
            let (mentioned, lost_ids) = mentions(output, "", max_bytes.saturating_sub(base.len() + 24));
            let text = if mentioned.is_empty() {
                format!("{base}]")
            } else {
                format!("{base}, which mentioned: {mentioned}]")
            };
            Some(PrunedOutput { text, lost_ids })
        }
        ToolPolicy::Truncate => {
            // First without room for identifiers; if the removed part held some the kept
            // part does not, again with a quarter of the limit set aside for them.
            let plain = truncate(output, max_bytes.saturating_sub(MARKER_ROOM), 0)?;
            if plain.lost_ids.is_empty() {
                return Some(plain);
            }
            let room = max_bytes / 4;
            truncate(output, max_bytes.saturating_sub(MARKER_ROOM + room), room).or(Some(plain))
        }
    }
}

/// Keeps `keep` bytes of `output` (the start and the end, at line breaks when near) and
/// lists, within `room` bytes, the identifiers only the removed middle mentions.
fn truncate(output: &str, keep: usize, room: usize) -> Option<PrunedOutput> {
    let (head_end, tail_start) = elide::around_lines(output, keep, HEAD_SHARE);
    if tail_start <= head_end {
        return None;
    }
    let removed = tail_start - head_end;
    let (head, tail) = (&output[..head_end], &output[tail_start..]);
    let kept = format!("{head}\n{tail}");
    let (mentioned, lost_ids) = mentions(&output[head_end..tail_start], &kept, room);
    let sep = if head.ends_with('\n') { "" } else { "\n" };
    let marker = if mentioned.is_empty() {
        format!("...truncated {removed} bytes...")
    } else {
        format!("...truncated {removed} bytes, which mentioned: {mentioned}...")
    };
    Some(PrunedOutput {
        text: format!("{head}{sep}{marker}\n{tail}"),
        lost_ids,
    })
}

/// The identifiers of `removed` that `kept` does not mention, most mentioned first, joined
/// within `room` bytes; and the ones that did not fit.
fn mentions(removed: &str, kept: &str, room: usize) -> (String, Vec<String>) {
    let mut ledger = Ledger::new();
    ledger.extend(ids::extract(removed));
    let kept = Haystack::new(kept);
    let mut list = Haystack::default();
    let mut lost = Vec::new();
    for (id, _) in ledger.ranked() {
        if kept.mentions(&id.text) || list.mentions(&id.text) {
            continue;
        }
        let sep = if list.text().is_empty() { "" } else { ", " };
        if list.text().len() + sep.len() + id.text.len() <= room {
            list.push_str(sep);
            list.push_str(&id.text);
        } else {
            lost.push(id.text);
        }
    }
    (list.into_text(), lost)
}

/// What pruning does to a conversation this turn.
pub struct Applied {
    /// Each message's tokens as it goes out (pruned where pruned).
    pub tokens: Vec<usize>,
    /// Tool results replaced: message index -> (call id, new text).
    pub edits: HashMap<usize, Vec<(String, String)>>,
    /// Identifiers each pruned message lost.
    pub lost: HashMap<usize, Vec<String>>,
    /// What the report says of it.
    pub report: PruneReport,
}

/// The marker of a tool output cut to fit because the model is about to read it.
fn cut_marker(removed: usize) -> String {
    format!("\n[… {removed} characters of this output cut to fit the context window …]\n")
}

/// Cuts the tool outputs of a step (`step..end`: the newest step, the calls and results the
/// model is about to read, or one cut so before) in place until the step takes at most
/// `room` tokens: each keeps its start and its end (where an error usually is) around a
/// marker. The room left beside the calls and framing is shared evenly among the outputs (an
/// output smaller than its share keeps all of it, and the rest goes to the others), so of
/// parallel results none is cut to nothing while another keeps most of itself; what is still
/// over after that comes off the largest. They are never evicted (SPEC.md). The same step and
/// room cut to the same bytes, so a step cut once is cut alike on the turns after it
/// (`CompactState::step_cuts`). The report counts them with the pruned outputs (`pruned.messages`).
pub fn cut_step(
    messages: &[Message],
    (step, end): (usize, usize),
    room: usize,
    out: &mut Applied,
    counter: &dyn TextCounter,
) {
    let total: usize = out.tokens[step..end].iter().sum();
    if total <= room {
        return;
    }
    // The step as it stands (edits made before included), and its outputs: (message, part,
    // its text's tokens).
    let step_messages: Vec<Message> = (step..end).map(|i| current(messages, i, out)).collect();
    let outputs: Vec<(usize, usize, usize)> = (step..end)
        .flat_map(|i| {
            let m = &step_messages[i - step];
            m.parts.iter().enumerate().filter_map(move |(k, p)| match p {
                Part::ToolResult { text, .. } => Some((i, k, counter.count(text))),
                _ => None,
            })
        })
        .collect();
    let texts: usize = outputs.iter().map(|o| o.2).sum();
    let mut left = room.saturating_sub(total.saturating_sub(texts));
    let mut order: Vec<usize> = (0..outputs.len()).collect();
    order.sort_by_key(|&j| (outputs[j].2, j));
    let mut share = vec![0; outputs.len()];
    for (n, &j) in order.iter().enumerate() {
        share[j] = outputs[j].2.min(left / (outputs.len() - n));
        left -= share[j];
    }
    let mut cut: std::collections::BTreeMap<usize, (Message, Vec<(String, String)>)> = Default::default();
    for (j, &(i, k, size)) in outputs.iter().enumerate() {
        if share[j] < size {
            let (m, changed) = cut
                .entry(i)
                .or_insert_with(|| (step_messages[i - step].clone(), Vec::new()));
            let want = count_message(m, counter).saturating_sub(size - share[j]);
            changed.extend(cut_output(m, k, want, i, out, counter));
        }
    }
    for (i, (m, changed)) in cut {
        record_cut(i, &m, changed, out, counter);
    }
    // Rounding left it over: the largest outputs give up the rest.
    let mut over = out.tokens[step..end].iter().sum::<usize>().saturating_sub(room);
    let mut largest = outputs.clone();
    largest.sort_by_key(|&(i, k, size)| (std::cmp::Reverse(size), i, k));
    for (i, k, _) in largest {
        if over == 0 {
            break;
        }
        let mut m = current(messages, i, out);
        let want = out.tokens[i].saturating_sub(over);
        let changed: Vec<_> = cut_output(&mut m, k, want, i, out, counter).into_iter().collect();
        let before = out.tokens[i];
        record_cut(i, &m, changed, out, counter);
        over = over.saturating_sub(before.saturating_sub(out.tokens[i]));
    }
    out.report.messages.sort_unstable();
    out.report.messages.dedup();
}

/// Message `i` as the step's cut left it so far.
fn current(messages: &[Message], i: usize, out: &Applied) -> Message {
    let mut m = messages[i].clone();
    for (call_id, text) in out.edits.get(&i).into_iter().flatten() {
        for part in &mut m.parts {
            if let Part::ToolResult {
                call_id: c, text: t, ..
            } = part
            {
                if c == call_id {
                    *t = text.clone();
                }
            }
        }
    }
    m
}

/// Cuts output `k` of message `i` (`m`) so the message takes at most `want` tokens; the
/// edit, when it cut something. What the cut part held that the rest does not say is
/// reported lost.
fn cut_output(
    m: &mut Message,
    k: usize,
    want: usize,
    i: usize,
    out: &mut Applied,
    counter: &dyn TextCounter,
) -> Option<(String, String)> {
    let Part::ToolResult { call_id, text, .. } = m.parts[k].clone() else {
        return None;
    };
    let count = |t: &str| {
        let mut probe = m.clone();
        if let Part::ToolResult { text, .. } = &mut probe.parts[k] {
            *text = t.to_owned();
        }
        count_message(&probe, counter)
    };
    let fitted = elide::fit(&text, want, &count, &cut_marker);
    if fitted.len() >= text.len() {
        return None;
    }
    out.report.bytes_removed += text.len() - fitted.len();
    let (_, gone) = mentions(&text, &fitted, 0);
    if !gone.is_empty() {
        out.lost.entry(i).or_default().extend(gone);
    }
    if let Part::ToolResult { text, .. } = &mut m.parts[k] {
        *text = fitted.clone();
    }
    Some((call_id, fitted))
}

/// Records message `i`, cut to `m` by `changed`: its tokens, what was saved, its edits (a
/// later cut of an output replaces the earlier one).
fn record_cut(
    i: usize,
    m: &Message,
    changed: Vec<(String, String)>,
    out: &mut Applied,
    counter: &dyn TextCounter,
) {
    if changed.is_empty() {
        return;
    }
    let (before, now) = (out.tokens[i], count_message(m, counter));
    out.tokens[i] = now;
    out.report.tokens_saved += before.saturating_sub(now);
    out.report.messages.push(i);
    let edits = out.edits.entry(i).or_default();
    for (call_id, text) in changed {
        match edits.iter_mut().find(|(c, _)| *c == call_id) {
            Some(e) => e.1 = text,
            None => edits.push((call_id, text)),
        }
    }
}

/// Where the prune boundary goes and what it prunes.
pub struct Span<'a> {
    /// The conversation's messages.
    pub messages: &'a [Message],
    /// Their turns and cut points.
    pub structure: &'a Structure,
    /// Each message's tokens, unpruned.
    pub raw: &'a [usize],
    /// The first message sent verbatim (nothing before it is pruned or sent).
    pub boundary: usize,
    /// The prune boundary the previous turn left, if any.
    pub previous: Option<usize>,
    /// The model's context window.
    pub window: usize,
    /// The input's tokens before any pruning: the boundary moves only above the prune
    /// trigger (`pruneRatio` of the window).
    pub input_tokens: usize,
}

/// Prunes tool outputs before the prune boundary. The boundary moves up to the protected
/// recent turns only under pressure (the input past `pruneRatio` of the window) and when
/// enough tool output has piled up past it (`pruneThresholdTokens`),
/// so between moves the same messages prune to the same bytes and the prompt prefix a
/// provider caches stays byte-identical.
pub fn apply(span: &Span, config: &Config, counter: &dyn TextCounter) -> Applied {
    let Span {
        messages,
        raw,
        boundary,
        ..
    } = *span;
    let names = tool_names(messages);
    let protect = span
        .structure
        .turn_starts
        .iter()
        .copied()
        .filter(|&s| s >= boundary)
        .rev()
        .nth(config.buffer_turns.max(1) - 1)
        .unwrap_or(boundary);
    let mut prune_at = span.previous.map_or(boundary, |p| p.max(boundary));
    let prune_threshold = config.prune_threshold_tokens.unwrap_or(span.window / 20);
    let piled: usize = (prune_at..protect.max(prune_at))
        .filter(|&i| messages[i].role == MessageRole::Tool)
        .map(|i| raw[i])
        .sum();
    let pressure = span.input_tokens as f64 > config.prune_ratio * span.window as f64;
    let advanced = config.preset != Preset::Off && pressure && protect > prune_at && piled > prune_threshold;
    if advanced {
        prune_at = protect;
    }
    let mut out = Applied {
        tokens: raw.to_vec(),
        edits: HashMap::new(),
        lost: HashMap::new(),
        report: PruneReport {
            boundary: prune_at,
            advanced,
            ..PruneReport::default()
        },
    };
    for i in boundary..prune_at {
        let mut m = messages[i].clone();
        let mut changed = Vec::new();
        for part in &mut m.parts {
            if let Part::ToolResult { call_id, text, .. } = part {
                let tool = names.of(i, call_id);
                let policy = config.tool_policy(tool);
                if let Some(p) = prune_text(text, tool, policy, config.tool_output_max_bytes) {
                    out.report.bytes_removed += text.len() - p.text.len().min(text.len());
                    changed.push((call_id.clone(), p.text.clone()));
                    out.lost.entry(i).or_default().extend(p.lost_ids);
                    *text = p.text;
                }
            }
        }
        if !changed.is_empty() {
            out.tokens[i] = count_each(std::slice::from_ref(&m), counter)[0];
            out.report.tokens_saved += raw[i].saturating_sub(out.tokens[i]);
            out.report.messages.push(i);
            out.edits.insert(i, changed);
        }
    }
    out
}

/// Tool names by call id (borrowed: nothing is copied). An id may be used again once its
/// call is answered, so a result's tool is that of the latest call with its id before it.
pub struct ToolNames<'a>(FastMap<&'a str, Vec<(usize, &'a str)>>);

impl<'a> ToolNames<'a> {
    /// The name of the tool whose call `call_id` a result in message `at` answers
    /// (`"tool"` when no call before it has that id).
    pub fn of(&self, at: usize, call_id: &str) -> &'a str {
        self.0
            .get(call_id)
            .and_then(|calls| calls.iter().rev().find(|(i, _)| *i <= at))
            .map_or("tool", |(_, name)| name)
    }
}

/// The [`ToolNames`] of `messages`.
pub fn tool_names(messages: &[Message]) -> ToolNames<'_> {
    let mut names: FastMap<&str, Vec<(usize, &str)>> = FastMap::default();
    for (i, m) in messages.iter().enumerate() {
        for p in &m.parts {
            if let Part::ToolCall { id, name, .. } = p {
                names.entry(id.as_str()).or_default().push((i, name.as_str()));
            }
        }
    }
    ToolNames(names)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::Conversation;

    /// Old tool outputs are pruned only under pressure: the same history, with the same
    /// piled-up output, is left whole below `pruneRatio` of the window and pruned above it.
    #[test]
    fn pruning_waits_for_the_prune_trigger() {
        let mut items = vec![serde_json::json!({"role": "user", "content": "task"})];
        for k in 0..6 {
            items.push(serde_json::json!({"role": "assistant", "content": null, "tool_calls": [
                {"id": format!("c{k}"), "type": "function", "function": {"name": "bash", "arguments": "{}"}}]}));
            items.push(serde_json::json!({"role": "tool", "tool_call_id": format!("c{k}"), "content": "log line ok\n".repeat(800)}));
            items.push(serde_json::json!({"role": "user", "content": format!("next {k}")}));
        }
        let conv = Conversation::parse(&serde_json::Value::Array(items), None).unwrap();
        let messages = conv.messages();
        let structure = Structure::of(messages);
        let counter = crate::tokenizer::tokenizer(crate::tokenizer::Encoding::O200kBase).unwrap();
        let raw = count_each(messages, counter);
        let config = Config::preset(Preset::Default);
        let window = 100_000;
        let span = |input_tokens: usize| Span {
            messages,
            structure: &structure,
            raw: &raw,
            boundary: 0,
            previous: None,
            window,
            input_tokens,
        };
        let below = apply(&span(59_000), &config, counter);
        assert!(
            !below.report.advanced && below.report.messages.is_empty(),
            "{:?}",
            below.report
        );
        let above = apply(&span(61_000), &config, counter);
        assert!(
            above.report.advanced && !above.report.messages.is_empty(),
            "{:?}",
            above.report
        );
        // A boundary an earlier turn moved stays where it was, under the trigger too.
        let mut kept = span(1_000);
        kept.previous = Some(above.report.boundary);
        let again = apply(&kept, &config, counter);
        assert_eq!(again.report.messages, above.report.messages);
    }

    #[test]
    fn small_outputs_and_keep_policies_are_untouched() {
        assert_eq!(prune_text("short", "bash", ToolPolicy::Truncate, 100), None);
        let big = "x".repeat(1000);
        assert_eq!(prune_text(&big, "bash", ToolPolicy::Keep, 100), None);
        assert_eq!(prune_text(&big, "bash", ToolPolicy::Summarize, 100), None);
    }

    #[test]
    fn truncation_keeps_head_and_tail_and_says_how_much() {
        let out: String = (0..200).map(|i| format!("line {i}\n")).collect();
        let p = prune_text(&out, "bash", ToolPolicy::Truncate, 200).unwrap().text;
        assert!(p.starts_with("line 0\n"), "{p}");
        assert!(p.ends_with("line 199\n"), "{p}");
        let (head, rest) = p.split_once("...truncated ").unwrap();
        let (n, tail) = rest.split_once(" bytes...\n").unwrap();
        // Whole lines: the head ends and the tail starts at a line break.
        assert!(head.ends_with('\n'));
        assert_eq!(head.len() + n.parse::<usize>().unwrap() + tail.len(), out.len());
        assert!(p.len() <= 200);
        // Pruning the pruned text again is a no-op.
        assert_eq!(prune_text(&p, "bash", ToolPolicy::Truncate, 200), None);
        // Deterministic.
        assert_eq!(
            prune_text(&out, "bash", ToolPolicy::Truncate, 200).unwrap().text,
            p
        );
    }

    #[test]
    fn stubs_name_the_tool() {
        let p = prune_text(&"y".repeat(5000), "read_file", ToolPolicy::Stub, 100).unwrap();
        assert_eq!(p.text, "[read_file output pruned: 5000 bytes]");
    }

    #[test]
    fn multibyte_text_is_cut_at_characters() {
        let out = "é中🙂".repeat(500);
        let p = prune_text(&out, "t", ToolPolicy::Truncate, 101).unwrap();
        assert!(p.text.contains("...truncated"));
    }

    #[test]
    fn identifiers_of_the_removed_part_are_kept_in_the_marker() {
        let mut out: String = (0..100).map(|i| format!("line {i}\n")).collect();
        out.push_str("Traceback: /srv/app/models/user.py raised ValueError at 0xdeadbeef12\n");
        out.extend((100..200).map(|i| format!("line {i}\n")));
        let p = prune_text(&out, "bash", ToolPolicy::Truncate, 400).unwrap();
        assert!(p.text.contains("which mentioned: "), "{}", p.text);
        for id in ["/srv/app/models/user.py", "ValueError", "0xdeadbeef12"] {
            assert!(p.text.contains(id), "{id} in {}", p.text);
        }
        assert!(p.text.len() <= 400, "{}", p.text.len());
        assert!(p.lost_ids.is_empty());
        assert_eq!(
            prune_text(&p.text, "bash", ToolPolicy::Truncate, 400),
            None,
            "idempotent"
        );
        let stub = prune_text(&out, "bash", ToolPolicy::Stub, 400).unwrap();
        assert!(
            stub.text.starts_with("[bash output pruned: ") && stub.text.contains("ValueError"),
            "{}",
            stub.text
        );
        // No room: the identifiers are reported lost, never dropped silently.
        let tiny = prune_text(&out, "bash", ToolPolicy::Stub, 40).unwrap();
        assert!(tiny.lost_ids.contains(&"ValueError".to_owned()), "{tiny:?}");
    }
}
