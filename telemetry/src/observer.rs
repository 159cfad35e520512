//! One session's spans, built from what crosses its door ([`airlock_door::observe`]): the
//! session (`airlock.session`), each user turn (`invoke_agent airlock`), each model request
//! of it (`chat {model}`), each tool call (`execute_tool {name}`, see [`crate::calls`]) and
//! its phases. Every span gets the times the outputs crossed the door, given explicitly.
//!
//! What the outputs do not say is derived, and documented where it is: a model request
//! ends at its token counts (its span is closed when the next request or the turn's end
//! shows whether it asked for tools: `gen_ai.response.finish_reasons` is `tool_calls` or
//! `stop`, `error` for a failed turn); the response model is the session's model.
//!
//! Invariant: an observer only records (span starts and ends, instrument updates, log
//! records); the SDK's processors queue them and export elsewhere.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::SystemTime;

use airlock_door::agent::{Outcome, Report};
use airlock_door::events::Event;
use airlock_door::model::UsageKind;
use airlock_door::observe::Observer;
use airlock_door::{Output, ToolPlugin};
use airlock_protocol::Order;
use opentelemetry::trace::{SpanKind, Status, TraceContextExt, Tracer};
use opentelemetry::{Context, KeyValue};

use crate::calls::Call;
use crate::instruments::Shared;

/// Finds the plugin behind a tool (the session's [`airlock_door::Tools::plugin_of`]).
pub type Plugins = Box<dyn Fn(&str) -> Option<ToolPlugin> + Send>;

/// The agent's name in `gen_ai.agent.name` and the turn spans' names.
const AGENT: &str = "airlock";

/// The observer of one session.
pub struct SessionObserver {
    pub(crate) shared: Arc<Shared>,
    /// The plugin behind a tool, by the tool's name.
    pub(crate) plugins: Plugins,
    /// `gen_ai.conversation.id`, `gen_ai.provider.name`, `gen_ai.request.model`: from the
    /// `init` event.
    pub(crate) conversation: String,
    pub(crate) provider: String,
    pub(crate) model: String,
    session: Option<Context>,
    /// A prompt sent before the session's `init` crossed the door (the two travel apart):
    /// its turn starts under the session once that comes.
    early_prompt: Option<(SystemTime, String)>,
    turn: Option<Turn>,
    pub(crate) calls: HashMap<String, Call>,
}

/// A user turn under way.
struct Turn {
    cx: Context,
    request: Option<Request>,
}

/// A model request under way, or answered and not yet closed.
struct Request {
    cx: Context,
    started: SystemTime,
    /// When its token counts came: the end of its answer.
    answered: Option<SystemTime>,
    asked_for_tools: bool,
}

impl SessionObserver {
    pub fn new(shared: Arc<Shared>, plugins: Plugins) -> Self {
        Self {
            shared,
            plugins,
            conversation: String::new(),
            provider: String::new(),
            model: String::new(),
            session: None,
            early_prompt: None,
            turn: None,
            calls: HashMap::new(),
        }
    }

    /// The context new spans hang under: the current request, else the turn, else the
    /// session.
    pub(crate) fn parent(&self) -> Context {
        match &self.turn {
            Some(Turn { request: Some(request), .. }) => request.cx.clone(),
            Some(turn) => turn.cx.clone(),
            None => self.session.clone().unwrap_or_default(),
        }
    }

    /// The request whose answer asked for a call starting now, marked as having asked.
    pub(crate) fn note_tool_request(&mut self) {
        if let Some(Turn { request: Some(request), .. }) = &mut self.turn {
            request.asked_for_tools = true;
        }
    }

    pub(crate) fn common(&self) -> [KeyValue; 3] {
        [
            KeyValue::new("gen_ai.provider.name", self.provider.clone()),
            KeyValue::new("gen_ai.request.model", self.model.clone()),
            KeyValue::new("gen_ai.conversation.id", self.conversation.clone()),
        ]
    }

    fn session_started(&mut self, at: SystemTime, session_id: &str, provider: &str, model: &str, tools: usize) {
        self.ended(at);
        self.conversation = session_id.to_string();
        self.provider = provider.to_string();
        self.model = model.to_string();
        let mut attributes = self.common().to_vec();
        attributes.push(KeyValue::new("airlock.tools", tools as i64));
        let span = self
            .shared
            .tracer
            .span_builder("airlock.session")
            .with_kind(SpanKind::Internal)
            .with_start_time(self.early_prompt.as_ref().map_or(at, |(early, _)| at.min(*early)))
            .with_attributes(attributes)
            .start_with_context(&self.shared.tracer, &Context::new());
        self.session = Some(Context::new().with_span(span));
        if let Some((early, text)) = self.early_prompt.take() {
            self.prompt(early, &text);
        }
    }

    fn turn_started(&mut self, at: SystemTime) -> &mut Turn {
        let parent = self.session.clone().unwrap_or_default();
        let mut attributes = self.common().to_vec();
        attributes.push(KeyValue::new("gen_ai.operation.name", "invoke_agent"));
        attributes.push(KeyValue::new("gen_ai.agent.name", AGENT));
        let span = self
            .shared
            .tracer
            .span_builder(format!("invoke_agent {AGENT}"))
            .with_kind(SpanKind::Internal)
            .with_start_time(at)
            .with_attributes(attributes)
            .start_with_context(&self.shared.tracer, &parent);
        self.turn.insert(Turn { cx: parent.with_span(span), request: None })
    }

    fn prompt(&mut self, at: SystemTime, text: &str) {
        if self.session.is_none() {
            self.early_prompt = Some((at, text.to_string()));
            return;
        }
        if self.turn.is_none() {
            self.turn_started(at);
        }
        let span = self.turn.as_ref().map(|t| t.cx.span().span_context().clone());
        let attributes = vec![
            KeyValue::new("gen_ai.conversation.id", self.conversation.clone()),
            KeyValue::new("airlock.prompt.length", text.chars().count() as i64),
        ];
        self.shared.event("gen_ai.user.message", at, span.as_ref(), attributes, self.shared.text(text));
    }

    fn request_started(&mut self, at: SystemTime, number: u32) {
        self.request_closed(at, false);
        let mut attributes = self.common().to_vec();
        attributes.push(KeyValue::new("gen_ai.operation.name", "chat"));
        attributes.push(KeyValue::new("airlock.request", i64::from(number)));
        let name = format!("chat {}", self.model);
        let shared = self.shared.clone();
        let turn = match &mut self.turn {
            Some(turn) => turn,
            None => self.turn_started(at),
        };
        let span = shared
            .tracer
            .span_builder(name)
            .with_kind(SpanKind::Client)
            .with_start_time(at)
            .with_attributes(attributes)
            .start_with_context(&shared.tracer, &turn.cx);
        turn.request =
            Some(Request { cx: turn.cx.with_span(span), started: at, answered: None, asked_for_tools: false });
    }

    fn usage(&mut self, at: SystemTime, kind: UsageKind, input: u64, output: u64) {
        let kind_name = match kind {
            UsageKind::Answer => "answer",
            UsageKind::Summary => "summary",
        };
        let mut attributes = self.common()[..2].to_vec();
        attributes.push(KeyValue::new("gen_ai.operation.name", "chat"));
        attributes.push(KeyValue::new("gen_ai.response.model", self.model.clone()));
        attributes.push(KeyValue::new("airlock.request.kind", kind_name));
        for (count, token_type) in [(input, "input"), (output, "output")] {
            let mut attributes = attributes.clone();
            attributes.push(KeyValue::new("gen_ai.token.type", token_type));
            self.shared.tokens.record(count, &attributes);
        }
        if kind == UsageKind::Summary {
            return;
        }
        if let Some(Turn { request: Some(request), .. }) = &mut self.turn {
            let span = request.cx.span();
            span.set_attribute(KeyValue::new("gen_ai.usage.input_tokens", input as i64));
            span.set_attribute(KeyValue::new("gen_ai.usage.output_tokens", output as i64));
            request.answered = Some(at);
        }
    }

    /// Ends the current request's span: at its answer when it came, else at `at`.
    fn request_closed(&mut self, at: SystemTime, failed: bool) {
        let Some(request) = self.turn.as_mut().and_then(|t| t.request.take()) else { return };
        let end = request.answered.unwrap_or(at);
        let reason = match (failed && request.answered.is_none(), request.asked_for_tools) {
            (true, _) => "error",
            (false, true) => "tool_calls",
            (false, false) => "stop",
        };
        let span = request.cx.span();
        span.set_attribute(KeyValue::new("gen_ai.response.model", self.model.clone()));
        span.set_attribute(KeyValue::new(
            "gen_ai.response.finish_reasons",
            opentelemetry::Value::Array(vec![opentelemetry::StringValue::from(reason)].into()),
        ));
        let mut attributes = self.common()[..2].to_vec();
        attributes.push(KeyValue::new("gen_ai.operation.name", "chat"));
        attributes.push(KeyValue::new("gen_ai.response.model", self.model.clone()));
        if reason == "error" {
            span.set_status(Status::error("the model request failed"));
            attributes.push(KeyValue::new("error.type", "model_error"));
        }
        let seconds = end.duration_since(request.started).unwrap_or_default().as_secs_f64();
        self.shared.operation.record(seconds, &attributes);
        self.shared.end(&request.cx, end);
    }

    fn turn_done(&mut self, at: SystemTime, report: &Report) {
        let failed = matches!(report.outcome, Outcome::ModelFailed(_) | Outcome::Unusable(_));
        self.request_closed(at, failed);
        let Some(turn) = self.turn.take() else { return };
        let span = turn.cx.span();
        span.set_attribute(KeyValue::new("gen_ai.usage.input_tokens", report.usage.input_tokens as i64));
        span.set_attribute(KeyValue::new("gen_ai.usage.output_tokens", report.usage.output_tokens as i64));
        span.set_attribute(KeyValue::new("airlock.turn.requests", i64::from(report.turns)));
        span.set_attribute(KeyValue::new("airlock.turn.outcome", outcome(&report.outcome)));
        if let Outcome::ModelFailed(error) = &report.outcome {
            span.set_status(Status::error(crate::instruments::bounded(&error.to_string())));
        }
        let context = span.span_context().clone();
        let attributes = vec![
            KeyValue::new("gen_ai.conversation.id", self.conversation.clone()),
            KeyValue::new("airlock.turn.outcome", outcome(&report.outcome)),
        ];
        self.shared.event("gen_ai.choice", at, Some(&context), attributes, self.shared.text(&report.response));
        self.shared.end(&turn.cx, at);
    }
}

impl Observer for SessionObserver {
    fn order(&mut self, at: SystemTime, order: &Order) {
        if let Order::UserTurn { text, .. } = order {
            self.prompt(at, text);
        }
    }

    fn output(&mut self, at: SystemTime, output: &Output) {
        match output {
            Output::Event(Event::Init { session_id, provider, model, tools, .. }) => {
                self.session_started(at, session_id, provider, model, tools.len());
            }
            Output::Event(Event::TurnStarted { turn }) => self.request_started(at, *turn),
            Output::Event(Event::Usage { kind, usage, .. }) => {
                self.usage(at, *kind, usage.input_tokens, usage.output_tokens)
            }
            Output::Event(Event::ToolCall(update)) => self.call(at, update),
            Output::TurnDone(report) => self.turn_done(at, report),
            _ => {}
        }
    }

    fn ended(&mut self, at: SystemTime) {
        for (_, call) in self.calls.drain() {
            call.abandon(at);
        }
        self.request_closed(at, false);
        if let Some(turn) = self.turn.take() {
            self.shared.end(&turn.cx, at);
        }
        if let Some(session) = self.session.take() {
            self.shared.end(&session, at);
        }
    }
}

/// A turn's outcome as `airlock.turn.outcome`.
fn outcome(outcome: &Outcome) -> &'static str {
    match outcome {
        Outcome::Completed => "completed",
        Outcome::MaxTurns(_) => "max_turns",
        Outcome::LoopDetected(_) => "loop_detected",
        Outcome::Cancelled => "cancelled",
        Outcome::ModelFailed(_) => "model_failed",
        Outcome::Unusable(_) => "unusable",
    }
}
