//! The headless front end: `text` streams the answer to stdout and one line per finished
//! tool call to stderr; `json` prints one object at the end; `stream-json` prints one JSON
//! event per line as it happens, then a `result` line.
//!
//! In `text` mode everything printed that a plugin, the model or a repository wrote goes
//! through [`airlock_protocol::shown`] (each tool-call line is one line: a newline in an error cannot
//! forge another); the JSON modes are data and are escaped by JSON itself. Streaming tools'
//! live output shows on stderr in `text` mode too ([`super::live`]), and when stdout and
//! stderr share a terminal a line of stderr never starts where the model's text left off.
//! The JSON modes print the protocol's types (`airlock_protocol`), converted from the
//! engine's values by `airlock_door::edge`.
//!
//! With `--output-schema` the final answer is checked ([`super::output_schema`]): `text`
//! holds the model's text back and prints only the answer's JSON, on one line, once it
//! passed; the JSON modes carry it as `structured_output`. An answer that fails exits 55
//! with the reason on stderr, and `text` prints nothing on stdout.

use std::collections::HashMap;
use std::io::{IsTerminal, Write};

use airlock_door::Info;
use airlock_door::agent::{Outcome, Report, Unusable};
use airlock_door::events::{CallStatus, Event};
use airlock_door::model::ModelError;
use airlock_protocol::shown as sanitize;

use airlock_protocol::{ErrorBody, JsonOutput, ResultLine, ResultType, RunStatus, StampedEvent, Summary};

use super::ExitCode;
use super::json;
use super::live::LiveOutput;
use super::output_schema::{Mismatch, OutputSchema};

/// How a headless run prints (clap's kebab-case names: `text`, `json`, `stream-json`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    Text,
    Json,
    StreamJson,
}

/// What the event printer saw, for the final summary.
#[derive(Debug, Default)]
pub struct Printed {
    lines: Lines,
    warnings: Vec<String>,
    /// The text of the latest model response, kept when the run checks its final answer.
    answer: Option<String>,
}

/// Where the text front end left its lines. Redirected, stdout holds the answer exactly as
/// the model wrote it, with a newline only between turns and at the end; on a terminal
/// shared with stderr, a line written to stderr first ends the line the model's text left
/// open, and stdout then adds no newline of its own for it.
#[derive(Debug, Default)]
struct Lines {
    /// stdout and stderr are both the terminal: their lines interleave on one screen.
    shared: bool,
    /// The text written to stdout so far does not end with a newline.
    stdout_open: bool,
    /// The screen's cursor is where stdout's text left it, mid-line (only when `shared`).
    screen_open: bool,
}

impl Lines {
    fn new() -> Self {
        Self { shared: std::io::stdout().is_terminal() && std::io::stderr().is_terminal(), ..Self::default() }
    }

    fn wrote_text(&mut self, text: &str) {
        if !text.is_empty() {
            self.stdout_open = !text.ends_with('\n');
            self.screen_open = self.shared && self.stdout_open;
        }
    }

    /// Before a line on stderr.
    fn before_stderr(&mut self, stderr: &mut impl Write) {
        if self.screen_open {
            let _ = stderr.write_all(b"\n");
            self.screen_open = false;
        }
    }

    /// Ends stdout's open line, if a newline there is needed (between turns, at the end).
    fn end_stdout_line(&mut self, stdout: &mut impl Write) {
        if self.stdout_open && (!self.shared || self.screen_open) {
            let _ = stdout.write_all(b"\n");
            let _ = stdout.flush();
        }
        self.stdout_open = false;
        self.screen_open = false;
    }
}

/// Prints a session's events as they come, in one output format.
#[derive(Debug)]
pub struct Printer {
    format: OutputFormat,
    printed: Printed,
    /// Each running call's one-line description, for its line when it ends.
    descriptions: HashMap<String, String>,
    live: LiveOutput,
}

impl Printer {
    pub fn new(format: OutputFormat) -> Self {
        Self {
            format,
            printed: Printed { lines: Lines::new(), ..Printed::default() },
            descriptions: HashMap::new(),
            live: LiveOutput::default(),
        }
    }

    /// A printer for a run whose final answer is checked against a schema: it keeps the
    /// latest response's text, and in `text` mode prints none of the model's text.
    pub fn checking(format: OutputFormat) -> Self {
        let mut printer = Self::new(format);
        printer.printed.answer = Some(String::new());
        printer
    }

    pub fn event(&mut self, event: &Event) {
        match event {
            Event::PluginProblem(problem) => {
                self.printed.warnings.push(format!("plugin {}: {}", problem.path, problem.reason))
            }
            Event::Warning { message } => self.printed.warnings.push(message.clone()),
            _ => {}
        }
        if let Some(answer) = &mut self.printed.answer {
            match event {
                Event::TurnStarted { .. } => answer.clear(),
                // The text mode prints the answer only once it was checked.
                Event::Text { delta } => {
                    answer.push_str(delta);
                    if self.format == OutputFormat::Text {
                        return;
                    }
                }
                _ => {}
            }
        }
        match self.format {
            OutputFormat::Json => {}
            OutputFormat::StreamJson => write_line(&mut std::io::stdout().lock(), &stamped(event)),
            OutputFormat::Text => print_text(event, &mut self.printed, &mut self.descriptions, &mut self.live),
        }
    }

    /// What was printed, for the final summary.
    pub fn done(self) -> Printed {
        self.printed
    }
}

fn print_text(event: &Event, printed: &mut Printed, descriptions: &mut HashMap<String, String>, live: &mut LiveOutput) {
    let mut out: Vec<String> = Vec::new();
    match event {
        Event::Text { delta } => {
            let mut stdout = std::io::stdout().lock();
            let _ = stdout.write_all(sanitize::stream(delta).as_bytes());
            let _ = stdout.flush();
            printed.lines.wrote_text(delta);
        }
        // Keep each turn's text on its own line.
        Event::TurnStarted { .. } => printed.lines.end_stdout_line(&mut std::io::stdout().lock()),
        Event::PluginProblem(problem) => {
            out.push(format!("warning: plugin {}: {}", sanitize::line(&problem.path), sanitize::line(&problem.reason)));
        }
        Event::Warning { message } => out.push(format!("warning: {}", sanitize::line(message))),
        Event::Notice { message } => out.push(format!("note: {}", sanitize::line(message))),
        Event::ToolOutput { call_id, chunk } => out.extend(live.chunk(call_id, chunk)),
        Event::Hook(note) => out.push(format!("note: {}", crate::hook_note::line(note))),
        // A rewind ordered through the session (the TUI's, an editor's): what it did.
        Event::Rewound(done) => out.push(format!(
            "note: rewound {} file{}{}",
            done.restored,
            if done.restored == 1 { "" } else { "s" },
            if done.kept.is_empty() {
                String::new()
            } else {
                format!(", kept {} changed outside airlock", done.kept.len())
            }
        )),
        Event::Todos { todos } => {
            out.push("plan:".to_string());
            out.extend(todos.iter().map(|t| format!("  {} {}", t.status.mark(), sanitize::line(&t.description))));
        }
        Event::ToolCall(update) => {
            if let Some(description) = &update.description {
                descriptions.insert(update.call_id.clone(), description.clone());
            }
            if update.status == CallStatus::Validating {
                live.named(&update.call_id, &update.name);
            }
            if update.status.is_terminal() {
                out.extend(live.end(&update.call_id));
                out.push(call_line(update, &descriptions.remove(&update.call_id).unwrap_or_default()));
            }
        }
        _ => {}
    }
    if out.is_empty() {
        return;
    }
    let mut stderr = std::io::stderr().lock();
    printed.lines.before_stderr(&mut stderr);
    for line in out {
        let _ = writeln!(stderr, "{line}");
    }
}

/// `✓ name · what (12.3 ms)`, with the error of a failed call; for a call that ran commands,
/// how the last one ended and what they used (`✗ … (40.1 ms) — exit 3 · cpu 31 ms · 9.2 MiB
/// peak`): a command that failed marks the line failed though its tool succeeded. The time
/// is the call's own run when it ran (not its wait for the batch's approvals).
fn call_line(update: &airlock_door::events::CallUpdate, what: &str) -> String {
    let millis = update.run.or(update.duration).map_or(0.0, |d| d.as_secs_f64() * 1000.0);
    let command_failed = update.command.is_some_and(|command| command.failed());
    let mark = match update.status {
        CallStatus::Success if command_failed => "✗",
        CallStatus::Success => "✓",
        CallStatus::Cancelled => "⊘",
        _ => "✗",
    };
    let mut line = format!("{mark} {}", sanitize::line(&update.name));
    if !what.is_empty() {
        line.push_str(&format!(" · {}", sanitize::line(what)));
    }
    line.push_str(&format!(" ({millis:.1} ms)"));
    if let Some(command) = &update.command {
        let cpu = airlock_ui::card::duration(std::time::Duration::from_millis(command.cpu_ms));
        line.push_str(&format!(" — {} · cpu {cpu}", command.ending()));
        if command.peak_memory_bytes > 0 {
            line.push_str(&format!(" · {} peak", airlock_ui::card::bytes(command.peak_memory_bytes)));
        }
    }
    if let Some(error) = &update.error {
        line.push_str(&format!(" — {}: {}", error.kind.as_str(), sanitize::line(&error.message)));
    }
    line
}

/// Prints the end of the run and returns the exit code. With `schema`, a completed run's
/// final answer must be JSON valid against it.
pub fn finish(
    format: OutputFormat,
    session: &Info,
    report: &Report,
    mut printed: Printed,
    schema: Option<&OutputSchema>,
) -> ExitCode {
    let (mut code, mut status, mut error) = outcome(report);
    let mut structured = None;
    if let (Some(schema), ExitCode::Success) = (schema, code) {
        match schema.check(printed.answer.as_deref().unwrap_or_default()) {
            Ok(value) => structured = Some(value),
            Err(Mismatch(why)) => {
                (code, status, error) = (ExitCode::OutputSchema, RunStatus::Error, Some(("output_schema", why)))
            }
        }
    }
    let summary = |report: &Report| {
        let mut summary = summary(session, report, status, error.as_ref());
        summary.structured_output = structured.clone();
        summary
    };
    match format {
        OutputFormat::Text => {
            let mut stdout = std::io::stdout().lock();
            match &structured {
                Some(value) => {
                    let _ = super::output_schema::write_json(&mut stdout, value);
                }
                None => printed.lines.end_stdout_line(&mut stdout),
            }
        }
        OutputFormat::Json => {
            let output = JsonOutput {
                model: session.model.clone(),
                provider: session.provider.clone(),
                response: report.response.clone(),
                summary: summary(report),
                warnings: std::mem::take(&mut printed.warnings),
            };
            write_line(&mut std::io::stdout().lock(), &output);
        }
        OutputFormat::StreamJson => {
            let result =
                ResultLine { summary: summary(report), timestamp: json::now_millis(), kind: ResultType::Result };
            write_line(&mut std::io::stdout().lock(), &result);
        }
    }
    // In the JSON modes too: the JSON carries the error for the script, the line is for
    // the person running it.
    if let Some((_, message)) = &error {
        let _ = writeln!(std::io::stderr(), "airlock: {}", sanitize::line(message));
    }
    code
}

/// The exit code, status and error (type, message) of a run.
fn outcome(report: &Report) -> (ExitCode, RunStatus, Option<(&'static str, String)>) {
    match &report.outcome {
        Outcome::Completed => (ExitCode::Success, RunStatus::Success, None),
        Outcome::MaxTurns(turns) => (
            ExitCode::TurnLimit,
            RunStatus::MaxTurns,
            Some((
                "max_turns",
                format!(
                    "stopped after {turns} turns while the model was still calling tools; raise --max-turns to let it go on"
                ),
            )),
        ),
        Outcome::LoopDetected(what) => (
            ExitCode::LoopDetected,
            RunStatus::LoopDetected,
            Some((
                "loop_detected",
                format!(
                    "stopped: {what}, again after being told to change course; rephrase the prompt, or set \
                     loop_detection = false in config.toml if the repetition is intended"
                ),
            )),
        ),
        Outcome::Cancelled => {
            (ExitCode::Cancelled, RunStatus::Cancelled, Some(("cancelled", "the run was cancelled".into())))
        }
        Outcome::ModelFailed(error @ ModelError::Auth { .. }) => {
            (ExitCode::Auth, RunStatus::Error, Some(("auth", error.to_string())))
        }
        Outcome::ModelFailed(error) => (ExitCode::Failure, RunStatus::Error, Some(("model", error.to_string()))),
        Outcome::Unusable(unusable @ Unusable::Blocked { .. }) => {
            (ExitCode::Failure, RunStatus::Blocked, Some((unusable.kind(), unusable.to_string())))
        }
        Outcome::Unusable(unusable) => {
            (ExitCode::Failure, RunStatus::Error, Some((unusable.kind(), unusable.to_string())))
        }
    }
}

fn summary(session: &Info, report: &Report, status: RunStatus, error: Option<&(&'static str, String)>) -> Summary {
    let error = error.map(|(kind, message)| ErrorBody { message: message.clone(), kind: (*kind).to_string() });
    airlock_door::edge::summary(&session.id, report, status, error)
}

/// `event` as stream-json prints it: the protocol's event, stamped now. A card's text for
/// people is left out: the line carries the call's output, display and error whole.
fn stamped(event: &Event) -> StampedEvent {
    let mut event = airlock_door::edge::event(event);
    if let airlock_protocol::Event::ToolCall(call) = &mut event {
        call.shown = None;
    }
    StampedEvent { event, timestamp: json::now_millis() }
}

/// Writes one JSON line; a closed stdout is not the run's failure.
fn write_line(out: &mut impl Write, shape: &impl serde::Serialize) {
    let _ = json::write_line(out, shape);
}
