//! The workspace and paths in it. The host preopens the workspace at its own absolute path,
//! so `std::fs` works on absolute paths inside it; a relative path from the model means a
//! path relative to the workspace root. [`resolve_in_workspace`] is the one place that
//! turns a model's path into an absolute path and refuses anything outside the workspace.
//!
//! The user may know the workspace by another name (`~/link/proj`, where `~/link` is a link
//! to the folder holding it): the host then preopens the workspace's folders under that
//! spelling too, and [`resolve_in_workspace`] maps a path in it onto the canonical root, so
//! what a tool shows and confirms is always the canonical path. Only the host's preopens say
//! what an alias is: a link inside the workspace never becomes one.

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
    let root = workspace_root();
    match resolve_in(&root, path) {
        Err(ToolError::PermissionDenied(message)) => {
            let aliases = preopened_aliases(&root);
            resolve_alias(&root, &aliases, path).ok_or(ToolError::PermissionDenied(message))
        }
        resolved => resolved,
    }
}

/// `path` (absolute) in the spelling of one of `aliases` of `root`, as the same path under
/// `root`; `None` when it is under no alias or leaves the workspace.
pub fn resolve_alias(root: &Path, aliases: &[PathBuf], path: &str) -> Option<PathBuf> {
    let path = normalize(Path::new(path));
    let root = normalize(root);
    aliases.iter().find_map(|alias| {
        let rest = path.strip_prefix(normalize(alias)).ok()?;
        let mapped = normalize(&root.join(rest));
        mapped.starts_with(&root).then_some(mapped)
    })
}

/// The other paths under which the host preopened the workspace `root`: a preopen outside
/// `root` that is the very folder of a preopen inside it (`is-same-object`), minus the part
/// of the path below `root` (`/u/link/proj/src` for `/real/proj/src` gives `/u/link/proj`).
#[cfg(target_arch = "wasm32")]
fn preopened_aliases(root: &Path) -> Vec<PathBuf> {
    let root = normalize(root);
    let preopens: Vec<_> = wasip2::filesystem::preopens::get_directories()
        .into_iter()
        .map(|(descriptor, path)| (descriptor, normalize(Path::new(&path))))
        .collect();
    let mut aliases: Vec<PathBuf> = Vec::new();
    for (inside, inside_path) in preopens.iter().filter(|(_, p)| p.starts_with(&root)) {
        let Ok(rest) = inside_path.strip_prefix(&root) else { continue };
        for (outside, outside_path) in preopens.iter().filter(|(_, p)| !p.starts_with(&root)) {
            if !outside_path.ends_with(rest) || !outside.is_same_object(inside) {
                continue;
            }
            let mut alias = outside_path.clone();
            for _ in rest.components() {
                alias.pop();
            }
            if !alias.as_os_str().is_empty() && alias != Path::new("/") && !aliases.contains(&alias) {
                aliases.push(alias);
            }
        }
    }
    aliases
}

/// Natively (a plugin's own tests) there are no preopens, so no aliases.
#[cfg(not(target_arch = "wasm32"))]
fn preopened_aliases(_root: &Path) -> Vec<PathBuf> {
    Vec::new()
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
    fn maps_a_path_in_an_alias_onto_the_root_and_nothing_else() {
        let aliases = [PathBuf::from("/tmp/link/proj")];
        let mapped = |path: &str| resolve_alias(&root(), &aliases, path);
        assert_eq!(mapped("/tmp/link/proj/src/a.rs"), Some(PathBuf::from("/home/u/proj/src/a.rs")));
        assert_eq!(mapped("/tmp/link/proj"), Some(root()));
        assert_eq!(mapped("/tmp/link/proj/x/../y"), Some(PathBuf::from("/home/u/proj/y")));
        for outside in ["/tmp/link/proj/../other", "/tmp/link/project/a", "/tmp/link", "/etc/passwd", "/tmp/link/proj/../../x"]
        {
            assert_eq!(mapped(outside), None, "{outside}");
        }
    }

    #[test]
    fn refuses_paths_outside_the_workspace() {
        for path in ["../other", "/etc/passwd", "/home/u/project", "src/../../x", "/"] {
            assert!(matches!(resolve_in(&root(), path), Err(ToolError::PermissionDenied(_))), "{path}");
        }
        assert!(matches!(resolve_in(&root(), ""), Err(ToolError::InvalidParams(_))));
    }
}
