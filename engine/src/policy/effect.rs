//! Whether a grant can take effect. A plugin gets the intersection of what it requests and
//! what it is granted, so a grant outside its requests changes nothing; `airlock plugins
//! grant` refuses such a grant with the reason and what would work, instead of saying
//! "granted" (issue 24, item 7: `plugins grant read-file --read /etc` changed nothing).
//!
//! Each entry is judged on its own, by the same computation the runtime uses
//! ([`Policy::effective_under`](super::Policy)): a folder that does not exist or leads out
//! of the workspace, a folder no tool of the plugin requests, write access to a folder the
//! plugin only reads (or that airlock keeps read-only), a destination, variable or command
//! prefix outside every request, and a variable no plugin may be given
//! ([`reserved_variable`]).

use std::path::Path;

use super::Policy;
use crate::capability::{FileGrant, Grant};
use crate::contract::Access;
use crate::registry::{Origin, Plugin};
use crate::sanitize::{grant_flag, shell_word};

/// Why no plugin may be granted the environment variable `name`, when it is reserved: a
/// variable that makes a program load or run code, or one airlock sets itself, would let a
/// plugin granted a harmless command run anything past the rules.
pub fn reserved_variable(name: &str) -> Option<&'static str> {
    airlock_process::is_reserved_variable(name)
}

impl Policy {
    /// The reasons parts of `extra` would change nothing for `plugin`, one line each (empty
    /// when every part takes effect).
    pub fn ineffective(&self, plugin: &Plugin, extra: &Grant) -> Vec<String> {
        let name = shell_word(&plugin.info.name);
        let mut reasons = Vec::new();
        for file in &extra.files {
            if let Some(reason) = self.folder_ineffective(plugin, file) {
                reasons.push(reason);
            }
        }
        for rule in &extra.network {
            let grant = Grant { network: vec![rule.clone()], ..Grant::default() };
            if !self.any_tool(plugin, &grant, |e| !e.network.is_empty()) {
                reasons.push(format!(
                    "{name} does not request {}: it asks for {}, so the grant would change nothing",
                    shell_word(&rule.to_string()),
                    requested(plugin, |c| c.network.clone(), "no network")
                ));
            }
        }
        for var in &extra.env {
            if let Some(why) = reserved_variable(var) {
                reasons.push(format!("no plugin may be granted the variable {}: {why}", shell_word(var)));
                continue;
            }
            if !plugin.info.tools.iter().any(|t| t.capabilities.env.contains(var)) {
                reasons.push(format!(
                    "{name} does not request the variable {}: it asks for {}, so the grant would change nothing",
                    shell_word(var),
                    requested(plugin, |c| c.env.clone(), "no variable")
                ));
            }
        }
        for prefix in &extra.processes {
            let grant = Grant { processes: vec![prefix.clone()], ..Grant::default() };
            if !self.any_tool(plugin, &grant, |e| !e.processes.is_empty()) {
                reasons.push(format!(
                    "{name} does not request to run {}: it asks for {}, so the grant would change nothing",
                    shell_word(prefix),
                    requested(plugin, |c| c.processes.clone(), "no command")
                ));
            }
        }
        reasons
    }

    /// Why the folder grant `file` would change nothing for `plugin` (or only give read
    /// access where write access was asked for), if it would.
    fn folder_ineffective(&self, plugin: &Plugin, file: &FileGrant) -> Option<String> {
        let name = shell_word(&plugin.info.name);
        let path = shell_word(&file.path);
        if self.roots.resolve(&file.path).is_none() {
            return Some(self.unresolved(&file.path));
        }
        if file.path == crate::capability::MEMORY_ROOT && plugin.source.origin == Origin::Workspace {
            return Some(format!(
                "{name} is a workspace's plugin, and only your own policy grants airlock's memory folder to a \
                 plugin of your own folder: a workspace's policy never does"
            ));
        }
        let grant = Grant { files: vec![file.clone()], ..Grant::default() };
        if !self.any_tool(plugin, &grant, |e| !e.files.is_empty()) {
            let folders = |c: &crate::contract::Capabilities| {
                c.files.iter().map(|f| FileGrant { path: f.path.clone(), access: f.access }.to_text()).collect()
            };
            let mut reason = format!(
                "{name} does not request {path}: it asks for {}, so the grant would change nothing",
                requested(plugin, folders, "no folder")
            );
            if plugin.source.origin == Origin::Builtin && self.requests_workspace(plugin) {
                let added = match file.access {
                    Access::ReadWrite => shell_word(&format!("{}:read-write", file.path)),
                    Access::Read => path.clone(),
                };
                reason.push_str(&format!(
                    ". To let the built-in tools reach it for one session, start airlock with `--add-dir {added}` \
                     (or type `/add-dir {added}` in the UI)"
                ));
            }
            return Some(reason);
        }
        if file.access != Access::ReadWrite
            || self.any_tool(plugin, &grant, |e| e.files.iter().any(|(_, a)| *a == Access::ReadWrite))
        {
            return None;
        }
        let read = grant_flag("--read", &file.path);
        if plugin.info.tools.iter().all(|t| t.kind.is_read_only()) {
            return Some(format!("{name} only reads: its tools never get write access, so grant `{read}`"));
        }
        let resolved = self.roots.resolve(&file.path)?;
        if self.protected.iter().any(|own| own.starts_with(&resolved) || resolved.starts_with(own)) {
            return Some(format!(
                "{path} holds or lies inside airlock's own folder, which no grant makes writable (the memory folder \
                 only as `@memory`, in your own policy): grant `{read}`"
            ));
        }
        Some(format!("{name} requests only read access to {path}: grant `{read}`"))
    }

    /// Why the grant path `path` names no folder airlock can grant.
    fn unresolved(&self, path: &str) -> String {
        let shown = shell_word(path);
        let raw = if path == "~" || path.starts_with("~/") {
            self.roots.home.as_ref().map(|home| home.join(path.trim_start_matches('~').trim_start_matches('/')))
        } else if path == crate::capability::MEMORY_ROOT {
            self.roots.memory.clone()
        } else {
            Some(self.roots.workspace.join(path))
        };
        match raw.map(|raw| raw.canonicalize()) {
            Some(Ok(real))
                if !Path::new(path).is_absolute()
                    && !path.starts_with('~')
                    && !real.starts_with(&self.roots.workspace) =>
            {
                format!(
                    "{shown} leads outside the workspace (to {}): grant that folder by its own path",
                    shell_word(&real.display().to_string())
                )
            }
            Some(Ok(real)) if !real.is_dir() => format!("{shown} is not a folder: grant the folder that holds it"),
            _ => format!("{shown} does not exist: make it first, or grant a folder that exists"),
        }
    }

    /// Whether some tool of `plugin` gets something from `grant` alone, as `got` judges.
    fn any_tool(&self, plugin: &Plugin, grant: &Grant, got: impl Fn(&crate::capability::Effective) -> bool) -> bool {
        plugin.info.tools.iter().any(|tool| got(&self.effective_under(plugin, grant, tool)))
    }

    /// Whether a tool of `plugin` requests the workspace.
    fn requests_workspace(&self, plugin: &Plugin) -> bool {
        let workspace = Some(self.roots.workspace.clone());
        plugin.info.tools.iter().flat_map(|t| &t.capabilities.files).any(|f| self.roots.resolve(&f.path) == workspace)
    }
}

/// What the tools of `plugin` request of one kind, as `list` picks it, for a message.
fn requested(plugin: &Plugin, list: impl Fn(&crate::contract::Capabilities) -> Vec<String>, none: &str) -> String {
    let mut all: Vec<String> = Vec::new();
    for tool in &plugin.info.tools {
        for item in list(&tool.capabilities) {
            if !all.contains(&item) {
                all.push(item);
            }
        }
    }
    if all.is_empty() {
        return none.to_string();
    }
    all.iter().map(|item| shell_word(item)).collect::<Vec<_>>().join(", ")
}
