//! Model clients. The agent loop speaks one neutral conversation format ([`Message`],
//! [`Part`]) and one stream of [`ModelEvent`]s; each provider module translates to and
//! from its wire format. Providers never print and never retry silently: every failure is
//! a [`ModelError`] whose message tells the user what to do.

mod gemini;
mod http;
mod openai;
mod sse;

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Which wire format a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum ProviderKind {
    /// The Gemini API (`streamGenerateContent`).
    Gemini,
    /// OpenAI-compatible chat completions (OpenAI, Ollama, llama.cpp, vLLM, ...).
    Openai,
}

impl ProviderKind {
    /// The environment variable that holds the API key.
    pub fn key_variable(self) -> &'static str {
        match self {
            Self::Gemini => "GEMINI_API_KEY",
            Self::Openai => "OPENAI_API_KEY",
        }
    }

    /// The base URL used when none is configured.
    pub fn default_base_url(self) -> &'static str {
        match self {
            Self::Gemini => "https://generativelanguage.googleapis.com",
            Self::Openai => "https://api.openai.com/v1",
        }
    }

    /// The model used when none is configured.
    pub fn default_model(self) -> &'static str {
        match self {
            Self::Gemini => "gemini-2.5-flash",
            Self::Openai => "gpt-4.1-mini",
        }
    }
}

/// Everything needed to reach a provider.
#[derive(Debug, Clone)]
pub struct ProviderConfig {
    pub kind: ProviderKind,
    pub base_url: String,
    pub model: String,
    /// The API key; `None` sends no credentials (local servers need none).
    pub api_key: Option<String>,
    /// How long a stream may stay silent before it is abandoned.
    pub idle_timeout: Duration,
}

/// Who said a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Model,
}

/// A call the model asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionCall {
    /// A unique id for the call. Providers that send none (Gemini) get one made up.
    pub id: String,
    pub name: String,
    /// The arguments as the model sent them: JSON text, which may be malformed. The
    /// scheduler parses it and tells the model when it is not an object.
    pub arguments: String,
    /// An opaque provider token that must be sent back with the call when the history is
    /// replayed (Gemini's `thoughtSignature`; Gemini 3 rejects a history without it).
    /// Providers that have no such token ignore it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
}

/// The result of a call, sent back to the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionResponse {
    /// The id of the [`FunctionCall`] it answers.
    pub id: String,
    pub name: String,
    /// What the model is told.
    pub content: String,
    /// True when the call failed; `content` then holds the error.
    pub is_error: bool,
}

/// One piece of a message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Part {
    Text { text: String },
    FunctionCall(FunctionCall),
    FunctionResponse(FunctionResponse),
}

/// One turn of the conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    pub parts: Vec<Part>,
}

/// A tool offered to the model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolDeclaration {
    pub name: String,
    pub description: String,
    /// A JSON Schema object.
    pub parameters: serde_json::Value,
}

/// One request to the model.
#[derive(Debug, Clone, Copy)]
pub struct ModelRequest<'a> {
    pub system: Option<&'a str>,
    pub messages: &'a [Message],
    pub tools: &'a [ToolDeclaration],
}

/// Token counts reported by the provider for one response.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

/// What a model stream yields, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelEvent {
    /// A piece of the answer's text.
    TextDelta(String),
    /// A piece of the model's reasoning, when the provider exposes it.
    Thought(String),
    /// A complete function call (providers that stream arguments in pieces assemble them).
    FunctionCall(FunctionCall),
    /// Token counts (may come more than once; the last one counts).
    Usage(Usage),
    /// The response is complete. `reason` is the provider's own word for why it stopped
    /// (Gemini `STOP`, `MAX_TOKENS`, ...; OpenAI `stop`, `tool_calls`, `length`, ...).
    Finished { reason: String },
}

/// Why a model request failed.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error("the model API refused the credentials (HTTP {status}): set {key_variable} to a valid API key")]
    Auth { status: u16, key_variable: &'static str },
    #[error("the model API answered HTTP {status}: {body}")]
    Http { status: u16, body: String },
    #[error("cannot reach the model API at {url}: {reason}")]
    Connect { url: String, reason: String },
    #[error("the model's stream was malformed: {0}")]
    MalformedStream(String),
    #[error("the model's stream ended before the response was complete")]
    Truncated,
    #[error("the model's stream was silent for {0:?}")]
    IdleTimeout(Duration),
}

/// A client for one configured provider.
#[derive(Debug, Clone)]
pub struct ModelClient {
    config: ProviderConfig,
    http: reqwest::Client,
}

impl ModelClient {
    /// Builds a client. Building is cheap: no connection is made until the first request.
    pub fn new(config: ProviderConfig) -> Result<Self, ModelError> {
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(30))
            .build()
            .map_err(|e| ModelError::Connect { url: config.base_url.clone(), reason: e.to_string() })?;
        Ok(Self { config, http })
    }

    pub fn config(&self) -> &ProviderConfig {
        &self.config
    }

    /// Sends one request and passes every event of the streamed answer to `on_event`, in
    /// order. Returns after [`ModelEvent::Finished`] was passed on, or with an error.
    pub async fn stream(
        &self,
        request: ModelRequest<'_>,
        on_event: &mut (dyn FnMut(ModelEvent) + Send),
    ) -> Result<(), ModelError> {
        match self.config.kind {
            ProviderKind::Gemini => gemini::stream(&self.http, &self.config, request, on_event).await,
            ProviderKind::Openai => openai::stream(&self.http, &self.config, request, on_event).await,
        }
    }
}

/// A call id unique within this process, for providers that send calls without one.
fn generated_call_id(prefix: &str) -> String {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    format!("{prefix}{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

#[cfg(test)]
pub(crate) mod test_support {
    //! Fixtures shared by the provider tests.

    use std::time::Duration;

    use serde_json::json;

    use super::*;

    pub fn config(kind: ProviderKind, base_url: &str) -> ProviderConfig {
        ProviderConfig {
            kind,
            base_url: base_url.to_owned(),
            model: "test-model".to_owned(),
            api_key: Some("test-key".to_owned()),
            idle_timeout: Duration::from_secs(10),
        }
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
                    }),
                    Part::FunctionResponse(FunctionResponse {
                        id: "gemini-call-1000".into(),
                        name: "read_file".into(),
                        content: "no such file: b.txt".into(),
                        is_error: true,
                    }),
                ],
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
}

#[cfg(test)]
mod tests {
    use super::test_support::{config, sample_history, stream_all};
    use super::*;

    #[tokio::test]
    async fn an_unreachable_server_is_a_connect_error_naming_the_url() {
        // A port that was free a moment ago: nothing listens there now.
        let port = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port());
        let base = format!("http://127.0.0.1:{}/v1", port.unwrap_or(9));
        let history = sample_history();
        let request = ModelRequest { system: None, messages: &history, tools: &[] };
        let (_, result) = stream_all(config(ProviderKind::Openai, &base), request).await;
        match result {
            Err(ModelError::Connect { url, reason }) => {
                assert_eq!(url, format!("{base}/chat/completions"));
                assert!(!reason.is_empty());
            }
            other => panic!("expected a connect error, got {other:?}"),
        }
    }

    #[test]
    fn the_stream_future_can_move_between_threads() {
        fn assert_send<T: Send>(_: &T) {}
        let Ok(client) = ModelClient::new(config(ProviderKind::Gemini, "http://127.0.0.1:9")) else {
            panic!("client");
        };
        let mut on_event = |_: ModelEvent| {};
        let future = client.stream(ModelRequest { system: None, messages: &[], tools: &[] }, &mut on_event);
        assert_send(&future);
    }

    #[test]
    fn generated_call_ids_are_unique() {
        assert_ne!(generated_call_id("x-"), generated_call_id("x-"));
    }
}
