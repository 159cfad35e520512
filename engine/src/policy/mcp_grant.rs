//! What an MCP server may do and what it may be called: the grant (`[mcp_servers.NAME]` in
//! the policy file of its scope — the user's `policy.toml` for the user's servers, a trusted
//! workspace's for that workspace's) and the rules on server names. It lives in the policy,
//! which reads and checks it; the `mcp` module starts servers under it and edits it.
//! Default-deny: read the workspace, write nothing, no network, no variables. The model
//! never widens it: only the user's files and the `airlock mcp grant` commands do.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Longest offered name (`NAME__tool`): what model APIs accept for a function's name.
pub const MAX_OFFERED_NAME: usize = 64;

/// `[a-z0-9_-]{1,32}` without `__` (which separates server and tool in `NAME__tool`).
pub fn is_server_name(name: &str) -> bool {
    (1..=32).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
        && !name.contains("__")
}

/// One server's grant.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpGrant {
    /// Folders it may read besides the workspace (`~/notes`, `/opt/data`, `docs`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub read: Vec<String>,
    /// Folders it may write (`.` is the workspace).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub write: Vec<String>,
    #[serde(default)]
    pub network: bool,
    /// Variables it may see (it gets those it requests and is granted).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<String>,
}

impl McpGrant {
    /// The grant of server `name` is usable.
    pub fn check(&self, name: &str) -> Result<(), String> {
        for folder in self.read.iter().chain(&self.write) {
            if folder.is_empty() || folder.contains('\0') || folder.chars().any(crate::sanitize::is_hidden) {
                return Err(format!("[mcp_servers.{name}]: {folder:?} is not a folder"));
            }
        }
        for var in &self.env {
            if !crate::policy::file::is_env_name(var) {
                return Err(format!("[mcp_servers.{name}]: {var:?} is not a variable name"));
            }
        }
        Ok(())
    }

    /// The grant in one line, as calls and `airlock mcp list` show it:
    /// `reads the workspace, ~/notes; writes nothing; no network; no variables`.
    pub fn describe(&self) -> String {
        let reads = std::iter::once("the workspace").chain(self.read.iter().map(String::as_str)).collect::<Vec<_>>();
        let writes = if self.write.is_empty() { "nothing".to_owned() } else { self.write.join(", ") };
        let network = if self.network { "network" } else { "no network" };
        let env =
            if self.env.is_empty() { "no variables".to_owned() } else { format!("variables {}", self.env.join(", ")) };
        crate::sanitize::line(&format!("reads {}; writes {writes}; {network}; {env}", reads.join(", ")))
    }

    /// The folders of `list` (as written) resolved: `~/` in `home`, relative ones in the
    /// workspace, canonical; the ones that do not exist are left out, with a reason each.
    pub fn resolve(list: &[String], workspace: &Path, home: Option<&Path>) -> (Vec<PathBuf>, Vec<String>) {
        let mut folders = Vec::new();
        let mut problems = Vec::new();
        for spelled in list {
            let path = match spelled.strip_prefix("~/") {
                Some(rest) => match home {
                    Some(home) => home.join(rest),
                    None => {
                        problems.push(format!("{spelled}: airlock has no home folder to find it in"));
                        continue;
                    }
                },
                None if spelled == "~" => match home {
                    Some(home) => home.to_path_buf(),
                    None => continue,
                },
                None => workspace.join(spelled),
            };
            match path.canonicalize() {
                Ok(folder) => folders.push(folder),
                Err(error) => problems.push(format!("{spelled}: {error}")),
            }
        }
        (folders, problems)
    }
}
