//! Checkpoints of what a call may write, taken by the host before the call runs
//! ([`airlock_checkpoint`] holds the store): which roots a call's access lets it write (a
//! built-in edit: its file; a plugin, command or MCP server: its writable folders), the
//! checkpoints before and after it, and what the session file records of them.
//!
//! Skeleton: the capture stream of issue 29 builds it.

use serde::{Deserialize, Serialize};

/// The checkpoints of one call that held write access: rewind restores from `before`, and
/// `after` says what airlock left (a file that differs from it now was changed outside).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallCheckpoint {
    /// The user prompt the call ran in (from 1).
    pub prompt: u32,
    /// The store's checkpoints taken before the call wrote anything: one, or more when a
    /// grant given during the call widened what it may write (the new folders, before the
    /// run that held them).
    pub before: Vec<String>,
    /// Taken when it ended, over the same roots; absent when that failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
}
