//! The scheduler's hooks: `before_tool` between validation and the policy's verdict, and
//! `after_tool` once a call ended.
//!
//! Invariants:
//! - a session without hooks builds no hook event and allocates nothing per call here;
//! - a hook's `deny` ends the call with `PolicyDenied` naming the hook and its reason; its
//!   `ask` only turns the policy's `allow` into a question ([`Scheduler::approve`] applies the
//!   policy's verdict after the hooks', so no reply makes a denied call run or skips a
//!   question);
//! - rewritten arguments go through the whole validation again ([`Scheduler::prepare`]), so
//!   the confirmation a person sees is the rewritten call's; a rewrite never changes the tool;
//! - what hooks added to the model's context joins the call's result.

use std::sync::Arc;

use super::call::Prepared;
use super::finish::cancelled;
use super::{CompletedCall, Scheduler};
use crate::cancel::Cancellation;
use crate::contract::{ContentPart, ErrorKind, ToolError};
use crate::events::{CallStatus, EventSink};
use crate::hooks::{HookAction, HookEventName, HookTool, Hooks, Outcome, dispatch};
use airlock_model::FunctionCall;

/// The longest part of a call's output an `after_tool` hook is shown.
const MAX_OUTPUT_SHOWN: usize = 16 * 1024;

/// What a call is, for its `before_tool` event.
pub(super) struct CallOf<'a> {
    pub call: &'a FunctionCall,
    pub plugin: &'a str,
    pub kind: &'a str,
    pub arguments: serde_json::Value,
}

impl Scheduler {
    /// Runs the session's `hooks` from now on (none: no hook runs and none is built).
    pub fn set_hooks(&mut self, hooks: Arc<Hooks>) {
        self.hooks = (!hooks.is_empty()).then_some(hooks);
    }

    /// The hooks that want `event` for the tool `name`, if any.
    fn hooks_for(&self, event: HookEventName, name: &str) -> Option<&Arc<Hooks>> {
        self.hooks.as_ref().filter(|hooks| hooks.wants(event, Some(name)))
    }

    /// `notification` that a question waits for the person: run beside the question, so a
    /// slow hook never holds it back.
    pub(super) fn notify_question(&self, tool: &str, description: &str, events: &EventSink) {
        let Some(hooks) = self.hooks.as_ref().filter(|hooks| hooks.wants(HookEventName::Notification, None)) else {
            return;
        };
        let mut event = hooks.event(HookEventName::Notification, self.policy.mode().as_str());
        event.message = Some(format!("airlock asks for your approval: {tool} ({description})"));
        let (hooks, events) = (Arc::clone(hooks), events.clone());
        tokio::spawn(async move { hooks.fire(event, &events).await });
    }

    /// Whether a hook wants `before_tool` for the tool `name`.
    pub(super) fn hooks_want_before(&self, name: &str) -> bool {
        self.hooks_for(HookEventName::BeforeTool, name).is_some()
    }

    /// Runs `before_tool` for a call, when a hook wants it. `None` when none does, or when
    /// the run was cancelled meanwhile.
    pub(super) async fn fire_before(
        &self,
        of: CallOf<'_>,
        events: &EventSink,
        cancel: &Cancellation,
    ) -> Option<Result<Outcome, ToolError>> {
        let hooks = self.hooks_for(HookEventName::BeforeTool, &of.call.name)?;
        let mut event = hooks.event(HookEventName::BeforeTool, self.policy.mode().as_str());
        event.tool = Some(HookTool {
            call_id: of.call.id.clone(),
            name: of.call.name.clone(),
            plugin: of.plugin.to_string(),
            kind: of.kind.to_string(),
            arguments: of.arguments,
            status: None,
            output: None,
        });
        Some(tokio::select! {
            outcome = hooks.fire(event, events) => Ok(outcome),
            () = cancel.cancelled() => Err(cancelled()),
        })
    }

    /// `before_tool` for a component's call: the call as the hooks left it, and whether one
    /// asked for the person's approval; or its end, when one refused or the rewrite failed.
    pub(super) async fn before_tool(
        &self,
        mut prepared: Prepared,
        events: &EventSink,
        cancel: &Cancellation,
    ) -> Result<(Prepared, bool), CompletedCall> {
        let arguments = match self.hooks_for(HookEventName::BeforeTool, &prepared.call.name) {
            Some(_) => super::validation::parse_args(&prepared.args).unwrap_or_default(),
            None => return Ok((prepared, false)),
        };
        let of = CallOf {
            call: &prepared.call,
            plugin: &prepared.tool.plugin.info.name,
            kind: prepared.tool.info.kind.as_str(),
            arguments,
        };
        let outcome = match self.fire_before(of, events, cancel).await {
            None => return Ok((prepared, false)),
            Some(Err(error)) => return Err(prepared.fail(error, events)),
            Some(Ok(outcome)) => outcome,
        };
        prepared.hooks.extend(outcome.notes.iter().cloned());
        if let Some(reason) = outcome.denied() {
            prepared.witness.approval = super::audited::by_hooks(&outcome.notes);
            return Err(prepared.fail(ToolError::new(ErrorKind::PolicyDenied, reason), events));
        }
        if let Some(arguments) = outcome.arguments.clone() {
            prepared = self.rewritten(prepared, arguments, events, cancel).await?;
        }
        Ok((prepared, outcome.asked()))
    }

    /// The call validated again with a hook's `arguments`, from the schema on.
    async fn rewritten(
        &self,
        prepared: Prepared,
        arguments: serde_json::Value,
        events: &EventSink,
        cancel: &Cancellation,
    ) -> Result<Prepared, CompletedCall> {
        if !arguments.is_object() {
            let error = ToolError::new(
                ErrorKind::InvalidParams,
                "a hook rewrote the arguments into something other than a JSON object",
            );
            return Err(prepared.fail(error, events));
        }
        let Prepared { mut call, tool, started, hooks, kept, .. } = prepared;
        // The check instance held the model's arguments; the rewritten call gets its own.
        drop(kept);
        call.arguments = arguments.to_string();
        match self.prepare(tool, &call, arguments, started, events, cancel).await {
            Ok(mut prepared) => {
                prepared.hooks = hooks;
                Ok(prepared)
            }
            Err(mut done) => {
                done.hooks = hooks;
                Err(done)
            }
        }
    }

    /// Runs `after_tool` for each ended call a hook wants, and adds what hooks gave the model
    /// (here and at `before_tool`) to each call's result.
    pub(super) async fn after_tools(&self, done: &mut [CompletedCall], events: &EventSink) {
        let Some(hooks) = &self.hooks else { return };
        for call in done {
            if hooks.wants(HookEventName::AfterTool, Some(&call.call.name)) {
                let outcome = self.fire_after(hooks, call, events).await;
                call.hooks.extend(outcome.notes);
            }
            add_context(call);
        }
    }

    async fn fire_after(&self, hooks: &Hooks, done: &CompletedCall, events: &EventSink) -> Outcome {
        let output = done.response().content;
        let (plugin, kind) = match self.registry.get(&done.call.name) {
            Some(tool) => (tool.plugin.info.name.clone(), tool.info.kind.as_str().to_string()),
            None => (String::new(), String::new()),
        };
        let mut event = hooks.event(HookEventName::AfterTool, self.policy.mode().as_str());
        event.tool = Some(HookTool {
            call_id: done.call.id.clone(),
            name: done.call.name.clone(),
            plugin,
            kind,
            arguments: super::validation::parse_args(&done.call.arguments).unwrap_or_default(),
            status: Some(wire_status(done.status)),
            output: Some(output[..output.floor_char_boundary(MAX_OUTPUT_SHOWN)].to_string()),
        });
        hooks.fire(event, events).await
    }
}

/// Adds the context hooks gave at `before_tool` and `after_tool` to what the model reads of
/// the call.
fn add_context(call: &mut CompletedCall) {
    let mut added = call.hooks.iter().filter(|note| note.action == HookAction::AddedContext).peekable();
    if added.peek().is_none() {
        return;
    }
    let text = added.map(dispatch::context_of).collect::<Vec<_>>().join("\n");
    match &mut call.result {
        Ok(output) => output.llm_content.push(ContentPart::Text { text }),
        Err(error) => {
            error.message.push('\n');
            error.message.push_str(&text);
        }
    }
}

fn wire_status(status: CallStatus) -> airlock_protocol::event::CallStatus {
    use airlock_protocol::event::CallStatus as Wire;
    match status {
        CallStatus::Validating => Wire::Validating,
        CallStatus::AwaitingApproval => Wire::AwaitingApproval,
        CallStatus::Scheduled => Wire::Scheduled,
        CallStatus::Executing => Wire::Executing,
        CallStatus::Success => Wire::Success,
        CallStatus::Error => Wire::Error,
        CallStatus::Cancelled => Wire::Cancelled,
    }
}

#[cfg(test)]
#[path = "hooked_tests.rs"]
mod tests;
