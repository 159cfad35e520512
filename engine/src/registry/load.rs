//! Loading one plugin: its self-description from the cache, or its component compiled and
//! described — and, at start-up, every `describe` under one budget.
//!
//! Invariants:
//! - start-up first reads every cached description and compiles what needs describing
//!   ([`Startup::prepare`]), then starts every `describe` at once; they all end at
//!   [`STARTUP_BUDGET`] after the start (or [`LATE_DESCRIBE`] after they began, when
//!   compiling took the whole budget); a `describe` waits for room in the process's budget
//!   of instances like any call, so at most that many run together;
//! - a `describe` that traps, returns an invalid self-description or runs out of its time is
//!   cached as a fault for its digest (a tagged cache entry), so the next start skips it at
//!   once and says so; a trap or a timeout is tried again after [`FAULT_RETRY`], by
//!   `airlock plugins check FILE` (which describes it on its own, [`alone`]), or as soon as
//!   the file changes (a new digest); an invalid self-description only when the file
//!   changes;
//! - a plugin whose `describe` had no fair run — it got an instance only as the budget ran
//!   out, because other plugins held every instance — did nothing wrong: it is skipped this
//!   start, not remembered;
//! - compiles run [`COMPILE_CONCURRENCY`] at a time, off the async workers.

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::source::{Origin, PluginSource};
use super::{LoadProblem, Plugin, check_description, check_hook, diagnose, hook_plugin_info};
use crate::contract::{HookInfo, PluginInfo};
use crate::runtime::cache::EntryKind;
use crate::runtime::{CallFault, LoadedComponent, Runtime, Sandbox};

/// How long start-up may spend describing plugins, all of them together.
pub const STARTUP_BUDGET: Duration = Duration::from_secs(5);
/// The time describes get when compiling took the whole budget; a `describe` that ran less
/// than this before the deadline had no fair run.
const LATE_DESCRIBE: Duration = Duration::from_secs(1);
/// The time `plugins check` gives a `describe` on its own.
const ALONE_DEADLINE: Duration = Duration::from_secs(5);
/// Memory cap of a `describe` instance.
const DESCRIBE_MEMORY: usize = 64 << 20;
/// Components compiled at once.
const COMPILE_CONCURRENCY: usize = 4;
/// Components at least this large are announced before they are compiled (a compile of
/// 512 KiB takes about half a second; a Python or JavaScript component, seconds); smaller
/// ones compile before anyone would wonder.
const ANNOUNCED_COMPILE: usize = 512 * 1024;
/// A `describe` that trapped or ran out of time is tried again after this long (it may have
/// depended on the moment); an invalid self-description only when the file changes.
const FAULT_RETRY: Duration = Duration::from_secs(3600);
/// Version of the description cache's format; raised whenever the checks of a description
/// change, so an entry accepted by older checks is described and checked again (2: tagged
/// entries, schema complexity, request and declared-size bounds).
const DESCRIPTION_FORMAT: u32 = 2;

/// What is cached about a component's self-description.
#[derive(Debug, Serialize, Deserialize)]
struct CachedDescription {
    format: u32,
    result: Result<PluginInfo, String>,
    /// A hook component's own self-description (`result` is then its plugin entry).
    #[serde(default)]
    hook: Option<HookInfo>,
    /// When `describe` itself failed (a trap or a deadline): seconds since the epoch.
    fault_at: Option<u64>,
}

/// One start's loading: its budget and its compile slots.
pub struct Startup {
    ends: Instant,
    compiles: tokio::sync::Semaphore,
}

impl Startup {
    pub fn new() -> Self {
        Self { ends: Instant::now() + STARTUP_BUDGET, compiles: tokio::sync::Semaphore::new(COMPILE_CONCURRENCY) }
    }

    /// The first step for `source`: its cached description, or its component compiled.
    pub async fn prepare(&self, runtime: &Runtime, source: PluginSource) -> Prepared {
        if let Some(cached) = remembered(runtime, &source) {
            return Prepared::Done(cached_plugin(source, cached));
        }
        match compile(runtime, &source, Some(&self.compiles)).await {
            Ok(component) => Prepared::Describe(source, component),
            Err(reason) => Prepared::Done(Err(LoadProblem { path: source.display(), reason })),
        }
    }

    /// The second step, once every plugin is prepared: `describe` where one is needed,
    /// ending at the budget's end — or a second from now when compiling took the whole
    /// budget.
    pub async fn finish(
        &self,
        runtime: &Runtime,
        prepared: Prepared,
        deadline: Instant,
    ) -> Result<Plugin, LoadProblem> {
        prepared.finish(runtime, deadline, STARTUP_BUDGET).await
    }

    /// When the describes of this start end, for describes starting now.
    pub fn describes_end(&self) -> Instant {
        self.ends.max(Instant::now() + LATE_DESCRIBE)
    }
}

/// A plugin on its way: loaded (or refused) from the cache, or compiled and waiting for
/// its `describe`.
pub enum Prepared {
    Done(Result<Plugin, LoadProblem>),
    Describe(PluginSource, LoadedComponent),
}

impl Prepared {
    /// `describe` for a plugin that needs one, until `deadline` (the end of a budget of
    /// `budget`); its outcome cached by digest unless it never had a fair run.
    async fn finish(self, runtime: &Runtime, deadline: Instant, budget: Duration) -> Result<Plugin, LoadProblem> {
        let (source, component) = match self {
            Self::Done(done) => return done,
            Self::Describe(source, component) => (source, component),
        };
        let problem = |reason: String| LoadProblem { path: source.display(), reason };
        let label: Arc<str> = source.display().into();
        let mut hook = None;
        let (result, fault_at) = match describe(runtime, &component, label, deadline, budget).await {
            Described::Info(info) => {
                (check_description(&info).map(|()| info).map_err(|e| format!("invalid self-description: {e}")), None)
            }
            Described::Hook(info) => match check_hook(&info) {
                Ok(()) => {
                    let plugin = hook_plugin_info(&info);
                    hook = Some(info);
                    (Ok(plugin), None)
                }
                Err(e) => (Err(format!("invalid hook self-description: {e}")), None),
            },
            Described::Fault(reason) => (Err(reason), Some(now_secs())),
            // Not its fault: not remembered, tried again at the next start.
            Described::NotStarted(reason) => return Err(problem(reason)),
        };
        let cached = CachedDescription { format: DESCRIPTION_FORMAT, result, hook, fault_at };
        let cache = runtime.cache();
        let path = cache.description_path(&source.content_hash);
        if let Ok(json) = serde_json::to_vec(&cached)
            && let Err(error) = cache.write_entry(EntryKind::Description, source.content_hash.as_bytes(), &path, &json)
        {
            tracing::warn!("cannot cache the description of {}: {error}", source.display());
        }
        let info = cached.result.map_err(problem)?;
        Ok(Plugin { source, info, hook: cached.hook.map(Box::new), component: tokio::sync::OnceCell::from(component) })
    }
}

/// Loads `source` on its own, describing it again even when a fault was cached for it
/// (`plugins check`, `inspect`, `install`).
pub async fn alone(runtime: &Runtime, source: PluginSource) -> Result<Plugin, LoadProblem> {
    if let Some(cached) = remembered(runtime, &source).filter(|cached| cached.fault_at.is_none()) {
        return cached_plugin(source, cached);
    }
    let prepared = match compile(runtime, &source, None).await {
        Ok(component) => Prepared::Describe(source, component),
        Err(reason) => return Err(LoadProblem { path: source.display(), reason }),
    };
    prepared.finish(runtime, Instant::now() + ALONE_DEADLINE, ALONE_DEADLINE).await
}

/// The cached description of `source`, when there is one still good (a fault is good for
/// [`FAULT_RETRY`]).
fn remembered(runtime: &Runtime, source: &PluginSource) -> Option<CachedDescription> {
    let cache = runtime.cache();
    let path = cache.description_path(&source.content_hash);
    cache
        .read_entry(EntryKind::Description, source.content_hash.as_bytes(), &path)
        .and_then(|bytes| serde_json::from_slice::<CachedDescription>(&bytes).ok())
        .filter(|c| c.format == DESCRIPTION_FORMAT)
        .filter(|c| c.fault_at.is_none_or(|at| now_secs().saturating_sub(at) < FAULT_RETRY.as_secs()))
}

/// The plugin a cached description makes, or the problem it remembers.
fn cached_plugin(source: PluginSource, cached: CachedDescription) -> Result<Plugin, LoadProblem> {
    match cached.result {
        Ok(info) => {
            Ok(Plugin { source, info, hook: cached.hook.map(Box::new), component: tokio::sync::OnceCell::new() })
        }
        Err(reason) if cached.fault_at.is_some() => Err(LoadProblem {
            reason: format!(
                "{reason} (at an earlier start; skipped without waiting: it is tried again within the hour, at once \
                 if the file changes, or now with `airlock plugins check {}`)",
                crate::sanitize::shell_word(&source.path.display().to_string())
            ),
            path: source.display(),
        }),
        Err(reason) => Err(LoadProblem { path: source.display(), reason }),
    }
}

/// The component of `source`, compiled (or read from the compile cache), at most
/// [`COMPILE_CONCURRENCY`] at a time at start-up.
async fn compile(
    runtime: &Runtime,
    source: &PluginSource,
    slots: Option<&tokio::sync::Semaphore>,
) -> Result<LoadedComponent, String> {
    let _slot = match slots {
        Some(slots) => slots.acquire().await.ok(),
        None => None,
    };
    let announce = runtime.announcer();
    let name = match source.origin {
        Origin::Builtin => format!("the built-in {}", source.file_name()),
        _ => source.file_name(),
    };
    let read = source.clone();
    let compiling = move |size: usize| {
        tracing::info!("compiling {name} ({size} bytes)");
        if let Some(announce) = announce.filter(|_| size >= ANNOUNCED_COMPILE) {
            announce(&format!("compiling {name} ({})…", megabytes(size)));
        }
    };
    let (component, outcome) = runtime
        .load_in_background(&source.content_hash, source.precompiled, move || read.bytes(), compiling)
        .await
        .map_err(|e| diagnose::load_failure(source.bytes().ok().as_deref(), &e))?;
    tracing::debug!("{} loaded: {outcome:?}", source.display());
    Ok(component)
}

/// How a `describe` went.
enum Described {
    Info(PluginInfo),
    /// A hook component's self-description.
    Hook(HookInfo),
    /// It trapped or ran out of time: the plugin's fault.
    Fault(String),
    /// It never had a fair run: the budget ran out while other plugins held every instance.
    NotStarted(String),
}

/// Runs `describe` in a fresh instance holding nothing, until `deadline` (the end of a
/// budget of `budget`).
async fn describe(
    runtime: &Runtime,
    component: &LoadedComponent,
    label: Arc<str>,
    deadline: Instant,
    budget: Duration,
) -> Described {
    let left = || deadline.saturating_duration_since(Instant::now());
    let not_started = || {
        Described::NotStarted(format!(
            "not described: airlock's start-up budget ({} s) ran out while other plugins held every instance; it \
             is tried again at the next start",
            budget.as_secs()
        ))
    };
    let sandbox = Sandbox::empty(DESCRIBE_MEMORY, left());
    let mut instance = match runtime.instantiate(component, label, &sandbox).await {
        Ok(instance) => instance,
        Err(CallFault::Queued { .. }) => return not_started(),
        Err(fault) => return Described::Fault(failed(&fault)),
    };
    // The instance's own deadline counts from the call; the budget's from the start.
    let started = Instant::now();
    let call = async {
        if component.is_hook() {
            instance.describe_hook().await.map(Described::Hook)
        } else {
            instance.describe().await.map(Described::Info)
        }
    };
    let outcome = tokio::time::timeout(left(), call).await;
    // One that got an instance only as the budget ran out had no fair run: not its fault.
    let late = || started.elapsed() < LATE_DESCRIBE && Instant::now() >= deadline;
    match outcome {
        Ok(Ok(described)) => described,
        Ok(Err(CallFault::Timeout(_))) | Err(_) if late() => not_started(),
        Ok(Err(fault)) if !matches!(fault, CallFault::Timeout(_)) => Described::Fault(failed(&fault)),
        Ok(Err(_)) | Err(_) => Described::Fault(format!(
            "describe() failed: it ran past its deadline, the end of airlock's start-up budget ({} s)",
            budget.as_secs()
        )),
    }
}

fn failed(fault: &CallFault) -> String {
    format!("describe() failed: {}", diagnose::first_line(&fault.to_string()))
}

fn now_secs() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// A size for people: `21.2 MB`, `0.6 MB`.
fn megabytes(bytes: usize) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}
