//! `openAISummarizer` and `anthropicSummarizer`: summarizers that call an LLM over HTTP.
//!
//! Their options are checked once, by the core ([`Settings`]), into plain data that the
//! function they return keeps (`pkg-template/lib/summarizers.js`). No wasm object outlives
//! a call, so a summarizer made before the module was restarted after a trap still works.
//! Each call is an [`HttpSummaryCall`] that the package's JavaScript drives, as it drives
//! `compact`: every step is a synchronous wasm call, so an error or a trap in any of them
//! rejects the caller's promise, and no Rust future is left for a trapped module to poll.
//! What to send, when to retry and what to report is the core's [`Exchange`].
//!
//! Requests are built with gloo-net and responses read through it, but sent with the global
//! `fetch`, which browsers, Node 20+ and workerd all have. Node's global has neither `Window`
//! nor `WorkerGlobalScope`; workerd's is a `ServiceWorkerGlobalScope` that is not an instance
//! of the `WorkerGlobalScope` it defines (`tests/workerd/summarizers.test.mjs` prints it).
//! gloo-net 0.5 looked for those two and panicked in both; 0.6 and 0.7 call the global
//! `fetch` in `send()`, but panic when it rejects with something that is not an `Error` (an
//! aborted request rejects with the signal's reason, which can be any value) or resolves to
//! something that is not a `Response`. Here both are ordinary errors.

use js_sys::{Object, Promise, Reflect};
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::AbortSignal;

use super::error::{describe, invalid_argument, to_js};
use super::options;
use crate::providers::redact::redact;
use crate::providers::{Exchange, HttpRequest, HttpStep, Prompt, Provider, Received, Settings};
use crate::Error;

#[wasm_bindgen(typescript_custom_section)]
const TS_HTTP: &str = include_str!("http.d.ts");

#[wasm_bindgen]
extern "C" {
    /// The global `fetch`, whatever the global object is.
    #[wasm_bindgen(js_name = fetch, catch)]
    fn global_fetch(request: &web_sys::Request) -> Result<Promise, JsValue>;
}

/// Checks a summarizer's options: `provider` is `"openai"` or `"anthropic"`. Returns them
/// as JSON text (a `Headers` object as its entries), which `lib/summarizers.js` keeps and
/// passes to each call: a snapshot the caller's later changes to the options do not
/// reach. Not part of the public API.
#[wasm_bindgen(js_name = summarizerSettings, skip_typescript)]
pub fn summarizer_settings(provider: &str, options: JsValue) -> Result<String, JsValue> {
    let provider = provider_named(provider)?;
    let mut json: Value = options::read("options", &options, &[], false)?.value;
    // JSON makes a Headers object `{}`: take its entries instead. (Read after the copy
    // above, which would have thrown for a throwing getter.)
    if let Some(headers) = js_sys::Reflect::get(&options, &"headers".into())
        .ok()
        .and_then(|h| h.dyn_into::<web_sys::Headers>().ok())
    {
        let pairs = gloo_net::http::Headers::from_raw(headers)
            .entries()
            .map(|(name, value)| Value::Array(vec![Value::String(name), Value::String(value)]))
            .collect();
        json["headers"] = Value::Array(pairs);
    }
    let settings = Settings::from_options(provider, &json).map_err(to_js)?;
    // The core checked the shape; the platform's URL parser has the last word.
    if web_sys::Url::new(&settings.url).is_err() {
        return Err(to_js(Error::InvalidArgument {
            argument: "options.baseURL".into(),
            expected: format!(
                "a URL fetch can use, got {:?}",
                redact(&settings.url, &settings.secrets)
            ),
        }));
    }
    // (Settings are read again from the options at each call: smaller than serde for them.)
    let mut saved = serde_json::Map::new();
    saved.insert("provider".into(), Value::from(provider_name(provider)));
    saved.insert("options".into(), json);
    Ok(Value::Object(saved).to_string())
}

fn provider_named(name: &str) -> Result<Provider, JsValue> {
    Provider::from_name(name).ok_or_else(|| {
        to_js(Error::InvalidArgument {
            argument: "provider".into(),
            expected: "\"openai\" or \"anthropic\"".into(),
        })
    })
}

fn provider_name(provider: Provider) -> &'static str {
    match provider {
        Provider::OpenAI => "openai",
        Provider::Anthropic => "anthropic",
    }
}

/// One call of a built-in summarizer, driven by `lib/summarizers.js`: it asks
/// [`HttpSummaryCall::next`] what to do, awaits the fetch it started (or the wait it asked
/// for), hands the response to [`HttpSummaryCall::response`] and its body to
/// [`HttpSummaryCall::body`], or a failed fetch to [`HttpSummaryCall::unreachable`]. Not
/// part of the public API.
#[wasm_bindgen(js_name = HttpSummaryCall, skip_typescript)]
pub struct HttpSummaryCall {
    exchange: Exchange,
    signal: Option<AbortSignal>,
    /// The status and retry headers of the response whose body is being read.
    head: Option<Received>,
    /// The last failed fetch's error, the `cause` of a final "no response" error.
    cause: Option<JsValue>,
}

#[wasm_bindgen(js_class = HttpSummaryCall)]
impl HttpSummaryCall {
    /// A call with `settings` (from [`summarizer_settings`]) for `request` (a
    /// `SummaryRequest`, or anything with `system`, `prompt` and `maxTokens`), aborted by
    /// `signal` (an `AbortSignal`, or undefined).
    pub fn start(settings: &str, request: JsValue, signal: JsValue) -> Result<HttpSummaryCall, JsValue> {
        let saved: Value = serde_json::from_str(settings).map_err(|e| {
            to_js(Error::InvalidArgument {
                argument: "settings".into(),
                expected: format!("what summarizerSettings returned ({e})"),
            })
        })?;
        let provider = provider_named(saved["provider"].as_str().unwrap_or_default())?;
        let settings = Settings::from_options(provider, &saved["options"]).map_err(to_js)?;
        if !request.is_object() {
            return Err(invalid_argument("request", "a summary request object", &request));
        }
        let field = |key: &str| Reflect::get(&request, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED);
        let text = |key: &str| {
            let v = field(key);
            v.as_string()
                .ok_or_else(|| invalid_argument(&format!("request.{key}"), "a string", &v))
        };
        let system = text("system")?;
        let prompt = text("prompt")?;
        let max_tokens = field("maxTokens");
        let max_tokens = max_tokens
            .as_f64()
            .filter(|n| n.fract() == 0.0 && *n >= 1.0 && *n <= u32::MAX as f64)
            .ok_or_else(|| invalid_argument("request.maxTokens", "a positive integer", &max_tokens))?;
        let timeout = field("timeoutMs");
        let timeout_ms = match timeout.as_f64() {
            None if timeout.is_undefined() || timeout.is_null() => None,
            Some(t) if t.is_finite() && t > 0.0 => Some(t),
            _ => {
                return Err(invalid_argument(
                    "request.timeoutMs",
                    "a positive number of milliseconds",
                    &timeout,
                ))
            }
        };
        let signal = if signal.is_undefined() || signal.is_null() {
            None
        } else {
            Some(
                signal
                    .dyn_into::<AbortSignal>()
                    .map_err(|v| invalid_argument("request.signal", "an AbortSignal", &v))?,
            )
        };
        let prompt = Prompt {
            system: &system,
            prompt: &prompt,
            max_tokens: max_tokens as usize,
        };
        Ok(HttpSummaryCall {
            exchange: Exchange::new(settings, &prompt, js_sys::Date::now(), timeout_ms),
            signal,
            head: None,
            cause: None,
        })
    }

    /// What to do now: `{ fetch }` (a fetch begun: the promise of its `Response`), `{ wait }`
    /// (milliseconds), or `{ done }` (the summary). Throws the call's failure, an
    /// `HTTP_ERROR`.
    pub fn next(&mut self) -> Result<JsValue, JsValue> {
        let out = Object::new();
        match self.exchange.next(js_sys::Date::now(), js_sys::Math::random()) {
            Ok(HttpStep::Send(request)) => {
                let fetching = send(request, self.signal.as_ref()).unwrap_or_else(|e| Promise::reject(&e));
                Reflect::set(&out, &"fetch".into(), &fetching)?;
            }
            Ok(HttpStep::Wait(ms)) => {
                Reflect::set(&out, &"wait".into(), &JsValue::from_f64(ms as f64))?;
            }
            Ok(HttpStep::Done(summary)) => {
                Reflect::set(&out, &"done".into(), &super::to_plain(&summary)?)?;
            }
            Err(e) => {
                let no_response = matches!(e, Error::Http { status: None, .. });
                let err = to_js(e);
                if let Some(cause) = self.cause.take().filter(|_| no_response) {
                    Reflect::set(&err, &"cause".into(), &cause)?;
                }
                return Err(err);
            }
        }
        Ok(out.into())
    }

    /// The response the fetch resolved to: its status and retry headers are read here.
    /// Returns the promise of its body's text, for [`HttpSummaryCall::body`].
    pub fn response(&mut self, response: JsValue) -> Result<Promise, JsValue> {
        let raw: web_sys::Response = response
            .dyn_into()
            .map_err(|v| invalid_argument("fetch's result", "a Response", &v))?;
        let response = gloo_net::http::Response::from(raw);
        let headers = response.headers();
        self.head = Some(Received {
            status: response.status(),
            retry_after_ms: headers.get("retry-after-ms"),
            retry_after: headers.get("retry-after"),
            should_retry: headers.get("x-should-retry"),
            body: String::new(),
        });
        // gloo-net reads bodies with a Rust future; the driver awaits the promise instead.
        web_sys::Response::from(response).text()
    }

    /// The call's signal aborted during the wait [`HttpSummaryCall::next`] asked for: the
    /// `HTTP_ERROR` of the answer it had, `reason` (the signal's) as its `cause`; or
    /// `reason` itself when no wait was under way.
    pub fn abandoned(&mut self, reason: JsValue) -> Result<JsValue, JsValue> {
        let Some(e) = self.exchange.abandoned() else {
            return Ok(reason);
        };
        let err = to_js(e);
        Reflect::set(&err, &"cause".into(), &reason)?;
        Ok(err)
    }

    /// The body of the response last given to [`HttpSummaryCall::response`].
    pub fn body(&mut self, text: String) {
        if let Some(head) = self.head.take() {
            self.cause = None;
            self.exchange.received(Received { body: text, ..head });
        }
    }

    /// The fetch (or the reading of its body) failed without an answer: `error` is what it
    /// rejected with.
    pub fn unreachable(&mut self, error: JsValue) {
        self.head = None;
        let message = |v: &JsValue| {
            Reflect::get(v, &"message".into())
                .ok()
                .and_then(|m| m.as_string())
        };
        let mut reason = message(&error).unwrap_or_else(|| describe(&error));
        // Node's "fetch failed" says why in its cause (ECONNREFUSED, ...).
        let cause = Reflect::get(&error, &"cause".into()).unwrap_or(JsValue::UNDEFINED);
        if let Some(inner) = cause.is_object().then(|| message(&cause)).flatten() {
            reason = format!("{reason}: {inner}");
        }
        // Kept as the final error's cause, unless it shows a secret (a key in the URL).
        let stack = Reflect::get(&error, &"stack".into())
            .ok()
            .and_then(|s| s.as_string())
            .unwrap_or_default();
        let secrets = self.exchange.secrets();
        let clean = |s: &str| redact(s, secrets) == s;
        self.cause = (error.is_object() && clean(&reason) && clean(&stack)).then_some(error);
        self.exchange.unreachable(&reason);
    }
}

/// Starts a fetch of `request`, built with gloo-net, through the global `fetch`.
fn send(request: &HttpRequest, signal: Option<&AbortSignal>) -> Result<Promise, JsValue> {
    let mut builder = gloo_net::http::RequestBuilder::new(&request.url).method(gloo_net::http::Method::POST);
    for (name, value) in &request.headers {
        builder = builder.header(name, value);
    }
    let built = builder
        .abort_signal(signal)
        .body(request.body.as_str())
        .map_err(|e| JsValue::from(js_sys::TypeError::new(&e.to_string())))?;
    global_fetch(&built.into())
}
