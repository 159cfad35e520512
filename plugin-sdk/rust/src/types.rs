//! The contract's data types, re-exported from the bindings, with the builders and
//! constructors that make them pleasant to write: [`Capabilities`] requests,
//! [`ToolOutput`] results and [`edit_confirmation`].

use std::path::Path;

pub use crate::bindings::airlock::tool::types::{
    Access, Capabilities, Confirmation, ContentPart, Display, EditConfirmation, ExecConfirmation, FileDiff,
    FileRequest, InfoConfirmation, Kind, Media, PluginInfo, Risk, ToolError, ToolInfo, ToolOutput,
};

impl Capabilities {
    /// Requests nothing: no files, no network, no environment, no processes.
    pub fn none() -> Self {
        Capabilities { files: Vec::new(), network: Vec::new(), env: Vec::new(), processes: Vec::new() }
    }

    /// Requests read access to a directory tree: `.` (the workspace), `src`, `~/notes`.
    #[must_use]
    pub fn read(mut self, path: &str) -> Self {
        self.files.push(FileRequest { path: path.to_string(), access: Access::Read });
        self
    }

    /// Requests read-write access to a directory tree.
    #[must_use]
    pub fn read_write(mut self, path: &str) -> Self {
        self.files.push(FileRequest { path: path.to_string(), access: Access::ReadWrite });
        self
    }

    /// Requests network access to `scheme://host[:port]` (`https://*.example.com`).
    #[must_use]
    pub fn network(mut self, rule: &str) -> Self {
        self.network.push(rule.to_string());
        self
    }

    /// Requests one environment variable.
    #[must_use]
    pub fn env(mut self, name: &str) -> Self {
        self.env.push(name.to_string());
        self
    }

    /// Requests running commands that start with `prefix` through the host.
    #[must_use]
    pub fn process(mut self, prefix: &str) -> Self {
        self.processes.push(prefix.to_string());
        self
    }
}

impl ToolOutput {
    /// A result that tells the model `text`.
    pub fn text(text: impl Into<String>) -> Self {
        ToolOutput { llm_content: vec![ContentPart::Text(text.into())], display: None }
    }

    /// A result that tells the model structured data, as JSON.
    pub fn json(value: &serde_json::Value) -> Self {
        ToolOutput { llm_content: vec![ContentPart::Json(value.to_string())], display: None }
    }

    /// Shows the user `markdown` instead of a summary of what the model is told.
    #[must_use]
    pub fn with_markdown(mut self, markdown: impl Into<String>) -> Self {
        self.display = Some(Display::Markdown(markdown.into()));
        self
    }

    /// Shows the user a diff of a file change.
    #[must_use]
    pub fn with_diff(mut self, path: &Path, original: impl Into<String>, proposed: impl Into<String>) -> Self {
        self.display = Some(Display::Diff(FileDiff {
            path: path.display().to_string(),
            original: original.into(),
            proposed: proposed.into(),
        }));
        self
    }
}

impl ToolError {
    /// The message, whatever the kind of error.
    pub fn message(&self) -> &str {
        match self {
            ToolError::InvalidParams(m)
            | ToolError::NotFound(m)
            | ToolError::PermissionDenied(m)
            | ToolError::Timeout(m)
            | ToolError::Execution(m)
            | ToolError::Cancelled(m) => m,
        }
    }
}

/// An edit confirmation for `path` (absolute): `original` is the current content, or
/// `None` when the file does not exist yet; `proposed` is the content after the call.
pub fn edit_confirmation(path: &Path, original: Option<&str>, proposed: &str) -> Confirmation {
    Confirmation::Edit(EditConfirmation {
        path: path.display().to_string(),
        original: original.unwrap_or_default().to_string(),
        proposed: proposed.to_string(),
        is_new_file: original.is_none(),
    })
}
