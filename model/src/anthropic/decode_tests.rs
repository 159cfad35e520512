//! Unit tests of `decode.rs`.

use super::*;

/// Runs events through a decoder the way the stream does.
fn decode(events: &[&str]) -> (Vec<ModelEvent>, Result<bool, ModelError>) {
    let mut out = Vec::new();
    let mut on_event = |e| out.push(e);
    let mut decoder = Decoder::default();
    let mut done = Ok(false);
    for event in events {
        let parsed = serde_json::from_str(event).map_err(|e| ModelError::MalformedStream(e.to_string()));
        done = parsed.and_then(|e| decoder.event(e, &mut on_event));
        if !matches!(done, Ok(false)) {
            break;
        }
    }
    (out, done)
}

#[test]
fn decodes_text_thinking_calls_and_usage() {
    let (events, done) = decode(&[
        r#"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],
                "model":"claude","stop_reason":null,"usage":{"input_tokens":20,"cache_read_input_tokens":5,"output_tokens":1}}}"#,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hmm"}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"c2ln"}}"#,
        r#"{"type":"content_block_stop","index":0}"#,
        r#"{"type":"ping"}"#,
        r#"{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}"#,
        r#"{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Sure"}}"#,
        r#"{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"."}}"#,
        r#"{"type":"content_block_stop","index":1}"#,
        r#"{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_a","name":"read_file","input":{}}}"#,
        r#"{"type":"content_block_start","index":3,"content_block":{"type":"tool_use","id":"toolu_b","name":"list","input":{}}}"#,
        r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}}"#,
        r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"path\": \"a"}}"#,
        r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":".txt\"}"}}"#,
        r#"{"type":"content_block_stop","index":2}"#,
        r#"{"type":"content_block_stop","index":3}"#,
        r#"{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":42}}"#,
        r#"{"type":"message_stop"}"#,
    ]);
    assert!(matches!(done, Ok(true)), "{done:?}");
    let call = |id: &str, name: &str, arguments: &str| {
        ModelEvent::FunctionCall(FunctionCall {
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
            signature: None,
        })
    };
    assert_eq!(
        events,
        [
            ModelEvent::Thought("hmm".into()),
            ModelEvent::TextDelta("Sure".into()),
            ModelEvent::TextDelta(".".into()),
            call("toolu_a", "read_file", r#"{"path": "a.txt"}"#),
            call("toolu_b", "list", "{}"),
            ModelEvent::Usage(Usage { input_tokens: 25, output_tokens: 42 }),
            ModelEvent::Finished { reason: "tool_use".into(), stop: Stop::Normal },
        ]
    );
}

#[test]
fn raw_argument_text_passes_through_unparsed() {
    let (events, done) = decode(&[
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"grep","input":{}}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{not json"}}"#,
        r#"{"type":"content_block_stop","index":0}"#,
        r#"{"type":"message_stop"}"#,
    ]);
    assert!(matches!(done, Ok(true)));
    assert!(matches!(&events[0], ModelEvent::FunctionCall(c) if c.arguments == "{not json"));
    assert_eq!(events.last(), Some(&ModelEvent::Finished { reason: "end_turn".into(), stop: Stop::Normal }));
}

#[test]
fn error_events_become_http_errors_with_their_status() {
    let (_, done) = decode(&[r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#]);
    assert!(matches!(done, Err(ModelError::Http { status: 529, body, .. }) if body == "Overloaded"));
    let (_, done) = decode(&[r#"{"type":"error","error":{"type":"rate_limit_error"}}"#]);
    assert!(matches!(done, Err(ModelError::Http { status: 429, body, .. }) if body == "rate_limit_error"));
}

#[test]
fn unknown_events_and_blocks_are_skipped() {
    let (events, done) = decode(&[
        r#"{"type":"brand_new_event","data":1}"#,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"server_tool_use","id":"s","name":"web"}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{}"}}"#,
        r#"{"type":"content_block_stop","index":0}"#,
    ]);
    assert!(matches!(done, Ok(false)));
    assert!(events.is_empty(), "{events:?}");
}

#[test]
fn stop_reasons_say_what_they_mean() {
    for (reason, stop) in [
        ("end_turn", Stop::Normal),
        ("tool_use", Stop::Normal),
        ("stop_sequence", Stop::Normal),
        ("max_tokens", Stop::MaxTokens),
        ("refusal", Stop::Blocked),
        ("pause_turn", Stop::Paused),
        ("brand_new_reason", Stop::Unknown),
    ] {
        let delta = format!(r#"{{"type":"message_delta","delta":{{"stop_reason":"{reason}"}}}}"#);
        let (events, done) = decode(&[&delta, r#"{"type":"message_stop"}"#]);
        assert!(matches!(done, Ok(true)), "{reason}");
        assert_eq!(events.last(), Some(&ModelEvent::Finished { reason: reason.into(), stop }), "{reason}");
    }
}

#[test]
fn a_tool_call_cut_at_the_token_limit_is_passed_on_with_the_limit() {
    let (events, done) = decode(&[
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"write_file","input":{}}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"path\":\"a"}}"#,
        r#"{"type":"message_delta","delta":{"stop_reason":"max_tokens"}}"#,
        r#"{"type":"message_stop"}"#,
    ]);
    assert!(matches!(done, Ok(true)));
    assert!(matches!(&events[0], ModelEvent::FunctionCall(c) if c.arguments == r#"{"path":"a"#));
    assert_eq!(events.last(), Some(&ModelEvent::Finished { reason: "max_tokens".into(), stop: Stop::MaxTokens }));
}
