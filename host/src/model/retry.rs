//! When a failed request is sent again, and after how long.
//!
//! Rate limits (429), timeouts (408), server errors (5xx but 501, including Anthropic's
//! 529 "overloaded"), connection failures, and streams that broke, went silent or sent
//! garbage are worth another try, and so is an answer whose function call the provider
//! could not parse (at most [`MALFORMED_CALL_ATTEMPTS`] requests, as Gemini CLI bounds its
//! "invalid content" retries); refused credentials and other client errors are not.
//! The wait before retry `n` is drawn uniformly from zero to `base_delay * 2^(n-1)`,
//! capped at `max_delay` ("full jitter", which keeps many clients from retrying in step),
//! unless the provider said how long to wait (`Retry-After` in seconds or as an HTTP
//! date, or OpenAI's `retry-after-ms`): that is honoured, up to `max_delay`.

use std::time::{Duration, SystemTime};

use rand::RngExt;
use reqwest::header::HeaderMap;

use super::ModelError;

/// Most requests for one answer while the model keeps writing malformed function calls:
/// the same model asked the same thing rarely gets it right after two more tries.
pub(crate) const MALFORMED_CALL_ATTEMPTS: u32 = 3;

/// How often and how patiently a request is retried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Most requests for one answer, the first included (1 = never retry).
    pub max_attempts: u32,
    /// The ceiling of the first wait; it doubles with every retry.
    pub base_delay: Duration,
    /// The longest wait, whatever the provider asked for.
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self { max_attempts: 5, base_delay: Duration::from_secs(1), max_delay: Duration::from_secs(30) }
    }
}

impl RetryPolicy {
    /// The most retries: one fewer than the attempts.
    pub fn max_retries(&self) -> u32 {
        self.max_attempts.saturating_sub(1)
    }

    /// The wait before retry number `retry` (from 1), given what the provider asked for.
    pub(crate) fn delay(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        if let Some(asked) = retry_after {
            return asked.min(self.max_delay);
        }
        let ceiling = self.base_delay.saturating_mul(2u32.saturating_pow(retry.saturating_sub(1))).min(self.max_delay);
        let nanos = u64::try_from(ceiling.as_nanos()).unwrap_or(u64::MAX);
        Duration::from_nanos(rand::rng().random_range(0..=nanos))
    }
}

impl ModelError {
    /// Whether sending the same request again may succeed.
    pub(crate) fn is_retryable(&self) -> bool {
        match self {
            Self::Http { status, .. } => matches!(status, 408 | 429) || (*status >= 500 && *status != 501),
            Self::Connect { .. }
            | Self::MalformedStream(_)
            | Self::Truncated
            | Self::IdleTimeout(_)
            | Self::MalformedCall { .. } => true,
            Self::Auth { .. }
            | Self::BadRequest { .. }
            | Self::InvalidHeader { .. }
            | Self::Interrupted(_)
            | Self::GaveUp { .. } => false,
        }
    }

    /// The most requests for one answer when this is the failure, under `policy`.
    pub(crate) fn attempt_limit(&self, policy: &RetryPolicy) -> u32 {
        let limit = policy.max_attempts.max(1);
        match self {
            Self::MalformedCall { .. } => limit.min(MALFORMED_CALL_ATTEMPTS),
            _ => limit,
        }
    }

    /// How long the provider asked to wait, if it did.
    pub(crate) fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::Http { retry_after, .. } => *retry_after,
            _ => None,
        }
    }
}

/// How long a response's headers ask to wait: `retry-after-ms` (OpenAI), else
/// `Retry-After` as seconds or as an HTTP date (a date in the past means now).
pub(crate) fn retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::trim);
    if let Some(millis) = header("retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        return seconds(millis / 1000.0);
    }
    let value = header("retry-after")?;
    if let Ok(secs) = value.parse::<f64>() {
        return seconds(secs);
    }
    let when = httpdate::parse_http_date(value).ok()?;
    Some(when.duration_since(now).unwrap_or(Duration::ZERO))
}

fn seconds(secs: f64) -> Option<Duration> {
    Duration::try_from_secs_f64(secs).ok()
}

#[cfg(test)]
mod tests {
    use reqwest::header::HeaderValue;

    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            if let Ok(value) = HeaderValue::from_str(value) {
                map.insert(*name, value);
            }
        }
        map
    }

    #[test]
    fn backoff_grows_exponentially_with_full_jitter_under_the_cap() {
        let policy =
            RetryPolicy { max_attempts: 10, base_delay: Duration::from_millis(100), max_delay: Duration::from_secs(1) };
        for _ in 0..200 {
            assert!(policy.delay(1, None) <= Duration::from_millis(100));
            assert!(policy.delay(3, None) <= Duration::from_millis(400));
            assert!(policy.delay(9, None) <= Duration::from_secs(1));
            assert!(policy.delay(u32::MAX, None) <= Duration::from_secs(1));
        }
        let spread: std::collections::HashSet<Duration> = (0..50).map(|_| policy.delay(4, None)).collect();
        assert!(spread.len() > 10, "the wait must be jittered: {spread:?}");
    }

    #[test]
    fn a_requested_wait_is_honoured_up_to_the_cap() {
        let policy = RetryPolicy::default();
        assert_eq!(policy.delay(1, Some(Duration::ZERO)), Duration::ZERO);
        assert_eq!(policy.delay(1, Some(Duration::from_secs(7))), Duration::from_secs(7));
        assert_eq!(policy.delay(1, Some(Duration::from_secs(3600))), policy.max_delay);
        assert_eq!(policy.max_retries(), 4);
    }

    #[test]
    fn reads_retry_after_in_seconds_dates_and_milliseconds() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(784_111_777); // Sun, 06 Nov 1994 08:49:37 GMT
        assert_eq!(retry_after(&headers(&[("retry-after", "0")]), now), Some(Duration::ZERO));
        assert_eq!(retry_after(&headers(&[("retry-after", " 12 ")]), now), Some(Duration::from_secs(12)));
        assert_eq!(retry_after(&headers(&[("retry-after", "1.5")]), now), Some(Duration::from_millis(1500)));
        assert_eq!(
            retry_after(&headers(&[("retry-after", "Sun, 06 Nov 1994 08:50:07 GMT")]), now),
            Some(Duration::from_secs(30))
        );
        assert_eq!(
            retry_after(&headers(&[("retry-after", "Sun, 06 Nov 1994 08:00:00 GMT")]), now),
            Some(Duration::ZERO)
        );
        assert_eq!(
            retry_after(&headers(&[("retry-after-ms", "250"), ("retry-after", "9")]), now),
            Some(Duration::from_millis(250))
        );
        assert_eq!(retry_after(&headers(&[("retry-after", "soon")]), now), None);
        assert_eq!(retry_after(&headers(&[("retry-after", "-3")]), now), None);
        assert_eq!(retry_after(&HeaderMap::new(), now), None);
    }

    #[test]
    fn retries_transient_failures_only() {
        let http = |status| ModelError::Http { status, body: String::new(), retry_after: None };
        for status in [408, 429, 500, 502, 503, 504, 529] {
            assert!(http(status).is_retryable(), "{status}");
        }
        for status in [400, 404, 413, 501] {
            assert!(!http(status).is_retryable(), "{status}");
        }
        assert!(ModelError::Truncated.is_retryable());
        assert!(ModelError::IdleTimeout(Duration::from_secs(1)).is_retryable());
        assert!(ModelError::Connect { url: "u".into(), reason: "r".into() }.is_retryable());
        assert!(!ModelError::Auth { status: 401, key_variable: None, provider: "p".into() }.is_retryable());
        assert!(!ModelError::Interrupted(Box::new(ModelError::Truncated)).is_retryable());
        let malformed = ModelError::MalformedCall { reason: "MALFORMED_FUNCTION_CALL".into(), detail: None };
        assert!(malformed.is_retryable());
        assert_eq!(malformed.attempt_limit(&RetryPolicy::default()), MALFORMED_CALL_ATTEMPTS);
        assert_eq!(malformed.attempt_limit(&RetryPolicy { max_attempts: 2, ..RetryPolicy::default() }), 2);
        assert_eq!(ModelError::Truncated.attempt_limit(&RetryPolicy::default()), 5);
    }
}
