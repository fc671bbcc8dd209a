//! When to try a failed request again, and after how long.
//!
//! As OpenAI's and Anthropic's SDKs do: 408, 409, 429 and 5xx answers and failed
//! connections are retried (unless the server says `x-should-retry: false`), at most
//! `maxRetries` times; the wait is what the server asks for (`retry-after-ms`, else
//! `retry-after` in seconds or as an HTTP date) when that is at most
//! [`MAX_REQUESTED_WAIT_MS`], else an exponential backoff with jitter. Unlike them, a wait
//! that would end at or past the call's deadline is not started: the call fails at once
//! with the answer it has.

/// The longest server-requested wait honoured; a longer one ends the call.
pub const MAX_REQUESTED_WAIT_MS: u64 = 60_000;
/// The first backoff.
pub const INITIAL_BACKOFF_MS: u64 = 500;
/// The longest backoff.
pub const MAX_BACKOFF_MS: u64 = 8_000;

/// Whether an HTTP status is worth another try: request timeout, conflict, rate limit,
/// and server errors (Anthropic's 529 "overloaded" among them).
pub fn retryable(status: u16) -> bool {
    matches!(status, 408 | 409 | 429) || status >= 500
}

/// The backoff before retry `n` (1 for the first): 0.5 s doubling up to 8 s, less up to a
/// quarter at random (`random` in [0, 1)), so clients that failed together spread out.
pub fn backoff_ms(n: u32, random: f64) -> u64 {
    let base = INITIAL_BACKOFF_MS.saturating_mul(1u64 << n.saturating_sub(1).min(16));
    let base = base.min(MAX_BACKOFF_MS) as f64;
    (base * (1.0 - 0.25 * random.clamp(0.0, 1.0))).round() as u64
}

/// The wait a server asks for: `retry-after-ms` (OpenAI's), else `retry-after` as seconds or
/// as an HTTP date (compared with `now_ms`, milliseconds since the Unix epoch). `None` when
/// neither is there or readable; a date in the past is no wait.
pub fn requested_wait_ms(
    retry_after_ms: Option<&str>,
    retry_after: Option<&str>,
    now_ms: f64,
) -> Option<u64> {
    if let Some(ms) = retry_after_ms.and_then(|v| decimal_ms(v, 1)) {
        return Some(ms);
    }
    let value = retry_after?.trim();
    if let Some(ms) = decimal_ms(value, 1000) {
        return Some(ms);
    }
    let at = http_date_ms(value)?;
    Some((at - now_ms).max(0.0).ceil() as u64)
}

/// What to do after a failed attempt.
#[derive(Clone, Debug, PartialEq)]
pub enum Decision {
    /// Wait this long, then send again.
    Retry { after_ms: u64 },
    /// Fail now; `why` says why a retryable failure was not retried.
    GiveUp { why: Option<String> },
}

/// One failed attempt, as far as retrying goes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Failure {
    /// The answer's status; `None` when no answer came (a failed connection).
    pub status: Option<u16>,
    /// The wait the server asked for.
    pub requested_wait_ms: Option<u64>,
    /// `x-should-retry`, when the server sent it.
    pub should_retry: Option<bool>,
}

/// Whether and when to retry after `failure`, with `retries_done` retries made of
/// `max_retries`, at `now_ms`, for a call that must end by `deadline_ms`.
pub fn decide(
    failure: &Failure,
    retries_done: u32,
    max_retries: u32,
    now_ms: f64,
    deadline_ms: Option<f64>,
    random: f64,
) -> Decision {
    let worth_it = failure
        .should_retry
        .unwrap_or_else(|| failure.status.is_none_or(retryable));
    if !worth_it || retries_done >= max_retries {
        return Decision::GiveUp { why: None };
    }
    let after_ms = match failure.requested_wait_ms {
        Some(ms) if ms > MAX_REQUESTED_WAIT_MS => {
            return Decision::GiveUp {
                why: Some(format!("the server asked to wait {}", seconds(ms))),
            }
        }
        Some(ms) => ms,
        None => backoff_ms(retries_done + 1, random),
    };
    if let Some(deadline) = deadline_ms {
        if now_ms + after_ms as f64 >= deadline {
            return Decision::GiveUp {
                why: Some(format!(
                    "waiting {} would pass the deadline ({} left)",
                    seconds(after_ms),
                    seconds((deadline - now_ms).max(0.0) as u64)
                )),
            };
        }
    }
    Decision::Retry { after_ms }
}

/// `1.5 s`, `60 s`.
pub(super) fn seconds(ms: u64) -> String {
    let s = ms as f64 / 1000.0;
    if s.fract() == 0.0 {
        format!("{s:.0} s")
    } else {
        format!("{s:.1} s")
    }
}

/// A non-negative decimal number of `unit_ms` units (`"2"`, `"0.25"`) in whole
/// milliseconds, rounded up. (Read by hand: `f64::from_str` would add 16 KB to the wasm.)
fn decimal_ms(s: &str, unit_ms: u64) -> Option<u64> {
    let s = s.trim();
    let (whole, fraction) = s.split_once('.').unwrap_or((s, ""));
    if whole.is_empty() && fraction.is_empty() {
        return None;
    }
    let digits = |d: &str| d.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || !digits(fraction) || whole.len() > 12 {
        return None;
    }
    let mut ms = whole.parse::<u64>().unwrap_or(0).checked_mul(unit_ms)?;
    // The fraction in millionths of a unit, then in milliseconds, rounded up.
    let mut millionths = 0u64;
    for (i, b) in fraction.bytes().enumerate() {
        if i < 6 {
            millionths += u64::from(b - b'0') * 10u64.pow(5 - i as u32);
        } else if b != b'0' {
            millionths += 1;
            break;
        }
    }
    ms += (millionths * unit_ms).div_ceil(1_000_000);
    Some(ms)
}

/// An HTTP date (IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`) in milliseconds since the
/// Unix epoch.
pub fn http_date_ms(s: &str) -> Option<f64> {
    let rest = s.trim().split_once(", ")?.1;
    let parts: Vec<&str> = rest.split(' ').filter(|p| !p.is_empty()).collect();
    let [day, month, year, time, "GMT"] = parts.as_slice() else {
        return None;
    };
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = MONTHS.iter().position(|m| m == month)? as i64 + 1;
    let day: i64 = day.parse().ok().filter(|d| (1..=31).contains(d))?;
    let year: i64 = year.parse().ok().filter(|y| (1970..=9999).contains(y))?;
    let hms: Vec<i64> = time.split(':').map(|p| p.parse().ok()).collect::<Option<_>>()?;
    let [h, m, sec] = hms.as_slice() else { return None };
    if *h > 23 || *m > 59 || *sec > 60 {
        return None;
    }
    let days = days_from_civil(year, month, day);
    Some(((days * 86_400 + h * 3600 + m * 60 + sec) * 1000) as f64)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm); the
/// guards' clock reads ISO dates with it too.
pub(crate) fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retryable_statuses() {
        for s in [408, 409, 429, 500, 502, 503, 504, 529] {
            assert!(retryable(s), "{s}");
        }
        for s in [200, 400, 401, 403, 404, 413, 422] {
            assert!(!retryable(s), "{s}");
        }
    }

    #[test]
    fn backoff_doubles_to_a_cap_with_jitter() {
        assert_eq!(backoff_ms(1, 0.0), 500);
        assert_eq!(backoff_ms(2, 0.0), 1000);
        assert_eq!(backoff_ms(3, 0.0), 2000);
        assert_eq!(backoff_ms(5, 0.0), 8000);
        assert_eq!(backoff_ms(40, 0.0), 8000);
        assert_eq!(backoff_ms(1, 0.999_999), 375);
        assert_eq!(backoff_ms(2, 0.5), 875);
    }

    #[test]
    fn requested_waits() {
        assert_eq!(requested_wait_ms(None, Some("1"), 0.0), Some(1000));
        assert_eq!(requested_wait_ms(None, Some(" 0.25 "), 0.0), Some(250));
        assert_eq!(requested_wait_ms(Some("150"), Some("5"), 0.0), Some(150));
        assert_eq!(requested_wait_ms(Some("soon"), Some("2"), 0.0), Some(2000));
        assert_eq!(requested_wait_ms(None, Some("-1"), 0.0), None);
        assert_eq!(requested_wait_ms(None, Some("soon"), 0.0), None);
        assert_eq!(requested_wait_ms(None, Some("."), 0.0), None);
        assert_eq!(requested_wait_ms(None, Some("1e3"), 0.0), None);
        assert_eq!(requested_wait_ms(None, Some("2."), 0.0), Some(2000));
        assert_eq!(requested_wait_ms(None, Some(".5"), 0.0), Some(500));
        assert_eq!(requested_wait_ms(None, Some("0.0001"), 0.0), Some(1));
        assert_eq!(requested_wait_ms(None, Some("0.0000001"), 0.0), Some(1));
        assert_eq!(requested_wait_ms(Some("12.3"), None, 0.0), Some(13));
        assert_eq!(requested_wait_ms(None, Some("99999999999999999999"), 0.0), None);
        assert_eq!(requested_wait_ms(None, None, 0.0), None);
        // An HTTP date: 1994-11-06T08:49:37Z is 784111777 s after the epoch.
        let at = 784_111_777_000.0;
        assert_eq!(http_date_ms("Sun, 06 Nov 1994 08:49:37 GMT"), Some(at));
        assert_eq!(
            requested_wait_ms(None, Some("Sun, 06 Nov 1994 08:49:37 GMT"), at - 3000.0),
            Some(3000)
        );
        assert_eq!(
            requested_wait_ms(None, Some("Sun, 06 Nov 1994 08:49:37 GMT"), at + 5000.0),
            Some(0)
        );
        assert_eq!(http_date_ms("Thu, 01 Jan 1970 00:00:00 GMT"), Some(0.0));
        assert_eq!(
            http_date_ms("Tue, 29 Feb 2028 23:59:59 GMT"),
            Some(1_835_481_599_000.0)
        );
        for bad in [
            "Sun, 06 Nov 1994 08:49:37 PST",
            "06 Nov 1994 08:49:37 GMT",
            "Sun, 32 Nov 1994 08:49:37 GMT",
            "Sun, 06 Foo 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 25:00:00 GMT",
        ] {
            assert_eq!(http_date_ms(bad), None, "{bad}");
        }
    }

    fn status(s: u16) -> Failure {
        Failure {
            status: Some(s),
            ..Failure::default()
        }
    }

    #[test]
    fn decisions() {
        // Retryable, within budget: backoff, then the server's wait.
        assert_eq!(
            decide(&status(500), 0, 2, 0.0, None, 0.0),
            Decision::Retry { after_ms: 500 }
        );
        assert_eq!(
            decide(&status(503), 1, 2, 0.0, None, 0.0),
            Decision::Retry { after_ms: 1000 }
        );
        let limited = Failure {
            status: Some(429),
            requested_wait_ms: Some(1000),
            should_retry: None,
        };
        assert_eq!(
            decide(&limited, 0, 2, 0.0, None, 0.7),
            Decision::Retry { after_ms: 1000 }
        );
        // A failed connection is retried.
        assert_eq!(
            decide(&Failure::default(), 0, 2, 0.0, None, 0.0),
            Decision::Retry { after_ms: 500 }
        );
        // Out of retries, or not retryable: no reason to give.
        assert_eq!(
            decide(&status(500), 2, 2, 0.0, None, 0.0),
            Decision::GiveUp { why: None }
        );
        assert_eq!(
            decide(&status(401), 0, 2, 0.0, None, 0.0),
            Decision::GiveUp { why: None }
        );
        assert_eq!(
            decide(&status(500), 0, 0, 0.0, None, 0.0),
            Decision::GiveUp { why: None }
        );
        // The server decides when it says so.
        let no = Failure {
            should_retry: Some(false),
            ..status(503)
        };
        assert_eq!(decide(&no, 0, 2, 0.0, None, 0.0), Decision::GiveUp { why: None });
        let yes = Failure {
            should_retry: Some(true),
            ..status(400)
        };
        assert_eq!(
            decide(&yes, 0, 2, 0.0, None, 0.0),
            Decision::Retry { after_ms: 500 }
        );
        // Too long a wait, or one past the deadline: give up now, and say why.
        let hour = Failure {
            requested_wait_ms: Some(3_600_000),
            ..status(429)
        };
        assert_eq!(
            decide(&hour, 0, 2, 0.0, None, 0.0),
            Decision::GiveUp {
                why: Some("the server asked to wait 3600 s".into())
            }
        );
        assert_eq!(
            decide(&limited, 0, 2, 10_000.0, Some(10_900.0), 0.0),
            Decision::GiveUp {
                why: Some("waiting 1 s would pass the deadline (0.9 s left)".into())
            }
        );
        assert_eq!(
            decide(&limited, 0, 2, 10_000.0, Some(11_001.0), 0.0),
            Decision::Retry { after_ms: 1000 }
        );
    }
}
