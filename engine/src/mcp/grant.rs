//! What an MCP server may do: `[mcp_servers.NAME]` in the policy file of its scope (the
//! user's `policy.toml` for the user's servers, a trusted workspace's for that workspace's).
//! Default-deny: read the workspace, write nothing, no network, no variables. The model
//! never widens it: only the user's files and the `airlock mcp grant` commands do.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::policy::PolicyError;
use crate::policy::edit::Editor;

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

/// A change to a server's grant, as `airlock mcp grant` / `revoke` give it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GrantChange {
    pub read: Vec<String>,
    pub write: Vec<String>,
    pub env: Vec<String>,
    /// Grant (or, for a revoke, take back) the network.
    pub network: bool,
}

/// Adds `change` to server `name`'s grant in the policy file `editor` opened, keeping
/// everything else the file holds (comments included). Save with [`Editor::save`].
pub fn add(editor: &mut Editor, name: &str, change: &GrantChange) {
    editor.mcp_add(name, "read", &change.read);
    editor.mcp_add(name, "write", &change.write);
    editor.mcp_add(name, "env", &change.env);
    if change.network {
        editor.mcp_set_network(name, true);
    }
}

/// Takes `change` back from server `name`'s grant (`all`: the whole table).
pub fn remove(editor: &mut Editor, name: &str, change: &GrantChange, all: bool) {
    if all {
        editor.mcp_remove_grant(name);
        return;
    }
    editor.mcp_remove(name, "read", &change.read);
    editor.mcp_remove(name, "write", &change.write);
    editor.mcp_remove(name, "env", &change.env);
    if change.network {
        editor.mcp_set_network(name, false);
    }
}

/// Grants `change` to server `name` in the user's policy file `path` (or, with
/// `workspace`, in that workspace's `.airlock/policy.toml`), and returns the grant now in
/// force there. A workspace's file changed this way must be trusted again.
pub fn grant(path: &Path, workspace: Option<&Path>, name: &str, change: &GrantChange) -> Result<McpGrant, PolicyError> {
    edit(path, workspace, |editor| add(editor, name, change), name)
}

/// Takes `change` (or with `all` everything) back from server `name`, as [`grant`] adds.
pub fn revoke(
    path: &Path,
    workspace: Option<&Path>,
    name: &str,
    change: &GrantChange,
    all: bool,
) -> Result<McpGrant, PolicyError> {
    edit(path, workspace, |editor| remove(editor, name, change, all), name)
}

fn edit(
    path: &Path,
    workspace: Option<&Path>,
    change: impl FnOnce(&mut Editor),
    name: &str,
) -> Result<McpGrant, PolicyError> {
    let (mut editor, source) = match workspace {
        Some(workspace) => (Editor::open_workspace(workspace)?, crate::policy::rules::RuleSource::Workspace),
        None => (Editor::open(path)?, crate::policy::rules::RuleSource::User),
    };
    change(&mut editor);
    let saved = editor.save(source)?;
    Ok(saved.mcp_servers.get(name).cloned().unwrap_or_default())
}

#[cfg(test)]
#[path = "grant_tests.rs"]
mod tests;
