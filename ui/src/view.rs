//! The view data the widgets draw: plain values the front end fills from engine outputs.
//! No engine type appears here, so the widgets compile and are tested on their own. Where the
//! protocol has the type (a call's status, a question as shown, a file change), it is the
//! protocol's; every text from the engine, the model or a plugin is a [`Shown`], which only
//! the one sanitiser builds.

use std::time::Duration;

pub use airlock_protocol::{
    CallStatus, CommandRow, Confirm, FileChange, Folder, GrantQuestion, Question, Risk, Sandbox, Shown,
};

/// What one call cost, measured by the runtime.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cost {
    pub wall: Duration,
    /// Peak linear memory of the guest, in bytes.
    pub peak_memory: u64,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub net_requests: u32,
}

/// One tool call's card.
#[derive(Debug, Clone, PartialEq)]
pub struct Card {
    pub call_id: String,
    pub tool: Shown,
    /// The plugin's one-line description of the call (or the arguments, shortened).
    pub description: Shown,
    pub state: CallStatus,
    /// Time since the call entered `validating` (frozen once terminal).
    pub elapsed: Duration,
    /// Frame index of the spinner while executing.
    pub spinner: usize,
    /// The last lines of live output (already throttled by the front end).
    pub live_tail: Vec<Shown>,
    /// The tool's own summary of its result, shown instead of the output's tail.
    pub summary: Option<Shown>,
    /// Once ended: the last lines of its output (or of why it failed).
    pub tail: Vec<Shown>,
    /// Lines of that output before `tail`.
    pub earlier_lines: usize,
    /// A diff the call made (edits).
    pub diff: Option<FileChange>,
    /// How the commands it ran ended and what they used.
    pub command: Option<CommandView>,
    /// Set once the call ran: what its execution cost (`wall` is its own run).
    pub cost: Option<Cost>,
    /// What hooks did to the call (`hook no-force-push denied: …`), one line each.
    pub hooks: Vec<Shown>,
    /// The number `/undo N` names this call by, when it holds a checkpoint (shown `#N`).
    pub undo: Option<u32>,
}

/// How a call's commands ended: the last one's exit, and what they all used (CPU time and
/// peak memory of the processes, not of the plugin).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandView {
    /// `exit 0`, `exit 3`, `signal 9`, `timed out`.
    pub ending: String,
    /// A non-zero exit, a signal or a timeout: the card is marked failed.
    pub failed: bool,
    pub cpu: Duration,
    pub peak_memory: u64,
}

impl Card {
    /// A card that has shown nothing yet: no time, output, diff, command or cost.
    pub fn new(call_id: String, tool: Shown, description: Shown, state: CallStatus) -> Self {
        Self {
            call_id,
            tool,
            description,
            state,
            elapsed: Duration::ZERO,
            spinner: 0,
            live_tail: Vec::new(),
            summary: None,
            tail: Vec::new(),
            earlier_lines: 0,
            diff: None,
            command: None,
            cost: None,
            hooks: Vec::new(),
            undo: None,
        }
    }

    /// Whether the card is marked failed: the call failed, or its last command did.
    pub fn failed(&self) -> bool {
        self.state == CallStatus::Error || self.command.as_ref().is_some_and(|c| c.failed)
    }
}

/// One call's whole output, for the pager.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputView {
    /// The tool and its description.
    pub title: Shown,
    /// The output, made safe, lines separated by `\n`.
    pub text: Shown,
    /// Whether the call failed (the title says so).
    pub failed: bool,
}

/// The answers an approval dialog offers, in the order shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApprovalChoice {
    Once,
    AlwaysForSession,
    AlwaysSaved,
    ToolForSession,
    Modify,
    Refuse,
    CancelBatch,
}

/// A call waiting for approval: the question as the protocol shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalView {
    pub question: Question,
    /// How many more calls wait behind this one.
    pub queued: usize,
}

/// The answers a grant prompt offers, in the order shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GrantChoice {
    ThisCall,
    Session,
    Always,
    No,
}

/// The status line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StatusView {
    pub provider: String,
    pub model: String,
    /// `default`, `auto_edit`, `yolo`, `plan`…
    pub mode: String,
    pub tokens_used: u64,
    /// Tokens left in the context window, when the window is known.
    pub context_left: Option<u64>,
    pub session_id: String,
    pub running_calls: usize,
    /// Set while a turn runs: how long it has run.
    pub working: Option<Duration>,
}
