//! What a tool's kind lets it be given, whatever it requests and whatever is granted. The
//! one rule the runtime applies: a read-only kind (`read`, `search`, `fetch`, `think`,
//! [`Kind::is_read_only`]) never writes — its folders are preopened read-only in every
//! phase ([`super::Effective::preopens`]) and the commands it runs get them read-only too —
//! so a `write` request of such a tool can never be given. [`super::effective`] counts it as
//! a read, so nothing shows or suggests a write the tool cannot use; [`impossible`] names it,
//! for `plugins check` and `install`, which refuse it.

use crate::contract::{Access, Kind, ToolInfo};

/// One request `tool`'s kind can never be given, and what the author can do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Impossible {
    pub tool: String,
    /// The request as `plugins inspect` shows it (`write .`).
    pub request: String,
    pub reason: String,
}

impl std::fmt::Display for Impossible {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "tool `{}` requests `{}`: {}", self.tool, self.request, self.reason)
    }
}

/// Whether a tool of `kind` may ever be given write access to files.
pub fn writes_files(kind: Kind) -> bool {
    !kind.is_read_only()
}

/// The access a request of `access` by a tool of `kind` can get at most.
pub fn usable_access(kind: Kind, access: Access) -> Access {
    if writes_files(kind) { access } else { Access::Read }
}

/// The requests of `tool` its kind can never be given.
pub fn impossible(tool: &ToolInfo) -> Vec<Impossible> {
    if writes_files(tool.kind) {
        return Vec::new();
    }
    let kind = tool.kind.as_str();
    tool.capabilities
        .files
        .iter()
        .filter(|file| file.access == Access::ReadWrite)
        .map(|file| Impossible {
            tool: tool.name.clone(),
            request: format!("write {}", file.path),
            reason: format!(
                "`{kind}` tools never write files: declare the tool `edit`, or drop `write {}` (or request `read {}`)",
                file.path, file.path
            ),
        })
        .collect()
}

/// `tool` with the requests its kind can use: a read-only kind's `write` requests as reads.
pub fn usable(tool: &ToolInfo) -> ToolInfo {
    let mut usable = tool.clone();
    for file in &mut usable.capabilities.files {
        file.access = usable_access(tool.kind, file.access);
    }
    usable
}

#[cfg(test)]
#[path = "kinds_tests.rs"]
mod tests;
