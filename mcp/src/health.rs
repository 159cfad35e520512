//! What is known about a running server's state: the first reason it stopped working and
//! the tail of its stderr. Shared by the stderr reader, the flood guard and the calls.
//!
//! Invariant: the failure is set once, by whoever notices first, so it is reported once and
//! always the original cause (a flood, not the closed pipe the flood led to).

use std::sync::{Mutex, PoisonError};

/// Bytes of a server's stderr that are kept (the last ones).
pub const STDERR_TAIL: usize = 16 * 1024;

#[derive(Debug, Default)]
pub(crate) struct Health {
    failure: Mutex<Option<String>>,
    stderr: Mutex<Vec<u8>>,
}

impl Health {
    /// Records why the server stopped working, unless a reason was already recorded.
    pub(crate) fn fail(&self, reason: impl Into<String>) {
        let mut failure = self.failure.lock().unwrap_or_else(PoisonError::into_inner);
        if failure.is_none() {
            *failure = Some(reason.into());
        }
    }

    pub(crate) fn failure(&self) -> Option<String> {
        self.failure.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Keeps the last [`STDERR_TAIL`] bytes of stderr.
    pub(crate) fn stderr(&self, bytes: &[u8]) {
        let mut tail = self.stderr.lock().unwrap_or_else(PoisonError::into_inner);
        tail.extend_from_slice(bytes);
        if tail.len() > STDERR_TAIL {
            let cut = tail.len() - STDERR_TAIL;
            tail.drain(..cut);
        }
    }

    /// The stderr kept so far, as text (unsanitised: the engine sanitises what it shows).
    pub(crate) fn stderr_tail(&self) -> String {
        String::from_utf8_lossy(&self.stderr.lock().unwrap_or_else(PoisonError::into_inner)).into_owned()
    }

    /// `": <last line of stderr>"` for a message, or nothing.
    pub(crate) fn stderr_hint(&self) -> String {
        let tail = self.stderr_tail();
        match tail.lines().rev().find(|line| !line.trim().is_empty()) {
            Some(line) => {
                let line = line.trim();
                format!(" (its stderr ends: {})", &line[..line.floor_char_boundary(300)])
            }
            None => String::new(),
        }
    }
}
