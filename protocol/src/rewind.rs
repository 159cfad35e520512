//! Rewind (since 1.3.0): the turns of a session with what each changed, a plan of what a
//! rewind would restore, and what a rewind did. A front end asks for the turns
//! ([`crate::Order::RewindTurns`]), previews a rewind ([`crate::Order::Rewind`] with
//! `apply: false`), then applies it; the engine answers with the events here. `airlock rewind
//! -o json` prints the same shapes.
//!
//! Invariant: every path and prompt here is text a person reads: the engine sanitises it
//! ([`crate::shown`]) before it builds these values.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What a rewind restores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RestoreWhat {
    /// The files only; the conversation stays.
    Code,
    /// The conversation only; the files stay.
    Conversation,
    /// Both.
    Both,
}

impl RestoreWhat {
    /// Whether the files are restored.
    pub fn code(self) -> bool {
        matches!(self, Self::Code | Self::Both)
    }

    /// Whether the conversation is rewound.
    pub fn conversation(self) -> bool {
        matches!(self, Self::Conversation | Self::Both)
    }
}

/// What a rewind goes back to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RewindTarget {
    /// To just before user prompt `prompt` (from 1) of the session's conversation.
    Prompt {
        /// The prompt's number.
        prompt: u32,
    },
    /// Undo one call: the files it changed go back to what they held before it ran.
    Call {
        /// The call's id.
        call_id: String,
    },
    /// Undo the session's last rewind (its files and its conversation).
    Undo,
}

/// How a file differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FileChangeKind {
    /// It did not exist before.
    Created,
    /// Its content or mode changed.
    Modified,
    /// It no longer exists.
    Deleted,
}

/// One file a turn changed, or a rewind would restore.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RewindFile {
    /// The path, relative to the workspace where it is inside it, else absolute.
    pub path: String,
    /// How it changed (for a plan: how restoring it changes it from now).
    pub change: FileChangeKind,
    /// Lines added (text files; 0 for binary ones).
    pub added: u32,
    /// Lines removed.
    pub removed: u32,
    /// The file is binary (no line counts).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub binary: bool,
}

/// One user prompt of the session and what the calls it led to changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RewindTurn {
    /// The prompt's number, from 1.
    pub prompt: u32,
    /// Its first line, cut to 200 characters.
    pub text: String,
    /// When it was sent, UTC.
    pub at: String,
    /// The calls that held write access in it, and took a checkpoint.
    pub calls: u32,
    /// The files its calls changed, relative to what they held before it.
    pub files: Vec<RewindFile>,
}

/// Something a rewind cannot restore, and why (never left out silently).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LeftOut {
    /// The path (a folder stands for everything under it).
    pub path: String,
    /// Why: `ignored by .gitignore`, `over 16 MiB`, `over 100000 files`, `the .git folder`, …
    pub reason: String,
}

/// What a rewind will do, shown before it does it (and what it did, in [`Rewound`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RewindPlan {
    /// What it goes back to.
    pub target: RewindTarget,
    /// What it restores.
    pub what: RestoreWhat,
    /// The files it writes or deletes, each against what it holds now.
    pub files: Vec<RewindFile>,
    /// Files changed since airlock last saw them (by a person, an editor, a build): they are
    /// overwritten only with `overwrite_changed`.
    pub changed_outside: Vec<String>,
    /// What lies in the checkpoints' scope but was never snapshotted, so stays as it is.
    pub left_out: Vec<LeftOut>,
    /// Messages the conversation loses (0 for a code-only rewind).
    pub messages_dropped: u32,
    /// The prompt rewound away, for a front end to put back in its composer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
}

/// What a rewind did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Rewound {
    /// The plan it carried out.
    #[serde(flatten)]
    pub plan: RewindPlan,
    /// Files written or deleted.
    pub restored: u32,
    /// Files changed outside airlock that were kept as they are (no `overwrite_changed`).
    pub kept: Vec<String>,
    /// The checkpoint of the state rewound away from: `Undo` goes back to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undo: Option<String>,
}
