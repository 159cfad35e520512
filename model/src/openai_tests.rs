//! Unit tests of `openai.rs`.

use airlock_tests::{MockModel, Turn, Wire};
use serde_json::json;

use super::super::ProviderKind;
use super::super::test_support::{calls_of, config, parsed, sample_history, sample_tools, stream_all, text_of};
use super::*;

/// Runs chunks through a decoder the way [`stream`] does.
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
fn request_body_carries_history_system_and_tools() {
    let history = sample_history();
    let tools = sample_tools();
    let body = parsed(request_body(
        "m",
        &ModelRequest { system: Some("be brief"), messages: &history, tools: &tools, cache: None, output_schema: None },
    ));
    let expected = json!({
        "model": "m",
        "messages": [
            { "role": "system", "content": "be brief" },
            { "role": "user", "content": "read two files" },
            { "role": "assistant", "content": "Reading them.", "tool_calls": [
                { "id": "call-a", "type": "function",
                  "function": { "name": "read_file", "arguments": "{\"path\":\"a.txt\"}" } },
                { "id": "gemini-call-1000", "type": "function",
                  "function": { "name": "read_file", "arguments": "{\"path\": \"b.txt\"" } },
            ] },
            { "role": "tool", "tool_call_id": "call-a", "content": "alpha" },
            { "role": "tool", "tool_call_id": "gemini-call-1000", "content": "Error: no such file: b.txt" },
        ],
        "stream": true,
        "stream_options": { "include_usage": true },
        "tools": [{ "type": "function", "function": {
            "name": "read_file",
            "description": "Reads a file",
            "parameters": { "type": "object", "properties": { "path": { "type": "string" } } },
        } }],
    });
    assert_eq!(body, expected);
}

#[test]
fn request_body_omits_empty_tools_and_puts_tool_messages_before_user_text() {
    let history = vec![
        Message {
            role: Role::Model,
            parts: vec![Part::FunctionCall(FunctionCall {
                id: "c".into(),
                name: "glob".into(),
                arguments: "{}".into(),
                signature: None,
            })],
        },
        Message {
            role: Role::User,
            parts: vec![
                Part::Text { text: "also this".into() },
                Part::FunctionResponse(super::super::FunctionResponse {
                    id: "c".into(),
                    name: "glob".into(),
                    content: "x".into(),
                    is_error: false,
                    media: Vec::new(),
                }),
            ],
        },
    ];
    let body = parsed(request_body(
        "m",
        &ModelRequest { system: None, messages: &history, tools: &[], cache: None, output_schema: None },
    ));
    assert!(body.get("tools").is_none());
    assert_eq!(
        body["messages"],
        json!([
            { "role": "assistant", "content": null, "tool_calls": [
                { "id": "c", "type": "function", "function": { "name": "glob", "arguments": "{}" } },
            ] },
            { "role": "tool", "tool_call_id": "c", "content": "x" },
            { "role": "user", "content": "also this" },
        ])
    );
}

#[test]
fn assembles_parallel_calls_from_interleaved_fragments() {
    let (events, result) = decode(&[
        r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":"","reasoning_content":"hmm"}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"content":"Sure."}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"read_file","arguments":""}}]}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"b","type":"function","function":{"name":"glob","arguments":"{\"pat"}}]}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"path\":"}}]}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"tern\":\"*\"}"}},{"index":0,"function":{"arguments":"\"a\"}"}}]}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":2,"function":{"name":"list_directory"}}]},"finish_reason":null}]}"#,
        r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":null}"#,
        r#"{"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":4,"total_tokens":13}}"#,
    ]);
    assert!(result.is_ok(), "{result:?}");
    assert_eq!(events[..2], [ModelEvent::Thought("hmm".into()), ModelEvent::TextDelta("Sure.".into())]);
    let calls = calls_of(&events);
    assert_eq!(calls.len(), 3);
    assert_eq!((calls[0].id.as_str(), calls[0].name.as_str()), ("a", "read_file"));
    assert_eq!(calls[0].arguments, r#"{"path":"a"}"#);
    assert_eq!((calls[1].id.as_str(), calls[1].arguments.as_str()), ("b", r#"{"pattern":"*"}"#));
    assert_eq!(calls[2].name, "list_directory");
    assert_eq!(calls[2].arguments, "{}");
    assert!(calls[2].id.starts_with("call-"));
    assert_eq!(
        events[events.len() - 2..],
        [
            ModelEvent::Usage(Usage { input_tokens: 9, output_tokens: 4 }),
            ModelEvent::Finished { reason: "tool_calls".into(), stop: Stop::Normal },
        ]
    );
}

#[test]
fn tolerates_missing_indexes_repeated_names_and_object_arguments() {
    let (events, result) = decode(&[
        r#"{"choices":[{"delta":{"tool_calls":[{"id":"x","function":{"name":"glob","arguments":"{\"a\""}}]}}]}"#,
        r#"{"choices":[{"delta":{"tool_calls":[{"id":"x","function":{"name":"glob","arguments":":1}"}}]}}]}"#,
        r#"{"choices":[{"delta":{"tool_calls":[{"id":"y","function":{"name":"grep","arguments":{"q":"z"}}}]}}]}"#,
        r#"{"choices":[{"delta":{},"finish_reason":"stop"}]}"#,
    ]);
    assert!(result.is_ok(), "{result:?}");
    let calls = calls_of(&events);
    assert_eq!(calls.len(), 2);
    assert_eq!((calls[0].name.as_str(), calls[0].arguments.as_str()), ("glob", r#"{"a":1}"#));
    assert_eq!((calls[1].name.as_str(), calls[1].arguments.as_str()), ("grep", r#"{"q":"z"}"#));
    assert!(matches!(events.last(), Some(ModelEvent::Finished { reason, .. }) if reason == "stop"));
}

#[test]
fn a_stream_without_a_finish_reason_is_cut_even_when_it_says_done() {
    let (events, result) = decode(&[r#"{"choices":[{"index":0,"delta":{"content":"half"}}]}"#]);
    assert_eq!(events, [ModelEvent::TextDelta("half".into())]);
    assert!(matches!(result, Err(ModelError::Truncated)));
    let (events, result) = decode(&[
        r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"glob"}}]}}]}"#,
    ]);
    assert!(events.is_empty(), "a call of a cut stream is never passed on: {events:?}");
    assert!(matches!(result, Err(ModelError::Truncated)));
}

#[tokio::test]
async fn done_without_a_finish_reason_is_a_cut_stream_and_retried() {
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::raw_sse(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"}}]}\n\ndata: [DONE]\n\n",
    ));
    mock.push_turn(Turn::text("whole"));
    let history = sample_history();
    let request = ModelRequest { system: None, messages: &history, tools: &[], cache: None, output_schema: None };
    let (events, result) = stream_all(config(ProviderKind::Openai, &mock.base_url()), request).await;
    assert!(result.is_ok(), "{result:?}");
    assert_eq!(mock.requests().len(), 2);
    assert_eq!(text_of(&events), "whole");
}

#[test]
fn finish_reasons_say_what_they_mean() {
    for (reason, stop) in [
        ("stop", Stop::Normal),
        ("tool_calls", Stop::Normal),
        ("length", Stop::MaxTokens),
        ("content_filter", Stop::Blocked),
        ("something_new", Stop::Unknown),
    ] {
        let finish = format!(r#"{{"choices":[{{"index":0,"delta":{{"content":"x"}},"finish_reason":"{reason}"}}]}}"#);
        let (events, result) = decode(&[&finish]);
        assert!(result.is_ok(), "{reason}: {result:?}");
        assert_eq!(events.last(), Some(&ModelEvent::Finished { reason: reason.into(), stop }), "{reason}");
    }
}

#[test]
fn an_error_inside_the_stream_is_reported() {
    let (_, result) = decode(&[r#"{"error":{"message":"upstream overloaded","code":502}}"#]);
    assert!(matches!(result, Err(ModelError::Http { status: 502, body, .. }) if body == "upstream overloaded"));
}

#[test]
fn media_go_in_a_user_message_after_the_tool_results() {
    let history = super::super::test_support::media_history();
    let request = ModelRequest { system: None, messages: &history, tools: &[], cache: None, output_schema: None };
    let body = parsed(request_body("m", &request));
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(
        messages[0],
        json!({ "role": "user", "content": [
            { "type": "text", "text": "look" },
            { "type": "image_url", "image_url": { "url": "data:image/gif;base64,R0lG" } },
        ] })
    );
    assert_eq!(messages[2]["role"], "tool");
    assert_eq!(messages[2]["content"], "two files");
    let lost = "[image/png \"lost.png\", 0 bytes, not shown to the model: its bytes were not kept]";
    assert_eq!(
        messages[3],
        json!({ "role": "user", "content": [
            { "type": "text", "text": "What the call call-a (read_file) returned:" },
            { "type": "image_url", "image_url": { "url": "data:image/png;base64,UE5H" } },
            { "type": "file", "file": { "filename": "d.pdf", "file_data": "data:application/pdf;base64,JVBERg==" } },
            { "type": "text", "text": lost },
        ] })
    );
    assert_eq!(messages.len(), 4);
}
