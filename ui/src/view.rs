//! The view data the widgets draw: plain values the front end fills from engine outputs.
//! No engine type appears here, so the widgets compile and are tested on their own.

use std::time::Duration;

/// The visible state of one tool call (the seed's scheduler states).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallState {
    Validating,
    AwaitingApproval,
    Scheduled,
    Executing,
    Success,
    Error,
    Cancelled,
}

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

/// A file change: the path and both texts (the widget computes the unified diff).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffView {
    pub path: String,
    pub original: String,
    pub proposed: String,
    pub is_new_file: bool,
}

/// One tool call's card.
#[derive(Debug, Clone, PartialEq)]
pub struct Card {
    pub call_id: String,
    pub tool: String,
    /// The plugin's one-line description of the call (or the arguments, shortened).
    pub description: String,
    pub state: CallState,
    /// Time since the call entered `validating` (frozen once terminal).
    pub elapsed: Duration,
    /// Frame index of the spinner while executing.
    pub spinner: usize,
    /// The last lines of live output (already throttled by the front end).
    pub live_tail: Vec<String>,
    /// The tool's own summary of its result, shown instead of the output's tail.
    pub summary: Option<String>,
    /// Once ended: the last lines of its output (or of why it failed).
    pub tail: Vec<String>,
    /// Lines of that output before `tail`.
    pub earlier_lines: usize,
    /// A diff the call made (edits).
    pub diff: Option<DiffView>,
    /// How the commands it ran ended and what they used.
    pub command: Option<CommandView>,
    /// Set once the call ran: what its execution cost (`wall` is its own run).
    pub cost: Option<Cost>,
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
    pub fn new(call_id: String, tool: String, description: String, state: CallState) -> Self {
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
        }
    }

    /// Whether the card is marked failed: the call failed, or its last command did.
    pub fn failed(&self) -> bool {
        self.state == CallState::Error || self.command.as_ref().is_some_and(|c| c.failed)
    }
}

/// One call's whole output, for the pager.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputView {
    /// The tool and its description.
    pub title: String,
    /// The output, made safe, lines separated by `\n`.
    pub text: String,
    /// Whether the call failed (the title says so).
    pub failed: bool,
}

/// What a call asks the user to confirm.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Confirm {
    Edit(DiffView),
    Exec {
        command: String,
        root_command: String,
        directory: String,
        risk: String,
        /// Every command the line runs, riskiest first, as the host read it (empty when it did
        /// not read the line: the command is then only words to the person).
        commands: Vec<CommandRow>,
        /// The whole line, one row per line of it, blank runs collapsed and marked (`␣×1100`).
        rows: Vec<String>,
        /// What to know before allowing it: why airlock cannot name every command, what the
        /// repository's git configuration runs.
        warnings: Vec<String>,
    },
    Info {
        prompt: String,
        urls: Vec<String>,
    },
}

/// One command of a line, as the host read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandRow {
    pub text: String,
    /// `low`, `medium` or `high`.
    pub risk: String,
    /// What makes it that risky ("deletes files").
    pub why: String,
    /// Whether a rule already allows it.
    pub allowed: bool,
}

/// A folder in a call's sandbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Folder {
    pub path: String,
    pub writable: bool,
}

/// Exactly what the call's sandbox will hold if it is allowed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SandboxView {
    pub folders: Vec<Folder>,
    /// Network destinations (rules such as `https://api.example.com:443`).
    pub network: Vec<String>,
    /// Environment variable names passed in.
    pub env: Vec<String>,
    pub memory_mb: u64,
    pub timeout_secs: u64,
    pub output_bytes: u64,
    /// For a call that may start programs: the sandbox they run in ("programs it starts run
    /// under Landlock ABI 7 + seccomp, no network").
    pub commands: Option<String>,
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

/// A call waiting for approval.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalView {
    pub tool: String,
    pub description: String,
    pub confirm: Confirm,
    pub sandbox: SandboxView,
    /// What "always" covers, spelled out ("`write_file` on src/main.rs").
    pub scope: String,
    /// Whether "always" is offered at all (a line airlock cannot name whole offers none).
    pub always: bool,
    /// Whether "modify in $EDITOR" is offered.
    pub editable: bool,
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

/// A call that failed for want of something its plugin requested and the user never
/// granted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrantView {
    pub plugin: String,
    pub tool: String,
    /// What would be granted, one line each (`read-write ./notes`, `https://api.x.com`).
    pub missing: Vec<String>,
    /// The file "always" writes (`~/.airlock/policy.toml`).
    pub policy_file: String,
    /// Why it is asked when the plugin did not fail for want of it: what the OS sandbox
    /// blocked one of its commands from (the call runs again with the grant).
    pub reason: Option<String>,
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
