//! `[mcp_servers.NAME]` tables: in the system and user `config.toml`, and in a trusted
//! workspace's `.airlock/config.toml` (whose servers run under the workspace's grants). Each table is checked whole: a bad
//! one is an error naming the server and what to fix, never silently half-used.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Longest start-up timeout a server may be given, in seconds.
pub const MAX_STARTUP_SECS: u64 = 600;
/// Longest per-call timeout, in seconds.
pub const MAX_TOOL_SECS: u64 = 86_400;
/// Default start-up timeout, in seconds.
pub const DEFAULT_STARTUP_SECS: u64 = 30;
/// Default per-call timeout, in seconds.
pub const DEFAULT_TOOL_SECS: u64 = 600;

/// One `[mcp_servers.NAME]` table.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerConfig {
    /// A stdio server's program (looked up on the `PATH` commands get).
    pub command: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// Names of variables the server requests from airlock's environment (it gets those
    /// its grant allows).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<String>,
    /// Its folder, relative to the workspace (default: the workspace).
    pub cwd: Option<String>,
    /// A streamable-HTTP server's endpoint (instead of `command`).
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    pub bearer_token_env: Option<String>,
    pub enabled: Option<bool>,
    /// Only these of the server's tools (its own names).
    pub include_tools: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exclude_tools: Vec<String>,
    pub startup_timeout_sec: Option<u64>,
    pub tool_timeout_sec: Option<u64>,
}

impl ServerConfig {
    pub fn enabled(&self) -> bool {
        self.enabled.unwrap_or(true)
    }

    pub fn startup_secs(&self) -> u64 {
        self.startup_timeout_sec.unwrap_or(DEFAULT_STARTUP_SECS)
    }

    pub fn tool_secs(&self) -> u64 {
        self.tool_timeout_sec.unwrap_or(DEFAULT_TOOL_SECS)
    }

    /// Whether the server's tool `tool` (its own name) is wanted by `include_tools` and
    /// `exclude_tools`.
    pub fn wants(&self, tool: &str) -> bool {
        self.include_tools.as_ref().is_none_or(|only| only.iter().any(|t| t == tool))
            && !self.exclude_tools.iter().any(|t| t == tool)
    }

    /// The table of server `name` is usable: the message says what to fix.
    pub fn check(&self, name: &str) -> Result<(), String> {
        if !is_server_name(name) {
            return Err(format!(
                "[mcp_servers.{name:?}]: a server's name has 1-32 of a-z, 0-9, '_' or '-', and no \"__\""
            ));
        }
        let at = format!("[mcp_servers.{name}]");
        match (&self.command, &self.url) {
            (Some(_), Some(_)) => return Err(format!("{at}: give `command` or `url`, not both")),
            (None, None) => return Err(format!("{at}: give `command` (a stdio server) or `url` (an HTTP server)")),
            (Some(command), None) => {
                if command.trim().is_empty() || command.contains('\0') {
                    return Err(format!("{at}: `command` is empty"));
                }
                if !self.headers.is_empty() || self.bearer_token_env.is_some() {
                    return Err(format!("{at}: `headers` and `bearer_token_env` are for an HTTP server (`url`)"));
                }
            }
            (None, Some(url)) => {
                if !(url.starts_with("https://") || url.starts_with("http://")) {
                    return Err(format!("{at}: `url` must start with https:// or http://"));
                }
                if !self.args.is_empty() || self.cwd.is_some() {
                    return Err(format!("{at}: `args` and `cwd` are for a stdio server (`command`)"));
                }
            }
        }
        for var in self.env.iter().chain(&self.bearer_token_env) {
            if !crate::policy::file::is_env_name(var) {
                return Err(format!("{at}: {var:?} is not a variable name"));
            }
        }
        if let Some(cwd) = &self.cwd
            && (Path::new(cwd).is_absolute() || cwd.split('/').any(|part| part == ".."))
        {
            return Err(format!("{at}: `cwd` must be a folder inside the workspace, relative to it"));
        }
        let limits = [
            ("startup_timeout_sec", self.startup_timeout_sec, MAX_STARTUP_SECS),
            ("tool_timeout_sec", self.tool_timeout_sec, MAX_TOOL_SECS),
        ];
        for (key, value, max) in limits {
            if value.is_some_and(|v| v == 0 || v > max) {
                return Err(format!("{at}: `{key}` must be between 1 and {max}"));
            }
        }
        Ok(())
    }
}

pub use crate::policy::mcp_grant::is_server_name;

/// The MCP servers of a trusted workspace's `.airlock/config.toml`; its other keys are
/// read and checked as a settings layer ([`super::layers`]).
#[derive(Debug, Default, Deserialize)]
struct WorkspaceConfig {
    #[serde(default)]
    mcp_servers: BTreeMap<String, ServerConfig>,
}

/// `<workspace>/.airlock/config.toml`.
pub fn workspace_config_path(workspace: &Path) -> PathBuf {
    workspace.join(".airlock").join("config.toml")
}

/// The servers of a workspace's `.airlock/config.toml` (none when it does not exist), each
/// checked, and the sha-256 of the very bytes parsed (`none` when there is no file), which
/// trust pins. Read through a handle on the workspace, following no link.
pub fn load_workspace(workspace: &Path) -> Result<(BTreeMap<String, ServerConfig>, String), String> {
    let path = workspace_config_path(workspace);
    let bytes = match read_workspace_config(workspace) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => return Ok((BTreeMap::new(), "none".into())),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let hash = airlock_files::content_hash(&bytes);
    let text = String::from_utf8(bytes).map_err(|_| format!("{}: the file is not UTF-8", path.display()))?;
    let parsed: WorkspaceConfig = toml::from_str(&text).map_err(|e| format!("{}: {}", path.display(), e.message()))?;
    check_all(&parsed.mcp_servers).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((parsed.mcp_servers, hash))
}

/// The bytes of a workspace's `.airlock/config.toml`, `None` when there is none.
pub(crate) fn read_workspace_config(workspace: &Path) -> Result<Option<Vec<u8>>, String> {
    let dir = airlock_files::open_dir(workspace).map_err(|e| format!("cannot open the workspace: {e}"))?;
    match airlock_files::read_file_in(&dir, Path::new(".airlock/config.toml"), 1 << 20) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(airlock_files::FileError::NotFound) => Ok(None),
        Err(e) => Err(e.to_string()),
    }
}

/// The sha-256 `airlock trust` pins for a workspace's `.airlock/config.toml` (`none` when
/// there is none): its MCP servers start only while the file is byte-for-byte what was
/// trusted.
pub fn workspace_config_hash(workspace: &Path) -> Result<String, String> {
    Ok(read_workspace_config(workspace)?.map_or_else(|| "none".into(), |bytes| airlock_files::content_hash(&bytes)))
}

/// Checks every table of `servers`.
pub fn check_all(servers: &BTreeMap<String, ServerConfig>) -> Result<(), String> {
    servers.iter().try_for_each(|(name, server)| server.check(name))
}

#[cfg(test)]
#[path = "mcp_tests.rs"]
mod tests;
