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

use super::command::HookProblem;
use super::{Hook, HookEvent, HookFailure, HookKind, HookReply, HookScope, HookSpec, OnError};
use crate::capability::{MAX_MEMORY_MB, MAX_TIMEOUT_SECS, Phase};
pub use crate::config::hooks::ComponentHookSettings;
use crate::config::hooks::{DEFAULT_COMPONENT_MIB, DEFAULT_COMPONENT_MS};
use crate::policy::Policy;
use crate::registry::{Origin, Plugin, Registry, hook_pattern};
use crate::runtime::{CallFault, Runtime, Sandbox};

/// How long a component hook may run on one event, unless its settings say otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(DEFAULT_COMPONENT_MS);
/// A component hook's memory cap, unless its settings say otherwise.
pub const DEFAULT_MEMORY_MIB: u64 = DEFAULT_COMPONENT_MIB;

/// Every component hook of `registry` that may run, and why the others may not (with the
/// `[hooks.component.NAME]` tables that name no installed hook): in the registry's order
/// (the user's folder, then the workspace's, each by file name).
pub fn load(
    runtime: &Arc<Runtime>,
    registry: &Registry,
    policy: &Policy,
    settings: &BTreeMap<String, ComponentHookSettings>,
) -> (Vec<Arc<dyn Hook>>, Vec<HookProblem>) {
    let mut hooks: Vec<Arc<dyn Hook>> = Vec::new();
    let mut problems = Vec::new();
    for plugin in registry.hooks() {
        let Some(hook) = ComponentHook::new(runtime, plugin, policy, settings.get(&plugin.info.name)) else {
            continue;
        };
        match hook.refusal(plugin, policy, settings.get(&plugin.info.name)) {
            Some(reason) => problems.push(HookProblem { spec: hook.spec, reason }),
            None => hooks.push(Arc::new(hook)),
        }
    }
    for name in settings.keys() {
        if !registry.hooks().iter().any(|plugin| &plugin.info.name == name) {
            problems.push(HookProblem {
                spec: unknown(name),
                reason: format!("[hooks.component.{name}] names no installed component hook"),
            });
        }
    }
    (hooks, problems)
}

/// The spec shown for a `[hooks.component.NAME]` table that names no hook.
fn unknown(name: &str) -> HookSpec {
    HookSpec {
        name: name.into(),
        kind: HookKind::Component,
        scope: HookScope::User,
        origin: "config.toml".into(),
        events: Vec::new(),
        tools: None,
        timeout: DEFAULT_TIMEOUT,
        memory: DEFAULT_MEMORY_MIB << 20,
        on_error: OnError::Deny,
        grants: Vec::new(),
        digest: String::new(),
    }
}

/// One component hook, ready to run.
pub struct ComponentHook {
    spec: HookSpec,
    runtime: Arc<Runtime>,
    plugin: Arc<Plugin>,
    /// What every instance holds; each event gets a copy with its own call id.
    sandbox: Sandbox,
    /// Why its self-description cannot be used now, if it cannot.
    unusable: Option<String>,
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
    /// The hook of `plugin` with its grant and settings (`None` for a plugin that is not a
    /// hook, which the registry never lists as one).
    fn new(
        runtime: &Arc<Runtime>,
        plugin: &Arc<Plugin>,
        policy: &Policy,
        settings: Option<&ComponentHookSettings>,
    ) -> Option<Self> {
        let (info, request) = (plugin.hook.as_ref()?, plugin.info.tools.first()?);
        let settings = settings.cloned().unwrap_or_default();
        let scope = match plugin.source.origin {
            Origin::Workspace => HookScope::Workspace,
            Origin::Builtin | Origin::User => HookScope::User,
        };
        let timeout = Duration::from_millis(settings.timeout_ms.clamp(1, MAX_TIMEOUT_SECS * 1000));
        let memory_mib = settings.memory_mib.clamp(1, MAX_MEMORY_MB);
        // Checked when it was described; one refused now keeps the hook from running.
        let (tools, unusable) = match info.tools.as_deref().map(hook_pattern).transpose() {
            Ok(tools) => (tools, None),
            Err(reason) => (None, Some(reason)),
        };
        let effective = policy.effective(plugin, request);
        let env = effective.env.iter().filter_map(|var| Some((var.clone(), std::env::var(var).ok()?))).collect();
        let mut sandbox = Sandbox::empty(usize::try_from(memory_mib << 20).unwrap_or(usize::MAX), timeout);
        sandbox.preopens = effective.preopens(request, Phase::Execute);
        sandbox.network = effective.network.clone();
        sandbox.env = env;
        sandbox.workspace_root = policy.roots().workspace.to_string_lossy().into_owned();
        let mut grants: Vec<String> = sandbox
            .preopens
            .iter()
            .map(|preopen| format!("{} {}", if preopen.writable { "write" } else { "read" }, preopen.host.display()))
            .collect();
        grants.extend(effective.network.iter().map(ToString::to_string));
        grants.extend(effective.env.iter().map(|var| format!("env {var}")));
        if grants.is_empty() {
            grants.push("nothing".into());
        }
        let spec = HookSpec {
            name: info.name.clone(),
            kind: HookKind::Component,
            scope,
            origin: plugin.source.display(),
            events: info.events.clone(),
            tools,
            timeout,
            memory: memory_mib << 20,
            on_error: settings.on_error.into(),
            grants,
            digest: plugin.source.content_hash.clone(),
        };
        Some(Self { spec, runtime: runtime.clone(), plugin: plugin.clone(), sandbox, unusable })
    }

    /// Why the hook may not run, if it may not: a workspace hook outside a trusted
    /// workspace or changed since trust, a hook its settings disable or set out of range.
    fn refusal(&self, plugin: &Plugin, policy: &Policy, settings: Option<&ComponentHookSettings>) -> Option<String> {
        let name = &self.spec.name;
        if let Some(reason) = &self.unusable {
            return Some(reason.clone());
        }
        if plugin.source.origin == Origin::Workspace {
            if !policy.workspace_trusted() {
                return Some(
                    "this workspace is not trusted: a workspace's hooks run under its trusted `.airlock/policy.toml` \
                     (review them, then run `airlock trust`)"
                        .into(),
                );
            }
            if !policy.is_pinned(plugin) {
                return Some(
                    "it changed or appeared since you trusted this folder (review it, then run `airlock trust` \
                     again)"
                        .into(),
                );
            }
        }
        let settings = settings?;
        if !settings.enabled {
            return Some(format!("disabled by [hooks.component.{name}]"));
        }
        if !(1..=MAX_TIMEOUT_SECS * 1000).contains(&settings.timeout_ms) {
            return Some(format!(
                "[hooks.component.{name}]: timeout_ms must be between 1 and {}",
                MAX_TIMEOUT_SECS * 1000
            ));
        }
        if !(1..=MAX_MEMORY_MB).contains(&settings.memory_mib) {
            return Some(format!("[hooks.component.{name}]: memory_mib must be between 1 and {MAX_MEMORY_MB}"));
        }
        None
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
