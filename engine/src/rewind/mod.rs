//! Rewind: a session's timeline (its prompts and the checkpoints of their calls, read from
//! the session file: [`timeline`]), the plan of a rewind (the files to restore, those changed
//! outside airlock, what was left out, the messages dropped: [`plan`]), and carrying it out
//! ([`apply`]). The engine's orders ([`crate::engine`]'s `rewind.rs`) and `airlock rewind`
//! both go through here; the caller writes the `rewound` record and the audit record, and
//! (in a running session) gives the agent its new conversation.
//!
//! Invariants:
//! - A code rewind takes its own checkpoint of what it will overwrite before it writes
//!   anything (its id is [`airlock_protocol::Rewound::undo`]), so every rewind can be undone.
//! - Only paths some checkpointed write of airlock changed are ever restored: a file no call
//!   touched stays as it is, whatever happened to it since.
//! - A file whose content differs from what airlock last left there (the latest `after`
//!   checkpoint that covers it) was changed outside airlock: it is listed, and written only
//!   when the caller says to overwrite.
//! - What a checkpoint left out is listed, never restored, never deleted.
//! - Every path and text in the values built here is sanitised for a terminal.

pub mod apply;
pub mod plan;
pub mod retention;
pub mod timeline;
mod turns;

use std::path::{Path, PathBuf};

use airlock_checkpoint::{CheckpointError, Store};
pub use apply::{Applied, apply};
pub use plan::{Planned, plan};
pub use timeline::Timeline;
pub use turns::turns;

/// The audit trail's record of `applied`: only a person's order rewinds (`by: user`).
pub fn audit_body(applied: &Applied) -> crate::audit::Body {
    crate::audit::Body::Rewind(Box::new(crate::audit::record::Rewind {
        target: applied.record.target.clone(),
        what: applied.record.what,
        restored: applied.restored.clone(),
        kept: applied.rewound.kept.clone(),
        undo: applied.record.undo.clone(),
        by: "user".into(),
    }))
}

/// Why a rewind cannot be listed, planned or done.
#[derive(Debug, thiserror::Error)]
pub enum RewindError {
    #[error("this session has no prompt {prompt} (its conversation holds {count})")]
    NoPrompt { prompt: u32, count: u32 },
    #[error("no call `{0}` with a checkpoint in this session (only calls that could write files have one)")]
    NoCall(String),
    #[error("this session has no rewind to undo")]
    NothingToUndo,
    #[error(
        "the checkpoint {0} this rewind needs was removed (retention, `airlock rewind --gc`): the files cannot be restored"
    )]
    Removed(String),
    #[error(
        "checkpoints are off (`[checkpoints] enabled = false`, or the store cannot be opened): files cannot be restored"
    )]
    Off,
    /// The restore stopped partway. `applied` is the rewind as far as it went: record it
    /// (its `failed_at` is set), so undoing it puts back what it wrote.
    #[error(
        "restoring stopped at {path}: {reason}; some files were restored and the rest were not \
         (the conversation was left as it is): `/rewind undo` or `airlock rewind --undo` puts back what was there"
    )]
    Partial { applied: Box<Applied>, path: String, reason: String },
    #[error(transparent)]
    Store(CheckpointError),
    #[error(transparent)]
    Session(#[from] crate::session::SessionError),
}

impl RewindError {
    /// The rewind as far as it went, when it stopped partway: the caller records it.
    pub fn applied(&self) -> Option<&Applied> {
        match self {
            Self::Partial { applied, .. } => Some(applied),
            _ => None,
        }
    }
}

impl From<CheckpointError> for RewindError {
    fn from(error: CheckpointError) -> Self {
        match error {
            CheckpointError::Unknown(id) => Self::Removed(id.0),
            other => Self::Store(other),
        }
    }
}

/// What a rewind works on.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    /// The workspace's store; `None` when checkpoints are off.
    pub store: Option<&'a Store>,
    /// The session file.
    pub session: &'a Path,
    /// The session's id (the label of the rewind's own checkpoints).
    pub session_id: &'a str,
    /// Paths inside it are shown relative to it.
    pub workspace: &'a Path,
}

impl Context<'_> {
    fn store(&self) -> Result<&Store, RewindError> {
        self.store.ok_or(RewindError::Off)
    }

    /// `path` as a person reads it: relative to the workspace when inside it, sanitised.
    pub fn shown(&self, path: &Path) -> String {
        shown_path(self.workspace, path)
    }
}

/// `path` relative to `workspace` when inside it (else absolute), sanitised for a terminal.
pub fn shown_path(workspace: &Path, path: &Path) -> String {
    let relative = path.strip_prefix(workspace).ok().filter(|rest| !rest.as_os_str().is_empty());
    airlock_protocol::shown::line(&relative.unwrap_or(path).to_string_lossy())
}

/// The union of `roots`, without repeats. A file root under a folder root stays: the
/// folder's walk may leave the file out (ignored), its own root never does.
fn union(roots: impl IntoIterator<Item = PathBuf>) -> Vec<PathBuf> {
    let mut all: Vec<PathBuf> = roots.into_iter().collect();
    all.sort();
    all.dedup();
    all
}

#[cfg(test)]
#[path = "mod_tests.rs"]
mod tests;
