//! Keeping credentials out of errors: every text an error shows (the URL, the reason, the
//! excerpt of a body) goes through [`redact`] first, and a body is cut only after it is
//! redacted, so no part of a key survives at the cut.

/// What a secret becomes.
pub const REDACTED: &str = "[redacted]";

/// How much of a body an error shows, in characters.
pub const EXCERPT_CHARS: usize = 240;

/// `text` with every secret replaced by [`REDACTED`], as written and as it appears
/// JSON-escaped or percent-encoded (a server may echo it in either form). Longer secrets go
/// first, so one that contains another is replaced whole.
pub fn redact(text: &str, secrets: &[String]) -> String {
    let mut forms: Vec<String> = Vec::new();
    for s in secrets.iter().filter(|s| !s.is_empty()) {
        let json = serde_json::to_string(s).unwrap_or_default();
        let json = json.trim_matches('"').to_owned();
        for form in [s.clone(), json, percent_encoded(s)] {
            if !form.is_empty() && !forms.contains(&form) {
                forms.push(form);
            }
        }
    }
    let mut out = text.to_owned();
    // Longest first (picked by hand: a sort would cost the wasm 4 KB for a handful of forms).
    while let Some(i) = (0..forms.len()).max_by_key(|&i| forms[i].len()) {
        let form = forms.swap_remove(i);
        if !out.contains(form.as_str()) {
            continue;
        }
        out = match form.len() < SHORT {
            true => replace_words(&out, &form),
            false => out.replace(form.as_str(), REDACTED),
        };
    }
    out
}

/// A secret shorter than this (`"k"`, a placeholder such as `"ollama"`) is replaced only where
/// it stands as a word of its own: inside other words it would blank the error's text.
const SHORT: usize = 8;

/// `text` with each occurrence of `word` that no letter or digit touches replaced.
fn replace_words(text: &str, word: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(word) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + word.len()..].chars().next();
        let alone = !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric);
        out.push_str(&rest[..at]);
        out.push_str(if alone { REDACTED } else { word });
        rest = &rest[at + word.len()..];
    }
    out.push_str(rest);
    out
}

/// The start of a body for an error: redacted, whitespace runs made one space, at most
/// [`EXCERPT_CHARS`] characters (then `...`).
pub fn excerpt(body: &str, secrets: &[String]) -> String {
    let clean = redact(body, secrets);
    let mut out = String::new();
    let mut chars = 0;
    for word in clean.split_whitespace() {
        if chars > 0 {
            out.push(' ');
            chars += 1;
        }
        for c in word.chars() {
            if chars == EXCERPT_CHARS {
                out.push_str("...");
                return out;
            }
            out.push(c);
            chars += 1;
        }
    }
    out
}

/// `s` with every byte outside RFC 3986's unreserved set written `%XX`.
fn percent_encoded(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secrets(s: &[&str]) -> Vec<String> {
        s.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn every_form_of_a_secret_is_replaced() {
        let key = "sk-test/ab+c\"d";
        let text = format!(
            "raw {key}, json {}, url {}",
            serde_json::to_string(key).unwrap(),
            percent_encoded(key)
        );
        let out = redact(&text, &secrets(&[key]));
        assert!(!out.contains("sk-test"), "{out}");
        assert_eq!(out.matches(REDACTED).count(), 3, "{out}");
    }

    #[test]
    fn a_secret_that_contains_another_goes_whole() {
        let out = redact("Bearer abc and abc", &secrets(&["abc", "Bearer abc"]));
        assert_eq!(out, "[redacted] and [redacted]");
    }

    #[test]
    fn a_short_secret_is_replaced_only_as_a_word() {
        let out = redact("/junk/v1: key k rejected (bad key)", &secrets(&["k"]));
        assert_eq!(out, "/junk/v1: key [redacted] rejected (bad key)");
        let out = redact(
            "model \"ollama/llama3\" not found; is ollamad up? ollama",
            &secrets(&["ollama"]),
        );
        assert_eq!(
            out,
            "model \"[redacted]/llama3\" not found; is ollamad up? [redacted]"
        );
    }

    #[test]
    fn no_secrets_no_change() {
        assert_eq!(redact("hello", &[]), "hello");
        assert_eq!(redact("hello", &secrets(&[""])), "hello");
    }

    #[test]
    fn excerpts_collapse_whitespace_and_cut_after_redacting() {
        assert_eq!(
            excerpt("  {\n  \"error\":\t\"bad\"\n}\n", &[]),
            "{ \"error\": \"bad\" }"
        );
        let long = "x".repeat(1000);
        let e = excerpt(&long, &[]);
        assert_eq!(e.chars().count(), EXCERPT_CHARS + 3);
        assert!(e.ends_with("..."));
        // A key straddling the cut is redacted before cutting: no prefix of it remains.
        let key = "sk-0123456789abcdef";
        let body = format!("{}{key}", "y".repeat(EXCERPT_CHARS - 5));
        let e = excerpt(&body, &secrets(&[key]));
        assert!(!e.contains("sk-01"), "{e}");
        // Multibyte text is cut on character boundaries.
        let e = excerpt(&"é".repeat(500), &[]);
        assert_eq!(e.chars().count(), EXCERPT_CHARS + 3);
    }
}
