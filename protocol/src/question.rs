//! Questions: what a front end shows a person before a call runs (an approval) or runs again
//! with more access (a grant), exactly as it is to be shown. Every text a plugin, the model
//! or a repository could have written is a [`Shown`], so a front end can draw these values
//! as they come; the answers are orders ([`crate::Order::Approve`], [`crate::Order::Grant`]).
//!
//! Invariant: a question's `id` is the engine's own number, never the model's call id, and
//! an answer is a choice among what the question offers: "always" only when `always` holds,
//! a modified proposal only when `editable` does.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Shown;
use crate::event::Risk;

/// A call waiting for a person's approval.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Question {
    /// The engine's number for this question: answer with `approve` and this id.
    pub id: u64,
    /// The call it is about (its `tool_call` events carry the same id).
    pub call_id: String,
    /// The tool's name.
    pub tool: Shown,
    /// The plugin's one-line description of the call (blank runs collapsed).
    pub description: Shown,
    /// What the call asks to do.
    pub confirm: Confirm,
    /// Exactly what the call's sandbox will hold if it is allowed.
    pub sandbox: Sandbox,
    /// What "always" covers, spelled out ("`write_file` on src/main.rs"), or why it is not
    /// offered.
    pub scope: Shown,
    /// Whether "always" is offered at all (a line airlock cannot name whole offers none).
    pub always: bool,
    /// Whether answering with a modified proposal is offered (edits whose proposal arrived
    /// whole).
    pub editable: bool,
}

/// A file change as shown: the path and both texts (the front end computes the diff).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FileChange {
    /// The file.
    pub path: Shown,
    /// Its content now.
    pub original: Shown,
    /// Its content after the call.
    pub proposed: Shown,
    /// Whether the file does not exist yet.
    pub is_new_file: bool,
}

/// What a call asks to do, as shown, tagged by `type`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Confirm {
    /// A file change.
    Edit(FileChange),
    /// A command line.
    Exec {
        /// The whole line.
        command: Shown,
        /// Its first command's name.
        root_command: Shown,
        /// Where it runs.
        directory: Shown,
        /// How risky the plugin says it is.
        risk: Risk,
        /// Every command the line runs, riskiest first, as the host read it (empty when it
        /// did not read the line: the command is then only words to the person).
        commands: Vec<CommandRow>,
        /// The whole line, one row per line of it, blank runs collapsed and marked
        /// (`␣×1100`).
        rows: Vec<Shown>,
        /// What to know before allowing it: why airlock cannot name every command, what the
        /// repository's git configuration runs.
        warnings: Vec<Shown>,
    },
    /// Anything else: a prompt and the addresses it reaches.
    Info {
        /// What the call will do.
        prompt: Shown,
        /// The addresses it reaches (at most twenty).
        urls: Vec<Shown>,
    },
}

/// One command of a line, as the host read it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CommandRow {
    /// The command.
    pub text: Shown,
    /// How risky it is.
    pub risk: Risk,
    /// What makes it that risky ("deletes files").
    pub why: Shown,
    /// Whether a rule already allows it.
    pub allowed: bool,
}

/// A folder in a call's sandbox.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Folder {
    /// The folder, resolved.
    pub path: Shown,
    /// Whether the call may write in it.
    pub writable: bool,
}

/// Exactly what a call's sandbox will hold if it is allowed: the grant as shown.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Sandbox {
    /// Folders and whether each is writable.
    pub folders: Vec<Folder>,
    /// Network destinations (rules such as `https://api.example.com:443`).
    pub network: Vec<Shown>,
    /// Environment variable names passed in.
    pub env: Vec<Shown>,
    /// The guest's memory limit, in MiB.
    pub memory_mb: u64,
    /// The call's time limit, in seconds.
    pub timeout_secs: u64,
    /// The most output the call may return, in bytes.
    pub output_bytes: u64,
    /// For a call that may start programs: the sandbox they run in ("programs it starts run
    /// under Landlock ABI 7 + seccomp, no network").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commands: Option<Shown>,
}

/// A call failed for want of something its plugin requested and the user never granted:
/// the front end may offer it. Only a person's answer grants it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct GrantQuestion {
    /// The engine's number for this question: answer with `grant` and this id.
    pub id: u64,
    /// The call it is about.
    pub call_id: String,
    /// The plugin that would be granted more.
    pub plugin: Shown,
    /// The tool whose call failed.
    pub tool: Shown,
    /// What would be granted, one line each (`read-write ./notes`, `https://api.x.com`).
    pub missing: Vec<Shown>,
    /// The policy file "always" writes (`~/.airlock/policy.toml`).
    pub policy_file: Shown,
    /// Why it is asked when the plugin did not fail for want of it: what the OS sandbox
    /// blocked one of its commands from (the call runs again with the grant).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<Shown>,
}
