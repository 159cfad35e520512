//! Listings: what a front end shows when a person asks what the session has — its tools,
//! its plugins and their grants, the folders added to it, the recorded sessions. They are
//! answers to queries of the session's handle, not outputs of its stream, and not part of
//! the headless JSON outputs.
//!
//! Invariant: every text a plugin, the model, a repository or a session file could have
//! written is a [`Shown`], so a front end can draw these values as they come.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Shown;

/// A tool the model may call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ToolRow {
    /// The name the model calls.
    pub name: Shown,
    /// `read`, `edit`, `execute`, …
    pub kind: String,
    /// The plugin that provides it.
    pub plugin: Shown,
    /// The first line of its description.
    pub description: Shown,
}

/// Where a plugin was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PluginOrigin {
    /// Shipped inside airlock.
    Builtin,
    /// The user's plugin folder.
    User,
    /// The workspace's plugin folder.
    Workspace,
}

impl PluginOrigin {
    /// `built-in`, `user` or `workspace`.
    pub fn as_str(self) -> &'static str {
        match self {
            PluginOrigin::Builtin => "built-in",
            PluginOrigin::User => "user",
            PluginOrigin::Workspace => "workspace",
        }
    }
}

/// A loaded plugin and what it is granted now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PluginRow {
    /// Its name.
    pub name: Shown,
    /// Where it was found.
    pub origin: PluginOrigin,
    /// The folders it may reach.
    pub files: Vec<FolderRow>,
    /// The network rules it may reach (`scheme://host:port`).
    pub network: Vec<Shown>,
    /// The environment variables it may read.
    pub env: Vec<Shown>,
}

/// A folder and whether it may be written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FolderRow {
    /// The folder.
    pub path: Shown,
    /// Whether it may be written too.
    pub writable: bool,
}

/// A recorded session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SessionRow {
    /// Its id (`resume` takes it, or its start).
    pub id: String,
    /// When it started (RFC 3339, UTC).
    pub started: String,
    /// When its file was last written to (RFC 3339, UTC).
    pub updated: String,
    /// The workspace it ran in.
    pub workspace: String,
    /// The provider it used.
    pub provider: Shown,
    /// The model it used.
    pub model: Shown,
    /// The start of its first prompt, on one line.
    pub first_prompt: Shown,
    /// Model responses so far.
    pub turns: u64,
}
