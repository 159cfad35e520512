//! The grant side of capabilities. A tool *requests* (its self-description), the user
//! *grants* (policy files, or the built-ins' defaults); an instance gets the intersection,
//! computed here, and nothing else.
//!
//! Files: a request and a grant meet when one folder contains the other; the deeper folder
//! is kept, with the lesser access. Paths are resolved against the workspace (`.`, `src`)
//! or the home folder (`~/notes`), symlinks included: a workspace path that leads outside
//! the workspace is dropped. Read-only kinds, and every call before approval, get read-only
//! access whatever was granted. Network: scheme, host and port rules ([`net`]). Environment
//! and processes: exact names and command prefixes present on both sides.

pub mod diff;
mod file_grant;
pub mod kinds;
pub mod net;
pub mod search;

use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use crate::contract::{Access, ToolInfo};
pub use file_grant::FileGrant;
use net::NetRule;

/// Which part of a call an instance serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// validate, describe-call, confirm, modify-args: never writes.
    Check,
    /// execute.
    Execute,
}

/// The largest limits a grant, a flag or `config.toml` may set. Past them a value cannot be
/// meant (a wasm32 instance cannot address more than 4 GiB; the runtime never keeps more
/// than 16 MiB of output) and could overflow the host's arithmetic (a deadline of `u64::MAX`
/// seconds does), so they are refused where they are read.
pub const MAX_MEMORY_MB: u64 = 4096;
/// A day.
pub const MAX_TIMEOUT_SECS: u64 = 86_400;
/// 16 MiB.
pub const MAX_OUTPUT_BYTES: u64 = 16 << 20;
/// How a request or grant names airlock's memory folder (`$AIRLOCK_HOME/memory`).
pub const MEMORY_ROOT: &str = "@memory";
/// How a request names the user's skills folder (`$AIRLOCK_HOME/skills`, beside the memory
/// folder): only the built-in `activate_skill` asks for it, to read.
pub const SKILLS_ROOT: &str = "@skills";

/// Limits applied to every call.
#[derive(Debug, Clone, Copy)]
pub struct CallLimits {
    /// Linear-memory cap of an instance, in bytes.
    pub memory: usize,
    /// Wall-clock deadline of one guest call.
    pub deadline: Duration,
    /// Most bytes of tool output sent to the model.
    pub output: usize,
}

impl Default for CallLimits {
    fn default() -> Self {
        Self { memory: 256 << 20, deadline: Duration::from_secs(60), output: 100_000 }
    }
}

/// A directory made visible to the guest, named by its canonical host path (opened without
/// following links when the instance starts).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Preopen {
    /// The directory on the host.
    pub host: PathBuf,
    /// The path under which the guest sees it.
    pub guest: String,
    pub writable: bool,
}

/// Exactly what one call's sandbox will hold, as shown to the person asked to allow it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Held {
    /// Folders visible to the guest (host paths) and whether it may write in them.
    pub folders: Vec<HeldFolder>,
    /// Network destinations (grant rules, as `plugins show` prints them).
    pub network: Vec<String>,
    /// Environment variable names passed in.
    pub env: Vec<String>,
    pub memory_bytes: u64,
    pub timeout_secs: u64,
    pub output_bytes: u64,
    /// For a call that may start programs: the OS sandbox they run in, in one line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commands: Option<String>,
}

/// A folder of [`Held`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HeldFolder {
    pub path: PathBuf,
    pub writable: bool,
}

/// Everything granted to one plugin.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Grant {
    pub files: Vec<FileGrant>,
    pub network: Vec<NetRule>,
    pub env: Vec<String>,
    pub processes: Vec<String>,
    pub memory_mb: Option<usize>,
    pub timeout_secs: Option<u64>,
    pub max_output_bytes: Option<usize>,
}

impl Grant {
    /// Adds what `other` grants (lists joined, nothing twice; limits kept).
    pub fn merge(&mut self, other: &Grant) {
        fn join<T: Clone + PartialEq>(into: &mut Vec<T>, from: &[T]) {
            for item in from {
                if !into.contains(item) {
                    into.push(item.clone());
                }
            }
        }
        join(&mut self.files, &other.files);
        join(&mut self.network, &other.network);
        join(&mut self.env, &other.env);
        join(&mut self.processes, &other.processes);
    }

    /// Grants exactly what the tools request: the default of the built-in tools.
    pub fn requested_by<'a>(tools: impl IntoIterator<Item = &'a ToolInfo>) -> Self {
        let mut grant = Self::default();
        for tool in tools {
            for file in &tool.capabilities.files {
                let wanted = FileGrant { path: file.path.clone(), access: file.access };
                if !grant.files.contains(&wanted) {
                    grant.files.push(wanted);
                }
            }
            for rule in &tool.capabilities.network {
                if let Ok(rule) = NetRule::parse(rule)
                    && !grant.network.contains(&rule)
                {
                    grant.network.push(rule);
                }
            }
            extend_unique(&mut grant.env, &tool.capabilities.env);
            extend_unique(&mut grant.processes, &tool.capabilities.processes);
        }
        grant
    }

    pub fn is_empty(&self) -> bool {
        self == &Self::default()
    }
}

fn extend_unique(into: &mut Vec<String>, from: &[String]) {
    for item in from {
        if !into.contains(item) {
            into.push(item.clone());
        }
    }
}

/// The folders paths are resolved against.
#[derive(Debug, Clone)]
pub struct Roots {
    /// The canonical workspace.
    pub workspace: PathBuf,
    /// The user's home folder, if known.
    pub home: Option<PathBuf>,
    /// airlock's memory folder (`@memory` in requests and grants), if known.
    pub memory: Option<PathBuf>,
}

impl Roots {
    /// The canonical host folder for a request or grant path (`@memory` is airlock's memory
    /// folder, nothing below it), or `None` when it cannot be
    /// resolved, does not exist, or is a workspace path that leads outside the workspace.
    pub fn resolve(&self, path: &str) -> Option<PathBuf> {
        let (base, rest, inside_workspace) = if path == MEMORY_ROOT {
            (self.memory.clone()?, "", false)
        } else if path == SKILLS_ROOT {
            (self.memory.as_deref()?.parent()?.join("skills"), "", false)
        } else if let Some(rest) = path.strip_prefix("~/") {
            (self.home.clone()?, rest, false)
        } else if path == "~" {
            (self.home.clone()?, "", false)
        } else if Path::new(path).is_absolute() {
            (PathBuf::from("/"), path.trim_start_matches('/'), false)
        } else {
            (self.workspace.clone(), path, true)
        };
        let mut joined = base;
        for component in Path::new(rest).components() {
            match component {
                Component::CurDir => {}
                Component::Normal(part) => joined.push(part),
                _ => return None,
            }
        }
        let canonical = joined.canonicalize().ok()?;
        if inside_workspace && !canonical.starts_with(&self.workspace) {
            tracing::warn!("{path:?} leads outside the workspace ({}); not granted", canonical.display());
            return None;
        }
        canonical.is_dir().then_some(canonical)
    }
}

/// What one tool gets: requested ∩ granted, and what it asked for but did not get.
#[derive(Debug, Clone, Default)]
pub struct Effective {
    /// Folders and their access while executing.
    pub files: Vec<(PathBuf, Access)>,
    pub network: Vec<NetRule>,
    pub env: Vec<String>,
    pub processes: Vec<String>,
    /// Requests that were not granted, each as the flag of `airlock plugins grant` that
    /// would grant it, its value shell-quoted (`--read '~/notes'`, `--net https://api.example.com`).
    pub missing: Vec<String>,
    /// Requests the grant's record does not approve ([`diff`]): new since the version the
    /// grant was given for. They get nothing, whatever the grant covers, until the user
    /// approves them (`airlock plugins approve`).
    pub unapproved: diff::Requests,
    /// Values the host sets for variables of `env` instead of its own environment's (the
    /// search API's settings for `web_search`).
    pub provided_env: Vec<(String, String)>,
}

impl Effective {
    /// The preopens for a phase of a call: read-only unless the tool mutates and executes.
    pub fn preopens(&self, tool: &ToolInfo, phase: Phase) -> Vec<Preopen> {
        self.files
            .iter()
            .map(|(host, access)| Preopen {
                host: host.clone(),
                guest: host.to_string_lossy().into_owned(),
                writable: *access == Access::ReadWrite && !tool.kind.is_read_only() && phase == Phase::Execute,
            })
            .collect()
    }
}

impl Effective {
    /// The preopens for executing an approved edit of a file in `dir` (its canonical,
    /// existing folder): everything read-only except `dir` itself, which is writable when the
    /// grant lets the tool write there. The call can change what its confirmation showed —
    /// that folder — and nothing else, whatever its code does.
    pub fn edit_preopens(&self, tool: &ToolInfo, dir: &Path) -> Vec<Preopen> {
        let mut preopens = self.preopens(tool, Phase::Check);
        if !self.may_write(tool, dir) {
            return preopens;
        }
        match preopens.iter_mut().find(|p| p.host == dir) {
            Some(same) => same.writable = true,
            None => preopens.push(Preopen {
                host: dir.to_path_buf(),
                guest: dir.to_string_lossy().into_owned(),
                writable: true,
            }),
        }
        preopens
    }

    /// Whether an executing call of `tool` may write in `dir` (canonical): a mutating kind,
    /// and a read-write grant holds it.
    pub fn may_write(&self, tool: &ToolInfo, dir: &Path) -> bool {
        !tool.kind.is_read_only()
            && self.files.iter().any(|(host, access)| *access == Access::ReadWrite && dir.starts_with(host))
    }

    /// The preopens for executing an approved edit bound to its file (a third-party
    /// plugin's): every granted folder read-only, and `scratch` — a private copy of the
    /// confirmed file's folder `dir` — writable under `dir`'s own path, in place of the real
    /// folder. Whatever the call writes there stays there until the host takes the one file
    /// the person approved out of it.
    pub fn bound_preopens(&self, tool: &ToolInfo, dir: &Path, scratch: &Path) -> Vec<Preopen> {
        let mut preopens: Vec<Preopen> =
            self.preopens(tool, Phase::Check).into_iter().filter(|p| p.host != dir).collect();
        preopens.push(Preopen {
            host: scratch.to_path_buf(),
            guest: dir.to_string_lossy().into_owned(),
            writable: true,
        });
        preopens
    }

    /// The folders a call could write while executing (for confirmations).
    pub fn writable(&self, tool: &ToolInfo) -> Vec<&Path> {
        if tool.kind.is_read_only() {
            return Vec::new();
        }
        self.files.iter().filter(|(_, access)| *access == Access::ReadWrite).map(|(host, _)| host.as_path()).collect()
    }

    /// Makes every folder read-only that contains or lies inside one of `protected` (airlock's
    /// own home and cache): no grant may reach them for writing — except a folder inside one
    /// of `writable` (the memory folder, which holds no policy, trust or code).
    pub fn protect(&mut self, protected: &[PathBuf], writable: &[PathBuf]) {
        for (host, access) in &mut self.files {
            let exempt = writable.iter().any(|w| host.starts_with(w));
            if !exempt && protected.iter().any(|p| p.starts_with(&*host) || host.starts_with(p)) {
                *access = Access::Read;
            }
        }
    }
}

/// Intersects a tool's requests with a grant.
pub fn effective(tool: &ToolInfo, grant: &Grant, roots: &Roots) -> Effective {
    let mut result = Effective::default();
    for request in &tool.capabilities.files {
        let Some(wanted) = roots.resolve(&request.path) else {
            continue;
        };
        // A read-only kind is never given a write ([`kinds`]): its write request is a read.
        let asked = kinds::usable_access(tool.kind, request.access);
        let mut granted = false;
        for file in &grant.files {
            let Some(given) = roots.resolve(&file.path) else { continue };
            let access = if asked == Access::ReadWrite && file.access == Access::ReadWrite {
                Access::ReadWrite
            } else {
                Access::Read
            };
            let folder = if wanted.starts_with(&given) {
                wanted.clone()
            } else if given.starts_with(&wanted) {
                given
            } else {
                continue;
            };
            granted |= folder == wanted && (access == asked);
            match result.files.iter_mut().find(|(host, _)| *host == folder) {
                Some((_, existing)) if access == Access::ReadWrite => *existing = Access::ReadWrite,
                Some(_) => {}
                None => result.files.push((folder, access)),
            }
        }
        if !granted {
            let flag = if asked == Access::ReadWrite { "--write" } else { "--read" };
            result.missing.push(crate::sanitize::grant_flag(flag, &request.path));
        }
    }
    let requested: Vec<NetRule> = tool.capabilities.network.iter().filter_map(|r| NetRule::parse(r).ok()).collect();
    result.network = net::intersect(&requested, &grant.network);
    for rule in &requested {
        if !net::intersect(std::slice::from_ref(rule), &grant.network).contains(rule) {
            result.missing.push(crate::sanitize::grant_flag("--net", &rule.to_string()));
        }
    }
    for var in &tool.capabilities.env {
        if grant.env.contains(var) {
            result.env.push(var.clone());
        } else {
            result.missing.push(crate::sanitize::grant_flag("--env", var));
        }
    }
    for prefix in &tool.capabilities.processes {
        if grant.processes.iter().any(|g| prefix == g || prefix.starts_with(&format!("{g} "))) {
            result.processes.push(prefix.clone());
        } else {
            result.missing.push(crate::sanitize::grant_flag("--process", prefix));
        }
    }
    result
}

#[cfg(test)]
#[path = "mod_tests.rs"]
mod tests;
