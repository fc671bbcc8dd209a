//! The TypeScript declarations of everything that crosses into JavaScript, generated from
//! the Rust types (their serde names, their `///` docs) by `ts-rs`: options, results, the
//! state, the model registry's shapes and the error codes. The output is committed as
//! `src/wasm/types.generated.d.ts`, which the JS face puts in the package's `.d.ts`;
//! `tests/typescript.rs` fails when the two differ (and rewrites the file with
//! `CTXFOLD_BLESS=1`), so a field changed in Rust and not in TypeScript cannot ship.
//!
//! What only JavaScript has (functions, `AbortSignal`, the generic result of `compact`) is
//! written by hand in `.d.ts` files under `src/wasm/` (`face.d.ts` and the others beside their
//! modules), extending these types.

use ts_rs::{Config, TS};

use crate::compact::{state, types};
use crate::{count, error, estimate, messages, models, options, providers, recall, session, tokenizer};

const HEADER: &str = "// Generated from the Rust types by src/typescript.rs: do not edit. Regenerate with\n\
     // `CTXFOLD_BLESS=1 cargo test --test typescript`.\n";

/// Appends each type's declaration, with its doc, to `$out`.
macro_rules! emit {
    ($out:ident, $($t:ty),* $(,)?) => {{
        let cfg = Config::default();
        $(
            $out.push('\n');
            $out.push_str(&unlink(&<$t as TS>::docs().unwrap_or_default()));
            $out.push_str("export ");
            $out.push_str(&unlink(&format_decl(&<$t as TS>::decl(&cfg))));
            $out.push('\n');
        )*
    }};
}

/// The declarations the package ships, in a stable order, formatted one field a line.
pub fn declarations() -> String {
    let mut out = String::from(HEADER);
    out.push_str(&codes());
    emit!(
        out,
        tokenizer::Encoding,
        messages::MessageFormat,
        messages::MessageRole,
        options::CountOptions,
        options::CountMessagesOptions,
        count::MessageCount,
        count::ByRole,
        count::MessagesCountBreakdown,
        count::CountMethod,
        count::MessagesCount,
        models::Provider,
        models::MatchedBy,
        estimate::Family,
        estimate::ModelTokenizer,
        models::ModelInfo,
        models::ModelInfoResolved,
        crate::config::Preset,
        crate::config::Strategy,
        crate::config::Fallback,
        crate::config::SummaryRole,
        crate::config::ToolPolicy,
        crate::config::Overflow,
        options::CompactOptions,
        options::ManualCompactOptions,
        options::ImportOptions,
        options::SearchOptions,
        state::Trigger,
        state::ChunkTrigger,
        state::FallbackKind,
        state::FallbackUsed,
        state::SummaryChunk,
        state::StateMark,
        state::StepCut,
        state::CompactState,
        types::Budget,
        types::PlanTokens,
        types::PruneReport,
        types::CompactPlan,
        types::RequestKind,
        types::Request,
        types::ContextStatus,
        types::SummaryRoleUsed,
        types::Timings,
        types::CompactReport,
        types::CompactOutcome,
        providers::settings::MaxTokensField,
        providers::settings::SummarizerOptions,
    );
    compactor_declarations(&mut out);
    out
}

/// The `Compactor`'s declarations (the rest of [`declarations`], in its order).
fn compactor_declarations(out: &mut String) {
    emit!(
        out,
        session::guards::GuardOptions,
        session::events::CompactorEventName,
        session::events::CompactorEvent,
        session::events::CompactionStartEvent,
        session::events::CompactionEndEvent,
        session::events::CompactionFailedEvent,
        session::events::PrunedEvent,
        session::events::FallbackEvent,
        session::events::SuppressedEvent,
        session::events::BackoffEvent,
        session::events::BreakerOpenEvent,
        session::events::BreakerClosedEvent,
        session::prepare_ahead::PrepareAheadOptions,
        session::when_cold::CompactWhenColdOptions,
        session::options::CompactorOwnOptions,
        session::options::CompactorOptions,
        session::when_cold::ColdCacheNote,
        session::guards::GuardState,
        session::guards::RecentCompaction,
        session::guards::BackoffState,
        session::guards::BreakerState,
        session::guards::GuardKind,
        session::guards::Suppression,
        session::guards::BackoffNote,
        session::guards::BreakerChange,
        session::guards::BreakerNote,
        session::guards::GuardNotes,
        session::StoredMeta,
        session::UndoPoint,
        session::LastInput,
        session::UsageAnchor,
        crate::refusal::Correction,
        session::LastCompaction,
        session::StoredSummary,
        session::CompactionRecord,
        session::WriteBatch,
        session::ExportedConversation,
        session::views::HistoryEntry,
        session::InputEstimate,
        session::PrunedTokens,
        session::PrepareOutcome,
        session::CommitOutcome,
        session::UndoOutcome,
        session::ConversationStatus,
        crate::indexeddb::IndexedDBStoreOptions,
    );
    recall_declarations(out);
}

/// The history's search and the recall tool's: the hit; the option, the model's arguments,
/// the definitions' options, the result.
fn recall_declarations(out: &mut String) {
    emit!(
        out,
        session::search::SearchHit,
        options::RecallOptions,
        recall::tool::RecallArgs,
        recall::tool::RecallToolOptions,
        recall::tool::RecallToolFormat,
        recall::RecallMatch,
        recall::Recalled,
    );
}

/// The declarations of what crosses between the core and the package's own JavaScript only
/// (committed as `pkg-template/lib/core.generated.d.ts`, which `lib/types.d.ts` imports).
pub fn internal_declarations() -> String {
    let mut out = String::from(HEADER);
    emit!(out, session::options::CompactorSettings, crate::refusal::Refusal);
    out
}

/// The union of error codes, each with its doc.
fn codes() -> String {
    let mut out = String::from(
        "\n/** The stable code of every error ctxfold throws. */\nexport type CtxfoldErrorCode =\n",
    );
    for code in error::Code::ALL {
        out.push_str(&format!("  /** {} */\n  | \"{}\"\n", code.doc(), code.as_str()));
    }
    out.pop();
    out.push_str(";\n");
    out
}

/// Rustdoc links (``[`resolve`]``) as plain code (`` `resolve` ``).
fn unlink(doc: &str) -> String {
    doc.replace("[`", "`").replace("`]", "`")
}

/// `type X = A | B | C;`, longer than a line, as one alternative a line.
fn format_union(decl: &str) -> Option<String> {
    let eq = decl.find(" = ")?;
    let body = decl[eq + 3..].trim_end().strip_suffix(';')?;
    let alternatives = split_top_level(body, b'|');
    if alternatives.len() < 2 || decl.len() <= 100 || body.contains("/*") {
        return None;
    }
    let lines: Vec<String> = (alternatives.iter())
        .map(|a| format!("  | {}", a.trim()))
        .collect();
    Some(format!("{} =\n{};", &decl[..eq], lines.join("\n")))
}

/// `type X = { a: T, /** doc */ b?: U, };` as one field a line, two spaces in, each field's
/// doc above it. Anything else (a union, of objects too) is kept as it is.
fn format_decl(decl: &str) -> String {
    if let Some(union) = format_union(decl) {
        return union;
    }
    let Some(open) = decl.find("= {").map(|i| i + 2) else {
        return decl.to_owned();
    };
    let close = decl.rfind('}').unwrap_or(decl.len());
    if closing(decl, open) != Some(close) {
        return decl.to_owned();
    }
    let mut out = format!("{}{{\n", &decl[..open]);
    for field in split_top_level(&decl[open + 1..close], b',') {
        let field = field.trim();
        if field.is_empty() {
            continue;
        }
        for line in field.lines().map(str::trim).filter(|l| !l.is_empty()) {
            let line = if line.starts_with("/**") {
                format!("  {line}\n")
            } else if line.starts_with('*') {
                format!("   {line}\n")
            } else {
                format!("  {line};\n")
            };
            out.push_str(&line);
        }
    }
    out.push_str(&decl[close..]);
    out
}

/// Where the brace opened at `open` closes (strings and comments skipped).
fn closing(text: &str, open: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let (mut depth, mut i) = (0i32, open);
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i = text[i..].find("*/").map_or(bytes.len(), |k| i + k + 2);
                continue;
            }
            b'"' => {
                i = text[i + 1..].find('"').map_or(bytes.len(), |k| i + k + 2);
                continue;
            }
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Splits an object type's body at its top-level commas (not inside braces, brackets,
/// parentheses, angle brackets, strings or comments).
fn split_top_level(body: &str, separator: u8) -> Vec<&str> {
    let bytes = body.as_bytes();
    let (mut depth, mut start, mut i) = (0i32, 0, 0);
    let mut parts = Vec::new();
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i = body[i..].find("*/").map_or(bytes.len(), |k| i + k + 2);
                continue;
            }
            b'"' => {
                i = body[i + 1..].find('"').map_or(bytes.len(), |k| i + k + 2);
                continue;
            }
            b'{' | b'[' | b'(' | b'<' => depth += 1,
            b'}' | b']' | b')' | b'>' => depth -= 1,
            c if c == separator && depth == 0 => {
                parts.push(&body[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    parts.push(&body[start..]);
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_get_one_field_a_line() {
        let decl =
            "type X = { \n/**\n * A.\n */\na?: string, b: { [key in string]: Y }, c: [number, number], };";
        assert_eq!(
            format_decl(decl),
            "type X = {\n  /**\n   * A.\n   */\n  a?: string;\n  b: { [key in string]: Y };\n  c: [number, number];\n};"
        );
        assert_eq!(format_decl("type K = \"a\" | \"b\";"), "type K = \"a\" | \"b\";");
        let union = "type U = { \"kind\": \"a\", x: number, } | { \"kind\": \"b\", };";
        assert_eq!(format_decl(union), union);
        let long =
            "type L = { \"type\": \"start\" } & CompactionStartEvent | { \"type\": \"end\" } & CompactionEndEvent | \"other\";";
        assert_eq!(
            format_decl(long),
            "type L =\n  | { \"type\": \"start\" } & CompactionStartEvent\n  | { \"type\": \"end\" } & CompactionEndEvent\n  | \"other\";"
        );
    }
}
