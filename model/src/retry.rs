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
            | Self::GaveUp { .. }
            | Self::NoModel => false,
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
#[path = "retry_tests.rs"]
mod tests;
