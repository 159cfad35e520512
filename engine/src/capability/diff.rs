//! Capability diffs: what a plugin requests, as a set ([`Requests`]), and what one version
//! requests beyond another ([`RequestDiff`]).
//!
//! A grant records the requests it was given for (`[grants.NAME.approved]`, read by the
//! policy): a request outside that record gets nothing, whatever the grant would cover
//! ([`Requests::narrow`]), so an update that asks for a new host under a `https://*` grant
//! reaches nothing new until the user approves it. Coverage is by the request syntax, never
//! by what the paths resolve to: a record of `~/notes` approves `~/notes/sub`, a record of
//! `src:read` approves reading `src` but not writing it, a record of `https://a.com` approves
//! neither `https://a.com:8443` nor `https://*.a.com`, a record of `git` approves
//! `git status`. A request the record covers only in part keeps that part (a read-write
//! request under a read record is read-only) and is unapproved for the rest.

use std::path::{Component, Path};

use serde::Serialize;

use super::net::{self, NetRule};
use super::{FileGrant, Grant};
use crate::contract::{Access, Capabilities, FileRequest, ToolInfo};

/// A set of requests: a plugin's (all its tools'), one tool's, or a grant's record of the
/// requests it approved. Lists hold no duplicates.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Requests {
    pub files: Vec<FileGrant>,
    pub network: Vec<NetRule>,
    pub env: Vec<String>,
    pub processes: Vec<String>,
}

impl Requests {
    /// Everything `tools` request, joined.
    pub fn of<'a>(tools: impl IntoIterator<Item = &'a ToolInfo>) -> Self {
        let Grant { files, network, env, processes, .. } = Grant::requested_by(tools);
        Self { files, network, env, processes }
    }

    pub fn is_empty(&self) -> bool {
        self == &Self::default()
    }

    /// Every request of `self` or `other`.
    pub fn union(&self, other: &Requests) -> Requests {
        let mut joined = self.clone();
        push_new(&mut joined.files, &other.files);
        push_new(&mut joined.network, &other.network);
        push_new(&mut joined.env, &other.env);
        push_new(&mut joined.processes, &other.processes);
        joined
    }

    /// What both hold: each request of `self` narrowed to the part `other` covers (a
    /// record that shrinks with the plugin's requests).
    pub fn intersection(&self, other: &Requests) -> Requests {
        let mut files = Vec::new();
        for request in &self.files {
            push_new(&mut files, &approved_part(&other.files, request));
        }
        Requests {
            files,
            network: net::intersect(&self.network, &other.network),
            env: self.env.iter().filter(|var| other.env.contains(var)).cloned().collect(),
            processes: self.processes.iter().filter(|p| process_covered(&other.processes, p)).cloned().collect(),
        }
    }

    /// The requests of `self` that `other` does not cover wholly (a read-write request that
    /// `other` holds only for reading is among them).
    pub fn beyond(&self, other: &Requests) -> Requests {
        Requests {
            files: self.files.iter().filter(|f| !file_covered(&other.files, f)).cloned().collect(),
            network: self.network.iter().filter(|r| !other.network.iter().any(|o| o.covers(r))).cloned().collect(),
            env: self.env.iter().filter(|var| !other.env.contains(var)).cloned().collect(),
            processes: self.processes.iter().filter(|p| !process_covered(&other.processes, p)).cloned().collect(),
        }
    }

    /// `tool` with only the requests this record approves (each narrowed to its approved
    /// part), and the requests it does not approve wholly.
    pub fn narrow(&self, tool: &ToolInfo) -> (ToolInfo, Requests) {
        let requested = Requests::of([tool]);
        let approved = requested.intersection(self);
        let unapproved = requested.beyond(self);
        let mut narrowed = tool.clone();
        narrowed.capabilities = Capabilities {
            files: approved.files.iter().map(|f| FileRequest { path: f.path.clone(), access: f.access }).collect(),
            network: approved.network.iter().map(ToString::to_string).collect(),
            env: approved.env,
            processes: approved.processes,
        };
        (narrowed, unapproved)
    }

    /// The list `key` (`files`, `network`, `env`, `processes`) as a policy file writes it.
    pub fn entries(&self, key: &str) -> Vec<String> {
        match key {
            "files" => self.files.iter().map(FileGrant::to_text).collect(),
            "network" => self.network.iter().map(ToString::to_string).collect(),
            "env" => self.env.clone(),
            _ => self.processes.clone(),
        }
    }

    /// Each request as a person reads it, by kind (only the kinds present): `files`
    /// (`read ~/notes`, `write src`), `network`, `env`, `processes`.
    pub fn by_kind(&self) -> Vec<(&'static str, Vec<String>)> {
        let files = self
            .files
            .iter()
            .map(|f| format!("{} {}", if f.access == Access::ReadWrite { "write" } else { "read" }, f.path))
            .collect();
        let kinds = [
            ("files", files),
            ("network", self.network.iter().map(ToString::to_string).collect()),
            ("env", self.env.clone()),
            ("processes", self.processes.iter().map(|p| format!("`{p}`")).collect()),
        ];
        kinds.into_iter().filter(|(_, items)| !items.is_empty()).collect()
    }

    /// Every request in one line each (`net https://a.com`, `write src`, `env TOKEN`,
    /// `process git status`), as messages name them.
    pub fn lines(&self) -> Vec<String> {
        let mut lines: Vec<String> = self
            .files
            .iter()
            .map(|f| format!("{} {}", if f.access == Access::ReadWrite { "write" } else { "read" }, f.path))
            .collect();
        lines.extend(self.network.iter().map(|n| format!("net {n}")));
        lines.extend(self.env.iter().map(|e| format!("env {e}")));
        lines.extend(self.processes.iter().map(|p| format!("process {p}")));
        lines
    }

    /// Each request (as [`Self::lines`] names it) with the entry of `grant` that already
    /// covers it wholly, as the policy file writes it (`https://*`, `~:read-write`).
    pub fn covered_by(&self, grant: &Grant) -> Vec<(String, Option<String>)> {
        let lines = self.lines();
        let mut covering: Vec<Option<String>> = Vec::new();
        covering.extend(self.files.iter().map(|request| {
            grant.files.iter().find(|g| file_covered(std::slice::from_ref(*g), request)).map(FileGrant::to_text)
        }));
        covering.extend(
            self.network
                .iter()
                .map(|request| grant.network.iter().find(|g| g.covers(request)).map(ToString::to_string)),
        );
        covering.extend(self.env.iter().map(|var| grant.env.contains(var).then(|| var.clone())));
        covering.extend(
            self.processes
                .iter()
                .map(|p| grant.processes.iter().find(|g| process_covered(std::slice::from_ref(*g), p)).cloned()),
        );
        lines.into_iter().zip(covering).collect()
    }
}

/// What a new version of a plugin requests compared with the old one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RequestDiff {
    /// Requested now and not (wholly) before: a new host, port or wildcard, a folder or a
    /// wider access to one, a variable, a command prefix.
    pub added: Requests,
    /// Requested before and not (wholly) now.
    pub removed: Requests,
    /// Requested by both.
    pub unchanged: Requests,
    /// Tools the new version has and the old one had not, with their requests.
    pub tools_added: Vec<(String, Requests)>,
    /// Tools the old version had and the new one has not, with their requests.
    pub tools_removed: Vec<(String, Requests)>,
}

impl RequestDiff {
    /// The diff from `old`'s tools to `new`'s.
    pub fn between(old: &[ToolInfo], new: &[ToolInfo]) -> Self {
        let (before, after) = (Requests::of(old), Requests::of(new));
        let tools_of = |from: &[ToolInfo], other: &[ToolInfo]| -> Vec<(String, Requests)> {
            from.iter()
                .filter(|tool| !other.iter().any(|o| o.name == tool.name))
                .map(|tool| (tool.name.clone(), Requests::of([tool])))
                .collect()
        };
        RequestDiff {
            added: after.beyond(&before),
            removed: before.beyond(&after),
            unchanged: after.intersection(&before),
            tools_added: tools_of(new, old),
            tools_removed: tools_of(old, new),
        }
    }

    /// Whether the two versions request the same and have the same tools.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.tools_added.is_empty() && self.tools_removed.is_empty()
    }
}

fn push_new<T: Clone + PartialEq>(into: &mut Vec<T>, from: &[T]) {
    for item in from {
        if !into.contains(item) {
            into.push(item.clone());
        }
    }
}

/// Whether `record` approves all of the file request `request`.
fn file_covered(record: &[FileGrant], request: &FileGrant) -> bool {
    record
        .iter()
        .any(|r| contains(&r.path, &request.path) && (r.access == Access::ReadWrite || request.access == Access::Read))
}

/// The parts of `request` that `record` approves: the deeper folder of each entry that meets
/// it, with the lesser access.
fn approved_part(record: &[FileGrant], request: &FileGrant) -> Vec<FileGrant> {
    let mut parts = Vec::new();
    for entry in record {
        let path = if contains(&entry.path, &request.path) {
            &request.path
        } else if contains(&request.path, &entry.path) {
            &entry.path
        } else {
            continue;
        };
        let access = if entry.access == Access::ReadWrite && request.access == Access::ReadWrite {
            Access::ReadWrite
        } else {
            Access::Read
        };
        let part = FileGrant { path: path.clone(), access };
        // The wider access of one folder replaces the narrower.
        if let Some(same) = parts.iter_mut().find(|p: &&mut FileGrant| p.path == part.path) {
            if part.access == Access::ReadWrite {
                same.access = Access::ReadWrite;
            }
        } else {
            parts.push(part);
        }
    }
    parts
}

/// Whether the folder written `outer` holds the folder written `inner`, by their text: the
/// same namespace (workspace-relative, `~`, absolute, `@memory`) and `outer`'s components a
/// prefix of `inner`'s (`.` holds every workspace path).
fn contains(outer: &str, inner: &str) -> bool {
    let parts = |path: &str| -> Vec<String> {
        Path::new(path)
            .components()
            .filter(|c| !matches!(c, Component::CurDir))
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect()
    };
    let relative = |path: &str| !path.starts_with(['~', '/', '@']);
    if relative(outer) != relative(inner) {
        return false;
    }
    let (outer, inner) = (parts(outer), parts(inner));
    inner.starts_with(&outer)
}

/// Whether a command prefix request is approved by one of `record`'s prefixes (itself, or a
/// shorter prefix of whole words).
fn process_covered(record: &[String], request: &str) -> bool {
    record.iter().any(|r| request == r || request.starts_with(&format!("{r} ")))
}

#[cfg(test)]
#[path = "diff_tests.rs"]
mod tests;
