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

    /// An option that does not exist: `known` is every option the call takes (a
    /// `TypeError` with code `INVALID_ARGUMENT`, as any wrong argument).
    #[error("invalid argument {argument}: expected {}", no_such_option(known))]
    UnknownOption { argument: String, known: Vec<String> },

    /// An argument of the right type but out of range.
    #[error("{argument} out of range: {reason}")]
    OutOfRange { argument: String, reason: String },

    /// Even the head and the newest messages (with the summaries a compaction adds) do not
    /// fit the input budget.
    #[error("context overflow: the head and the newest messages need {needed} tokens and the summaries {summaries}, the input budget is {available} (window minus reserved output); {hint}")]
    ContextOverflow {
        /// The head, the messages that are never evicted (the newest user message, the
        /// step the model is about to read) and the reply's priming.
        needed: usize,
        /// What the summaries take (a compaction's reserved slot, or the earlier ones).
        summaries: usize,
        available: usize,
        hint: &'static str,
    },

    /// A provider refused the input as too long for its context window again, after ctxfold
    /// planned it once more below what the first refusal said (its count corrected the
    /// estimate, its limit the budget): one retry, then this.
    #[error("context overflow: the provider refused the input again after one retry planned below its limit ({}; ctxfold estimated {estimate} tokens)", provider_said(*.tokens, *.limit))]
    Refused {
        /// The input tokens the provider counted, when its refusal said.
        tokens: Option<u64>,
        /// The provider's limit, when its refusal said.
        limit: Option<u64>,
        /// ctxfold's estimate of the refused input, in the provider's tokens as the
        /// correction then stood.
        estimate: usize,
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

    /// A store refused a write: the conversation's stored version is not the one the write
    /// expected (another tab or Worker isolate wrote first). `attempts` is how many times the
    /// `Compactor` loaded and tried again before giving up (0: the store's own error).
    #[error("stale write to conversation {id:?}: the write expected version {expected}, the store holds {}{}", found_version(*.found), attempts_suffix(*.attempts))]
    StaleWrite {
        id: String,
        expected: u32,
        found: Option<u32>,
        attempts: u32,
    },

    /// A store's method failed (its error is the `cause`) or returned something that is not
    /// what the store contract says.
    #[error("store.{operation}({}) failed: {reason}", argument(id))]
    Store {
        operation: StoreOperation,
        id: String,
        reason: String,
    },

    /// The browser refused a store write for lack of space (IndexedDB's `QuotaExceededError`
    /// is the JS `cause`); the transaction was rolled back, so nothing was written.
    #[error(
        "store.{operation}({}) failed: the storage quota is exceeded ({reason}); nothing was written",
        argument(id)
    )]
    QuotaExceeded {
        operation: StoreOperation,
        id: String,
        reason: String,
    },

    /// A call that needs a stored conversation (`compact`, `export`) named none.
    #[error("no conversation {id:?} in the store")]
    UnknownConversation { id: String },

    /// A `Compactor` call answered at a step it is not at (its driver stepped it out of
    /// order): `got` is the answer given, `expected` the step the call is at.
    #[error("a Compactor call at its {expected} step was answered with {got}")]
    CallOutOfOrder {
        expected: &'static str,
        got: &'static str,
    },

    /// `import` of a conversation whose id the store already holds.
    #[error(
        "conversation {id:?} is already in the store: delete it first, or import with {{ overwrite: true }}"
    )]
    ConversationExists { id: String },

    /// A call that needs a context window named a model whose window ctxfold cannot know,
    /// and no `contextWindow`: an id its table does not hold (a typo, most often), or one a
    /// local server serves (`llama3.1:8b`), whose window is the server's setting.
    #[error("{}", unknown_model(model, closest, *served_by))]
    UnknownModel {
        /// The id as given.
        model: String,
        /// The known ids nearest to it (at most three), for a typo.
        closest: Vec<String>,
        /// For a model a local server serves: why its window is the server's.
        served_by: Option<&'static str>,
    },
}

/// A store's method, as a store error names it (`store.write("c") failed: ...`): the
/// `CompactorStore` interface's, and `open` (an `IndexedDBStore` opening its database).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StoreOperation {
    /// Opening the store (`IndexedDBStore`'s database).
    Open,
    /// `load(id)`: the meta.
    Load,
    /// `messages(id, from)`: the history.
    Messages,
    /// `write(id, expect, batch)`.
    Write,
    /// `summaries(id)`.
    Summaries,
    /// `records(id)`.
    Records,
    /// `list()`.
    List,
    /// `delete(id)`.
    Delete,
}

impl StoreOperation {
    /// The method's name (`"write"`).
    pub fn as_str(self) -> &'static str {
        match self {
            StoreOperation::Open => "open",
            StoreOperation::Load => "load",
            StoreOperation::Messages => "messages",
            StoreOperation::Write => "write",
            StoreOperation::Summaries => "summaries",
            StoreOperation::Records => "records",
            StoreOperation::List => "list",
            StoreOperation::Delete => "delete",
        }
    }
}

impl std::fmt::Display for StoreOperation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for StoreOperation {
    type Err = Error;

    /// A method's name as JavaScript passes it; any other is an `INTERNAL` error (only
    /// ctxfold's own JavaScript names operations).
    fn from_str(name: &str) -> Result<Self, Error> {
        serde_json::from_value(serde_json::Value::String(name.to_owned())).map_err(|_| Error::Internal {
            reason: format!("unknown store operation {name:?}"),
        })
    }
}
/// Declares [`Code`]: each code's string written once, with the doc that the TypeScript
/// union carries.
macro_rules! codes {
    ($( #[doc = $doc:literal] $variant:ident = $code:literal, )*) => {
        /// The stable code of every error ctxfold throws: what programs branch on.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Code {
            $( #[doc = $doc] $variant, )*
        }

        impl Code {
            /// Every code, in declaration order.
            pub const ALL: &'static [Code] = &[$(Code::$variant),*];

            /// The code as JavaScript sees it (`err.code`).
            pub fn as_str(self) -> &'static str {
                match self { $(Code::$variant => $code,)* }
            }

            /// What the code means, in a line (the TypeScript union's doc comments: no `;`, so
            /// the union reads as one statement to simple parsers).
            pub fn doc(self) -> &'static str {
                match self { $(Code::$variant => $doc.trim(),)* }
            }
        }
    };
}

codes! {
    /// An encoding other than `o200k_base` / `cl100k_base`.
    UnknownEncoding = "UNKNOWN_ENCODING",
    /// The lite build counting before `loadVocabulary` (for a model: unless `allowEstimate: true`).
    VocabularyNotLoaded = "VOCABULARY_NOT_LOADED",
    /// Vocabulary bytes that are not the `.ctxv` file ctxfold ships for that encoding.
    InvalidVocabulary = "INVALID_VOCABULARY",
    /// A `format` other than `openai`, `openai-responses`, `anthropic`, `ai-sdk`.
    UnknownFormat = "UNKNOWN_FORMAT",
    /// A malformed message, with its path (`messages[12].tool_call_id: missing`).
    InvalidMessage = "INVALID_MESSAGE",
    /// An argument of the wrong type, an unknown option key, or messages that cannot be read (a `TypeError`).
    InvalidArgument = "INVALID_ARGUMENT",
    /// An option out of range, `NaN` and `Infinity` included (a `RangeError`).
    OutOfRange = "OUT_OF_RANGE",
    /// The head and the newest user message alone exceed the input budget, or a provider refused the input as too long again after one retry (`providerTokens`, `providerLimit`, `estimate`).
    ContextOverflow = "CONTEXT_OVERFLOW",
    /// The summarizer failed where the options say to throw (`fallback: "error"`, a manual compaction), with its error as `cause`.
    SummarizerFailed = "SUMMARIZER_FAILED",
    /// `options.state` that is not a ctxfold state.
    InvalidState = "INVALID_STATE",
    /// A vocabulary source that cannot be read or fetched, with the original error as `cause`.
    VocabularyUnavailable = "VOCABULARY_UNAVAILABLE",
    /// A built-in summarizer's HTTP request failed (an error status after retries, no answer, or a reply that is not the API's), with `status` and `excerpt` (the key redacted).
    HttpError = "HTTP_ERROR",
    /// A bug in ctxfold: the WebAssembly module trapped and was made afresh, so the next call works.
    Internal = "INTERNAL",
    /// The module trapped and no fresh instance could be made: every later call fails with this.
    ModulePoisoned = "MODULE_POISONED",
    /// A store refused a write because another writer (a tab, a Worker isolate) changed the conversation first, and the `Compactor` ran out of attempts (or a store reports it).
    StaleWrite = "STALE_WRITE",
    /// A store method rejected (its error is the `cause`) or returned data that breaks the store contract.
    StoreError = "STORE_ERROR",
    /// The browser's storage quota refused a store write (`IndexedDBStore`), with its `QuotaExceededError` as `cause`. Nothing was written.
    QuotaExceeded = "QUOTA_EXCEEDED",
    /// `compact()` or `export()` of a conversation the store does not hold.
    UnknownConversation = "UNKNOWN_CONVERSATION",
    /// `import()` of a conversation the store already holds (without `overwrite: true`).
    ConversationExists = "CONVERSATION_EXISTS",
    /// A model whose context window ctxfold cannot know (not in its table, or served by a local server such as Ollama) and no `contextWindow`: the message names the closest known ids.
    UnknownModel = "UNKNOWN_MODEL",
}

impl Error {
    /// The variant's stable code.
    pub fn kind(&self) -> Code {
        match self {
            Error::UnknownEncoding { .. } => Code::UnknownEncoding,
            Error::VocabularyNotLoaded { .. } => Code::VocabularyNotLoaded,
            Error::InvalidVocabulary { .. } => Code::InvalidVocabulary,
            Error::UnknownFormat { .. } => Code::UnknownFormat,
            Error::InvalidMessage { .. } => Code::InvalidMessage,
            Error::InvalidArgument { .. } | Error::CallOutOfOrder { .. } | Error::UnknownOption { .. } => {
                Code::InvalidArgument
            }
            Error::OutOfRange { .. } => Code::OutOfRange,
            Error::ContextOverflow { .. } | Error::Refused { .. } => Code::ContextOverflow,
            Error::SummarizerFailed { .. } => Code::SummarizerFailed,
            Error::InvalidState { .. } => Code::InvalidState,
            Error::VocabularyUnavailable { .. } => Code::VocabularyUnavailable,
            Error::Http { .. } => Code::HttpError,
            Error::Internal { .. } => Code::Internal,
            Error::ModulePoisoned { .. } => Code::ModulePoisoned,
            Error::StaleWrite { .. } => Code::StaleWrite,
            Error::Store { .. } => Code::StoreError,
            Error::QuotaExceeded { .. } => Code::QuotaExceeded,
            Error::UnknownConversation { .. } => Code::UnknownConversation,
            Error::ConversationExists { .. } => Code::ConversationExists,
            Error::UnknownModel { .. } => Code::UnknownModel,
        }
    }

    /// The argument an argument error is about (`options.toolPolicies.bash`), for the JS
    /// error's `argument`.
    pub fn argument(&self) -> Option<&str> {
        match self {
            Error::InvalidArgument { argument, .. }
            | Error::UnknownOption { argument, .. }
            | Error::OutOfRange { argument, .. } => Some(argument),
            _ => None,
        }
    }

    /// An unknown option's error with `known` made the caller's: without `drop`, with `add`
    /// (sorted, each once). Any other error as it was.
    pub fn with_known(self, drop: &[&str], add: &[&str]) -> Error {
        match self {
            Error::UnknownOption { argument, known } => {
                let mut known: Vec<String> = known
                    .into_iter()
                    .filter(|k| !drop.contains(&k.as_str()))
                    .chain(add.iter().map(|k| (*k).to_owned()))
                    .collect();
                known.sort();
                known.dedup();
                Error::UnknownOption { argument, known }
            }
            other => other,
        }
    }

    /// A stable code per variant, for programs to branch on.
    pub fn code(&self) -> &'static str {
        self.kind().as_str()
    }
}

/// An [`Error::UnknownModel`]'s message: which model, why its window is not known, the
/// closest known ids, and what fixes it.
fn unknown_model(model: &str, closest: &[String], served_by: Option<&str>) -> String {
    let fix = "pass contextWindow (the window in tokens), or registerModel() the id with its window";
    if let Some(why) = served_by {
        return format!("model {model:?} is served by {why}, not the model's own window: pass contextWindow (the window the server serves, in tokens), or registerModel() the id with it");
    }
    let hint = match closest {
        [] => String::new(),
        [one] => format!(" (did you mean {one:?}?)"),
        [rest @ .., last] => {
            let rest: Vec<String> = rest.iter().map(|c| format!("{c:?}")).collect();
            format!(" (did you mean {} or {last:?}?)", rest.join(", "))
        }
    };
    format!("unknown model {model:?}: ctxfold does not know its context window{hint}; {fix}")
}

/// What a provider's refusal said, in words.
fn provider_said(tokens: Option<u64>, limit: Option<u64>) -> String {
    match (tokens, limit) {
        (Some(n), Some(m)) => format!("it counted {n} tokens against a limit of {m}"),
        (Some(n), None) => format!("it counted {n} tokens"),
        (None, Some(m)) => format!("its limit is {m} tokens"),
        (None, None) => "it gave no counts".into(),
    }
}

/// What an unknown option is told: the options there are.
fn no_such_option(known: &[String]) -> String {
    match known {
        [] => "no such option (this call takes none)".into(),
        _ => format!("no such option (known: {})", known.join(", ")),
    }
}

/// A stored version, or its absence, in words.
fn found_version(found: Option<u32>) -> String {
    match found {
        Some(v) => format!("version {v}"),
        None => "no conversation".into(),
    }
}

/// `; gave up after N attempts` when the `Compactor` retried.
fn attempts_suffix(attempts: u32) -> String {
    match attempts {
        0 => String::new(),
        n => format!(" (gave up after {n} attempts)"),
    }
}

/// `; body: ...` after an HTTP error's reason, when there is a body to show.
fn body_suffix(excerpt: &str) -> String {
    if excerpt.is_empty() {
        String::new()
    } else {
        format!("; body: {excerpt}")
    }
}

/// A store call's argument as an error shows it: the conversation id quoted, nothing for a
/// call on no conversation (`store.open()`, `store.list()`).
fn argument(id: &str) -> String {
    match id {
        "" => String::new(),
        _ => format!("{id:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::{Code, StoreOperation};

    #[test]
    fn store_operations_read_by_their_names_only() {
        for op in [
            StoreOperation::Open,
            StoreOperation::Load,
            StoreOperation::Messages,
            StoreOperation::Write,
            StoreOperation::Summaries,
            StoreOperation::Records,
            StoreOperation::List,
            StoreOperation::Delete,
        ] {
            assert_eq!(op.as_str().parse::<StoreOperation>(), Ok(op));
            assert_eq!(serde_json::to_value(op).unwrap(), op.as_str());
        }
        // Once any unknown name was reported as "delete".
        let e = "call".parse::<StoreOperation>().unwrap_err();
        assert_eq!(e.kind(), Code::Internal);
        assert!(e.to_string().contains("unknown store operation \"call\""), "{e}");
    }

    /// The codes the JS side of the package raises (in `pkg-template/`) are checked
    /// against [`Code`] (the TypeScript union is generated from it): a code added, renamed
    /// or removed in one place and not the other fails here.
    #[test]
    fn code_docs_hold_no_semicolon() {
        for code in Code::ALL {
            assert!(!code.doc().contains(';'), "{code:?}: {}", code.doc());
        }
    }

    #[test]
    fn every_code_is_declared_once_and_used_as_declared() {
        let root = env!("CARGO_MANIFEST_DIR");
        let codes: Vec<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
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
                for marker in ["code: \"", "code = \"", "CODE(\"", "ctxfoldError(\""] {
                    for (at, _) in text.match_indices(marker) {
                        let rest = &text[at + marker.len()..];
                        let code = &rest[..rest.find('"').unwrap()];
                        assert!(
                            codes.contains(&code),
                            "{}: code {code:?} is not a declared Code",
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
