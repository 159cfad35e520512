//! The data of the WIT contract (`airlock:tool@0.1.0`) as plain host types: what a plugin
//! says about itself, what a call asks the user to approve, and what it returns. These are
//! what the registry caches, the scheduler passes around and the front ends render; the
//! wasmtime-generated types stay inside `runtime`.

use serde::{Deserialize, Serialize};

/// What a tool does, from the user's point of view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Read,
    Edit,
    Delete,
    Move,
    Search,
    Execute,
    Fetch,
    Think,
    Other,
}

impl Kind {
    /// Read-only kinds never change anything and run without confirmation.
    pub fn is_read_only(self) -> bool {
        matches!(self, Self::Read | Self::Search | Self::Fetch | Self::Think)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Read => "read",
            Self::Edit => "edit",
            Self::Delete => "delete",
            Self::Move => "move",
            Self::Search => "search",
            Self::Execute => "execute",
            Self::Fetch => "fetch",
            Self::Think => "think",
            Self::Other => "other",
        }
    }
}

/// Read-only or read-write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Access {
    Read,
    ReadWrite,
}

/// A request for a directory tree.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FileRequest {
    pub path: String,
    pub access: Access,
}

/// What a tool asks for.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Capabilities {
    pub files: Vec<FileRequest>,
    pub network: Vec<String>,
    pub env: Vec<String>,
    pub processes: Vec<String>,
}

/// One tool's self-description.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolInfo {
    pub name: String,
    pub display_name: String,
    pub description: String,
    /// The JSON Schema of the arguments.
    pub parameters: serde_json::Value,
    pub kind: Kind,
    pub streams_output: bool,
    pub parallel_safe: bool,
    pub capabilities: Capabilities,
}

/// A component's self-description.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PluginInfo {
    pub name: String,
    pub version: String,
    pub tools: Vec<ToolInfo>,
}

/// A hook component's self-description (`airlock:hook@0.3.0`'s `hook-info`). Its
/// capabilities never hold `processes`: the contract has no way to ask for them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HookInfo {
    pub name: String,
    pub version: String,
    pub events: Vec<airlock_protocol::hook::HookEventName>,
    /// A regular expression a tool's name must match whole; `None` matches every tool.
    pub tools: Option<String>,
    pub capabilities: Capabilities,
}

/// How risky a command is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Risk {
    Low,
    Medium,
    High,
}

/// What a call asks the user to approve.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Confirmation {
    Edit { path: String, original: String, proposed: String, is_new_file: bool },
    Exec { command: String, root_command: String, directory: String, risk: Risk },
    Info { prompt: String, urls: Vec<String> },
}

/// One piece of what the model is told.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum ContentPart {
    Text {
        text: String,
    },
    Json {
        json: String,
    },
    /// An image or a PDF (or media of a type no wire takes): `data` holds its bytes while
    /// the call's result is on its way to the model, and is not serialised.
    Media {
        mime_type: String,
        bytes: usize,
        #[serde(skip)]
        data: bytes::Bytes,
    },
}

/// What the user is shown about a finished call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Display {
    Markdown { text: String },
    Diff { path: String, original: String, proposed: String },
}

/// A successful call's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolOutput {
    pub llm_content: Vec<ContentPart>,
    pub display: Option<Display>,
}

impl ToolOutput {
    /// The text the model is told: text and JSON parts joined, media parts named (their
    /// bytes travel beside the text, [`crate::media`]).
    pub fn llm_text(&self) -> String {
        let mut text = String::new();
        for part in &self.llm_content {
            if !text.is_empty() {
                text.push('\n');
            }
            match part {
                ContentPart::Text { text: t } => text.push_str(t),
                ContentPart::Json { json } => text.push_str(json),
                ContentPart::Media { mime_type, bytes, .. } => {
                    text.push_str(&format!("[{mime_type} content, {bytes} bytes, attached]"));
                }
            }
        }
        text
    }
}

/// The typed errors of the contract, plus the host's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The arguments are wrong (malformed JSON, schema violation, plugin's own check).
    InvalidParams,
    NotFound,
    PermissionDenied,
    Timeout,
    Execution,
    Cancelled,
    /// The model called a tool that does not exist.
    ToolNotFound,
    /// The approval policy refused the call.
    PolicyDenied,
    /// The plugin crashed (trapped), returned garbage or ran out of memory.
    PluginFault,
}

impl ErrorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::InvalidParams => "invalid_params",
            Self::NotFound => "not_found",
            Self::PermissionDenied => "permission_denied",
            Self::Timeout => "timeout",
            Self::Execution => "execution",
            Self::Cancelled => "cancelled",
            Self::ToolNotFound => "tool_not_found",
            Self::PolicyDenied => "policy_denied",
            Self::PluginFault => "plugin_fault",
        }
    }
}

/// A failed call: its kind and a message for the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolError {
    pub kind: ErrorKind,
    pub message: String,
}

impl ToolError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self { kind, message: message.into() }
    }
}

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.kind.as_str(), self.message)
    }
}

/// Why a hook gave no reply.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HookFailure {
    #[error("it trapped: {0}")]
    Trapped(String),
    #[error("it ran past its deadline of {0:?}")]
    TimedOut(std::time::Duration),
    #[error("it wrote more than {0} bytes")]
    Flooded(usize),
    #[error("its reply is not valid: {0}")]
    Invalid(String),
    #[error("it could not be started: {0}")]
    Unavailable(String),
    /// A program that ended with a status that is neither a reply nor a refusal.
    #[error("it exited with {0}")]
    Exited(String),
}
