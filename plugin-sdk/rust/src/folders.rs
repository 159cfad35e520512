//! Paths in the folders an instance holds: the workspace, and the folders outside it that
//! the host gave this call (a folder the user added to the session with `--add-dir`, or one
//! the user granted the plugin). The host decides what the instance holds; this module only
//! accepts a path the model gave when it lies in one of them, so that a tool can say "outside
//! what you may reach" before it tries, and reach an added folder when it may.

use std::path::{Path, PathBuf};

use crate::ToolError;
use crate::workspace::{normalize, resolve_in_workspace, workspace_root};

/// Resolves a path from the model, absolute or relative to the workspace root, with `.` and
/// `..` removed lexically: a path in the workspace, or an absolute path in a folder this
/// instance holds outside it. Refuses an empty path (`invalid-params`) and a path outside
/// every folder the instance holds (`permission-denied`). The sandbox still decides what
/// the call may do there: a folder held read-only stays read-only.
pub fn resolve_in_folders(path: &str) -> Result<PathBuf, ToolError> {
    match resolve_in_workspace(path) {
        Err(ToolError::PermissionDenied(_)) => {
            let resolved = normalize(&workspace_root().join(path));
            if held(&resolved) {
                Ok(resolved)
            } else {
                Err(ToolError::PermissionDenied(format!(
                    "path '{path}' is outside the workspace {} and every folder added to this session; use a path \
                     inside them (the user can add a folder with `--add-dir DIR` or `/add-dir DIR`)",
                    workspace_root().display()
                )))
            }
        }
        resolved => resolved,
    }
}

/// Whether `path`, or a folder above it other than the root, is a folder this instance can
/// see: only a folder the host opened for it, or one inside such a folder, is visible.
fn held(path: &Path) -> bool {
    path.ancestors().filter(|folder| folder.parent().is_some()).any(Path::is_dir)
}
