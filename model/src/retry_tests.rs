//! Unit tests of `retry.rs`.

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
    assert_eq!(retry_after(&headers(&[("retry-after", "Sun, 06 Nov 1994 08:00:00 GMT")]), now), Some(Duration::ZERO));
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
