//! Changing what an MCP server may do: `airlock mcp grant` / `revoke` edit
//! `[mcp_servers.NAME]` in the policy file of its scope, keeping everything else the file
//! holds. The grant itself ([`McpGrant`]) is the policy's (`policy::mcp_grant`), which reads
//! it; only the user's files and these commands change it, never the model.

use std::path::Path;

use crate::policy::PolicyError;
use crate::policy::edit::Editor;

pub use crate::policy::mcp_grant::McpGrant;

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
