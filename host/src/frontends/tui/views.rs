//! Engine outputs turned into the widgets' view data (`airlock_ui::view`). Every string a
//! plugin or the model wrote passes through [`sanitize`] here, before any widget sees it
//! (the widgets escape control characters too: two locks on one door).

use std::sync::Arc;
use std::time::{Duration, Instant};

use airlock_ui::view::{
    self, ApprovalView, CallState, Card, CommandRow, CommandView, Confirm, Cost, DiffView, Folder, GrantView,
    OutputView, SandboxView,
};

use airlock_engine::contract::{Confirmation, Display, Risk};
use airlock_engine::engine::{GrantQuestion, Question};
use airlock_engine::events::{CallCost, CallStatus, CallUpdate, CommandRun, Shown};
use airlock_engine::sanitize;

/// Lines of live output a card keeps.
const LIVE_TAIL: usize = 5;
/// Most lines of a summary kept.
const SUMMARY_LINES: usize = 20;
/// Most lines of an output the pager shows (each line is bounded by the sanitizer).
const PAGER_LINES: usize = 20_000;

pub fn state(status: CallStatus) -> CallState {
    match status {
        CallStatus::Validating => CallState::Validating,
        CallStatus::AwaitingApproval => CallState::AwaitingApproval,
        CallStatus::Scheduled => CallState::Scheduled,
        CallStatus::Executing => CallState::Executing,
        CallStatus::Success => CallState::Success,
        CallStatus::Error => CallState::Error,
        CallStatus::Cancelled => CallState::Cancelled,
    }
}

/// What a call's execution cost, its time being `run` (the execution's own).
pub fn cost(cost: &CallCost, run: Duration) -> Cost {
    Cost {
        wall: run,
        peak_memory: cost.peak_memory_bytes,
        bytes_read: cost.bytes_read,
        bytes_written: cost.bytes_written,
        net_requests: cost.network_requests,
    }
}

/// How a call's commands ended, for its card.
pub fn command(run: &CommandRun) -> CommandView {
    CommandView {
        ending: run.ending(),
        failed: run.failed(),
        cpu: Duration::from_millis(run.cpu_ms),
        peak_memory: run.peak_memory_bytes,
    }
}

/// Puts what a person reads of an ended call on its card, made safe.
pub fn show(card: &mut Card, shown: &Shown) {
    card.summary = shown.summary.as_deref().map(|text| sanitize::block_bounded(text.trim(), SUMMARY_LINES));
    card.tail = shown.tail.iter().map(|line| sanitize::line(line)).collect();
    card.earlier_lines = shown.earlier_lines;
}

/// The pager's view of a call's whole output, made safe.
pub fn output_view(card: &Card, text: &str) -> OutputView {
    let title = match card.description.is_empty() {
        true => card.tool.clone(),
        false => format!("{} · {}", card.tool, card.description),
    };
    OutputView { title, text: sanitize::block_bounded(text, PAGER_LINES), failed: card.failed() }
}

/// A live card: the view and what it needs to tick.
#[derive(Debug, Clone)]
pub struct LiveCard {
    pub card: Card,
    /// When the call started executing (its card's time counts from there).
    pub started: Instant,
    /// Live output not yet ended by a newline.
    partial: String,
    /// Once ended: its whole output, for the pager.
    pub full_output: Option<Arc<str>>,
}

impl LiveCard {
    pub fn new(update: &CallUpdate) -> Self {
        let description = match &update.args {
            Some(args) => sanitize::line_bounded(&args.to_string(), 200),
            None => String::new(),
        };
        let card = Card::new(update.call_id.clone(), sanitize::line(&update.name), description, state(update.status));
        Self { card, started: Instant::now(), partial: String::new(), full_output: None }
    }

    pub fn is_done(&self) -> bool {
        matches!(self.card.state, CallState::Success | CallState::Error | CallState::Cancelled)
    }

    /// Takes a state change.
    pub fn update(&mut self, update: &CallUpdate) {
        let card = &mut self.card;
        if update.status == CallStatus::Executing && card.state != CallState::Executing {
            // The time shown is the call's own run, not its wait for the batch's approvals.
            self.started = Instant::now();
            card.elapsed = Duration::ZERO;
        }
        card.state = state(update.status);
        if let Some(description) = &update.description {
            card.description = sanitize::line(description);
        }
        if let Some(run) = update.run {
            card.elapsed = run;
        }
        if let (Some(cost), Some(run)) = (&update.cost, update.run) {
            card.cost = Some(self::cost(cost, run));
        }
        card.command = update.command.as_ref().map(command);
        if let Some(Display::Diff { path, original, proposed }) = &update.display {
            card.diff = Some(DiffView {
                path: sanitize::line(path),
                original: sanitize::block_bounded(original, 2_000),
                proposed: sanitize::block_bounded(proposed, 2_000),
                is_new_file: original.is_empty(),
            });
        }
        if let Some(shown) = &update.shown {
            show(card, shown);
        }
        if update.status.is_terminal() {
            card.live_tail.clear();
            self.full_output.clone_from(&update.full_output);
        }
    }

    /// Takes a piece of live output: complete lines go to the tail.
    pub fn output(&mut self, chunk: &str) {
        self.partial.push_str(chunk);
        while let Some(end) = self.partial.find('\n') {
            let line: String = self.partial.drain(..=end).collect();
            self.card.live_tail.push(sanitize::line_bounded(line.trim_end_matches(['\n', '\r']), 300));
        }
        if self.partial.len() > 4096 {
            let line = std::mem::take(&mut self.partial);
            self.card.live_tail.push(sanitize::line_bounded(&line, 300));
        }
        let extra = self.card.live_tail.len().saturating_sub(LIVE_TAIL);
        self.card.live_tail.drain(..extra);
    }

    /// Advances the spinner and the elapsed time of a running call.
    pub fn tick(&mut self, frame: usize) {
        if !self.is_done() {
            self.card.elapsed = self.started.elapsed();
            self.card.spinner = frame;
        }
    }
}

fn risk(risk: Risk) -> &'static str {
    match risk {
        Risk::Low => "low",
        Risk::Medium => "medium",
        Risk::High => "high",
    }
}

/// The approval dialog's view of `question`, `queued` more waiting behind it.
pub fn approval(question: &Question, queued: usize) -> ApprovalView {
    let request = &question.request;
    let confirm = match &request.confirmation {
        Confirmation::Edit { path, original, proposed, is_new_file } => Confirm::Edit(DiffView {
            path: sanitize::line(path),
            original: sanitize::block_bounded(original, 5_000),
            proposed: sanitize::block_bounded(proposed, 5_000),
            is_new_file: *is_new_file,
        }),
        Confirmation::Exec { command, root_command, directory, risk: level } => {
            let line = request.line.as_ref();
            Confirm::Exec {
                command: sanitize::block_bounded(command, 50),
                root_command: sanitize::line(root_command),
                directory: sanitize::line(directory),
                risk: risk(*level).to_string(),
                commands: line.map_or_else(Vec::new, |view| {
                    view.commands
                        .iter()
                        .map(|c| CommandRow {
                            text: c.text.clone(),
                            risk: c.risk.as_str().to_string(),
                            why: c.why.clone(),
                            allowed: c.allowed,
                        })
                        .collect()
                }),
                rows: line.map_or_else(Vec::new, |view| view.rows.clone()),
                warnings: line.map_or_else(Vec::new, exec_warnings),
            }
        }
        Confirmation::Info { prompt, urls } => Confirm::Info {
            prompt: sanitize::block_bounded(prompt, 30),
            urls: urls.iter().take(20).map(|u| sanitize::line(u)).collect(),
        },
    };
    let held = &request.sandbox;
    let sandbox = SandboxView {
        folders: held
            .folders
            .iter()
            .map(|f| Folder { path: sanitize::line(&f.path.display().to_string()), writable: f.writable })
            .collect(),
        network: held.network.iter().map(|n| sanitize::line(n)).collect(),
        env: held.env.iter().map(|n| sanitize::line(n)).collect(),
        memory_mb: held.memory_bytes >> 20,
        timeout_secs: held.timeout_secs,
        output_bytes: held.output_bytes,
        commands: held.commands.as_deref().map(sanitize::line),
    };
    ApprovalView {
        tool: sanitize::line(&request.tool),
        // Blank runs collapsed, so a description cannot push what follows off the first screen.
        description: airlock_engine::policy::line_view::shown(&request.description),
        confirm,
        sandbox,
        scope: question.scope.describe(&request.tool),
        always: question.scope.offered(),
        editable: question.editable,
        queued,
    }
}

/// What to know before allowing a command line (the `--ask` text says the same).
fn exec_warnings(view: &airlock_engine::policy::LineView) -> Vec<String> {
    let mut warnings = Vec::new();
    if let Some(why) = &view.uncertain {
        warnings.push(format!("airlock cannot tell which commands this line runs: {}", sanitize::line(why)));
    }
    if !view.repo_programs.is_empty() {
        warnings.push(format!(
            "git here runs programs this repository names (they run if you allow the line): {}",
            view.repo_programs.join("; ")
        ));
    }
    warnings
}

/// The grant prompt's view of `question`.
pub fn grant(question: &GrantQuestion) -> GrantView {
    let request = &question.request;
    GrantView {
        plugin: sanitize::line(&request.plugin),
        tool: sanitize::line(&request.tool),
        missing: request.missing.iter().map(|m| sanitize::line(m)).collect(),
        policy_file: sanitize::line(&request.policy_file.display().to_string()),
        reason: request.reason.as_deref().map(sanitize::line),
    }
}

/// The answer a dialog choice stands for.
pub fn answer(choice: view::ApprovalChoice, proposed: Option<String>) -> airlock_engine::engine::Answer {
    use airlock_engine::engine::Answer;
    use view::ApprovalChoice as C;
    match choice {
        C::Once => Answer::Once,
        C::AlwaysForSession => Answer::AlwaysForSession,
        C::AlwaysSaved => Answer::AlwaysSaved,
        C::ToolForSession => Answer::ToolForSession,
        C::Modify => proposed.map_or(Answer::Cancel, |proposed| Answer::Modify { proposed }),
        C::Refuse => Answer::Refuse("the user refused this call".into()),
        C::CancelBatch => Answer::Cancel,
    }
}

pub fn grant_answer(choice: view::GrantChoice) -> airlock_engine::engine::GrantAnswer {
    use airlock_engine::engine::GrantAnswer;
    match choice {
        view::GrantChoice::ThisCall => GrantAnswer::ThisCall,
        view::GrantChoice::Session => GrantAnswer::Session,
        view::GrantChoice::Always => GrantAnswer::Always,
        view::GrantChoice::No => GrantAnswer::No,
    }
}
