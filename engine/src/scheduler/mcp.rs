//! The calls of MCP servers' tools: a second kind of tool beside components, on the same
//! states and events. A call is validated (its arguments against the tool's checked
//! schema), judged as an exec-class call by the policy (rules per tool `SERVER__tool` or per
//! server `SERVER__*`, the approval mode), asked about when the verdict says so — the
//! question marked `MCP server NAME (sandboxed: <grant>)` and holding the server's sandbox
//! (`remote: ORIGIN` and only that origin for an HTTP server) — and executed on the server's connection: progress as live output, the run's
//! cancellation cancelling it at the server, the server's per-call timeout, and the result
//! under the call's output cap with the whole saved, as a component's.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::audited::{self, Witness};
use super::finish::{Ending, cancelled, finish, finish_with};
use super::{CompletedCall, Scheduler, output};
use crate::audit::GrantRecord;
use crate::cancel::Cancellation;
use crate::capability::{Held, HeldFolder};
use crate::contract::{Confirmation, ContentPart, ErrorKind, Kind, ToolError, ToolInfo, ToolOutput};
use crate::events::{CallStatus, CallUpdate, Event, EventSink};
use crate::mcp::hub::Live;
use crate::mcp::{McpGrant, OfferedTool};
use crate::policy::rules::CallFacts;
use crate::policy::{ApprovalOutcome, ApprovalRequest, Verdict};
use airlock_mcp::{CallOutcome, McpError, Part};
use airlock_model::FunctionCall;

/// Longest check of one call's arguments against its schema.
const ARGS_DEADLINE: Duration = Duration::from_secs(2);

/// A validated call of an MCP tool, waiting for approval or its turn.
pub(super) struct McpCall {
    pub call: FunctionCall,
    live: Arc<Live>,
    tool: OfferedTool,
    args: serde_json::Map<String, serde_json::Value>,
    started: Instant,
    /// `MCP server NAME (sandboxed: <grant>)`.
    marker: String,
    /// What the audit trail records of it; approval sets who decided.
    witness: Witness,
}

impl McpCall {
    pub fn cancel(self, reason: &str, events: &EventSink) -> CompletedCall {
        self.fail(ToolError::new(ErrorKind::Cancelled, reason), events)
    }

    fn fail(self, error: ToolError, events: &EventSink) -> CompletedCall {
        finish(&self.call, self.started, Err(error), events, self.witness)
    }
}

/// What approving an MCP call came to.
pub(super) enum McpApproved {
    Ready(McpCall),
    Done(CompletedCall),
    CancelBatch(CompletedCall),
}

/// The policy's view of an MCP tool: an exec-class tool of that name.
pub(super) fn policy_info(name: &str) -> ToolInfo {
    ToolInfo {
        name: name.to_owned(),
        display_name: name.to_owned(),
        description: String::new(),
        parameters: serde_json::Value::Null,
        kind: Kind::Execute,
        streams_output: true,
        parallel_safe: false,
        capabilities: crate::contract::Capabilities::default(),
    }
}

impl Scheduler {
    /// The ready MCP tool offered as `name`, unless a built-in or plugin owns the name.
    pub(super) fn mcp_tool(&self, name: &str) -> Option<(Arc<Live>, OfferedTool)> {
        if self.registry.get(name).is_some() {
            return None;
        }
        self.mcp.as_ref()?.find(name)
    }

    /// Validates a call of an MCP tool: offered under the policy, arguments a JSON object
    /// that matches the tool's schema.
    pub(super) async fn validate_mcp(
        &self,
        call: &FunctionCall,
        (live, tool): (Arc<Live>, OfferedTool),
        events: &EventSink,
    ) -> Result<McpCall, CompletedCall> {
        let started = Instant::now();
        let fail = |error: ToolError| finish(call, started, Err(error), events, self.witness());
        if !self.policy.offers(&policy_info(&call.name)) {
            let verdict = self.policy.verdict(
                &policy_info(&call.name),
                &CallFacts { tool: &call.name, ..CallFacts::default() },
                None,
            );
            let message = match verdict {
                Verdict::Deny(message) => message,
                _ => format!("`{}` is not available in this session", call.name),
            };
            return Err(fail(ToolError::new(ErrorKind::PolicyDenied, message)));
        }
        let args = match super::validation::parse_args(&call.arguments) {
            Ok(serde_json::Value::Object(args)) => args,
            Ok(_) => return Err(fail(ToolError::new(ErrorKind::InvalidParams, "the arguments must be a JSON object"))),
            Err(reason) => return Err(fail(ToolError::new(ErrorKind::InvalidParams, reason))),
        };
        let (schema, value) = (tool.parameters.clone(), serde_json::Value::Object(args.clone()));
        let checked = {
            let value = value.clone();
            tokio::task::spawn_blocking(move || crate::registry::check_args_against(&schema, &value))
        };
        match tokio::time::timeout(ARGS_DEADLINE, checked).await {
            Ok(Ok(Ok(()))) => {}
            Ok(Ok(Err(problems))) => {
                return Err(fail(ToolError::new(
                    ErrorKind::InvalidParams,
                    format!("the arguments of `{}` do not match its schema: {problems}", call.name),
                )));
            }
            _ => {
                return Err(fail(ToolError::new(
                    ErrorKind::PluginFault,
                    format!("`{}` cannot check its arguments: its schema is too costly", call.name),
                )));
            }
        }
        let marker = live.server.marker();
        let witness = match self.audit.get() {
            Some(trail) => Witness {
                trail: Some(trail),
                plugin: format!("mcp:{}", live.server.name),
                grant: GrantRecord::of_held(&self.mcp_sandbox(&live)),
                args_sha256: Some(crate::audit::record::digest(value.to_string().as_bytes())),
                ..Witness::default()
            },
            None => Witness::default(),
        };
        Ok(McpCall { call: call.clone(), live, tool, args, started, marker, witness })
    }

    /// The rules' verdict on an MCP call, and the person's answer when they ask.
    pub(super) async fn approve_mcp(
        &self,
        prepared: McpCall,
        events: &EventSink,
        cancel: &Cancellation,
    ) -> McpApproved {
        if cancel.is_cancelled() {
            return McpApproved::Done(prepared.fail(cancelled(), events));
        }
        let (mut prepared, hook_asks) = match self.before_mcp(prepared, events, cancel).await {
            Ok(hooked) => hooked,
            Err(done) => return McpApproved::Done(done),
        };
        let facts = CallFacts { tool: &prepared.call.name, ..CallFacts::default() };
        let (verdict, basis) = self.policy.decide(&policy_info(&prepared.call.name), &facts, None);
        prepared.witness.approval = audited::by_basis(&basis);
        match verdict {
            Verdict::Allow if !hook_asks => {}
            Verdict::Deny(message) => {
                return McpApproved::Done(prepared.fail(ToolError::new(ErrorKind::PolicyDenied, message), events));
            }
            Verdict::Allow | Verdict::Ask => {
                let request = self.mcp_question(&prepared, events);
                let outcome = tokio::select! {
                    outcome = self.approver.ask(request) => outcome,
                    () = cancel.cancelled() => return McpApproved::Done(prepared.fail(cancelled(), events)),
                };
                prepared.witness.approval = audited::by_answer(&outcome);
                match outcome {
                    ApprovalOutcome::AllowOnce => {}
                    ApprovalOutcome::AllowAlways { scope, save } => {
                        match self.policy.remember(&prepared.call.name, &scope, save) {
                            Ok(message) => {
                                self.audit_grant("rule", &prepared.call.name, &message, events);
                                events.send(Event::Notice { message });
                            }
                            Err(error) => {
                                events.send(Event::Warning { message: format!("cannot save the rule: {error}") })
                            }
                        }
                    }
                    ApprovalOutcome::Modify { .. } => {
                        let error = ToolError::new(ErrorKind::PolicyDenied, "an MCP server's call cannot be edited");
                        return McpApproved::Done(prepared.fail(error, events));
                    }
                    ApprovalOutcome::Refuse(message) => {
                        return McpApproved::Done(
                            prepared.fail(ToolError::new(ErrorKind::PolicyDenied, message), events),
                        );
                    }
                    ApprovalOutcome::Cancel => {
                        let error = ToolError::new(ErrorKind::Cancelled, "the user cancelled this call");
                        return McpApproved::CancelBatch(prepared.fail(error, events));
                    }
                }
            }
        }
        let mut update = CallUpdate::new(&prepared.call.id, &prepared.call.name, CallStatus::Scheduled);
        update.description = Some(prepared.marker.clone());
        events.send(Event::ToolCall(Box::new(update)));
        McpApproved::Ready(prepared)
    }

    /// `before_tool` for an MCP call, as for a component's ([`super::hooked`]): rewritten
    /// arguments are checked against the tool's schema again.
    async fn before_mcp(
        &self,
        mut prepared: McpCall,
        events: &EventSink,
        cancel: &Cancellation,
    ) -> Result<(McpCall, bool), CompletedCall> {
        if !self.hooks_want_before(&prepared.call.name) {
            return Ok((prepared, false));
        }
        let of = super::hooked::CallOf {
            call: &prepared.call,
            plugin: &prepared.live.server.name,
            kind: Kind::Execute.as_str(),
            arguments: serde_json::Value::Object(prepared.args.clone()),
        };
        let outcome = match self.fire_before(of, events, cancel).await {
            None => return Ok((prepared, false)),
            Some(Err(error)) => return Err(prepared.fail(error, events)),
            Some(Ok(outcome)) => outcome,
        };
        prepared.witness.hooks = outcome.notes.clone();
        if let Some(reason) = outcome.denied() {
            prepared.witness.approval = audited::by_hooks(&outcome.notes);
            return Err(prepared.fail(ToolError::new(ErrorKind::PolicyDenied, reason), events));
        }
        let Some(arguments) = outcome.arguments.clone() else { return Ok((prepared, outcome.asked())) };
        let McpCall { mut call, live, tool, .. } = prepared;
        call.arguments = arguments.to_string();
        match self.validate_mcp(&call, (live, tool), events).await {
            Ok(mut rewritten) => {
                let asked = outcome.asked();
                rewritten.witness.hooks = outcome.notes;
                Ok((rewritten, asked))
            }
            Err(mut done) => {
                done.hooks = outcome.notes;
                Err(done)
            }
        }
    }

    /// What a call of `live`'s tools holds: its server's sandbox, or the remote origin.
    fn mcp_sandbox(&self, live: &Live) -> Held {
        let config = &live.server.config;
        match &config.url {
            Some(url) => remote(url, config.tool_secs(), self.limits.output),
            None => held(&live.server.grant, &self.workspace, config.tool_secs(), self.limits.output),
        }
    }

    /// The question for an MCP call, announced (`awaiting_approval`).
    fn mcp_question(&self, prepared: &McpCall, events: &EventSink) -> ApprovalRequest {
        let McpCall { call, live, tool, args, marker, .. } = prepared;
        let shown = serde_json::Value::Object(args.clone()).to_string();
        let shown = &shown[..shown.floor_char_boundary(2000)];
        let confirmation = Confirmation::Info {
            prompt: format!("Allow {marker} to run its tool `{}` with {shown}?", tool.tool),
            urls: Vec::new(),
        };
        let sandbox = self.mcp_sandbox(live);
        let mut update = CallUpdate::new(&call.id, &call.name, CallStatus::AwaitingApproval);
        update.description = Some(marker.clone());
        update.confirmation = Some(confirmation.clone());
        events.send(Event::ToolCall(Box::new(update)));
        ApprovalRequest {
            call_id: call.id.clone(),
            tool: call.name.clone(),
            description: marker.clone(),
            confirmation,
            path: None,
            writable: sandbox.folders.iter().filter(|f| f.writable).map(|f| f.path.clone()).collect(),
            bound: false,
            sandbox,
            line: None,
        }
    }

    /// Runs an approved MCP call to its end.
    pub(super) async fn execute_mcp(
        &self,
        prepared: McpCall,
        events: &EventSink,
        cancel: &Cancellation,
    ) -> CompletedCall {
        if cancel.is_cancelled() {
            return prepared.cancel("the run was cancelled before this call started", events);
        }
        // A server may write whenever it likes; what a call can offer is its write folders
        // checkpointed around the call.
        let live = prepared.live.clone();
        let taken = self.checkpoint_before(&prepared.call.id, || live.write_folders(), events).await;
        let done = self.run_mcp(prepared, events, cancel, taken.undoable()).await;
        self.checkpoint_after(taken, done, events).await
    }

    /// Runs an approved MCP call on its server's connection (`undoable`: a checkpoint was
    /// taken before it).
    async fn run_mcp(
        &self,
        prepared: McpCall,
        events: &EventSink,
        cancel: &Cancellation,
        undoable: bool,
    ) -> CompletedCall {
        let McpCall { call, live, tool, args, started, marker, witness } = prepared;
        let mut update = CallUpdate::new(&call.id, &call.name, CallStatus::Executing);
        update.description = Some(marker.clone());
        events.send(Event::ToolCall(Box::new(update)));
        let executing = Instant::now();
        let (sender, forwarding) = output::forward_live(&call.id, events);
        let result = match &self.mcp {
            Some(hub) => tokio::select! {
                result = hub.call(&live, &tool, args, Some(sender)) => Some(result),
                () = cancel.cancelled() => None,
            },
            None => Some(Err(McpError::Stopped("no MCP server runs in this session".into()))),
        };
        let live_text = forwarding.drained().await;
        let result = match result {
            None => Err(cancelled()),
            Some(Ok(outcome)) => self.outcome(outcome, &call.id).await,
            Some(Err(error)) => Err(mcp_error(&live.server.name, error)),
        };
        let ending = Ending {
            started: Some(started),
            executing: Some(executing),
            meter: None,
            description: Some(marker),
            live: live_text,
            witness,
            undoable,
        };
        finish_with(&call, result, events, ending)
    }

    /// A server's result as a tool's: an `isError` result a tool error, the rest under the
    /// call's output cap (the whole saved).
    async fn outcome(&self, outcome: CallOutcome, call_id: &str) -> Result<ToolOutput, ToolError> {
        let parts: Vec<ContentPart> = outcome.parts.into_iter().map(content_part).collect();
        let output = ToolOutput { llm_content: parts, display: None };
        let output = output::cap(output, self.limits.output, self.outputs.as_deref(), call_id).await;
        if outcome.is_error {
            return Err(ToolError::new(ErrorKind::Execution, output.llm_text()));
        }
        Ok(output)
    }
}

fn content_part(part: Part) -> ContentPart {
    match part {
        Part::Text(text) => ContentPart::Text { text },
        Part::Media { mime_type, data } => ContentPart::Media { mime_type, bytes: data.len(), data: data.into() },
        Part::Resource { uri, text } => ContentPart::Text { text: format!("[resource {uri}]\n{text}") },
        Part::Link { uri, name, mime_type } => {
            let kind = mime_type.map(|m| format!(", {m}")).unwrap_or_default();
            ContentPart::Text { text: format!("[resource link: {name} <{uri}>{kind}]") }
        }
    }
}

fn mcp_error(server: &str, error: McpError) -> ToolError {
    let kind = match &error {
        McpError::CallTimeout { .. } => ErrorKind::Timeout,
        McpError::Protocol(_) => ErrorKind::PluginFault,
        _ => ErrorKind::Execution,
    };
    ToolError::new(kind, crate::sanitize::line(&format!("MCP server {server}: {error}")))
}

/// What the server's sandbox holds, for the dialog.
fn held(grant: &McpGrant, workspace: &std::path::Path, timeout_secs: u64, output: usize) -> Held {
    let home = crate::mcp::hub::user_home();
    let mut folders = vec![HeldFolder { path: workspace.to_path_buf(), writable: false }];
    let (read, _) = McpGrant::resolve(&grant.read, workspace, home.as_deref());
    folders.extend(read.into_iter().map(|path| HeldFolder { path, writable: false }));
    let (write, _) = McpGrant::resolve(&grant.write, workspace, home.as_deref());
    folders.extend(write.into_iter().map(|path| HeldFolder { path, writable: true }));
    Held {
        folders,
        network: if grant.network { vec!["*".to_owned()] } else { Vec::new() },
        env: grant.env.clone(),
        memory_bytes: 0,
        timeout_secs,
        output_bytes: output as u64,
        commands: Some(super::sandboxing::commands_sandbox(grant.network).replace("programs it starts", "the server")),
    }
}

/// What a call to an HTTP server holds, for the dialog: no folder, no variable; only the
/// server's origin, a remote service outside this machine's sandbox.
fn remote(url: &str, timeout_secs: u64, output: usize) -> Held {
    Held {
        folders: Vec::new(),
        network: vec![crate::mcp::origin(url)],
        env: Vec::new(),
        memory_bytes: 0,
        timeout_secs,
        output_bytes: output as u64,
        commands: Some("a remote service: it runs on its own machine, not in this machine's sandbox".to_owned()),
    }
}

#[cfg(test)]
#[path = "mcp_tests.rs"]
mod tests;
