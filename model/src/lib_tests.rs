//! Unit tests of `model/mod.rs`. Two topics run the same scenarios on all three wires, each a
//! table over the wires: streaming answers and calls ([`wires`]) and fault injection ([`faults`]).
//! [`encoding`] holds the request bodies to the bytes of the old encoders ([`reference`]).

#[path = "lib_tests/encoding.rs"]
mod encoding;
#[path = "lib_tests/faults.rs"]
mod faults;
#[path = "lib_tests/reference.rs"]
mod reference;
#[path = "lib_tests/wires.rs"]
mod wires;

use super::*;

#[test]
fn kinds_round_trip_through_their_names() {
    for kind in ProviderKind::ALL {
        assert_eq!(ProviderKind::from_name(kind.name()), Some(kind));
    }
    assert_eq!(ProviderKind::from_name("claude"), None);
}

#[test]
fn credential_errors_name_the_variable_or_the_missing_setting() {
    let error = ModelError::Auth { status: 401, key_variable: Some("LOCAL_KEY".into()), provider: "local".into() };
    assert!(error.to_string().contains("set LOCAL_KEY"), "{error}");
    let error = ModelError::Auth { status: 403, key_variable: None, provider: "local".into() };
    assert!(error.to_string().contains("[providers.local]"), "{error}");
}

#[test]
fn only_what_a_person_or_the_history_sees_blocks_a_retry() {
    let call = FunctionCall { id: "c".into(), name: "t".into(), arguments: "{}".into(), signature: None };
    for seen in [ModelEvent::TextDelta("a".into()), ModelEvent::Thought("b".into()), ModelEvent::FunctionCall(call)] {
        assert!(seen.is_seen(), "{seen:?}");
    }
    let unseen = [
        ModelEvent::Usage(Usage { input_tokens: 10, output_tokens: 0 }),
        ModelEvent::Finished { reason: "end_turn".into(), stop: Stop::Normal },
        ModelEvent::Retrying { attempt: 1, max: 4, delay: Duration::ZERO, reason: "r".into() },
    ];
    for event in unseen {
        assert!(!event.is_seen(), "{event:?}");
    }
}

#[test]
fn generated_call_ids_are_unique() {
    assert_ne!(generated_call_id("x-"), generated_call_id("x-"));
}
