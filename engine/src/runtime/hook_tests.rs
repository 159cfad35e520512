//! Unit tests of `hook.rs`: the reply's bounds and the conversions.

use super::*;

fn reply() -> wit::Reply {
    wit::Reply { verdict: Some(wit::Verdict::Deny), reason: Some("no".into()), context: None, arguments: None }
}

#[test]
fn a_reply_within_its_bounds_is_kept_whole() {
    let answer = from_wit_reply(wit::Reply { arguments: Some(r#"{"file_path":"a"}"#.into()), ..reply() }).unwrap();
    assert_eq!(answer.verdict, Some(HookVerdict::Deny));
    assert_eq!(answer.reason.as_deref(), Some("no"));
    assert_eq!(answer.arguments, Some(serde_json::json!({"file_path": "a"})));
}

#[test]
fn a_reply_over_a_bound_is_flooded_not_cut() {
    let long = "x".repeat(MAX_REPLY_TEXT + 1);
    assert_eq!(
        from_wit_reply(wit::Reply { reason: Some(long.clone()), ..reply() }),
        Err(HookFailure::Flooded(MAX_REPLY_TEXT))
    );
    assert_eq!(
        from_wit_reply(wit::Reply { context: Some(long), ..reply() }),
        Err(HookFailure::Flooded(MAX_REPLY_TEXT))
    );
    let arguments = format!("\"{}\"", "y".repeat(MAX_REPLY_ARGUMENTS));
    assert_eq!(
        from_wit_reply(wit::Reply { arguments: Some(arguments), ..reply() }),
        Err(HookFailure::Flooded(MAX_REPLY_ARGUMENTS))
    );
    // Exactly at the bound is accepted.
    let at = "z".repeat(MAX_REPLY_TEXT);
    assert!(from_wit_reply(wit::Reply { reason: Some(at), ..reply() }).is_ok());
}

#[test]
fn arguments_that_are_not_json_are_an_invalid_reply() {
    let answer = from_wit_reply(wit::Reply { arguments: Some("{not json".into()), ..reply() });
    assert!(matches!(answer, Err(HookFailure::Invalid(ref m)) if m.contains("not JSON")), "{answer:?}");
}

#[test]
fn every_event_name_goes_there_and_back() {
    for name in HookEventName::ALL {
        assert_eq!(event_name(wit_event_name(name)), name);
    }
}
