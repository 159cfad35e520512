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

/// A tool as a tool server offers it (`airlock mcp serve`): what a client needs to show and
/// call it. Only the tools the session's policy offers (the approval mode and the rules)
/// are listed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ServedTool {
    /// The name a client calls (`^[a-z][a-z0-9_]{0,62}$`, checked when the plugin loaded).
    pub name: String,
    /// Its whole description, as the model reads it.
    pub description: Shown,
    /// The JSON Schema of its arguments (an object schema).
    pub input_schema: serde_json::Value,
    /// `read`, `edit`, `delete`, `move`, `search`, `execute`, `fetch`, `think` or `other`.
    pub kind: String,
    /// A person-facing title (the plugin's display name).
    pub title: Shown,
    /// Whether it requests the network (a web search or fetch).
    pub network: bool,
    /// The plugin that provides it.
    pub plugin: Shown,
    /// Where that plugin was found.
    pub origin: PluginOrigin,
}

/// How a call run outside a model turn ended: what the model would have been told.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CallResult {
    /// The call's id (its `tool_call` events and questions carry it).
    pub call_id: String,
    /// The output, or the error (`kind: message`), as the model reads it; media parts are
    /// named, since the runtime keeps only their type and size.
    pub text: String,
    /// Whether the call failed, was refused or was cancelled.
    pub is_error: bool,
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

/// A custom command a person can run (`/NAME ARGS`): a prompt kept in a Markdown (or
/// Gemini CLI `.toml`) file of `$AIRLOCK_HOME/commands/` or `<workspace>/.airlock/commands/`.
/// Its name is checked when it loads (letters, digits, `-`, `_`, `.`, namespaces joined by
/// `:`); its description and argument hint come from the file and are sanitised to one line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CommandRow {
    /// The name typed after `/` (`review`, `frontend:component`, `workspace:review`).
    pub name: String,
    /// What it does, on one line (empty when the file says nothing).
    pub description: String,
    /// What it takes after its name (`[pr-number] [priority]`), on one line.
    pub argument_hint: Option<String>,
    /// Where its file was found.
    pub source: CommandSource,
}

/// Where a custom command's file was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CommandSource {
    /// `$AIRLOCK_HOME/commands/`: the user's own.
    User,
    /// `<workspace>/.airlock/commands/`: it came with the repository; a prompt that steers,
    /// never a grant.
    Workspace,
}

/// A custom command expanded for one run: the prompt to send as a user turn, and what was
/// left out of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ExpandedCommand {
    /// The user turn: the command's body with its arguments filled in and its `@path`
    /// includes read.
    pub prompt: String,
    /// One line each: an include left out and why, shell interpolation not run.
    pub notices: Vec<String>,
}
