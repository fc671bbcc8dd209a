//! The one error type of the core. At the JavaScript boundary each variant becomes an
//! `Error` whose `code` is [`Error::code`].

/// Everything that can go wrong in ctxfold.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum Error {
    /// An encoding name ctxfold does not know.
    #[error("unknown encoding {name:?}: expected \"o200k_base\" or \"cl100k_base\"")]
    UnknownEncoding { name: String },

    /// The encoding is known but this build has no vocabulary for it (the lite build).
    #[error("the {encoding} vocabulary is not loaded: call loadVocabulary() with the {encoding}.ctxv file shipped in ctxfold/vocab, or use the default build, which embeds it")]
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
        }
    }

    /// Every code, in declaration order (the TypeScript union is checked against it).
    pub const CODES: [&'static str; 10] = [
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
    ];
}
