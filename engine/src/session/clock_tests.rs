//! Unit tests of `clock.rs`.

use std::time::Duration;

use super::*;

fn at(seconds: u64, millis: u64) -> Stamp {
    Stamp::from(UNIX_EPOCH + Duration::from_millis(seconds * 1000 + millis))
}

#[test]
fn formats_utc_dates_across_leap_years() {
    assert_eq!(at(0, 0).iso(), "1970-01-01T00:00:00.000Z");
    assert_eq!(at(951_782_400, 5).iso(), "2000-02-29T00:00:00.005Z");
    assert_eq!(at(1_709_251_199, 999).iso(), "2024-02-29T23:59:59.999Z");
    assert_eq!(at(1_741_529_107, 42).iso(), "2025-03-09T14:05:07.042Z");
}

#[test]
fn later_stamps_sort_later_as_text() {
    assert!(at(1_741_529_107, 42).iso() < at(1_741_529_107, 43).iso());
    assert!(at(999_999_999, 0).iso() < at(1_000_000_000, 0).iso());
}
