//! The sandboxed component runtime. One wasmtime [`Engine`] per process with epoch
//! interruption (a 10 ms ticker thread); each component compiled once and cached on disk
//! ([`cache`]), pre-linked once ([`InstancePre`]), instantiated from pools reserved once
//! ([`pool`]); a fresh store and instance for every call (one for its checks and its
//! execution when both hold the same sandbox, [`parking`]), holding only what its
//! [`Sandbox`] grants: the listed preopens, captured stdio, exactly the listed environment
//! variables (never the host's), `wasi:http` requests to the listed destinations only
//! ([`http`]), a memory cap and a wall-clock deadline. Raw sockets (`wasi:sockets` TCP, UDP
//! and name lookup) are linked but always denied.
//!
//! Limits hold per store *and* per process: a store's limiter caps the sum of all its linear
//! memories and table elements and the number of its instances, memories and tables
//! ([`state::MemoryLimiter`]); the process budget ([`budget`]) bounds how many instances are
//! alive at once and what their memory caps add up to. Every string a guest returns is capped
//! where it becomes a host value ([`convert`]).
//!
//! A guest that traps, exits, runs past its deadline or exhausts its memory becomes a
//! [`CallFault`]; the store is dropped and nothing of it survives.

mod bindings;
mod budget;
pub(crate) mod cache;
mod code_config;
mod connect;
mod convert;
mod metered;
/// The most of an edit's original or proposed content a confirmation holds whole; a longer
/// one arrives cut, with a note.
pub use convert::MAX_CONTENT as MAX_EDIT_CONTENT;
mod fault;
mod gate;
mod hook;
mod http;
mod parking;
mod pool;
pub(crate) mod process;
mod readdir;
mod sealed;
mod state;
mod stdio;
mod temp_files;

use std::fmt;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use tokio::sync::mpsc;
use wasmtime::component::{Component, Linker};
use wasmtime::{Engine, Store, UpdateDeadline};

use crate::capability::Preopen;
use crate::capability::net::NetRule;
use crate::contract::{Confirmation, PluginInfo, ToolOutput};
use budget::{Budget, Permits};
pub use budget::{DEFAULT_LIVE_INSTANCES, DEFAULT_MEMORY_BUDGET, ProcessLimits};
pub use cache::{CacheOutcome, CompileCache};
#[cfg(test)]
pub use code_config::code_config as code_config_for_tests;
pub use fault::CallFault;
use fault::classify;
pub use gate::{ApprovedLine, Gate};
pub use hook::{HookAnswer, MAX_REPLY_ARGUMENTS, MAX_REPLY_TEXT};
pub use http::{DenialReason, NetDenial};
pub use parking::Parked;
pub use process::ProcessAccess;
pub use state::CancelFlag;
use state::{CallState, Interrupt};

/// How often the epoch advances; deadlines are checked at this granularity.
const EPOCH_TICK: Duration = Duration::from_millis(10);
/// Bytes of guest stdout/stderr kept per stream and call.
const STDIO_CAP: usize = 64 * 1024;
/// Bytes of one HTTP response body a guest may read, unless its sandbox says otherwise.
pub const DEFAULT_HTTP_RESPONSE_CAP: usize = 10 << 20;

/// Why the runtime could not prepare a component.
#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    #[error("cannot set up the WebAssembly engine: {0}")]
    Engine(String),
    #[error("not a valid WebAssembly component: {0}")]
    Compile(String),
    #[error("the component cannot be linked: {0}")]
    Link(String),
    #[error("cannot read {path}: {reason}")]
    Read { path: PathBuf, reason: String },
}

/// What one call's instance gets.
#[derive(Clone)]
pub struct Sandbox {
    pub preopens: Vec<Preopen>,
    pub memory_limit: usize,
    pub deadline: Duration,
    pub workspace_root: String,
    pub call_id: String,
    pub cancel: CancelFlag,
    /// Where live output goes; `None` drops it.
    pub live_output: Option<mpsc::UnboundedSender<String>>,
    /// The `wasi:http` destinations the guest may reach; empty: no network at all.
    pub network: Vec<NetRule>,
    /// Exactly the environment variables the guest sees, with their values.
    pub env: Vec<(String, String)>,
    /// Bytes of each HTTP response body the guest may read; the read past it fails.
    pub http_response_cap: usize,
    /// Where the instance's usage is added up (shared by every instance of one call).
    pub meter: Arc<UsageMeter>,
    /// What the call's children may get; `None`: it starts nothing (every check phase, every
    /// tool not granted `processes`).
    pub processes: Option<ProcessAccess>,
}

/// What the instances of one call used, as the host measured it: the largest linear memory
/// one of them held at once, and the HTTP requests they sent (allowed or refused). Atomics:
/// updated on a memory growth and on a request, never per instruction.
#[derive(Debug, Default)]
pub struct UsageMeter {
    peak_memory: std::sync::atomic::AtomicU64,
    network_requests: std::sync::atomic::AtomicU32,
    bytes_read: std::sync::atomic::AtomicU64,
    bytes_written: std::sync::atomic::AtomicU64,
    /// The commands the call's instances ran to their end (`None`: none).
    commands: std::sync::Mutex<Option<airlock_process::CommandRun>>,
}

impl UsageMeter {
    pub fn memory(&self, bytes: usize) {
        self.peak_memory.fetch_max(bytes as u64, std::sync::atomic::Ordering::Relaxed);
    }

    pub fn request(&self) {
        self.network_requests.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// Bytes a guest read from a file ([`metered`]).
    pub fn read(&self, bytes: usize) {
        self.bytes_read.fetch_add(bytes as u64, std::sync::atomic::Ordering::Relaxed);
    }

    /// Bytes a guest wrote to a file ([`metered`]).
    pub fn written(&self, bytes: usize) {
        self.bytes_written.fetch_add(bytes as u64, std::sync::atomic::Ordering::Relaxed);
    }

    pub fn bytes_read(&self) -> u64 {
        self.bytes_read.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub fn bytes_written(&self) -> u64 {
        self.bytes_written.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The largest linear memory (all memories of one instance together), in bytes.
    pub fn peak_memory(&self) -> u64 {
        self.peak_memory.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub fn network_requests(&self) -> u32 {
        self.network_requests.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// A command the call started ended ([`process`]: once per command).
    pub fn command_ended(&self, exit: &airlock_process::ExitInfo) {
        let mut commands = self.commands.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        commands.get_or_insert_with(Default::default).add(exit);
    }

    /// How the call's commands ended and what they used, when it ran any to their end.
    pub fn commands(&self) -> Option<airlock_process::CommandRun> {
        *self.commands.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Lists the environment by name only: the values are often secrets.
impl fmt::Debug for Sandbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sandbox")
            .field("preopens", &self.preopens)
            .field("memory_limit", &self.memory_limit)
            .field("deadline", &self.deadline)
            .field("workspace_root", &self.workspace_root)
            .field("call_id", &self.call_id)
            .field("network", &self.network)
            .field("env", &self.env.iter().map(|(name, _)| name).collect::<Vec<_>>())
            .field("http_response_cap", &self.http_response_cap)
            .field("processes", &self.processes)
            .finish_non_exhaustive()
    }
}

impl Sandbox {
    /// Whether an instance made for this sandbox holds exactly what one made for `other`
    /// would — the same folders with the same access, network rules, environment, limits,
    /// call, cancellation and meter — and neither starts programs nor sends live output.
    /// Then one instance may serve both (a call's checks and its execution).
    pub fn holds_the_same(&self, other: &Sandbox) -> bool {
        let Sandbox {
            preopens,
            memory_limit,
            deadline,
            workspace_root,
            call_id,
            cancel,
            live_output,
            network,
            env,
            http_response_cap,
            meter,
            processes,
        } = self;
        *preopens == other.preopens
            && *memory_limit == other.memory_limit
            && *deadline == other.deadline
            && *workspace_root == other.workspace_root
            && *call_id == other.call_id
            && cancel.is(&other.cancel)
            && live_output.is_none()
            && other.live_output.is_none()
            && *network == other.network
            && *env == other.env
            && *http_response_cap == other.http_response_cap
            && Arc::ptr_eq(meter, &other.meter)
            && processes.is_none()
            && other.processes.is_none()
    }

    /// A sandbox with nothing in it: no files, no network, no environment, the given limits.
    pub fn empty(memory_limit: usize, deadline: Duration) -> Self {
        Self {
            preopens: Vec::new(),
            memory_limit,
            deadline,
            workspace_root: String::new(),
            call_id: String::new(),
            cancel: CancelFlag::default(),
            live_output: None,
            network: Vec::new(),
            env: Vec::new(),
            http_response_cap: DEFAULT_HTTP_RESPONSE_CAP,
            meter: Arc::default(),
            processes: None,
        }
    }
}

/// Told, in a line for people, when a component is about to be compiled (it can take
/// seconds): the front end shows it, so a first load is not silence.
pub type Announce = Arc<dyn Fn(&str) + Send + Sync>;

/// The process-wide runtime.
pub struct Runtime {
    engine: Engine,
    linker: Linker<CallState>,
    cache: CompileCache,
    budget: Budget,
    announce: std::sync::Mutex<Option<Announce>>,
    parking: parking::Parking,
    /// The other names of the workspace: its folders are preopened under them too.
    workspace_aliases: std::sync::RwLock<Arc<crate::paths::WorkspaceAliases>>,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime").field("cache", &self.cache).field("budget", &self.budget).finish_non_exhaustive()
    }
}

impl Runtime {
    /// Creates the engine, the linker and the epoch ticker, with the default process budget.
    pub fn new(cache_dir: PathBuf) -> Result<Self, RuntimeError> {
        Self::with_limits(cache_dir, ProcessLimits::default())
    }

    /// Like [`Self::new`], with the compile cache's key in `key_file` instead of the cache
    /// folder (the binary keeps it in `$AIRLOCK_HOME`).
    pub fn with_key(cache_dir: PathBuf, key_file: &Path) -> Result<Self, RuntimeError> {
        Self::build(cache_dir, key_file, ProcessLimits::default())
    }

    /// Like [`Self::new`], with a process budget of `limits`.
    pub fn with_limits(cache_dir: PathBuf, limits: ProcessLimits) -> Result<Self, RuntimeError> {
        let key_file = cache_dir.join("mac.key");
        Self::build(cache_dir, &key_file, limits)
    }

    fn build(cache_dir: PathBuf, key_file: &Path, limits: ProcessLimits) -> Result<Self, RuntimeError> {
        let mut config = code_config::code_config();
        // Address space: wasmtime's defaults reserve 4 GiB plus 32 MiB guards per linear
        // memory, 32- or 64-bit alike (a larger one only when its initial size is larger,
        // which the store's limiter refuses first). The memories of a store and the live
        // stores of the process are counted, so the process's reservations are bounded.
        // Shared memories, which no limiter sees, need wasmtime's `threads` feature: it is off.
        // The instance pool, sized from the process budget, is set on top of these settings.
        let engine = pool::engine(&mut config, limits)?;
        let mut linker = Linker::new(&engine);
        wasmtime_wasi::p2::add_to_linker_async(&mut linker).map_err(|e| RuntimeError::Link(format!("{e:#}")))?;
        metered::add_to_linker(&mut linker).map_err(|e| RuntimeError::Link(format!("{e:#}")))?;
        temp_files::add_to_linker(&mut linker).map_err(|e| RuntimeError::Link(format!("{e:#}")))?;
        readdir::add_to_linker(&mut linker).map_err(|e| RuntimeError::Link(format!("{e:#}")))?;
        wasmtime_wasi_http::p2::add_only_http_to_linker_async(&mut linker)
            .map_err(|e| RuntimeError::Link(format!("{e:#}")))?;
        // Every released contract version, side by side.
        bindings::v1::Plugin::add_to_linker::<_, wasmtime::component::HasSelf<_>>(&mut linker, |state| state)
            .map_err(|e| RuntimeError::Link(format!("{e:#}")))?;
        bindings::v2::Plugin::add_to_linker::<_, wasmtime::component::HasSelf<_>>(&mut linker, |state| state)
            .map_err(|e| RuntimeError::Link(format!("{e:#}")))?;
        spawn_epoch_ticker(&engine);
        let cache = CompileCache::new(cache_dir, key_file, &engine);
        Ok(Self {
            engine,
            linker,
            cache,
            budget: Budget::new(limits),
            announce: std::sync::Mutex::new(None),
            parking: parking::Parking::default(),
            workspace_aliases: std::sync::RwLock::default(),
        })
    }

    /// Gives every later instance the workspace's folders under the user's other names for
    /// the workspace as well (the same open folder, the same access): a path in the user's
    /// spelling then reaches the folder it names.
    pub fn alias_workspace(&self, aliases: crate::paths::WorkspaceAliases) {
        *self.workspace_aliases.write().unwrap_or_else(std::sync::PoisonError::into_inner) = Arc::new(aliases);
    }

    /// Who is told of compiles from now on; `None`: nobody.
    pub fn announce_compiles(&self, announce: Option<Announce>) {
        *self.announce.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = announce;
    }

    /// Who is told of compiles, if anyone.
    pub fn announcer(&self) -> Option<Announce> {
        self.announce.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    pub fn cache(&self) -> &CompileCache {
        &self.cache
    }

    /// What all the live instances of this process may hold together.
    pub fn process_limits(&self) -> ProcessLimits {
        self.budget.limits()
    }

    /// Loads a component (from the compile cache, or compiling it) and links it.
    pub fn load(
        &self,
        content_hash: &str,
        bytes: impl FnOnce() -> Result<Vec<u8>, RuntimeError>,
    ) -> Result<(LoadedComponent, CacheOutcome), RuntimeError> {
        let (component, outcome) = self.cache.load(&self.engine, content_hash, bytes)?;
        Ok((self.link(&component)?, outcome))
    }

    /// Loads a component on a blocking thread, so several compile at once, and links it.
    /// `native` is a built-in's precompiled code, used when it fits the engine. Before a
    /// compile, `compiling` gets the component's size.
    pub async fn load_in_background(
        &self,
        content_hash: &str,
        native: Option<&'static [u8]>,
        bytes: impl FnOnce() -> Result<Vec<u8>, RuntimeError> + Send + 'static,
        compiling: impl FnOnce(usize) + Send + 'static,
    ) -> Result<(LoadedComponent, CacheOutcome), RuntimeError> {
        if let Some(linked) = self.link_precompiled(native) {
            return Ok((linked?, CacheOutcome::Precompiled));
        }
        let (engine, cache, hash) = (self.engine.clone(), self.cache.clone(), content_hash.to_string());
        let (component, outcome) = tokio::task::spawn_blocking(move || {
            cache.load_announcing(&engine, &hash, bytes, |bytes| compiling(bytes.len()))
        })
        .await
        .map_err(|e| RuntimeError::Compile(format!("the compile stopped: {e}")))??;
        Ok((self.link(&component)?, outcome))
    }

    /// Like [`Self::load`] for a component that may have precompiled code (`native`).
    pub fn load_native(
        &self,
        content_hash: &str,
        native: Option<&'static [u8]>,
        bytes: impl FnOnce() -> Result<Vec<u8>, RuntimeError>,
    ) -> Result<(LoadedComponent, CacheOutcome), RuntimeError> {
        match self.link_precompiled(native) {
            Some(linked) => Ok((linked?, CacheOutcome::Precompiled)),
            None => self.load(content_hash, bytes),
        }
    }

    /// `native`, a built-in's precompiled code, linked — `None` when there is none or it
    /// does not fit this engine (then the component is compiled).
    fn link_precompiled(&self, native: Option<&'static [u8]>) -> Option<Result<LoadedComponent, RuntimeError>> {
        native.and_then(|native| cache::precompiled(&self.engine, native)).map(|component| self.link(&component))
    }

    /// Links a component as a hook or a tool, by what it exports, of whichever contract
    /// version it exports (the newest first).
    fn link(&self, component: &Component) -> Result<LoadedComponent, RuntimeError> {
        let link_error = |e: wasmtime::Error| RuntimeError::Link(format!("{e:#}"));
        let (exports, names) = hook::exports_of(&self.engine, component);
        if exports == hook::Exports::Neither {
            let names = if names.is_empty() { "nothing".to_string() } else { names.join(", ") };
            return Err(RuntimeError::Link(format!(
                "it exports neither `airlock:tool/tool` (a tool) nor `airlock:hook/handler` (a hook), but {names}"
            )));
        }
        let pre = self.linker.instantiate_pre(component).map_err(link_error)?;
        let pre = match exports {
            hook::Exports::Hook => Pre::Hook(bindings::hook::HookPre::new(pre).map_err(link_error)?),
            _ => match bindings::v2::PluginPre::new(pre.clone()) {
                Ok(v2) => Pre::V2(v2),
                Err(_) => Pre::V1(bindings::v1::PluginPre::new(pre).map_err(link_error)?),
            },
        };
        Ok(LoadedComponent { pre: Arc::new(pre) })
    }

    /// Starts a fresh instance of `component` inside `sandbox`, once the process budget has
    /// room for it (waiting at most the sandbox's deadline, and not after it is cancelled).
    pub async fn instantiate(
        &self,
        component: &LoadedComponent,
        label: Arc<str>,
        sandbox: &Sandbox,
    ) -> Result<Instance, CallFault> {
        let permits = self.permits(sandbox).await?;
        let aliases = self.workspace_aliases.read().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
        let state = CallState::new(sandbox, label, &aliases)?;
        let mut store = new_store(&self.engine, state);
        let deadline = sandbox.deadline;
        let instantiated = match &*component.pre {
            Pre::V1(pre) => pre.instantiate_async(&mut store).await.map(Plugin::V1),
            Pre::V2(pre) => pre.instantiate_async(&mut store).await.map(Plugin::V2),
            Pre::Hook(pre) => pre.instantiate_async(&mut store).await.map(Plugin::Hook),
        };
        match instantiated {
            Ok(plugin) => Ok(Instance { store, plugin, deadline, faulted: false, _permits: permits }),
            Err(error) => Err(match classify(&store, deadline, &error) {
                CallFault::Trap(message) => CallFault::Instantiate(message),
                fault => fault,
            }),
        }
    }
}

/// A store for one call: its limiter installed, its deadline checked at every epoch tick.
/// The only way the runtime makes stores, so no store escapes the limits.
fn new_store(engine: &Engine, state: CallState) -> Store<CallState> {
    let mut store = Store::new(engine, state);
    store.limiter(|state| &mut state.limiter);
    // A new store's deadline is "now": set it before instantiating, or instantiation
    // itself is interrupted.
    store.set_epoch_deadline(1);
    store.epoch_deadline_callback(|mut context| {
        let state = context.data_mut();
        if state.cancel.is_cancelled() {
            return Err(Interrupt::Cancelled.into());
        }
        if Instant::now() >= state.deadline {
            return Err(Interrupt::Deadline.into());
        }
        // Live output held back to coalesce it goes out at least once per interval.
        state.flush_live_output(false);
        Ok(UpdateDeadline::Yield(1))
    });
    store
}

/// A component ready to instantiate.
#[derive(Clone)]
pub struct LoadedComponent {
    pre: Arc<Pre>,
}

impl LoadedComponent {
    /// The contract version the component was built against (`0.1.0`, `0.2.0`; `0.3.0`
    /// for a hook).
    pub fn contract_version(&self) -> &'static str {
        match &*self.pre {
            Pre::V1(_) => "0.1.0",
            Pre::V2(_) => "0.2.0",
            Pre::Hook(_) => "0.3.0",
        }
    }

    /// Whether it is a hook (`airlock:hook/handler`), not a tool.
    pub fn is_hook(&self) -> bool {
        matches!(&*self.pre, Pre::Hook(_))
    }
}

/// A pre-linked component, by contract version.
enum Pre {
    V1(bindings::v1::PluginPre<CallState>),
    V2(bindings::v2::PluginPre<CallState>),
    Hook(bindings::hook::HookPre<CallState>),
}

/// An instance's exports, by contract version; the tool versions give the same Rust types.
enum Plugin {
    V1(bindings::v1::Plugin),
    V2(bindings::v2::Plugin),
    Hook(bindings::hook::Hook),
}

/// Calls one export of whichever version `$plugin` is.
macro_rules! call_export {
    ($instance:expr, $method:ident ( $($arg:expr),* )) => {{
        let watch = $instance.watch();
        let store = &mut $instance.store;
        let result = match &$instance.plugin {
            Plugin::V1(plugin) => watch.guard(plugin.airlock_tool_tool().$method(store, $($arg),*)).await,
            Plugin::V2(plugin) => watch.guard(plugin.airlock_tool_tool().$method(store, $($arg),*)).await,
            // The registry never offers a hook as a tool.
            Plugin::Hook(_) => return Err(CallFault::Instantiate("the component is a hook, not a tool".into())),
        };
        $instance.finish(result)
    }};
}

impl std::fmt::Debug for LoadedComponent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadedComponent").finish_non_exhaustive()
    }
}

/// A live instance: one call's worth of guest. Dropped after the call.
pub struct Instance {
    store: Store<CallState>,
    plugin: Plugin,
    deadline: Duration,
    /// A call of it did not return normally: it is never used for another call.
    faulted: bool,
    /// Its room in the process budget; declared last, so it is given back after the store
    /// (and its memory) is gone.
    _permits: Permits,
}

/// A guest's own answer: `Ok` or the typed error it returned.
pub type GuestResult<T> = Result<T, crate::contract::ToolError>;

impl Instance {
    /// `describe()`: the raw self-description (validated by the registry).
    pub async fn describe(&mut self) -> Result<PluginInfo, CallFault> {
        let info = call_export!(self, call_describe())?;
        Ok(convert::plugin_info(info))
    }

    pub async fn validate(&mut self, tool: &str, args: &str) -> Result<GuestResult<()>, CallFault> {
        Ok(call_export!(self, call_validate(tool, args))?.map_err(convert::tool_error))
    }

    pub async fn describe_call(&mut self, tool: &str, args: &str) -> Result<String, CallFault> {
        Ok(convert::describe_call(call_export!(self, call_describe_call(tool, args))?))
    }

    pub async fn confirm(&mut self, tool: &str, args: &str) -> Result<GuestResult<Option<Confirmation>>, CallFault> {
        Ok(call_export!(self, call_confirm(tool, args))?
            .map(|c| c.map(convert::confirmation))
            .map_err(convert::tool_error))
    }

    pub async fn modify_args(
        &mut self,
        tool: &str,
        args: &str,
        proposed: &str,
    ) -> Result<GuestResult<String>, CallFault> {
        Ok(convert::modified_args(call_export!(self, call_modify_args(tool, args, proposed))?))
    }

    pub async fn execute(&mut self, tool: &str, args: &str) -> Result<GuestResult<ToolOutput>, CallFault> {
        Ok(call_export!(self, call_execute(tool, args))?.map(convert::tool_output).map_err(convert::tool_error))
    }

    /// The network requests refused so far (not granted, or a response over the cap), for
    /// the user: each names the rule that would have allowed it.
    pub fn network_denials(&self) -> Vec<NetDenial> {
        self.store.data().http_gate.denials()
    }

    /// What the OS sandbox blocked the programs of this instance's call from, as recognised
    /// from their output ([`airlock_sandbox::explain`]).
    pub fn sandbox_blocked(&self) -> Vec<airlock_sandbox::explain::Blocked> {
        self.store.data().processes.blocked().to_vec()
    }

    fn watch(&self) -> Watch {
        let state = self.store.data();
        Watch { deadline: state.deadline, cancel: state.cancel.clone(), limit: self.deadline }
    }

    /// Restarts the instance's deadline, as if it had just been made (a parked instance,
    /// resumed for its call's execution).
    fn renew(&mut self) {
        let deadline = Instant::now() + self.deadline;
        let state = self.store.data_mut();
        state.deadline = deadline;
        state.http_gate.renew(deadline);
        // A limit the checks ran into (and survived) says nothing about the execution.
        state.limiter.hit = None;
        self.store.set_epoch_deadline(1);
    }

    fn finish<T>(&mut self, result: Result<wasmtime::Result<T>, CallFault>) -> Result<T, CallFault> {
        // What the guest emitted before it returned (or was stopped) is delivered either way.
        self.store.data_mut().flush_live_output(true);
        let result = result.inspect_err(|_| self.faulted = true)?;
        // Classify first: a crash report quotes the guest's stderr, which is drained below.
        let result = result.map_err(|error| classify(&self.store, self.deadline, &error));
        self.faulted |= result.is_err();
        let state = self.store.data();
        let label = &*state.label;
        for (name, stream) in [("stdout", &state.stdout), ("stderr", &state.stderr)] {
            let (text, dropped) = stream.take();
            if !text.is_empty() {
                tracing::info!(plugin = label, "guest {name}: {}", text.trim_end());
            }
            if dropped > 0 {
                tracing::warn!(
                    plugin = label,
                    "guest {name}: {dropped} more bytes dropped past the {STDIO_CAP}-byte cap"
                );
            }
        }
        result
    }
}

/// Stops a call whose guest is blocked in a host call (a sleep, a slow read), where the
/// epoch callback never runs: the call is abandoned at its deadline (plus a few ticks, so a
/// running guest is stopped by its epoch first) or when cancelled. The instance is dropped
/// afterwards either way.
struct Watch {
    deadline: Instant,
    cancel: CancelFlag,
    limit: Duration,
}

impl Watch {
    async fn guard<T>(self, call: impl Future<Output = wasmtime::Result<T>>) -> Result<wasmtime::Result<T>, CallFault> {
        let cancel = self.cancel;
        let cancelled = async move {
            while !cancel.is_cancelled() {
                tokio::time::sleep(EPOCH_TICK * 5).await;
            }
        };
        tokio::select! {
            biased;
            result = call => Ok(result),
            () = tokio::time::sleep_until((self.deadline + EPOCH_TICK * 5).into()) => Err(CallFault::Timeout(self.limit)),
            () = cancelled => Err(CallFault::Cancelled),
        }
    }
}

/// Advances the engine's epoch every [`EPOCH_TICK`] for the life of the process.
fn spawn_epoch_ticker(engine: &Engine) {
    let weak = engine.weak();
    let spawned = thread::Builder::new().name("airlock-epoch".into()).spawn(move || {
        while let Some(engine) = weak.upgrade() {
            engine.increment_epoch();
            drop(engine);
            thread::sleep(EPOCH_TICK);
        }
    });
    if let Err(error) = spawned {
        tracing::error!("cannot start the epoch ticker, plugin deadlines will not be enforced: {error}");
    }
}

#[cfg(test)]
#[path = "mod_tests.rs"]
mod tests;
