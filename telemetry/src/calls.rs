//! A tool call's span (`execute_tool {name}`) and its phases (`validating`,
//! `awaiting_approval`, `scheduled`, `executing`, each a child span), built from the call's
//! state changes; at its end, its cost as attributes and metrics, and the log events of its
//! approval (`airlock.tool.decision`) and result (`gen_ai.tool.message`).
//!
//! The approval decision is read from the states a call went through: asked and then run
//! is `approved` (by a person), run without asking is `allowed` (by a rule or the mode),
//! refused by the policy is `denied`, asked and then cancelled is `rejected`. A call that
//! failed before any decision (a bad argument, an unknown tool) has none.

use std::time::SystemTime;

use airlock_door::events::{CallStatus, CallUpdate};
use opentelemetry::trace::{SpanKind, Status, TraceContextExt, Tracer};
use opentelemetry::{Context, KeyValue};

use crate::observer::SessionObserver;

/// A call under way.
pub struct Call {
    cx: Context,
    name: String,
    /// The phase span open now, and its state.
    phase: Option<Context>,
    asked: bool,
    decision: Option<&'static str>,
    shared: std::sync::Arc<crate::instruments::Shared>,
}

impl Call {
    /// Ends what is open at `at` (the session ended under it).
    pub fn abandon(mut self, at: SystemTime) {
        self.close_phase(at);
        self.cx.span().set_status(Status::error("the session ended before the call did"));
        self.shared.end(&self.cx, at);
    }

    fn close_phase(&mut self, at: SystemTime) {
        if let Some(phase) = self.phase.take() {
            self.shared.end(&phase, at);
        }
    }

    fn open_phase(&mut self, at: SystemTime, status: CallStatus) {
        self.close_phase(at);
        let span = self
            .shared
            .tracer
            .span_builder(status.as_str())
            .with_kind(SpanKind::Internal)
            .with_start_time(at)
            .with_attributes([KeyValue::new("airlock.call.phase", status.as_str())])
            .start_with_context(&self.shared.tracer, &self.cx);
        self.phase = Some(self.cx.with_span(span));
    }

    /// Records the decision `decision` once.
    fn decide(&mut self, at: SystemTime, decision: &'static str, conversation: &str) {
        if self.decision.is_some() {
            return;
        }
        self.decision = Some(decision);
        let attributes = [
            KeyValue::new("gen_ai.tool.name", self.name.clone()),
            KeyValue::new("airlock.approval.decision", decision),
        ];
        self.shared.approvals.add(1, &attributes);
        self.cx.span().set_attribute(KeyValue::new("airlock.approval.decision", decision));
        let mut attributes = attributes.to_vec();
        attributes.push(KeyValue::new("gen_ai.conversation.id", conversation.to_string()));
        attributes.push(KeyValue::new("airlock.approval.asked", self.asked));
        let span = self.cx.span().span_context().clone();
        self.shared.event("airlock.tool.decision", at, Some(&span), attributes, None);
    }
}

impl SessionObserver {
    /// A call changed state.
    pub(crate) fn call(&mut self, at: SystemTime, update: &CallUpdate) {
        if update.status == CallStatus::Validating && !self.calls.contains_key(&update.call_id) {
            let call = self.call_started(at, update);
            self.calls.insert(update.call_id.clone(), call);
        }
        let conversation = self.conversation.clone();
        let Some(call) = self.calls.get_mut(&update.call_id) else { return };
        match update.status {
            CallStatus::Validating => {}
            CallStatus::AwaitingApproval => {
                call.asked = true;
                call.open_phase(at, update.status);
            }
            CallStatus::Scheduled | CallStatus::Executing => {
                let decision = if call.asked { "approved" } else { "allowed" };
                call.decide(at, decision, &conversation);
                call.open_phase(at, update.status);
            }
            CallStatus::Success | CallStatus::Error | CallStatus::Cancelled => {
                if let Some(call) = self.calls.remove(&update.call_id) {
                    self.call_ended(at, call, update);
                }
            }
        }
    }

    fn call_started(&mut self, at: SystemTime, update: &CallUpdate) -> Call {
        self.note_tool_request();
        let parent = self.parent();
        let shared = self.shared.clone();
        let mut attributes = vec![
            KeyValue::new("gen_ai.operation.name", "execute_tool"),
            KeyValue::new("gen_ai.tool.name", update.name.clone()),
            KeyValue::new("gen_ai.tool.call.id", update.call_id.clone()),
            KeyValue::new("gen_ai.tool.type", "function"),
            KeyValue::new("gen_ai.conversation.id", self.conversation.clone()),
        ];
        if let Some(plugin) = (self.plugins)(&update.name) {
            attributes.push(KeyValue::new("airlock.plugin", plugin.name));
            attributes.push(KeyValue::new("airlock.plugin.digest", plugin.digest));
            attributes.push(KeyValue::new("airlock.plugin.origin", plugin.origin.as_str()));
        }
        if let Some(args) = update.args.as_ref().and_then(|a| shared.text(&a.to_string())) {
            attributes.push(KeyValue::new("gen_ai.tool.call.arguments", args));
        }
        let span = shared
            .tracer
            .span_builder(format!("execute_tool {}", update.name))
            .with_kind(SpanKind::Internal)
            .with_start_time(at)
            .with_attributes(attributes)
            .start_with_context(&shared.tracer, &parent);
        let mut call = Call {
            cx: parent.with_span(span),
            name: update.name.clone(),
            phase: None,
            asked: false,
            decision: None,
            shared,
        };
        call.open_phase(at, CallStatus::Validating);
        call
    }

    fn call_ended(&mut self, at: SystemTime, mut call: Call, update: &CallUpdate) {
        let error_kind = update.error.as_ref().map(|e| e.kind.as_str());
        match (error_kind, call.asked) {
            (Some("policy_denied"), _) => call.decide(at, "denied", &self.conversation),
            (_, true) if update.status == CallStatus::Cancelled => call.decide(at, "rejected", &self.conversation),
            _ => {}
        }
        call.close_phase(at);
        let span = call.cx.span();
        span.set_attribute(KeyValue::new("airlock.call.status", update.status.as_str()));
        let mut metric = vec![
            KeyValue::new("gen_ai.tool.name", call.name.clone()),
            KeyValue::new("airlock.call.status", update.status.as_str()),
        ];
        if let Some(kind) = error_kind {
            span.set_attribute(KeyValue::new("error.type", kind));
            span.set_status(Status::error(kind));
            metric.push(KeyValue::new("error.type", kind));
        }
        if let Some(cost) = &update.cost {
            span.set_attribute(KeyValue::new("airlock.memory.peak_bytes", cost.peak_memory_bytes as i64));
            span.set_attribute(KeyValue::new("airlock.bytes.read", cost.bytes_read as i64));
            span.set_attribute(KeyValue::new("airlock.bytes.written", cost.bytes_written as i64));
            span.set_attribute(KeyValue::new("airlock.requests", i64::from(cost.network_requests)));
            let tool = [KeyValue::new("gen_ai.tool.name", call.name.clone())];
            self.shared.tool_memory.record(cost.peak_memory_bytes, &tool);
            for (bytes, direction) in [(cost.bytes_read, "read"), (cost.bytes_written, "write")] {
                let mut attributes = tool.to_vec();
                attributes.push(KeyValue::new("airlock.io.direction", direction));
                self.shared.tool_bytes.add(bytes, &attributes);
            }
            self.shared.tool_requests.add(u64::from(cost.network_requests), &tool);
        }
        if let Some(command) = &update.command
            && let Some(code) = command.exit_code
        {
            span.set_attribute(KeyValue::new("airlock.command.exit_code", i64::from(code)));
        }
        if let Some(duration) = update.duration {
            self.shared.tool_duration.record(duration.as_secs_f64(), &metric);
        }
        let result = update.output.as_deref().or(update.error.as_ref().map(|e| e.message.as_str()));
        let body = result.and_then(|text| self.shared.text(text));
        if let Some(body) = &body {
            span.set_attribute(KeyValue::new("gen_ai.tool.call.result", body.clone()));
        }
        let context = span.span_context().clone();
        metric.push(KeyValue::new("gen_ai.tool.call.id", update.call_id.clone()));
        metric.push(KeyValue::new("gen_ai.conversation.id", self.conversation.clone()));
        self.shared.event("gen_ai.tool.message", at, Some(&context), metric, body);
        self.shared.end(&call.cx, at);
    }
}
