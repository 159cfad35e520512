//! The validating step: a call's tool looked up and offered, its arguments parsed and
//! checked against the tool's schema, then the plugin's `validate`, `describe-call` and
//! `confirm` run in one read-only instance. Runs for all the calls of a batch at once; what
//! passes waits for approval ([`super::approval`]) as a [`Prepared`] call, the rest ends here.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use super::audited::Witness;
use super::bound::BoundEdit;
use super::call::Prepared;
use super::finish::{cancelled, fault_error, finish, finish_metered};
use super::sandboxing::{Access, EditTarget, InstanceOf, Writes};
use super::{CompletedCall, Scheduler};
use crate::cancel::Cancellation;
use crate::capability::Phase;
use crate::contract::{Confirmation, ErrorKind, ToolError};
use crate::events::{CallStatus, CallUpdate, Event, EventSink};
use crate::policy::Verdict;
use crate::policy::rules::CallFacts;
use crate::registry::{ArgsProblem, Origin, RegisteredTool};
use crate::runtime::Instance;
use airlock_model::FunctionCall;

/// The outcome of validation: a call to approve, or one that already ended.
pub(super) enum Validated {
    Pending(Box<Prepared>),
    /// A call of an MCP server's tool ([`super::mcp`]).
    Mcp(Box<super::mcp::McpCall>),
    Done(Box<CompletedCall>),
}

impl Scheduler {
    /// Says that `call` enters `validating`, with its arguments. The batch says it for all its
    /// calls in their order before validating any, so front ends see them in that order.
    pub(super) fn validating(call: &FunctionCall, events: &EventSink) {
        let mut update = CallUpdate::new(&call.id, &call.name, CallStatus::Validating);
        let parsed = parse_args(&call.arguments).ok();
        update.args = Some(parsed.unwrap_or_else(|| serde_json::Value::String(call.arguments.clone())));
        events.send(Event::ToolCall(Box::new(update)));
    }

    /// Takes a call through `validating` ([`Scheduler::validating`] said so): to a
    /// [`Prepared`] call, or to its end.
    pub(super) async fn validate(&self, call: &FunctionCall, events: &EventSink, cancel: &Cancellation) -> Validated {
        let started = Instant::now();
        let parsed = parse_args(&call.arguments);
        let fail =
            |error: ToolError| Validated::Done(Box::new(finish(call, started, Err(error), events, self.witness())));

        let Some(tool) = self.registry.get(&call.name).cloned() else {
            if let Some(found) = self.mcp_tool(&call.name) {
                return match self.validate_mcp(call, found, events).await {
                    Ok(mcp) => Validated::Mcp(Box::new(mcp)),
                    Err(done) => Validated::Done(Box::new(done)),
                };
            }
            return fail(self.unknown_tool(&call.name));
        };
        if !self.policy.offers(&tool.info) || !self.offers_builtin(&tool) {
            let verdict =
                self.policy.verdict(&tool.info, &CallFacts { tool: &call.name, ..CallFacts::default() }, None);
            let message = match verdict {
                Verdict::Deny(message) => message,
                _ => format!("`{}` is not available in this session", call.name),
            };
            return fail(ToolError::new(ErrorKind::PolicyDenied, message));
        }
        let args = match parsed {
            Ok(args) => args,
            Err(reason) => return fail(ToolError::new(ErrorKind::InvalidParams, reason)),
        };
        match self.prepare(tool, call, args, started, events, cancel).await {
            Ok(prepared) => Validated::Pending(Box::new(prepared)),
            Err(done) => Validated::Done(Box::new(done)),
        }
    }

    /// The checks of a call's parsed arguments, from the tool's schema on: the plugin's
    /// `validate`, `describe-call` and `confirm`, and what the call may write. A hook's
    /// rewrite of the arguments goes through here again.
    pub(super) async fn prepare(
        &self,
        tool: Arc<RegisteredTool>,
        call: &FunctionCall,
        args: serde_json::Value,
        started: Instant,
        events: &EventSink,
        cancel: &Cancellation,
    ) -> Result<Prepared, CompletedCall> {
        let fail = |error: ToolError| finish(call, started, Err(error), events, self.witness());
        if let Err(error) = check_schema(&tool, &args).await {
            return Err(fail(error));
        }
        let args = args.to_string();
        if cancel.is_cancelled() {
            return Err(fail(cancelled()));
        }
        let (effective, limits) = self.policy.access(&tool.plugin, &tool.info, self.limits);
        let access = Access { effective, limits, meter: Arc::default() };
        let mut witness = Witness::plugin(self.audit.get(), &tool, &access);
        witness.set_args(&args);
        self.warn_missing(&tool, &access.effective, events);
        let (instance, description, confirmation) = match self.check(&tool, call, &args, &access, cancel).await {
            Ok(checked) => checked,
            Err(error) => return Err(finish_metered(call, started, Err(error), events, Some(&access.meter), witness)),
        };

        let writes = match self.writes(&tool, &access, confirmation.as_ref()) {
            Ok(writes) => writes,
            Err(message) => {
                let error = Err(ToolError::new(ErrorKind::PolicyDenied, message));
                return Err(finish_metered(call, started, error, events, Some(&access.meter), witness));
            }
        };
        let kept =
            self.keep_for_execution(instance, InstanceOf { tool: &tool, call, access: &access, cancel }, &writes);
        let path = touched_path(confirmation.as_ref(), &args, &self.workspace, tool.info.kind.is_read_only());
        Ok(Prepared {
            call: call.clone(),
            tool,
            args,
            started,
            description,
            confirmation,
            path,
            writes,
            access,
            kept,
            modified: false,
            approved_line: None,
            hooks: Vec::new(),
            witness,
        })
    }

    /// What the call may write once approved, from its confirmation: an edit binds it to the
    /// file shown — a built-in writes that file's folder itself, a third-party plugin's edit
    /// is applied by the host ([`BoundEdit`]); any other call writes what its grant allows.
    /// An error when the edit cannot be bound.
    fn writes(
        &self,
        tool: &RegisteredTool,
        access: &Access,
        confirmation: Option<&Confirmation>,
    ) -> Result<Writes, String> {
        let Some(Confirmation::Edit { path, original, proposed, .. }) = confirmation else {
            return Ok(Writes::Grant);
        };
        let Some(target) = EditTarget::resolve(&self.workspace, path) else { return Ok(Writes::Nothing) };
        if tool.plugin.source.origin == Origin::Builtin {
            return Ok(Writes::Edit(target));
        }
        if !access.effective.may_write(&tool.info, &target.dir) {
            return Ok(Writes::Nothing);
        }
        BoundEdit::new(target, original, proposed).map(|bound| Writes::Bound(Box::new(bound)))
    }

    /// validate, describe-call and confirm, in one read-only instance (returned with their
    /// answers: it may serve the execution too).
    async fn check(
        &self,
        tool: &RegisteredTool,
        call: &FunctionCall,
        args: &str,
        access: &Access,
        cancel: &Cancellation,
    ) -> Result<(Instance, String, Option<Confirmation>), ToolError> {
        let mut instance = self.instance(InstanceOf { tool, call, access, cancel }, Phase::Check).await?;
        let name = &tool.info.name;
        instance.validate(name, args).await.map_err(|f| fault_error(tool, f))??;
        let description = one_line(&instance.describe_call(name, args).await.map_err(|f| fault_error(tool, f))?);
        let confirmation = instance.confirm(name, args).await.map_err(|f| fault_error(tool, f))??;
        Ok((instance, description, confirmation))
    }

    /// Rebuilds the arguments of an edit the user changed, and checks them again.
    pub(super) async fn modify(
        &self,
        tool: &Arc<RegisteredTool>,
        call: &FunctionCall,
        args: &str,
        proposed: &str,
        access: &Access,
        cancel: &Cancellation,
    ) -> Result<String, ToolError> {
        let mut instance = self.instance(InstanceOf { tool, call, access, cancel }, Phase::Check).await?;
        let name = &tool.info.name;
        let new_args = instance.modify_args(name, args, proposed).await.map_err(|f| fault_error(tool, f))??;
        let parsed = parse_args(&new_args).map_err(|reason| {
            ToolError::new(ErrorKind::PluginFault, format!("`{name}` rebuilt unusable arguments: {reason}"))
        })?;
        check_schema(tool, &parsed).await?;
        let new_args = parsed.to_string();
        instance.validate(name, &new_args).await.map_err(|f| fault_error(tool, f))??;
        Ok(new_args)
    }

    fn unknown_tool(&self, name: &str) -> ToolError {
        let available: Vec<String> = self
            .registry
            .tools()
            .iter()
            .filter(|t| self.policy.offers(&t.info))
            .map(|t| t.info.name.clone())
            .chain(self.mcp.iter().flat_map(|hub| hub.offered()).map(|(_, tool)| tool.name))
            .collect();
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

/// Longest argument validation of one call. Load-time bounds keep schemas cheap; this is the
/// backstop, and it keeps validation off the async runtime.
const ARGS_DEADLINE: std::time::Duration = std::time::Duration::from_secs(2);

/// Checks arguments against the tool's JSON Schema, off the runtime and within [`ARGS_DEADLINE`].
async fn check_schema(tool: &Arc<RegisteredTool>, args: &serde_json::Value) -> Result<(), ToolError> {
    tool.check_args_within(args, ARGS_DEADLINE).await.map_err(|problem| match problem {
        ArgsProblem::Invalid(problems) => ToolError::new(
            ErrorKind::InvalidParams,
            format!("the arguments of `{}` do not match its schema: {problems}", tool.info.name),
        ),
        ArgsProblem::Unusable(reason) => {
            ToolError::new(ErrorKind::PluginFault, format!("`{}` cannot check its arguments: {reason}", tool.info.name))
        }
    })
}

/// The path a call touches, for rules: the edit's file, else — for a read-only tool — a
/// `file_path`, `dir_path` or `path` argument. A mutating call that shows no edit touches no
/// path a rule could name: its arguments say nothing about what it will write, so only a
/// rule for the whole tool can approve it. Canonical — links followed, so
/// `docs/sym -> ../src` makes `docs/sym/x` the path `src/x` that a `docs/**` rule does not
/// match — and workspace-relative when inside the workspace.
fn touched_path(confirmation: Option<&Confirmation>, args: &str, workspace: &Path, read_only: bool) -> Option<String> {
    let raw = match confirmation {
        Some(Confirmation::Edit { path, .. }) => path.clone(),
        _ if !read_only => return None,
        _ => {
            let args: serde_json::Value = serde_json::from_str(args).ok()?;
            ["file_path", "dir_path", "path"].iter().find_map(|key| args.get(*key)?.as_str().map(str::to_string))?
        }
    };
    let canonical = airlock_files::canonical_lenient(&workspace.join(&raw));
    Some(match canonical.strip_prefix(workspace) {
        Ok(relative) if relative.as_os_str().is_empty() => ".".to_string(),
        Ok(relative) => relative.to_string_lossy().into_owned(),
        Err(_) => canonical.to_string_lossy().into_owned(),
    })
}

/// Parses the model's arguments: a JSON object (an empty string counts as `{}`).
pub(super) fn parse_args(text: &str) -> Result<serde_json::Value, String> {
    if text.trim().is_empty() {
        return Ok(serde_json::Value::Object(serde_json::Map::new()));
    }
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(value @ serde_json::Value::Object(_)) => Ok(value),
        Ok(_) => Err("the arguments must be a JSON object".into()),
        Err(error) => Err(format!("the arguments are not valid JSON ({error}); send a JSON object")),
    }
}

fn one_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default().trim();
    line[..line.floor_char_boundary(200)].to_string()
}

#[cfg(test)]
#[path = "validation_tests.rs"]
mod tests;
