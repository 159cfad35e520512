//! Orders: what a front end sends the engine. Only a front end sends them — a person's
//! keys, a script's flags, an MCP or ACP client — never the model.
//!
//! Invariants (the engine's, restated for front ends): one user turn runs at a time;
//! `interrupt`, `approve`, `grant`, `set_mode` and `add_dir` act at once; `user_turn`,
//! `compress`, `resume`, `new_session`, `set_model` and `reload_plugins` wait, in the order
//! sent, until the running turn ends; `interrupt` stops everything sent before it and
//! nothing sent after it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// An order from a front end, tagged by `type`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Order {
    /// Run a user prompt to its end; answered by a `turn_done` output.
    UserTurn {
        /// The prompt.
        text: String,
        /// Images and PDFs sent with the prompt, as the model's user message parts.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        attachments: Vec<Attachment>,
    },
    /// Cancel the running work and the orders put off before this one.
    Interrupt,
    /// A person's answer to approval question `id`.
    Approve {
        /// The question's id.
        id: u64,
        /// The choice.
        answer: Answer,
    },
    /// Change the approval mode for the following calls and model requests.
    SetMode {
        /// The new mode.
        mode: ApprovalMode,
    },
    /// Summarise older history now.
    Compress,
    /// Continue a recorded session (`latest`, an id or the start of one) in place of the
    /// current conversation.
    Resume {
        /// Which session.
        session: String,
    },
    /// A person's answer to grant question `id`.
    Grant {
        /// The question's id.
        id: u64,
        /// The choice.
        answer: GrantAnswer,
    },
    /// Use another model of the same provider from the next turn on.
    SetModel {
        /// The model's name.
        model: String,
    },
    /// Start a new, empty conversation recorded to a new session file.
    NewSession,
    /// Load the plugin folders anew.
    ReloadPlugins,
    /// Let the built-in tools read a folder outside the workspace for the rest of the
    /// session (`DIR`, `DIR:read`), or also write it (`DIR:read-write`, each write asked
    /// about).
    AddDir {
        /// The folder and its access.
        folder: String,
    },
    /// List the session's user prompts with what each changed; answered by a
    /// `rewind_turns` event (since 1.3.0).
    RewindTurns,
    /// Rewind the session to `target`: with `apply: false` only a `rewind_plan` event says
    /// what it would restore; with `apply: true` it restores, answered by a `rewound` event
    /// (or a warning saying why not). Put off while a turn runs (since 1.3.0).
    Rewind {
        /// What to go back to.
        target: crate::rewind::RewindTarget,
        /// What to restore.
        what: crate::rewind::RestoreWhat,
        /// Carry it out (else only preview it).
        #[serde(default)]
        apply: bool,
        /// Also overwrite files changed outside airlock since its last checkpoint of them.
        #[serde(default)]
        overwrite_changed: bool,
    },
    /// Cancel what runs and end the session.
    Shutdown,
}

/// A file a person attaches to a prompt (an image or a PDF): sent to the model as an image
/// or document part where the model's wire takes its type, else named in a text stand-in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Attachment {
    /// The media type, as `image/png`, `image/jpeg`, `image/gif`, `image/webp` or
    /// `application/pdf`.
    pub mime_type: String,
    /// The file's bytes, base64 (standard alphabet, padded).
    pub data: String,
    /// The file's name, when it has one: shown to people and named in a stand-in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// A person's choice for an approval question, tagged by `choice`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "choice", rename_all = "snake_case")]
pub enum Answer {
    /// Run it this once.
    Once,
    /// Run it, and calls within the question's scope, without asking, for the session.
    AlwaysForSession,
    /// As `always_for_session`, and saved as a rule in the user's `policy.toml`.
    AlwaysSaved,
    /// Run every call of this tool without asking, for the session.
    ToolForSession,
    /// Run it with this content instead of the proposal (editable questions only).
    Modify {
        /// The content to write.
        proposed: String,
    },
    /// Do not run it; the model is told `message`.
    Refuse {
        /// What the model is told.
        message: String,
    },
    /// Cancel this call and the rest of its batch.
    Cancel,
}

/// A person's choice for a grant question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GrantAnswer {
    /// For this call only: it runs again with the grant, which reverts after it.
    ThisCall,
    /// For the plugin, for the rest of the session.
    Session,
    /// Written to the policy file, and for the session.
    Always,
    /// Not granted.
    No,
}

/// How much runs without asking, least to most permissive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ApprovalMode {
    /// Read-only tools only; the others are not offered to the model.
    Plan,
    /// Read-only tools run; everything else asks.
    Default,
    /// File edits are approved too; other changes ask.
    AutoEdit,
    /// Everything is approved.
    Yolo,
}

impl ApprovalMode {
    /// Every mode, least to most permissive but `plan` last: the order a picker offers them.
    pub const ALL: [ApprovalMode; 4] =
        [ApprovalMode::Default, ApprovalMode::AutoEdit, ApprovalMode::Yolo, ApprovalMode::Plan];

    /// The mode's name, as `--approval-mode` and the JSON spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalMode::Plan => "plan",
            ApprovalMode::Default => "default",
            ApprovalMode::AutoEdit => "auto-edit",
            ApprovalMode::Yolo => "yolo",
        }
    }

    /// The mode named `name` (as [`ApprovalMode::as_str`] spells it, any case).
    pub fn named(name: &str) -> Option<ApprovalMode> {
        Self::ALL.into_iter().find(|mode| mode.as_str().eq_ignore_ascii_case(name.trim()))
    }
}
