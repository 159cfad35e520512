//! How far a call reaches, for what a workspace's rules may approve.
//!
//! A trusted workspace's policy speaks for that repository and nothing else. Its `allow`
//! rules approve a call only when the call stays within the workspace: its tool is one the
//! workspace's trust covers, and everything the host can see it change lies inside the
//! workspace. So a repository's `tool = "*"` or `tool = "save_memory"` never approves an
//! edit of the user's memory (which steers every later session of every project), a path
//! rule naming `~/…` or `/tmp/**` never approves a write there, and a command rule never
//! approves a command that runs, or may write, outside the workspace.
//!
//! The tools a workspace's trust covers are the built-ins (shipped with airlock) and the
//! workspace plugins whose content trust pinned. A plugin dropped into `.airlock/plugins/`
//! after trust, or changed since, is covered by none of the workspace's rules until the
//! folder is trusted again; a plugin of the user's own folder is governed by the user's
//! rules only.

use std::path::{Component, Path, PathBuf};

use super::Policy;
use crate::registry::{Origin, Plugin};

impl Policy {
    /// Whether a workspace's rules may approve a call of `plugin` that touches `path` (as
    /// rules see it: workspace-relative when inside the workspace, else absolute), starts
    /// its commands in `directory` and may write in `writable` while it executes.
    pub fn within_workspace(
        &self,
        plugin: &Plugin,
        path: Option<&str>,
        directory: Option<&Path>,
        writable: &[PathBuf],
    ) -> bool {
        let workspace = &self.roots.workspace;
        let inside = |path: &Path| {
            let path = workspace.join(path);
            path.starts_with(workspace) && !path.components().any(|c| c == Component::ParentDir)
        };
        self.rules_cover(plugin)
            && path.is_none_or(|p| inside(Path::new(p)))
            && directory.is_none_or(inside)
            && writable.iter().all(|folder| inside(folder))
    }

    /// Whether the workspace's trust covers `plugin`: a built-in, or a workspace plugin
    /// whose exact content trust pinned.
    fn rules_cover(&self, plugin: &Plugin) -> bool {
        match plugin.source.origin {
            Origin::Builtin => true,
            Origin::User => false,
            Origin::Workspace => self.is_pinned(plugin),
        }
    }
}
