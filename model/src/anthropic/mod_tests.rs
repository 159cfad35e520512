//! Unit tests of `anthropic/mod.rs`.

use airlock_tests::{MockModel, Turn, Wire};

use super::super::test_support::{config, sample_history, stream_all};
use super::super::{ModelRequest, ProviderKind, Stop};
use super::*;

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
    let request = ModelRequest { system: None, messages: &history, tools: &[], cache: None, output_schema: None };
    let (events, result) = stream_all(config(ProviderKind::Anthropic, &mock.base_url()), request).await;
    assert!(result.is_ok(), "{result:?}");
    assert_eq!(events.first(), Some(&ModelEvent::TextDelta("hi".into())));
    assert_eq!(events.last(), Some(&ModelEvent::Finished { reason: "max_tokens".into(), stop: Stop::MaxTokens }));
}
