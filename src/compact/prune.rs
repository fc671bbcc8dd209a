//! Pruning old tool outputs, without a model call.
//!
//! A tool output larger than `toolOutputMaxBytes` becomes its start and its end around
//! `...truncated N bytes...`, or a one-line stub naming the tool, as the tool's policy
//! says. The result depends only on the output, the tool and the options, so the same
//! old message always prunes to the same bytes: the prefix a provider caches stays
//! byte-identical from one request to the next.

use crate::config::ToolPolicy;

/// Share of the kept bytes taken from the start (the rest from the end).
const HEAD_SHARE: f64 = 0.6;
/// The longest `\n...truncated N bytes...\n` can be.
const MARKER_ROOM: usize = 48;

/// The pruned form of `output` under `policy`, or `None` to keep it.
pub fn prune_text(output: &str, tool: &str, policy: ToolPolicy, max_bytes: usize) -> Option<String> {
    if output.len() <= max_bytes {
        return None;
    }
    match policy {
        ToolPolicy::Keep | ToolPolicy::Summarize => None,
        ToolPolicy::Stub => Some(format!("[{tool} output pruned: {} bytes]", output.len())),
        ToolPolicy::Truncate => {
            // Room for the marker, so the result is within `max_bytes` and pruning it
            // again changes nothing.
            let keep = max_bytes.saturating_sub(MARKER_ROOM);
            let head_bytes = (keep as f64 * HEAD_SHARE) as usize;
            let tail_bytes = keep - head_bytes;
            let head_end = line_cut(output, floor_char(output, head_bytes), true);
            let tail_start = line_cut(output, ceil_char(output, output.len() - tail_bytes), false);
            if tail_start <= head_end {
                return None;
            }
            let removed = tail_start - head_end;
            let (head, tail) = (&output[..head_end], &output[tail_start..]);
            let sep = if head.ends_with('\n') { "" } else { "\n" };
            Some(format!("{head}{sep}...truncated {removed} bytes...\n{tail}"))
        }
    }
}

fn floor_char(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_char(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// Moves a cut to a line break if one is near (within a fifth of the kept part), so
/// pruned output keeps whole lines.
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

#[cfg(test)]
mod tests {
    use super::*;

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
        let p = prune_text(&out, "bash", ToolPolicy::Truncate, 200).unwrap();
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
        assert_eq!(prune_text(&out, "bash", ToolPolicy::Truncate, 200).unwrap(), p);
    }

    #[test]
    fn stubs_name_the_tool() {
        let p = prune_text(&"y".repeat(5000), "read_file", ToolPolicy::Stub, 100).unwrap();
        assert_eq!(p, "[read_file output pruned: 5000 bytes]");
    }

    #[test]
    fn multibyte_text_is_cut_at_characters() {
        let out = "é中🙂".repeat(500);
        let p = prune_text(&out, "t", ToolPolicy::Truncate, 101).unwrap();
        assert!(p.contains("...truncated"));
    }
}
