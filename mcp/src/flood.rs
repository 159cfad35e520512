//! The guard on what a server writes to airlock: a message longer than [`MAX_MESSAGE`]
//! (one JSON-RPC line) or more than [`FLOOD_BYTES`] within [`FLOOD_WINDOW`] is a flood.
//! rmcp's own line cap drops an oversized line and reads on, which leaves a server that
//! writes without end costing airlock a core; this guard ends the connection instead and
//! records why, once.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, ReadBuf};

use crate::health::Health;

/// Longest message (one line) a server may send.
pub const MAX_MESSAGE: usize = 16 << 20;
/// Most bytes a server may send within [`FLOOD_WINDOW`].
pub const FLOOD_BYTES: u64 = 256 << 20;
/// The window [`FLOOD_BYTES`] is counted over.
pub const FLOOD_WINDOW: Duration = Duration::from_secs(10);

pub(crate) struct FloodGuard<R> {
    inner: R,
    max_message: usize,
    /// Bytes since the last newline.
    line: usize,
    window_start: Instant,
    window_bytes: u64,
    health: Arc<Health>,
    tripped: bool,
}

impl<R> FloodGuard<R> {
    pub(crate) fn new(inner: R, max_message: usize, health: Arc<Health>) -> Self {
        Self { inner, max_message, line: 0, window_start: Instant::now(), window_bytes: 0, health, tripped: false }
    }

    /// Counts `bytes`; the reason when they make a flood.
    fn count(&mut self, bytes: &[u8]) -> Option<String> {
        for chunk in bytes.split_inclusive(|b| *b == b'\n') {
            self.line += chunk.len();
            if self.line > self.max_message {
                return Some(format!(
                    "the server sent a message longer than {} bytes (a flood); airlock cut the connection",
                    self.max_message
                ));
            }
            if chunk.ends_with(b"\n") {
                self.line = 0;
            }
        }
        if self.window_start.elapsed() > FLOOD_WINDOW {
            self.window_start = Instant::now();
            self.window_bytes = 0;
        }
        self.window_bytes += bytes.len() as u64;
        (self.window_bytes > FLOOD_BYTES).then(|| {
            format!(
                "the server sent more than {} MiB within {} s (a flood); airlock cut the connection",
                FLOOD_BYTES >> 20,
                FLOOD_WINDOW.as_secs()
            )
        })
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for FloodGuard<R> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        if self.tripped {
            return Poll::Ready(Err(io::Error::other("the server flooded airlock")));
        }
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = &polled {
            let fresh = buf.filled()[before..].to_vec();
            if let Some(reason) = self.count(&fresh) {
                self.tripped = true;
                self.health.fail(reason);
                buf.set_filled(before);
                return Poll::Ready(Err(io::Error::other("the server flooded airlock")));
            }
        }
        polled
    }
}

#[cfg(test)]
#[path = "flood_tests.rs"]
mod tests;
