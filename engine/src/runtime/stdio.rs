//! Guest stdout and stderr: captured into a capped in-memory buffer, never inherited. Past
//! the cap, writes still succeed (a chatty plugin is not killed for printing) but the bytes
//! are dropped and counted.

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use bytes::Bytes;
use tokio::io::AsyncWrite;
use wasmtime_wasi::cli::{IsTerminal, StdoutStream};
use wasmtime_wasi::p2::{OutputStream, Pollable, StreamResult};

#[derive(Debug, Default)]
struct Buffer {
    bytes: Vec<u8>,
    dropped: u64,
}

/// A capped capture of one guest output stream.
#[derive(Debug, Clone)]
pub struct CapturedOutput {
    cap: usize,
    buffer: Arc<Mutex<Buffer>>,
}

impl CapturedOutput {
    pub fn new(cap: usize) -> Self {
        Self { cap, buffer: Arc::default() }
    }

    /// What the guest wrote (up to the cap), lossily decoded, and how many bytes were
    /// dropped past the cap.
    pub fn contents(&self) -> (String, u64) {
        let buffer = self.buffer.lock().unwrap_or_else(PoisonError::into_inner);
        (String::from_utf8_lossy(&buffer.bytes).into_owned(), buffer.dropped)
    }

    /// Like [`Self::contents`], but empties the buffer, so each guest call's output is
    /// read (and logged) once. Cheap when nothing was written.
    pub fn take(&self) -> (String, u64) {
        let mut buffer = self.buffer.lock().unwrap_or_else(PoisonError::into_inner);
        if buffer.bytes.is_empty() && buffer.dropped == 0 {
            return (String::new(), 0);
        }
        let taken = std::mem::take(&mut *buffer);
        (String::from_utf8_lossy(&taken.bytes).into_owned(), taken.dropped)
    }

    fn write(&self, data: &[u8]) {
        let mut buffer = self.buffer.lock().unwrap_or_else(PoisonError::into_inner);
        let room = self.cap.saturating_sub(buffer.bytes.len());
        let kept = room.min(data.len());
        buffer.bytes.extend_from_slice(&data[..kept]);
        buffer.dropped += (data.len() - kept) as u64;
    }
}

impl IsTerminal for CapturedOutput {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdoutStream for CapturedOutput {
    fn async_stream(&self) -> Box<dyn AsyncWrite + Send + Sync> {
        Box::new(self.clone())
    }

    /// A synchronous stream: the default adapter would hand every write to a tokio task.
    fn p2_stream(&self) -> Box<dyn OutputStream> {
        Box::new(self.clone())
    }
}

impl OutputStream for CapturedOutput {
    fn write(&mut self, bytes: Bytes) -> StreamResult<()> {
        CapturedOutput::write(self, &bytes);
        Ok(())
    }

    fn flush(&mut self) -> StreamResult<()> {
        Ok(())
    }

    fn check_write(&mut self) -> StreamResult<usize> {
        // Always ready: past the cap, writes are accepted and dropped.
        Ok(64 * 1024)
    }
}

#[wasmtime_wasi::async_trait]
impl Pollable for CapturedOutput {
    async fn ready(&mut self) {}
}

impl AsyncWrite for CapturedOutput {
    fn poll_write(self: Pin<&mut Self>, _cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
        self.write(data);
        Poll::Ready(Ok(data.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
#[path = "stdio_tests.rs"]
mod tests;
