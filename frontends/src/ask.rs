//! The terminal approver of `--ask`: shows an [`ApprovalRequest`] on stderr (a diff for
//! edits) and reads the answer from stdin, one line per answer. The engine sends the request
//! as an event; the headless front end runs [`Terminal::ask`] and sends the answer back as an
//! order.
//!
//! Every field of a confirmation was written by a plugin or the model: each is shown through
//! [`sanitize`] (one line per field, the diff as a bounded block), so none can draw a fake
//! menu, move the cursor or hide what the call does. This holds in every output format: the
//! question goes to stderr even when stdout carries JSON.
//!
//! A command line is shown from the host's own reading of it ([`LineView`], the model the UI
//! dialog renders too): every command it runs, riskiest first, then the whole line with blank
//! runs collapsed (`␣×1100`) and breaks marked, wrapped rather than cut; why airlock cannot name
//! every command, when it cannot; what the repository's git configuration runs; and exactly
//! which rules "always" saves.

use std::fmt::Write as _;
use std::io::{BufRead, IsTerminal, Write};
use std::sync::{Arc, Mutex, PoisonError};

use airlock_door::Question;
use airlock_door::contract::Confirmation;
use airlock_door::policy::{AlwaysScope, LineView};
use airlock_protocol::Answer;
use airlock_protocol::shown::{self as sanitize, line};

/// Asks on the terminal: the confirmation (a diff for edits) on stderr, one answer per line
/// on stdin. Questions are asked one at a time; stderr is locked only while written, never
/// while an answer is awaited, so a Ctrl-C that cancels the wait is reported at once.
#[derive(Debug, Clone, Default)]
pub struct Terminal {
    lock: Arc<Mutex<()>>,
}

impl Terminal {
    /// Asks `question` on the terminal, on a blocking thread (reading stdin blocks).
    pub async fn ask(&self, question: Question) -> Answer {
        let lock = self.lock.clone();
        let asked = tokio::task::spawn_blocking(move || {
            let _turn = lock.lock().unwrap_or_else(PoisonError::into_inner);
            ask_on_terminal(&question)
        })
        .await;
        asked.unwrap_or_else(|_| Answer::Refuse { message: "the approval prompt failed".into() })
    }
}

/// Most URLs of one confirmation listed.
const MAX_URLS: usize = 20;

/// Writes `text` to stderr at once. The lock is held only while writing: a question that
/// waits for its answer must not keep the front end from printing (a Ctrl-C's cancelled
/// call, the run's last line).
fn show(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(text.as_bytes());
    let _ = err.flush();
}

/// The text of `question`: the call, its confirmation, what it can write, and the answers
/// it offers.
fn question_text(question: &Question) -> String {
    let Question { request, scope, editable, .. } = question;
    let mut out = String::new();
    let tool = line(&request.tool);
    let _ = writeln!(out, "\n── {tool} wants to run: {}", airlock_door::policy::shown_command(&request.description));
    match &request.confirmation {
        Confirmation::Edit { path, original, proposed, .. } => {
            out.push_str(&super::diff::unified(path, original, proposed));
            if !editable {
                let _ = writeln!(out, "  (the proposal is too large to show whole, so it cannot be edited here)");
            }
        }
        Confirmation::Exec { command, directory, risk, .. } => match &request.line {
            Some(view) => exec_text(view, directory, &mut out),
            None => {
                let _ = writeln!(out, "  $ {}\n  in {} (risk: {risk:?})", line(command), line(directory));
            }
        },
        Confirmation::Info { prompt, urls } => {
            let _ = writeln!(out, "  {}", line(prompt));
            for url in urls.iter().take(MAX_URLS) {
                let _ = writeln!(out, "  - {}", line(url));
            }
            if urls.len() > MAX_URLS {
                let _ = writeln!(out, "  … and {} more", urls.len() - MAX_URLS);
            }
        }
    }
    match request.writable.as_slice() {
        [] => {
            let _ = writeln!(out, "  it can write nothing");
        }
        [file] if request.bound => {
            let _ = writeln!(
                out,
                "  it can change only {}, to the content shown; anything else it writes is discarded",
                line(&file.display().to_string())
            );
        }
        folders => {
            for folder in folders {
                let _ = writeln!(
                    out,
                    "  it can write anywhere in {} and the folders below it",
                    line(&folder.display().to_string())
                );
            }
        }
    }
    let held = &request.sandbox;
    let list = |items: &[String], none: &str| {
        if items.is_empty() { none.to_string() } else { items.iter().map(|i| line(i)).collect::<Vec<_>>().join(", ") }
    };
    let folders: Vec<String> = held
        .folders
        .iter()
        .map(|f| format!("{} ({})", f.path.display(), if f.writable { "read-write" } else { "read-only" }))
        .collect();
    let _ = writeln!(
        out,
        "  its sandbox will hold: folders {}; network {}; environment {}; memory {} MiB, timeout {} s",
        list(&folders, "none"),
        list(&held.network, "none"),
        list(&held.env, "none"),
        held.memory_bytes >> 20,
        held.timeout_secs
    );
    if let Some(commands) = &held.commands {
        let _ = writeln!(out, "  {}", line(commands));
    }
    let covered = scope.describe(&request.tool);
    let _ = writeln!(out, "  y  allow once");
    if scope.offered() {
        let _ = writeln!(out, "  a  allow always: {covered}, for this session");
        let _ = writeln!(out, "  s  allow always: {covered}, saved as a rule in your policy.toml");
    } else {
        let _ = writeln!(out, "  (allow always: {covered})");
    }
    if *scope != AlwaysScope::Tool {
        let _ = writeln!(out, "  t  allow always: every `{tool}` call, for this session");
    }
    if *editable {
        let _ = writeln!(out, "  e  modify the proposed content with $EDITOR, then allow");
    }
    let _ = writeln!(out, "  n  refuse          c  cancel this batch");
    out
}

/// Widest row of the whole line before it wraps.
const WRAP: usize = 100;

/// A command line from the host's reading: its commands riskiest first, the whole line
/// wrapped, and what the person should know before allowing it.
fn exec_text(view: &LineView, directory: &str, out: &mut String) {
    let _ = writeln!(out, "  it runs {} (riskiest first):", count(view.commands.len(), "command"));
    for command in &view.commands {
        let allowed = if command.allowed { ", allowed by your rules" } else { "" };
        let _ = writeln!(out, "    {:<6} {}  — {}{allowed}", command.risk.as_str(), command.text, line(&command.why));
    }
    let _ = writeln!(out, "  the whole line, in {}:", line(directory));
    for row in &view.rows {
        for (index, piece) in wrap(row, WRAP).into_iter().enumerate() {
            let _ = writeln!(out, "    {} {piece}", if index == 0 { "$" } else { "↪" });
        }
    }
    if let Some(why) = &view.uncertain {
        let _ = writeln!(out, "  ! airlock cannot tell which commands this line runs: {}", line(why));
    }
    if !view.repo_programs.is_empty() {
        let _ = writeln!(out, "  ! git here runs programs this repository names (they run if you allow the line):");
        for program in &view.repo_programs {
            let _ = writeln!(out, "      {program}");
        }
    }
    let _ = writeln!(out, "  standard input: none (nothing can be added to an approved line)");
}

fn count(n: usize, what: &str) -> String {
    if n == 1 { format!("1 {what}") } else { format!("{n} {what}s") }
}

/// `row` in pieces of at most `width` characters.
fn wrap(row: &str, width: usize) -> Vec<String> {
    let chars: Vec<char> = row.chars().collect();
    if chars.is_empty() {
        return vec![String::new()];
    }
    chars.chunks(width.max(1)).map(|piece| piece.iter().collect()).collect()
}

fn ask_on_terminal(question: &Question) -> Answer {
    show(&question_text(question));
    // A piped answer is not echoed by a terminal: echo it, so the next line starts a line.
    let echo = !std::io::stdin().is_terminal();
    loop {
        show("? ");
        let mut answer = String::new();
        match std::io::stdin().lock().read_line(&mut answer) {
            Ok(0) | Err(_) => {
                show("\n");
                return Answer::Refuse { message: "the user gave no answer (input closed)".into() };
            }
            Ok(_) => {}
        }
        if echo {
            show(&format!("{}\n", line(answer.trim_end_matches(['\r', '\n']))));
        }
        match answer.trim() {
            "y" | "yes" => return Answer::Once,
            "a" if question.scope.offered() => return Answer::AlwaysForSession,
            "s" if question.scope.offered() => return Answer::AlwaysSaved,
            "t" => return Answer::ToolForSession,
            "e" if question.editable => {
                if let Confirmation::Edit { path, proposed, .. } = &question.request.confirmation {
                    match edit_in_editor(path, proposed) {
                        Ok(proposed) => return Answer::Modify { proposed },
                        Err(error) => show(&format!("  cannot run the editor: {}\n", line(&error.to_string()))),
                    }
                }
            }
            "n" | "no" => return Answer::Refuse { message: "the user refused this call".into() },
            "c" => return Answer::Cancel,
            other => show(&format!("  unknown answer {:?}\n", sanitize::line(other))),
        }
    }
}

/// Opens the proposed content in `$VISUAL` or `$EDITOR` (default `vi`) and returns what the
/// user saved.
pub(crate) fn edit_in_editor(path: &str, proposed: &str) -> std::io::Result<String> {
    let extension = std::path::Path::new(path).extension().map(|e| e.to_string_lossy().into_owned());
    let mut builder = tempfile::Builder::new();
    builder.prefix("airlock-edit-");
    let suffix = extension.map(|e| format!(".{e}"));
    if let Some(suffix) = &suffix {
        builder.suffix(suffix);
    }
    let file = builder.tempfile()?;
    std::fs::write(file.path(), proposed)?;
    let editor = std::env::var("VISUAL").or_else(|_| std::env::var("EDITOR")).unwrap_or_else(|_| "vi".into());
    // Like git, let the shell split the editor command (`code --wait`).
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("airlock-editor")
        .arg(file.path())
        .status()?;
    if !status.success() {
        return Err(std::io::Error::other(format!("`{editor}` exited with {status}")));
    }
    std::fs::read_to_string(file.path())
}
