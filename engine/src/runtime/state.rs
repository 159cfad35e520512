//! The data of one store (one call): the WASI context built from the call's sandbox, the
//! `wasi:http` context and its gate, the resource limiter, the deadline and cancellation flag
//! read by the epoch callback, and the `airlock:host` imports (logging, live output, call
//! context).
//!
//! Invariants: the limiter caps what the whole store holds (the sum of its linear memories
//! and table elements, the count of its instances, memories and tables), never one memory at
//! a time; live output is capped in bytes (1 MiB per call) and coalesced into at most one
//! message per [`LIVE_INTERVAL`] (or per 64 KiB), whatever the size of the chunks.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;
use wasmtime::ResourceLimiter;
use wasmtime::component::ResourceTable;
use wasmtime_wasi::{FsPerms, WasiCtx, WasiCtxBuilder, WasiCtxView, WasiView};
use wasmtime_wasi_http::{WasiHttpCtx, WasiHttpCtxView, WasiHttpView};

use super::bindings::v1::airlock::host::{context, log, output};
use super::bindings::v2::airlock::host as host_v2;
use super::http::HttpGate;
use super::process::CallProcesses;
use super::stdio::CapturedOutput;
use super::{CallFault, STDIO_CAP, Sandbox};
use crate::paths::WorkspaceAliases;

/// Most log lines one call may write; the rest are dropped.
const MAX_LOG_LINES: u32 = 1_000;
/// Longest log line kept.
const MAX_LOG_LINE: usize = 4_096;
/// Most live output one call may send, in bytes.
const MAX_LIVE_OUTPUT: usize = 1 << 20;
/// What the front end is shown when live output hits the cap.
const LIVE_CAPPED_NOTE: &str = "\n[airlock: live output capped at 1 MiB; the rest was dropped]\n";
/// Live output is sent on at most once per interval (the rest is held and sent together), so
/// a million one-byte chunks do not become a million messages.
pub const LIVE_INTERVAL: Duration = Duration::from_millis(50);
/// Held live output past this size is sent at once.
const LIVE_BATCH: usize = 64 * 1024;

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

    /// Whether `other` is this very flag (set together), not just one in the same state.
    pub fn is(&self, other: &CancelFlag) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
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

/// Most core instances one store may create. A Rust or C component needs a handful, a
/// Python or JavaScript one a dozen; hundreds are an attack on the host's memory.
pub const MAX_INSTANCES: usize = 64;
/// Most linear memories one store may create (a component usually has one or two). With
/// [`MAX_INSTANCES`] this also bounds the address space a store reserves: each memory
/// reserves at most 4 GiB plus a 32 MiB guard (wasmtime's defaults), whatever its index type.
pub const MAX_MEMORIES: usize = 16;
/// Most tables one store may create.
pub const MAX_TABLES: usize = 32;
/// Most table elements, summed over all the tables of a store: each costs the host a pointer
/// or two, outside the linear-memory cap.
pub const MAX_TABLE_ELEMENTS: usize = 1 << 20;

/// Which store-wide limit a guest ran into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitHit {
    Memory,
    TableElements,
}

/// The resource limiter of one store. It caps the *sum* of all linear memories of the store
/// (every core instance of every nested component counts, from its initial size on) and the
/// sum of all table elements, and the number of instances, memories and tables. It remembers
/// which cap was hit, so a trap that follows is reported as exhaustion, not as a crash.
///
/// wasmtime calls `memory_growing(0, initial)` when it creates a memory and
/// `memory_growing(current, desired)` before each growth, so the running sum is exact.
/// A growth approved here that wasmtime then fails (the OS refused the pages) stays
/// counted: the sum may overstate what is mapped, never understate it.
#[derive(Debug)]
pub struct MemoryLimiter {
    /// Bytes of linear memory the whole store may hold.
    pub limit: usize,
    /// Bytes of linear memory the store holds (or was allowed to grow to).
    memory: usize,
    table_elements: usize,
    pub hit: Option<LimitHit>,
    /// Where the largest sum reached is recorded (the call's cost).
    meter: Arc<super::UsageMeter>,
}

impl MemoryLimiter {
    pub fn new(limit: usize, meter: Arc<super::UsageMeter>) -> Self {
        Self { limit, memory: 0, table_elements: 0, hit: None, meter }
    }
}

impl ResourceLimiter for MemoryLimiter {
    fn memory_growing(&mut self, current: usize, desired: usize, maximum: Option<usize>) -> wasmtime::Result<bool> {
        // Past the memory's own maximum wasmtime refuses the growth itself: nothing to count.
        if maximum.is_some_and(|maximum| desired > maximum) {
            return Ok(false);
        }
        let total = self.memory.saturating_add(desired.saturating_sub(current));
        if total > self.limit {
            self.hit = Some(LimitHit::Memory);
            return Ok(false);
        }
        self.memory = total;
        self.meter.memory(total);
        Ok(true)
    }

    fn table_growing(&mut self, current: usize, desired: usize, maximum: Option<usize>) -> wasmtime::Result<bool> {
        if maximum.is_some_and(|maximum| desired > maximum) {
            return Ok(false);
        }
        let total = self.table_elements.saturating_add(desired.saturating_sub(current));
        if total > MAX_TABLE_ELEMENTS {
            self.hit = Some(LimitHit::TableElements);
            return Ok(false);
        }
        self.table_elements = total;
        Ok(true)
    }

    fn instances(&self) -> usize {
        MAX_INSTANCES
    }

    fn tables(&self) -> usize {
        MAX_TABLES
    }

    fn memories(&self) -> usize {
        MAX_MEMORIES
    }
}

/// The WASI context of a call: captured stdio, exactly the sandbox's environment, no
/// sockets, and its preopens — a folder of the workspace also under each of the workspace's
/// `aliases`, as the same open folder with the same access.
fn wasi_context(
    sandbox: &Sandbox,
    aliases: &WorkspaceAliases,
    stdout: &CapturedOutput,
    stderr: &CapturedOutput,
) -> Result<WasiCtx, CallFault> {
    let mut wasi = WasiCtxBuilder::new();
    wasi.stdout(stdout.clone()).stderr(stderr.clone()).allow_blocking_current_thread(true);
    wasi.envs(&sandbox.env);
    // The defaults already deny these; saying so keeps it true if a default changes.
    // Never `inherit_network`: wasi:http (gated) is the only way out.
    wasi.allow_tcp(false).allow_udp(false).allow_ip_name_lookup(false);
    for preopen in &sandbox.preopens {
        let perms = if preopen.writable { FsPerms::ReadWrite } else { FsPerms::ReadOnly };
        // The folder was resolved (and checked) by its canonical path; opening it again
        // without following any link means a link swapped in since — by another call of
        // the batch, say — fails the open instead of leading out of the grant. wasmtime
        // opens by path, so it is handed the handle's own `/proc/self/fd` path.
        let opened = airlock_files::open_dir(&preopen.host).map_err(|e| {
            CallFault::Instantiate(format!("cannot open {} for the plugin: {e}", preopen.host.display()))
        })?;
        let spellings = aliases.spellings(&preopen.host).into_iter().map(|p| p.to_string_lossy().into_owned());
        for guest in std::iter::once(preopen.guest.clone()).chain(spellings) {
            wasi.preopened_dir(opened.wasi_path(), &guest, perms).map_err(|e| {
                CallFault::Instantiate(format!("cannot open {} for the plugin: {e:#}", preopen.host.display()))
            })?;
        }
    }
    Ok(wasi.build())
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
    /// Where the call's usage is added up (file bytes are counted by `metered`).
    pub meter: Arc<super::UsageMeter>,
    pub workspace_root: String,
    pub call_id: String,
    pub live_output: Option<mpsc::UnboundedSender<String>>,
    /// The children the call may start, and has started.
    pub processes: CallProcesses,
    /// Files the guest created under airlock's temporary naming: those still there when the
    /// instance goes are removed ([`super::temp_files`]).
    pub temp_files: airlock_files::leftovers::CallTemps,
    log_lines: u32,
    live_bytes: usize,
    live_capped: bool,
    /// Live output held back until the interval is over.
    live_pending: String,
    live_sent: Option<Instant>,
}

impl CallState {
    /// The state of one call inside `sandbox`: its preopens opened (never through a link),
    /// exactly its environment, captured stdio, its network gate, its memory cap and its
    /// deadline, which starts now.
    pub fn new(sandbox: &Sandbox, label: Arc<str>, aliases: &WorkspaceAliases) -> Result<Self, CallFault> {
        let stdout = CapturedOutput::new(STDIO_CAP);
        let stderr = CapturedOutput::new(STDIO_CAP);
        let wasi = wasi_context(sandbox, aliases, &stdout, &stderr)?;
        let deadline = Instant::now() + sandbox.deadline;
        Ok(Self {
            wasi,
            http: WasiHttpCtx::new(),
            http_gate: HttpGate::new(
                sandbox.network.clone(),
                deadline,
                sandbox.http_response_cap,
                sandbox.meter.clone(),
            ),
            table: ResourceTable::new(),
            limiter: MemoryLimiter::new(sandbox.memory_limit, sandbox.meter.clone()),
            deadline,
            cancel: sandbox.cancel.clone(),
            stdout,
            stderr,
            label,
            meter: sandbox.meter.clone(),
            workspace_root: sandbox.workspace_root.clone(),
            call_id: sandbox.call_id.clone(),
            live_output: sandbox.live_output.clone(),
            processes: CallProcesses::new(sandbox.processes.clone()),
            temp_files: airlock_files::leftovers::CallTemps::default(),
            log_lines: 0,
            live_bytes: 0,
            live_capped: false,
            live_pending: String::new(),
            live_sent: None,
        })
    }

    /// Sends the held live output: always when `force`, else only once [`LIVE_INTERVAL`] has
    /// passed since the last send or [`LIVE_BATCH`] bytes are held. Called by `emit`, at
    /// every epoch tick and when a guest call ends.
    pub fn flush_live_output(&mut self, force: bool) {
        if self.live_pending.is_empty() {
            return;
        }
        let recent = self.live_sent.is_some_and(|sent| sent.elapsed() < LIVE_INTERVAL);
        if !force && recent && self.live_pending.len() < LIVE_BATCH {
            return;
        }
        let chunk = std::mem::take(&mut self.live_pending);
        // The receiver may be gone when the front end stopped listening; that is fine.
        if let Some(sender) = &self.live_output {
            let _ = sender.send(chunk);
        }
        self.live_sent = Some(Instant::now());
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
        let message = &message[..message.floor_char_boundary(MAX_LOG_LINE)];
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
        if self.live_output.is_none() || self.live_capped {
            return;
        }
        // The note that says output was dropped fits inside the cap.
        let room = (MAX_LIVE_OUTPUT - LIVE_CAPPED_NOTE.len()).saturating_sub(self.live_bytes);
        let kept = &chunk[..chunk.floor_char_boundary(room)];
        self.live_bytes += kept.len();
        self.live_pending.push_str(kept);
        if kept.len() < chunk.len() {
            self.live_capped = true;
            self.live_pending.push_str(LIVE_CAPPED_NOTE);
            self.flush_live_output(true);
            return;
        }
        self.flush_live_output(false);
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

/// The contract's types interface has no functions; the linker only needs to know it.
impl super::bindings::types::Host for CallState {}

// Contract 0.2.0's log, output and context are 0.1.0's, under the new version's names.
impl host_v2::log::Host for CallState {
    fn log(&mut self, level: host_v2::log::Level, message: String) {
        let level = match level {
            host_v2::log::Level::Trace => log::Level::Trace,
            host_v2::log::Level::Debug => log::Level::Debug,
            host_v2::log::Level::Info => log::Level::Info,
            host_v2::log::Level::Warn => log::Level::Warn,
            host_v2::log::Level::Error => log::Level::Error,
        };
        log::Host::log(self, level, message);
    }
}

impl host_v2::output::Host for CallState {
    fn emit(&mut self, chunk: String) {
        output::Host::emit(self, chunk);
    }
}

impl host_v2::context::Host for CallState {
    fn workspace_root(&mut self) -> String {
        context::Host::workspace_root(self)
    }

    fn call_id(&mut self) -> String {
        context::Host::call_id(self)
    }
}
