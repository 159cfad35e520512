//! Rebuilding a session's history from its file, reading backwards from the end to the
//! last `compressed` record (whose history replaces everything before it) or to the
//! header. Lines that cannot be read (a partial last line after a crash) are skipped and
//! counted.

use std::path::{Path, PathBuf};

use super::record::{Header, Record};
use super::reverse::ReverseLines;
use super::{SessionError, store};
use crate::model::Message;

/// A session read back for resuming.
#[derive(Debug)]
pub struct Resumed {
    pub header: Header,
    pub path: PathBuf,
    /// The history to continue from.
    pub history: Vec<Message>,
    /// Model responses in the session so far.
    pub turn: u64,
    /// Lines that were read to rebuild the history (the header excluded).
    pub lines_read: usize,
    /// Lines that could not be read and were skipped.
    pub skipped: usize,
    /// The latest plan recorded since the history's base, as written.
    pub todos: Option<serde_json::Value>,
}

/// Reads the session at `path` back.
pub fn replay(path: &Path) -> Result<Resumed, SessionError> {
    let header = store::read_header(path)?;
    let read_error = |e: std::io::Error| SessionError::Read { path: path.to_path_buf(), reason: e.to_string() };
    let file = std::fs::File::open(path).map_err(read_error)?;
    let mut lines = ReverseLines::new(file).map_err(read_error)?;
    // Messages since the base, last first.
    let mut messages = Vec::new();
    let mut base = Vec::new();
    let (mut turn, mut lines_read, mut skipped) = (0, 0, 0);
    let mut todos = None;
    while let Some(line) = lines.next_line().map_err(read_error)? {
        let Ok(record) = Record::parse(&line) else {
            skipped += 1;
            continue;
        };
        if let Record::Session(_) = record {
            break;
        }
        lines_read += 1;
        turn = turn.max(record.turn().unwrap_or(0));
        match record {
            Record::Message { message, .. } => messages.push(message),
            // Read backwards: the first one met is the latest.
            Record::Todos { todos: plan, .. } => {
                todos.get_or_insert(plan);
            }
            Record::Compressed { history, .. } => {
                base = history;
                break;
            }
            _ => {}
        }
    }
    messages.reverse();
    base.extend(messages);
    Ok(Resumed { header, path: path.to_path_buf(), history: base, turn, lines_read, skipped, todos })
}
