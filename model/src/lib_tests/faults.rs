//! Fault injection against the mock model, the same scenarios on all three wires: rate
//! limits and server errors are retried (honouring `Retry-After`) until they pass or the
//! attempts run out; streams that stall, break off or turn to garbage are retried while
//! nothing of the answer has been passed on, and are a clear error afterwards; a Gemini
//! malformed function call is asked for again, at most twice.

use std::time::Duration;

use airlock_tests::{MockModel, Turn, Wire};

use crate::test_support::{config, fast_retries, sample_history, stream_all, text_of};
use crate::{ModelError, ModelEvent, ModelRequest, ProviderConfig, ProviderKind};

const WIRES: [(Wire, ProviderKind); 3] = [
    (Wire::Gemini, ProviderKind::Gemini),
    (Wire::OpenAi, ProviderKind::Openai),
    (Wire::Anthropic, ProviderKind::Anthropic),
];

/// A mock for `wire` with `turns` scripted, and a client config pointed at it.
fn scripted(wire: Wire, kind: ProviderKind, turns: Vec<Turn>) -> (MockModel, ProviderConfig) {
    let mock = MockModel::start(wire);
    for turn in turns {
        mock.push_turn(turn);
    }
    let mut config = config(kind, &mock.base_url());
    config.idle_timeout = Duration::from_millis(300);
    (mock, config)
}

async fn run(config: ProviderConfig) -> (Vec<ModelEvent>, Result<(), ModelError>) {
    let history = sample_history();
    stream_all(config, ModelRequest { system: None, messages: &history, tools: &[], cache: None, output_schema: None })
        .await
}

/// The `(attempt, max, delay)` of every retry announced.
fn retries(events: &[ModelEvent]) -> Vec<(u32, u32, Duration)> {
    events
        .iter()
        .filter_map(|e| match e {
            ModelEvent::Retrying { attempt, max, delay, .. } => Some((*attempt, *max, *delay)),
            _ => None,
        })
        .collect()
}

fn finished(events: &[ModelEvent]) -> bool {
    matches!(events.last(), Some(ModelEvent::Finished { .. }))
}

#[tokio::test]
async fn rate_limits_twice_then_success_completes_after_two_announced_retries() {
    for (wire, kind) in WIRES {
        let limited = || Turn::status_with_headers(429, [("retry-after", "0")], r#"{"error":{"message":"slow down"}}"#);
        let (mock, config) = scripted(wire, kind, vec![limited(), limited(), Turn::text("Recovered.")]);
        let (events, result) = run(config).await;
        assert!(result.is_ok(), "{wire:?}: {result:?}");
        assert_eq!(mock.requests().len(), 3, "{wire:?}");
        assert_eq!(retries(&events), [(1, 4, Duration::ZERO), (2, 4, Duration::ZERO)], "{wire:?}");
        let reason = events.iter().find_map(|e| match e {
            ModelEvent::Retrying { reason, .. } => Some(reason.clone()),
            _ => None,
        });
        assert!(reason.is_some_and(|r| r.contains("429") && r.contains("slow down")), "{wire:?}");
        assert_eq!(text_of(&events), "Recovered.", "{wire:?}");
        assert!(finished(&events), "{wire:?}");
    }
}

#[tokio::test]
async fn a_server_error_then_success_completes() {
    for (wire, kind) in WIRES {
        let (mock, config) = scripted(wire, kind, vec![Turn::status(500, "oops"), Turn::text("fine")]);
        let (events, result) = run(config).await;
        assert!(result.is_ok(), "{wire:?}: {result:?}");
        assert_eq!((mock.requests().len(), retries(&events).len()), (2, 1), "{wire:?}");
        assert_eq!(text_of(&events), "fine");
    }
}

#[tokio::test]
async fn a_persisting_server_error_gives_up_after_the_last_attempt() {
    for (wire, kind) in WIRES {
        let body = r#"{"error":{"message":"the model is on fire"}}"#;
        let (mock, mut config) = scripted(wire, kind, vec![Turn::status(503, body).forever()]);
        config.retry = fast_retries(3);
        let (events, result) = run(config).await;
        assert_eq!(mock.requests().len(), 3, "{wire:?}");
        assert_eq!(retries(&events).len(), 2, "{wire:?}");
        let message = result.as_ref().err().map(ToString::to_string).unwrap_or_default();
        assert!(
            matches!(&result, Err(ModelError::GaveUp { attempts: 3, last }) if matches!(**last, ModelError::Http { status: 503, .. })),
            "{wire:?}: {result:?}"
        );
        assert!(message.contains("gave up after 3 attempts") && message.contains("on fire"), "{message}");
    }
}

#[tokio::test]
async fn a_single_attempt_policy_reports_the_error_itself() {
    let (mock, mut config) = scripted(Wire::OpenAi, ProviderKind::Openai, vec![Turn::status(502, "bad gateway")]);
    config.retry = fast_retries(1);
    let (events, result) = run(config).await;
    assert!(retries(&events).is_empty());
    assert!(matches!(result, Err(ModelError::Http { status: 502, .. })), "{result:?}");
    assert_eq!(mock.requests().len(), 1);
}

#[tokio::test]
async fn a_requested_wait_is_capped_at_the_longest_delay() {
    let (_mock, mut config) = scripted(
        Wire::Anthropic,
        ProviderKind::Anthropic,
        vec![Turn::status_with_headers(529, [("retry-after", "3600")], "overloaded"), Turn::text("ok")],
    );
    config.retry.max_delay = Duration::from_millis(20);
    let (events, result) = run(config).await;
    assert!(result.is_ok(), "{result:?}");
    assert_eq!(retries(&events), [(1, 4, Duration::from_millis(20))]);
}

#[tokio::test]
async fn refused_credentials_and_bad_requests_are_not_retried() {
    for (wire, kind) in WIRES {
        let (mock, config) = scripted(wire, kind, vec![Turn::status(401, "no"), Turn::status(400, "bad")]);
        let (events, result) = run(config.clone()).await;
        assert!(
            matches!(&result, Err(ModelError::Auth { status: 401, key_variable: Some(v), .. }) if v == kind.key_variable()),
            "{wire:?}: {result:?}"
        );
        let (more, result) = run(config).await;
        assert!(matches!(result, Err(ModelError::Http { status: 400, .. })), "{wire:?}: {result:?}");
        assert!(retries(&events).is_empty() && retries(&more).is_empty());
        assert_eq!(mock.requests().len(), 2, "{wire:?}");
    }
}

#[tokio::test]
async fn a_stall_before_any_output_is_retried() {
    for (wire, kind) in WIRES {
        let (mock, config) = scripted(wire, kind, vec![Turn::stall(), Turn::stall_after_text(""), Turn::text("ok")]);
        let (events, result) = run(config).await;
        assert!(result.is_ok(), "{wire:?}: {result:?}");
        assert_eq!(mock.requests().len(), 3, "{wire:?}");
        let reasons: Vec<String> = events
            .iter()
            .filter_map(|e| match e {
                ModelEvent::Retrying { reason, .. } => Some(reason.clone()),
                _ => None,
            })
            .collect();
        assert!(reasons.len() == 2 && reasons.iter().all(|r| r.contains("silent")), "{wire:?}: {reasons:?}");
        assert_eq!(text_of(&events), "ok");
    }
}

#[tokio::test]
async fn a_stall_after_output_is_an_error_without_a_retry() {
    for (wire, kind) in WIRES {
        let (mock, config) = scripted(wire, kind, vec![Turn::stall_after_text("partial answer"), Turn::text("x")]);
        let (events, result) = run(config).await;
        assert_eq!(mock.requests().len(), 1, "{wire:?}");
        assert_eq!(text_of(&events), "partial answer", "{wire:?}");
        assert!(retries(&events).is_empty());
        assert!(
            matches!(&result, Err(ModelError::Interrupted(inner)) if matches!(**inner, ModelError::IdleTimeout(_))),
            "{wire:?}: {result:?}"
        );
        let message = result.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(message.contains("silent") && message.contains("did not retry"), "{message}");
    }
}

#[tokio::test]
async fn a_truncated_stream_is_retried_before_output_and_an_error_after() {
    for (wire, kind) in WIRES {
        let turns = vec![Turn::truncated_after(""), Turn::raw_sse(""), Turn::text("whole")];
        let (mock, config) = scripted(wire, kind, turns);
        let (events, result) = run(config).await;
        assert!(result.is_ok(), "{wire:?}: {result:?}");
        assert_eq!((mock.requests().len(), retries(&events).len()), (3, 2), "{wire:?}");
        assert_eq!(text_of(&events), "whole");

        let (mock, config) = scripted(wire, kind, vec![Turn::truncated_after("half of it"), Turn::text("x")]);
        let (events, result) = run(config).await;
        assert_eq!(mock.requests().len(), 1, "{wire:?}");
        assert_eq!(text_of(&events), "half of it");
        assert!(
            matches!(&result, Err(ModelError::Interrupted(inner)) if matches!(**inner, ModelError::Truncated)),
            "{wire:?}: {result:?}"
        );
    }
}

#[tokio::test]
async fn a_malformed_stream_is_retried_before_output_and_an_error_after() {
    for (wire, kind) in WIRES {
        let (mock, config) =
            scripted(wire, kind, vec![Turn::raw_sse("data: {oops\n\n"), Turn::malformed_after(""), Turn::text("ok")]);
        let (events, result) = run(config).await;
        assert!(result.is_ok(), "{wire:?}: {result:?}");
        assert_eq!((mock.requests().len(), retries(&events).len()), (3, 2), "{wire:?}");

        let (mock, config) = scripted(wire, kind, vec![Turn::malformed_after("some text"), Turn::text("x")]);
        let (events, result) = run(config).await;
        assert_eq!(mock.requests().len(), 1, "{wire:?}");
        assert_eq!(text_of(&events), "some text");
        let message = result.as_ref().err().map(ToString::to_string).unwrap_or_default();
        assert!(
            matches!(&result, Err(ModelError::Interrupted(inner)) if matches!(**inner, ModelError::MalformedStream(_))),
            "{wire:?}: {result:?}"
        );
        assert!(message.contains("malformed") && message.contains("this is not json"), "{message}");
    }
}

#[tokio::test]
async fn an_error_event_before_output_is_retried() {
    let overloaded = concat!(
        "event: error\n",
        "data: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n",
    );
    let (mock, config) =
        scripted(Wire::Anthropic, ProviderKind::Anthropic, vec![Turn::raw_sse(overloaded), Turn::text("ok")]);
    let (events, result) = run(config).await;
    assert!(result.is_ok(), "{result:?}");
    assert_eq!(mock.requests().len(), 2);
    assert!(
        matches!(&events[0], ModelEvent::Retrying { reason, .. } if reason.contains("529") && reason.contains("Overloaded"))
    );
}

#[tokio::test]
async fn extra_headers_go_on_every_request() {
    for (wire, kind) in WIRES {
        let (mock, mut config) = scripted(wire, kind, vec![Turn::status(500, "once"), Turn::text("ok")]);
        config.headers = vec![("X-Org".into(), "acme".into()), ("x-trace".into(), "t-1".into())];
        let (_, result) = run(config).await;
        assert!(result.is_ok(), "{wire:?}: {result:?}");
        for request in mock.recorded() {
            assert_eq!((request.header("x-org"), request.header("x-trace")), (Some("acme"), Some("t-1")), "{wire:?}");
        }
    }
}

#[tokio::test]
async fn a_malformed_function_call_is_asked_again_at_most_twice() {
    let malformed = concat!(
        "data: {\"candidates\":[{\"finishReason\":\"MALFORMED_FUNCTION_CALL\",",
        "\"finishMessage\":\"Malformed function call: print(x\"}]}\r\n\r\n",
    );
    let (mock, config) =
        scripted(Wire::Gemini, ProviderKind::Gemini, vec![Turn::raw_sse(malformed), Turn::text("well formed")]);
    let (events, result) = run(config).await;
    assert!(result.is_ok(), "{result:?}");
    assert_eq!(mock.requests().len(), 2);
    assert_eq!(retries(&events).iter().map(|(attempt, max, _)| (*attempt, *max)).collect::<Vec<_>>(), [(1, 2)]);
    assert_eq!(text_of(&events), "well formed");

    let (mock, config) = scripted(Wire::Gemini, ProviderKind::Gemini, vec![Turn::raw_sse(malformed).forever()]);
    let (_, result) = run(config).await;
    assert_eq!(mock.requests().len(), 3);
    assert!(
        matches!(&result, Err(ModelError::GaveUp { attempts: 3, last }) if matches!(**last, ModelError::MalformedCall { .. })),
        "{result:?}"
    );
}
