//! Engine outputs turned into the widgets' view data (`airlock_ui::view`). Every string a
//! plugin or the model wrote becomes a `Shown` here (the one sanitiser), before any widget
//! sees it; the questions are the protocol's, built at the front ends' edge
//! ([`airlock_door::edge`]). The widgets clean each line again where they draw it.

use std::sync::Arc;
use std::time::{Duration, Instant};

use airlock_ui::view::{self, ApprovalView, Card, CommandView, Cost, FileChange, GrantQuestion, OutputView, Shown};

use airlock_door::Question;
use airlock_door::contract::Display;
use airlock_door::edge as protocol;
use airlock_door::events::{self, CallCost, CallStatus, CallUpdate, CommandRun};

/// Lines of live output a card keeps.
const LIVE_TAIL: usize = 5;
/// Most lines of an output the pager shows (each line is bounded by the sanitizer).
const PAGER_LINES: usize = 20_000;

/// A call's state as its card shows it.
pub fn state(status: CallStatus) -> view::CallStatus {
    protocol::status(status)
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
pub fn show(card: &mut Card, shown: &events::Shown) {
    let text = protocol::card_text(shown);
    card.summary = text.summary;
    card.tail = text.tail;
    card.earlier_lines = text.earlier_lines;
}

/// The pager's view of a call's whole output, made safe.
pub fn output_view(card: &Card, text: &str) -> OutputView {
    let title = match card.description.is_empty() {
        true => card.tool.clone(),
        false => Shown::line(&format!("{} · {}", card.tool, card.description)),
    };
    OutputView { title, text: Shown::block_bounded(text, PAGER_LINES), failed: card.failed() }
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
            Some(args) => Shown::line_bounded(&args.to_string(), 200),
            None => Shown::default(),
        };
        let card = Card::new(update.call_id.clone(), Shown::line(&update.name), description, state(update.status));
        Self { card, started: Instant::now(), partial: String::new(), full_output: None }
    }

    pub fn is_done(&self) -> bool {
        self.card.state.is_terminal()
    }

    /// Takes a state change.
    pub fn update(&mut self, update: &CallUpdate) {
        let card = &mut self.card;
        if update.status == CallStatus::Executing && card.state != view::CallStatus::Executing {
            // The time shown is the call's own run, not its wait for the batch's approvals.
            self.started = Instant::now();
            card.elapsed = Duration::ZERO;
        }
        card.state = state(update.status);
        if let Some(description) = &update.description {
            card.description = Shown::line(description);
        }
        if let Some(run) = update.run {
            card.elapsed = run;
        }
        if let (Some(cost), Some(run)) = (&update.cost, update.run) {
            card.cost = Some(self::cost(cost, run));
        }
        card.command = update.command.as_ref().map(command);
        if let Some(Display::Diff { path, original, proposed }) = &update.display {
            card.diff = Some(FileChange {
                path: Shown::line(path),
                original: Shown::block_bounded(original, 2_000),
                proposed: Shown::block_bounded(proposed, 2_000),
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
            self.card.live_tail.push(Shown::line_bounded(line.trim_end_matches(['\n', '\r']), 300));
        }
        if self.partial.len() > 4096 {
            let line = std::mem::take(&mut self.partial);
            self.card.live_tail.push(Shown::line_bounded(&line, 300));
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

/// The approval dialog's view of `question`, `queued` more waiting behind it.
pub fn approval(question: &Question, queued: usize) -> ApprovalView {
    ApprovalView { question: protocol::question(question), queued }
}

/// The grant prompt's view of `question`.
pub fn grant(question: &airlock_door::GrantQuestion) -> GrantQuestion {
    protocol::grant_question(question)
}

/// The answer a dialog choice stands for.
pub fn answer(choice: view::ApprovalChoice, proposed: Option<String>) -> airlock_protocol::Answer {
    use airlock_protocol::Answer;
    use view::ApprovalChoice as C;
    match choice {
        C::Once => Answer::Once,
        C::AlwaysForSession => Answer::AlwaysForSession,
        C::AlwaysSaved => Answer::AlwaysSaved,
        C::ToolForSession => Answer::ToolForSession,
        C::Modify => proposed.map_or(Answer::Cancel, |proposed| Answer::Modify { proposed }),
        C::Refuse => Answer::Refuse { message: "the user refused this call".into() },
        C::CancelBatch => Answer::Cancel,
    }
}

pub fn grant_answer(choice: view::GrantChoice) -> airlock_protocol::GrantAnswer {
    use airlock_protocol::GrantAnswer;
    match choice {
        view::GrantChoice::ThisCall => GrantAnswer::ThisCall,
        view::GrantChoice::Session => GrantAnswer::Session,
        view::GrantChoice::Always => GrantAnswer::Always,
        view::GrantChoice::No => GrantAnswer::No,
    }
}
