//! What makes two summarizer requests the same request, so that a summary made for one
//! (`prepareAhead`) answers the other: the core gives each request its key, and the face
//! only compares the keys it was given.

use crate::compact::Request;

/// The key of `request`: equal keys mean a summary made for one answers the other.
///
/// Every field of [`Request`] is named here, so a field added to it does not compile until
/// it is said whether it counts. What the summary is written from counts: the kind, the
/// instructions, the text and the output cap. Not counted: the deadline (how long to wait,
/// not what to write) and where the text came from (`part`, `covers`: the same text
/// summarized is the same summary, wherever its messages sit).
pub fn request_key(request: &Request) -> String {
    let Request {
        kind,
        system,
        prompt,
        max_tokens,
        timeout_ms: _,
        part: _,
        covers: _,
    } = request;
    // A JSON array is a canonical, unambiguous join (each string quoted and escaped).
    serde_json::json!([kind, max_tokens, system, prompt]).to_string()
}

#[cfg(test)]
mod tests {
    use super::request_key;
    use crate::compact::types::RequestKind;
    use crate::compact::Request;

    fn request() -> Request {
        Request {
            kind: RequestKind::Summarize,
            system: "Summarize.".into(),
            prompt: "user: hi".into(),
            max_tokens: 400,
            timeout_ms: 30_000,
            part: [0, 1],
            covers: vec![1, 2],
        }
    }

    #[test]
    fn the_same_request_has_the_same_key() {
        assert_eq!(request_key(&request()), request_key(&request()));
        // The deadline and where the text came from are not what the summary is made of.
        let elsewhere = Request {
            timeout_ms: 5,
            part: [1, 2],
            covers: vec![7, 8, 9],
            ..request()
        };
        assert_eq!(request_key(&request()), request_key(&elsewhere));
    }

    #[test]
    fn a_change_to_what_the_summary_is_made_of_changes_the_key() {
        let base = request_key(&request());
        let changed = [
            Request {
                kind: RequestKind::Fold,
                ..request()
            },
            Request {
                system: "Summarize briefly.".into(),
                ..request()
            },
            Request {
                prompt: "user: hi!".into(),
                ..request()
            },
            Request {
                max_tokens: 401,
                ..request()
            },
        ];
        for r in &changed {
            assert_ne!(request_key(r), base, "{r:?}");
        }
        // No two fields run into each other: text moved from one to the other is another key.
        let moved = Request {
            system: "Summarize.user: hi".into(),
            prompt: String::new(),
            ..request()
        };
        assert_ne!(request_key(&moved), base);
    }
}
