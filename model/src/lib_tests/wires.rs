//! The three wires against the mock model, one table: each provider streams a text answer
//! and parallel calls the same way, and sends its key, path and body the way its API wants.
//! What differs between the wires is a column of [`WIRES`]; the assertions are shared.

use airlock_tests::{MockModel, Turn, Wire, call, declared_tools, function_responses};
use serde_json::{Value, json};

use crate::test_support::{calls_of, config, sample_history, sample_tools, stream_all, text_of};
use crate::{ModelEvent, ModelRequest, ProviderKind, Stop, Usage};

/// One wire: how its requests look and how it names the end of an answer.
struct WireCase {
    wire: Wire,
    kind: ProviderKind,
    /// The path (and query) the request goes to.
    path: &'static str,
    /// Headers the request must carry (`Some`) or must not (`None`).
    headers: &'static [(&'static str, Option<&'static str>)],
    /// The finish reason of a text answer, and of an answer with calls.
    text_finish: &'static str,
    calls_finish: &'static str,
    /// Whether the wire carries call ids (Gemini's has none: the client makes them up).
    keeps_call_ids: bool,
    /// What else the body of a text request must hold (sent with system `sys`, max tokens 321).
    body: fn(&Value),
}

const WIRES: [WireCase; 3] = [
    WireCase {
        wire: Wire::Gemini,
        kind: ProviderKind::Gemini,
        path: "/v1beta/models/test-model:streamGenerateContent?alt=sse",
        headers: &[("x-goog-api-key", Some("test-key")), ("authorization", None)],
        text_finish: "STOP",
        calls_finish: "STOP",
        keeps_call_ids: false,
        body: |_| {},
    },
    WireCase {
        wire: Wire::OpenAi,
        kind: ProviderKind::Openai,
        path: "/v1/chat/completions",
        headers: &[("authorization", Some("Bearer test-key"))],
        text_finish: "stop",
        calls_finish: "tool_calls",
        keeps_call_ids: true,
        body: |body| assert_eq!(body["model"], "test-model"),
    },
    WireCase {
        wire: Wire::Anthropic,
        kind: ProviderKind::Anthropic,
        path: "/v1/messages",
        headers: &[("x-api-key", Some("test-key")), ("anthropic-version", Some("2023-06-01")), ("authorization", None)],
        text_finish: "end_turn",
        calls_finish: "tool_use",
        keeps_call_ids: true,
        body: |body| {
            assert_eq!((body["model"].as_str(), body["max_tokens"].as_u64()), (Some("test-model"), Some(321)));
            assert_eq!((body["system"].as_str(), body["stream"].as_bool()), (Some("sys"), Some(true)));
            assert_eq!(body["tools"][0]["input_schema"]["properties"]["path"]["type"], "string");
        },
    },
];

#[tokio::test]
async fn streams_a_text_answer_from_the_mock_on_every_wire() {
    for case in &WIRES {
        let wire = case.wire;
        let mock = MockModel::start(wire);
        mock.push_turn(Turn::text("Hello from the mock").with_usage(42, 7));
        let history = sample_history();
        let tools = sample_tools();
        let request =
            ModelRequest { system: Some("sys"), messages: &history, tools: &tools, cache: None, output_schema: None };
        let mut config = config(case.kind, &mock.base_url());
        config.max_tokens = 321;
        let (events, result) = stream_all(config, request).await;
        assert!(result.is_ok(), "{wire:?}: {result:?}");
        assert_eq!(text_of(&events), "Hello from the mock", "{wire:?}");
        assert!(events.iter().filter(|e| matches!(e, ModelEvent::TextDelta(_))).count() >= 2, "{wire:?}");
        assert_eq!(
            events[events.len() - 2..],
            [
                ModelEvent::Usage(Usage { input_tokens: 42, output_tokens: 7 }),
                ModelEvent::Finished { reason: case.text_finish.into(), stop: Stop::Normal },
            ],
            "{wire:?}"
        );

        let recorded = mock.recorded();
        assert_eq!(recorded.len(), 1, "{wire:?}");
        assert_eq!(recorded[0].path, case.path, "{wire:?}");
        for (name, value) in case.headers {
            assert_eq!(recorded[0].header(name), *value, "{wire:?}: header {name}");
        }
        (case.body)(&recorded[0].body);
        assert_eq!(declared_tools(&recorded[0].body), ["read_file"], "{wire:?}");
        assert_eq!(
            function_responses(&recorded[0].body),
            [
                ("read_file".to_owned(), "alpha".to_owned()),
                ("read_file".to_owned(), "Error: no such file: b.txt".to_owned()),
            ],
            "{wire:?}"
        );
    }
}

#[tokio::test]
async fn streams_parallel_calls_and_raw_arguments_from_the_mock_on_every_wire() {
    for case in &WIRES {
        let wire = case.wire;
        let mock = MockModel::start(wire);
        mock.push_turn(Turn::text_and_calls(
            "Looking.",
            vec![
                call("read_file", json!({ "path": "a.txt" })),
                call("glob", json!({ "pattern": "**/*.rs" })),
                call("read_file", json!({ "path": "b.txt" })).with_id("fixed-id"),
                call("list", json!({})),
            ],
        ));
        mock.push_turn(Turn::call_with_raw_args("read_file", "{not json"));
        let history = sample_history();
        let request = ModelRequest { system: None, messages: &history, tools: &[], cache: None, output_schema: None };
        let config = config(case.kind, &mock.base_url());

        let (events, result) = stream_all(config.clone(), request).await;
        assert!(result.is_ok(), "{wire:?}: {result:?}");
        assert_eq!(text_of(&events), "Looking.", "{wire:?}");
        let calls = calls_of(&events);
        let named: Vec<&str> = calls.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(named, ["read_file", "glob", "read_file", "list"], "{wire:?}");
        let arguments = |i: usize| serde_json::from_str::<Value>(&calls[i].arguments).ok();
        assert_eq!(arguments(0), Some(json!({ "path": "a.txt" })), "{wire:?}");
        assert_eq!(arguments(1), Some(json!({ "pattern": "**/*.rs" })), "{wire:?}");
        assert_eq!(calls[3].arguments, "{}", "{wire:?}");
        let mut ids: Vec<&str> = calls.iter().map(|c| c.id.as_str()).collect();
        if case.keeps_call_ids {
            assert_eq!(ids[2], "fixed-id", "{wire:?}");
        }
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), 4, "{wire:?}: every call has an id of its own");
        assert!(
            matches!(events.last(), Some(ModelEvent::Finished { reason, .. }) if reason == case.calls_finish),
            "{wire:?}: {:?}",
            events.last()
        );

        let (events, result) = stream_all(config, request).await;
        assert!(result.is_ok(), "{wire:?}: {result:?}");
        assert_eq!(calls_of(&events).first().map(|c| c.arguments.as_str()), Some("{not json"), "{wire:?}");
    }
}
