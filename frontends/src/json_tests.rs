//! Unit tests of `json.rs`.

use super::*;

use airlock_protocol::{ErrorBody, Event, StampedEvent};

#[test]
fn a_stamped_event_is_the_event_with_its_timestamp_keys_sorted() {
    let event = Event::TurnStarted { turn: 3 };
    let mut out = Vec::new();
    write_line(&mut out, &StampedEvent { event, timestamp: 17 }).unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), "{\"timestamp\":17,\"turn\":3,\"type\":\"turn_started\"}\n");
}

#[test]
fn an_error_body_prints_its_kind_as_type() {
    let mut out = Vec::new();
    write_line(&mut out, &ErrorBody { message: "m".into(), kind: "max_turns".into() }).unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), "{\"message\":\"m\",\"type\":\"max_turns\"}\n");
}
