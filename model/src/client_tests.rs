//! Unit tests of `client.rs`.

use super::super::test_support::{config, sample_history, stream_all};
use super::*;

#[tokio::test]
async fn an_unreachable_server_is_retried_then_a_connect_error_naming_the_url() {
    // A port that was free a moment ago: nothing listens there now.
    let port = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port());
    let base = format!("http://127.0.0.1:{}/v1", port.unwrap_or(9));
    let history = sample_history();
    let request = ModelRequest { system: None, messages: &history, tools: &[], cache: None, output_schema: None };
    let (events, result) = stream_all(config(ProviderKind::Openai, &base), request).await;
    assert_eq!(events.iter().filter(|e| matches!(e, ModelEvent::Retrying { .. })).count(), 4);
    match result {
        Err(ModelError::GaveUp { attempts: 5, last }) => match *last {
            ModelError::Connect { url, reason } => {
                assert_eq!(url, format!("{base}/chat/completions"));
                assert!(!reason.is_empty());
            }
            other => panic!("expected a connect error, got {other:?}"),
        },
        other => panic!("expected to give up, got {other:?}"),
    }
}

#[tokio::test]
async fn an_unusable_base_url_is_not_retried() {
    let history = sample_history();
    let request = ModelRequest { system: None, messages: &history, tools: &[], cache: None, output_schema: None };
    let (events, result) = stream_all(config(ProviderKind::Anthropic, "not a url"), request).await;
    assert!(events.is_empty());
    assert!(matches!(&result, Err(ModelError::BadRequest { reason, .. }) if !reason.is_empty()), "{result:?}");
}

#[test]
fn invalid_extra_headers_are_refused_by_name() {
    let mut config = config(ProviderKind::Openai, "http://127.0.0.1:9");
    config.headers = vec![("X-Ok".into(), "fine".into()), ("bad header".into(), "x".into())];
    match ModelClient::new(config.clone()) {
        Err(ModelError::InvalidHeader { name, .. }) => assert_eq!(name, "bad header"),
        other => panic!("expected an invalid header, got {other:?}"),
    }
    config.headers = vec![("X-Ok".into(), "line\nbreak".into())];
    assert!(matches!(ModelClient::new(config), Err(ModelError::InvalidHeader { .. })));
}

#[test]
fn the_stream_future_can_move_between_threads() {
    fn assert_send<T: Send>(_: &T) {}
    let Ok(client) = ModelClient::new(config(ProviderKind::Gemini, "http://127.0.0.1:9")) else {
        panic!("client");
    };
    let mut on_event = |_: ModelEvent| {};
    let future = client.stream(
        ModelRequest { system: None, messages: &[], tools: &[], cache: None, output_schema: None },
        &mut on_event,
    );
    assert_send(&future);
}
