//! The text of a message the index reads, and the snippet is cut from: what it says, its
//! reasoning, each tool call's name and arguments, each tool result's text, the readable text
//! of a provider's compaction.

use crate::messages::{Message, Part};

/// `m`'s searchable text, its parts one a line.
pub fn message_text(m: &Message) -> String {
    let mut out = String::new();
    each_text(m, |s| {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(s);
    });
    out
}

/// Calls `f` with each piece of `m`'s searchable text, in order (what [`message_text`]
/// joins).
pub fn each_text<'a>(m: &'a Message, mut f: impl FnMut(&'a str)) {
    for part in &m.parts {
        match part {
            Part::Text(t) | Part::Reasoning(t) => f(t),
            Part::ToolCall { name, arguments, .. } => {
                f(name);
                f(arguments);
            }
            Part::ToolResult { text, .. } => f(text),
            // A provider's compaction: its readable text (Anthropic's), not its encrypted bytes.
            Part::Compaction { text, .. } if !text.is_empty() => f(text),
            Part::Compaction { .. } | Part::Opaque { .. } | Part::Media { .. } => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::MessageRole;

    #[test]
    fn reads_text_calls_and_results() {
        let m = Message {
            role: MessageRole::Assistant,
            parts: vec![
                Part::Text("run it".into()),
                Part::Opaque { bytes: 9 },
                Part::ToolCall {
                    id: "c1".into(),
                    name: "bash".into(),
                    arguments: "{\"cmd\":\"ls\"}".into(),
                },
            ],
            name: None,
        };
        assert_eq!(message_text(&m), "run it\nbash\n{\"cmd\":\"ls\"}");
    }
}
