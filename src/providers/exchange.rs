//! One summarizer call over HTTP, as a protocol the face drives: [`Exchange::next`] says
//! what to do (send the request, wait, or done), the face does it and reports back with
//! [`Exchange::received`] or [`Exchange::unreachable`]. Time and randomness come in as
//! arguments, so the whole retry schedule is tested natively.

use super::redact::{excerpt, redact};
use super::retry::{decide, requested_wait_ms, seconds, Decision, Failure};
use super::{anthropic_api, openai_api, HttpRequest, Prompt, Provider, Settings, Summary};
use crate::Error;

/// What the face is to do next.
#[derive(Debug, PartialEq)]
pub enum HttpStep<'a> {
    /// Send this request, then report its answer.
    Send(&'a HttpRequest),
    /// Wait this many milliseconds (ending early if the call is aborted), then ask again.
    Wait(u64),
    /// The summary.
    Done(Summary),
}

/// An HTTP answer, as the face read it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Received {
    /// The status.
    pub status: u16,
    /// The `retry-after-ms` header.
    pub retry_after_ms: Option<String>,
    /// The `retry-after` header.
    pub retry_after: Option<String>,
    /// The `x-should-retry` header.
    pub should_retry: Option<String>,
    /// The body.
    pub body: String,
}

enum Progress {
    /// The request is to be sent.
    Ready,
    /// Sent; its answer has not come back.
    Sent,
    /// An answer came back.
    Answered(Received),
    /// No answer: the connection failed.
    Unreachable(String),
    /// The call ended.
    Over,
}

/// One summarizer call: a request sent until it succeeds, fails for good, or runs out of
/// retries or time.
pub struct Exchange {
    settings: Settings,
    request: HttpRequest,
    /// The instructions, the text and the output cap, to build a shorter request from.
    prompt: (String, String, usize),
    /// A refusal as too long was answered with a shorter request: ctxfold's estimate of it.
    shortened: Option<usize>,
    deadline_ms: Option<f64>,
    attempts: u32,
    state: Progress,
    /// While a retry wait goes on: the answer it had (status, what, body) and the wait.
    waiting: Option<(Option<u16>, String, String, u64)>,
}

impl Exchange {
    /// A call for `prompt`, starting at `now_ms` (milliseconds since the epoch), which must
    /// end within `timeout_ms` if given (no retry waits past it).
    pub fn new(settings: Settings, prompt: &Prompt, now_ms: f64, timeout_ms: Option<f64>) -> Exchange {
        let request = HttpRequest {
            url: settings.url.clone(),
            headers: settings.headers.clone(),
            body: body(&settings, prompt),
        };
        Exchange {
            settings,
            request,
            prompt: (
                prompt.system.to_owned(),
                prompt.prompt.to_owned(),
                prompt.max_tokens,
            ),
            shortened: None,
            deadline_ms: timeout_ms.map(|t| now_ms + t),
            attempts: 0,
            state: Progress::Ready,
            waiting: None,
        }
    }

    /// Requests sent so far.
    pub fn attempts(&self) -> u32 {
        self.attempts
    }

    /// The API key and credential header values, which no error shows.
    pub fn secrets(&self) -> &[String] {
        &self.settings.secrets
    }

    /// What to do now. `Err` is the call's failure, as the caller should see it: the key and
    /// credentials redacted from every part.
    pub fn next(&mut self, now_ms: f64, random: f64) -> Result<HttpStep<'_>, Error> {
        match std::mem::replace(&mut self.state, Progress::Over) {
            Progress::Ready => {
                self.waiting = None;
                self.attempts += 1;
                self.state = Progress::Sent;
                Ok(HttpStep::Send(&self.request))
            }
            Progress::Answered(answer) if (200..300).contains(&answer.status) => {
                let parsed = match self.settings.provider {
                    Provider::OpenAI => openai_api::parse(&answer.body),
                    Provider::Anthropic => anthropic_api::parse(&answer.body),
                };
                parsed.map(HttpStep::Done).map_err(|why| {
                    self.failure(
                        Some(answer.status),
                        format!("HTTP {} with an unusable reply: {why}", answer.status),
                        &answer.body,
                        None,
                    )
                })
            }
            Progress::Answered(answer) => {
                if let Some(refusal) = crate::refusal::read(&serde_json::Value::String(answer.body.clone())) {
                    return self.refused(&refusal);
                }
                let failure = Failure {
                    status: Some(answer.status),
                    requested_wait_ms: requested_wait_ms(
                        answer.retry_after_ms.as_deref(),
                        answer.retry_after.as_deref(),
                        now_ms,
                    ),
                    should_retry: answer.should_retry.as_deref().and_then(|v| match v.trim() {
                        "true" => Some(true),
                        "false" => Some(false),
                        _ => None,
                    }),
                };
                let what = format!("HTTP {}", answer.status);
                self.retry_or_fail(&failure, what, &answer.body, now_ms, random)
            }
            Progress::Unreachable(reason) => {
                let what = format!("no response ({reason})");
                self.retry_or_fail(&Failure::default(), what, "", now_ms, random)
            }
            Progress::Sent | Progress::Over => Err(self.failure(
                None,
                "the call was driven out of order (a bug in ctxfold: please report it)".into(),
                "",
                None,
            )),
        }
    }

    /// The request was refused as too long for the provider's window: sent once more with
    /// its text cut to fit below the limit; a refusal of that one is `CONTEXT_OVERFLOW`.
    fn refused(&mut self, refusal: &crate::refusal::Refusal) -> Result<HttpStep<'_>, Error> {
        if let Some(estimate) = self.shortened {
            return Err(Error::Refused {
                tokens: refusal.tokens,
                limit: refusal.limit,
                estimate,
            });
        }
        let (system, text, max_tokens) = &self.prompt;
        let (short, estimate) = super::refused::shortened(refusal, text, *max_tokens);
        let prompt = Prompt {
            system,
            prompt: &short,
            max_tokens: *max_tokens,
        };
        self.request.body = body(&self.settings, &prompt);
        self.shortened = Some(estimate);
        self.attempts += 1;
        self.state = Progress::Sent;
        Ok(HttpStep::Send(&self.request))
    }

    /// The call was aborted during the retry wait [`Exchange::next`] asked for: it ends with
    /// the answer it had (`None` when no wait was under way).
    pub fn abandoned(&mut self) -> Option<Error> {
        let (status, what, body, after_ms) = self.waiting.take()?;
        self.state = Progress::Over;
        let why = format!(
            "aborted during the {} wait before the next attempt",
            seconds(after_ms)
        );
        Some(self.failure(status, what, &body, Some(why)))
    }

    /// The answer to the request last sent.
    pub fn received(&mut self, answer: Received) {
        if matches!(self.state, Progress::Sent) {
            self.state = Progress::Answered(answer);
        }
    }

    /// The request last sent got no answer (`reason`: the fetch error's message).
    pub fn unreachable(&mut self, reason: &str) {
        if matches!(self.state, Progress::Sent) {
            self.state = Progress::Unreachable(reason.to_owned());
        }
    }

    fn retry_or_fail(
        &mut self,
        failure: &Failure,
        what: String,
        body: &str,
        now_ms: f64,
        random: f64,
    ) -> Result<HttpStep<'_>, Error> {
        let retries = self.attempts.saturating_sub(1);
        match decide(
            failure,
            retries,
            self.settings.max_retries,
            now_ms,
            self.deadline_ms,
            random,
        ) {
            Decision::Retry { after_ms } => {
                self.state = Progress::Ready;
                self.waiting = Some((failure.status, what, body.to_owned(), after_ms));
                Ok(HttpStep::Wait(after_ms))
            }
            Decision::GiveUp { why } => Err(self.failure(failure.status, what, body, why)),
        }
    }

    fn failure(&self, status: Option<u16>, what: String, body: &str, why_not: Option<String>) -> Error {
        let mut reason = what;
        if self.attempts > 1 {
            reason.push_str(&format!(" after {} attempts", self.attempts));
        }
        if let Some(why) = why_not {
            reason.push_str(&format!(" (not retried: {why})"));
        }
        let secrets = &self.settings.secrets;
        Error::Http {
            api: self.settings.provider.api_name(),
            url: redact(&self.settings.url, secrets),
            status,
            reason: redact(&reason, secrets),
            excerpt: excerpt(body, secrets),
        }
    }
}

/// The request body for `prompt`, in the provider's API.
fn body(settings: &Settings, prompt: &Prompt) -> String {
    match settings.provider {
        Provider::OpenAI => openai_api::body(settings, prompt),
        Provider::Anthropic => anthropic_api::body(settings, prompt),
    }
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    const KEY: &str = "sk-secret-0123456789";

    fn exchange(provider: Provider, options: Value, timeout_ms: Option<f64>) -> Exchange {
        let settings = Settings::from_options(provider, &options).unwrap();
        let prompt = Prompt {
            system: "Summarize.",
            prompt: "The text.",
            max_tokens: 256,
        };
        Exchange::new(settings, &prompt, 1_000.0, timeout_ms)
    }

    fn openai(timeout_ms: Option<f64>) -> Exchange {
        exchange(
            Provider::OpenAI,
            json!({ "model": "m", "apiKey": KEY, "baseURL": "http://127.0.0.1:9/v1" }),
            timeout_ms,
        )
    }

    fn ok_openai() -> Received {
        Received {
            status: 200,
            body: json!({
                "model": "m-2026", "choices": [{ "message": { "content": "## Conversation Summary" } }],
                "usage": { "prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15 },
            })
            .to_string(),
            ..Received::default()
        }
    }

    fn status(status: u16, body: &str) -> Received {
        Received {
            status,
            body: body.into(),
            ..Received::default()
        }
    }

    /// Sends; checks it was a send.
    fn send(x: &mut Exchange, now: f64) -> HttpRequest {
        match x.next(now, 0.0) {
            Ok(HttpStep::Send(r)) => r.clone(),
            other => panic!("expected a send, got {other:?}"),
        }
    }

    fn http(err: Error) -> (Option<u16>, String, String) {
        assert!(!err.to_string().contains(KEY), "{err}");
        match err {
            Error::Http {
                status,
                reason,
                excerpt,
                ..
            } => (status, reason, excerpt),
            other => panic!("not an HTTP error: {other:?}"),
        }
    }

    #[test]
    fn a_refusal_as_too_long_is_sent_once_more_shorter_then_is_context_overflow() {
        let settings = Settings::from_options(
            Provider::OpenAI,
            &json!({ "model": "m", "apiKey": KEY, "baseURL": "http://127.0.0.1:9/v1" }),
        )
        .unwrap();
        let text = "line of the conversation\n".repeat(400);
        let prompt = Prompt {
            system: "Summarize.",
            prompt: &text,
            max_tokens: 256,
        };
        let mut x = Exchange::new(settings, &prompt, 1_000.0, None);
        let first = send(&mut x, 1_000.0);
        let refusal = |n: u64| {
            json!({"error": {"message": format!("This model's maximum context length is 2000 tokens. However, your messages resulted in {n} tokens."), "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}}).to_string()
        };
        x.received(status(400, &refusal(4_000)));
        let second = send(&mut x, 1_010.0);
        assert_eq!(x.attempts(), 2);
        let content = |r: &HttpRequest| {
            let b: Value = serde_json::from_str(&r.body).unwrap();
            b["messages"][1]["content"].as_str().unwrap().chars().count()
        };
        let share = content(&second) as f64 / content(&first) as f64;
        assert!(share < (2_000.0 - 256.0) / 4_000.0, "{share}");
        assert_eq!(second.header("Authorization"), first.header("Authorization"));
        x.received(status(400, &refusal(2_100)));
        let e = x.next(1_020.0, 0.0).unwrap_err();
        assert_eq!(e.code(), "CONTEXT_OVERFLOW");
        assert!(
            matches!(
                e,
                Error::Refused {
                    tokens: Some(2_100),
                    limit: Some(2_000),
                    ..
                }
            ),
            "{e:?}"
        );
        assert!(!format!("{e:?} {e}").contains(KEY));
        // A 400 that is no refusal is not retried.
        let mut y = openai(None);
        send(&mut y, 1_000.0);
        y.received(status(
            400,
            r#"{"error":{"message":"max_tokens is too large: 100000.","code":"invalid_value"}}"#,
        ));
        assert_eq!(http(y.next(1_001.0, 0.0).unwrap_err()).0, Some(400));
        assert_eq!(y.attempts(), 1);
    }

    #[test]
    fn success_on_the_first_attempt() {
        let mut x = openai(Some(25_000.0));
        let r = send(&mut x, 1_000.0);
        assert_eq!(r.url, "http://127.0.0.1:9/v1/chat/completions");
        assert_eq!(r.header("Authorization"), Some(format!("Bearer {KEY}").as_str()));
        let body: Value = serde_json::from_str(&r.body).unwrap();
        assert_eq!(body["max_tokens"], json!(256));
        x.received(ok_openai());
        let Ok(HttpStep::Done(s)) = x.next(1_100.0, 0.0) else {
            panic!()
        };
        assert_eq!(s.model.as_deref(), Some("m-2026"));
        assert_eq!(s.usage.unwrap()["total_tokens"], json!(15));
        assert_eq!(x.attempts(), 1);
    }

    #[test]
    fn rate_limited_then_success_waits_as_told() {
        let mut x = openai(Some(25_000.0));
        send(&mut x, 1_000.0);
        x.received(Received {
            retry_after: Some("2".into()),
            ..status(429, "slow down")
        });
        assert_eq!(x.next(1_050.0, 0.3), Ok(HttpStep::Wait(2_000)));
        send(&mut x, 3_050.0);
        x.received(ok_openai());
        assert!(matches!(x.next(3_100.0, 0.0), Ok(HttpStep::Done(_))));
        assert_eq!(x.attempts(), 2);
    }

    #[test]
    fn server_errors_are_retried_then_reported_with_the_attempts() {
        let mut x = openai(None);
        send(&mut x, 1_000.0);
        x.received(status(500, "{\"error\":\"boom\"}"));
        assert_eq!(x.next(1_000.0, 0.0), Ok(HttpStep::Wait(500)));
        send(&mut x, 1_500.0);
        x.received(status(502, "bad gateway"));
        assert_eq!(x.next(1_500.0, 0.0), Ok(HttpStep::Wait(1_000)));
        send(&mut x, 2_500.0);
        x.received(status(500, "{\"error\":\"boom\"}"));
        let (st, reason, excerpt) = http(x.next(2_500.0, 0.0).unwrap_err());
        assert_eq!(st, Some(500));
        assert_eq!(reason, "HTTP 500 after 3 attempts");
        assert_eq!(excerpt, "{\"error\":\"boom\"}");
        assert_eq!(x.attempts(), 3);
    }

    #[test]
    fn no_wait_passes_the_deadline() {
        let mut x = openai(Some(1_500.0)); // deadline 2,500
        send(&mut x, 1_000.0);
        x.received(Received {
            retry_after: Some("2".into()),
            ..status(429, "")
        });
        let (st, reason, _) = http(x.next(1_100.0, 0.0).unwrap_err());
        assert_eq!(st, Some(429));
        assert_eq!(
            reason,
            "HTTP 429 (not retried: waiting 2 s would pass the deadline (1.4 s left))"
        );
        assert_eq!(x.attempts(), 1);
    }

    #[test]
    fn a_call_aborted_during_a_wait_ends_with_the_answer_it_had() {
        let mut x = openai(None); // a signal only: the deadline is not known
        send(&mut x, 1_000.0);
        assert!(x.abandoned().is_none(), "no wait under way");
        x.received(Received {
            retry_after: Some("60".into()),
            ..status(429, "{\"error\":\"rate limited\"}")
        });
        assert_eq!(x.next(1_050.0, 0.0), Ok(HttpStep::Wait(60_000)));
        let (st, reason, excerpt) = http(x.abandoned().expect("the wait's failure"));
        assert_eq!(st, Some(429));
        assert_eq!(
            reason,
            "HTTP 429 (not retried: aborted during the 60 s wait before the next attempt)"
        );
        assert_eq!(excerpt, "{\"error\":\"rate limited\"}");
        assert!(x.abandoned().is_none(), "once");
    }

    #[test]
    fn a_failed_connection_is_retried_and_reported() {
        let mut x = exchange(
            Provider::OpenAI,
            json!({ "model": "m", "baseURL": "http://127.0.0.1:9/v1", "maxRetries": 1 }),
            None,
        );
        send(&mut x, 0.0);
        x.unreachable("fetch failed");
        assert_eq!(x.next(0.0, 0.0), Ok(HttpStep::Wait(500)));
        send(&mut x, 500.0);
        x.unreachable("fetch failed");
        let (st, reason, excerpt) = http(x.next(500.0, 0.0).unwrap_err());
        assert_eq!(
            (st, reason.as_str(), excerpt.as_str()),
            (None, "no response (fetch failed) after 2 attempts", "")
        );
    }

    #[test]
    fn a_junk_body_is_not_retried() {
        let mut x = exchange(Provider::Anthropic, json!({ "model": "m", "apiKey": KEY }), None);
        send(&mut x, 0.0);
        x.received(status(200, "<html>\n  <body>Gateway says hi</body>\n</html>"));
        let (st, reason, excerpt) = http(x.next(0.0, 0.0).unwrap_err());
        assert_eq!(st, Some(200));
        assert!(
            reason.starts_with("HTTP 200 with an unusable reply: not JSON"),
            "{reason}"
        );
        assert_eq!(excerpt, "<html> <body>Gateway says hi</body> </html>");
    }

    #[test]
    fn an_auth_error_shows_the_body_but_never_the_key() {
        let mut x = openai(None);
        send(&mut x, 0.0);
        let body = format!("{{\"error\":{{\"message\":\"Incorrect API key provided: {KEY}\",\"code\":\"invalid_api_key\"}}}}");
        x.received(status(401, &body));
        let err = x.next(0.0, 0.0).unwrap_err();
        let Error::Http {
            status: st,
            reason,
            excerpt,
            ..
        } = &err
        else {
            panic!("{err:?}")
        };
        assert_eq!((*st, reason.as_str()), (Some(401), "HTTP 401"));
        assert_eq!(
            excerpt,
            "{\"error\":{\"message\":\"Incorrect API key provided: [redacted]\",\"code\":\"invalid_api_key\"}}"
        );
        assert_eq!(
            err.to_string(),
            format!("OpenAI-compatible API request to http://127.0.0.1:9/v1/chat/completions failed: HTTP 401; body: {excerpt}")
        );
        assert!(!format!("{err:?}").contains(KEY));
    }

    #[test]
    fn a_key_in_the_url_or_the_reason_is_redacted() {
        let mut x = exchange(
            Provider::OpenAI,
            json!({ "model": "m", "baseURL": "http://127.0.0.1:9/k/sk-in-path", "headers": { "api-key": "sk-in-path" }, "maxRetries": 0 }),
            None,
        );
        send(&mut x, 0.0);
        x.unreachable("could not reach http://127.0.0.1:9/k/sk-in-path");
        let err = x.next(0.0, 0.0).unwrap_err();
        assert!(!format!("{err:?}").contains("sk-in-path"), "{err:?}");
    }

    #[test]
    fn driven_out_of_order_is_an_error_not_a_panic() {
        let mut x = openai(None);
        send(&mut x, 0.0);
        assert!(x.next(0.0, 0.0).is_err());
        x.received(ok_openai()); // ignored: the call is over
        assert!(x.next(0.0, 0.0).is_err());
    }
}
