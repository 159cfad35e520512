//! The tamper-evident audit trail: per session, `<session file stem>.audit.jsonl` beside the
//! session file (0600), one JSON record a line ([`record`]), each carrying `seq` (from 0)
//! and `prev`, the sha-256 of the previous record's line (without its `\n`). The first
//! record's `prev` is the sha-256 of the session file's header line, which ties the trail to
//! its session. The chain's head (the last record's `seq` and hash) is appended to the
//! session file after each batch of records, so a trail whose tail was cut no longer matches
//! it ([`verify`]).
//!
//! Invariants: a record is written with one `write` on a file opened for appending, before
//! whatever it records is reported (a crash loses at most the record being written); no
//! record is ever rewritten; a resumed session continues the same chain (a partial last
//! line a crash left, which no record chains to, is cut first). No `fsync`: one costs
//! milliseconds on this machine's disk against microseconds for the write (BENCHMARKS.md),
//! and the trail's promise is against editing, not power loss.
//!
//! What it proves and what it does not: anyone who can write the user's files can rewrite
//! the whole trail and the head together; an external copy of the head defends that.

pub mod record;
pub mod start;
pub mod verify;

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use crate::events::{Event, EventSink};

pub use record::{Approval, Body, GrantRecord};

/// A problem writing or reading a trail.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    #[error("cannot write the audit trail {path}: {reason}")]
    Write { path: PathBuf, reason: String },
    #[error("cannot read {path}: {reason}")]
    Read { path: PathBuf, reason: String },
}

/// `<session file without .jsonl>.audit.jsonl`.
pub fn trail_path(session: &Path) -> PathBuf {
    session.with_extension("audit.jsonl")
}

/// Where a chain stands: the last record's `seq` and the sha-256 of its line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head {
    pub seq: u64,
    pub hash: String,
}

/// A session's trail, open for appending. Shared by the scheduler's call tasks: each
/// record is built and written under one lock, so `seq` and `prev` follow the file's order.
#[derive(Debug)]
pub struct Trail {
    path: PathBuf,
    state: Mutex<State>,
    /// A write failed and the user was told (once a session).
    warned: AtomicBool,
}

#[derive(Debug)]
struct State {
    file: File,
    /// The `seq` of the next record.
    next: u64,
    /// The hash the next record's `prev` holds.
    prev: String,
}

impl Trail {
    /// Opens the trail of the session file `session`: a new one chained to the session's
    /// header line, or the existing one, continued after its last whole record.
    pub fn open(session: &Path) -> Result<Self, AuditError> {
        let path = trail_path(session);
        let write_error = |e: std::io::Error| AuditError::Write { path: path.clone(), reason: e.to_string() };
        let mut options = OpenOptions::new();
        options.create(true).read(true).append(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let mut file = options.open(&path).map_err(write_error)?;
        let last = last_whole_line(&mut file).map_err(write_error)?;
        let (next, prev) = match last {
            Some(line) => {
                let chained: record::Chained = serde_json::from_slice(&line).map_err(|e| AuditError::Write {
                    path: path.clone(),
                    reason: format!("its last record cannot be read ({e}); `airlock audit verify` says more"),
                })?;
                (chained.seq + 1, record::digest(&line))
            }
            None => (0, record::digest(&header_line(session)?)),
        };
        Ok(Self { path, state: Mutex::new(State { file, next, prev }), warned: AtomicBool::new(false) })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `body` as the next record (one `write`), stamped now; returns the new head.
    pub fn append(&self, body: &Body) -> Result<Head, AuditError> {
        let at = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| u64::try_from(since.as_millis()).unwrap_or(u64::MAX));
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let mut line = record::encode(body, state.next, &state.prev, at)
            .map_err(|e| AuditError::Write { path: self.path.clone(), reason: e.to_string() })?;
        let hash = record::digest(&line);
        line.push(b'\n');
        state
            .file
            .write_all(&line)
            .map_err(|e| AuditError::Write { path: self.path.clone(), reason: e.to_string() })?;
        let head = Head { seq: state.next, hash: hash.clone() };
        state.next += 1;
        state.prev = hash;
        Ok(head)
    }

    /// The last record written, if any.
    pub fn head(&self) -> Option<Head> {
        let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.next.checked_sub(1).map(|seq| Head { seq, hash: state.prev.clone() })
    }
}

/// The trail the session records to now, shared by whoever writes records (the scheduler's
/// call tasks, the engine's mode changes); empty while the trail is off or no session is
/// recorded.
#[derive(Debug, Clone, Default)]
pub struct Slot(Arc<Mutex<Option<Arc<Trail>>>>);

impl Slot {
    pub fn get(&self) -> Option<Arc<Trail>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Records to `trail` from now on (`None`: to nothing).
    pub fn set(&self, trail: Option<Arc<Trail>>) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = trail;
    }

    /// Appends `body` to the trail, if one is open; a failure is said once a session, and
    /// never stops the call or the change being recorded.
    pub fn record(&self, body: &Body, events: &EventSink) {
        if let Some(trail) = self.get() {
            trail.record(body, events);
        }
    }
}

impl Trail {
    /// [`Trail::append`], with a failure said once (a warning).
    pub fn record(&self, body: &Body, events: &EventSink) -> Option<Head> {
        match self.append(body) {
            Ok(head) => Some(head),
            Err(error) => {
                tracing::warn!("{error}");
                if !self.warned.swap(true, Ordering::Relaxed) {
                    events.send(Event::Warning { message: format!("{error}; the audit trail misses records") });
                }
                None
            }
        }
    }
}

/// The session file's first line, without its `\n`.
pub fn header_line(session: &Path) -> Result<Vec<u8>, AuditError> {
    let read_error = |e: std::io::Error| AuditError::Read { path: session.to_path_buf(), reason: e.to_string() };
    let file = File::open(session).map_err(read_error)?;
    let mut line = Vec::new();
    BufReader::new(file.take(64 * 1024)).read_until(b'\n', &mut line).map_err(read_error)?;
    if line.last() == Some(&b'\n') {
        line.pop();
    }
    Ok(line)
}

/// The file's last line ended by `\n`. A partial line after it (a crash mid-write; no record
/// chains to it) is cut off, so the next record starts a line of its own.
fn last_whole_line(file: &mut File) -> std::io::Result<Option<Vec<u8>>> {
    let length = file.metadata()?.len();
    if length == 0 {
        return Ok(None);
    }
    // Records are small: read back from the end in blocks until a whole line is in hand.
    let mut block = 4096u64;
    loop {
        let start = length.saturating_sub(block);
        let mut tail = Vec::with_capacity((length - start) as usize);
        file.seek(SeekFrom::Start(start))?;
        Read::by_ref(file).take(length - start).read_to_end(&mut tail)?;
        let Some(end) = tail.iter().rposition(|&b| b == b'\n') else {
            if start == 0 {
                file.set_len(0)?;
                return Ok(None);
            }
            block *= 4;
            continue;
        };
        if end + 1 < tail.len() {
            file.set_len(start + end as u64 + 1)?;
        }
        let body = &tail[..end];
        match body.iter().rposition(|&b| b == b'\n') {
            Some(begin) => return Ok(Some(body[begin + 1..].to_vec())),
            None if start == 0 => return Ok(Some(body.to_vec())),
            None => block *= 4,
        }
    }
}

#[cfg(test)]
#[path = "chain_tests.rs"]
mod tests;
