//! Component hooks: `airlock:hook@0.3.0` components found in the plugin folders (the user's
//! `$AIRLOCK_HOME/plugins`, a trusted workspace's `.airlock/plugins`), each a [`Hook`] run in
//! wasmtime with its own grant.
//!
//! Invariants:
//! - every event gets a fresh instance, made like a tool call's: its store's deadline
//!   (`timeout_ms`, [`DEFAULT_TIMEOUT`]) is set before instantiating, its limiter caps its
//!   memory (`memory_mib`, [`DEFAULT_MEMORY_MIB`]); a trap, an exit or a deadline throws the
//!   instance away and becomes a [`HookFailure`]; dropping the future drops the instance;
//! - a hook holds the intersection of what it requests and its `[grants.NAME]` table
//!   (default: nothing), computed by the policy exactly as for a tool, and never
//!   `processes`, network or environment beyond that; its stdout and stderr go to the log;
//! - a workspace hook runs only when trust pinned its exact content: a hook added or changed
//!   since `airlock trust` (or in an untrusted workspace) is reported, not run;
//! - a reply's fields are bounded ([`crate::runtime::MAX_REPLY_TEXT`],
//!   [`crate::runtime::MAX_REPLY_ARGUMENTS`]): past them the hook failed (`Flooded`).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;

use super::{Hook, HookEvent, HookFailure, HookKind, HookReply, HookScope, HookSpec, OnError};
use crate::capability::{MAX_MEMORY_MB, MAX_TIMEOUT_SECS, Phase};
use crate::policy::Policy;
use crate::registry::{LoadProblem, Origin, Plugin, Registry, hook_pattern};
use crate::runtime::{CallFault, Runtime, Sandbox};

/// How long a component hook may run on one event, unless its settings say otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(1000);
/// A component hook's memory cap, unless its settings say otherwise.
pub const DEFAULT_MEMORY_MIB: u64 = 64;

/// What `[hooks.component.NAME]` sets for one component hook (the shape of the settings'
/// `ComponentHookSettings`; every field left out keeps its default).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Overrides {
    /// `enabled`: default true.
    pub enabled: Option<bool>,
    /// `timeout_ms`: default [`DEFAULT_TIMEOUT`].
    pub timeout_ms: Option<u64>,
    /// `on_error`: default `deny`.
    pub on_error: Option<OnError>,
    /// `memory_mib`: default [`DEFAULT_MEMORY_MIB`].
    pub memory_mib: Option<u64>,
}

/// Every component hook of `registry` that may run, and why the others may not: in the
/// registry's order (the user's folder, then the workspace's, each by file name).
pub fn load(
    runtime: &Arc<Runtime>,
    registry: &Registry,
    policy: &Policy,
    overrides: &BTreeMap<String, Overrides>,
) -> (Vec<Arc<dyn Hook>>, Vec<LoadProblem>) {
    let mut hooks: Vec<Arc<dyn Hook>> = Vec::new();
    let mut problems = Vec::new();
    for plugin in registry.hooks() {
        match ComponentHook::new(runtime, plugin, policy, overrides.get(&plugin.info.name), &mut problems) {
            Ok(Some(hook)) => hooks.push(Arc::new(hook)),
            Ok(None) => {}
            Err(reason) => problems.push(LoadProblem { path: plugin.source.display(), reason }),
        }
    }
    for name in overrides.keys() {
        if !registry.hooks().iter().any(|plugin| &plugin.info.name == name) {
            problems.push(LoadProblem {
                path: "config.toml".into(),
                reason: format!("[hooks.component.{name}] names no installed component hook; it sets nothing"),
            });
        }
    }
    (hooks, problems)
}

/// One component hook, ready to run.
pub struct ComponentHook {
    spec: HookSpec,
    runtime: Arc<Runtime>,
    plugin: Arc<Plugin>,
    /// What every instance holds; each event gets a copy with its own call id.
    sandbox: Sandbox,
}

impl std::fmt::Debug for ComponentHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ComponentHook")
            .field("spec", &self.spec)
            .field("sandbox", &self.sandbox)
            .finish_non_exhaustive()
    }
}

impl ComponentHook {
    /// The hook of `plugin` with its grant and settings; `Ok(None)` when it is disabled, an
    /// error when it may not run (a workspace hook not pinned by trust).
    fn new(
        runtime: &Arc<Runtime>,
        plugin: &Arc<Plugin>,
        policy: &Policy,
        overrides: Option<&Overrides>,
        problems: &mut Vec<LoadProblem>,
    ) -> Result<Option<Self>, String> {
        let (Some(info), Some(request)) = (&plugin.hook, plugin.info.tools.first()) else {
            return Err("not a hook component".into());
        };
        let name = &info.name;
        let scope = match plugin.source.origin {
            Origin::Workspace if !policy.workspace_trusted() => {
                return Err(format!(
                    "hook `{name}` is not run: this workspace is not trusted (review it, then run `airlock trust`)"
                ));
            }
            Origin::Workspace if !policy.is_pinned(plugin) => {
                return Err(format!(
                    "hook `{name}` is not run: it changed or appeared since you trusted this folder (review it, \
                     then run `airlock trust` again)"
                ));
            }
            Origin::Workspace => HookScope::Workspace,
            Origin::Builtin | Origin::User => HookScope::User,
        };
        let settings = overrides.cloned().unwrap_or_default();
        if settings.enabled == Some(false) {
            return Ok(None);
        }
        let mut bad = |what: &str| {
            problems.push(LoadProblem {
                path: "config.toml".into(),
                reason: format!("[hooks.component.{name}]: {what}; the default is used"),
            });
        };
        let timeout = match settings.timeout_ms {
            Some(ms) if (1..=MAX_TIMEOUT_SECS * 1000).contains(&ms) => Duration::from_millis(ms),
            Some(_) => {
                bad(&format!("timeout_ms must be between 1 and {}", MAX_TIMEOUT_SECS * 1000));
                DEFAULT_TIMEOUT
            }
            None => DEFAULT_TIMEOUT,
        };
        let memory_mib = match settings.memory_mib {
            Some(mib) if (1..=MAX_MEMORY_MB).contains(&mib) => mib,
            Some(_) => {
                bad(&format!("memory_mib must be between 1 and {MAX_MEMORY_MB}"));
                DEFAULT_MEMORY_MIB
            }
            None => DEFAULT_MEMORY_MIB,
        };
        let tools = info.tools.as_deref().map(hook_pattern).transpose()?;
        let effective = policy.effective(plugin, request);
        let env = effective.env.iter().filter_map(|var| Some((var.clone(), std::env::var(var).ok()?))).collect();
        let mut sandbox = Sandbox::empty(usize::try_from(memory_mib << 20).unwrap_or(usize::MAX), timeout);
        sandbox.preopens = effective.preopens(request, Phase::Execute);
        sandbox.network = effective.network.clone();
        sandbox.env = env;
        sandbox.workspace_root = policy.roots().workspace.to_string_lossy().into_owned();
        let mut grants: Vec<String> = effective
            .files
            .iter()
            .map(|(path, _)| {
                let how = if sandbox.preopens.iter().any(|p| p.host == *path && p.writable) { "write" } else { "read" };
                format!("{how} {}", path.display())
            })
            .collect();
        grants.extend(effective.network.iter().map(ToString::to_string));
        grants.extend(effective.env.iter().map(|var| format!("env {var}")));
        if grants.is_empty() {
            grants.push("nothing".into());
        }
        let spec = HookSpec {
            name: name.clone(),
            kind: HookKind::Component,
            scope,
            origin: plugin.source.display(),
            events: info.events.clone(),
            tools,
            timeout,
            memory: memory_mib << 20,
            on_error: settings.on_error.unwrap_or(OnError::Deny),
            grants,
            digest: plugin.source.content_hash.clone(),
        };
        Ok(Some(Self { spec, runtime: runtime.clone(), plugin: plugin.clone(), sandbox }))
    }
}

impl Hook for ComponentHook {
    fn spec(&self) -> &HookSpec {
        &self.spec
    }

    fn run(&self, event: Arc<HookEvent>) -> BoxFuture<'static, Result<HookReply, HookFailure>> {
        let runtime = self.runtime.clone();
        let plugin = self.plugin.clone();
        let mut sandbox = self.sandbox.clone();
        // A fresh meter and cancellation flag per event: nothing is shared between instances.
        sandbox.meter = Arc::default();
        sandbox.cancel = Default::default();
        sandbox.call_id = event.tool.as_ref().map(|tool| tool.call_id.clone()).unwrap_or_default();
        let timeout = self.spec.timeout;
        let label: Arc<str> = format!("hook {}", self.spec.name).into();
        Box::pin(async move {
            let component =
                plugin.component(&runtime).await.map_err(|e| HookFailure::Unavailable(first_line(&e.to_string())))?;
            let run = async {
                let mut instance = runtime.instantiate(&component, label, &sandbox).await?;
                instance.handle(&event).await
            };
            // The store's own deadline stops a running guest; this one also bounds the wait
            // for room in the process's budget, so the whole event takes at most `timeout`.
            match tokio::time::timeout(timeout, run).await {
                Ok(Ok(answer)) => answer,
                Ok(Err(fault)) => Err(failure(fault, timeout)),
                Err(_) => Err(HookFailure::TimedOut(timeout)),
            }
        })
    }
}

/// The hook failure a guest's fault is.
fn failure(fault: CallFault, timeout: Duration) -> HookFailure {
    match fault {
        CallFault::Timeout(_) => HookFailure::TimedOut(timeout),
        CallFault::Trap(message) => HookFailure::Trapped(first_line(&message)),
        CallFault::MemoryExhausted(limit) => {
            HookFailure::Trapped(format!("it exceeded its memory limit of {} MiB", limit >> 20))
        }
        CallFault::Exited(code) => HookFailure::Trapped(format!("it called exit({code}) instead of returning")),
        CallFault::Cancelled => HookFailure::Unavailable("it was cancelled".into()),
        CallFault::Instantiate(message) => HookFailure::Unavailable(first_line(&message)),
        fault @ CallFault::Queued { .. } => HookFailure::Unavailable(fault.to_string()),
    }
}

/// The first line of a message, for a one-line report.
fn first_line(message: &str) -> String {
    crate::sanitize::line(message.lines().next().unwrap_or_default().trim())
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
