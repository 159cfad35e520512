//! The engine's events: everything a front end learns about a run. The engine emits them in
//! order on one channel; the headless printer, the JSON writers (and later the TUI) only
//! translate them.

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use tokio::sync::mpsc;

use crate::contract::{Confirmation, Display, ToolError};
use crate::registry::LoadProblem;
use airlock_model::{Usage, UsageKind};

/// The states of one tool call (DESIGN.md §1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallStatus {
    Validating,
    AwaitingApproval,
    Scheduled,
    Executing,
    Success,
    Error,
    Cancelled,
}

impl CallStatus {
    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Success | Self::Error | Self::Cancelled)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Validating => "validating",
            Self::AwaitingApproval => "awaiting_approval",
            Self::Scheduled => "scheduled",
            Self::Executing => "executing",
            Self::Success => "success",
            Self::Error => "error",
            Self::Cancelled => "cancelled",
        }
    }
}

/// A change in one call.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CallUpdate {
    pub call_id: String,
    pub name: String,
    pub status: CallStatus,
    /// Set once: on `validating`, the arguments as the model sent them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub args: Option<serde_json::Value>,
    /// The plugin's one-line description of the call, once known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// On `awaiting_approval`: what the user is asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confirmation: Option<Confirmation>,
    /// On `success`: the model-facing text and the display.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub display: Option<Display>,
    /// On `error` and `cancelled`: why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ToolError>,
    /// On terminal states: time since the call entered `validating`.
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "as_millis")]
    pub duration: Option<Duration>,
    /// On terminal states: what the call cost, as the runtime measured it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<CallCost>,
    /// On terminal states of a call that executed: the time from the start of its execution
    /// (`run_ms`), without the wait for its own or another call's approval.
    #[serde(rename = "run_ms", skip_serializing_if = "Option::is_none", serialize_with = "as_millis")]
    pub run: Option<Duration>,
    /// On terminal states of a call that ran commands and waited for them: how the last one
    /// ended and what they all used.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<CommandRun>,
    /// On terminal states, for front ends that draw the call: what a person reads of it.
    /// Not in the JSON output, which has `output`, `display` and `error` whole.
    #[serde(skip)]
    pub shown: Option<Shown>,
    /// On terminal states, for a pager: the call's whole output as a person reads it — what
    /// it streamed live (its last [`MAX_FULL_OUTPUT`] bytes), else what the model was told,
    /// else the error. Not in the JSON output.
    #[serde(skip)]
    pub full_output: Option<Arc<str>>,
    /// On terminal states: the call holds a checkpoint ([`crate::scheduler::CompletedCall`]'s
    /// `checkpoint`), so a front end can offer to undo it. Not in the JSON output.
    #[serde(skip)]
    pub undoable: bool,
}

/// Most bytes of a call's output kept for a pager ([`CallUpdate::full_output`]).
pub const MAX_FULL_OUTPUT: usize = 256 << 10;
/// Most lines of output a [`Shown`] keeps.
pub const TAIL_LINES: usize = 10;
/// Most characters of one kept line.
const TAIL_LINE_CHARS: usize = 300;
/// Most bytes of a tool's summary kept.
const SUMMARY_BYTES: usize = 2_000;

pub use airlock_process::CommandRun;

/// What a person reads of a finished call, decided once by the scheduler (the TUI's card, a
/// resumed session's card): the tool's own summary, and the last lines of its output.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Shown {
    /// The tool's words for people (its markdown display), when it gave them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// The last lines of the output: what the call streamed live, else what the model was
    /// told, else the error (at most [`TAIL_LINES`]).
    #[serde(default)]
    pub tail: Vec<String>,
    /// Lines of that output before the tail.
    #[serde(default)]
    pub earlier_lines: usize,
}

impl Shown {
    /// The summary (bounded) and the last lines of `output`.
    pub fn new(summary: Option<&str>, output: &str) -> Self {
        let lines: Vec<&str> = output.trim_end().lines().collect();
        let lines = match lines.iter().position(|line| !line.trim().is_empty()) {
            Some(first) => &lines[first..],
            None => &[],
        };
        let cut = lines.len().saturating_sub(TAIL_LINES);
        let tail = lines[cut..].iter().map(|line| bounded_line(line)).collect();
        let summary = summary
            .map(str::trim)
            .filter(|text| !text.is_empty())
            .map(|text| text[..text.floor_char_boundary(SUMMARY_BYTES)].to_string());
        Self { summary, tail, earlier_lines: cut }
    }
}

/// `line` without its line end, at most [`TAIL_LINE_CHARS`] characters.
fn bounded_line(line: &str) -> String {
    let line = line.trim_end_matches('\r');
    match line.char_indices().nth(TAIL_LINE_CHARS) {
        Some((end, _)) => format!("{}…", &line[..end]),
        None => line.to_string(),
    }
}

/// What one call cost: measured by the runtime over every instance the call used (its
/// checks and its execution).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(default)]
pub struct CallCost {
    /// Wall time from `validating` to the terminal state, in milliseconds.
    pub wall_ms: u64,
    /// The largest linear memory any of its instances reached, in bytes.
    pub peak_memory_bytes: u64,
    /// Bytes the guest read from and wrote to files through its preopens.
    pub bytes_read: u64,
    pub bytes_written: u64,
    /// HTTP requests the guest sent (allowed or denied).
    pub network_requests: u32,
}

impl CallUpdate {
    pub fn new(call_id: &str, name: &str, status: CallStatus) -> Self {
        Self {
            call_id: call_id.to_string(),
            name: name.to_string(),
            status,
            args: None,
            description: None,
            confirmation: None,
            output: None,
            display: None,
            error: None,
            duration: None,
            cost: None,
            run: None,
            command: None,
            shown: None,
            full_output: None,
            undoable: false,
        }
    }
}

fn as_millis<S: serde::Serializer>(duration: &Option<Duration>, serializer: S) -> Result<S::Ok, S::Error> {
    match duration {
        Some(d) => serializer.serialize_f64(d.as_secs_f64() * 1000.0),
        None => serializer.serialize_none(),
    }
}

/// Everything that happens in a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// The session is ready.
    Init { session_id: String, provider: String, model: String, workspace: String, tools: Vec<String> },
    /// A plugin could not be loaded, or a tool was skipped.
    PluginProblem(LoadProblem),
    /// A model request starts.
    TurnStarted { turn: u32 },
    /// A piece of the model's answer.
    Text { delta: String },
    /// A piece of the model's reasoning.
    Thought { delta: String },
    /// A tool call changed state.
    ToolCall(Box<CallUpdate>),
    /// Live output of a running call.
    ToolOutput { call_id: String, chunk: String },
    /// Token counts of one model request: a response of turn `turn`, or a summary made
    /// before that turn to compress the history.
    Usage {
        turn: u32,
        kind: UsageKind,
        #[serde(flatten)]
        usage: Usage,
    },
    /// Something the user should know that does not stop the run.
    Warning { message: String },
    /// Something that went as the user asked (a rule remembered, ...).
    Notice { message: String },
    /// The model's plan changed (a `write_todos` call): the whole list, latest first-to-last.
    Todos { todos: Vec<Todo> },
    /// A hook stopped, changed, questioned or failed on something.
    Hook(airlock_protocol::HookNote),
    /// The session's user prompts and what each changed ([`crate::engine::Op::RewindTurns`]).
    RewindTurns(Vec<airlock_protocol::RewindTurn>),
    /// What a rewind would do ([`crate::engine::Op::Rewind`] with `apply: false`).
    RewindPlan(Box<airlock_protocol::RewindPlan>),
    /// What a rewind did.
    Rewound(Box<airlock_protocol::Rewound>),
}

/// One step of the model's plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Todo {
    pub description: String,
    pub status: TodoStatus,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    Pending,
    InProgress,
    #[serde(alias = "done")]
    Completed,
    Cancelled,
}

impl TodoStatus {
    /// A mark for a text line: `[ ]`, `[>]`, `[x]`, `[-]`.
    pub fn mark(self) -> &'static str {
        match self {
            Self::Pending => "[ ]",
            Self::InProgress => "[>]",
            Self::Completed => "[x]",
            Self::Cancelled => "[-]",
        }
    }
}

/// Where the engine sends events. Sending never blocks and never fails the engine: a front
/// end that stopped listening just misses them. Events sent through one sink (and its
/// clones) arrive in the order they were sent.
#[derive(Clone)]
pub struct EventSink(Arc<dyn Fn(Event) + Send + Sync>);

impl std::fmt::Debug for EventSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EventSink")
    }
}

impl EventSink {
    /// A sink and the channel its events arrive on.
    pub fn new() -> (Self, mpsc::UnboundedReceiver<Event>) {
        let (sender, receiver) = mpsc::unbounded_channel();
        (Self::to(move |event| drop(sender.send(event))), receiver)
    }

    /// A sink that hands each event to `deliver` (the engine wraps events into its output
    /// stream this way, keeping one order with its questions and reports).
    pub fn to(deliver: impl Fn(Event) + Send + Sync + 'static) -> Self {
        Self(Arc::new(deliver))
    }

    pub fn send(&self, event: Event) {
        (self.0)(event);
    }
}
