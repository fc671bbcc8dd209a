//! What a summary's check does with a line that reads as an instruction to the model: the
//! sentence goes when the instruction is only quoted, the line when the line speaks it, and
//! the whole item (a list entry with the lines that continue it) when one of its later lines
//! does.

use super::{is_section_line, section_of};

/// `line` without what reads as an instruction to the model; what was removed. A section's
/// label stays. An instruction that is only quoted (a record of what some text said) costs
/// its sentence; one the line itself speaks costs the whole line, since the sentences around
/// it came from the same text. `None` kept: nothing of the line is left. `statement`: the
/// line is in a section of statements (see [`crate::compact::injection::is_instruction_in`]).
fn without_instructions(line: &str, statement: bool) -> (Option<String>, Vec<String>, bool) {
    let (label, content) = line.split_at(label_end(line));
    let mut kept = String::new();
    let mut removed = Vec::new();
    let mut start = 0;
    let mut spoken = false;
    let bytes = content.as_bytes();
    for i in 0..=bytes.len() {
        let end = i == bytes.len()
            || (i > 0 && matches!(bytes[i - 1], b'.' | b';' | b'!' | b'?') && bytes[i] == b' ');
        if end && i > start {
            let piece = &content[start..i];
            match crate::compact::injection::is_instruction_in(piece, statement) {
                true => {
                    spoken |= !crate::compact::injection::only_quoted(piece, statement);
                    removed.push(piece.trim().to_owned());
                }
                false => kept.push_str(piece),
            }
            start = i;
        }
    }
    // Flagged as a whole but in no one sentence, or an instruction the line speaks itself.
    spoken |= removed.is_empty();
    if spoken {
        removed = vec![content.trim().to_owned()];
        kept.clear();
    }
    let kept = kept.trim();
    let kept = match (label.is_empty(), kept.is_empty()) {
        (true, true) => None,
        (true, false) => Some(kept.to_owned()),
        (false, true) => Some(format!("{} None", label.trim_end())),
        (false, false) => Some(format!("{} {kept}", label.trim_end())),
    };
    (kept, removed, spoken)
}

/// Where a section's label line's content starts (0 for a line that is no label).
pub(super) fn label_end(line: &str) -> usize {
    match section_of(line) {
        Some(Ok(_)) => line.find([':', '：']).map_or(0, |i| {
            let after = &line[i..];
            i + after
                .char_indices()
                .skip(1)
                .find(|(_, c)| *c != '*')
                .map_or(after.len(), |(k, _)| k)
        }),
        _ => 0,
    }
}

/// The item being written: a list entry, a section's label line or a paragraph, with the
/// lines that continue it. When one of its lines speaks an instruction, the whole item goes
/// (its other lines are the same pasted text) and its label, if it has one, says "None".
pub(super) struct Item {
    /// Where the item's content starts in the summary's text.
    pub(super) start: usize,
    /// The item opens with a section's label.
    pub(super) label: bool,
    /// A line of the item spoke an instruction: its later lines go too.
    pub(super) tainted: bool,
}

impl Item {
    /// Adds `line` to `text` unless it or its item reads as instructions (then they go to
    /// `suspicious`). `opens`: the line starts an item (with its label's length).
    pub(super) fn add(
        &mut self,
        text: &mut String,
        line: &str,
        opens: Option<usize>,
        statement: bool,
        suspicious: &mut Vec<String>,
    ) {
        if let Some(label) = opens {
            let heading = label == 0 && is_section_line(line);
            *self = Item {
                start: match (heading, label) {
                    (true, _) => text.len() + 1 + line.len(),
                    (false, 0) => text.len(),
                    (false, _) => text.len() + 1 + line[..label].trim_end().len(),
                },
                label: label > 0,
                tainted: false,
            };
        } else if self.tainted {
            suspicious.push(line.trim().to_owned());
            return;
        }
        if !crate::compact::injection::is_instruction_in(&line[label_end(line)..], statement) {
            text.push('\n');
            text.push_str(line);
            return;
        }
        let (kept, removed, spoken) = without_instructions(line, statement);
        suspicious.extend(removed);
        self.tainted |= spoken;
        if spoken && opens.is_none() {
            // A later line of the item: what came before it goes too.
            let earlier = text.split_off(self.start.min(text.len()));
            suspicious.extend(
                earlier
                    .lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty())
                    .map(str::to_owned),
            );
            if self.label {
                text.push_str(" None");
            }
            return;
        }
        if let Some(k) = kept {
            text.push('\n');
            text.push_str(&k);
        }
    }
}
