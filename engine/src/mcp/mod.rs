//! MCP servers as tool sources: the configured servers (`[mcp_servers.NAME]`, [`config`]),
//! their grants ([`grant`]), the sandbox they start in ([`launch`]), the checks their tools
//! pass before they are offered ([`checks`]) and, in a session, the servers running in the
//! background ([`Hub`]). The scheduler runs their calls (`scheduler/mcp.rs`).
//!
//! For front ends and commands (`airlock mcp list/show/grant/revoke`), without a session:
//! - [`servers`]: every configured server with its config, where it comes from, and its grant;
//! - [`probe`]: starts one server as a session would, and says whether it started (or why
//!   not), which tools would be offered as `NAME__tool`, and which were skipped and why;
//! - [`grant::grant`] / [`grant::revoke`]: edit a server's grant in a policy file, keeping
//!   the file's comments.
//!
//! Invariants: a workspace's servers count only when the workspace is trusted, and a name
//! the user configured wins over the workspace's; a server's grant comes from the policy
//! file of its own scope (never a workspace's for the user's server); an MCP tool never
//! takes the name of a built-in or a plugin's tool (the clash is skipped, with a warning).

pub mod checks;
/// The `[mcp_servers.NAME]` tables of the config files (they live in the config module).
pub use crate::config::mcp as config;
pub mod grant;
pub(crate) mod hub;
pub mod launch;

use std::path::{Path, PathBuf};

pub use checks::{OfferedTool, SkippedTool};
pub use config::ServerConfig;
pub use grant::{GrantChange, McpGrant};
pub use hub::Hub;

use crate::paths::Paths;
use crate::policy::trust::{TrustStatus, TrustStore};

/// Where a server is configured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// `$AIRLOCK_HOME/config.toml`, granted by `$AIRLOCK_HOME/policy.toml`.
    User,
    /// A trusted workspace's `.airlock/config.toml`, granted by its `.airlock/policy.toml`.
    Workspace,
}

/// One configured server, with its grant.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ConfiguredServer {
    pub name: String,
    pub config: ServerConfig,
    pub scope: Scope,
    /// The `config.toml` that declares it.
    pub config_file: PathBuf,
    pub grant: McpGrant,
    /// The `policy.toml` its grant is (or would be) in.
    pub grant_file: PathBuf,
}

impl ConfiguredServer {
    /// `MCP server NAME (sandboxed: <grant>)`, or `MCP server NAME (remote: ORIGIN)` for an
    /// HTTP server: how every call of its tools is marked.
    pub fn marker(&self) -> String {
        match &self.config.url {
            Some(url) => format!("MCP server {} (remote: {})", self.name, crate::sanitize::line(&origin(url))),
            None => format!("MCP server {} (sandboxed: {})", self.name, self.grant.describe()),
        }
    }
}

/// The scheme, host and port of `url`: a path or query may hold a secret, not shown.
pub(crate) fn origin(url: &str) -> String {
    match url.parse::<http::Uri>() {
        Ok(uri) => match (uri.scheme_str(), uri.authority()) {
            (Some(scheme), Some(authority)) => {
                // An authority's user-info (`user:pass@`) is a secret too.
                let host = authority.as_str().rsplit('@').next().unwrap_or_default();
                format!("{scheme}://{host}")
            }
            _ => "an HTTP server".to_owned(),
        },
        Err(_) => "an HTTP server".to_owned(),
    }
}

/// The configured servers, and what the user should know about how they were read.
#[derive(Debug, Clone, Default)]
pub struct Servers {
    pub servers: Vec<ConfiguredServer>,
    /// Servers left out (a workspace's in an untrusted folder, a name the user already
    /// configured), one line each.
    pub notices: Vec<String>,
}

/// A problem reading the servers' config or grants.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct McpConfigError(pub String);

/// Every server configured for `workspace` (canonical): the user's, then a trusted
/// workspace's, each with its grant.
pub fn servers(paths: &Paths, workspace: &Path) -> Result<Servers, McpConfigError> {
    let user_config =
        crate::config::load_settings(paths, Some(workspace)).map_err(|e| McpConfigError(e.to_string()))?.config;
    let policy_error = |e: crate::policy::PolicyError| McpConfigError(e.to_string());
    let user_policy = crate::policy::file::load(&paths.policy_file(), crate::policy::rules::RuleSource::User)
        .map_err(policy_error)?;
    let mut found = Servers::default();
    for (name, config) in user_config.mcp_servers {
        found.servers.push(ConfiguredServer {
            grant: user_policy.mcp_servers.get(&name).cloned().unwrap_or_default(),
            name,
            config,
            scope: Scope::User,
            config_file: paths.config_file(),
            grant_file: paths.policy_file(),
        });
    }
    let (workspace_servers, config_hash) = config::load_workspace(workspace).map_err(McpConfigError)?;
    if workspace_servers.is_empty() {
        return Ok(found);
    }
    let config_file = config::workspace_config_path(workspace);
    let store = TrustStore::load(&paths.trust_file()).map_err(policy_error)?;
    let trusted = match crate::policy::workspace_policy_hash(workspace) {
        Ok(hash) => store.status(workspace, &hash) == TrustStatus::Trusted,
        Err(_) => false,
    };
    if !trusted {
        found.notices.push(format!(
            "ignoring the MCP servers of {}: this folder is not trusted (review it, then run `airlock trust`)",
            config_file.display()
        ));
        return Ok(found);
    }
    // Trust pins the servers' very commands: a `git pull` that changes them does not start
    // them.
    if store.pinned_config(workspace) != Some(config_hash.as_str()) {
        found.notices.push(format!(
            "ignoring the MCP servers of {}: the file changed since this folder was trusted (review it, then run `airlock trust` again)",
            config_file.display()
        ));
        return Ok(found);
    }
    let grant_file = crate::policy::workspace_policy_path(workspace);
    let workspace_policy = match crate::policy::read_workspace_policy(workspace) {
        crate::policy::WorkspacePolicy::File { bytes, .. } => {
            crate::policy::file::parse(&grant_file, bytes, crate::policy::rules::RuleSource::Workspace)
                .map_err(policy_error)?
        }
        _ => crate::policy::file::PolicyFile::default(),
    };
    for (name, config) in workspace_servers {
        if found.servers.iter().any(|s| s.name == name) {
            found.notices.push(format!(
                "the MCP server {name} of {} is ignored: your own config.toml has a server of that name",
                config_file.display()
            ));
            continue;
        }
        found.servers.push(ConfiguredServer {
            grant: workspace_policy.mcp_servers.get(&name).cloned().unwrap_or_default(),
            name,
            config,
            scope: Scope::Workspace,
            config_file: config_file.clone(),
            grant_file: grant_file.clone(),
        });
    }
    Ok(found)
}

/// What [`probe`] found.
#[derive(Debug, Clone, PartialEq)]
pub struct Probe {
    pub state: ProbeState,
    /// The tools a session would offer, as `NAME__tool`.
    pub offered: Vec<OfferedTool>,
    pub skipped: Vec<SkippedTool>,
    /// Parts of the grant that cannot take effect, requested variables not granted, …
    pub warnings: Vec<String>,
}

/// Whether a probed server started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProbeState {
    Started,
    /// `enabled = false`: not started.
    Disabled,
    /// It could not be started or listed; why (sanitised).
    Failed(String),
}

/// Starts `server` as a session would (the same sandbox and checks), lists its tools and
/// stops it. `helper` is the `airlock` executable (`/proc/self/exe` in airlock).
pub async fn probe(paths: &Paths, workspace: &Path, server: &ConfiguredServer, helper: &Path) -> Probe {
    let mut probe =
        Probe { state: ProbeState::Started, offered: Vec::new(), skipped: Vec::new(), warnings: Vec::new() };
    if !server.config.enabled() {
        probe.state = ProbeState::Disabled;
        return probe;
    }
    let commands = crate::config::load_settings(paths, Some(workspace)).map(|s| s.config.commands).unwrap_or_default();
    let view = hub::view_for(paths, workspace, &commands);
    let home = hub::user_home();
    let host = launch::Host { workspace, home: home.as_deref(), view: &view, protected: &paths.protected(), helper };
    match hub::connect(server, &host).await {
        Ok(ready) => {
            probe.offered = ready.offered;
            probe.skipped = ready.skipped;
            probe.warnings = ready.warnings;
        }
        Err(reason) => probe.state = ProbeState::Failed(reason),
    }
    probe
}
