//! Events: everything a front end learns about a run as it happens, in order. `-o
//! stream-json` prints each one as a line (with its `timestamp`); the TUI draws them.
//!
//! Invariant: the JSON of every type here is the shape `-o stream-json` has always printed
//! (pinned by `tests/e2e/headless.rs`); a change to it is a protocol version change and a
//! note in the README. Text fields here are data, as the engine saw them (JSON escapes
//! them); what a person reads of a card is [`CardText`], which is [`Shown`].

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Shown;

/// Everything that happens in a run, tagged by `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// The session is ready (sent again when another session is resumed or a new one starts).
    Init {
        /// The recorded session (`airlock --resume ID`).
        session_id: String,
        /// The provider the session uses (`gemini`, `openai`, `anthropic`).
        provider: String,
        /// The model the session uses.
        model: String,
        /// The workspace folder.
        workspace: String,
        /// The names of the tools the model may call.
        tools: Vec<String>,
    },
    /// A plugin could not be loaded, or a tool was skipped.
    PluginProblem(PluginProblem),
    /// A model request starts.
    TurnStarted {
        /// The run's turn, from 1.
        turn: u32,
    },
    /// A piece of the model's answer.
    Text {
        /// The text, as the model wrote it.
        delta: String,
    },
    /// A piece of the model's reasoning.
    Thought {
        /// The text, as the model wrote it.
        delta: String,
    },
    /// A tool call changed state (its card).
    ToolCall(Box<ToolCall>),
    /// Live output of a running call.
    ToolOutput {
        /// The call it belongs to.
        call_id: String,
        /// The output, as the tool wrote it.
        chunk: String,
    },
    /// Token counts of one model request: a response of turn `turn`, or a summary made
    /// before that turn to compress the history.
    Usage {
        /// The turn it belongs to, or the one a summary made room for.
        turn: u32,
        /// What the request was for.
        kind: UsageKind,
        /// The counts.
        #[serde(flatten)]
        usage: Usage,
    },
    /// Something the user should know that does not stop the run.
    Warning {
        /// What happened, for a person.
        message: String,
    },
    /// Something that went as the user asked (a rule remembered, a mode changed, …).
    Notice {
        /// What happened, for a person.
        message: String,
    },
    /// The model's plan changed (a `write_todos` call).
    Todos {
        /// The whole list, first to last.
        todos: Vec<Todo>,
    },
    /// A hook stopped, changed, questioned or failed on something (since 1.2.0).
    Hook(crate::HookNote),
    /// The session's user prompts and what each changed (answers `rewind_turns`; since 1.3.0).
    RewindTurns {
        /// First to last.
        turns: Vec<crate::rewind::RewindTurn>,
    },
    /// What a rewind would do (answers `rewind` with `apply: false`; since 1.3.0).
    RewindPlan(crate::rewind::RewindPlan),
    /// What a rewind did (since 1.3.0).
    Rewound(crate::rewind::Rewound),
}

/// A plugin that could not be loaded, or a tool that was skipped; never fatal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PluginProblem {
    /// The plugin file (or `built-in`).
    pub path: String,
    /// What went wrong, and what to do about it.
    pub reason: String,
}

/// The states of one tool call: `validating`, `awaiting_approval`, `scheduled`,
/// `executing`, then one of `success`, `error`, `cancelled`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CallStatus {
    /// Its arguments and tool are being checked.
    Validating,
    /// It waits for a person's answer (a question).
    AwaitingApproval,
    /// Allowed; it waits for the rest of its batch.
    Scheduled,
    /// It runs.
    Executing,
    /// It ended well.
    Success,
    /// It failed.
    Error,
    /// It was cancelled (an interrupt, a refusal).
    Cancelled,
}

impl CallStatus {
    /// Whether the call has ended.
    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Success | Self::Error | Self::Cancelled)
    }

    /// The state's name in the JSON outputs.
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

/// A change in one call: its card. Fields are present when the state that sets them
/// comes (see each).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolCall {
    /// The call's id (the model's, or one airlock gave it).
    pub call_id: String,
    /// The tool's name.
    pub name: String,
    /// Its new state.
    pub status: CallStatus,
    /// On `validating`: the arguments as the model sent them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<serde_json::Value>,
    /// The plugin's one-line description of the call, once known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// On `awaiting_approval`: what the user is asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmation: Option<Confirmation>,
    /// On `success`: the text the model is told.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// On `success`: what the tool shows a person.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display: Option<Display>,
    /// On `error` and `cancelled`: why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ToolError>,
    /// On terminal states: milliseconds since the call entered `validating`.
    #[serde(rename = "duration", default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<f64>,
    /// On terminal states: what the call cost, as the runtime measured it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<CallCost>,
    /// On terminal states of a call that executed: milliseconds from the start of its
    /// execution, without the wait for approvals.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_ms: Option<f64>,
    /// On terminal states of a call that ran commands and waited for them: how the last one
    /// ended and what they all used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<CommandRun>,
    /// On terminal states, for front ends that draw the call: what a person reads of it.
    /// `-o stream-json` leaves it out: it has `output`, `display` and `error` whole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shown: Option<CardText>,
}

impl ToolCall {
    /// A change to `status` that carries nothing else.
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
            duration_ms: None,
            cost: None,
            run_ms: None,
            command: None,
            shown: None,
        }
    }
}

/// What a person reads of a finished call (its card): the tool's own summary, and the last
/// lines of its output, sanitised.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CardText {
    /// The tool's words for people (its markdown display), when it gave them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<Shown>,
    /// The last lines of the output: what the call streamed live, else what the model was
    /// told, else the error; one line each.
    #[serde(default)]
    pub tail: Vec<Shown>,
    /// Lines of that output before the tail.
    #[serde(default)]
    pub earlier_lines: usize,
}

/// What one call cost, measured by the runtime over every instance the call used (its
/// checks and its execution).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct CallCost {
    /// Wall time from `validating` to the terminal state, in milliseconds.
    pub wall_ms: u64,
    /// The largest linear memory any of its instances reached, in bytes.
    pub peak_memory_bytes: u64,
    /// Bytes the guest read from files through its preopens.
    pub bytes_read: u64,
    /// Bytes the guest wrote to files through its preopens.
    pub bytes_written: u64,
    /// HTTP requests the guest sent (allowed or denied).
    pub network_requests: u32,
}

/// How the commands a call started ended, and what they used: the last one's exit, and the
/// CPU time and peak memory of them all (the kernel's figures; not the plugin's own memory,
/// which the call's cost holds).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CommandRun {
    /// Commands the call ran to their end.
    pub count: u32,
    /// The last command's exit code; absent when a signal ended it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The signal that ended the last command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    /// The last command was killed at its time limit.
    #[serde(default)]
    pub timed_out: bool,
    /// CPU time, user and system, in milliseconds.
    #[serde(default)]
    pub cpu_ms: u64,
    /// The largest resident set one of the processes reached, in bytes; zero when it is not
    /// known.
    #[serde(default)]
    pub peak_memory_bytes: u64,
}

/// How risky a command is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Risk {
    /// Reads, or changes nothing that matters.
    Low,
    /// Changes files or state.
    Medium,
    /// Deletes, overwrites, or reaches out.
    High,
}

impl Risk {
    /// `low`, `medium` or `high`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Low => "low",
            Self::Medium => "medium",
            Self::High => "high",
        }
    }
}

/// What a call asks the user to approve, as its plugin said it, tagged by `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Confirmation {
    /// A file change.
    Edit {
        /// The file.
        path: String,
        /// Its content now.
        original: String,
        /// Its content after the call.
        proposed: String,
        /// Whether the file does not exist yet.
        is_new_file: bool,
    },
    /// A command line.
    Exec {
        /// The whole line.
        command: String,
        /// Its first command's name.
        root_command: String,
        /// Where it runs.
        directory: String,
        /// How risky the plugin says it is.
        risk: Risk,
    },
    /// Anything else: a prompt and the addresses it reaches.
    Info {
        /// What the call will do, for a person.
        prompt: String,
        /// The addresses it reaches.
        urls: Vec<String>,
    },
}

/// What the user is shown about a finished call, tagged by `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Display {
    /// Markdown text.
    Markdown {
        /// The text.
        text: String,
    },
    /// A file change.
    Diff {
        /// The file.
        path: String,
        /// Its content before.
        original: String,
        /// Its content after.
        proposed: String,
    },
}

/// The kinds of a failed call: the plugin contract's, and the host's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The arguments are wrong (malformed JSON, schema violation, plugin's own check).
    InvalidParams,
    /// What the call names does not exist.
    NotFound,
    /// The call's grant does not allow it.
    PermissionDenied,
    /// It ran out of time.
    Timeout,
    /// It failed while running.
    Execution,
    /// It was cancelled.
    Cancelled,
    /// The model called a tool that does not exist.
    ToolNotFound,
    /// The approval policy refused the call.
    PolicyDenied,
    /// The plugin crashed (trapped), returned garbage or ran out of memory.
    PluginFault,
}

impl ErrorKind {
    /// The kind's name in the JSON outputs.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::InvalidParams => "invalid_params",
            Self::NotFound => "not_found",
            Self::PermissionDenied => "permission_denied",
            Self::Timeout => "timeout",
            Self::Execution => "execution",
            Self::Cancelled => "cancelled",
            Self::ToolNotFound => "tool_not_found",
            Self::PolicyDenied => "policy_denied",
            Self::PluginFault => "plugin_fault",
        }
    }
}

/// A failed call: its kind and the message the model is told.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolError {
    /// What kind of failure.
    pub kind: ErrorKind,
    /// What went wrong.
    pub message: String,
}

/// Token counts reported by the provider for one response.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Usage {
    /// Tokens sent to the model.
    pub input_tokens: u64,
    /// Tokens the model wrote.
    pub output_tokens: u64,
}

/// What a model request was for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum UsageKind {
    /// A response of the conversation.
    Answer,
    /// A request that summarised older history to make room.
    Summary,
}

/// One step of the model's plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Todo {
    /// The step, as the model wrote it.
    pub description: String,
    /// Where it stands.
    pub status: TodoStatus,
}

/// Where a step of the plan stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    /// Not started.
    Pending,
    /// Being worked on.
    InProgress,
    /// Done (`done` is read as this too).
    #[serde(alias = "done")]
    Completed,
    /// Dropped.
    Cancelled,
}
