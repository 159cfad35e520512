//! The workspace and paths in it. The host preopens the workspace at its own absolute path,
//! so `std::fs` works on absolute paths inside it; a relative path from the model means a
//! path relative to the workspace root. [`resolve_in_workspace`] is the one place that
//! turns a model's path into an absolute path and refuses anything outside the workspace.

use std::path::{Component, Path, PathBuf};

use crate::ToolError;

/// The workspace root, as an absolute path (from `airlock:host/context`).
pub fn workspace_root() -> PathBuf {
    normalize(Path::new(&crate::bindings::airlock::host::context::workspace_root()))
}

/// The id of the current call, for log lines.
pub fn call_id() -> String {
    crate::bindings::airlock::host::context::call_id()
}

/// Resolves a path from the model, absolute or relative to the workspace root, to an
/// absolute path with `.` and `..` removed lexically. Refuses an empty path
/// (`invalid-params`) and anything outside the workspace (`permission-denied`).
pub fn resolve_in_workspace(path: &str) -> Result<PathBuf, ToolError> {
    resolve_in(&workspace_root(), path)
}

/// [`resolve_in_workspace`] against an explicit root.
pub fn resolve_in(root: &Path, path: &str) -> Result<PathBuf, ToolError> {
    if path.trim().is_empty() {
        return Err(ToolError::InvalidParams(
            "the path is empty; give a path relative to the workspace root or an absolute path inside it".to_string(),
        ));
    }
    let root = normalize(root);
    let resolved = normalize(&root.join(path));
    if resolved.starts_with(&root) {
        Ok(resolved)
    } else {
        Err(ToolError::PermissionDenied(format!(
            "path '{path}' is outside the workspace {}; use a path inside it",
            root.display()
        )))
    }
}

/// `path` relative to the workspace root for display (`src/main.rs`), `.` for the root
/// itself, or unchanged when it lies outside.
pub fn display_path(path: &Path) -> String {
    let root = workspace_root();
    match path.strip_prefix(&root) {
        Ok(relative) if relative.as_os_str().is_empty() => ".".to_string(),
        Ok(relative) => relative.display().to_string(),
        Err(_) => path.display().to_string(),
    }
}

/// Removes `.` and resolves `..` without touching the file system; `..` never climbs above
/// the root of an absolute path.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                let at_root = out.parent().is_none();
                if !at_root {
                    out.pop();
                } else if !out.has_root() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> PathBuf {
        PathBuf::from("/home/u/proj")
    }

    #[test]
    fn resolves_relative_paths_against_the_root() {
        assert_eq!(resolve_in(&root(), "src/./main.rs").ok(), Some(PathBuf::from("/home/u/proj/src/main.rs")));
        assert_eq!(resolve_in(&root(), ".").ok(), Some(root()));
        assert_eq!(resolve_in(&root(), "a/../b").ok(), Some(PathBuf::from("/home/u/proj/b")));
    }

    #[test]
    fn accepts_absolute_paths_inside_the_workspace() {
        assert_eq!(resolve_in(&root(), "/home/u/proj/x/../y").ok(), Some(PathBuf::from("/home/u/proj/y")));
    }

    #[test]
    fn refuses_paths_outside_the_workspace() {
        for path in ["../other", "/etc/passwd", "/home/u/project", "src/../../x", "/"] {
            assert!(matches!(resolve_in(&root(), path), Err(ToolError::PermissionDenied(_))), "{path}");
        }
        assert!(matches!(resolve_in(&root(), ""), Err(ToolError::InvalidParams(_))));
    }
}
