//! Folders added to a session (`airlock --add-dir DIR`, `/add-dir DIR` in the UI): a folder
//! outside the workspace that the built-in tools may read for the rest of the session, and
//! write only when the person asked for it (`DIR:read-write`) — every question about a call
//! that could then write there names the folder, and neither `auto-edit` nor a workspace's
//! rule approves such a write.
//!
//! An added folder is a session grant, given only by the person (a flag, a slash command:
//! never the model). It reaches the tools of the built-in plugins that request the workspace
//! (`.`), with the access of that request at most: readers read it, editors and the shell's
//! commands read or, when it was added read-write, write it. A third-party plugin gets none
//! of it: it gets a folder only where its own request and the user's grant cover it.
//!
//! Invariants: an added folder exists, is canonical (links resolved when it is added; the
//! instance reopens it without following any link), lies outside the workspace, and neither
//! holds nor lies inside airlock's own folders (`$AIRLOCK_HOME`, the compile cache), for
//! reading as for writing: nothing in them is a tool's business.

use std::path::{Path, PathBuf};
use std::sync::PoisonError;

use super::Policy;
use crate::capability::{Effective, FileGrant};
use crate::contract::{Access, ToolInfo};
use crate::registry::{Origin, Plugin};

/// A folder added to the session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddedFolder {
    /// Canonical.
    pub path: PathBuf,
    pub access: Access,
}

impl AddedFolder {
    /// `/x (read)` or `/x (read-write)`.
    pub fn describe(&self) -> String {
        let access = if self.access == Access::ReadWrite { "read-write" } else { "read" };
        format!("{} ({access})", crate::sanitize::line(&self.path.display().to_string()))
    }
}

impl Policy {
    /// Adds the folder `text` names to the session: `DIR`, `DIR:read` or `DIR:read-write`;
    /// `~` and `~/…` are the user's home, a relative path is taken from the current folder.
    /// Adding a folder again sets its access to the one given. The error says why it
    /// cannot be added and what would work.
    pub fn add_folder(&self, text: &str) -> Result<AddedFolder, String> {
        let (written, access) = split_access(text)?;
        let path = self.folder_path(written)?;
        let shown = crate::sanitize::line(&path.display().to_string());
        let workspace = &self.roots.workspace;
        if path.starts_with(workspace) {
            return Err(format!("{shown} is inside the workspace already: the tools reach it without adding it"));
        }
        for own in &self.protected {
            let own_shown = crate::sanitize::line(&own.display().to_string());
            if *own == path {
                return Err(format!(
                    "{shown} is airlock's own folder (its policy, trust and keys), which no tool may reach"
                ));
            }
            if own.starts_with(&path) {
                return Err(format!(
                    "{shown} holds {own_shown}, airlock's own folder (its policy, trust and keys), which no tool \
                     may reach: add a folder beside it instead"
                ));
            }
            if path.starts_with(own) {
                return Err(format!("{shown} lies inside {own_shown}, airlock's own folder, which no tool may reach"));
            }
        }
        let added = AddedFolder { path, access };
        let mut folders = self.added.lock().unwrap_or_else(PoisonError::into_inner);
        folders.retain(|folder| folder.path != added.path);
        folders.push(added.clone());
        Ok(added)
    }

    /// Adds an activated skill's folder (`path`, canonical, the host's own record of the
    /// skill) to the session, read only. Unlike [`Policy::add_folder`] it may lie inside
    /// airlock's own folder (`$AIRLOCK_HOME/skills/NAME`), but never hold or be one of the
    /// protected folders (policy, trust, keys).
    pub fn add_skill_folder(&self, path: &Path) -> Result<(), String> {
        let shown = crate::sanitize::line(&path.display().to_string());
        if !path.is_absolute() || !path.is_dir() {
            return Err(format!("{shown} is not a folder"));
        }
        if self.protected.iter().any(|own| own.starts_with(path)) {
            return Err(format!("{shown} holds airlock's own folder, which no tool may reach"));
        }
        let added = AddedFolder { path: path.to_path_buf(), access: Access::Read };
        let mut folders = self.added.lock().unwrap_or_else(PoisonError::into_inner);
        if !folders.iter().any(|folder| folder.path == added.path) {
            folders.push(added);
        }
        Ok(())
    }

    /// The folders added to the session, in the order they were added.
    pub fn added_folders(&self) -> Vec<AddedFolder> {
        self.added.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// The canonical, existing folder `written` names.
    fn folder_path(&self, written: &str) -> Result<PathBuf, String> {
        let shown = crate::sanitize::line(written);
        if written.trim().is_empty() {
            return Err("name a folder: --add-dir DIR (read) or --add-dir DIR:read-write".into());
        }
        if written.chars().any(crate::sanitize::is_hidden) {
            return Err(format!("{shown}: a folder's name may not hold control, bidi or invisible characters"));
        }
        let home = || self.roots.home.clone().ok_or_else(|| format!("{shown}: the home folder is not known"));
        let raw = if written == "~" {
            home()?
        } else if let Some(rest) = written.strip_prefix("~/") {
            home()?.join(rest)
        } else {
            let cwd = std::env::current_dir().map_err(|e| format!("{shown}: no current folder ({e})"))?;
            cwd.join(written)
        };
        let path = raw.canonicalize().map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => format!("{shown} does not exist: make it first, or name another folder"),
            _ => format!("{shown}: {e}"),
        })?;
        if !path.is_dir() {
            return Err(format!("{shown} is not a folder: add the folder that holds it"));
        }
        if path.to_str().is_none_or(|p| p.chars().any(crate::sanitize::is_hidden)) {
            return Err(format!(
                "{}: its real path is not plain UTF-8 text, so it cannot be shown or given to a tool",
                crate::sanitize::line(&path.display().to_string())
            ));
        }
        Ok(path)
    }

    /// Adds the session's added folders to what `tool` of `plugin` gets: a built-in that
    /// requests the workspace gets each one with the access of that request at most.
    pub(super) fn add_added_folders(&self, plugin: &Plugin, tool: &ToolInfo, effective: &mut Effective) {
        if plugin.source.origin != Origin::Builtin {
            return;
        }
        let workspace = &self.roots.workspace;
        let Some(request) = tool
            .capabilities
            .files
            .iter()
            .filter(|file| self.roots.resolve(&file.path).as_deref() == Some(workspace.as_path()))
            .map(|file| file.access)
            .max_by_key(|access| *access == Access::ReadWrite)
        else {
            return;
        };
        for added in self.added_folders() {
            let access = if request == Access::ReadWrite { added.access } else { Access::Read };
            match effective.files.iter_mut().find(|(host, _)| *host == added.path) {
                Some((_, existing)) if access == Access::ReadWrite => *existing = Access::ReadWrite,
                Some(_) => {}
                None => effective.files.push((added.path, access)),
            }
        }
    }
}

/// `DIR`, `DIR:read` or `DIR:read-write`, split; a misspelt mode (`DIR:rw`) is refused with
/// what to write, as in a policy file.
fn split_access(text: &str) -> Result<(&str, Access), String> {
    Ok(match text.rsplit_once(':') {
        Some((path, "read")) => (path, Access::Read),
        Some((path, "read-write")) => (path, Access::ReadWrite),
        // After the last `:` comes a mode unless it holds a `/` (`/mnt/a:b/c` is a path).
        Some((_, mode)) if !mode.contains('/') => {
            let reason = FileGrant::parse(text).err();
            return Err(reason.unwrap_or_else(|| format!("`{mode}` is not an access mode: use read or read-write")));
        }
        _ => (text, Access::Read),
    })
}

#[cfg(test)]
#[path = "folders_tests.rs"]
mod tests;
