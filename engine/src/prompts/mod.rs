//! Prompts a person or a repository keeps for the agent, besides the context files
//! (`agent::context_files`): custom commands ([`commands`], expanded by [`expand`]) and
//! skills ([`skills`]). They are found in two places: `$AIRLOCK_HOME/<kind>/` (the user's
//! own) and `<workspace>/.airlock/<kind>/` (they came with the repository).
//!
//! Invariants:
//! - a prompt file is text: nothing in it runs (a command's shell interpolation is left as
//!   text, with a notice), and nothing in it grants (a skill's or a command's
//!   `allowed-tools` is read and ignored); what the model does with it goes through the
//!   policy like anything else;
//! - a workspace's folder is read through a handle on the workspace that follows no link,
//!   so a repository's `.airlock/commands` linked to `~/.ssh` reads nothing; the user's own
//!   folders may be links (the user made them);
//! - a command's `@path` include is read as `read_file` reads (the workspace or a folder
//!   added to the session, no link followed, size caps), never around it.

use std::path::Path;

use airlock_files::{DirHandle, FileError};

pub mod commands;
pub mod expand;
pub mod front_matter;

/// Where a prompt file was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Origin {
    /// `$AIRLOCK_HOME/…`: the user's own.
    User,
    /// `<workspace>/.airlock/…`: it came with the repository.
    Workspace,
}

impl Origin {
    /// `user` or `workspace`.
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::User => "user",
            Origin::Workspace => "workspace",
        }
    }
}

/// The folder `kind` (`commands`, `skills`) of `origin`: `Ok(None)` when it does not exist,
/// `Err` with why it cannot be read (a link in a workspace's path).
pub(crate) fn open_folder(
    origin: Origin,
    home: &Path,
    workspace: &Path,
    kind: &str,
) -> Result<Option<DirHandle>, String> {
    let opened = match origin {
        Origin::User => airlock_files::open_user_dir(&home.join(kind)),
        Origin::Workspace => airlock_files::open_dir(workspace)
            .and_then(|root| airlock_files::open_dir_in(&root, &Path::new(".airlock").join(kind))),
    };
    match opened {
        Ok(dir) => Ok(Some(dir)),
        Err(FileError::NotFound) => Ok(None),
        Err(error) => Err(format!("{}: {error}", folder_name(origin, home, workspace, kind))),
    }
}

/// How a prompt folder is named in a message.
pub(crate) fn folder_name(origin: Origin, home: &Path, workspace: &Path, kind: &str) -> String {
    match origin {
        Origin::User => home.join(kind).display().to_string(),
        Origin::Workspace => workspace.join(".airlock").join(kind).display().to_string(),
    }
}

/// Whether `segment` is a usable part of a command's or skill's name: a letter or digit,
/// then letters, digits, `-`, `_` or `.`, at most 64 in all.
pub(crate) fn is_name_segment(segment: &str) -> bool {
    segment.len() <= 64
        && segment.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
        && segment.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}
