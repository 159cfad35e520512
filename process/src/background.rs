//! Background children: their log files and the process-wide registry that outlives the
//! [`super::Child`] handles, so [`stop_background`] can end them all when airlock exits.
//!
//! Invariants: a log is a new file (never an existing one, never through a link), private
//! (0600) and at most [`LOG_LIMIT`] bytes; the pipes are drained to the end either way, so a
//! chatty program never blocks on a full pipe.

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::group::Group;

/// Output past this size is dropped (with one note in the log).
pub(super) const LOG_LIMIT: u64 = 64 * 1024 * 1024;
/// How long [`stop_background`] waits for the killed children to be reaped and cleaned up.
const STOP_WAIT: Duration = Duration::from_secs(2);
const CHUNK: usize = 64 * 1024;

/// A running background child, as [`background`] lists it.
struct Entry {
    pid: u32,
    command: String,
    log: PathBuf,
    group: Arc<Group>,
}

static REGISTRY: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

pub(super) fn register(pid: u32, command: String, log: PathBuf, group: Arc<Group>) {
    let mut registry = REGISTRY.lock().unwrap_or_else(PoisonError::into_inner);
    registry.retain(|entry| entry.group.is_running());
    registry.push(Entry { pid, command, log, group });
}

/// The background children still running: pid, command line, log file.
pub fn background() -> Vec<(u32, String, PathBuf)> {
    let mut registry = REGISTRY.lock().unwrap_or_else(PoisonError::into_inner);
    registry.retain(|entry| entry.group.is_running());
    registry.iter().map(|entry| (entry.pid, entry.command.clone(), entry.log.clone())).collect()
}

/// Kills every background child still running and returns how many there were. Blocks up to
/// two seconds while they are reaped and their private folders removed: call it on the way
/// out, not on an async worker in the middle of a session.
pub fn stop_background() -> usize {
    let entries = std::mem::take(&mut *REGISTRY.lock().unwrap_or_else(PoisonError::into_inner));
    let stopped = entries.iter().filter(|entry| entry.group.kill()).count();
    let deadline = Instant::now() + STOP_WAIT;
    for entry in &entries {
        entry.group.wait_finished(deadline);
    }
    stopped
}

/// Creates the log: a new file only, so neither an existing file nor a planted symbolic link
/// (`O_EXCL` does not follow one) is written through.
pub(super) fn create_log(path: &Path) -> io::Result<File> {
    File::options().write(true).create_new(true).mode(0o600).open(path)
}

/// One log file shared by a child's stdout and stderr copiers.
#[derive(Debug)]
pub(super) struct Log {
    file: File,
    written: u64,
    limit: u64,
    full: bool,
}

impl Log {
    pub(super) fn new(file: File) -> Arc<Mutex<Self>> {
        Arc::new(Mutex::new(Self::with_limit(file, LOG_LIMIT)))
    }

    fn with_limit(file: File, limit: u64) -> Self {
        Self { file, written: 0, limit, full: false }
    }

    fn append(&mut self, bytes: &[u8]) {
        let room = self.limit.saturating_sub(self.written);
        let take = bytes.len().min(usize::try_from(room).unwrap_or(usize::MAX));
        // A failing disk loses log lines; the program must not stall on it.
        if take > 0 && self.file.write_all(&bytes[..take]).is_ok() {
            self.written += take as u64;
        }
        if take < bytes.len() && !self.full {
            self.full = true;
            let _ = writeln!(self.file, "\n[airlock: log truncated at {} bytes]", self.limit);
        }
    }
}

/// Copies one pipe into the log on a plain thread (file writes may block; the async workers
/// must not), until the pipe ends.
pub(super) fn copy_to_log(mut pipe: impl Read + Send + 'static, log: Arc<Mutex<Log>>) -> io::Result<()> {
    let thread = std::thread::Builder::new().name("airlock-child-log".into());
    let spawned = thread.spawn(move || {
        let mut buffer = vec![0; CHUNK];
        loop {
            match pipe.read(&mut buffer) {
                Ok(0) => break,
                Ok(n) => log.lock().unwrap_or_else(PoisonError::into_inner).append(&buffer[..n]),
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
    });
    spawned.map(drop)
}

#[cfg(test)]
#[path = "background_tests.rs"]
mod tests;
