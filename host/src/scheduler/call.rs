//! One call's path through the states: [`Scheduler::prepare`] takes it from `validating`
//! to `scheduled` (or a terminal state), [`Scheduler::execute`] from `executing` to the end.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use tokio::sync::mpsc;

use super::{CompletedCall, Scheduler};
use crate::cancel::Cancellation;
use crate::capability::{self, Phase};
use crate::contract::{Confirmation, ContentPart, ErrorKind, ToolError, ToolOutput};
use crate::events::{CallStatus, CallUpdate, Event, EventSink};
use crate::model::FunctionCall;
use crate::policy::{self, ApprovalOutcome, ApprovalRequest, Decision};
use crate::registry::RegisteredTool;
use crate::runtime::{CallFault, Instance, Sandbox};

/// The outcome of the steps before execution.
pub(super) enum Prepared {
    /// Approved and waiting for its turn.
    Ready(Ready),
    /// Finished early (unknown tool, bad arguments, refused, ...).
    Done(CompletedCall),
    /// The user cancelled this call, and with it the batch.
    CancelBatch(CompletedCall),
}

/// A call that passed validation and approval.
pub(super) struct Ready {
    pub call: FunctionCall,
    pub tool: Arc<RegisteredTool>,
    args: String,
    started: Instant,
    /// The file an approved edit changes, when it is inside the workspace.
    edit_path: Option<PathBuf>,
}

impl Ready {
    pub fn cancel(self, reason: &str, events: &EventSink) -> CompletedCall {
        finish(&self.call, self.started, Err(ToolError::new(ErrorKind::Cancelled, reason)), events)
    }
}

impl Scheduler {
    pub(super) async fn prepare(&self, call: &FunctionCall, events: &EventSink, cancel: &Cancellation) -> Prepared {
        let started = Instant::now();
        let parsed = parse_args(&call.arguments);
        let mut update = CallUpdate::new(&call.id, &call.name, CallStatus::Validating);
        update.args = Some(parsed.clone().unwrap_or_else(|_| serde_json::Value::String(call.arguments.clone())));
        events.send(Event::ToolCall(Box::new(update)));
        let fail = |error: ToolError| Prepared::Done(finish(call, started, Err(error), events));

        let Some(tool) = self.registry.get(&call.name).cloned() else {
            return fail(self.unknown_tool(&call.name));
        };
        let args = match parsed {
            Ok(args) => args,
            Err(reason) => return fail(ToolError::new(ErrorKind::InvalidParams, reason)),
        };
        if let Err(problems) = tool.check_args(&args) {
            return fail(ToolError::new(
                ErrorKind::InvalidParams,
                format!("the arguments of `{}` do not match its schema: {problems}", call.name),
            ));
        }
        let args = args.to_string();
        if cancel.is_cancelled() {
            return fail(cancelled());
        }
        let mut instance = match self.instance(&tool, call, Phase::Check, cancel, None).await {
            Ok(instance) => instance,
            Err(error) => return fail(error),
        };
        let name = &tool.info.name;
        match instance.validate(name, &args).await {
            Ok(Ok(())) => {}
            Ok(Err(error)) => return fail(error),
            Err(fault) => return fail(fault_error(&tool, fault)),
        }
        let description = match instance.describe_call(name, &args).await {
            Ok(text) => one_line(&text),
            Err(fault) => return fail(fault_error(&tool, fault)),
        };
        let confirmation = match instance.confirm(name, &args).await {
            Ok(Ok(confirmation)) => confirmation,
            Ok(Err(error)) => return fail(error),
            Err(fault) => return fail(fault_error(&tool, fault)),
        };
        drop(instance);

        let edit_path = match &confirmation {
            Some(Confirmation::Edit { path, .. }) => {
                Some(PathBuf::from(path)).filter(|p| p.is_absolute() && p.starts_with(&self.workspace))
            }
            _ => None,
        };
        if policy::decide(self.mode, tool.info.kind, confirmation.as_ref()) == Decision::Ask {
            let confirmation = confirmation.unwrap_or_else(|| Confirmation::Info {
                prompt: format!("Allow {} ({}): {description}?", tool.info.display_name, tool.info.kind.as_str()),
                urls: Vec::new(),
            });
            let mut update = CallUpdate::new(&call.id, &call.name, CallStatus::AwaitingApproval);
            update.description = Some(description.clone());
            update.confirmation = Some(confirmation.clone());
            events.send(Event::ToolCall(Box::new(update)));
            let request = ApprovalRequest {
                call_id: call.id.clone(),
                tool: call.name.clone(),
                description: description.clone(),
                confirmation,
            };
            let outcome = tokio::select! {
                outcome = self.approver.ask(request) => outcome,
                () = cancel.cancelled() => return fail(cancelled()),
            };
            match outcome {
                ApprovalOutcome::AllowOnce => {}
                ApprovalOutcome::Refuse(message) => return fail(ToolError::new(ErrorKind::PolicyDenied, message)),
                ApprovalOutcome::Cancel => {
                    let error = ToolError::new(ErrorKind::Cancelled, "the user cancelled this call");
                    return Prepared::CancelBatch(finish(call, started, Err(error), events));
                }
            }
        }
        let mut update = CallUpdate::new(&call.id, &call.name, CallStatus::Scheduled);
        update.description = Some(description);
        events.send(Event::ToolCall(Box::new(update)));
        Prepared::Ready(Ready { call: call.clone(), tool, args, started, edit_path })
    }

    pub(super) async fn execute(&self, ready: Ready, events: &EventSink, cancel: &Cancellation) -> CompletedCall {
        if cancel.is_cancelled() {
            return ready.cancel("the run was cancelled before this call started", events);
        }
        let Ready { call, tool, args, started, edit_path } = ready;
        // WASI has no chmod, so a plugin's atomic rewrite resets the file's mode: keep it.
        let permissions = edit_path.as_ref().and_then(|p| std::fs::metadata(p).ok()).map(|m| m.permissions());
        events.send(Event::ToolCall(Box::new(CallUpdate::new(&call.id, &call.name, CallStatus::Executing))));
        let live = tool.info.streams_output.then(|| forward_live_output(&call.id, events));
        let result = match self.instance(&tool, &call, Phase::Execute, cancel, live).await {
            Ok(mut instance) => match instance.execute(&tool.info.name, &args).await {
                Ok(Ok(output)) => Ok(cap_output(output, self.limits.output)),
                Ok(Err(error)) => Err(error),
                Err(fault) => Err(fault_error(&tool, fault)),
            },
            Err(error) => Err(error),
        };
        if let (Ok(_), Some(path), Some(permissions)) = (&result, &edit_path, permissions)
            && std::fs::metadata(path).is_ok_and(|m| m.permissions() != permissions)
            && let Err(error) = std::fs::set_permissions(path, permissions)
        {
            tracing::warn!("cannot restore the permissions of {}: {error}", path.display());
        }
        finish(&call, started, result, events)
    }

    async fn instance(
        &self,
        tool: &RegisteredTool,
        call: &FunctionCall,
        phase: Phase,
        cancel: &Cancellation,
        live_output: Option<mpsc::UnboundedSender<String>>,
    ) -> Result<Instance, ToolError> {
        let component = tool.plugin.component(&self.runtime).map_err(|e| {
            ToolError::new(ErrorKind::PluginFault, format!("the plugin {} cannot be loaded: {e}", tool.plugin.label()))
        })?;
        let sandbox = Sandbox {
            preopens: capability::preopens(&tool.info, &self.workspace, phase),
            memory_limit: self.limits.memory,
            deadline: self.limits.deadline,
            workspace_root: self.workspace.to_string_lossy().into_owned(),
            call_id: call.id.clone(),
            cancel: cancel.flag(),
            live_output,
        };
        let label: Arc<str> = tool.plugin.info.name.as_str().into();
        self.runtime.instantiate(&component, label, &sandbox).await.map_err(|fault| fault_error(tool, fault))
    }

    fn unknown_tool(&self, name: &str) -> ToolError {
        let available: Vec<&str> = self.registry.tools().iter().map(|t| t.info.name.as_str()).collect();
        let hint = match self.registry.suggest(name) {
            Some(suggestion) => format!(" Did you mean `{suggestion}`?"),
            None => String::new(),
        };
        ToolError::new(
            ErrorKind::ToolNotFound,
            format!("there is no tool named `{name}`.{hint} Available tools: {}.", available.join(", ")),
        )
    }
}

/// Parses the model's arguments: a JSON object (an empty string counts as `{}`).
fn parse_args(text: &str) -> Result<serde_json::Value, String> {
    if text.trim().is_empty() {
        return Ok(serde_json::Value::Object(serde_json::Map::new()));
    }
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(value @ serde_json::Value::Object(_)) => Ok(value),
        Ok(_) => Err("the arguments must be a JSON object".into()),
        Err(error) => Err(format!("the arguments are not valid JSON ({error}); send a JSON object")),
    }
}

fn cancelled() -> ToolError {
    ToolError::new(ErrorKind::Cancelled, "the run was cancelled")
}

/// The error the model gets when a guest did not return normally.
fn fault_error(tool: &RegisteredTool, fault: CallFault) -> ToolError {
    let kind = match fault {
        CallFault::Timeout(_) => ErrorKind::Timeout,
        CallFault::Cancelled => ErrorKind::Cancelled,
        CallFault::MemoryExhausted(_) | CallFault::Trap(_) | CallFault::Instantiate(_) => ErrorKind::PluginFault,
    };
    tracing::warn!(tool = tool.info.name, plugin = tool.plugin.label(), "{fault}");
    ToolError::new(kind, format!("`{}` failed: {fault}", tool.info.name))
}

/// Emits the terminal event and builds the completed call.
fn finish(
    call: &FunctionCall,
    started: Instant,
    result: Result<ToolOutput, ToolError>,
    events: &EventSink,
) -> CompletedCall {
    let status = match &result {
        Ok(_) => CallStatus::Success,
        Err(error) if error.kind == ErrorKind::Cancelled => CallStatus::Cancelled,
        Err(_) => CallStatus::Error,
    };
    let duration = started.elapsed();
    let mut update = CallUpdate::new(&call.id, &call.name, status);
    update.duration = Some(duration);
    match &result {
        Ok(output) => {
            update.output = Some(output.llm_text());
            update.display = output.display.clone();
        }
        Err(error) => update.error = Some(error.clone()),
    }
    events.send(Event::ToolCall(Box::new(update)));
    CompletedCall { call: call.clone(), status, result, duration }
}

/// Keeps what the model is told under `cap` bytes, and says so when it cuts.
fn cap_output(mut output: ToolOutput, cap: usize) -> ToolOutput {
    let text = output.llm_text();
    if text.len() <= cap {
        return output;
    }
    let kept = crate::runtime::truncate_chars(&text, cap);
    let note =
        format!("\n[airlock: the output was truncated: showing the first {} of {} bytes]", kept.len(), text.len());
    output.llm_content = vec![ContentPart::Text { text: format!("{kept}{note}") }];
    output
}

fn one_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default().trim();
    crate::runtime::truncate_chars(line, 200).to_string()
}

/// A channel for a call's live output, forwarded as events until the call ends.
fn forward_live_output(call_id: &str, events: &EventSink) -> mpsc::UnboundedSender<String> {
    let (sender, mut receiver) = mpsc::unbounded_channel::<String>();
    let call_id = call_id.to_string();
    let events = events.clone();
    tokio::spawn(async move {
        while let Some(chunk) = receiver.recv().await {
            events.send(Event::ToolOutput { call_id: call_id.clone(), chunk });
        }
    });
    sender
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_objects_and_rejects_everything_else() {
        assert_eq!(parse_args("").unwrap(), serde_json::json!({}));
        assert_eq!(parse_args("{\"a\":1}").unwrap(), serde_json::json!({"a": 1}));
        assert!(parse_args("[1]").unwrap_err().contains("JSON object"));
        assert!(parse_args("{\"a\":").unwrap_err().contains("not valid JSON"));
    }

    #[test]
    fn caps_output_and_says_so() {
        let output = ToolOutput { llm_content: vec![ContentPart::Text { text: "é".repeat(100) }], display: None };
        let capped = cap_output(output, 51);
        let text = capped.llm_text();
        assert!(text.starts_with(&"é".repeat(25)));
        assert!(text.contains("showing the first 50 of 200 bytes"), "{text}");
    }
}
