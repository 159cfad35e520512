//! Reports: what a run produced, as `-o json` prints it at the end and `-o stream-json`
//! prints as its last line, and as a `turn_done` output carries it.
//!
//! Invariant: these are the shapes the headless outputs have always printed (pinned by
//! `tests/e2e/headless.rs`), keys sorted at every depth when printed. Fields are declared
//! in that order so a struct reads like its output. Times are milliseconds (fractional),
//! token counts are tokens.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::event::{CallCost, CallStatus, CommandRun, Event, Todo, UsageKind};

/// An error in a summary or on a tool call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ErrorBody {
    /// What went wrong, for a person.
    pub message: String,
    /// The kind, for a program: `max_turns`, `loop_detected`, `cancelled`, `auth`, `model`,
    /// a blocked or unusable run's kind, or a tool error's kind (`not_found`, …).
    #[serde(rename = "type")]
    pub kind: String,
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// The model answered.
    Success,
    /// The model kept calling tools until the turn cap.
    MaxTurns,
    /// The model kept repeating itself.
    LoopDetected,
    /// The run was cancelled.
    Cancelled,
    /// The provider blocked the answer.
    Blocked,
    /// The model could not be reached or answered garbage.
    Error,
}

/// What a run produced: the part `-o json` and stream-json's `result` line share.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Summary {
    /// Why the run did not succeed; absent when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorBody>,
    /// The recorded session (`airlock --resume ID`).
    pub session_id: String,
    /// Counts and times of the run.
    pub stats: Stats,
    /// How the run ended.
    pub status: RunStatus,
    /// The final answer as JSON, valid against the schema of `--output-schema`; absent
    /// without that flag, and when the answer was not valid (the error says why).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_output: Option<serde_json::Value>,
    /// The model's plan at the end of the run (`write_todos`); empty when it kept none.
    pub todos: Vec<Todo>,
    /// Every finished tool call, in the order they finished.
    pub tool_calls: Vec<CallSummary>,
}

/// Counts and times of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Stats {
    /// What each tool's calls cost, summed (peak memory: the largest), by tool name.
    pub by_tool: BTreeMap<String, ToolCost>,
    /// How often older history was compressed to make room.
    pub compressions: u32,
    /// The whole run, in milliseconds.
    pub duration_ms: f64,
    /// Tokens over all model requests, summaries included.
    pub tokens: Tokens,
    /// Tool calls by how they ended.
    pub tools: CallCounts,
    /// Model responses.
    pub turns: u32,
    /// Tokens per model request, in order.
    pub turns_detail: Vec<TurnTokens>,
}

/// What one tool's calls of a run cost together.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ToolCost {
    /// Bytes its guests read from files.
    pub bytes_read: u64,
    /// Bytes its guests wrote to files.
    pub bytes_written: u64,
    /// Its calls.
    pub calls: usize,
    /// HTTP requests its guests sent, allowed or refused.
    pub network_requests: u64,
    /// The largest linear memory one of its instances held, in bytes.
    pub peak_memory_bytes: u64,
    /// Wall time of its calls, summed, in milliseconds.
    pub wall_ms: u64,
}

/// Token counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Tokens {
    /// Tokens sent to the model.
    pub input: u64,
    /// Tokens the model wrote.
    pub output: u64,
    /// `input + output`.
    pub total: u64,
}

/// Tool calls by how they ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CallCounts {
    /// Cancelled (an interrupt, a refusal).
    pub cancelled: usize,
    /// Failed.
    pub error: usize,
    /// Succeeded.
    pub success: usize,
    /// All calls.
    pub total: usize,
}

/// The tokens of one model request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TurnTokens {
    /// Tokens sent.
    pub input: u64,
    /// `answer`, or `summary` for a request that compressed history.
    pub kind: UsageKind,
    /// Tokens written.
    pub output: u64,
    /// `input + output`.
    pub total: u64,
    /// The turn it belongs to, or the one a summary made room for.
    pub turn: u32,
}

/// One finished tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CallSummary {
    /// The arguments the model sent: their JSON, or the text itself when it is not JSON.
    pub args: serde_json::Value,
    /// For a call that ran commands: how the last one ended and what they all used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<CommandRun>,
    /// What the call cost, as the runtime measured it.
    pub cost: CallCost,
    /// From validation to the end, in milliseconds.
    pub duration_ms: f64,
    /// Why the call failed; absent when it succeeded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorBody>,
    /// The call's id (the model's, or one airlock gave it).
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// Its execution's own time, in milliseconds; absent when it never ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_ms: Option<f64>,
    /// `success`, `error` or `cancelled`.
    pub status: CallStatus,
}

/// A user turn's end: what the model wrote, and the summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TurnReport {
    /// All the text the model wrote during the turn.
    pub response: String,
    /// Counts, calls and how it ended.
    #[serde(flatten)]
    pub summary: Summary,
}

/// `-o json`: the one object printed when the run ends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct JsonOutput {
    /// The model the run used.
    pub model: String,
    /// The provider the run used (`gemini`, `openai`, `anthropic`).
    pub provider: String,
    /// All the text the model wrote during the run.
    pub response: String,
    /// The shared part.
    #[serde(flatten)]
    pub summary: Summary,
    /// Every warning of the run (plugins that could not load, notes from the engine).
    pub warnings: Vec<String>,
}

/// `-o stream-json`: one event of the run, tagged by `type`, with the time it was printed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StampedEvent {
    /// The event's own fields, `type` among them.
    #[serde(flatten)]
    pub event: Event,
    /// Milliseconds since the Unix epoch.
    pub timestamp: u64,
}

/// `-o stream-json`'s last line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ResultLine {
    /// The shared part.
    #[serde(flatten)]
    pub summary: Summary,
    /// Milliseconds since the Unix epoch.
    pub timestamp: u64,
    /// Always `result`.
    #[serde(rename = "type")]
    pub kind: ResultType,
}

/// The `type` of stream-json's last line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ResultType {
    /// The run's result.
    Result,
}
