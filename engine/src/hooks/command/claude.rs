//! Claude Code's hook protocol, in and out: what a command hook reads on stdin ([`stdin`]) and
//! how its exit status, stdout and stderr become a [`HookReply`] ([`reply`]). Field names are
//! Claude Code's where the meaning is the same, so a hook script written for Claude Code runs
//! unchanged on those fields; airlock's own [`HookEvent`] rides along under `airlock`.
//!
//! Invariants: an exit status of 2 refuses (the stderr is the reason), 0 answers (JSON on
//! stdout, or plain text that is context where Claude Code takes it so), anything else is a
//! failure ([`HookFailure::Exited`]) that `on_error` decides; JSON that does not parse, or
//! a decision that is not one of Claude Code's, is a failure too, never read as "no
//! objection". A refusal anywhere in a reply wins over an approval.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::hooks::{HookEvent, HookEventName, HookFailure, HookReply, HookVerdict};

/// Claude Code's tool names and the airlock tools they stand for: aliases in a hook's
/// `tools` pattern, and the `tool_name` a hook reads (the first alias of a tool).
pub const TOOL_ALIASES: &[(&str, &str)] = &[
    ("Bash", "run_shell_command"),
    ("Read", "read_file"),
    ("Write", "write_file"),
    ("Edit", "replace"),
    ("MultiEdit", "replace"),
    ("Glob", "glob"),
    ("Grep", "grep_search"),
    ("LS", "list_directory"),
    ("WebFetch", "web_fetch"),
    ("WebSearch", "web_search"),
    ("TodoWrite", "write_todos"),
];

/// The name a Claude Code hook knows airlock's tool `tool` by: its alias, or its own name.
pub fn claude_tool_name(tool: &str) -> &str {
    TOOL_ALIASES.iter().find(|(_, airlock)| *airlock == tool).map_or(tool, |(claude, _)| claude)
}

/// The pattern of a `tools` setting with Claude Code's names as aliases: it matches a tool
/// whose own name matches `tools` whole, or one of whose Claude Code names does. `None`
/// (every tool) for `*` or no setting.
pub fn tools_regex(tools: Option<&str>) -> Result<Option<regex::Regex>, regex::Error> {
    let Some(tools) = tools else { return Ok(None) };
    let Some(pattern) = crate::config::hooks::tools_pattern(tools)? else { return Ok(None) };
    let mut aliased: Vec<&str> =
        TOOL_ALIASES.iter().filter(|(claude, _)| pattern.is_match(claude)).map(|(_, airlock)| *airlock).collect();
    aliased.dedup();
    if aliased.is_empty() {
        return Ok(Some(pattern));
    }
    regex::Regex::new(&format!("^(?:{tools})$|^(?:{})$", aliased.join("|"))).map(Some)
}

/// Claude Code's name of an approval mode.
fn permission_mode(mode: &str) -> &str {
    match mode {
        "auto-edit" => "acceptEdits",
        "yolo" => "bypassPermissions",
        other => other,
    }
}

/// What a command hook reads on stdin for `event`.
pub fn stdin(event: &HookEvent) -> Value {
    let mut input = Map::new();
    input.insert("session_id".into(), json!(event.session_id));
    input.insert("transcript_path".into(), json!(event.transcript_path.as_deref().unwrap_or_default()));
    input.insert("cwd".into(), json!(event.workspace));
    input.insert("hook_event_name".into(), json!(event.event.claude_name()));
    input.insert("permission_mode".into(), json!(permission_mode(&event.approval_mode)));
    if let Some(tool) = &event.tool {
        input.insert("tool_name".into(), json!(claude_tool_name(&tool.name)));
        input.insert("tool_input".into(), tool.arguments.clone());
        input.insert("tool_use_id".into(), json!(tool.call_id));
        if event.event == HookEventName::AfterTool {
            let mut response = Map::new();
            if let Some(status) = &tool.status {
                response.insert("status".into(), json!(status));
            }
            if let Some(output) = &tool.output {
                response.insert("output".into(), json!(output));
            }
            input.insert("tool_response".into(), Value::Object(response));
        }
    }
    if let Some(prompt) = &event.prompt {
        input.insert("prompt".into(), json!(prompt));
    }
    if let Some(message) = &event.message {
        input.insert("message".into(), json!(message));
    }
    let reason = event.reason.as_deref();
    match event.event {
        HookEventName::SessionStart => {
            input.insert("source".into(), json!(reason.unwrap_or("startup")));
        }
        HookEventName::BeforeCompress => {
            input.insert("trigger".into(), json!(reason.unwrap_or("auto")));
            input.insert("custom_instructions".into(), json!(""));
        }
        HookEventName::SessionEnd => {
            input.insert("reason".into(), json!(reason.unwrap_or("other")));
        }
        HookEventName::Stop => {
            // Claude Code's loop guard: true when the agent goes on because a stop hook asked.
            input.insert("stop_hook_active".into(), json!(reason == Some("hook")));
        }
        _ => {}
    }
    input.insert("airlock".into(), serde_json::to_value(event).unwrap_or(Value::Null));
    Value::Object(input)
}

/// Claude Code's JSON reply (unknown fields are ignored, as Claude Code does).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Output {
    #[serde(rename = "continue")]
    keep_going: Option<bool>,
    stop_reason: Option<String>,
    decision: Option<String>,
    reason: Option<String>,
    hook_specific_output: Option<Specific>,
}

/// `hookSpecificOutput`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Specific {
    permission_decision: Option<String>,
    permission_decision_reason: Option<String>,
    updated_input: Option<Value>,
    additional_context: Option<String>,
}

/// How a command hook ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ended {
    pub code: Option<i32>,
    pub signal: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

/// The reply of a hook that ended as `ended`, on `event`.
pub fn reply(event: HookEventName, ended: &Ended) -> Result<HookReply, HookFailure> {
    let stderr = text(&ended.stderr);
    match (ended.code, ended.signal) {
        (Some(0), _) => answer(event, &text(&ended.stdout)),
        (Some(2), _) => Ok(refusal(event, stderr)),
        (Some(code), _) => Err(HookFailure::Exited(with_stderr(format!("status {code}"), &stderr))),
        (None, Some(signal)) => Err(HookFailure::Exited(with_stderr(format!("signal {signal}"), &stderr))),
        (None, None) => Err(HookFailure::Exited("no status".into())),
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).trim().to_string()
}

fn with_stderr(what: String, stderr: &str) -> String {
    match stderr.lines().find(|line| !line.trim().is_empty()) {
        Some(line) => format!("{what}: {}", crate::sanitize::line(line)),
        None => what,
    }
}

/// Exit status 2: Claude Code's "blocking error", whose stderr goes to the model.
fn refusal(event: HookEventName, stderr: String) -> HookReply {
    let reason = if stderr.is_empty() { "the hook refused (exit status 2)".to_string() } else { stderr };
    match event {
        // The call already ran: the model reads the text.
        HookEventName::AfterTool => HookReply { context: Some(reason), ..HookReply::default() },
        _ => HookReply { verdict: Some(HookVerdict::Deny), reason: Some(reason), ..HookReply::default() },
    }
}

/// Exit status 0: JSON, or plain text.
fn answer(event: HookEventName, stdout: &str) -> Result<HookReply, HookFailure> {
    if stdout.is_empty() {
        return Ok(HookReply::default());
    }
    if !stdout.starts_with('{') {
        // Claude Code adds a prompt hook's and a session start hook's text to the context.
        let context =
            matches!(event, HookEventName::PromptSubmitted | HookEventName::SessionStart).then(|| stdout.to_string());
        return Ok(HookReply { context, ..HookReply::default() });
    }
    let output: Output = serde_json::from_str(stdout)
        .map_err(|e| HookFailure::Invalid(format!("its JSON reply does not parse: {e}")))?;
    let specific = output.hook_specific_output.unwrap_or_default();
    let mut verdicts = Vec::new();
    let mut reasons = Vec::new();
    if let Some(decision) = &specific.permission_decision {
        verdicts.push(match decision.as_str() {
            "allow" => HookVerdict::Allow,
            "deny" => HookVerdict::Deny,
            "ask" => HookVerdict::Ask,
            other => {
                return Err(HookFailure::Invalid(format!(
                    "permissionDecision {:?} is not allow, deny or ask",
                    crate::sanitize::line(other)
                )));
            }
        });
        reasons.extend(specific.permission_decision_reason.clone());
    }
    let mut context = specific.additional_context.clone();
    match output.decision.as_deref() {
        None => {}
        Some("block") if event == HookEventName::AfterTool => {
            context = [context, output.reason.clone()].into_iter().flatten().reduce(|a, b| format!("{a}\n{b}"));
        }
        Some("block") => {
            verdicts.push(HookVerdict::Deny);
            reasons.extend(output.reason.clone());
        }
        Some("approve") => {
            verdicts.push(HookVerdict::Allow);
            reasons.extend(output.reason.clone());
        }
        Some(other) => {
            return Err(HookFailure::Invalid(format!(
                "decision {:?} is not block or approve",
                crate::sanitize::line(other)
            )));
        }
    }
    // `continue: false` stops what the event is about; a stop hook's agent stops anyway.
    if output.keep_going == Some(false) && event != HookEventName::Stop {
        verdicts.push(HookVerdict::Deny);
        reasons.extend(output.stop_reason.clone());
    }
    let verdict = [HookVerdict::Deny, HookVerdict::Ask, HookVerdict::Allow].into_iter().find(|v| verdicts.contains(v));
    let reason = reasons.into_iter().find(|r| !r.trim().is_empty());
    Ok(HookReply { verdict, reason, context, arguments: specific.updated_input })
}

#[cfg(test)]
#[path = "claude_tests.rs"]
mod tests;
