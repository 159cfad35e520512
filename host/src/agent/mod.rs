//! The agent loop: send the conversation to the model, collect the streamed answer, run
//! the batch of calls it asked for through the scheduler, send the results back, and repeat
//! until the model answers without calls, the turn cap is reached, or the run is cancelled.
//! A cancelled batch still records its responses in history, so a later prompt continues a
//! consistent conversation.

mod prompt;

use std::time::{Duration, Instant};

use crate::cancel::Cancellation;
use crate::events::{CallStatus, Event, EventSink};
use crate::model::{
    FunctionCall, Message, ModelClient, ModelError, ModelEvent, ModelRequest, Part, Role, ToolDeclaration, Usage,
};
use crate::scheduler::{CompletedCall, Scheduler};
pub use prompt::system_prompt;

/// How a run ended.
#[derive(Debug)]
pub enum Outcome {
    /// The model answered without asking for tools.
    Completed,
    /// The model kept calling tools for `max_turns` turns.
    MaxTurns(u32),
    /// The user cancelled the run.
    Cancelled,
    /// The model could not be reached or answered garbage.
    ModelFailed(ModelError),
}

/// What a run produced.
#[derive(Debug)]
pub struct Report {
    pub outcome: Outcome,
    /// All the text the model wrote during the run.
    pub response: String,
    pub calls: Vec<CompletedCall>,
    /// Tokens over all turns.
    pub usage: Usage,
    pub turns: u32,
    pub duration: Duration,
}

/// One conversation with a model.
pub struct Agent {
    client: ModelClient,
    scheduler: Scheduler,
    declarations: Vec<ToolDeclaration>,
    system: String,
    history: Vec<Message>,
    max_turns: u32,
}

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent").field("turns", &self.history.len()).finish_non_exhaustive()
    }
}

impl Agent {
    pub fn new(client: ModelClient, scheduler: Scheduler, system: String, max_turns: u32) -> Self {
        let declarations = scheduler
            .registry()
            .tools()
            .iter()
            .filter(|tool| scheduler.policy().offers(&tool.info))
            .map(|tool| ToolDeclaration {
                name: tool.info.name.clone(),
                description: tool.info.description.clone(),
                parameters: tool.info.parameters.clone(),
            })
            .collect();
        Self { client, scheduler, declarations, system, history: Vec::new(), max_turns }
    }

    pub fn history(&self) -> &[Message] {
        &self.history
    }

    /// Runs one user prompt to its end.
    pub async fn run(&mut self, prompt: &str, events: &EventSink, cancel: &Cancellation) -> Report {
        let started = Instant::now();
        let mut report = Report {
            outcome: Outcome::Completed,
            response: String::new(),
            calls: Vec::new(),
            usage: Usage::default(),
            turns: 0,
            duration: Duration::ZERO,
        };
        self.history.push(Message { role: Role::User, parts: vec![Part::Text { text: prompt.to_string() }] });
        report.outcome = loop {
            if report.turns >= self.max_turns {
                break Outcome::MaxTurns(self.max_turns);
            }
            report.turns += 1;
            events.send(Event::TurnStarted { turn: report.turns });
            let (text, calls, usage) = match self.turn(events, cancel).await {
                Ok(turn) => turn,
                Err(TurnError::Cancelled) => break Outcome::Cancelled,
                Err(TurnError::Model(error)) => break Outcome::ModelFailed(error),
            };
            report.usage.input_tokens += usage.input_tokens;
            report.usage.output_tokens += usage.output_tokens;
            if !text.is_empty() {
                if !report.response.is_empty() && !report.response.ends_with('\n') {
                    report.response.push('\n');
                }
                report.response.push_str(&text);
            }
            let mut parts = Vec::new();
            if !text.is_empty() {
                parts.push(Part::Text { text });
            }
            parts.extend(calls.iter().cloned().map(Part::FunctionCall));
            if !parts.is_empty() {
                self.history.push(Message { role: Role::Model, parts });
            }
            if calls.is_empty() {
                break Outcome::Completed;
            }
            let completed = self.scheduler.run_batch(&calls, events, cancel).await;
            let responses = completed.iter().map(|c| Part::FunctionResponse(c.response())).collect();
            self.history.push(Message { role: Role::User, parts: responses });
            let all_cancelled = completed.iter().all(|c| c.status == CallStatus::Cancelled);
            report.calls.extend(completed);
            if all_cancelled || cancel.is_cancelled() {
                break Outcome::Cancelled;
            }
        };
        report.duration = started.elapsed();
        report
    }

    /// One model request: streams its events out and returns the text, calls and usage.
    async fn turn(
        &self,
        events: &EventSink,
        cancel: &Cancellation,
    ) -> Result<(String, Vec<FunctionCall>, Usage), TurnError> {
        let request = ModelRequest { system: Some(&self.system), messages: &self.history, tools: &self.declarations };
        let mut text = String::new();
        let mut calls = Vec::new();
        let mut usage = Usage::default();
        let mut on_event = |event: ModelEvent| match event {
            ModelEvent::TextDelta(delta) => {
                text.push_str(&delta);
                events.send(Event::Text { delta });
            }
            ModelEvent::Thought(delta) => events.send(Event::Thought { delta }),
            ModelEvent::FunctionCall(call) => calls.push(call),
            ModelEvent::Usage(u) => usage = u,
            ModelEvent::Finished { .. } => {}
            ModelEvent::Retrying { attempt, max, delay, reason } => events.send(Event::Warning {
                message: format!("retrying ({attempt}/{max}) in {:.1}s: {reason}", delay.as_secs_f64()),
            }),
        };
        let streamed = tokio::select! {
            result = self.client.stream(request, &mut on_event) => result,
            () = cancel.cancelled() => return Err(TurnError::Cancelled),
        };
        streamed.map_err(TurnError::Model)?;
        if usage != Usage::default() {
            events.send(Event::Usage(usage));
        }
        Ok((text, calls, usage))
    }
}

enum TurnError {
    Cancelled,
    Model(ModelError),
}
