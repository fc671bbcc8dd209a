//! The markup of tool output, taken off a line before it can be a fact: XML-ish wrapper
//! tags (`<returncode>0</returncode>`, `<output>`), terminal colour codes, the line numbers
//! of a code listing, headings. Shapes, not one harness's strings: any tag name, any of the
//! separators listing tools print after a line number.

/// The length of the XML-ish tag `text` starts with (`<output>`, `</returncode>`,
/// `<file path="a.py">`, `<br/>`), if it starts with one.
fn tag_at_start(text: &str) -> Option<usize> {
    let rest = text.strip_prefix('<')?;
    let rest = rest.strip_prefix('/').unwrap_or(rest);
    let name = rest
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':'))
        .count();
    if name == 0 || !rest.as_bytes()[0].is_ascii_alphabetic() && rest.as_bytes()[0] != b'_' {
        return None;
    }
    let after = &rest[name..];
    // Attributes, then `>` or `/>`; no tag inside.
    let close = after.find('>')?;
    let attrs = &after[..close];
    if attrs.contains('<') || !(attrs.is_empty() || attrs.starts_with([' ', '/'])) {
        return None;
    }
    Some(text.len() - after.len() + close + 1)
}

/// The start of the XML-ish tag `text` ends with, if it ends with one.
fn tag_at_end(text: &str) -> Option<usize> {
    let open = text.rfind('<')?;
    (tag_at_start(&text[open..]) == Some(text.len() - open)).then_some(open)
}

/// Whether a line is a line of a numbered code listing: a line number, then a tab, `|`,
/// `│`, `→` or `:` (not a time's), or two spaces after a right-aligned number: what `cat -n`,
/// `nl`, `grep -n`, compilers' snippets and editor views print (`    12\tdef foo():`,
/// `  12 | def foo():`, `12:def foo():`, `    12→def foo():`).
fn is_listing_line(line: &str) -> bool {
    let body = line.trim_start();
    let indented = body.len() < line.len();
    let digits = body.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 7 {
        return false;
    }
    let rest = &body[digits..];
    let spaced = rest.trim_start_matches(' ');
    if spaced.starts_with(['\t', '|', '│', '→']) {
        return true;
    }
    if let Some(after) = rest.strip_prefix(':') {
        return !after.starts_with(|c: char| c.is_ascii_digit());
    }
    indented && rest.starts_with("  ") && !spaced.is_empty()
}

/// A line of tool output as a fact could quote it: without the markup a tool wraps its
/// output in (XML-ish tags at the start or the end of the line, `<returncode>0</returncode>`,
/// `<output>`) and without terminal colour codes; `None` for a line of a numbered listing
/// ([`is_listing_line`]: code, whose identifiers the ledger keeps) or a line with no word
/// left.
pub(super) fn clean_line(line: &str) -> Option<String> {
    let plain: String;
    let line = if line.contains('\u{1b}') {
        plain = strip_ansi(line);
        plain.as_str()
    } else {
        line
    };
    // A numbered listing's line, or a heading or comment line (`## Setup`, `# step 2`): no
    // fact.
    if is_listing_line(line) || is_heading(line) {
        return None;
    }
    let mut t = line.trim();
    loop {
        let before = t.len();
        if let Some(n) = tag_at_start(t) {
            t = t[n..].trim_start();
        }
        if let Some(n) = tag_at_end(t) {
            t = t[..n].trim_end();
        }
        if t.len() == before {
            break;
        }
    }
    (t.chars().any(char::is_alphabetic) && !is_listing_line(t)).then(|| t.to_owned())
}

/// A Markdown heading or a shell comment: `#` to `######`, then a space.
fn is_heading(line: &str) -> bool {
    let t = line.trim_start();
    let hashes = t.bytes().take_while(|&b| b == b'#').count();
    (1..=6).contains(&hashes) && t[hashes..].starts_with(' ')
}

/// `text`'s lines as facts could quote them ([`clean_line`]), the others left out: a tool's
/// output may come as a user message (an agent harness's observation).
pub(super) fn clean_text(text: &str) -> String {
    text.lines().filter_map(clean_line).collect::<Vec<_>>().join("\n")
}

/// `text` without ANSI escape sequences (`\x1b[31m`).
fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        if chars.peek() == Some(&'[') {
            chars.next();
            // Parameters, then one final byte in `@`..`~`.
            for d in chars.by_ref() {
                if ('@'..='~').contains(&d) {
                    break;
                }
            }
        }
    }
    out
}
