//! The tool registry: the built-in components embedded in the binary, then every `*.wasm`
//! in `$AIRLOCK_HOME/plugins/`, then every `*.wasm` in `<workspace>/.airlock/plugins/`.
//!
//! Start-up stays cheap: a plugin's self-description is cached by content hash (and a
//! file's content hash by a stamp of the open file, [`source`]), every entry tagged with
//! the cache's secret ([`crate::runtime::cache`]), so a warm start reads a few small files
//! and compiles nothing; a component's native code is loaded only when one of its tools is
//! first called. Plugins that must be described are described all at once, within one
//! start-up budget ([`STARTUP_BUDGET`], [`load`]), and a failed description — a trap, an
//! invalid self-description, a `describe` that spins or sleeps past the budget — is cached
//! by content hash too, so a hostile plugin costs one start, not every start.
//!
//! Identity: a plugin is its origin, its name and its digest. A user- or workspace-folder
//! plugin may not take a built-in's plugin name ([`source::is_reserved`]), and no two
//! plugins may share a name: the later one (in the order below) is refused, so a grant
//! written for one plugin can never reach another.
//!
//! Duplicate tool names: the first source that declares a name owns it, in the order
//! built-in, user folder, workspace folder, and within a folder by file name. Later
//! declarations are skipped and reported, so a cloned repository can never shadow a
//! built-in or a tool the user installed. What one workspace may declare in total is
//! bounded ([`WORKSPACE_DECLARED_BYTES`]): every declared byte is sent with every model
//! request.
//!
//! A plugin that cannot be loaded (not a component, traps in `describe`, an invalid
//! self-description) is reported with its path and the reason — one line saying what the
//! file is and what to do ([`diagnose`]); the others still load.

mod describe;
mod diagnose;
mod load;
pub mod lock;
pub mod names;
mod source;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use futures_util::future::join_all;
use serde::Serialize;

use crate::contract::{HookInfo, PluginInfo, ToolInfo};
use crate::runtime::{LoadedComponent, Runtime, RuntimeError};
pub(crate) use describe::{MAX_DECLARED, MAX_DESCRIPTION, check_schema};
pub use describe::{
    MAX_HOOK_PATTERN, MAX_SCHEMA, check as check_description, check_hook, declared_bytes, hook_pattern,
    hook_plugin_info, is_tool_name,
};
pub use load::STARTUP_BUDGET;
pub use source::{MAX_PLUGIN_BYTES, Origin, PluginSource, is_reserved};

/// Most bytes of tool descriptions and schemas all of one workspace's plugins may declare.
pub const WORKSPACE_DECLARED_BYTES: usize = 512 * 1024;

/// One loaded plugin component.
#[derive(Debug)]
pub struct Plugin {
    pub source: PluginSource,
    /// A hook's is [`hook_plugin_info`]: one tool that holds its requests, never registered.
    pub info: PluginInfo,
    /// The self-description of a hook component (`airlock:hook`); `None` for a tool's.
    pub hook: Option<Box<HookInfo>>,
    /// Loaded once, by the first call that needs it; concurrent first calls wait for it.
    component: tokio::sync::OnceCell<LoadedComponent>,
}

impl Plugin {
    /// A name for messages and logs: the plugin's name and where it came from.
    pub fn label(&self) -> String {
        format!("{} ({})", self.info.name, self.source.display())
    }

    /// The linked component, loaded from the compile cache on first use.
    pub async fn component(&self, runtime: &Runtime) -> Result<LoadedComponent, RuntimeError> {
        let source = &self.source;
        let load = || async {
            runtime.load_native(&source.content_hash, source.precompiled, || source.bytes()).map(|(c, _)| c)
        };
        self.component.get_or_try_init(load).await.cloned()
    }
}

/// Checks `args` against `schema` as [`RegisteredTool::check_args`] does, with a validator
/// built for the call: for the fuzz targets (`fuzz/`), which hold a schema the load-time
/// checks accepted to a bounded validation.
#[doc(hidden)]
pub fn check_args_against(schema: &serde_json::Value, args: &serde_json::Value) -> Result<(), String> {
    let validator = jsonschema::validator_for(schema).map_err(|e| format!("the tool's schema is unusable: {e}"))?;
    args_problems(&validator, args)
}

/// The first violations of `args`, each cut short, as one message.
fn args_problems(validator: &jsonschema::Validator, args: &serde_json::Value) -> Result<(), String> {
    let mut problems = String::new();
    for (index, e) in validator.iter_errors(args).take(ARGS_PROBLEMS).enumerate() {
        let at = e.instance_path().to_string();
        let problem = if at.is_empty() { e.to_string() } else { format!("{at}: {e}") };
        if index > 0 {
            problems.push_str("; ");
        }
        problems.push_str(&problem[..problem.floor_char_boundary(ARGS_PROBLEM_BYTES)]);
        if problem.len() > ARGS_PROBLEM_BYTES {
            problems.push('…');
        }
    }
    if problems.is_empty() { Ok(()) } else { Err(problems) }
}

/// A tool the model may call.
#[derive(Debug)]
pub struct RegisteredTool {
    pub plugin: Arc<Plugin>,
    pub info: ToolInfo,
    validator: OnceLock<Result<jsonschema::Validator, String>>,
}

impl RegisteredTool {
    /// Checks arguments against the tool's JSON Schema; the error lists the first violations,
    /// each cut short. Synchronous and unbounded in time: call [`Self::check_args_within`]
    /// from async code.
    pub fn check_args(&self, args: &serde_json::Value) -> Result<(), String> {
        let validator =
            self.validator.get_or_init(|| jsonschema::validator_for(&self.info.parameters).map_err(|e| e.to_string()));
        let validator = validator.as_ref().map_err(|e| format!("the tool's schema is unusable: {e}"))?;
        args_problems(validator, args)
    }

    /// [`Self::check_args`] off the async runtime, given at most `limit`: a schema that takes
    /// longer (which the load-time bounds should prevent) is the plugin's fault, and the
    /// call fails instead of stalling the session. The validation thread cannot be stopped;
    /// it is left to finish on its own.
    pub async fn check_args_within(
        self: &Arc<Self>,
        args: &serde_json::Value,
        limit: Duration,
    ) -> Result<(), ArgsProblem> {
        let tool = self.clone();
        let args = args.clone();
        let checked = tokio::task::spawn_blocking(move || tool.check_args(&args));
        match tokio::time::timeout(limit, checked).await {
            Ok(Ok(result)) => result.map_err(ArgsProblem::Invalid),
            Ok(Err(join)) => Err(ArgsProblem::Unusable(format!("argument validation failed: {join}"))),
            Err(_) => Err(ArgsProblem::Unusable(format!(
                "argument validation took longer than {} ms: the tool's schema is too costly",
                limit.as_millis()
            ))),
        }
    }
}

/// Most schema violations reported for one call.
const ARGS_PROBLEMS: usize = 10;
/// Longest report of one violation, in bytes.
const ARGS_PROBLEM_BYTES: usize = 300;

/// Why arguments were not accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgsProblem {
    /// They do not match the schema: the model's to fix.
    Invalid(String),
    /// The schema could not be used or took too long: the plugin's fault.
    Unusable(String),
}

/// Something that went wrong while loading plugins; shown to the user, never fatal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LoadProblem {
    /// The plugin file (or `built-in`).
    pub path: String,
    pub reason: String,
}

/// Where plugins are looked for.
#[derive(Debug, Clone, Default)]
pub struct PluginDirs {
    pub user: PathBuf,
    pub workspace: PathBuf,
    /// For each folder whose policy requires signed plugins, where it says so (`path:line`):
    /// only files installed with a verified signature load from it.
    pub user_requires_signed: Option<String>,
    pub workspace_requires_signed: Option<String>,
    /// The user's home (`$AIRLOCK_HOME`), where the signatures verified for workspace plugins
    /// are recorded ([`lock::WorkspaceRecords`]); none means no workspace plugin is signed.
    pub home: Option<PathBuf>,
}

/// The sha-256 of every plugin file in a workspace's plugin folder (canonical), by file
/// name, each file hashed now; and the files that are not plugins (links, FIFOs, …).
pub fn workspace_digests(dir: &Path) -> (BTreeMap<String, String>, Vec<LoadProblem>) {
    let (sources, problems) = source::scan(dir, Origin::Workspace, None, None, None);
    (sources.into_iter().map(|s| (s.file_name(), s.content_hash)).collect(), problems)
}

/// All tools, in registration order.
#[derive(Debug, Default)]
pub struct Registry {
    tools: Vec<Arc<RegisteredTool>>,
    by_name: HashMap<String, usize>,
    /// The hook components, in registration order: never among `tools`.
    hooks: Vec<Arc<Plugin>>,
    pub problems: Vec<LoadProblem>,
}

impl Registry {
    /// Loads the built-ins and every plugin in `dirs`.
    pub async fn load(runtime: &Runtime, dirs: &PluginDirs) -> Self {
        let mut registry = Self::default();
        let mut sources = source::builtins();
        for (dir, origin, signed) in [
            (&dirs.user, Origin::User, &dirs.user_requires_signed),
            (&dirs.workspace, Origin::Workspace, &dirs.workspace_requires_signed),
        ] {
            let (found, problems) =
                source::scan(dir, origin, Some(runtime.cache()), signed.as_deref(), dirs.home.as_deref());
            sources.extend(found);
            registry.problems.extend(problems);
        }
        // Cached descriptions read and components compiled first, then every `describe` at
        // once under one budget; in order, so registration (and who wins a name) does not
        // depend on timing.
        let startup = load::Startup::new();
        let prepared = join_all(sources.into_iter().map(|source| startup.prepare(runtime, source))).await;
        let deadline = startup.describes_end();
        let loaded = join_all(prepared.into_iter().map(|prepared| startup.finish(runtime, prepared, deadline))).await;
        let mut workspace_declared = 0;
        for result in loaded {
            let plugin = match result {
                Ok(plugin) => plugin,
                Err(problem) => {
                    registry.problems.push(problem);
                    continue;
                }
            };
            if let Err(reason) = registry.admit(&plugin, &mut workspace_declared) {
                registry.problems.push(LoadProblem { path: plugin.source.display(), reason });
                continue;
            }
            if plugin.hook.is_some() {
                registry.hooks.push(Arc::new(plugin));
            } else {
                registry.add(Arc::new(plugin));
            }
        }
        registry
    }

    /// Whether `plugin` may join: its name is its own, and a workspace stays in its budget.
    fn admit(&self, plugin: &Plugin, workspace_declared: &mut usize) -> Result<(), String> {
        let name = &plugin.info.name;
        if plugin.source.origin != Origin::Builtin && is_reserved(name) {
            return Err(format!(
                "plugin name `{name}` is reserved for a built-in plugin; the plugin is not loaded (rename it)"
            ));
        }
        if let Some(other) = self.plugins().into_iter().find(|p| &p.info.name == name) {
            return Err(format!(
                "plugin name `{name}` is already taken by {}; the plugin is not loaded (rename it)",
                other.label()
            ));
        }
        if plugin.source.origin == Origin::Workspace && plugin.hook.is_none() {
            let declared = declared_bytes(&plugin.info);
            if *workspace_declared + declared > WORKSPACE_DECLARED_BYTES {
                return Err(format!(
                    "the workspace's plugins declare more than {} KiB of tool descriptions and schemas; \
                     this plugin ({} KiB) is skipped",
                    WORKSPACE_DECLARED_BYTES / 1024,
                    declared.div_ceil(1024)
                ));
            }
            *workspace_declared += declared;
        }
        Ok(())
    }

    /// Loads one component file on its own (for `airlock plugins inspect`).
    pub async fn inspect(runtime: &Runtime, path: &Path) -> Result<Plugin, LoadProblem> {
        Self::inspect_from(runtime, path, Origin::User).await
    }

    /// [`Registry::inspect`], for a file of the folder of `origin` (`airlock plugins install`).
    /// Its `describe` runs again even when an earlier start found it faulty.
    pub async fn inspect_from(runtime: &Runtime, path: &Path, origin: Origin) -> Result<Plugin, LoadProblem> {
        let source = PluginSource::file(path.to_path_buf(), origin)
            .map_err(|e| LoadProblem { path: path.display().to_string(), reason: format!("cannot read: {e}") })?;
        load::alone(runtime, source).await
    }

    /// Every loaded plugin that provides at least one tool, in registration order, then
    /// every hook component (grants, `plugins show` and trust treat both alike).
    pub fn plugins(&self) -> Vec<&Arc<Plugin>> {
        let mut plugins: Vec<&Arc<Plugin>> = Vec::new();
        for tool in &self.tools {
            if !plugins.iter().any(|p| Arc::ptr_eq(p, &tool.plugin)) {
                plugins.push(&tool.plugin);
            }
        }
        plugins.extend(&self.hooks);
        plugins
    }

    /// The hook components, in registration order (built-ins have none, then the user's
    /// folder, then the workspace's, each by file name).
    pub fn hooks(&self) -> &[Arc<Plugin>] {
        &self.hooks
    }

    fn add(&mut self, plugin: Arc<Plugin>) {
        for info in &plugin.info.tools {
            if let Some(&index) = self.by_name.get(&info.name) {
                self.problems.push(LoadProblem {
                    path: plugin.source.display(),
                    reason: format!(
                        "tool `{}` is skipped: the name is already taken by {}",
                        info.name,
                        self.tools[index].plugin.label()
                    ),
                });
                continue;
            }
            self.by_name.insert(info.name.clone(), self.tools.len());
            self.tools.push(Arc::new(RegisteredTool {
                plugin: plugin.clone(),
                info: info.clone(),
                validator: OnceLock::new(),
            }));
        }
    }

    pub fn get(&self, name: &str) -> Option<&Arc<RegisteredTool>> {
        self.by_name.get(name).map(|&i| &self.tools[i])
    }

    pub fn tools(&self) -> &[Arc<RegisteredTool>] {
        &self.tools
    }

    /// The registered name closest to `name`, for "did you mean" hints.
    pub fn suggest(&self, name: &str) -> Option<&str> {
        names::closest_name(self.tools.iter().map(|t| t.info.name.as_str()), name)
    }

    /// Whether any loaded plugin declares a tool `name` (registered or skipped as taken).
    pub fn declares_tool(&self, name: &str) -> bool {
        self.plugins().iter().filter(|p| p.hook.is_none()).any(|p| p.info.tools.iter().any(|t| t.name == name))
    }

    /// The plugin `name` belongs to: its own name, the name with `_` for `-`, one of its
    /// tools, or its file ([`names`]).
    pub fn find_plugin(&self, name: &str) -> Result<names::Found<'_>, names::NameError> {
        names::find(&self.plugins(), name)
    }
}

#[cfg(test)]
#[path = "mod_tests.rs"]
mod tests;
