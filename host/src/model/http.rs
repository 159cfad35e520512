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
    body: &serde_json::Value,
    config: &ProviderConfig,
) -> Result<SseStream<BodyStream>, ModelError> {
    let request =
        request.header(CONTENT_TYPE, "application/json").header(ACCEPT, "text/event-stream").body(body.to_string());
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
mod tests {
    use super::super::ProviderKind;
    use super::*;

    fn config(kind: ProviderKind) -> ProviderConfig {
        ProviderConfig::new(kind, kind.default_base_url(), kind.default_model())
    }

    #[test]
    fn extracts_the_provider_message_from_known_error_shapes() {
        let cases = [
            (r#"{"error":{"message":"quota exceeded","code":429}}"#, "quota exceeded"),
            (r#"[{"error":{"message":"model not found","status":"NOT_FOUND"}}]"#, "model not found"),
            (r#"{"error":"model 'x' not found"}"#, "model 'x' not found"),
            (r#"{"detail":"bad request"}"#, "bad request"),
        ];
        for (body, message) in cases {
            assert_eq!(provider_message(body).as_deref(), Some(message), "{body}");
        }
        assert_eq!(provider_message("<html>oops</html>"), None);
    }

    #[test]
    fn maps_statuses_to_errors() {
        let openai = config(ProviderKind::Openai);
        assert!(matches!(
            status_error(401, "", None, &openai),
            ModelError::Auth { status: 401, key_variable: Some(v), .. } if v == "OPENAI_API_KEY"
        ));
        let mut named = config(ProviderKind::Anthropic);
        named.name = "proxy".into();
        named.key_variable = Some("PROXY_KEY".into());
        assert!(matches!(
            status_error(403, "", None, &named),
            ModelError::Auth { status: 403, key_variable: Some(v), provider } if v == "PROXY_KEY" && provider == "proxy"
        ));
        let gemini = config(ProviderKind::Gemini);
        let bad_key =
            r#"{"error":{"code":400,"message":"API key not valid.","details":[{"reason":"API_KEY_INVALID"}]}}"#;
        assert!(matches!(
            status_error(400, bad_key, None, &gemini),
            ModelError::Auth { status: 400, key_variable: Some(v), .. } if v == "GEMINI_API_KEY"
        ));
        match status_error(503, "", Some(Duration::from_secs(2)), &gemini) {
            ModelError::Http { status: 503, body, retry_after } => {
                assert_eq!(body, "Service Unavailable");
                assert_eq!(retry_after, Some(Duration::from_secs(2)));
            }
            other => panic!("unexpected {other:?}"),
        }
        let overloaded = r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
        assert!(
            matches!(status_error(529, overloaded, None, &named), ModelError::Http { status: 529, body, .. } if body == "Overloaded")
        );
        match status_error(500, &"x".repeat(2000), None, &gemini) {
            ModelError::Http { body, .. } => assert_eq!(body.chars().count(), ERROR_BODY_CHARS + 1),
            other => panic!("unexpected {other:?}"),
        }
    }
}
