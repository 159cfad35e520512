//! The sessions folder: file names, headers, listing, and finding the session a
//! `--resume` names. "Newest" means most recently written to, so `latest` continues
//! whatever was last worked on in the workspace.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::Serialize;

use super::SessionError;
use super::clock::Stamp;
use super::record::{Header, Record};
use super::reverse::ReverseLines;
use airlock_model::{Part, Role};

/// The longest header line read.
const MAX_HEADER: u64 = 64 * 1024;
/// How far into a file the first prompt is looked for.
const FIRST_PROMPT_LINES: usize = 64;
/// How many lines from the end are read for the response count.
const TAIL_LINES: usize = 64;
const EXCERPT_CHARS: usize = 80;

/// `<started>-<id>.jsonl`, the start time with `-` for `:` (valid on every file system).
pub(super) fn file_name(started: &str, id: &str) -> String {
    format!("{}-{id}.jsonl", started.replace(':', "-"))
}

/// The id in a session file name, if it is one (never a file beside it, such as its
/// `….audit.jsonl` trail).
fn id_of(path: &Path) -> Option<&str> {
    let name = path.file_name()?.to_str()?.strip_suffix(".jsonl")?;
    name.rsplit_once('-').map(|(_, id)| id).filter(|id| !id.is_empty() && !id.contains('.'))
}

/// The first line of a session file.
pub(super) fn read_header(path: &Path) -> Result<Header, SessionError> {
    let file = std::fs::File::open(path)
        .map_err(|e| SessionError::Read { path: path.to_path_buf(), reason: e.to_string() })?;
    let mut line = String::new();
    BufReader::new(file.take(MAX_HEADER))
        .read_line(&mut line)
        .map_err(|e| SessionError::Read { path: path.to_path_buf(), reason: e.to_string() })?;
    match Record::parse(line.as_bytes()) {
        Ok(Record::Session(header)) => Ok(header),
        Ok(_) => Err(not_a_session(path, "its first line is not a session header")),
        Err(e) => Err(not_a_session(path, &e.to_string())),
    }
}

fn not_a_session(path: &Path, reason: &str) -> SessionError {
    SessionError::NotASession { path: path.to_path_buf(), reason: reason.to_owned() }
}

/// One recorded session, as `airlock sessions list` shows it.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub id: String,
    pub started: String,
    /// When the file was last written to.
    pub updated: String,
    pub workspace: String,
    pub provider: String,
    pub model: String,
    /// The start of the first prompt, on one line.
    pub first_prompt: String,
    /// Model responses so far.
    pub turns: u64,
    pub path: PathBuf,
}

/// The session files of `dir`, most recently written first. A missing folder has none.
fn files(dir: &Path) -> Result<Vec<(PathBuf, SystemTime)>, SessionError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(SessionError::Read { path: dir.to_path_buf(), reason: e.to_string() }),
    };
    let mut files: Vec<(PathBuf, SystemTime)> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| id_of(path).is_some())
        .filter_map(|path| {
            let modified = std::fs::metadata(&path).and_then(|m| m.modified()).ok()?;
            Some((path, modified))
        })
        .collect();
    files.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| b.0.cmp(&a.0)));
    Ok(files)
}

/// Every readable session in `dir`, most recently written first. Files that are not
/// sessions are left out.
pub fn list(dir: &Path) -> Result<Vec<Summary>, SessionError> {
    Ok(files(dir)?
        .into_iter()
        .filter_map(|(path, modified)| {
            let header = read_header(&path).ok()?;
            Some(Summary {
                first_prompt: first_prompt(&path).unwrap_or_default(),
                turns: turns(&path).unwrap_or(0),
                updated: Stamp::from(modified).iso(),
                id: header.id,
                started: header.started,
                workspace: header.workspace,
                provider: header.provider,
                model: header.model,
                path,
            })
        })
        .collect())
}

/// The session file `which` names: `latest` (the most recently written one of
/// `workspace`), a whole id, or the start of exactly one id.
pub fn find(dir: &Path, which: &str, workspace: &str) -> Result<PathBuf, SessionError> {
    let unknown = || SessionError::UnknownId { id: which.to_owned(), dir: dir.to_path_buf() };
    if which.is_empty() {
        return Err(unknown());
    }
    let files = files(dir)?;
    if which == "latest" {
        return files
            .into_iter()
            .map(|(path, _)| path)
            .find(|path| read_header(path).is_ok_and(|h| h.workspace == workspace))
            .ok_or_else(|| SessionError::NoneForWorkspace { workspace: workspace.to_owned() });
    }
    let matching: Vec<PathBuf> = files
        .into_iter()
        .map(|(path, _)| path)
        .filter(|path| id_of(path).is_some_and(|id| id.starts_with(which)))
        .collect();
    if let Some(exact) = matching.iter().find(|path| id_of(path) == Some(which)) {
        return Ok(exact.clone());
    }
    match matching.as_slice() {
        [] => Err(unknown()),
        [one] => Ok(one.clone()),
        several => Err(SessionError::Ambiguous {
            id: which.to_owned(),
            matches: several.iter().filter_map(|p| id_of(p)).collect::<Vec<_>>().join(", "),
        }),
    }
}

/// The start of the first user text of the session, on one line.
fn first_prompt(path: &Path) -> Option<String> {
    let file = std::fs::File::open(path).ok()?;
    BufReader::new(file).lines().take(FIRST_PROMPT_LINES).map_while(Result::ok).find_map(|line| {
        match Record::parse(line.as_bytes()).ok()? {
            Record::Message { message, .. } if message.role == Role::User => {
                message.parts.iter().find_map(|part| match part {
                    Part::Text { text } if !text.trim().is_empty() => Some(excerpt(text)),
                    _ => None,
                })
            }
            _ => None,
        }
    })
}

/// `text` on one line, cut to [`EXCERPT_CHARS`] with `…`.
fn excerpt(text: &str) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(EXCERPT_CHARS) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line,
    }
}

/// The response count of the last line that carries one.
fn turns(path: &Path) -> Option<u64> {
    let mut lines = ReverseLines::new(std::fs::File::open(path).ok()?).ok()?;
    for _ in 0..TAIL_LINES {
        let line = lines.next_line().ok()??;
        if let Some(turn) = Record::parse(&line).ok().and_then(|r| r.turn()) {
            return Some(turn);
        }
    }
    None
}

#[cfg(test)]
#[path = "store_tests.rs"]
mod tests;
