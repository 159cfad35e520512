//! `airlock mcp grant` and `revoke`: edits of the `[mcp_servers.NAME]` table of the policy
//! file of the server's scope — the user's `policy.toml` for a server of the user's
//! `config.toml`, the workspace's `.airlock/policy.toml` for a workspace's server (re-pinning
//! the folder's trust when it was trusted, since the user made the change, as `airlock plugins
//! grant` does).
//!
//! Invariants: `grant` only adds what it names, and only what can take effect (a folder that
//! does not exist, a variable no server may be given or an unusable name is refused, nothing
//! written); `revoke` only takes away what it names; `revoke --all` removes the table, so
//! the server falls back to the default (read the workspace, nothing else).

use std::io::Write;

use super::{Context, FLAGS, McpGrantFlags, find};
use crate::commands::CommandError;
use airlock_engine::mcp::{self, ConfiguredServer, GrantChange, McpGrant, Scope};
use airlock_engine::policy::edit::Editor;
use airlock_engine::policy::rules::RuleSource;
use airlock_engine::policy::trust::{TrustStatus, TrustStore};
use airlock_engine::sanitize::line;

impl McpGrantFlags {
    pub(super) fn has_any(&self) -> bool {
        !self.read.is_empty() || !self.write.is_empty() || !self.env.is_empty() || self.network
    }

    /// The change, checked: names that can be variables, folders that can be shown.
    fn change(&self, name: &str) -> Result<GrantChange, CommandError> {
        let change = GrantChange {
            read: self.read.clone(),
            write: self.write.clone(),
            env: self.env.clone(),
            network: self.network,
        };
        let as_grant = McpGrant {
            read: change.read.clone(),
            write: change.write.clone(),
            network: false,
            env: change.env.clone(),
        };
        as_grant.check(name).map_err(CommandError::Usage)?;
        Ok(change)
    }
}

/// Adds (or with `revoke` takes back) what the flags name.
pub(super) fn change(
    context: &Context<'_>,
    name: &str,
    flags: &McpGrantFlags,
    revoke: bool,
    out: &mut impl Write,
) -> Result<(), CommandError> {
    if !flags.has_any() {
        let what = if revoke { "take back (or --all)" } else { "grant" };
        return Err(CommandError::Usage(format!("name what to {what}: {FLAGS}")));
    }
    let change = flags.change(name)?;
    let server = find(context, name)?;
    if !revoke {
        refuse_ineffective(context, &change)?;
    }
    let now = edit(context, &server, |editor| {
        if revoke {
            mcp::grant::remove(editor, name, &change, false);
        } else {
            mcp::grant::add(editor, name, &change);
        }
    })?;
    let verb = if revoke { "updated the grant of" } else { "granted" };
    writeln!(out, "{verb} the MCP server {name} in {}", line(&server.grant_file.display().to_string()))?;
    writeln!(out, "  sandboxed: {}", now.describe())?;
    trust_note(context, &server, out)
}

/// `revoke --all`: the server's whole table goes.
pub(super) fn revoke_all(context: &Context<'_>, name: &str, out: &mut impl Write) -> Result<(), CommandError> {
    let server = find(context, name)?;
    revoke_server(context, &server, out)
}

/// Removes `server`'s grant table (also when `airlock mcp remove` removed the server).
pub(super) fn revoke_server(
    context: &Context<'_>,
    server: &ConfiguredServer,
    out: &mut impl Write,
) -> Result<(), CommandError> {
    let now = edit(context, server, |editor| mcp::grant::remove(editor, &server.name, &GrantChange::default(), true))?;
    writeln!(
        out,
        "revoked everything granted to the MCP server {} in {}",
        server.name,
        line(&server.grant_file.display().to_string())
    )?;
    writeln!(out, "  sandboxed: {}", now.describe())?;
    Ok(())
}

/// A folder that does not exist, or a variable no server may see, is refused with the reason.
fn refuse_ineffective(context: &Context<'_>, change: &GrantChange) -> Result<(), CommandError> {
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    let folders: Vec<String> = change.read.iter().chain(&change.write).cloned().collect();
    let (_, mut problems) = McpGrant::resolve(&folders, context.workspace, home.as_deref());
    for var in &change.env {
        if let Some(reason) = airlock_engine::policy::reserved_variable(var) {
            problems.push(format!("{var}: {reason}"));
        }
    }
    if problems.is_empty() {
        return Ok(());
    }
    Err(CommandError::Usage(format!("nothing was granted: {}", problems.join("; "))))
}

/// Opens the policy file of `server`'s scope, applies `change`, saves it (re-pinning a
/// trusted workspace's trust to the bytes written) and returns the grant now written there.
fn edit(
    context: &Context<'_>,
    server: &ConfiguredServer,
    change: impl FnOnce(&mut Editor),
) -> Result<McpGrant, CommandError> {
    let (mut editor, source) = match server.scope {
        Scope::User => (Editor::open(&server.grant_file)?, RuleSource::User),
        Scope::Workspace => (Editor::open_workspace(context.workspace)?, RuleSource::Workspace),
    };
    change(&mut editor);
    let edited = editor.read_hash().to_string();
    let written = editor.save(source)?;
    if server.scope == Scope::Workspace {
        // Only the file that was trusted, and pinned to the bytes written, never a second read.
        let mut store = TrustStore::load(&context.paths.trust_file())?;
        if store.status(context.workspace, &edited) == TrustStatus::Trusted {
            store.repin_policy(context.workspace, &written.hash);
            store.save()?;
        }
    }
    Ok(written.mcp_servers.get(&server.name).cloned().unwrap_or_default())
}

/// Says when a workspace server's grant is not in force yet.
fn trust_note(context: &Context<'_>, server: &ConfiguredServer, out: &mut impl Write) -> Result<(), CommandError> {
    if server.scope != Scope::Workspace {
        return Ok(());
    }
    let hash = airlock_engine::policy::workspace_policy_hash(context.workspace)?;
    if TrustStore::load(&context.paths.trust_file())?.status(context.workspace, &hash) != TrustStatus::Trusted {
        writeln!(out, "  this workspace is not trusted: the grant takes effect after `airlock trust`")?;
    }
    Ok(())
}
