//! The engine: the one door every front end walks through (the headless printer today, the
//! TUI and an MCP server next). [`Session::start`] wires the runtime, the plugin registry,
//! the policy, the scheduler, the agent loop and the session recorder, sends every start-up
//! event, and returns the session and its stream of [`Output`]s. From then on a front end
//! only sends orders ([`Op`]) and reads outputs — the way codex-rs's core takes `Op`s and
//! gives events. Nothing here prints, reads a terminal or knows which front end it serves.
//!
//! Invariants:
//! - Outputs arrive in the order things happened, on one stream: a call's
//!   `awaiting_approval` update comes before its [`Question`], and a turn's events before
//!   its [`Output::TurnDone`].
//! - One user turn runs at a time, and every [`Op::UserTurn`] a shutdown does not drop gets
//!   exactly one [`Output::TurnDone`]. While a turn runs, [`Op::Interrupt`], [`Op::Approve`] and
//!   [`Op::SetMode`] act at once; [`Op::UserTurn`], [`Op::Compress`] and [`Op::Resume`]
//!   wait, in the order sent, until it ends.
//! - [`Op::Interrupt`] stops everything sent before it: the running work, and the put-off
//!   orders (each turn among them still ends, cancelled, with an [`Output::TurnDone`]).
//!   Nothing sent after it is touched; sent while nothing runs or waits, it does nothing.
//! - Only a front end's order answers a question, each question's id is the engine's own,
//!   and an answer is a choice among what the question offers (see [`questions`]): nothing
//!   the model sends can approve a call, widen what "always" covers, or change the mode.
//! - A mode change applies to the calls not yet decided and to the next model request.
//! - [`Op::Shutdown`], dropping the [`Session`], or every order sender gone, cancels what
//!   runs, drops the orders put off, and ends the stream.

mod calls;
mod custom;
mod questions;
mod reload;
mod rewind;
mod start;

use std::collections::VecDeque;
use std::future::Future;
use std::sync::Arc;

use tokio::sync::mpsc;

use crate::agent::{Agent, Outcome, Report};
pub use crate::cancel::Cancellation;
use crate::events::{Event, EventSink};
use crate::paths::Paths;
use crate::policy::{ApprovalMode, Policy};
pub use crate::policy::{GrantOutcome as GrantAnswer, GrantRequest};
use crate::registry::Registry;
/// Told of each component compiled while the tools load (a line for people).
pub use crate::runtime::Announce;
use crate::session;
pub use airlock_model::Media;
pub use calls::Call;
pub use custom::CustomCommands;
use questions::Questions;
pub use questions::{Answer, AnswerError, Question};
pub use start::{Info, NO_MODEL, PromptSettings, Settings, StartError, Tools};

/// An order from a front end.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    /// Run a user prompt to its end; answered by [`Output::TurnDone`]. `attachments` are
    /// the images and PDFs sent with it.
    UserTurn { text: String, attachments: Vec<Media> },
    /// Cancel the running work (the model stream is dropped, running calls stop at their
    /// next epoch tick) and the put-off orders sent before this one.
    Interrupt,
    /// The user's answer to question `id`.
    Approve { id: u64, answer: Answer },
    /// Change the approval mode for the following calls and model requests.
    SetMode(ApprovalMode),
    /// Summarise older history now (a notice or warning says what came of it; the
    /// summary's tokens are reported as usage of turn 0).
    Compress,
    /// Continue a recorded session (`latest`, an id or the start of one) in place of the
    /// current conversation; from then on that session's file records. A new `init` event
    /// names it, or a warning says why it could not be resumed.
    Resume { session: String },
    /// The user's answer to grant question `id` ([`Output::Grant`]).
    Grant { id: u64, answer: GrantAnswer },
    /// Use `model` (of the same provider) from the next turn on: put off like
    /// [`Op::Resume`] while a turn runs, so one turn never mixes two models. A `model: NAME`
    /// notice says it took; a warning says why not (an empty name, control characters,
    /// over 200 chars, or a client that cannot be built).
    SetModel { model: String },
    /// Start a new, empty conversation recorded to a new session file; a new `init` event
    /// names it.
    NewSession,
    /// Load the plugin folders anew (the engine watches them and sends this itself when a
    /// `.wasm` is added, replaced or removed; a front end may send it too). Put off until the
    /// running turn ends; notices say what changed, a plugin problem what failed to load.
    ReloadPlugins,
    /// Let the built-in tools read a folder outside the workspace for the rest of the
    /// session (`DIR`, `DIR:read`), or also write it (`DIR:read-write`, each write asked
    /// about): a person's order, never the model's. Acts at once; a notice says what was
    /// added, a warning why not ([`Policy::add_folder`]).
    AddDir { folder: String },
    /// List the session's user prompts with what each changed: an
    /// [`Event::RewindTurns`] answers. Put off while a turn runs.
    RewindTurns,
    /// Rewind to `target` ([`crate::rewind`]): with `apply` false an [`Event::RewindPlan`]
    /// says what it would restore; with `apply` it restores `what` — files changed outside
    /// airlock since its last checkpoint of them only with `overwrite_changed` — and an
    /// [`Event::Rewound`] says what it did (or a warning why not). Put off while a turn runs.
    Rewind {
        target: airlock_protocol::RewindTarget,
        what: airlock_protocol::RestoreWhat,
        apply: bool,
        overwrite_changed: bool,
    },
    /// Cancel what runs and end the session.
    Shutdown,
}

/// A call failed for want of something its plugin requested and the user never granted:
/// the front end may offer it. Only a person's answer ([`Op::Grant`]) grants it.
#[derive(Debug, Clone, PartialEq)]
pub struct GrantQuestion {
    /// The engine's number for this question (from the same counter as [`Question`]s).
    pub id: u64,
    /// The call, its plugin, what would be granted and the file "always" writes.
    pub request: GrantRequest,
}

/// What the engine tells its front end.
#[derive(Debug)]
pub enum Output {
    /// Something happened (the events `-o stream-json` prints).
    Event(Event),
    /// A call waits for the user: answer with [`Op::Approve`] and this id.
    Question(Box<Question>),
    /// Question `id` no longer waits (its call was cancelled): close its dialog.
    Withdrawn { id: u64 },
    /// A call failed for want of an ungranted request: answer with [`Op::Grant`] and this
    /// id (headless front ends answer [`GrantAnswer::No`]).
    Grant(Box<GrantQuestion>),
    /// A user turn ended: what it produced.
    TurnDone(Box<Report>),
    /// A session was resumed: its conversation so far, for front ends that show a
    /// transcript (the headless one does not). Sent after the resume's `init` and notices.
    Replay(Arc<Replay>),
}

/// A resumed session as a front end shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Replay {
    /// The conversation so far.
    pub messages: Vec<airlock_model::Message>,
    /// What the cards of its calls showed, where the session file recorded them.
    pub calls: Vec<crate::session::RecordedCall>,
    /// Its token counts so far.
    pub tokens: crate::session::Tokens,
}

impl Replay {
    /// The replay of `opened`, whose history the agent takes.
    pub(crate) fn of(opened: &mut crate::session::Opened) -> Arc<Self> {
        Arc::new(Self {
            messages: opened.history.clone(),
            calls: std::mem::take(&mut opened.calls),
            tokens: opened.tokens,
        })
    }
}

/// The sending side of a session's output stream.
#[derive(Debug, Clone)]
struct Outputs(mpsc::UnboundedSender<Output>);

impl Outputs {
    /// A front end that stopped reading just misses outputs; the engine goes on. False
    /// when nobody reads.
    fn send(&self, output: Output) -> bool {
        self.0.send(output).is_ok()
    }
}

/// Sends orders to a session; cheap to clone (a signal handler, an approval dialog).
#[derive(Debug, Clone)]
pub struct Orders(mpsc::UnboundedSender<Op>);

impl Orders {
    /// Sends `op`; after the session ended it is dropped.
    pub fn submit(&self, op: Op) {
        let _ = self.0.send(op);
    }
}

/// A running session. Dropping it ends the session, as [`Session::shutdown`] does without
/// waiting.
#[derive(Debug)]
pub struct Session {
    orders: Orders,
    info: Info,
    task: tokio::task::JoinHandle<()>,
    current: CurrentTools,
    watch: tokio::task::JoinHandle<()>,
    calls: calls::Calls,
    /// The custom commands found at start.
    custom: CustomCommands,
}

impl Session {
    /// Starts a session with `tools` and returns it with its output stream, which already
    /// holds the start-up events. The engine runs as a task: call it within a tokio runtime.
    pub fn start(settings: Settings, tools: Tools) -> Result<(Self, mpsc::UnboundedReceiver<Output>), StartError> {
        let (out, outputs) = mpsc::unbounded_channel();
        let out = Outputs(out);
        let workspace = settings.workspace.clone();
        let current = CurrentTools::new(tools.clone());
        let folders = tools.folders.clone();
        let started = start::build(settings, tools, &out)?;
        let info = started.info.clone();
        let custom = CustomCommands::new(started.commands.clone(), workspace.clone(), current.clone());
        let (orders, received) = mpsc::unbounded_channel();
        let watch = reload::watch(reload::dirs(&started.paths, &workspace), folders, orders.downgrade());
        let mut agent = started.agent;
        let calls = calls::Calls::new(agent.scheduler_mut(), started.events.clone());
        let audit = started.audit.then(|| agent.scheduler_mut().audit().clone());
        let engine = Engine {
            agent,
            shared: Shared {
                questions: started.questions,
                policy: started.policy,
                registry: started.registry,
                events: started.events,
                out,
                paths: started.paths,
                info: started.info,
                provider: started.provider,
                runtime: started.runtime,
                current: current.clone(),
                calls: calls.clone(),
                audit,
            },
        };
        let task = tokio::spawn(engine.serve(received));
        Ok((Self { orders: Orders(orders), info, task, current, watch, calls, custom }, outputs))
    }

    /// Starts a call of `tool` with `arguments` (JSON text) outside a model turn, through
    /// the scheduler as a model's call runs: its events and questions come on the output
    /// stream with [`Call::id`], and `cancel` stops it. Several may run at once, beside a
    /// turn or not; an approval is answered with [`Op::Approve`] as for a turn's call.
    pub fn call(&self, tool: &str, arguments: String, cancel: Cancellation) -> Call {
        self.calls.start(tool, arguments, cancel)
    }

    /// The tools the session uses now.
    pub fn tools(&self) -> CurrentTools {
        self.current.clone()
    }

    /// The custom commands found when the session started, with their expansion.
    pub fn custom_commands(&self) -> CustomCommands {
        self.custom.clone()
    }

    /// What identified the session when it started (a resume names its session in a new
    /// `init` event).
    pub fn info(&self) -> &Info {
        &self.info
    }

    /// Sends an order.
    pub fn submit(&self, op: Op) {
        self.orders.submit(op);
    }

    /// A handle that sends orders to this session.
    pub fn orders(&self) -> Orders {
        self.orders.clone()
    }

    /// Ends the session: cancels what runs and waits until the engine has stopped (every
    /// output it sent is then in the stream).
    pub async fn shutdown(mut self) {
        self.orders.submit(Op::Shutdown);
        let _ = (&mut self.task).await;
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // Other order senders (a signal handler) may live on: say it.
        self.orders.submit(Op::Shutdown);
        self.watch.abort();
    }
}

/// The engine task's state.
struct Engine {
    agent: Agent,
    shared: Shared,
}

/// What order handling needs while the agent is busy with a turn.
struct Shared {
    questions: Arc<Questions>,
    policy: Arc<Policy>,
    registry: Arc<Registry>,
    events: EventSink,
    out: Outputs,
    paths: Paths,
    info: Info,
    /// The provider settings, for switching models; `None` in a session without a model.
    provider: Option<airlock_model::ProviderConfig>,
    /// The session's component runtime (a reload compiles with the same engine).
    runtime: Arc<crate::runtime::Runtime>,
    /// The tools in use, shared with the [`Session`] handle.
    current: CurrentTools,
    /// Calls outside a turn, run with the agent's scheduler as it is now.
    calls: calls::Calls,
    /// The session's audit trail, when recorded sessions keep one.
    audit: Option<crate::audit::Slot>,
}

/// The tools a session uses now (they change when the plugin folders do): for front ends
/// that list them (`/tools`, `/plugins`, an MCP server's `tools/list`).
#[derive(Debug, Clone)]
pub struct CurrentTools {
    tools: Arc<std::sync::Mutex<Tools>>,
    /// Counts the changes, so a front end can wait for the next one.
    changes: Arc<tokio::sync::watch::Sender<u64>>,
}

impl CurrentTools {
    fn new(tools: Tools) -> Self {
        Self { tools: Arc::new(std::sync::Mutex::new(tools)), changes: Arc::new(tokio::sync::watch::Sender::new(0)) }
    }

    pub fn get(&self) -> Tools {
        self.tools.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    /// Wakes with each change of the tools from now on (a reload that took).
    pub fn changes(&self) -> tokio::sync::watch::Receiver<u64> {
        self.changes.subscribe()
    }

    fn set(&self, tools: Tools) {
        *self.tools.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = tools;
        self.changes.send_modify(|n| *n += 1);
    }
}

/// Whether the session goes on after an order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flow {
    Continue,
    Stop,
}

/// The orders of one session: received, and put off until the running work ends.
struct Inbox {
    receiver: mpsc::UnboundedReceiver<Op>,
    open: bool,
    later: VecDeque<Op>,
    /// How many put-off orders at the front of `later` an interrupt voided.
    void: usize,
}

impl Inbox {
    /// The next order to act on: a put-off one first. `None` when every sender is gone.
    /// Orders that arrived while the last work ran are sorted first, with nothing running:
    /// an interrupt voids the orders sent before it, so an interrupt that crossed the end of
    /// its turn stops the turns put off behind it too, never one sent after it.
    async fn next(&mut self, shared: &Shared) -> Option<Op> {
        self.drop_voided(shared);
        while let Ok(op) = self.receiver.try_recv() {
            match op {
                Op::UserTurn { .. }
                | Op::Compress
                | Op::Resume { .. }
                | Op::NewSession
                | Op::SetModel { .. }
                | Op::ReloadPlugins
                | Op::RewindTurns
                | Op::Rewind { .. }
                | Op::Shutdown => self.later.push_back(op),
                Op::Interrupt => {
                    self.void = self.later.len();
                    self.drop_voided(shared);
                }
                op => {
                    shared.at_once(op, None);
                }
            }
        }
        if let Some(op) = self.later.pop_front() {
            return Some(op);
        }
        if !self.open {
            return None;
        }
        let op = self.receiver.recv().await;
        self.open = op.is_some();
        op
    }

    /// Says that the voided put-off orders will not run (a shutdown among them still does).
    fn drop_voided(&mut self, shared: &Shared) {
        let voided: Vec<Op> = self.later.drain(..self.void.min(self.later.len())).collect();
        self.void = 0;
        let mut kept = Vec::new();
        for op in voided {
            match op {
                // A reload is not voided: the change it takes would be lost.
                Op::Shutdown | Op::ReloadPlugins => kept.push(op),
                op => shared.not_run(&op),
            }
        }
        for op in kept.into_iter().rev() {
            self.later.push_front(op);
        }
    }
}

impl Engine {
    async fn serve(mut self, receiver: mpsc::UnboundedReceiver<Op>) {
        let mut inbox = Inbox { receiver, open: true, later: VecDeque::new(), void: 0 };
        self.agent.session_opened(&self.shared.events).await;
        while let Some(op) = inbox.next(&self.shared).await {
            let flow = match op {
                Op::UserTurn { text, attachments } => {
                    let cancel = Cancellation::default();
                    let (report, flow) = {
                        let run = self.agent.run(&text, attachments, &self.shared.events, &cancel);
                        self.shared.busy(run, &mut inbox, &cancel).await
                    };
                    let how = crate::agent::run_ending(&report.outcome);
                    self.shared.out.send(Output::TurnDone(Box::new(report)));
                    self.agent.notify_run_ended(how, &self.shared.events).await;
                    flow
                }
                Op::Compress => {
                    let cancel = Cancellation::default();
                    let compress = self.agent.compress_now(&self.shared.events, &cancel);
                    let (compressed, flow) = self.shared.busy(compress, &mut inbox, &cancel).await;
                    if compressed.is_err() {
                        self.shared.events.send(Event::Notice { message: "compressing was cancelled".into() });
                    }
                    flow
                }
                Op::Resume { session } => {
                    self.agent.session_ended("resume", &self.shared.events).await;
                    self.resume(&session);
                    self.agent.session_started("resume", &self.shared.events).await;
                    Flow::Continue
                }
                Op::NewSession => {
                    self.agent.session_ended("clear", &self.shared.events).await;
                    self.new_session();
                    self.agent.session_started("clear", &self.shared.events).await;
                    Flow::Continue
                }
                Op::SetModel { model } => {
                    self.set_model(&model);
                    Flow::Continue
                }
                Op::ReloadPlugins => {
                    self.reload().await;
                    Flow::Continue
                }
                Op::RewindTurns => {
                    self.rewind_turns().await;
                    Flow::Continue
                }
                Op::Rewind { target, what, apply, overwrite_changed } => {
                    self.rewind(target, what, apply, overwrite_changed).await;
                    Flow::Continue
                }
                Op::Shutdown => Flow::Stop,
                idle => self.shared.at_once(idle, None),
            };
            if flow == Flow::Stop {
                break;
            }
        }
        self.agent.session_ended("exit", &self.shared.events).await;
    }

    /// Loads the plugin folders anew on the session's runtime, keeping the policy's session
    /// state, and offers the new tools from the next turn on.
    async fn reload(&mut self) {
        let workspace = std::path::PathBuf::from(&self.shared.info.workspace);
        let mode = self.shared.policy.mode();
        let search = self.shared.policy.search().cloned();
        let loaded = Tools::load_with(self.shared.runtime.clone(), &self.shared.paths, &workspace, mode, search).await;
        let events = &self.shared.events;
        match loaded {
            Ok(tools) => {
                let same = reload::unchanged(&self.shared.registry, &tools.registry);
                tools.policy.carry_session_from(
                    &self.shared.policy,
                    &|plugin| same.plugins.contains(plugin),
                    &|tool| same.tools.contains(tool),
                );
                for event in reload::changes(&self.shared.registry, &tools.registry) {
                    events.send(event);
                }
                self.agent.scheduler_mut().set_tools(tools.registry.clone(), tools.policy.clone());
                self.shared.calls.set(self.agent.scheduler_mut());
                self.shared.registry = tools.registry.clone();
                self.shared.policy = tools.policy.clone();
                self.shared.current.set(tools);
            }
            Err(error) => events.send(Event::Warning {
                message: format!(
                    "the plugin folders changed but cannot be loaded: {error}; the tools stay as they were"
                ),
            }),
        }
    }

    /// Starts an empty conversation recorded to a new session file; the old file stays as
    /// it was (resumable).
    fn new_session(&mut self) {
        if self.no_model() {
            return;
        }
        let info = &self.shared.info;
        let run = session::RunInfo { workspace: &info.workspace, provider: &info.provider, model: &info.model };
        let events = &self.shared.events;
        match session::open(&self.shared.paths.home, None, run) {
            Ok(opened) => {
                self.shared.info.id = opened.recorder.id().to_owned();
                self.agent.record_to(opened.recorder);
                self.open_audit(false);
                self.shared.calls.set(self.agent.scheduler_mut());
                let events = &self.shared.events;
                self.agent.resume(Vec::new(), events);
                events.send(start::init(&self.shared.info, &self.shared.registry));
            }
            Err(error) => events.send(Event::Warning { message: format!("cannot start a new session: {error}") }),
        }
    }

    /// True, with a warning, in a session without a model: it has no conversation to
    /// record, resume or start anew.
    fn no_model(&self) -> bool {
        let none = self.shared.provider.is_none();
        if none {
            self.shared.events.send(Event::Warning { message: airlock_model::ModelError::NoModel.to_string() });
        }
        none
    }

    /// Keeps an audit trail beside the session file just opened, when the settings say so.
    fn open_audit(&mut self, resumed: bool) {
        if self.shared.audit.is_none() {
            return;
        }
        let shared = &self.shared;
        let workspace = std::path::Path::new(&shared.info.workspace);
        let start = crate::audit::start::of(&shared.paths, workspace, &shared.policy, &shared.registry, resumed);
        self.agent.open_audit(start, &shared.events);
    }

    /// Sends the next turns to `model` of the same provider.
    fn set_model(&mut self, model: &str) {
        let events = &self.shared.events;
        let model = model.trim();
        if model.is_empty() || model.chars().count() > 200 || model.chars().any(char::is_control) {
            let shown = crate::sanitize::line_bounded(model, 60);
            events.send(Event::Warning { message: format!("not a model name: {shown:?}") });
            return;
        }
        let Some(mut provider) = self.shared.provider.clone() else {
            events.send(Event::Warning { message: airlock_model::ModelError::NoModel.to_string() });
            return;
        };
        provider.model = model.to_string();
        match airlock_model::ModelClient::new(provider.clone()) {
            Ok(client) => {
                self.agent.set_client(client);
                self.shared.provider = Some(provider);
                self.shared.info.model = model.to_string();
                events.send(Event::Notice { message: format!("model: {}", crate::sanitize::line(model)) });
            }
            Err(error) => events.send(Event::Warning { message: format!("cannot switch to {model}: {error}") }),
        }
    }

    /// Replaces the conversation with a recorded session's, recording to that session.
    fn resume(&mut self, which: &str) {
        if self.no_model() {
            return;
        }
        let info = &self.shared.info;
        let run = session::RunInfo { workspace: &info.workspace, provider: &info.provider, model: &info.model };
        let opened = session::open(&self.shared.paths.home, Some(which), run);
        let events = &self.shared.events;
        match opened {
            Ok(mut opened) => {
                self.shared.info.id = opened.recorder.id().to_owned();
                events.send(start::init(&self.shared.info, &self.shared.registry));
                let replay = Replay::of(&mut opened);
                for message in opened.warnings {
                    events.send(Event::Warning { message });
                }
                if let Some(message) = opened.notice {
                    events.send(Event::Notice { message });
                }
                self.agent.record_to(opened.recorder);
                self.open_audit(true);
                self.shared.calls.set(self.agent.scheduler_mut());
                let events = &self.shared.events;
                self.agent.resume(opened.history, events);
                self.agent.continue_prompts(opened.prompts);
                self.shared.out.send(Output::Replay(replay));
                self.agent.restore_todos(opened.todos, events);
            }
            Err(error) => events.send(Event::Warning { message: format!("cannot resume: {error}") }),
        }
    }
}

impl Shared {
    /// Drives `work` (a turn, a compression) to its end while acting on orders: those that
    /// act at once do; the rest wait in the inbox. A shutdown cancels `work`, which still
    /// runs to its (then quick) end so that what it did is reported and recorded.
    async fn busy<T>(&self, work: impl Future<Output = T>, inbox: &mut Inbox, cancel: &Cancellation) -> (T, Flow) {
        let mut work = std::pin::pin!(work);
        let mut flow = Flow::Continue;
        loop {
            tokio::select! {
                done = &mut work => return (done, flow),
                op = inbox.receiver.recv(), if inbox.open => match op {
                    None | Some(Op::Shutdown) => {
                        inbox.open &= op.is_some();
                        flow = Flow::Stop;
                        cancel.cancel();
                    }
                    Some(
                        op @ (Op::UserTurn { .. }
                        | Op::Compress
                        | Op::Resume { .. }
                        | Op::NewSession
                        | Op::SetModel { .. }
                        | Op::ReloadPlugins),
                    ) => inbox.later.push_back(op),
                    Some(Op::Interrupt) => {
                        cancel.cancel();
                        inbox.void = inbox.later.len();
                    }
                    Some(op) => {
                        self.at_once(op, Some(cancel));
                    }
                },
            }
        }
    }

    /// Reports a put-off order an interrupt voided (it never started), in its own terms: a
    /// turn ends cancelled, with nothing sent to the model.
    fn not_run(&self, op: &Op) {
        match op {
            Op::UserTurn { .. } => {
                let report = Report { outcome: Outcome::Cancelled, ..Report::default() };
                self.out.send(Output::TurnDone(Box::new(report)));
            }
            Op::Compress => self.events.send(Event::Notice { message: "compressing was cancelled".into() }),
            Op::Resume { session } => {
                self.events.send(Event::Notice { message: format!("resuming {session} was cancelled") })
            }
            Op::NewSession => {
                self.events.send(Event::Notice { message: "starting a new session was cancelled".into() })
            }
            Op::SetModel { model } => self.events.send(Event::Notice {
                message: format!("switching to {} was cancelled", crate::sanitize::line(model)),
            }),
            Op::Rewind { apply: true, .. } => {
                self.events.send(Event::Notice { message: "the rewind was cancelled".into() })
            }
            Op::RewindTurns | Op::Rewind { .. } => {}
            Op::Interrupt
            | Op::Approve { .. }
            | Op::SetMode(_)
            | Op::Grant { .. }
            | Op::AddDir { .. }
            | Op::ReloadPlugins
            | Op::Shutdown => {}
        }
    }

    /// Acts on an order that needs no turn: `cancel` is the running work's, if any.
    fn at_once(&self, op: Op, cancel: Option<&Cancellation>) -> Flow {
        match op {
            Op::Interrupt => {
                if let Some(cancel) = cancel {
                    cancel.cancel();
                }
            }
            Op::Approve { id, answer } => match self.questions.answer(id, answer) {
                Ok(()) => {}
                Err(error @ AnswerError::NotWaiting(_)) => tracing::info!(%error, "an answer was dropped"),
                Err(error) => self.events.send(Event::Warning { message: format!("answer not taken: {error}") }),
            },
            Op::SetMode(mode) => {
                self.policy.set_mode(mode);
                if let Some(audit) = &self.audit {
                    let change = crate::audit::record::ModeChange { mode: mode.as_str().to_owned() };
                    audit.record(&crate::audit::Body::Mode(change), &self.events);
                }
                self.events.send(Event::Notice { message: format!("approval mode: {}", mode.as_str()) });
            }
            Op::Grant { id, answer } => {
                if let Err(error) = self.questions.answer_grant(id, answer) {
                    tracing::info!(%error, "a grant answer was dropped");
                }
            }
            Op::AddDir { folder } => match self.policy.add_folder(&folder) {
                Ok(added) => {
                    let what = if added.access == crate::contract::Access::ReadWrite {
                        "read and write it (every write is asked about and shows the folder)"
                    } else {
                        "read it"
                    };
                    let message = format!("added {} to this session: the built-in tools may {what}", added.describe());
                    self.events.send(Event::Notice { message });
                }
                Err(reason) => self.events.send(Event::Warning { message: format!("cannot add the folder: {reason}") }),
            },
            Op::Shutdown => return Flow::Stop,
            Op::UserTurn { .. }
            | Op::Compress
            | Op::Resume { .. }
            | Op::NewSession
            | Op::SetModel { .. }
            | Op::ReloadPlugins
            | Op::RewindTurns
            | Op::Rewind { .. } => {}
        }
        Flow::Continue
    }
}

#[cfg(test)]
#[path = "mod_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "calls_tests.rs"]
mod calls_tests;
