//! The Anthropic Messages API: `POST {base}/v1/messages` with `stream: true`, the key in
//! `x-api-key` and the API version in `anthropic-version`.
//!
//! [`request`] builds the body (system prompt, `tool_use` / `tool_result` blocks, tools with
//! their `input_schema`); [`decode`] turns the stream's events into [`ModelEvent`]s. A
//! response is complete at `message_stop`, or when the body ends after the stop reason.

mod decode;
mod request;

use super::http::post_sse;
use super::{ModelError, ModelEvent, ModelRequest, ProviderConfig};
use decode::{Decoder, StreamEvent};

/// The API version airlock speaks.
const API_VERSION: &str = "2023-06-01";

pub(super) async fn stream(
    client: &reqwest::Client,
    config: &ProviderConfig,
    request: ModelRequest<'_>,
    on_event: &mut (dyn FnMut(ModelEvent) + Send),
) -> Result<(), ModelError> {
    let url = format!("{}/v1/messages", config.base_url.trim_end_matches('/'));
    let mut builder = client.post(&url).header("anthropic-version", API_VERSION);
    if let Some(key) = &config.api_key {
        builder = builder.header("x-api-key", key);
    }
    let body = request::body(&config.model, config.max_tokens, &request);
    let mut events = post_sse(builder, &url, &body, config).await?;
    let mut decoder = Decoder::default();
    while let Some(event) = events.next().await? {
        if decoder.event(event.json::<StreamEvent>()?, on_event)? {
            return Ok(());
        }
    }
    if !decoder.stopped() {
        return Err(ModelError::Truncated);
    }
    decoder.finish(on_event);
    Ok(())
}

#[cfg(test)]
mod tests {
    use airlock_tests::{MockModel, Turn, Wire, call, declared_tools, function_responses};
    use serde_json::{Value, json};

    use super::super::test_support::{calls_of, config, sample_history, sample_tools, stream_all, text_of};
    use super::super::{ProviderKind, Stop, Usage};
    use super::*;

    #[tokio::test]
    async fn streams_a_text_answer_from_the_mock() {
        let mock = MockModel::start(Wire::Anthropic);
        mock.push_turn(Turn::text("Hello from the mock").with_usage(42, 7));
        let history = sample_history();
        let tools = sample_tools();
        let request = ModelRequest { system: Some("sys"), messages: &history, tools: &tools };
        let mut config = config(ProviderKind::Anthropic, &mock.base_url());
        config.max_tokens = 321;
        let (events, result) = stream_all(config, request).await;
        assert!(result.is_ok(), "{result:?}");
        assert_eq!(text_of(&events), "Hello from the mock");
        assert!(events.iter().filter(|e| matches!(e, ModelEvent::TextDelta(_))).count() >= 2);
        assert_eq!(
            events[events.len() - 2..],
            [
                ModelEvent::Usage(Usage { input_tokens: 42, output_tokens: 7 }),
                ModelEvent::Finished { reason: "end_turn".into(), stop: Stop::Normal },
            ]
        );

        let recorded = mock.recorded();
        assert_eq!(recorded.len(), 1);
        assert_eq!(recorded[0].path, "/v1/messages");
        assert_eq!(recorded[0].header("x-api-key"), Some("test-key"));
        assert_eq!(recorded[0].header("anthropic-version"), Some(API_VERSION));
        assert_eq!(recorded[0].header("authorization"), None);
        let body = &recorded[0].body;
        assert_eq!((body["model"].as_str(), body["max_tokens"].as_u64()), (Some("test-model"), Some(321)));
        assert_eq!((body["system"].as_str(), body["stream"].as_bool()), (Some("sys"), Some(true)));
        assert_eq!(declared_tools(body), ["read_file"]);
        assert_eq!(body["tools"][0]["input_schema"]["properties"]["path"]["type"], "string");
        assert_eq!(
            function_responses(body),
            [
                ("read_file".to_owned(), "alpha".to_owned()),
                ("read_file".to_owned(), "Error: no such file: b.txt".to_owned()),
            ]
        );
    }

    #[tokio::test]
    async fn streams_parallel_calls_and_raw_arguments_from_the_mock() {
        let mock = MockModel::start(Wire::Anthropic);
        mock.push_turn(Turn::text_and_calls(
            "Looking.",
            vec![
                call("read_file", json!({ "path": "a.txt" })),
                call("glob", json!({ "pattern": "**/*.rs" })).with_id("toolu_fixed"),
                call("list", json!({})),
            ],
        ));
        mock.push_turn(Turn::call_with_raw_args("read_file", "{not json"));
        let history = sample_history();
        let request = ModelRequest { system: None, messages: &history, tools: &[] };
        let config = config(ProviderKind::Anthropic, &mock.base_url());

        let (events, result) = stream_all(config.clone(), request).await;
        assert!(result.is_ok(), "{result:?}");
        assert_eq!(text_of(&events), "Looking.");
        let calls = calls_of(&events);
        assert_eq!(calls.len(), 3);
        assert_eq!(serde_json::from_str::<Value>(&calls[0].arguments).ok(), Some(json!({ "path": "a.txt" })));
        assert_eq!((calls[1].id.as_str(), calls[1].name.as_str()), ("toolu_fixed", "glob"));
        assert_eq!(calls[2].arguments, "{}");
        assert_ne!(calls[0].id, calls[2].id);
        assert!(matches!(events.last(), Some(ModelEvent::Finished { reason, .. }) if reason == "tool_use"));

        let (events, result) = stream_all(config, request).await;
        assert!(result.is_ok(), "{result:?}");
        assert_eq!(calls_of(&events)[0].arguments, "{not json");
    }

    #[tokio::test]
    async fn a_body_that_ends_after_the_stop_reason_is_complete() {
        let mock = MockModel::start(Wire::Anthropic);
        mock.push_turn(Turn::raw_sse(concat!(
            "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,",
            "\"content_block\":{\"type\":\"text\",\"text\":\"hi\"}}\n\n",
            "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"max_tokens\"},",
            "\"usage\":{\"output_tokens\":3}}\n\n",
        )));
        let history = sample_history();
        let request = ModelRequest { system: None, messages: &history, tools: &[] };
        let (events, result) = stream_all(config(ProviderKind::Anthropic, &mock.base_url()), request).await;
        assert!(result.is_ok(), "{result:?}");
        assert_eq!(events.first(), Some(&ModelEvent::TextDelta("hi".into())));
        assert_eq!(events.last(), Some(&ModelEvent::Finished { reason: "max_tokens".into(), stop: Stop::MaxTokens }));
    }
}
