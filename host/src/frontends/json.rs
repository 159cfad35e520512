//! The public JSON shapes: every object airlock prints for a program to read is one of the
//! typed structs here, and nothing else builds JSON output by hand.
//!
//! | command                                  | prints                                              |
//! |------------------------------------------|-----------------------------------------------------|
//! | `airlock -p … -o json`                   | one line: [`JsonOutput`]                            |
//! | `airlock -p … -o stream-json`            | a line per event: [`StampedEvent`], then [`ResultLine`] |
//! | `airlock tools list --json`              | [`ToolList`], indented                              |
//! | `airlock plugins list --json`            | [`PluginList`], indented                            |
//! | `airlock plugins show NAME --json`       | [`PluginView`], indented                            |
//! | `airlock plugins inspect FILE --json`    | [`Inspected`], indented                             |
//! | `airlock sessions list --json`           | an array of [`SessionEntry`], indented              |
//!
//! `-o json`'s object and stream-json's `result` line share [`Summary`]. Nested values that
//! belong to the plugin contract, the policy or the event stream (capabilities, grants,
//! [`Event`]) keep their own `Serialize` and are documented where they are defined.
//!
//! Invariant — key order: every shape but [`SessionEntry`] prints its keys in alphabetical
//! order at every depth, as it always has: [`write_line`] and [`write_pretty`] go through
//! [`serde_json::Value`], whose maps sort their keys (serde_json is built without
//! `preserve_order`). Fields below are declared in that order so a struct reads like its
//! output. `sessions list` prints its entries in field order ([`write_sessions`]).
//! Times are milliseconds (fractional), token counts are tokens.

use std::io::{self, Write};
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;
use serde_json::Value;

use airlock_engine::agent::Report;
use airlock_engine::capability::Grant;
use airlock_engine::contract::{Access, Capabilities, Kind, PluginInfo};
use airlock_engine::events::{CallStatus, Event};
use airlock_engine::registry::{LoadProblem, Origin};
use airlock_engine::session::Summary as SessionSummary;
use airlock_model::UsageKind;

/// An error in a summary or on a tool call.
#[derive(Debug, Clone, Serialize)]
pub struct ErrorBody<'a> {
    /// What went wrong, for a person.
    pub message: &'a str,
    /// The kind, for a program: `max_turns`, `loop_detected`, `cancelled`, `auth`, `model`,
    /// a blocked or unusable run's kind, or a tool error's kind (`not_found`, …).
    #[serde(rename = "type")]
    pub kind: &'a str,
}

/// The part of a run's end that `-o json` and stream-json's `result` line share.
#[derive(Debug, Serialize)]
pub struct Summary<'a> {
    /// Why the run did not succeed; absent when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorBody<'a>>,
    /// The recorded session (`airlock --resume ID`).
    pub session_id: &'a str,
    /// Counts and times of the run.
    pub stats: Stats<'a>,
    /// `success`, `max_turns`, `loop_detected`, `cancelled`, `blocked` or `error`.
    pub status: &'a str,
    /// The model's plan at the end of the run (`write_todos`); empty when it kept none.
    pub todos: &'a [airlock_engine::events::Todo],
    /// Every finished tool call, in the order they finished.
    pub tool_calls: Vec<CallSummary<'a>>,
}

/// Counts and times of a run.
#[derive(Debug, Serialize)]
pub struct Stats<'a> {
    /// What each tool's calls cost, summed (peak memory: the largest).
    pub by_tool: std::collections::BTreeMap<&'a str, ToolCost>,
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
#[derive(Debug, Default, Serialize)]
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
#[derive(Debug, Serialize)]
pub struct Tokens {
    /// Tokens sent to the model.
    pub input: u64,
    /// Tokens the model wrote.
    pub output: u64,
    /// `input + output`.
    pub total: u64,
}

/// Tool calls by how they ended.
#[derive(Debug, Serialize)]
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
#[derive(Debug, Serialize)]
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
#[derive(Debug, Serialize)]
pub struct CallSummary<'a> {
    /// The arguments the model sent: their JSON, or the text itself when it is not JSON.
    pub args: Value,
    /// For a call that ran commands: how the last one ended (`exit_code`, `signal`,
    /// `timed_out`) and the CPU time and peak memory of them all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<airlock_engine::events::CommandRun>,
    /// What the call cost, as the runtime measured it.
    pub cost: airlock_engine::events::CallCost,
    /// From validation to the end, in milliseconds.
    pub duration_ms: f64,
    /// Why the call failed; absent when it succeeded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorBody<'a>>,
    /// The call's id (the model's, or one airlock gave it).
    pub id: &'a str,
    /// The tool's name.
    pub name: &'a str,
    /// Its execution's own time, in milliseconds; absent when it never ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_ms: Option<f64>,
    /// `success`, `error` or `cancelled`.
    pub status: &'static str,
}

impl<'a> Summary<'a> {
    /// The summary of `report` in session `session_id`, ended with `status` and `error`.
    pub fn new(session_id: &'a str, report: &'a Report, status: &'a str, error: Option<ErrorBody<'a>>) -> Self {
        let tool_calls = report
            .calls
            .iter()
            .map(|c| CallSummary {
                args: serde_json::from_str(&c.call.arguments)
                    .unwrap_or_else(|_| Value::from(c.call.arguments.as_str())),
                command: c.command,
                cost: c.cost,
                duration_ms: millis(c.duration),
                error: c.result.as_ref().err().map(|e| ErrorBody { message: &e.message, kind: e.kind.as_str() }),
                id: &c.call.id,
                name: &c.call.name,
                run_ms: c.run.map(millis),
                status: c.status.as_str(),
            })
            .collect();
        let count = |status: CallStatus| report.calls.iter().filter(|c| c.status == status).count();
        let turns_detail = report
            .turn_usage
            .iter()
            .map(|t| TurnTokens {
                input: t.usage.input_tokens,
                kind: t.kind,
                output: t.usage.output_tokens,
                total: t.usage.input_tokens + t.usage.output_tokens,
                turn: t.turn,
            })
            .collect();
        let usage = &report.usage;
        let mut by_tool: std::collections::BTreeMap<&'a str, ToolCost> = std::collections::BTreeMap::new();
        for call in &report.calls {
            let entry = by_tool.entry(call.call.name.as_str()).or_default();
            entry.calls += 1;
            entry.wall_ms += call.cost.wall_ms;
            entry.peak_memory_bytes = entry.peak_memory_bytes.max(call.cost.peak_memory_bytes);
            entry.bytes_read += call.cost.bytes_read;
            entry.bytes_written += call.cost.bytes_written;
            entry.network_requests += u64::from(call.cost.network_requests);
        }
        let stats = Stats {
            by_tool,
            compressions: report.compressions,
            duration_ms: millis(report.duration),
            tokens: Tokens {
                input: usage.input_tokens,
                output: usage.output_tokens,
                total: usage.input_tokens + usage.output_tokens,
            },
            tools: CallCounts {
                cancelled: count(CallStatus::Cancelled),
                error: count(CallStatus::Error),
                success: count(CallStatus::Success),
                total: report.calls.len(),
            },
            turns: report.turns,
            turns_detail,
        };
        Self { error, session_id, stats, status, todos: &report.todos, tool_calls }
    }
}

/// `-o json`: the one object printed when the run ends.
#[derive(Debug, Serialize)]
pub struct JsonOutput<'a> {
    /// The model the run used.
    pub model: &'a str,
    /// The provider the run used (`gemini`, `openai`, `anthropic`).
    pub provider: &'a str,
    /// All the text the model wrote during the run.
    pub response: &'a str,
    /// The shared part.
    #[serde(flatten)]
    pub summary: Summary<'a>,
    /// Every warning of the run (plugins that could not load, notes from the engine).
    pub warnings: &'a [String],
}

/// `-o stream-json`: one event of the run ([`Event`], tagged by `type`) with the time it
/// was printed.
#[derive(Debug, Serialize)]
pub struct StampedEvent<'a> {
    /// The event's own fields, `type` among them.
    #[serde(flatten)]
    pub event: &'a Event,
    /// Milliseconds since the Unix epoch.
    pub timestamp: u64,
}

impl<'a> StampedEvent<'a> {
    /// `event`, stamped now.
    pub fn now(event: &'a Event) -> Self {
        Self { event, timestamp: now_millis() }
    }
}

/// `-o stream-json`'s last line.
#[derive(Debug, Serialize)]
pub struct ResultLine<'a> {
    /// The shared part.
    #[serde(flatten)]
    pub summary: Summary<'a>,
    /// Milliseconds since the Unix epoch.
    pub timestamp: u64,
    /// Always `result`.
    #[serde(rename = "type")]
    pub kind: &'static str,
}

impl<'a> ResultLine<'a> {
    /// The result line of `summary`, stamped now.
    pub fn now(summary: Summary<'a>) -> Self {
        Self { summary, timestamp: now_millis(), kind: "result" }
    }
}

/// `tools list --json`.
#[derive(Debug, Serialize)]
pub struct ToolList<'a> {
    /// Plugins that could not be loaded.
    pub problems: &'a [LoadProblem],
    /// Every tool the model may call.
    pub tools: Vec<ToolEntry<'a>>,
}

/// A tool as `tools list --json` shows it.
#[derive(Debug, Serialize)]
pub struct ToolEntry<'a> {
    /// What the tool requests (files, network, env, processes), as the plugin declared it.
    pub capabilities: &'a Capabilities,
    /// What the model is told the tool does.
    pub description: &'a str,
    /// The name shown to a person.
    pub display_name: &'a str,
    /// `read`, `edit`, `execute`, …: what approval the tool's calls need.
    pub kind: Kind,
    /// The name the model calls.
    pub name: &'a str,
    /// Whether its calls may run alongside others.
    pub parallel_safe: bool,
    /// The JSON schema of its arguments.
    pub parameters: &'a Value,
    /// The plugin it comes from.
    pub plugin: PluginRef<'a>,
    /// Whether it streams live output while it runs.
    pub streams_output: bool,
}

/// The plugin a tool comes from.
#[derive(Debug, Serialize)]
pub struct PluginRef<'a> {
    /// The plugin's file, or the built-in's name.
    pub file: String,
    /// The plugin's name.
    pub name: &'a str,
    /// `builtin`, `user` or `workspace`.
    pub origin: Origin,
    /// The plugin's version.
    pub version: &'a str,
}

/// `plugins list --json`.
#[derive(Debug, Serialize)]
pub struct PluginList<'a> {
    /// Every loaded plugin.
    pub plugins: Vec<PluginView<'a>>,
    /// Plugins that could not be loaded.
    pub problems: &'a [LoadProblem],
}

/// `plugins show NAME --json`, and each entry of `plugins list --json`.
#[derive(Debug, Serialize)]
pub struct PluginView<'a> {
    /// The grant's lists that are the built-in's default (`files`, `network`, `env`,
    /// `processes`): what it requests.
    pub defaults: Vec<&'static str>,
    /// The plugin's file, or the built-in's name.
    pub file: String,
    /// The grant in force.
    pub granted: Grant,
    /// The policy file the grant comes from, `built-in default`, or `nothing`.
    pub granted_by: String,
    /// The plugin's name.
    pub name: &'a str,
    /// `builtin`, `user` or `workspace`.
    pub origin: Origin,
    /// Each tool: what it requests and what it gets.
    pub tools: Vec<ToolAccess<'a>>,
    /// The plugin's version.
    pub version: &'a str,
}

/// What one tool requests and gets.
#[derive(Debug, Serialize)]
pub struct ToolAccess<'a> {
    /// What its calls get under the grant.
    pub gets: Gets,
    /// Its kind (`read`, `edit`, …).
    pub kind: Kind,
    /// Requests not granted, each as the `plugins grant` flag that would grant it.
    pub missing: Vec<String>,
    /// The tool's name.
    pub name: &'a str,
    /// What it requests, as the plugin declared it.
    pub requests: &'a Capabilities,
}

/// What a tool's calls get.
#[derive(Debug, Serialize)]
pub struct Gets {
    /// Environment variables.
    pub env: Vec<String>,
    /// Folders and their access.
    pub files: Vec<FileAccess>,
    /// Network rules, as written in a policy.
    pub network: Vec<String>,
    /// Programs it may start.
    pub processes: Vec<String>,
}

/// A folder a call gets.
#[derive(Debug, Serialize)]
pub struct FileAccess {
    /// `read` or `read-write`.
    pub access: Access,
    /// The folder, resolved.
    pub path: std::path::PathBuf,
}

/// `plugins inspect FILE --json`.
#[derive(Debug, Serialize)]
pub struct Inspected<'a> {
    /// The file as given.
    pub file: &'a Path,
    /// What the plugin says about itself.
    pub plugin: &'a PluginInfo,
}

/// An entry of `sessions list --json`. Printed in field order, not sorted.
#[derive(Debug, Serialize)]
pub struct SessionEntry<'a> {
    /// The session's id (`airlock --resume ID`).
    pub id: &'a str,
    /// When it started (RFC 3339, UTC).
    pub started: &'a str,
    /// When its file was last written to (RFC 3339, UTC).
    pub updated: &'a str,
    /// The workspace it ran in.
    pub workspace: &'a str,
    /// The provider it used.
    pub provider: &'a str,
    /// The model it used.
    pub model: &'a str,
    /// The start of the first prompt, on one line.
    pub first_prompt: &'a str,
    /// Model responses so far.
    pub turns: u64,
    /// The session file.
    pub path: &'a Path,
}

impl<'a> From<&'a SessionSummary> for SessionEntry<'a> {
    fn from(s: &'a SessionSummary) -> Self {
        Self {
            id: &s.id,
            started: &s.started,
            updated: &s.updated,
            workspace: &s.workspace,
            provider: &s.provider,
            model: &s.model,
            first_prompt: &s.first_prompt,
            turns: s.turns,
            path: &s.path,
        }
    }
}

/// Printed instead of a shape that cannot be serialized, so a reader of the stream sees a
/// line saying so rather than a gap.
#[derive(Debug, Serialize)]
struct Unprintable {
    message: String,
    #[serde(rename = "type")]
    kind: &'static str,
}

/// `shape` with its keys sorted at every depth (see the module doc).
fn sorted(shape: &impl Serialize) -> Value {
    serde_json::to_value(shape).unwrap_or_else(|e| {
        serde_json::to_value(Unprintable { message: e.to_string(), kind: "error" }).unwrap_or_default()
    })
}

/// Writes `shape` as one line, keys sorted, and flushes.
pub fn write_line(out: &mut impl Write, shape: &impl Serialize) -> io::Result<()> {
    serde_json::to_writer(&mut *out, &sorted(shape))?;
    out.write_all(b"\n")?;
    out.flush()
}

/// Writes `shape` indented, keys sorted, with a final newline.
pub fn write_pretty(out: &mut impl Write, shape: &impl Serialize) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, &sorted(shape))?;
    writeln!(out)
}

/// Writes `sessions list --json`: an indented array of [`SessionEntry`], keys in field order.
pub fn write_sessions(out: &mut impl Write, sessions: &[SessionSummary]) -> io::Result<()> {
    let entries: Vec<SessionEntry<'_>> = sessions.iter().map(SessionEntry::from).collect();
    serde_json::to_writer_pretty(&mut *out, &entries)?;
    writeln!(out)
}

fn millis(duration: std::time::Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

fn now_millis() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

#[cfg(test)]
#[path = "json_tests.rs"]
mod tests;
