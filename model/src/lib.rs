//! Model clients. The agent loop speaks one neutral conversation format ([`Message`],
//! [`Part`]) and one stream of [`ModelEvent`]s; each provider module translates to and
//! from its wire format. Providers never print. [`ModelClient`] retries what is worth
//! retrying (see [`RetryPolicy`]) and says so with [`ModelEvent::Retrying`]; every failure
//! that remains is a [`ModelError`] whose message tells the user what to do.
//!
//! Request bodies are written as bytes straight from the history, never through a
//! `serde_json::Value` tree, and a [`History`] keeps each message's encoding once made, so
//! a long conversation's turn costs its new messages and one copy of the rest.
//!
//! The crate uses nothing else of airlock's: the engine (`airlock-engine`) depends on it,
//! and it compiles beside the lower crates.

#![deny(clippy::print_stdout, clippy::print_stderr)]

mod anthropic;
mod client;
mod gemini;
mod history;
mod http;
mod json;
mod media;
mod openai;
mod recorded;
mod retry;
mod sse;
mod structured;

#[cfg(any(test, feature = "test-support"))]
pub mod test_support;

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde::{Deserialize, Serialize};

pub use client::ModelClient;
pub use history::{EncodeCache, History};
pub use media::{Media, MediaKind, stand_in};
#[doc(hidden)]
pub use recorded::decode_body;

/// The body `config`'s wire sends for `request` (benchmarks measure the encoding with it).
#[doc(hidden)]
pub fn encode_request(config: &ProviderConfig, request: &ModelRequest<'_>) -> Vec<u8> {
    client::request_body(config, request)
}
pub use retry::RetryPolicy;
pub use structured::{fits_strict, gemini_takes};

/// Which wire format a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProviderKind {
    /// The Gemini API (`streamGenerateContent`).
    Gemini,
    /// OpenAI-compatible chat completions (OpenAI, Ollama, llama.cpp, vLLM, ...).
    Openai,
    /// The Anthropic Messages API (`/v1/messages`).
    Anthropic,
}

impl ProviderKind {
    /// Every kind, in the order they are listed to users.
    pub const ALL: [ProviderKind; 3] = [Self::Gemini, Self::Openai, Self::Anthropic];

    /// The name users write (`--provider`, `kind = ...`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Gemini => "gemini",
            Self::Openai => "openai",
            Self::Anthropic => "anthropic",
        }
    }

    /// The kind called `name`, if one is.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.name() == name)
    }

    /// The environment variable that holds the API key.
    pub fn key_variable(self) -> &'static str {
        match self {
            Self::Gemini => "GEMINI_API_KEY",
            Self::Openai => "OPENAI_API_KEY",
            Self::Anthropic => "ANTHROPIC_API_KEY",
        }
    }

    /// The base URL used when none is configured.
    pub fn default_base_url(self) -> &'static str {
        match self {
            Self::Gemini => "https://generativelanguage.googleapis.com",
            Self::Openai => "https://api.openai.com/v1",
            Self::Anthropic => "https://api.anthropic.com",
        }
    }

    /// The model used when none is configured.
    pub fn default_model(self) -> &'static str {
        match self {
            Self::Gemini => "gemini-2.5-flash",
            Self::Openai => "gpt-4.1-mini",
            Self::Anthropic => "claude-sonnet-4-5",
        }
    }

    /// The context window, in tokens, assumed when none is configured: what the kind's
    /// current models offer (Gemini 2.5: 1M; Claude: 200k), and 128k for OpenAI-compatible
    /// servers, whose models vary most (set `context_window_tokens` for a small local one).
    pub fn default_context_window(self) -> u64 {
        match self {
            Self::Gemini => 1_048_576,
            Self::Openai => 128_000,
            Self::Anthropic => 200_000,
        }
    }
}

/// Everything needed to reach a provider.
#[derive(Debug, Clone)]
pub struct ProviderConfig {
    /// The provider's name as the user chose it: a kind or a `[providers.NAME]` table.
    pub name: String,
    pub kind: ProviderKind,
    pub base_url: String,
    pub model: String,
    /// The API key; `None` sends no credentials (local servers need none).
    pub api_key: Option<String>,
    /// The environment variable the key is read from, named when the API refuses the
    /// credentials; `None` for a provider configured without one.
    pub key_variable: Option<String>,
    /// Extra headers sent with every request.
    pub headers: Vec<(String, String)>,
    /// Most tokens of one answer (Anthropic requires the limit; other wires ignore it).
    pub max_tokens: u32,
    /// How long a stream may stay silent before it is abandoned.
    pub idle_timeout: Duration,
    pub retry: RetryPolicy,
    /// The model's context window in tokens; older history is compressed before a request
    /// would outgrow it.
    pub context_window_tokens: u64,
    /// The kinds of media the model takes (`[providers.NAME] media`); others are stood in.
    pub media: Vec<MediaKind>,
}

impl ProviderConfig {
    /// The default answer length limit sent to providers that require one.
    pub const DEFAULT_MAX_TOKENS: u32 = 8192;
    /// The default idle timeout.
    pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(120);

    /// A provider of `kind` at `base_url` with defaults for everything else: named after
    /// its kind, keyed by the kind's variable (but no key yet), no extra headers.
    pub fn new(kind: ProviderKind, base_url: impl Into<String>, model: impl Into<String>) -> Self {
        Self {
            name: kind.name().to_owned(),
            kind,
            base_url: base_url.into(),
            model: model.into(),
            api_key: None,
            key_variable: Some(kind.key_variable().to_owned()),
            headers: Vec::new(),
            max_tokens: Self::DEFAULT_MAX_TOKENS,
            idle_timeout: Self::DEFAULT_IDLE_TIMEOUT,
            retry: RetryPolicy::default(),
            context_window_tokens: kind.default_context_window(),
            media: vec![MediaKind::Image, MediaKind::Pdf],
        }
    }
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
    /// Images and PDFs the call returned, sent beside `content` where the wire takes them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub media: Vec<Media>,
}

/// One piece of a message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Part {
    Text {
        text: String,
    },
    FunctionCall(FunctionCall),
    FunctionResponse(FunctionResponse),
    /// An image or a PDF of a user message (an attachment).
    Media(Media),
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
    /// The encodings of `messages` kept from earlier requests: only a [`History`] hands
    /// one out ([`History::request`]); `None` encodes every message afresh.
    pub cache: Option<&'a EncodeCache>,
    /// The JSON Schema the answer must follow (`--output-schema`), sent in each wire's
    /// structured-output field where the wire and model take it ([`structured`]).
    pub output_schema: Option<&'a serde_json::Value>,
}

/// Token counts reported by the provider for one response.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

/// What a model request was for, where token counts are reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UsageKind {
    /// A response of the conversation.
    Answer,
    /// A request that summarised older history to make room.
    Summary,
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
    /// (Gemini `STOP`, `MAX_TOKENS`, ...; OpenAI `stop`, `tool_calls`, `length`, ...;
    /// Anthropic `end_turn`, `tool_use`, `max_tokens`, ...); `stop` is what it means.
    Finished { reason: String, stop: Stop },
    /// The request failed before anything of the answer was passed on, and is sent again
    /// after `delay`. `attempt` counts the retries (from 1), `max` is the most there will
    /// be; `reason` is the failure. Only comes before the first event of the answer.
    Retrying { attempt: u32, max: u32, delay: Duration, reason: String },
}

impl ModelEvent {
    /// Whether a person or the history sees this event: once one was passed on, sending
    /// the request again would repeat it.
    pub(crate) fn is_seen(&self) -> bool {
        match self {
            Self::TextDelta(_) | Self::Thought(_) | Self::FunctionCall(_) => true,
            Self::Usage(_) | Self::Finished { .. } | Self::Retrying { .. } => false,
        }
    }
}

/// What a finish reason means, whatever the wire's word for it. Only [`Stop::Normal`]
/// promises a whole answer; the agent loop decides what each other one does to the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// The model ended its answer, or stopped to have its calls run.
    Normal,
    /// The answer reached the output token limit: its text is cut, its last call may be.
    MaxTokens,
    /// The provider withheld or stopped the answer (safety, recitation, a blocked prompt,
    /// a content filter, a refusal): sending it again will not help.
    Blocked,
    /// The provider paused a long turn; sending the conversation again lets the model
    /// continue (Anthropic `pause_turn`).
    Paused,
    /// A reason airlock does not know (or the provider's own "other"/"unspecified").
    Unknown,
}

/// Why a model request failed.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error("the model API refused the credentials (HTTP {status}): {}", auth_remedy(key_variable.as_deref(), provider))]
    Auth { status: u16, key_variable: Option<String>, provider: String },
    #[error("the model API answered HTTP {status}: {body}")]
    Http {
        status: u16,
        body: String,
        /// How long the provider asked to wait before trying again (`Retry-After`).
        retry_after: Option<Duration>,
    },
    #[error("cannot reach the model API at {url}: {reason}")]
    Connect { url: String, reason: String },
    #[error("cannot send a request to {url}: {reason}; check the provider's base_url")]
    BadRequest { url: String, reason: String },
    #[error("the extra header `{name}` cannot be sent: {reason}; fix the provider's headers in config.toml")]
    InvalidHeader { name: String, reason: String },
    #[error("the model's stream was malformed: {0}")]
    MalformedStream(String),
    #[error("the model's stream ended before the response was complete")]
    Truncated,
    /// The model wrote a function call the provider could not parse (Gemini
    /// `MALFORMED_FUNCTION_CALL`): asking again usually gets a well-formed one.
    #[error("the model wrote a malformed function call ({reason}{})", detail.as_deref().map(|d| format!(": {d}")).unwrap_or_default())]
    MalformedCall { reason: String, detail: Option<String> },
    #[error(
        "the model's stream was silent for {0:?}; if the model needs longer to think, raise idle_timeout_secs in config.toml"
    )]
    IdleTimeout(Duration),
    /// A failure after part of the answer had been passed on: sending the request again
    /// would repeat that part, so it is not retried.
    #[error("{0} (after part of the answer had arrived, so airlock did not retry; run the prompt again)")]
    Interrupted(#[source] Box<ModelError>),
    /// The session was started without a model (`airlock mcp serve` runs tools for an MCP
    /// client and never asks one).
    #[error("this session has no model: it only runs tools (airlock mcp serve); start `airlock` to talk to a model")]
    NoModel,
    #[error("gave up after {attempts} attempts: {last}")]
    GaveUp {
        attempts: u32,
        #[source]
        last: Box<ModelError>,
    },
}

/// What to do about refused credentials.
fn auth_remedy(key_variable: Option<&str>, provider: &str) -> String {
    match key_variable {
        Some(variable) => format!("set {variable} to a valid API key"),
        None => format!(
            "provider `{provider}` sends no API key: add key_variable = \"NAME\" to [providers.{provider}] in \
             config.toml, naming the environment variable that holds it"
        ),
    }
}

/// A call id unique within this process, for providers that send calls without one.
fn generated_call_id(prefix: &str) -> String {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    format!("{prefix}{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

#[cfg(test)]
#[path = "lib_tests.rs"]
mod tests;
