//! The sandbox a stdio server runs in, built the way `run_shell_command`'s commands get
//! theirs (`runtime/process.rs`) but from the server's grant: it reads the workspace, its
//! `read` folders and the toolchain folders every command reads (package caches included,
//! read-only); it writes only its `write` folders (never airlock's own) and its private
//! temp folder; the network only when granted; and only the variables it requests and is
//! granted. The user's secrets stay hidden ([`CommandView`]).
//!
//! An HTTP server is a remote service airlock connects to itself ([`http_launch`]): no
//! sandbox and none of the grant applies; it gets its URL, its headers and the token of
//! its `bearer_token_env`, and nothing else of the user's.

use std::path::{Path, PathBuf};
use std::time::Duration;

use airlock_mcp::{HttpLaunch, Launch};
use airlock_process::Base;
use airlock_sandbox::Spec;
use airlock_sandbox::folders::CommandView;

use super::ConfiguredServer;

/// What starting a server needs besides its own config and grant.
#[derive(Debug, Clone)]
pub struct Host<'a> {
    /// The canonical workspace.
    pub workspace: &'a Path,
    /// The user's home folder, for `~/` in grants.
    pub home: Option<&'a Path>,
    pub view: &'a CommandView,
    /// airlock's own folders: never writable.
    pub protected: &'a [PathBuf],
    /// The sandbox helper (`/proc/self/exe` in airlock).
    pub helper: &'a Path,
}

/// The launch of `server` under its grant, and what of the grant cannot take effect (each a
/// line for a warning). An error when the server cannot be started at all.
pub fn launch(server: &ConfiguredServer, host: &Host<'_>) -> Result<(Launch, Vec<String>), String> {
    let name = &server.name;
    let config = &server.config;
    let Some(command) = &config.command else {
        return Err(format!("MCP server {name}: it has no `command` (it is an HTTP server)"));
    };
    let grant = &server.grant;
    let mut warnings = Vec::new();
    let (read, problems) = super::McpGrant::resolve(&grant.read, host.workspace, host.home);
    warnings.extend(problems.into_iter().map(|p| format!("MCP server {name}: cannot read {p}")));
    let (write, problems) = super::McpGrant::resolve(&grant.write, host.workspace, host.home);
    warnings.extend(problems.into_iter().map(|p| format!("MCP server {name}: cannot write {p}")));
    let mut read_write = Vec::new();
    for folder in write {
        if host.protected.iter().any(|p| folder.starts_with(p) || p.starts_with(&folder)) {
            warnings.push(format!(
                "MCP server {name}: {} holds airlock's own folder, so it is not writable",
                folder.display()
            ));
        } else {
            read_write.push(folder);
        }
    }
    let mut read_only = vec![host.workspace.to_path_buf()];
    read_only.extend(read);
    read_only.extend(host.view.read.iter().cloned());
    // Package caches are for reading here: a server writes only what its grant names.
    read_only.extend(host.view.write.iter().cloned());
    let cwd = match &config.cwd {
        Some(cwd) => host
            .workspace
            .join(cwd)
            .canonicalize()
            .ok()
            .filter(|dir| dir.starts_with(host.workspace) && dir.is_dir())
            .ok_or_else(|| format!("MCP server {name}: `cwd = {cwd:?}` is not a folder of the workspace"))?,
        None => host.workspace.to_path_buf(),
    };
    let mut env = Vec::new();
    for var in &config.env {
        if !grant.env.contains(var) {
            warnings.push(format!(
                "MCP server {name} requests the variable {var}, which it is not granted: \
                 airlock mcp grant {name} --env {var}"
            ));
            continue;
        }
        if let Some(why) = airlock_process::is_reserved_variable(var) {
            warnings.push(format!("MCP server {name}: the variable {var} is not passed on ({why})"));
            continue;
        }
        match std::env::var(var) {
            Ok(value) if !value.contains('\0') => env.push((var.clone(), value)),
            _ => warnings.push(format!("MCP server {name}: the variable {var} is not set in airlock's environment")),
        }
    }
    let mut argv = vec![command.clone()];
    argv.extend(config.args.iter().cloned());
    let spec = Spec {
        argv,
        cwd,
        env,
        read_write,
        read_only,
        hidden: host.view.hidden.clone(),
        network: grant.network,
        view: host.view.view,
    };
    let base = Base { path: host.view.path.clone(), home: host.view.home.clone(), vars: host.view.env.clone() };
    let launch = Launch {
        spec,
        base: Some(base),
        helper: host.helper.to_path_buf(),
        startup_timeout: Duration::from_secs(config.startup_secs()),
        max_message: airlock_mcp::MAX_MESSAGE,
    };
    Ok((launch, warnings))
}

/// The connection to the HTTP server `server`, and what the user should know about it (each
/// a line for a warning). An error when the token's variable is not set.
pub fn http_launch(server: &ConfiguredServer) -> Result<(HttpLaunch, Vec<String>), String> {
    let name = &server.name;
    let config = &server.config;
    let Some(url) = &config.url else {
        return Err(format!("MCP server {name}: it has no `url` (it is a stdio server)"));
    };
    let mut warnings = Vec::new();
    let bearer_token = match &config.bearer_token_env {
        Some(var) => match std::env::var(var) {
            Ok(token) if !token.trim().is_empty() => Some(token.trim().to_owned()),
            _ => {
                return Err(format!(
                    "MCP server {name}: its token variable {var} (`bearer_token_env`) is not set in airlock's \
                     environment"
                ));
            }
        },
        None => None,
    };
    if airlock_mcp::in_clear(url) {
        warnings.push(format!(
            "MCP server {name}: {} is plain http:// to another machine; its token, headers and calls travel \
             in clear",
            super::origin(url)
        ));
    }
    if server.grant != super::McpGrant::default() {
        warnings.push(format!(
            "MCP server {name} is an HTTP server (a remote service): its grant in {} does not apply to it",
            server.grant_file.display()
        ));
    }
    let launch = HttpLaunch {
        url: url.clone(),
        headers: config.headers.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        bearer_token,
        startup_timeout: Duration::from_secs(config.startup_secs()),
        max_message: airlock_mcp::MAX_MESSAGE,
    };
    Ok((launch, warnings))
}

#[cfg(test)]
#[path = "launch_tests.rs"]
mod tests;
