//! The interactive terminal UI (`airlock` on a terminal, `airlock -i PROMPT`): a front end
//! over the same [`airlock_door`] API as the headless one. The transcript goes to the
//! terminal's own scrollback ([`screen`]); below it a live viewport shows what still
//! changes: the streaming answer's tail, running tool cards, a dialog or the composer, and
//! the status line. Widgets come from the `airlock-ui` crate; [`app`] keeps the state.
//!
//! Drawing: only when something changed (an output, a key, a resize) or moves (a spinner
//! while a turn runs, ticking every [`TICK`]), at most one frame per [`FRAME`]. An idle UI
//! draws nothing.
//!
//! The terminal is restored on every way out: a normal quit, Ctrl-C twice, SIGTERM, SIGHUP,
//! SIGINT sent from outside, and a panic (the hook restores before the message prints). A
//! quit after a conversation prints the command that resumes it.

mod app;
pub(crate) mod attach;
mod commands;
mod draw;
mod replay;
mod rewind;
mod screen;
mod views;

use std::io::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use airlock_ui::composer::{Composer, FileIndex, History};
use crossterm::event::{Event as TermEvent, EventStream};
use futures_util::StreamExt;
use tokio::sync::mpsc;

use super::ExitCode;
use airlock_door::{Output, Session};
use airlock_protocol::ApprovalMode;
use app::{App, Effect};
pub use screen::restore;

/// Spinner and elapsed-time ticks while something runs.
const TICK: Duration = Duration::from_millis(100);
/// The shortest time between two frames (120 per second).
const FRAME: Duration = Duration::from_millis(8);
/// Most workspace files indexed for `@` completion.
const INDEX_LIMIT: usize = 50_000;

/// How the UI starts.
#[derive(Debug)]
pub struct Options {
    /// A first prompt to send at once (`-i`).
    pub prompt: Option<String>,
    pub mode: ApprovalMode,
    /// `$AIRLOCK_HOME` (sessions, the composer's history file).
    pub home: PathBuf,
    /// Images and PDFs sent with the first prompt (`--image`).
    pub attachments: Vec<airlock_protocol::Attachment>,
}

/// Runs the UI until the user quits; the session ends with it.
pub async fn run(session: Session, mut outputs: mpsc::UnboundedReceiver<Output>, options: Options) -> ExitCode {
    let (history, history_problem) = History::load(options.home.join("history.jsonl"));
    let mut composer = Composer::new(history);
    let custom = session.custom_commands();
    composer.set_commands(commands::menu(&custom.rows()));
    let mut app = App::new(session.info(), session.tools(), session.orders(), composer, options.mode, options.home);
    app.custom = Some(custom);
    if let Some(problem) = history_problem {
        app.notice(&problem, airlock_ui::transcript::NoticeKind::Warning);
    }
    let workspace = app.workspace.clone();
    let index = tokio::task::spawn_blocking(move || FileIndex::build(&workspace, INDEX_LIMIT));

    let previous_hook = std::sync::Arc::new(std::panic::take_hook());
    let hook = previous_hook.clone();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        hook(info);
    }));
    let mut screen = match screen::Screen::start() {
        Ok(screen) => screen,
        Err(error) => {
            restore();
            tracing::error!("cannot take the terminal: {error}");
            return ExitCode::Failure;
        }
    };
    app.width = screen.width();
    if let Some(prompt) = options.prompt {
        app.send_prompt(&prompt, prompt.clone(), options.attachments);
    }
    let result = event_loop(&mut app, &mut screen, &mut outputs, index).await;
    app.pager = None;
    let _ = screen.leave_full();
    let _ = screen.frame(&std::mem::take(&mut app.history), 1, |_| {});
    screen.stop();
    drop(std::panic::take_hook());
    session.shutdown().await;
    if app.resumable && !app.status.session_id.is_empty() {
        // Where the shell prompt comes back: the command that continues this conversation.
        let _ = writeln!(std::io::stdout(), "Resume this session with: airlock --resume {}", app.status.session_id);
    }
    match result {
        Ok(()) => ExitCode::Success,
        Err(error) => {
            tracing::error!("terminal error: {error}");
            ExitCode::Failure
        }
    }
}

/// Signals that end the UI as a quit does.
struct Signals {
    term: tokio::signal::unix::Signal,
    hup: tokio::signal::unix::Signal,
    int: tokio::signal::unix::Signal,
}

impl Signals {
    fn new() -> std::io::Result<Self> {
        use tokio::signal::unix::{SignalKind, signal};
        Ok(Self {
            term: signal(SignalKind::terminate())?,
            hup: signal(SignalKind::hangup())?,
            int: signal(SignalKind::interrupt())?,
        })
    }

    async fn any(&mut self) {
        tokio::select! {
            _ = self.term.recv() => {}
            _ = self.hup.recv() => {}
            _ = self.int.recv() => {}
        }
    }
}

async fn event_loop(
    app: &mut App,
    screen: &mut screen::Screen,
    outputs: &mut mpsc::UnboundedReceiver<Output>,
    index: tokio::task::JoinHandle<FileIndex>,
) -> std::io::Result<()> {
    let mut keys = EventStream::new();
    let mut signals = Signals::new()?;
    let mut ticker = tokio::time::interval(TICK);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut index = Some(index);
    let mut last_frame = Instant::now() - FRAME;
    // Every wake-up below changed something (ticks come only while something moves), so
    // each is followed by one frame, at most one per FRAME; outputs that arrived meanwhile
    // join it.
    loop {
        let wait = FRAME.saturating_sub(last_frame.elapsed());
        if !wait.is_zero() {
            tokio::time::sleep(wait).await;
        }
        while let Ok(output) = outputs.try_recv() {
            app.output(output);
        }
        let drawing = Instant::now();
        draw::frame(app, screen)?;
        last_frame = Instant::now();
        // For BENCHMARKS.md: `AIRLOCK_LOG=airlock::frontends::tui=debug` logs every frame's time.
        tracing::debug!(frame_us = (last_frame - drawing).as_micros() as u64, "frame");
        let animating = app.animating() || app.quit_armed.is_some() || app.esc_armed.is_some();
        let effect = tokio::select! {
            event = keys.next() => match event {
                Some(Ok(TermEvent::Key(key))) => app.key(key),
                Some(Ok(TermEvent::Paste(text))) => { app.composer.handle_paste(text); Effect::None }
                Some(Ok(TermEvent::Resize(cols, rows))) => {
                    screen.resized(cols, rows)?;
                    app.width = cols;
                    Effect::None
                }
                Some(Ok(_)) => Effect::None,
                Some(Err(error)) => return Err(error),
                None => Effect::Quit,
            },
            output = outputs.recv() => match output {
                Some(output) => { app.output(output); Effect::None }
                None => Effect::Quit,
            },
            _ = ticker.tick(), if animating => { app.tick(); Effect::None }
            built = async {
                match index.as_mut() {
                    Some(building) => building.await.ok(),
                    None => std::future::pending().await,
                }
            }, if index.is_some() => {
                index = None;
                if let Some(built) = built {
                    app.composer.set_file_index(built);
                }
                Effect::None
            }
            () = signals.any() => Effect::Quit,
        };
        match effect {
            Effect::None => {}
            Effect::Quit => return Ok(()),
            Effect::Edit { id, path, proposed } => {
                screen.suspend()?;
                let edited = tokio::task::spawn_blocking(move || super::ask::edit_in_editor(&path, &proposed)).await;
                screen.resume()?;
                app.width = screen.width();
                app.edited(id, edited.unwrap_or_else(|e| Err(std::io::Error::other(e.to_string()))));
            }
        }
    }
}
