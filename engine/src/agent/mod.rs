//! The agent loop: send the conversation to the model, collect the streamed answer, run
//! the batch of calls it asked for through the scheduler, send the results back, and repeat
//! until the model answers without calls, the turn cap is reached, a loop is detected
//! twice, or the run is cancelled. A cancelled batch still records its responses in
//! history, so a later prompt continues a consistent conversation.
//!
//! Invariant: every model message with calls is followed by a user message answering each
//! of them — also for calls that were not run (a detected loop) and, on resume, for calls
//! a crash left unanswered. Every message appended to the history goes through
//! [`Agent::push`], which also records it in the session file.
//!
//! Before each request the history is compressed when it nears the context window
//! ([`compress`]); repeated calls and repeated text are detected ([`loop_detect`]).

mod audit;
mod compress;
pub mod context_files;
mod finish;
mod hooked;
pub use hooked::run_ending;
pub mod loop_detect;
mod media;
mod prompt;
mod prompts;
mod rewound;
pub(crate) mod todos;

use std::collections::HashSet;
use std::time::{Duration, Instant};

use crate::cancel::Cancellation;
use crate::events::{CallStatus, Event, EventSink, Todo};
use crate::scheduler::{CompletedCall, Scheduler};
use crate::session::{Recorder, SessionError};
use airlock_model::{
    FunctionCall, FunctionResponse, History, Media, Message, ModelClient, ModelError, ModelEvent, ModelRequest, Part,
    Role, Stop, ToolDeclaration, Usage, UsageKind,
};
use compress::Anchor;
pub use compress::CompressError;
pub use compress::SUMMARY_PREFIX;
pub use finish::Unusable;
use finish::{Brought, Verdict};
use loop_detect::{CallRepeats, ContentRepeats, Repetition};
pub use prompt::{output_schema_section, system_prompt};

/// Paused answers in a row with nothing in them after which the run ends as unusable.
const MAX_EMPTY_PAUSES: u32 = 3;

/// How a run ended.
#[derive(Debug)]
pub enum Outcome {
    /// The model answered without asking for tools.
    Completed,
    /// The model kept calling tools for `max_turns` turns.
    MaxTurns(u32),
    /// The model kept repeating itself after it was told to change course; says how.
    LoopDetected(String),
    /// The user cancelled the run.
    Cancelled,
    /// The model could not be reached or answered garbage.
    ModelFailed(ModelError),
    /// The model's answer ended in a way that leaves nothing to use (see [`finish`]).
    Unusable(Unusable),
}

/// The token counts of one model request of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TurnUsage {
    /// The run's turn: the response it belongs to, or the one a summary made room for.
    pub turn: u32,
    pub kind: UsageKind,
    pub usage: Usage,
}

/// What a run produced.
#[derive(Debug)]
pub struct Report {
    pub outcome: Outcome,
    /// All the text the model wrote during the run.
    pub response: String,
    pub calls: Vec<CompletedCall>,
    /// Tokens over all requests, summaries included.
    pub usage: Usage,
    /// Tokens per request, in order.
    pub turn_usage: Vec<TurnUsage>,
    pub turns: u32,
    /// How often older history was compressed.
    pub compressions: u32,
    pub duration: Duration,
    /// The model's plan when the run ended (`write_todos`).
    pub todos: Vec<Todo>,
}

impl Default for Report {
    fn default() -> Self {
        Self {
            outcome: Outcome::Completed,
            response: String::new(),
            calls: Vec::new(),
            usage: Usage::default(),
            turn_usage: Vec::new(),
            turns: 0,
            compressions: 0,
            duration: Duration::ZERO,
            todos: Vec::new(),
        }
    }
}

/// How the loop is bounded.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Most model responses per prompt.
    pub max_turns: u32,
    /// Whether repeated calls and text are detected.
    pub loop_detection: bool,
    /// The model's context window, in tokens.
    pub context_window: u64,
    /// The caps on media and the kinds the model takes.
    pub media: crate::media::MediaSettings,
}

/// One conversation with a model.
pub struct Agent {
    /// `None` in a session started without a model: every request fails with
    /// [`ModelError::NoModel`].
    client: Option<ModelClient>,
    scheduler: Scheduler,
    declarations: Vec<ToolDeclaration>,
    system: String,
    /// The conversation, with each message's wire encoding kept once made.
    history: History,
    settings: Settings,
    recorder: Option<Recorder>,
    /// The latest reported token count and what it covers.
    anchor: Option<Anchor>,
    /// Estimated tokens of the system prompt and the tool declarations.
    overhead: u64,
    /// Whether `declarations` were computed (none may be offered: plan mode, rules).
    declared: bool,
    /// The run's turn before which no compression is tried again (after a failure).
    compress_paused_until: u32,
    warned_uncompressible: bool,
    /// The model's latest plan ([`todos`]).
    todos: Vec<Todo>,
    /// The JSON Schema of the final answer (`--output-schema`), sent with every request of
    /// a turn: which response is the last one is only known once it came.
    output_schema: Option<serde_json::Value>,
    /// The session's hooks ([`hooked`]); `None` without any.
    hooks: Option<std::sync::Arc<crate::hooks::Hooks>>,
    /// What hooks added to the context since the last prompt: it joins the next one.
    hook_context: Vec<String>,
    /// The `seq` of the audit trail's head last written into the session file.
    audit_head: Option<u64>,
    /// The user prompts of the conversation so far ([`prompts`]).
    prompts: u32,
}

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent").field("messages", &self.history.len()).finish_non_exhaustive()
    }
}

impl Agent {
    pub fn new(client: Option<ModelClient>, scheduler: Scheduler, system: String, settings: Settings) -> Self {
        let mut agent = Self {
            client,
            scheduler,
            declarations: Vec::new(),
            system,
            history: History::default(),
            settings,
            recorder: None,
            anchor: None,
            overhead: 0,
            declared: false,
            compress_paused_until: 0,
            warned_uncompressible: false,
            todos: Vec::new(),
            output_schema: None,
            hooks: None,
            hook_context: Vec::new(),
            audit_head: None,
            prompts: 0,
        };
        agent.declare_tools();
        agent
    }

    /// The tools offered to the model, as the policy stands now: a front end may change
    /// the approval mode between requests, which changes what is offered.
    fn declare_tools(&mut self) {
        let policy = self.scheduler.policy();
        let declarations: Vec<ToolDeclaration> = self
            .scheduler
            .registry()
            .tools()
            .iter()
            .filter(|tool| policy.offers(&tool.info) && self.scheduler.offers_builtin(tool))
            .map(|tool| ToolDeclaration {
                name: tool.info.name.clone(),
                description: tool.info.description.clone(),
                parameters: tool.info.parameters.clone(),
            })
            // The tools of the MCP servers ready by now.
            .chain(self.scheduler.mcp_declarations().into_iter().map(|tool| ToolDeclaration {
                name: tool.name,
                description: tool.description,
                parameters: tool.parameters,
            }))
            .collect();
        if self.declared && declarations == self.declarations {
            return;
        }
        // The provider's last count covered the old declarations.
        self.anchor = None;
        self.declared = true;
        self.overhead = compress::text_tokens(&self.system)
            + declarations
                .iter()
                .map(|d| {
                    compress::text_tokens(&d.name)
                        + compress::text_tokens(&d.description)
                        + compress::text_tokens(&d.parameters.to_string())
                })
                .sum::<u64>();
        self.declarations = declarations;
    }

    /// Records every message appended from now on with `recorder`, and keeps tool outputs
    /// too long to send whole beside the session file.
    /// The trail of the session recorded to before ends; [`Agent::open_audit`] opens the
    /// new one's.
    /// A new recorder is a new session: its prompts count from 0 ([`Agent::continue_prompts`]
    /// carries a resumed one's on) and its checkpoints name it.
    pub fn record_to(&mut self, recorder: Recorder) {
        self.end_audit();
        self.scheduler.keep_outputs_in(recorder.outputs_dir());
        self.continue_prompts(0);
        if let Some(checkpoints) = self.scheduler.checkpoints() {
            checkpoints.set_session(recorder.id());
        }
        self.recorder = Some(recorder);
    }

    /// Asks for answers that follow `schema` in each request's structured-output field.
    pub fn set_output_schema(&mut self, schema: Option<serde_json::Value>) {
        self.output_schema = schema;
    }

    /// Sends the next requests through `client` (another model of the same provider).
    pub fn set_client(&mut self, client: ModelClient) {
        self.client = Some(client);
    }

    /// The scheduler, to change its tools (the plugin folders changed): the next request
    /// declares them.
    pub fn scheduler_mut(&mut self) -> &mut Scheduler {
        &mut self.scheduler
    }

    /// Continues from a recorded `history`. Calls a crash left unanswered are answered
    /// with an error, so the history is one every provider accepts.
    pub fn resume(&mut self, history: Vec<Message>, events: &EventSink) {
        self.history.replace(history);
        self.anchor = None;
        self.todos.clear();
        if let Some(answers) = unanswered_calls(&self.history) {
            self.push(answers, events);
        }
    }

    /// Takes back the plan a resumed session recorded last (`value` as written), and says
    /// it.
    pub fn restore_todos(&mut self, value: Option<serde_json::Value>, events: &EventSink) {
        if let Some(todos) = value.and_then(todos::from_record) {
            self.todos = todos;
            events.send(Event::Todos { todos: self.todos.clone() });
        }
    }

    /// The model's latest plan.
    pub fn todos(&self) -> &[Todo] {
        &self.todos
    }

    /// Keeps the plan the batch's last `write_todos` call set, records it and reports it.
    fn take_todos(&mut self, completed: &[CompletedCall], events: &EventSink) {
        let builtin = self.scheduler.is_builtin(todos::TOOL);
        let Some(plan) = completed.iter().rev().find_map(|call| todos::from_call(call, builtin)) else { return };
        self.todos = plan;
        if let Some(recorder) = &mut self.recorder
            && let Ok(value) = serde_json::to_value(&self.todos)
            && let Err(error) = recorder.todos(&value)
        {
            self.recording_failed(error, events);
        }
        events.send(Event::Todos { todos: self.todos.clone() });
    }

    /// Records what the batch's cards showed, so a resumed session shows them again.
    fn record_calls(&mut self, completed: &[CompletedCall], events: &EventSink) {
        let Some(recorder) = &mut self.recorder else { return };
        let calls: Vec<crate::session::RecordedCall> = completed.iter().map(crate::session::RecordedCall::of).collect();
        if let Err(error) = recorder.calls(&calls) {
            self.recording_failed(error, events);
        }
        self.write_audit_head(events);
    }

    /// Appends `message` to the history and to the session file.
    fn push(&mut self, message: Message, events: &EventSink) {
        if let Some(recorder) = &mut self.recorder
            && let Err(error) = recorder.message(&message)
        {
            self.recording_failed(error, events);
        }
        self.history.push(message);
    }

    /// Stops recording after a write failed, and says so once.
    fn recording_failed(&mut self, error: SessionError, events: &EventSink) {
        self.recorder = None;
        events.send(Event::Warning { message: format!("{error}; the rest of this session is not recorded") });
    }

    /// Adds one request's token counts to the report, the session file and the events.
    fn account(&mut self, report: &mut Report, turn: u32, kind: UsageKind, usage: Usage, events: &EventSink) {
        if usage == Usage::default() {
            return;
        }
        report.usage.input_tokens += usage.input_tokens;
        report.usage.output_tokens += usage.output_tokens;
        report.turn_usage.push(TurnUsage { turn, kind, usage });
        if let Some(recorder) = &mut self.recorder
            && let Err(error) = recorder.usage(kind, usage)
        {
            self.recording_failed(error, events);
        }
        events.send(Event::Usage { turn, kind, usage });
    }

    /// Runs one user prompt, with the images and PDFs attached to it, to its end.
    pub async fn run(
        &mut self,
        prompt: &str,
        attachments: Vec<Media>,
        events: &EventSink,
        cancel: &Cancellation,
    ) -> Report {
        let started = Instant::now();
        let mut run = Run { report: Report::default(), repeats: CallRepeats::default(), loops: 0, empty_pauses: 0 };
        self.compress_paused_until = 0;
        let context = match self.prompt_submitted(prompt, events).await {
            hooked::Submitted::Send(context) => context,
            hooked::Submitted::Dropped => return run.report,
        };
        self.prompt_started(prompt, events);
        let mut parts = vec![Part::Text { text: prompt.to_string() }];
        parts.extend(context.map(|text| Part::Text { text }));
        let held = media::held(&self.history);
        parts.extend(media::attachments(attachments, &self.settings.media, held).await);
        self.push(Message { role: Role::User, parts }, events);
        let mut continued = 0;
        run.report.outcome = loop {
            match self.next_turn(&mut run, events, cancel).await {
                Some(Outcome::Completed) if self.hooks.is_some() => {
                    let Some(instruction) = self.stopped(continued, events).await else { break Outcome::Completed };
                    continued += 1;
                    self.push(Message { role: Role::User, parts: vec![Part::Text { text: instruction }] }, events);
                }
                Some(outcome) => break outcome,
                None => {}
            }
        };
        run.report.duration = started.elapsed();
        run.report.todos = self.todos.clone();
        run.report
    }

    /// One turn of a run: a model request, then the batch of calls it asked for. `Some`
    /// ends the run with that outcome.
    async fn next_turn(&mut self, run: &mut Run, events: &EventSink, cancel: &Cancellation) -> Option<Outcome> {
        let report = &mut run.report;
        if report.turns >= self.settings.max_turns {
            return Some(Outcome::MaxTurns(self.settings.max_turns));
        }
        self.declare_tools();
        self.scheduler.notice_mcp_starting();
        if let Err(CompressError::Cancelled) = self.compress_if_needed(report.turns + 1, events, cancel, report).await {
            return Some(Outcome::Cancelled);
        }
        report.turns += 1;
        if let Some(recorder) = &mut self.recorder {
            recorder.turn_started();
        }
        events.send(Event::TurnStarted { turn: report.turns });
        let answer = match self.turn(events, cancel).await {
            Ok(answer) => answer,
            Err(TurnError::Cancelled) => return Some(Outcome::Cancelled),
            Err(TurnError::Model(error)) => return Some(Outcome::ModelFailed(error)),
        };
        let turn = report.turns;
        self.account(report, turn, UsageKind::Answer, answer.usage, events);
        let Taken { calls, paused, brought, chanting } = match self.take_answer(answer, report, events) {
            Ok(taken) => taken,
            Err(outcome) => return Some(outcome),
        };
        let repetition = chanting.or_else(|| {
            self.settings.loop_detection.then(|| calls.iter().find_map(|c| run.repeats.observe(c))).flatten()
        });
        if let Some(repetition) = repetition {
            let outcome = self.on_loop(&repetition, &calls, &mut run.loops, events);
            run.repeats.reset();
            return outcome;
        }
        if calls.is_empty() && paused {
            run.empty_pauses = if brought.text { 0 } else { run.empty_pauses + 1 };
            if run.empty_pauses == MAX_EMPTY_PAUSES {
                let reason = format!("paused {MAX_EMPTY_PAUSES} times in a row with nothing in the answer");
                return Some(Outcome::Unusable(Unusable::Empty { reason }));
            }
            events.send(Event::Notice { message: "the provider paused the answer; asking the model to go on".into() });
            return None;
        }
        if calls.is_empty() {
            return Some(Outcome::Completed);
        }
        let completed = self.scheduler.run_batch(&calls, events, cancel).await;
        self.record_calls(&completed, events);
        self.take_todos(&completed, events);
        let mut responses: Vec<FunctionResponse> = completed.iter().map(|c| c.response()).collect();
        media::responses(&mut responses, &self.settings.media, media::held(&self.history)).await;
        let responses = responses.into_iter().map(Part::FunctionResponse).collect();
        self.push(Message { role: Role::User, parts: responses }, events);
        let all_cancelled = completed.iter().all(|c| c.status == CallStatus::Cancelled);
        run.report.calls.extend(completed);
        (all_cancelled || cancel.is_cancelled()).then_some(Outcome::Cancelled)
    }

    /// Takes a model's answer into the run: judges how it ended, adds its text to the
    /// response and its message to the history. `Err` ends the run (an unusable answer).
    fn take_answer(&mut self, answer: Answer, report: &mut Report, events: &EventSink) -> Result<Taken, Outcome> {
        let brought = Brought {
            text: !answer.text.is_empty(),
            calls: !answer.calls.is_empty(),
            earlier: !report.response.is_empty() || !report.calls.is_empty(),
        };
        // A response cut off for chanting never got to its end: the loop check judges it.
        let verdict = match (&answer.chanting, &answer.finish) {
            (None, Some((reason, stop))) => finish::judge(*stop, reason, brought),
            _ => Verdict::Accept { warning: None },
        };
        if !answer.text.is_empty() {
            if !report.response.is_empty() && !report.response.ends_with('\n') {
                report.response.push('\n');
            }
            report.response.push_str(&answer.text);
        }
        let paused = match verdict {
            Verdict::Fail(unusable) => return Err(Outcome::Unusable(unusable)),
            Verdict::Accept { warning } => {
                if let Some(message) = warning {
                    events.send(Event::Warning { message });
                }
                false
            }
            Verdict::Continue => true,
        };
        // A response cut off for chanting is kept without its calls (they were never run),
        // and with its first copy of the repeated passage only: the retry does not pay for
        // the copies again, and the model is not shown its own loop to continue.
        let (calls, text) = match &answer.chanting {
            Some(Repetition::Content { kept, .. }) => {
                (Vec::new(), answer.text[..answer.text.floor_char_boundary(*kept)].to_owned())
            }
            Some(Repetition::Call { .. }) => (Vec::new(), answer.text),
            None => (answer.calls, answer.text),
        };
        let mut parts = Vec::new();
        if !text.is_empty() {
            parts.push(Part::Text { text });
        }
        parts.extend(calls.iter().cloned().map(Part::FunctionCall));
        if !parts.is_empty() {
            self.push(Message { role: Role::Model, parts }, events);
        }
        if answer.usage.input_tokens > 0 {
            let tokens = answer.usage.input_tokens + answer.usage.output_tokens;
            self.anchor = Some(Anchor { covered: self.history.len(), tokens });
        }
        Ok(Taken { calls, paused, brought, chanting: answer.chanting })
    }

    /// Answers the calls of a looping response without running them, then nudges the model
    /// (the first time) or ends the run (the second time).
    fn on_loop(
        &mut self,
        repetition: &Repetition,
        calls: &[FunctionCall],
        loops: &mut u32,
        events: &EventSink,
    ) -> Option<Outcome> {
        if !calls.is_empty() {
            let not_run = calls
                .iter()
                .map(|call| {
                    Part::FunctionResponse(FunctionResponse {
                        id: call.id.clone(),
                        name: call.name.clone(),
                        content: "not run: airlock detected a loop (the same call with the same arguments, again \
                                  and again)"
                            .into(),
                        is_error: true,
                        media: Vec::new(),
                    })
                })
                .collect();
            self.push(Message { role: Role::User, parts: not_run }, events);
        }
        *loops += 1;
        if *loops >= 2 {
            return Some(Outcome::LoopDetected(repetition.describe()));
        }
        events.send(Event::Warning {
            message: format!("loop detected: {}; told the model to change its approach", repetition.describe()),
        });
        self.push(Message { role: Role::User, parts: vec![Part::Text { text: repetition.nudge() }] }, events);
        None
    }

    /// One model request: streams its events out and returns the text, calls and usage.
    /// A response that starts chanting is abandoned at once.
    async fn turn(&self, events: &EventSink, cancel: &Cancellation) -> Result<Answer, TurnError> {
        let request = ModelRequest {
            output_schema: self.output_schema.as_ref(),
            ..self.history.request(Some(&self.system), &self.declarations)
        };
        let mut answer = Answer::default();
        let mut content = self.settings.loop_detection.then(ContentRepeats::default);
        let chanting = tokio::sync::Notify::new();
        let mut on_event = |event: ModelEvent| match event {
            ModelEvent::TextDelta(_) if answer.chanting.is_some() => {}
            ModelEvent::TextDelta(delta) => {
                answer.text.push_str(&delta);
                if let Some(found) = content.as_mut().and_then(|c| c.push(&delta)) {
                    answer.chanting = Some(found);
                    chanting.notify_one();
                }
                events.send(Event::Text { delta });
            }
            ModelEvent::Thought(delta) => events.send(Event::Thought { delta }),
            ModelEvent::FunctionCall(call) => answer.calls.push(call),
            ModelEvent::Usage(u) => answer.usage = u,
            ModelEvent::Finished { reason, stop } => answer.finish = Some((reason, stop)),
            ModelEvent::Retrying { attempt, max, delay, reason } => events.send(Event::Warning {
                message: format!("retrying ({attempt}/{max}) in {:.1}s: {reason}", delay.as_secs_f64()),
            }),
        };
        let Some(client) = &self.client else {
            return Err(TurnError::Model(ModelError::NoModel));
        };
        let streamed = tokio::select! {
            result = client.stream(request, &mut on_event) => result,
            () = chanting.notified() => Ok(()),
            () = cancel.cancelled() => return Err(TurnError::Cancelled),
        };
        streamed.map_err(TurnError::Model)?;
        Ok(answer)
    }
}

/// What one model response brought.
/// What one run keeps from turn to turn.
struct Run {
    report: Report,
    repeats: CallRepeats,
    /// Loops detected so far: the first is answered with a nudge, the second ends the run.
    loops: u32,
    /// Paused answers in a row that brought nothing: a provider that keeps pausing with
    /// nothing to show would otherwise run to `--max-turns`, reported as tool calls.
    empty_pauses: u32,
}

/// A model's answer once taken into the run.
struct Taken {
    /// The calls to run (none when the answer was cut off for chanting).
    calls: Vec<FunctionCall>,
    /// The provider paused the answer: the model is asked to go on.
    paused: bool,
    brought: Brought,
    chanting: Option<Repetition>,
}

#[derive(Debug, Default)]
struct Answer {
    text: String,
    calls: Vec<FunctionCall>,
    usage: Usage,
    /// Set when the response was cut off for repeating itself.
    chanting: Option<Repetition>,
    /// The provider's finish reason and what it means, once the response ended.
    finish: Option<(String, Stop)>,
}

enum TurnError {
    Cancelled,
    Model(ModelError),
}

/// Error answers to the calls of the last model message that no later message answers.
fn unanswered_calls(history: &[Message]) -> Option<Message> {
    let last_model = history.iter().rposition(|m| m.role == Role::Model)?;
    let answered: HashSet<&str> = history[last_model + 1..]
        .iter()
        .flat_map(|m| &m.parts)
        .filter_map(|p| match p {
            Part::FunctionResponse(r) => Some(r.id.as_str()),
            _ => None,
        })
        .collect();
    let parts: Vec<Part> = history[last_model]
        .parts
        .iter()
        .filter_map(|p| match p {
            Part::FunctionCall(call) if !answered.contains(call.id.as_str()) => {
                Some(Part::FunctionResponse(FunctionResponse {
                    id: call.id.clone(),
                    name: call.name.clone(),
                    content: "not run: the session ended before this call finished".into(),
                    is_error: true,
                    media: Vec::new(),
                }))
            }
            _ => None,
        })
        .collect();
    (!parts.is_empty()).then_some(Message { role: Role::User, parts })
}

#[cfg(test)]
#[path = "mod_tests.rs"]
mod tests;
