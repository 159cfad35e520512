//! Unit tests of `lib.rs`: what the end of an export says.

use super::*;

fn tally(ended: u64, sent: u64, logs: u64, logs_sent: u64, metric_failures: u64) -> export::Tally {
    let tally = export::Tally::default();
    tally.spans_ended.store(ended, Ordering::Relaxed);
    tally.spans_sent.store(sent, Ordering::Relaxed);
    tally.logs_emitted.store(logs, Ordering::Relaxed);
    tally.logs_sent.store(logs_sent, Ordering::Relaxed);
    tally.metric_failures.store(metric_failures, Ordering::Relaxed);
    tally
}

#[test]
fn everything_delivered_in_time_says_nothing() {
    assert!(report(&tally(9, 9, 4, 4, 0), "http://c:4318", true).is_empty());
}

#[test]
fn what_was_lost_is_counted_once_and_a_late_collector_is_named() {
    let warnings = report(&tally(9, 4, 4, 0, 1), "http://c:4318/v1/traces", true);
    assert_eq!(
        warnings,
        [
            "telemetry: 5 of 9 spans and 4 of 4 log events were not delivered to http://c:4318/v1/traces, nor the metrics"
        ]
    );
    let warnings = report(&tally(9, 0, 0, 0, 0), "http://c:4318", false);
    assert_eq!(warnings.len(), 2);
    assert!(warnings[0].contains("did not take the last data within 1 s"), "{warnings:?}");
}
