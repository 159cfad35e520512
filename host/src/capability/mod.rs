//! The grant side of capabilities, as far as this version goes: which of a tool's requests
//! become part of its sandbox. A file request for the workspace (or a folder inside it) is
//! granted, read-only for read-only kinds and for the checks before approval, read-write
//! only when a mutating tool asked for it and the call is executing. Everything else a
//! tool may request (home folders, network, environment, processes) is not granted yet and
//! is reported in the log; the instance simply does not have it.

use std::path::{Component, Path, PathBuf};

use crate::contract::{Access, ToolInfo};
use crate::runtime::Preopen;

/// Which part of a call an instance serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// validate, describe-call, confirm, modify-args: never writes.
    Check,
    /// execute.
    Execute,
}

/// The preopens a tool gets for a phase of a call.
pub fn preopens(tool: &ToolInfo, workspace: &Path, phase: Phase) -> Vec<Preopen> {
    let mut preopens: Vec<Preopen> = Vec::new();
    for request in &tool.capabilities.files {
        let Some(host) = resolve_request(&request.path, workspace) else {
            tracing::info!(tool = tool.name, "file request {:?} is not granted", request.path);
            continue;
        };
        if !host.is_dir() {
            continue;
        }
        let writable = request.access == Access::ReadWrite && !tool.kind.is_read_only() && phase == Phase::Execute;
        if let Some(existing) = preopens.iter_mut().find(|p| p.host == host) {
            existing.writable |= writable;
            continue;
        }
        let guest = host.to_string_lossy().into_owned();
        preopens.push(Preopen { host, guest, writable });
    }
    preopens
}

/// The host folder for a workspace-relative request, or `None` when it is not granted.
fn resolve_request(path: &str, workspace: &Path) -> Option<PathBuf> {
    if path.starts_with("~/") || path.starts_with('/') {
        return None;
    }
    let mut resolved = workspace.to_path_buf();
    for component in Path::new(path).components() {
        match component {
            Component::CurDir => {}
            Component::Normal(part) => resolved.push(part),
            _ => return None,
        }
    }
    Some(resolved)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::{Capabilities, FileRequest, Kind};

    fn tool(kind: Kind, files: &[(&str, Access)]) -> ToolInfo {
        ToolInfo {
            name: "t".into(),
            display_name: "T".into(),
            description: "d".into(),
            parameters: serde_json::json!({"type": "object"}),
            kind,
            streams_output: false,
            parallel_safe: true,
            capabilities: Capabilities {
                files: files.iter().map(|(p, a)| FileRequest { path: (*p).into(), access: *a }).collect(),
                ..Capabilities::default()
            },
        }
    }

    #[test]
    fn read_only_tools_never_get_write_access() {
        let ws = tempfile::tempdir().unwrap();
        let opens = preopens(&tool(Kind::Read, &[(".", Access::ReadWrite)]), ws.path(), Phase::Execute);
        assert_eq!(opens.len(), 1);
        assert!(!opens[0].writable);
        assert_eq!(opens[0].guest, ws.path().to_string_lossy());
    }

    #[test]
    fn edit_tools_write_only_while_executing() {
        let ws = tempfile::tempdir().unwrap();
        let t = tool(Kind::Edit, &[(".", Access::ReadWrite)]);
        assert!(!preopens(&t, ws.path(), Phase::Check)[0].writable);
        assert!(preopens(&t, ws.path(), Phase::Execute)[0].writable);
    }

    #[test]
    fn requests_outside_the_workspace_are_not_granted() {
        let ws = tempfile::tempdir().unwrap();
        let t = tool(Kind::Edit, &[("~/.ssh", Access::Read), ("/etc", Access::Read), ("../x", Access::Read)]);
        assert!(preopens(&t, ws.path(), Phase::Execute).is_empty());
    }
}
