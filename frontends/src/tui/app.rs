//! The TUI's state and what changes it: engine outputs and keys. Nothing here touches the
//! terminal; [`super::draw`] renders the state and [`super::run`] drives the loop.
//!
//! Invariants:
//! - Transcript lines are produced once, in order, into `history` (the loop writes them to
//!   the terminal's scrollback); what may still change (the streaming tail, running cards,
//!   dialogs, the composer) is drawn live.
//! - Cards reach the transcript in call order: a finished card waits for the cards before
//!   it, so parallel calls stay side by side while they run.
//! - Only a key press answers a dialog; each answer goes to the engine as an order with the
//!   engine's own question id.

use std::collections::{BTreeMap, VecDeque};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use airlock_ui::approval::{ApprovalDialog, ApprovalResult};
use airlock_ui::composer::{Composer, ComposerAction};
use airlock_ui::grant::GrantPrompt;
use airlock_ui::pager::{Pager, PagerAction};
use airlock_ui::picker::{Picker, PickerResult};
use airlock_ui::style::Theme;
use airlock_ui::transcript::{self, NoticeKind};
use airlock_ui::view::{ApprovalChoice, OutputView, StatusView};
use airlock_ui::{card, markdown};
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::text::Line;

use super::views::{self, LiveCard};
use airlock_door::agent::{Outcome, Report};
use airlock_door::events::{CallStatus, CallUpdate, Event, TodoStatus};
use airlock_door::model::UsageKind;
use airlock_door::{Info, Orders, Output, Tools};
use airlock_protocol::shown as sanitize;
use airlock_protocol::{Answer, ApprovalMode, Attachment, Order};

/// Ended cards whose whole output the pager keeps (the latest).
const KEPT_OUTPUTS: usize = 64;

/// How long a first Ctrl-C waits for the second that quits.
const QUIT_WINDOW: Duration = Duration::from_secs(2);

/// What the loop must do besides drawing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    None,
    /// Open the proposal of question `id` in `$EDITOR` (the terminal is handed over).
    Edit {
        id: u64,
        path: String,
        proposed: String,
    },
    Quit,
}

/// A dialog waiting in the viewport.
#[derive(Debug)]
pub enum Dialog {
    Approval {
        id: u64,
        dialog: Box<ApprovalDialog>,
        path: String,
        proposed: Option<String>,
    },
    Grant {
        id: u64,
        prompt: GrantPrompt,
    },
    Picker {
        purpose: Pick,
        picker: Picker,
        values: Vec<String>,
    },
    /// A step of a rewind ([`super::rewind`]).
    Rewind(Box<super::rewind::RewindDialog>),
}

/// What a picker chooses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pick {
    Session,
    Mode,
}

/// Per-tool figures for `/stats`.
#[derive(Debug, Clone, Default)]
pub struct ToolStats {
    pub calls: u64,
    pub errors: u64,
    pub wall: Duration,
    pub peak_memory: u64,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub net_requests: u64,
}

/// Where the UI's orders go: the session's door, or in tests a list the test reads back.
#[derive(Debug, Clone)]
pub enum OrderSink {
    Door(Orders),
    #[cfg(test)]
    Kept(std::rc::Rc<std::cell::RefCell<Vec<Order>>>),
}

impl OrderSink {
    pub fn submit(&self, order: Order) {
        match self {
            Self::Door(orders) => orders.submit(order),
            #[cfg(test)]
            Self::Kept(kept) => kept.borrow_mut().push(order),
        }
    }
}

/// The whole UI state.
#[derive(Debug)]
pub struct App {
    pub theme: Theme,
    pub width: u16,
    pub orders: OrderSink,
    /// The session's tools (`None` only in tests, which have no session).
    pub tools: Option<Tools>,
    /// The session's custom commands (`/NAME` past the built-ins).
    pub custom: Option<airlock_door::CustomCommands>,
    pub workspace: PathBuf,
    pub home: PathBuf,
    pub status: StatusView,
    pub context_window: u64,
    pub tool_names: Vec<String>,
    /// Lines for the scrollback, written at the next frame.
    pub history: Vec<Line<'static>>,
    pub stream: markdown::Stream,
    pub thought: String,
    pub cards: Vec<LiveCard>,
    /// The model's plan (`write_todos`), shown as a panel while some of it is to do.
    pub plan: Vec<airlock_ui::plan::Step>,
    pub dialogs: VecDeque<Dialog>,
    pub composer: Composer,
    /// User turns sent and not yet done.
    pub turns_running: usize,
    pub working_since: Option<Instant>,
    pub quit_armed: Option<Instant>,
    pub hint: Option<String>,
    pub stats: BTreeMap<String, ToolStats>,
    pub tokens_in: u64,
    pub tokens_out: u64,
    pub turns_done: u64,
    pub spinner: usize,
    pub mode: ApprovalMode,
    /// The whole outputs of the latest ended cards ([`KEPT_OUTPUTS`]), oldest first, each
    /// with its call's id.
    pub outputs: VecDeque<(String, OutputView)>,
    /// The pager, when open over the screen.
    pub pager: Option<Pager>,
    /// Whether this session has a conversation to resume: a prompt was sent, or it was
    /// itself resumed.
    pub resumable: bool,
    /// When a first Esc on an empty, idle composer was pressed (a second opens the rewind).
    pub esc_armed: Option<Instant>,
    /// The calls that hold a checkpoint, in the order they ended: `#N` is the N-th.
    pub undo_calls: Vec<String>,
}

impl App {
    pub fn new(
        info: &Info,
        tools: Tools,
        orders: Orders,
        composer: Composer,
        mode: ApprovalMode,
        home: PathBuf,
    ) -> Self {
        Self::with(info, Some(tools), OrderSink::Door(orders), composer, mode, home)
    }

    pub(super) fn with(
        info: &Info,
        tools: Option<Tools>,
        orders: OrderSink,
        composer: Composer,
        mode: ApprovalMode,
        home: PathBuf,
    ) -> Self {
        let status = StatusView {
            provider: sanitize::line(&info.provider),
            model: sanitize::line(&info.model),
            mode: mode.as_str().to_string(),
            session_id: info.id.clone(),
            ..StatusView::default()
        };
        Self {
            theme: Theme::from_env(),
            width: 80,
            orders,
            tools,
            custom: None,
            workspace: PathBuf::from(&info.workspace),
            home,
            status,
            context_window: info.context_window,
            tool_names: Vec::new(),
            history: Vec::new(),
            stream: markdown::Stream::new(),
            thought: String::new(),
            cards: Vec::new(),
            plan: Vec::new(),
            dialogs: VecDeque::new(),
            composer,
            turns_running: 0,
            working_since: None,
            quit_armed: None,
            hint: None,
            stats: BTreeMap::new(),
            tokens_in: 0,
            tokens_out: 0,
            turns_done: 0,
            spinner: 0,
            mode,
            outputs: VecDeque::new(),
            pager: None,
            resumable: false,
            esc_armed: None,
            undo_calls: Vec::new(),
        }
    }

    /// Keeps an ended card's whole output for the pager.
    pub fn keep_output(&mut self, call_id: &str, view: OutputView) {
        if self.outputs.len() == KEPT_OUTPUTS {
            self.outputs.pop_front();
        }
        self.outputs.push_back((call_id.to_string(), view));
    }

    /// Opens the pager on the kept output `index`.
    fn open_pager(&mut self, index: usize) {
        if let Some((_, view)) = self.outputs.get(index) {
            self.pager = Some(Pager::new(view.clone(), index, self.outputs.len()));
        }
    }

    /// A key while the pager is open.
    fn pager_key(&mut self, key: KeyEvent) -> Effect {
        let Some(pager) = self.pager.as_mut() else { return Effect::None };
        let index = pager.index();
        // `u` undoes the call whose output the pager shows (a preview comes first).
        if key.code == KeyCode::Char('u') && key.modifiers.is_empty() {
            if let Some((call_id, _)) = self.outputs.get(index) {
                let call_id = call_id.clone();
                self.pager = None;
                super::rewind::undo_call(self, call_id);
            }
            return Effect::None;
        }
        match pager.handle_key(key) {
            None => {}
            Some(PagerAction::Close) => self.pager = None,
            Some(PagerAction::Previous) => self.open_pager(index.saturating_sub(1)),
            Some(PagerAction::Next) => self.open_pager((index + 1).min(self.outputs.len().saturating_sub(1))),
        }
        Effect::None
    }

    /// Whether anything moves on its own (a spinner, an elapsed time): the loop ticks only
    /// then, so an idle UI draws nothing.
    pub fn animating(&self) -> bool {
        self.turns_running > 0 || self.cards.iter().any(|c| !c.is_done())
    }

    pub fn tick(&mut self) {
        self.spinner = self.spinner.wrapping_add(1);
        for card in &mut self.cards {
            card.tick(self.spinner);
        }
        self.status.working = self.working_since.map(|t| t.elapsed());
        if self.quit_armed.is_some_and(|t| t.elapsed() > QUIT_WINDOW) {
            self.quit_armed = None;
            self.hint = None;
        }
        super::rewind::tick(self);
    }

    pub fn notice(&mut self, text: &str, kind: NoticeKind) {
        // A notice follows the text shown before it: an answer cut off (a loop detected)
        // ends where it was cut, on its own line.
        self.flush_stream();
        let lines = transcript::notice_line(&sanitize::block_bounded(text, 20), kind, self.width, &self.theme);
        self.history.extend(lines);
    }

    /// Sends a user prompt (its text attachments already added), with its images and PDFs,
    /// each shown as a line `[image: name, WxH, N KiB]`.
    pub fn send_prompt(&mut self, shown: &str, text: String, attachments: Vec<Attachment>) {
        self.flush_stream();
        self.history.push(Line::default());
        self.history.extend(transcript::user_lines(&sanitize::block(shown), self.width, &self.theme));
        for attachment in &attachments {
            let label = super::attach::attachment_label(attachment);
            self.history.extend(transcript::user_lines(&sanitize::block(&label), self.width, &self.theme));
        }
        self.orders.submit(Order::UserTurn { text, attachments });
        self.resumable = true;
        self.turns_running += 1;
        self.working_since.get_or_insert_with(Instant::now);
    }

    /// Takes one engine output.
    pub fn output(&mut self, output: Output) {
        match output {
            Output::Event(event) => self.event(event),
            Output::Question(question) => {
                let queued = self.dialogs.len();
                let view = views::approval(&question, queued);
                let (path, proposed) = match &question.request.confirmation {
                    airlock_door::contract::Confirmation::Edit { path, proposed, .. } if question.editable => {
                        (path.clone(), Some(proposed.clone()))
                    }
                    _ => (String::new(), None),
                };
                self.flush_stream();
                self.dialogs.push_back(Dialog::Approval {
                    id: question.id,
                    dialog: Box::new(ApprovalDialog::new(view)),
                    path,
                    proposed,
                });
            }
            Output::Grant(question) => {
                self.flush_stream();
                let prompt = GrantPrompt::new(views::grant(&question));
                self.dialogs.push_back(Dialog::Grant { id: question.id, prompt });
            }
            Output::Withdrawn { id } => self.dialogs.retain(|d| match d {
                Dialog::Approval { id: asked, .. } | Dialog::Grant { id: asked, .. } => *asked != id,
                Dialog::Picker { .. } | Dialog::Rewind(_) => true,
            }),
            Output::TurnDone(report) => self.turn_done(&report),
            Output::Replay(replay) => {
                self.resumable = true;
                super::replay::replay(self, &replay);
            }
        }
    }

    fn event(&mut self, event: Event) {
        match event {
            Event::Init { session_id, provider, model, tools, .. } => {
                let resumed = !self.status.session_id.is_empty() && self.status.session_id != session_id;
                // Another session (`/new`, `/resume`): resumable once it has a conversation.
                self.resumable &= !resumed;
                self.status.session_id = session_id;
                self.status.provider = sanitize::line(&provider);
                self.status.model = sanitize::line(&model);
                self.tool_names = tools;
                if resumed {
                    self.notice(&format!("session {}", self.status.session_id), NoticeKind::Info);
                }
            }
            Event::PluginProblem(problem) => {
                self.notice(&format!("{}: {}", problem.path, problem.reason), NoticeKind::Warning);
            }
            // Each model response starts its own block: a retry never continues the line
            // of the answer before it.
            Event::TurnStarted { .. } => self.flush_stream(),
            Event::Text { delta } => {
                self.flush_thought();
                self.stream.push(&sanitize::stream(&delta));
                let stable = self.stream.take_stable(self.width, &self.theme);
                self.history.extend(stable);
            }
            Event::Thought { delta } => self.thought.push_str(&delta),
            Event::ToolCall(update) => self.call(&update),
            Event::ToolOutput { call_id, chunk } => {
                if let Some(card) = self.cards.iter_mut().find(|c| c.card.call_id == call_id) {
                    card.output(&chunk);
                }
            }
            Event::Usage { kind, usage, .. } => {
                self.tokens_in += usage.input_tokens;
                self.tokens_out += usage.output_tokens;
                self.status.tokens_used = self.tokens_in + self.tokens_out;
                if kind == UsageKind::Answer && self.context_window > 0 {
                    let used = usage.input_tokens + usage.output_tokens;
                    self.status.context_left = Some(self.context_window.saturating_sub(used));
                }
            }
            Event::Warning { message } => {
                let kind = if message.starts_with("retrying") || message.contains(": retrying") {
                    NoticeKind::Retry
                } else {
                    NoticeKind::Warning
                };
                self.notice(&message, kind);
            }
            Event::Notice { message } => {
                if let Some(mode) = message.strip_prefix("approval mode: ") {
                    self.status.mode = sanitize::line(mode);
                }
                if let Some(model) = message.strip_prefix("model: ") {
                    self.status.model = sanitize::line(model);
                }
                self.notice(&message, NoticeKind::Info);
            }
            Event::Todos { todos } => {
                use airlock_ui::plan::{Step, StepStatus};
                self.plan = todos
                    .iter()
                    .map(|t| Step {
                        text: sanitize::line(&t.description),
                        status: match t.status {
                            TodoStatus::Pending => StepStatus::Pending,
                            TodoStatus::InProgress => StepStatus::InProgress,
                            TodoStatus::Completed => StepStatus::Completed,
                            TodoStatus::Cancelled => StepStatus::Cancelled,
                        },
                    })
                    .collect();
                // The panel shows a plan in progress; a finished one goes to the transcript.
                if !self.plan.is_empty() && !airlock_ui::plan::is_open(&self.plan) {
                    let done = todos.iter().filter(|t| t.status == TodoStatus::Completed).count();
                    let mut plan = format!("plan done ({done}/{})", todos.len());
                    for todo in &todos {
                        plan.push_str(&format!("\n  {} {}", todo.status.mark(), sanitize::line(&todo.description)));
                    }
                    self.notice(&plan, NoticeKind::Info);
                }
            }
            Event::Hook(note) => {
                let line = crate::hook_note::line(&note);
                let card = note.call_id.as_ref().and_then(|id| self.cards.iter_mut().find(|c| &c.card.call_id == id));
                match card {
                    Some(card) => card.card.hooks.push(line.into()),
                    None => self.notice(&line, NoticeKind::Info),
                }
            }
            Event::RewindTurns(turns) => super::rewind::turns(self, turns),
            Event::RewindPlan(plan) => super::rewind::plan(self, *plan),
            Event::Rewound(done) => super::rewind::rewound(self, *done),
            #[allow(unreachable_patterns)]
            _ => {}
        }
    }

    fn call(&mut self, update: &CallUpdate) {
        if update.status == CallStatus::Validating || !self.cards.iter().any(|c| c.card.call_id == update.call_id) {
            self.flush_stream();
            self.cards.push(LiveCard::new(update));
        }
        let number =
            (update.undoable && update.status.is_terminal()).then(|| super::rewind::number(self, &update.call_id));
        if let Some(card) = self.cards.iter_mut().find(|c| c.card.call_id == update.call_id) {
            card.update(update);
            card.card.undo = card.card.undo.or(number);
        }
        if update.status.is_terminal() {
            let stats = self.stats.entry(sanitize::line(&update.name)).or_default();
            stats.calls += 1;
            stats.errors += u64::from(update.status == CallStatus::Error);
            stats.wall += update.run.or(update.duration).unwrap_or_default();
            if let Some(cost) = &update.cost {
                stats.peak_memory = stats.peak_memory.max(cost.peak_memory_bytes);
                stats.bytes_read += cost.bytes_read;
                stats.bytes_written += cost.bytes_written;
                stats.net_requests += u64::from(cost.network_requests);
            }
        }
        self.commit_cards();
        self.status.running_calls =
            self.cards.iter().filter(|c| c.card.state == airlock_ui::view::CallStatus::Executing).count();
    }

    /// Moves the finished cards at the front to the transcript.
    fn commit_cards(&mut self) {
        while self.cards.first().is_some_and(LiveCard::is_done) {
            let done = self.cards.remove(0);
            self.history.extend(card::lines(&done.card, self.width, &self.theme));
            let full = done.full_output.as_deref().unwrap_or_default();
            self.keep_output(&done.card.call_id, views::output_view(&done.card, full));
        }
    }

    fn turn_done(&mut self, report: &Report) {
        self.flush_stream();
        self.flush_thought();
        // A turn that ended leaves no call running: any card still live ended with it.
        for card in &mut self.cards {
            if !card.is_done() {
                card.card.state = airlock_ui::view::CallStatus::Cancelled;
                card.card.summary.get_or_insert_with(|| "the turn ended before this call did".into());
            }
        }
        self.commit_cards();
        self.status.running_calls = 0;
        self.turns_running = self.turns_running.saturating_sub(1);
        self.turns_done += 1;
        if self.turns_running == 0 {
            self.working_since = None;
            self.status.working = None;
        }
        match &report.outcome {
            Outcome::Completed => {}
            Outcome::Cancelled => self.notice("interrupted", NoticeKind::Warning),
            Outcome::MaxTurns(n) => {
                self.notice(&format!("stopped after {n} model turns (--max-turns)"), NoticeKind::Warning)
            }
            Outcome::LoopDetected(how) => self.notice(&format!("stopped: {how}"), NoticeKind::Error),
            Outcome::ModelFailed(error) => self.notice(&format!("model error: {error}"), NoticeKind::Error),
            Outcome::Unusable(why) => self.notice(&format!("the answer is unusable: {why}"), NoticeKind::Error),
        }
    }

    /// Ends the streaming answer: its rest goes to the transcript.
    pub fn flush_stream(&mut self) {
        let rest = self.stream.finish(self.width, &self.theme);
        self.history.extend(rest);
    }

    fn flush_thought(&mut self) {
        if !self.thought.trim().is_empty() {
            let text = sanitize::block(&std::mem::take(&mut self.thought));
            self.history.extend(transcript::thought_lines(&text, true, self.width, &self.theme));
        }
        self.thought.clear();
    }

    /// Takes one key press.
    pub fn key(&mut self, key: KeyEvent) -> Effect {
        if key.kind == KeyEventKind::Release {
            return Effect::None;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if key.code != KeyCode::Esc {
            super::rewind::other_key(self);
        }
        if self.pager.is_some() {
            // Ctrl-C closes the pager first, as it closes a dialog.
            if ctrl && key.code == KeyCode::Char('c') {
                self.pager = None;
                return Effect::None;
            }
            return self.pager_key(key);
        }
        if ctrl && key.code == KeyCode::Char('c') {
            return self.ctrl_c();
        }
        // Ctrl-O reads the latest card's whole output, also while a dialog waits.
        if ctrl && key.code == KeyCode::Char('o') {
            match self.outputs.len() {
                0 => self.hint = Some("no tool output to show yet".into()),
                n => self.open_pager(n - 1),
            }
            return Effect::None;
        }
        if !self.dialogs.is_empty() {
            return self.dialog_key(key);
        }
        match key.code {
            KeyCode::Esc if !self.composer.has_popup() => {
                if self.turns_running > 0 {
                    self.orders.submit(Order::Interrupt);
                    self.hint = Some("interrupting…".into());
                } else if self.composer.is_empty() {
                    super::rewind::esc(self, Instant::now());
                }
                Effect::None
            }
            KeyCode::BackTab => {
                self.cycle_mode();
                Effect::None
            }
            KeyCode::Char('d') if ctrl && self.composer.is_empty() => Effect::Quit,
            _ => match self.composer.handle_key(key) {
                Some(ComposerAction::Submit { text, mentions }) => {
                    let mut notices = Vec::new();
                    let (full, media) =
                        super::attach::with_mentions(&self.workspace, &text, &mentions, &mut |m| notices.push(m));
                    for notice in notices {
                        let line = transcript::notice_line(&notice, NoticeKind::Warning, self.width, &self.theme);
                        self.history.extend(line);
                    }
                    self.send_prompt(&text, full, media);
                    Effect::None
                }
                Some(ComposerAction::Command { name, args }) => super::commands::run(self, &name, &args),
                None => Effect::None,
            },
        }
    }

    fn ctrl_c(&mut self) -> Effect {
        if let Some(dialog) = self.dialogs.front() {
            // Ctrl-C on a dialog is its "no": cancel the batch, refuse the grant, close the picker.
            let key = KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE);
            if matches!(
                dialog,
                Dialog::Approval { .. } | Dialog::Grant { .. } | Dialog::Picker { .. } | Dialog::Rewind(_)
            ) {
                return self.dialog_key(key);
            }
        }
        if self.quit_armed.is_some_and(|t| t.elapsed() <= QUIT_WINDOW) {
            return Effect::Quit;
        }
        if !self.composer.is_empty() {
            self.composer.clear();
        } else if self.turns_running > 0 {
            self.orders.submit(Order::Interrupt);
        }
        self.quit_armed = Some(Instant::now());
        self.hint = Some("press Ctrl-C again to quit".into());
        Effect::None
    }

    pub fn cycle_mode(&mut self) {
        let next = match self.mode {
            ApprovalMode::Default => ApprovalMode::AutoEdit,
            ApprovalMode::AutoEdit => ApprovalMode::Yolo,
            ApprovalMode::Yolo => ApprovalMode::Plan,
            ApprovalMode::Plan => ApprovalMode::Default,
        };
        self.set_mode(next);
    }

    pub fn set_mode(&mut self, mode: ApprovalMode) {
        self.mode = mode;
        self.status.mode = mode.as_str().to_string();
        self.orders.submit(Order::SetMode { mode });
    }

    fn dialog_key(&mut self, key: KeyEvent) -> Effect {
        let Some(dialog) = self.dialogs.front_mut() else { return Effect::None };
        match dialog {
            Dialog::Approval { id, dialog, path, proposed } => {
                let id = *id;
                let Some(result) = dialog.handle_key(key) else { return Effect::None };
                let answer = match result {
                    ApprovalResult::Choose(ApprovalChoice::Modify) => {
                        let (path, proposed) = (path.clone(), proposed.clone().unwrap_or_default());
                        self.dialogs.pop_front();
                        return Effect::Edit { id, path, proposed };
                    }
                    ApprovalResult::Choose(choice) => views::answer(choice, None),
                    ApprovalResult::Refuse { reason } => Answer::Refuse {
                        message: match reason {
                            Some(reason) => format!("the user refused this call: {reason}"),
                            None => "the user refused this call".into(),
                        },
                    },
                };
                self.dialogs.pop_front();
                self.orders.submit(Order::Approve { id, answer });
            }
            Dialog::Grant { id, prompt } => {
                let id = *id;
                let Some(choice) = prompt.handle_key(key) else { return Effect::None };
                self.dialogs.pop_front();
                self.orders.submit(Order::Grant { id, answer: views::grant_answer(choice) });
            }
            Dialog::Picker { purpose, picker, values } => {
                let Some(result) = picker.handle_key(key) else { return Effect::None };
                let (purpose, values) = (*purpose, std::mem::take(values));
                self.dialogs.pop_front();
                if let PickerResult::Selected(index) = result
                    && let Some(value) = values.get(index)
                {
                    super::commands::picked(self, purpose, value);
                }
            }
            Dialog::Rewind(_) => super::rewind::key(self, key),
        }
        Effect::None
    }

    /// The user's edit of question `id` came back (or failed).
    pub fn edited(&mut self, id: u64, result: std::io::Result<String>) {
        let answer = match result {
            Ok(proposed) => Answer::Modify { proposed },
            Err(error) => {
                self.notice(&format!("the editor failed ({error}); the call was not run"), NoticeKind::Error);
                Answer::Refuse { message: "the user's editor failed; the call was not run".into() }
            }
        };
        self.orders.submit(Order::Approve { id, answer });
    }
}
