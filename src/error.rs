//! The one error type of the core. At the JavaScript boundary each variant becomes an
//! `Error` whose `code` is [`Error::code`].

/// Everything that can go wrong in ctxfold.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum Error {
    /// An encoding name ctxfold does not know.
    #[error("unknown encoding {name:?}: expected \"o200k_base\" or \"cl100k_base\"")]
    UnknownEncoding { name: String },

    /// The encoding is known but this build has no vocabulary for it (the lite build).
    #[error("the {encoding} vocabulary is not loaded: call loadVocabulary() with the {encoding}.ctxv file shipped in ctxfold/vocab, use the default build, which embeds it, or pass allowEstimate: true to count with the model's calibrated estimate")]
    VocabularyNotLoaded { encoding: &'static str },

    /// Vocabulary bytes that are not a valid `.ctxv` file.
    #[error("invalid vocabulary: {reason}")]
    InvalidVocabulary { reason: String },

    /// A message format name ctxfold does not know.
    #[error("unknown message format {name:?}: expected one of {expected}")]
    UnknownFormat { name: String, expected: &'static str },

    /// A message that does not have the shape its format requires.
    #[error("invalid message at {path}: {reason}")]
    InvalidMessage { path: String, reason: String },

    /// An argument of the wrong type or shape.
    #[error("invalid argument {argument}: expected {expected}")]
    InvalidArgument { argument: String, expected: String },

    /// An argument of the right type but out of range.
    #[error("{argument} out of range: {reason}")]
    OutOfRange { argument: String, reason: String },

    /// Even the head and the newest user message do not fit the input budget.
    #[error("context overflow: the head and the newest user message need {needed} tokens, the input budget is {available} (window minus reserved output); {hint}")]
    ContextOverflow {
        needed: usize,
        available: usize,
        hint: &'static str,
    },

    /// The summarizer failed and the options say to throw (`fallback: "error"`, or a manual compaction).
    #[error("summarizer failed: {reason}")]
    SummarizerFailed { reason: String },

    /// The `state` passed in is not a ctxfold state.
    #[error("invalid state at {path}: {reason}")]
    InvalidState { path: String, reason: String },

    /// A vocabulary file could not be read or fetched (a missing file, a refused
    /// connection, an HTTP error status).
    #[error("could not load the vocabulary from {source_name}: {reason}")]
    VocabularyUnavailable { source_name: String, reason: String },

    /// A built-in summarizer's HTTP request failed: an error status (after any retries), no
    /// response at all, or a reply that is not the API's. `url` and `excerpt` have the API key
    /// and credential headers redacted; `excerpt` is the start of the body.
    #[error("{api} request to {url} failed: {reason}{}", body_suffix(.excerpt))]
    Http {
        api: &'static str,
        url: String,
        status: Option<u16>,
        reason: String,
        excerpt: String,
    },

    /// A bug in ctxfold: the WebAssembly module trapped (a panic, or running out of memory
    /// or stack). The JS entry raises it; the module is restarted, so the next call works.
    #[error("internal error: {reason}; the module was restarted and the next call starts afresh (please report this)")]
    Internal { reason: String },

    /// The module trapped and could not be restarted: every later call fails with this.
    #[error(
        "the module trapped and could not be restarted ({reason}); reload the page or restart the process"
    )]
    ModulePoisoned { reason: String },
}

impl Error {
    /// A stable code per variant, for programs to branch on.
    pub fn code(&self) -> &'static str {
        match self {
            Error::UnknownEncoding { .. } => "UNKNOWN_ENCODING",
            Error::VocabularyNotLoaded { .. } => "VOCABULARY_NOT_LOADED",
            Error::InvalidVocabulary { .. } => "INVALID_VOCABULARY",
            Error::UnknownFormat { .. } => "UNKNOWN_FORMAT",
            Error::InvalidMessage { .. } => "INVALID_MESSAGE",
            Error::InvalidArgument { .. } => "INVALID_ARGUMENT",
            Error::OutOfRange { .. } => "OUT_OF_RANGE",
            Error::ContextOverflow { .. } => "CONTEXT_OVERFLOW",
            Error::SummarizerFailed { .. } => "SUMMARIZER_FAILED",
            Error::InvalidState { .. } => "INVALID_STATE",
            Error::VocabularyUnavailable { .. } => "VOCABULARY_UNAVAILABLE",
            Error::Http { .. } => "HTTP_ERROR",
            Error::Internal { .. } => "INTERNAL",
            Error::ModulePoisoned { .. } => "MODULE_POISONED",
        }
    }

    /// Every code, in declaration order (the TypeScript union is checked against it).
    pub const CODES: [&'static str; 14] = [
        "UNKNOWN_ENCODING",
        "VOCABULARY_NOT_LOADED",
        "INVALID_VOCABULARY",
        "UNKNOWN_FORMAT",
        "INVALID_MESSAGE",
        "INVALID_ARGUMENT",
        "OUT_OF_RANGE",
        "CONTEXT_OVERFLOW",
        "SUMMARIZER_FAILED",
        "INVALID_STATE",
        "VOCABULARY_UNAVAILABLE",
        "HTTP_ERROR",
        "INTERNAL",
        "MODULE_POISONED",
    ];
}

/// `; body: ...` after an HTTP error's reason, when there is a body to show.
fn body_suffix(excerpt: &str) -> String {
    if excerpt.is_empty() {
        String::new()
    } else {
        format!("; body: {excerpt}")
    }
}

#[cfg(test)]
mod tests {
    use super::Error;

    /// The TypeScript union (in `src/wasm/error.rs`) and the codes the JS side of the
    /// package raises (in `pkg-template/`) are checked against [`Error::CODES`]: a code
    /// added, renamed or removed in one place and not the other fails here.
    #[test]
    fn every_code_is_declared_once_and_used_as_declared() {
        let root = env!("CARGO_MANIFEST_DIR");
        let ts = std::fs::read_to_string(format!("{root}/src/wasm/error.rs")).unwrap();
        let union = &ts[ts.find("export type CtxfoldErrorCode =").unwrap()..];
        let union = &union[..union.find(';').unwrap()];
        let declared: Vec<&str> = union.split('"').skip(1).step_by(2).collect();
        assert_eq!(
            declared,
            Error::CODES,
            "the TypeScript union differs from Error::CODES"
        );

        // Codes written in the package's JavaScript: `code: "X"`, `code = "X"`, `"X"` in a
        // code constant.
        let mut stack = vec![std::path::PathBuf::from(format!("{root}/pkg-template"))];
        let mut seen = 0;
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                if !path.extension().is_some_and(|e| e == "js" || e == "mjs")
                    || path.ends_with("bin/ctxfold.mjs")
                {
                    continue;
                }
                let text = std::fs::read_to_string(&path).unwrap();
                for marker in ["code: \"", "code = \"", "CODE(\""] {
                    for (at, _) in text.match_indices(marker) {
                        let rest = &text[at + marker.len()..];
                        let code = &rest[..rest.find('"').unwrap()];
                        assert!(
                            Error::CODES.contains(&code),
                            "{}: code {code:?} is not in Error::CODES",
                            path.display()
                        );
                        seen += 1;
                    }
                }
            }
        }
        assert!(
            seen > 0,
            "no codes found in pkg-template: the check looks in the wrong place"
        );
    }
}
