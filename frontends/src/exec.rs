//! The headless run (`airlock -p`): starts nothing itself — it drives a started engine
//! session with one user turn, prints its events ([`super::headless`]), answers its
//! questions, and turns the report into an exit code. Questions are refused at once (the
//! run cannot ask anyone) unless `--ask` was given, in which case the terminal asks
//! ([`super::ask`], and [`super::ask_grant`] for grants) while the printer goes on printing. Ctrl-C and SIGTERM interrupt the turn.

use tokio::sync::mpsc;

use super::ExitCode;
use super::ask::Terminal;
use super::headless::{self, OutputFormat, Printer};
use airlock_door::{Orders, Output, Question, Session};
use airlock_protocol::shown as sanitize;
use airlock_protocol::{Answer, ApprovalMode, GrantAnswer, Order};

/// How long the last outputs are awaited once the session ended.
const LAST_OUTPUTS: std::time::Duration = std::time::Duration::from_secs(1);

/// How a headless run prints and answers.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    pub format: OutputFormat,
    /// Ask the terminal (`--ask`) instead of refusing.
    pub ask: bool,
    /// The session's approval mode, named in refusals.
    pub mode: ApprovalMode,
}

/// Runs `prompt` in `session` to its end and returns the exit code.
pub async fn run(
    session: Session,
    mut outputs: mpsc::UnboundedReceiver<Output>,
    prompt: String,
    options: Options,
) -> ExitCode {
    let info = session.info().clone();
    spawn_signal_handler(session.orders());
    let prompt = super::slash::prompt(&session, prompt);
    for notice in &prompt.notices {
        let _ = std::io::Write::write_fmt(&mut std::io::stderr(), format_args!("airlock: {notice}\n"));
    }
    let prompt = prompt.text;
    session.submit(Order::UserTurn { text: prompt });
    let terminal = options.ask.then(Terminal::default);
    let mut printer = Printer::new(options.format);
    let report = loop {
        match outputs.recv().await {
            Some(Output::Event(event)) => printer.event(&event),
            Some(Output::Question(question)) => answer(*question, terminal.as_ref(), options.mode, session.orders()),
            Some(Output::Withdrawn { .. } | Output::Replay(_)) => {}
            // With `--ask` the terminal is asked; else nobody can grant: the call's failure and
            // its hint stand.
            Some(Output::Grant(question)) => match options.ask {
                true => {
                    let orders = session.orders();
                    tokio::spawn(async move {
                        let id = question.id;
                        let asked = tokio::task::spawn_blocking(move || super::ask_grant::ask(&question.request)).await;
                        orders.submit(Order::Grant { id, answer: asked.unwrap_or(GrantAnswer::No) });
                    });
                }
                false => session.submit(Order::Grant { id: question.id, answer: GrantAnswer::No }),
            },
            Some(Output::TurnDone(report)) => break Some(report),
            None => break None,
        }
    };
    session.shutdown().await;
    // Live output a call's forwarder still held, briefly: a stuck one must not hold the end.
    let deadline = tokio::time::Instant::now() + LAST_OUTPUTS;
    while let Ok(Some(output)) = tokio::time::timeout_at(deadline, outputs.recv()).await {
        if let Output::Event(event) = output {
            printer.event(&event);
        }
    }
    match report {
        Some(report) => headless::finish(options.format, &info, &report, printer.done()),
        None => {
            use std::io::Write as _;
            let message = "the engine stopped before the run ended (see $AIRLOCK_HOME/logs/airlock.log)";
            let _ = writeln!(std::io::stderr(), "airlock: {}", sanitize::line(message));
            ExitCode::Failure
        }
    }
}

/// Answers a question: on the terminal, without holding up the printer, or with a refusal.
fn answer(question: Question, terminal: Option<&Terminal>, mode: ApprovalMode, orders: Orders) {
    let id = question.id;
    match terminal {
        Some(terminal) => {
            let terminal = terminal.clone();
            tokio::spawn(async move {
                let answer = terminal.ask(question).await;
                orders.submit(Order::Approve { id, answer });
            });
        }
        None => {
            let message = airlock_door::queries::refusal(&question, mode);
            orders.submit(Order::Approve { id, answer: Answer::Refuse { message } })
        }
    }
}

/// Ctrl-C and SIGTERM interrupt the run: running calls stop at their next epoch tick, the
/// model stream is dropped, and the process exits with 130 after reporting.
fn spawn_signal_handler(orders: Orders) {
    tokio::spawn(async move {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            let Ok(mut terminate) = signal(SignalKind::terminate()) else {
                let _ = tokio::signal::ctrl_c().await;
                orders.submit(Order::Interrupt);
                return;
            };
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = terminate.recv() => {}
            }
        }
        #[cfg(not(unix))]
        let _ = tokio::signal::ctrl_c().await;
        orders.submit(Order::Interrupt);
    });
}
