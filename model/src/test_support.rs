//! Fixtures shared by the provider tests.

use std::time::Duration;

use serde_json::json;

use super::*;

/// A provider of `kind` at `base_url` with a key, and retries that wait a millisecond.
pub fn config(kind: ProviderKind, base_url: &str) -> ProviderConfig {
    let mut config = ProviderConfig::new(kind, base_url, "test-model");
    config.api_key = Some("test-key".to_owned());
    config.idle_timeout = Duration::from_secs(10);
    config.retry = fast_retries(5);
    config
}

/// Up to `max_attempts` attempts, a millisecond apart at most.
pub fn fast_retries(max_attempts: u32) -> RetryPolicy {
    RetryPolicy { max_attempts, base_delay: Duration::from_millis(1), max_delay: Duration::from_millis(1) }
}

/// A user prompt, a model turn with text and two calls (one with a signature, one with
/// an id Gemini would have made up and malformed arguments), and the two responses, one
/// an error.
pub fn sample_history() -> Vec<Message> {
    vec![
        Message { role: Role::User, parts: vec![Part::Text { text: "read two files".into() }] },
        Message {
            role: Role::Model,
            parts: vec![
                Part::Text { text: "Reading them.".into() },
                Part::FunctionCall(FunctionCall {
                    id: "call-a".into(),
                    name: "read_file".into(),
                    arguments: r#"{"path":"a.txt"}"#.into(),
                    signature: Some("sig-a".into()),
                }),
                Part::FunctionCall(FunctionCall {
                    id: "gemini-call-1000".into(),
                    name: "read_file".into(),
                    arguments: r#"{"path": "b.txt""#.into(),
                    signature: None,
                }),
            ],
        },
        Message {
            role: Role::User,
            parts: vec![
                Part::FunctionResponse(FunctionResponse {
                    id: "call-a".into(),
                    name: "read_file".into(),
                    content: "alpha".into(),
                    is_error: false,
                    media: Vec::new(),
                }),
                Part::FunctionResponse(FunctionResponse {
                    id: "gemini-call-1000".into(),
                    name: "read_file".into(),
                    content: "no such file: b.txt".into(),
                    is_error: true,
                    media: Vec::new(),
                }),
            ],
        },
    ]
}

/// A user prompt with an image attached, a model call, and its response carrying an image
/// and a PDF, plus media no wire takes (kept as an empty-bytes image, as a session whose
/// record lost its bytes loads it). The bytes are short stand-ins: the wires copy them, they
/// do not read them (base64 `UE5H` = `PNG`, `JVBERg==` = `%PDF`, `R0lG` = `GIF`).
pub fn media_history() -> Vec<Message> {
    vec![
        Message {
            role: Role::User,
            parts: vec![
                Part::Text { text: "look".into() },
                Part::Media(Media::new("image/gif", Some("me.gif".into()), &b"GIF"[..])),
            ],
        },
        Message {
            role: Role::Model,
            parts: vec![Part::FunctionCall(FunctionCall {
                id: "call-a".into(),
                name: "read_file".into(),
                arguments: r#"{"path":"a.png"}"#.into(),
                signature: None,
            })],
        },
        Message {
            role: Role::User,
            parts: vec![Part::FunctionResponse(FunctionResponse {
                id: "call-a".into(),
                name: "read_file".into(),
                content: "two files".into(),
                is_error: false,
                media: vec![
                    Media::new("image/png", None, &b"PNG"[..]),
                    Media::new("application/pdf", Some("d.pdf".into()), &b"%PDF"[..]),
                    Media::new("image/png", Some("lost.png".into()), Vec::new()),
                ],
            })],
        },
    ]
}

pub fn sample_tools() -> Vec<ToolDeclaration> {
    vec![ToolDeclaration {
        name: "read_file".into(),
        description: "Reads a file".into(),
        parameters: json!({ "type": "object", "properties": { "path": { "type": "string" } } }),
    }]
}

/// Streams one request and collects every event, with the outcome.
pub async fn stream_all(
    config: ProviderConfig,
    request: ModelRequest<'_>,
) -> (Vec<ModelEvent>, Result<(), ModelError>) {
    let client = match ModelClient::new(config) {
        Ok(client) => client,
        Err(e) => return (Vec::new(), Err(e)),
    };
    let mut events = Vec::new();
    let result = client.stream(request, &mut |e| events.push(e)).await;
    (events, result)
}

/// The text of the answer's deltas, joined.
pub fn text_of(events: &[ModelEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            ModelEvent::TextDelta(t) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

/// The calls among `events`.
pub fn calls_of(events: &[ModelEvent]) -> Vec<&FunctionCall> {
    events
        .iter()
        .filter_map(|e| match e {
            ModelEvent::FunctionCall(c) => Some(c),
            _ => None,
        })
        .collect()
}

/// A request body as JSON, for assertions on its fields.
pub fn parsed(body: Vec<u8>) -> serde_json::Value {
    match serde_json::from_slice(&body) {
        Ok(value) => value,
        Err(error) => panic!("the body is not JSON ({error}): {}", String::from_utf8_lossy(&body)),
    }
}
