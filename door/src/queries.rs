//! Queries a front end asks outside a session's stream: the recorded sessions, a file a
//! prompt attaches, the custom commands, the commands tools left running in the background, and the refusal a
//! run nobody can be asked in gives. Each answers in plain or protocol values.
//!
//! Invariant: a file is read only through a handle on the workspace that follows no link
//! ([`attachment`]), and recorded text a person reads comes back sanitised.

use std::path::{Path, PathBuf};

use airlock_engine::engine::Question;
use airlock_engine::policy::RefuseAll;
use airlock_engine::session;
use airlock_protocol::{ApprovalMode, SessionRow, Shown};

/// The sessions recorded under `home` (`$AIRLOCK_HOME`), most recently used first, or
/// why they cannot be listed.
pub fn sessions(home: &Path) -> Result<Vec<SessionRow>, String> {
    let sessions = session::list(&session::dir(home)).map_err(|e| e.to_string())?;
    Ok(sessions
        .into_iter()
        .map(|s| SessionRow {
            id: s.id,
            started: s.started,
            updated: s.updated,
            workspace: s.workspace,
            provider: Shown::line(&s.provider),
            model: Shown::line(&s.model),
            first_prompt: Shown::line(&s.first_prompt),
            turns: s.turns,
        })
        .collect())
}

/// The text of `mention`, a path relative to `workspace`, or why it is not attached: the
/// path is resolved, links included, and must stay under the workspace; the file is then
/// read through a handle on the workspace without following any link (a link swapped in
/// after the check leads nowhere) and without blocking on a FIFO, at most `max_bytes`.
pub fn attachment(workspace: &Path, mention: &str, max_bytes: u64) -> Result<String, String> {
    let path = workspace.join(mention).canonicalize().map_err(|e| e.to_string())?;
    let Ok(relative) = path.strip_prefix(workspace) else {
        return Err("it is outside the workspace".into());
    };
    let root = airlock_files::open_dir(workspace).map_err(|e| e.to_string())?;
    let bytes = airlock_files::read_file_in(&root, relative, max_bytes).map_err(|e| match e {
        airlock_files::FileError::NotRegular(_) | airlock_files::FileError::BadPath => "it is not a file".to_string(),
        airlock_files::FileError::TooLarge { .. } => format!("it is over {} KiB", max_bytes >> 10),
        other => other.to_string(),
    })?;
    String::from_utf8(bytes).map_err(|_| "it is not text".to_string())
}

/// The custom commands of `home` (`$AIRLOCK_HOME`) and `workspace` (canonical) as a
/// session would list them, and each file left out with why (sanitised, one line each).
pub fn custom_commands(home: &Path, workspace: &Path) -> (Vec<airlock_protocol::listing::CommandRow>, Vec<String>) {
    let commands = airlock_engine::prompts::commands::load(home, workspace);
    let rows = commands.list.iter().map(crate::handle::command_row).collect();
    (rows, commands.problems.iter().map(|p| airlock_protocol::shown::line(p)).collect())
}

/// A command a tool left running in the background.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Background {
    pub pid: u32,
    /// The command line, as the tool wrote it (unsanitised).
    pub command: String,
    /// Where its output goes.
    pub log: PathBuf,
}

/// The background commands still running.
pub fn background() -> Vec<Background> {
    airlock_process::background().into_iter().map(|(pid, command, log)| Background { pid, command, log }).collect()
}

/// Kills every background command still running and returns how many there were; blocks
/// while they are reaped.
pub fn stop_background() -> usize {
    airlock_process::stop_background()
}

/// What the model is told when `question` is refused because nobody can be asked in `mode`
/// (a headless run without `--ask`).
pub fn refusal(question: &Question, mode: ApprovalMode) -> String {
    RefuseAll { mode: crate::edge::approval_mode(mode) }.message(&question.request)
}
