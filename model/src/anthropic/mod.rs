//! The Anthropic Messages API: `POST {base}/v1/messages` with `stream: true`, the key in
//! `x-api-key` and the API version in `anthropic-version`.
//!
//! [`request`] builds the body (system prompt, `tool_use` / `tool_result` blocks, tools with
//! their `input_schema`); [`decode`] turns the stream's events into [`ModelEvent`]s. A
//! response is complete at `message_stop`, or when the body ends after the stop reason.

mod decode;
mod request;

pub(super) use request::body as request_body;

use bytes::Bytes;
use futures_util::Stream;

use super::http::post_sse;
use super::sse::SseStream;
use super::{ModelError, ModelEvent, ProviderConfig};
use decode::{Decoder, StreamEvent};

/// The API version airlock speaks.
const API_VERSION: &str = "2023-06-01";

pub(super) async fn stream(
    client: &reqwest::Client,
    config: &ProviderConfig,
    body: Vec<u8>,
    on_event: &mut (dyn FnMut(ModelEvent) + Send),
) -> Result<(), ModelError> {
    let url = format!("{}/v1/messages", config.base_url.trim_end_matches('/'));
    let mut builder = client.post(&url).header("anthropic-version", API_VERSION);
    if let Some(key) = &config.api_key {
        builder = builder.header("x-api-key", key);
    }
    let events = post_sse(builder, &url, body, config).await?;
    decode(events, on_event).await
}

/// Turns the events of an answer's body into [`ModelEvent`]s.
pub(super) async fn decode<S, E>(
    mut events: SseStream<S>,
    on_event: &mut (dyn FnMut(ModelEvent) + Send),
) -> Result<(), ModelError>
where
    S: Stream<Item = Result<Bytes, E>> + Unpin,
{
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
#[path = "mod_tests.rs"]
mod tests;
