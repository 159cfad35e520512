//! Unit tests of `decode.rs`.

use super::super::super::test_support::calls_of;
use super::*;

fn decode(chunks: &[&str]) -> (Vec<ModelEvent>, Result<(), ModelError>) {
    let mut events = Vec::new();
    let mut on_event = |e| events.push(e);
    let mut decoder = Decoder::default();
    for chunk in chunks {
        let parsed = serde_json::from_str(chunk).map_err(|e| ModelError::MalformedStream(e.to_string()));
        if let Err(e) = parsed.and_then(|c| decoder.chunk(c, &mut on_event)) {
            return (events, Err(e));
        }
    }
    let result = decoder.finish(&mut on_event);
    (events, result)
}

#[test]
fn decodes_text_thoughts_calls_and_usage() {
    let (events, result) = decode(&[
        r#"{"candidates":[{"content":{"role":"model","parts":[{"text":"pondering","thought":true}]}}]}"#,
        r#"{"candidates":[{"content":{"role":"model","parts":[{"text":"Hel"}]}}]}"#,
        r#"{"candidates":[{"content":{"role":"model","parts":[{"text":"lo"},
                {"functionCall":{"name":"glob","args":{"pattern":"*.rs"}},"thoughtSignature":"c2lnLTE="},
                {"functionCall":{"id":"kept","name":"grep","args":"{not json"}},
                {"functionCall":{"name":"list"}}]},"finishReason":"STOP"}],
              "usageMetadata":{"promptTokenCount":12,"candidatesTokenCount":5,"thoughtsTokenCount":2}}"#,
    ]);
    assert!(result.is_ok(), "{result:?}");
    assert_eq!(
        events[..3],
        [
            ModelEvent::Thought("pondering".into()),
            ModelEvent::TextDelta("Hel".into()),
            ModelEvent::TextDelta("lo".into()),
        ]
    );
    let calls = calls_of(&events);
    assert_eq!(calls.len(), 3);
    assert!(calls[0].id.starts_with(GENERATED_ID_PREFIX));
    assert_eq!(calls[0].arguments, r#"{"pattern":"*.rs"}"#);
    assert_eq!((calls[1].id.as_str(), calls[1].arguments.as_str()), ("kept", "{not json"));
    assert_eq!(calls[2].arguments, "{}");
    assert_ne!(calls[0].id, calls[2].id);
    assert_eq!(calls[0].signature.as_deref(), Some("c2lnLTE="));
    assert_eq!((calls[1].signature.as_ref(), calls[2].signature.as_ref()), (None, None));
    assert_eq!(
        events[events.len() - 2..],
        [
            ModelEvent::Usage(Usage { input_tokens: 12, output_tokens: 7 }),
            ModelEvent::Finished { reason: "STOP".into(), stop: Stop::Normal },
        ]
    );
}

#[test]
fn a_stream_without_finish_reason_is_truncated() {
    let (events, result) = decode(&[r#"{"candidates":[{"content":{"parts":[{"text":"half"}]}}]}"#]);
    assert_eq!(events, [ModelEvent::TextDelta("half".into())]);
    assert!(matches!(result, Err(ModelError::Truncated)));
}

#[test]
fn a_blocked_prompt_finishes_blocked_naming_the_block_reason() {
    let (events, result) = decode(&[r#"{"promptFeedback":{"blockReason":"PROHIBITED_CONTENT"}}"#]);
    assert!(result.is_ok());
    let reason = "prompt blocked: PROHIBITED_CONTENT".into();
    assert_eq!(events, [ModelEvent::Finished { reason, stop: Stop::Blocked }]);
}

#[test]
fn finish_reasons_say_what_they_mean() {
    for (reason, stop) in [
        ("STOP", Stop::Normal),
        ("MAX_TOKENS", Stop::MaxTokens),
        ("SAFETY", Stop::Blocked),
        ("RECITATION", Stop::Blocked),
        ("PROHIBITED_CONTENT", Stop::Blocked),
        ("BLOCKLIST", Stop::Blocked),
        ("SPII", Stop::Blocked),
        ("IMAGE_SAFETY", Stop::Blocked),
        ("OTHER", Stop::Unknown),
        ("FINISH_REASON_UNSPECIFIED", Stop::Unknown),
        ("SOMETHING_NEW", Stop::Unknown),
    ] {
        let chunk =
            format!(r#"{{"candidates":[{{"content":{{"parts":[{{"text":"x"}}]}},"finishReason":"{reason}"}}]}}"#);
        let (events, result) = decode(&[&chunk]);
        assert!(result.is_ok(), "{reason}: {result:?}");
        assert_eq!(events.last(), Some(&ModelEvent::Finished { reason: reason.into(), stop }), "{reason}");
    }
}

#[test]
fn a_malformed_function_call_is_a_retryable_error_quoting_the_first_line() {
    let long = "x".repeat(500);
    let chunk = format!(
        r#"{{"candidates":[{{"finishReason":"MALFORMED_FUNCTION_CALL","finishMessage":"Malformed function call: print(default_api.glob({long}\nsecond line"}}]}}"#
    );
    let (events, result) = decode(&[&chunk]);
    assert!(events.is_empty(), "{events:?}");
    match result {
        Err(error @ ModelError::MalformedCall { .. }) => {
            assert!(error.is_retryable());
            let message = error.to_string();
            assert!(message.contains("MALFORMED_FUNCTION_CALL: Malformed function call: print("), "{message}");
            assert!(message.ends_with("…)") && !message.contains("second line"), "{message}");
        }
        other => panic!("expected a malformed call, got {other:?}"),
    }
    let (_, result) = decode(&[r#"{"candidates":[{"finishReason":"UNEXPECTED_TOOL_CALL"}]}"#]);
    assert!(
        matches!(result, Err(ModelError::MalformedCall { reason, detail: None }) if reason == "UNEXPECTED_TOOL_CALL")
    );
}

#[test]
fn an_error_inside_the_stream_is_reported() {
    let (_, result) = decode(&[r#"{"error":{"code":503,"message":"overloaded","status":"UNAVAILABLE"}}"#]);
    assert!(matches!(result, Err(ModelError::Http { status: 503, body, .. }) if body == "overloaded"));
}
