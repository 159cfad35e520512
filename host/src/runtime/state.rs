//! The data of one store (one call): the WASI context built from the call's sandbox, the
//! `wasi:http` context and its gate, the memory limiter, the deadline and cancellation flag
//! read by the epoch callback, and the `airlock:host` imports (logging, live output, call
//! context).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use tokio::sync::mpsc;
use wasmtime::ResourceLimiter;
use wasmtime::component::ResourceTable;
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};
use wasmtime_wasi_http::{WasiHttpCtx, WasiHttpCtxView, WasiHttpView};

use super::bindings::airlock::host::{context, log, output};
use super::http::HttpGate;
use super::stdio::CapturedOutput;

/// Most log lines one call may write; the rest are dropped.
const MAX_LOG_LINES: u32 = 1_000;
/// Longest log line kept.
const MAX_LOG_LINE: usize = 4_096;
/// Most live output one call may send, in bytes.
const MAX_LIVE_OUTPUT: usize = 1 << 20;
/// What the front end is shown when live output hits the cap.
const LIVE_CAPPED_NOTE: &str = "\n[airlock: live output capped at 1 MiB; the rest was dropped]\n";

/// Set to stop every call that shares it (Ctrl-C, a cancelled batch).
#[derive(Debug, Clone, Default)]
pub struct CancelFlag(Arc<AtomicBool>);

impl CancelFlag {
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// Why the epoch callback stopped a guest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Interrupt {
    #[error("the call ran past its deadline")]
    Deadline,
    #[error("the call was cancelled")]
    Cancelled,
}

/// Caps linear memory and remembers whether the cap was hit, so a trap that follows can be
/// reported as memory exhaustion rather than as a plain crash.
#[derive(Debug)]
pub struct MemoryLimiter {
    pub limit: usize,
    pub hit: bool,
}

impl ResourceLimiter for MemoryLimiter {
    fn memory_growing(&mut self, _current: usize, desired: usize, _maximum: Option<usize>) -> wasmtime::Result<bool> {
        if desired > self.limit {
            self.hit = true;
            return Ok(false);
        }
        Ok(true)
    }

    fn table_growing(&mut self, _current: usize, desired: usize, _maximum: Option<usize>) -> wasmtime::Result<bool> {
        Ok(desired <= 1_000_000)
    }
}

/// Everything a store carries for one call.
pub struct CallState {
    pub wasi: WasiCtx,
    pub http: WasiHttpCtx,
    /// Checks every outgoing request against the call's network rules.
    pub http_gate: HttpGate,
    pub table: ResourceTable,
    pub limiter: MemoryLimiter,
    pub deadline: Instant,
    pub cancel: CancelFlag,
    pub stdout: CapturedOutput,
    pub stderr: CapturedOutput,
    pub label: Arc<str>,
    pub workspace_root: String,
    pub call_id: String,
    pub live_output: Option<mpsc::UnboundedSender<String>>,
    log_lines: u32,
    live_bytes: usize,
    live_capped: bool,
}

impl CallState {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        wasi: WasiCtx,
        http_gate: HttpGate,
        memory_limit: usize,
        deadline: Instant,
        cancel: CancelFlag,
        stdout: CapturedOutput,
        stderr: CapturedOutput,
        label: Arc<str>,
        workspace_root: String,
        call_id: String,
        live_output: Option<mpsc::UnboundedSender<String>>,
    ) -> Self {
        Self {
            wasi,
            http: WasiHttpCtx::new(),
            http_gate,
            table: ResourceTable::new(),
            limiter: MemoryLimiter { limit: memory_limit, hit: false },
            deadline,
            cancel,
            stdout,
            stderr,
            label,
            workspace_root,
            call_id,
            live_output,
            log_lines: 0,
            live_bytes: 0,
            live_capped: false,
        }
    }
}

impl WasiView for CallState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView { ctx: &mut self.wasi, table: &mut self.table }
    }
}

impl WasiHttpView for CallState {
    fn http(&mut self) -> WasiHttpCtxView<'_> {
        WasiHttpCtxView { ctx: &mut self.http, table: &mut self.table, hooks: &mut self.http_gate }
    }
}

impl log::Host for CallState {
    fn log(&mut self, level: log::Level, message: String) {
        self.log_lines += 1;
        if self.log_lines > MAX_LOG_LINES {
            if self.log_lines == MAX_LOG_LINES + 1 {
                tracing::warn!(
                    plugin = &*self.label,
                    call = self.call_id,
                    "more than {MAX_LOG_LINES} log lines; the rest of this call's are dropped"
                );
            }
            return;
        }
        let message = truncate_chars(&message, MAX_LOG_LINE);
        let (plugin, call) = (&*self.label, &self.call_id);
        match level {
            log::Level::Trace => tracing::trace!(plugin, call, "{message}"),
            log::Level::Debug => tracing::debug!(plugin, call, "{message}"),
            log::Level::Info => tracing::info!(plugin, call, "{message}"),
            log::Level::Warn => tracing::warn!(plugin, call, "{message}"),
            log::Level::Error => tracing::error!(plugin, call, "{message}"),
        }
    }
}

impl output::Host for CallState {
    fn emit(&mut self, chunk: String) {
        let Some(sender) = &self.live_output else { return };
        if self.live_capped {
            return;
        }
        // The note that says output was dropped fits inside the cap.
        let room = (MAX_LIVE_OUTPUT - LIVE_CAPPED_NOTE.len()).saturating_sub(self.live_bytes);
        let kept = truncate_chars(&chunk, room);
        self.live_bytes += kept.len();
        // The receiver may be gone when the front end stopped listening; that is fine.
        if !kept.is_empty() {
            let _ = sender.send(kept.to_string());
        }
        if kept.len() < chunk.len() {
            self.live_capped = true;
            let _ = sender.send(LIVE_CAPPED_NOTE.to_string());
        }
    }
}

impl context::Host for CallState {
    fn workspace_root(&mut self) -> String {
        self.workspace_root.clone()
    }

    fn call_id(&mut self) -> String {
        self.call_id.clone()
    }
}

/// The longest prefix of `text` that is at most `max` bytes and ends on a char boundary.
pub fn truncate_chars(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The contract's types interface has no functions; the linker only needs to know it.
impl super::bindings::types::Host for CallState {}
