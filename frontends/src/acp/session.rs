//! One ACP session: an engine session of its own, the task that turns its outputs into
//! `session/update` notifications and permission requests, and the prompt turn running
//! in it. Orders go in through the door ([`Orders`]); nothing here runs tools or the model.
//!
//! Invariants:
//! - one prompt turn at a time: a second `session/prompt` while one runs is an error;
//! - a turn that a `session/cancel` reached answers `cancelled`, whatever the engine's
//!   report says;
//! - every question is answered: by the client's user, or refused when the client cannot
//!   be asked (it is gone, or the call was cancelled); a grant question is answered "no"
//!   (the call's failure names the `airlock plugins grant` command a person may run).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    AvailableCommand, AvailableCommandInput, AvailableCommandsUpdate, ContentBlock, CurrentModeUpdate, PromptResponse,
    SessionMode, SessionModeState, SessionNotification, SessionUpdate, StopReason, UnstructuredCommandInput,
};
use agent_client_protocol::{Client, Error};
use futures_util::future::{AbortHandle, abortable};
use tokio::sync::{mpsc, oneshot};

use super::{invalid, permission, prompt, replay, update};
use airlock_door::agent::Report;
use airlock_door::events::Event;
use airlock_door::{Orders, Output, Session};
use airlock_protocol::listing::{CommandRow, CommandSource};
use airlock_protocol::{Answer, ApprovalMode, GrantAnswer, Order};

/// A running ACP session.
pub(super) struct Live {
    shared: Arc<Shared>,
    session: Mutex<Option<Session>>,
    router: tokio::task::JoinHandle<()>,
}

/// What the session's router and its prompt share.
struct Shared {
    id: String,
    workspace: std::path::PathBuf,
    cx: ConnectionTo<Client>,
    orders: Orders,
    tools: airlock_door::Tools,
    /// Where the running turn's report goes.
    turn: Mutex<Option<oneshot::Sender<Box<Report>>>>,
    /// Where the end of a `/compress` goes.
    compressing: Mutex<Option<oneshot::Sender<()>>>,
    /// A `session/cancel` reached the running turn.
    cancelled: AtomicBool,
    /// The custom commands found when the session started.
    custom: Vec<CommandRow>,
    /// The client takes `notice` updates: airlock's warnings and notices go there.
    notices: bool,
}

impl Shared {
    fn notify(&self, update: SessionUpdate) {
        if let Err(error) = self.cx.send_notification(SessionNotification::new(self.id.clone(), update)) {
            tracing::debug!("a session/update was not sent: {error}");
        }
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        self.router.abort();
    }
}

/// The approval modes as session modes, `current` the current one.
pub(super) fn modes(current: ApprovalMode) -> SessionModeState {
    let available = ApprovalMode::ALL
        .into_iter()
        .map(|mode| SessionMode::new(mode.as_str(), mode_name(mode)).description(mode_description(mode).to_owned()))
        .collect();
    SessionModeState::new(current.as_str(), available)
}

fn mode_name(mode: ApprovalMode) -> &'static str {
    match mode {
        ApprovalMode::Plan => "Plan",
        ApprovalMode::Default => "Default",
        ApprovalMode::AutoEdit => "Auto-edit",
        ApprovalMode::Yolo => "Yolo",
    }
}

fn mode_description(mode: ApprovalMode) -> &'static str {
    match mode {
        ApprovalMode::Plan => "Read-only tools only; nothing is changed",
        ApprovalMode::Default => "Read-only tools run; everything else asks",
        ApprovalMode::AutoEdit => "File edits run without asking; other changes ask",
        ApprovalMode::Yolo => "Everything runs without asking (policy deny rules still hold)",
    }
}

/// The commands an editor is offered: the custom ones (a workspace's marked as coming from
/// the repository), then airlock's `compress` unless a custom command takes its name.
fn commands(custom: &[CommandRow]) -> Vec<AvailableCommand> {
    let mut offered: Vec<AvailableCommand> = custom
        .iter()
        .map(|row| {
            let mut description = match row.description.is_empty() {
                true => "A custom command".to_owned(),
                false => row.description.clone(),
            };
            if row.source == CommandSource::Workspace {
                description = format!("{description} (from this repository's .airlock/commands)");
            }
            let command = AvailableCommand::new(row.name.clone(), description);
            match &row.argument_hint {
                Some(hint) => {
                    command.input(AvailableCommandInput::Unstructured(UnstructuredCommandInput::new(hint.clone())))
                }
                None => command,
            }
        })
        .collect();
    if !custom.iter().any(|row| row.name == prompt::COMPRESS) {
        offered.push(AvailableCommand::new(
            prompt::COMPRESS,
            "Summarise the older part of the conversation now, to free room in the context window",
        ));
    }
    offered
}

impl Live {
    /// Takes over a started engine session: what it sent while starting (a loaded
    /// session's replay among it) is told to the client now, before the response to
    /// `session/new` or `session/load`, then a task follows its outputs.
    pub(super) fn start(
        session: Session,
        mut outputs: mpsc::UnboundedReceiver<Output>,
        id: String,
        workspace: std::path::PathBuf,
        notices: bool,
        cx: ConnectionTo<Client>,
    ) -> Arc<Self> {
        let shared = Arc::new(Shared {
            id,
            workspace,
            cx,
            orders: session.orders(),
            tools: session.tools(),
            turn: Mutex::new(None),
            compressing: Mutex::new(None),
            cancelled: AtomicBool::new(false),
            custom: session.commands(),
            notices,
        });
        let mut router = Router { shared: shared.clone(), calls: update::Calls::default(), asking: HashMap::new() };
        while let Ok(output) = outputs.try_recv() {
            router.output(output);
        }
        shared.notify(SessionUpdate::AvailableCommandsUpdate(AvailableCommandsUpdate::new(commands(&shared.custom))));
        let router = tokio::spawn(router.run(outputs));
        Arc::new(Self { shared, session: Mutex::new(Some(session)), router })
    }

    /// The ACP session id.
    pub(super) fn id(&self) -> &str {
        &self.shared.id
    }

    /// Runs one prompt turn to its end.
    pub(super) async fn prompt(&self, blocks: Vec<ContentBlock>) -> Result<PromptResponse, Error> {
        let shared = &self.shared;
        let (mut text, attachments) = prompt::text(&shared.workspace, &blocks)?;
        match prompt::slash(&text, &shared.custom) {
            Some(prompt::Slash::Compress) => return self.compress().await,
            Some(prompt::Slash::Custom { name, args }) => text = self.expand(name, args)?,
            None => text = prompt::unescaped(text),
        }
        let (done, report) = oneshot::channel();
        {
            let mut turn = shared.turn.lock().unwrap_or_else(PoisonError::into_inner);
            if turn.is_some() {
                return Err(invalid("a prompt is already running in this session: cancel it or wait for its end"));
            }
            *turn = Some(done);
        }
        shared.cancelled.store(false, Ordering::SeqCst);
        shared.orders.submit(Order::UserTurn { text, attachments });
        let report = report.await.map_err(|_| Error::internal_error().data("the engine session ended"))?;
        if shared.cancelled.swap(false, Ordering::SeqCst) {
            return Ok(PromptResponse::new(StopReason::Cancelled));
        }
        prompt::stop_reason(&report).map(PromptResponse::new)
    }

    /// Custom command `name` run with `args`: the prompt its file makes. What it left out
    /// is logged (ACP has no place for it outside the transcript).
    fn expand(&self, name: &str, args: &str) -> Result<String, Error> {
        let session = self.session.lock().unwrap_or_else(PoisonError::into_inner);
        let session = session.as_ref().ok_or_else(|| Error::internal_error().data("the session ended"))?;
        let expanded = session.expand_command(name, args).map_err(invalid)?;
        for notice in &expanded.notices {
            tracing::info!("session {}: /{name}: {notice}", self.shared.id);
        }
        Ok(expanded.prompt)
    }

    /// `/compress`: the history summarised now; the prompt ends when the engine says how
    /// it went.
    async fn compress(&self) -> Result<PromptResponse, Error> {
        let (done, ended) = oneshot::channel();
        *self.shared.compressing.lock().unwrap_or_else(PoisonError::into_inner) = Some(done);
        self.shared.cancelled.store(false, Ordering::SeqCst);
        self.shared.orders.submit(Order::Compress);
        ended.await.map_err(|_| Error::internal_error().data("the engine session ended"))?;
        Ok(PromptResponse::new(match self.shared.cancelled.swap(false, Ordering::SeqCst) {
            true => StopReason::Cancelled,
            false => StopReason::EndTurn,
        }))
    }

    /// `session/set_mode`: the session's approval mode from now on.
    pub(super) fn set_mode(&self, id: &str) -> Result<(), Error> {
        let mode = ApprovalMode::named(&id.replace('_', "-")).ok_or_else(|| {
            invalid(format!(
                "no mode {}: airlock's modes are default, auto-edit, yolo and plan",
                airlock_protocol::shown::line(id)
            ))
        })?;
        self.shared.orders.submit(Order::SetMode { mode });
        self.shared.notify(SessionUpdate::CurrentModeUpdate(CurrentModeUpdate::new(mode.as_str())));
        Ok(())
    }

    /// `session/cancel`: stops the running turn; its prompt answers `cancelled`.
    pub(super) fn cancel(&self) {
        self.shared.cancelled.store(true, Ordering::SeqCst);
        self.shared.orders.submit(Order::Interrupt);
    }

    /// Ends the engine session: cancels what runs and waits for it to stop.
    pub(super) async fn shutdown(&self) {
        let session = self.session.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some(session) = session {
            session.shutdown().await;
        }
    }
}

/// Follows a session's outputs.
struct Router {
    shared: Arc<Shared>,
    calls: update::Calls,
    /// The permission requests out, by question id: withdrawn when the engine withdraws
    /// the question (the call was cancelled).
    asking: HashMap<u64, AbortHandle>,
}

impl Router {
    async fn run(mut self, mut outputs: mpsc::UnboundedReceiver<Output>) {
        while let Some(output) = outputs.recv().await {
            self.output(output);
        }
        // The engine ended: a prompt still waiting learns it from its dropped sender.
        self.shared.turn.lock().unwrap_or_else(PoisonError::into_inner).take();
    }

    fn output(&mut self, output: Output) {
        let shared = &self.shared;
        match output {
            Output::Event(event) => self.event(&event),
            Output::Question(question) => {
                let (id, shared) = (question.id, shared.clone());
                let asked = permission::ask(shared.cx.clone(), shared.id.clone(), *question);
                let (asked, handle) = abortable(asked);
                self.asking.insert(id, handle);
                tokio::spawn(async move {
                    let answer = asked.await.unwrap_or_else(|_| Answer::Refuse {
                        message: "the call was cancelled before its user answered".into(),
                    });
                    shared.orders.submit(Order::Approve { id, answer });
                });
            }
            Output::Withdrawn { id } => {
                if let Some(handle) = self.asking.remove(&id) {
                    handle.abort();
                }
            }
            Output::Grant(question) => {
                shared.orders.submit(Order::Grant { id: question.id, answer: GrantAnswer::No });
            }
            Output::TurnDone(report) => {
                self.asking.clear();
                let turn = shared.turn.lock().unwrap_or_else(PoisonError::into_inner).take();
                if let Some(turn) = turn {
                    let _ = turn.send(report);
                }
            }
            Output::Replay(recorded) => {
                for update in replay::updates(&recorded, &self.shared.tools) {
                    shared.notify(update);
                }
            }
        }
    }

    fn event(&mut self, event: &Event) {
        let shared = &self.shared;
        match event {
            Event::Warning { message } | Event::Notice { message } => {
                tracing::info!("session {}: {}", shared.id, airlock_protocol::shown::line(message));
                if shared.notices && !message.trim().is_empty() {
                    shared.notify(SessionUpdate::Notice(update::notice(event, message)));
                }
                if update::ends_compress(message) {
                    let compressing = shared.compressing.lock().unwrap_or_else(PoisonError::into_inner).take();
                    if let Some(done) = compressing {
                        let _ = done.send(());
                    }
                }
            }
            other => {
                for update in self.calls.event(other, &shared.tools) {
                    shared.notify(update);
                }
            }
        }
    }
}
