//! The public JSON shapes: every object airlock prints for a program to read is one of the
//! typed structs here, and nothing else builds JSON output by hand.
//!
//! | command                                  | prints                                              |
//! |------------------------------------------|-----------------------------------------------------|
//! | `airlock -p … -o json`                   | one line: `airlock_protocol::JsonOutput`            |
//! | `airlock -p … -o stream-json`            | a line per event: `airlock_protocol::StampedEvent`, then `airlock_protocol::ResultLine` |
//! | `airlock tools list --json`              | [`ToolList`], indented                              |
//! | `airlock plugins list --json`            | [`PluginList`], indented                            |
//! | `airlock plugins show NAME --json`       | [`PluginView`], indented                            |
//! | `airlock plugins inspect FILE --json`    | [`Inspected`], indented                             |
//! | `airlock sessions list --json`           | an array of [`SessionEntry`], indented              |
//! | `airlock mcp list --json`                | [`McpServerList`], indented                         |
//! | `airlock mcp show NAME --json`           | [`McpServerView`], indented                         |
//!
//! The run's outputs (`-o json`, `-o stream-json`) are the protocol's types
//! (`airlock_protocol`: their shapes, documentation and JSON Schema live there), built from
//! the engine's values at the front ends' edge (`airlock_door::edge`). Nested values of the
//! listings that belong to the plugin contract or the policy (capabilities, grants) keep
//! their own `Serialize` and are documented where they are defined.
//!
//! Invariant — key order: every shape but [`SessionEntry`] prints its keys in alphabetical
//! order at every depth, as it always has: [`write_pretty`] (`airlock_frontends::json`) goes
//! through a [`serde_json::Value`] whose objects it rebuilds in key order (serde_json's
//! `preserve_order` is on in the binary: the ACP SDK needs it). Fields below are declared in that order so a struct reads like its
//! output. `sessions list` prints its entries in field order ([`write_sessions`]).
//! Times are milliseconds (fractional), token counts are tokens.

use std::io::{self, Write};
use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use airlock_engine::capability::Grant;
use airlock_engine::contract::{Access, Capabilities, Kind, PluginInfo};
use airlock_engine::registry::{LoadProblem, Origin};
use airlock_engine::session::Summary as SessionSummary;

/// `tools list --json`.
#[derive(Debug, Serialize)]
pub struct ToolList<'a> {
    /// The tools of the MCP servers, as a session would offer them (left out when there
    /// are none, so the listing without servers keeps its shape).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub mcp_tools: Vec<McpToolEntry<'a>>,
    /// Plugins that could not be loaded.
    pub problems: &'a [LoadProblem],
    /// Every tool the model may call.
    pub tools: Vec<ToolEntry<'a>>,
}

/// A tool as `tools list --json` shows it.
#[derive(Debug, Serialize)]
pub struct ToolEntry<'a> {
    /// What the tool requests (files, network, env, processes), as the plugin declared it.
    pub capabilities: &'a Capabilities,
    /// What the model is told the tool does.
    pub description: &'a str,
    /// The name shown to a person.
    pub display_name: &'a str,
    /// `read`, `edit`, `execute`, …: what approval the tool's calls need.
    pub kind: Kind,
    /// The name the model calls.
    pub name: &'a str,
    /// Whether its calls may run alongside others.
    pub parallel_safe: bool,
    /// The JSON schema of its arguments.
    pub parameters: &'a Value,
    /// The plugin it comes from.
    pub plugin: PluginRef<'a>,
    /// Whether it streams live output while it runs.
    pub streams_output: bool,
}

/// The plugin a tool comes from.
#[derive(Debug, Serialize)]
pub struct PluginRef<'a> {
    /// The plugin's file, or the built-in's name.
    pub file: String,
    /// The plugin's name.
    pub name: &'a str,
    /// `builtin`, `user` or `workspace`.
    pub origin: Origin,
    /// The plugin's version.
    pub version: &'a str,
}

/// `plugins list --json`.
#[derive(Debug, Serialize)]
pub struct PluginList<'a> {
    /// Every loaded plugin.
    pub plugins: Vec<PluginView<'a>>,
    /// Plugins that could not be loaded.
    pub problems: &'a [LoadProblem],
}

/// `plugins show NAME --json`, and each entry of `plugins list --json`.
#[derive(Debug, Serialize)]
pub struct PluginView<'a> {
    /// The grant's lists that are the built-in's default (`files`, `network`, `env`,
    /// `processes`): what it requests.
    pub defaults: Vec<&'static str>,
    /// The plugin's file, or the built-in's name.
    pub file: String,
    /// The grant in force.
    pub granted: Grant,
    /// The policy file the grant comes from, `built-in default`, or `nothing`.
    pub granted_by: String,
    /// The plugin's name.
    pub name: &'a str,
    /// For a plugin installed from an OCI registry: the reference and manifest digest
    /// recorded in `plugins.lock`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub oci: Option<airlock_engine::registry::lock::OciPin>,
    /// `builtin`, `user` or `workspace`.
    pub origin: Origin,
    /// Each tool: what it requests and what it gets.
    pub tools: Vec<ToolAccess<'a>>,
    /// The plugin's version.
    pub version: &'a str,
}

/// What one tool requests and gets.
#[derive(Debug, Serialize)]
pub struct ToolAccess<'a> {
    /// What its calls get under the grant.
    pub gets: Gets,
    /// Its kind (`read`, `edit`, …).
    pub kind: Kind,
    /// Requests not granted, each as the `plugins grant` flag that would grant it.
    pub missing: Vec<String>,
    /// The tool's name.
    pub name: &'a str,
    /// What it requests, as the plugin declared it.
    pub requests: &'a Capabilities,
}

/// What a tool's calls get.
#[derive(Debug, Serialize)]
pub struct Gets {
    /// Environment variables.
    pub env: Vec<String>,
    /// Folders and their access.
    pub files: Vec<FileAccess>,
    /// Network rules, as written in a policy.
    pub network: Vec<String>,
    /// Programs it may start.
    pub processes: Vec<String>,
}

/// A folder a call gets.
#[derive(Debug, Serialize)]
pub struct FileAccess {
    /// `read` or `read-write`.
    pub access: Access,
    /// The folder, resolved.
    pub path: std::path::PathBuf,
}

/// `plugins inspect FILE --json`.
#[derive(Debug, Serialize)]
pub struct Inspected<'a> {
    /// The file as given.
    pub file: &'a Path,
    /// What the plugin says about itself.
    pub plugin: &'a PluginInfo,
}

/// An entry of `sessions list --json`. Printed in field order, not sorted.
#[derive(Debug, Serialize)]
pub struct SessionEntry<'a> {
    /// The session's id (`airlock --resume ID`).
    pub id: &'a str,
    /// When it started (RFC 3339, UTC).
    pub started: &'a str,
    /// When its file was last written to (RFC 3339, UTC).
    pub updated: &'a str,
    /// The workspace it ran in.
    pub workspace: &'a str,
    /// The provider it used.
    pub provider: &'a str,
    /// The model it used.
    pub model: &'a str,
    /// The start of the first prompt, on one line.
    pub first_prompt: &'a str,
    /// Model responses so far.
    pub turns: u64,
    /// The session file.
    pub path: &'a Path,
    /// The checkpoints the workspace's store holds for it (absent: the workspace has no
    /// store).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkpoints: Option<u64>,
    /// The bytes the workspace's store uses on disk, shared by its sessions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub store_bytes: Option<u64>,
}

impl<'a> From<&'a SessionSummary> for SessionEntry<'a> {
    fn from(s: &'a SessionSummary) -> Self {
        Self {
            id: &s.id,
            started: &s.started,
            updated: &s.updated,
            workspace: &s.workspace,
            provider: &s.provider,
            model: &s.model,
            first_prompt: &s.first_prompt,
            turns: s.turns,
            path: &s.path,
            checkpoints: None,
            store_bytes: None,
        }
    }
}

pub use airlock_frontends::json::write_pretty;

/// An MCP server's tool as `tools list --json` shows it.
#[derive(Debug, Serialize)]
pub struct McpToolEntry<'a> {
    /// What the model is told the tool does (checked, hidden characters removed).
    pub description: &'a str,
    /// `MCP server NAME (sandboxed: …)`.
    pub marker: String,
    /// `NAME__tool`: the name the model calls.
    pub name: &'a str,
    /// The JSON schema of its arguments.
    pub parameters: &'a Value,
    /// The server it comes from.
    pub server: &'a str,
    /// The server's own name of it.
    pub tool: &'a str,
}

/// `mcp list --json`.
#[derive(Debug, Serialize)]
pub struct McpServerList {
    pub servers: Vec<McpServerView>,
}

/// One MCP server in `mcp list --json` and `mcp show NAME --json`: its config, grant, and
/// what starting it found.
#[derive(Debug, Serialize)]
pub struct McpServerView {
    /// A stdio server's program and arguments (`null` for an HTTP server).
    pub command: Option<Vec<String>>,
    /// The `config.toml` that declares it.
    pub config_file: std::path::PathBuf,
    /// Why it did not start, when `state` is `failed`.
    pub error: Option<String>,
    /// What it may do: `read`, `write`, `network`, `env` (`airlock_engine::mcp::McpGrant`).
    pub grant: airlock_engine::mcp::McpGrant,
    /// The `policy.toml` its grant is (or would be) written in.
    pub grant_file: std::path::PathBuf,
    /// `MCP server NAME (sandboxed: …)`, as its calls are marked.
    pub marker: String,
    pub name: String,
    /// `user` or `workspace`.
    pub scope: airlock_engine::mcp::Scope,
    /// Its tools that are not offered, and why.
    pub skipped: Vec<McpSkipped>,
    /// `started`, `disabled` or `failed`.
    pub state: &'static str,
    /// The tools offered to the model.
    pub tools: Vec<McpTool>,
    /// An HTTP server's endpoint (`null` for a stdio server).
    pub url: Option<String>,
    pub warnings: Vec<String>,
}

/// A tool an MCP server offers.
#[derive(Debug, Serialize)]
pub struct McpTool {
    pub description: String,
    /// `NAME__tool`, as the model sees it.
    pub name: String,
    /// The server's own name of it.
    pub tool: String,
}

/// A tool of an MCP server that is not offered.
#[derive(Debug, Serialize)]
pub struct McpSkipped {
    pub reason: String,
    pub tool: String,
}

/// Writes `sessions list --json`: an indented array of [`SessionEntry`], keys in field order.
pub fn write_sessions(
    out: &mut impl Write,
    sessions: &[SessionSummary],
    space: &[Option<super::sessions_list::Space>],
) -> io::Result<()> {
    let entries: Vec<SessionEntry<'_>> = sessions
        .iter()
        .zip(space.iter().chain(std::iter::repeat(&None)))
        .map(|(session, space)| SessionEntry {
            checkpoints: space.map(|s| s.checkpoints),
            store_bytes: space.map(|s| s.store_bytes),
            ..SessionEntry::from(session)
        })
        .collect();
    serde_json::to_writer_pretty(&mut *out, &entries)?;
    writeln!(out)
}
