//! The HTTP exchange every provider shares: POST a JSON body, turn a failure status into a
//! [`ModelError`] that says what to do (with the wait the provider asked for, for the
//! retry loop), and hand back the streamed body as SSE events. Waiting for the response
//! head counts against the idle timeout like any silent read.

use std::pin::Pin;
use std::time::{Duration, SystemTime};

use bytes::Bytes;
use futures_util::Stream;
use reqwest::header::{ACCEPT, CONTENT_TYPE};

use super::retry::retry_after;
use super::sse::SseStream;
use super::{ModelError, ProviderConfig};

/// How much of an error body a [`ModelError::Http`] carries.
const ERROR_BODY_CHARS: usize = 500;

/// The body of a streamed response.
pub(crate) type BodyStream = Pin<Box<dyn Stream<Item = reqwest::Result<Bytes>> + Send>>;

/// Sends `body` to `url` and returns the answer's event stream once the provider has
/// accepted the request.
pub(crate) async fn post_sse(
    request: reqwest::RequestBuilder,
    url: &str,
    body: Vec<u8>,
    config: &ProviderConfig,
) -> Result<SseStream<BodyStream>, ModelError> {
    let request = request.header(CONTENT_TYPE, "application/json").header(ACCEPT, "text/event-stream").body(body);
    let response = match tokio::time::timeout(config.idle_timeout, request.send()).await {
        Err(_) => return Err(ModelError::IdleTimeout(config.idle_timeout)),
        Ok(Err(e)) if e.is_builder() => {
            return Err(ModelError::BadRequest { url: url.to_owned(), reason: error_chain(&e) });
        }
        Ok(Err(e)) => return Err(ModelError::Connect { url: url.to_owned(), reason: error_chain(&e) }),
        Ok(Ok(response)) => response,
    };
    let status = response.status();
    if !status.is_success() {
        let wait = retry_after(response.headers(), SystemTime::now());
        let text = match tokio::time::timeout(config.idle_timeout, response.text()).await {
            Ok(Ok(text)) => text,
            _ => String::new(),
        };
        return Err(status_error(status.as_u16(), &text, wait, config));
    }
    let body: BodyStream = Box::pin(response.bytes_stream());
    Ok(SseStream::new(body, config.idle_timeout))
}

/// The error for a failure status. Gemini rejects a bad key with 400 `API_KEY_INVALID`
/// rather than 401, so that counts as a credentials problem too.
fn status_error(status: u16, body: &str, retry_after: Option<Duration>, config: &ProviderConfig) -> ModelError {
    if status == 401 || status == 403 || (status == 400 && body.contains("API_KEY_INVALID")) {
        return ModelError::Auth { status, key_variable: config.key_variable.clone(), provider: config.name.clone() };
    }
    let message = provider_message(body).unwrap_or_else(|| body.trim().to_owned());
    let message = if message.is_empty() {
        reqwest::StatusCode::from_u16(status)
            .ok()
            .and_then(|s| s.canonical_reason())
            .unwrap_or("no details given")
            .to_owned()
    } else {
        trim_chars(&message, ERROR_BODY_CHARS)
    };
    ModelError::Http { status, body: message, retry_after }
}

/// The human-readable message out of a JSON error body, in the shapes providers use:
/// `{"error": {"message": ..}}` (OpenAI, Gemini, also wrapped in an array by Gemini),
/// `{"error": ".."}` (Ollama), `{"message": ..}` and `{"detail": ..}`; Anthropic's
/// `{"type": "error", "error": {"message": ..}}` is the first shape.
pub(crate) fn provider_message(body: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(body.trim()).ok()?;
    let value = match &value {
        serde_json::Value::Array(items) => items.first()?,
        other => other,
    };
    [&value["error"]["message"], &value["error"], &value["message"], &value["detail"]]
        .into_iter()
        .find_map(|v| v.as_str())
        .map(str::to_owned)
}

fn trim_chars(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

/// Why a request failed, without reqwest's top line (it repeats the URL the error
/// message already names): "client error (Connect): tcp connect error: Connection refused".
fn error_chain(error: &reqwest::Error) -> String {
    let mut parts = Vec::new();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        parts.push(cause.to_string());
        source = cause.source();
    }
    if parts.is_empty() { error.to_string() } else { parts.join(": ") }
}

#[cfg(test)]
#[path = "http_tests.rs"]
mod tests;
