//! Command hooks: `[[hooks.command]]` programs run by `/bin/sh -c` in the workspace, under
//! the sandbox a `run_shell_command` call gets without a write grant, speaking Claude Code's
//! hook protocol ([`claude`]) on stdin and stdout. [`load`] turns the settings into
//! [`Hook`]s; [`CommandHook::run`] runs one ([`run`]).
//!
//! Invariants:
//! - a hook reads what commands read (the workspace, the `[commands]` folders), writes only
//!   its private temp folder and the workspace folders of its own `writes` (never outside
//!   the workspace, never airlock's own folders), reaches the network only with `network =
//!   true`, and gets the environment commands get (never the rest of airlock's) plus
//!   `CLAUDE_PROJECT_DIR` and `AIRLOCK_WORKSPACE`;
//! - its deadline kills its whole process group; its stdout and stderr are capped
//!   ([`run::MAX_OUTPUT`]); its address space is capped with `ulimit -v` (`RLIMIT_AS`), set
//!   by the shell before the command runs;
//! - a workspace's hook runs only while every file under `.airlock/hooks/` is what `airlock
//!   trust` pinned ([`pins`]): checked when the hooks load and again before each run.

pub mod claude;
pub mod pins;
mod run;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;

use airlock_process::{Base, Request};
use airlock_sandbox::Spec;
use airlock_sandbox::folders::CommandView;

use super::{Hook, HookEvent, HookFailure, HookKind, HookReply, HookScope, HookSpec};
use crate::config::hooks::{CommandHookSettings, HooksSettings};
use crate::policy::trust::TrustStore;

pub use run::MAX_OUTPUT;

/// What running command hooks needs besides their settings.
#[derive(Debug, Clone)]
pub struct Host<'a> {
    /// The canonical workspace: the hooks' folder and what they read.
    pub workspace: &'a Path,
    /// What commands see besides their call's folders (as `run_shell_command`'s do).
    pub view: Arc<CommandView>,
    /// airlock's own folders: never writable.
    pub protected: &'a [PathBuf],
    /// The sandbox helper (`/proc/self/exe` in airlock).
    pub helper: &'a Path,
    /// `trust.toml`, for the pins of a workspace's hook scripts.
    pub trust_file: &'a Path,
}

/// A hook of the settings that is not run, and why (`airlock hooks list` shows it).
#[derive(Debug, Clone)]
pub struct HookProblem {
    pub spec: HookSpec,
    pub reason: String,
}

/// The pins a workspace hook runs under.
#[derive(Debug)]
struct Pins {
    workspace: PathBuf,
    pinned: BTreeMap<String, String>,
}

impl Pins {
    /// Nothing under `.airlock/hooks/` changed since trust: otherwise what did.
    fn check(&self) -> Result<(), String> {
        let now = pins::digests(&self.workspace)?;
        let changes = pins::changes(&self.pinned, &now);
        if changes.is_empty() {
            return Ok(());
        }
        Err(format!(
            "changed since trust ({} in {}): review it, then run `airlock trust` again",
            changes.join(", "),
            pins::hooks_folder(&self.workspace).display()
        ))
    }
}

/// A command hook, ready to run.
#[derive(Debug)]
pub struct CommandHook {
    spec: HookSpec,
    launch: Arc<run::Launch>,
    pins: Option<Arc<Pins>>,
}

impl Hook for CommandHook {
    fn spec(&self) -> &HookSpec {
        &self.spec
    }

    fn run(&self, event: Arc<HookEvent>) -> BoxFuture<'static, Result<HookReply, HookFailure>> {
        let launch = Arc::clone(&self.launch);
        let pins = self.pins.clone();
        Box::pin(async move {
            if let Some(pins) = pins {
                // Hashing the pinned scripts reads files: off the async workers.
                let checked = tokio::task::spawn_blocking(move || pins.check()).await;
                checked
                    .map_err(|e| HookFailure::Unavailable(format!("the check of its pinned files failed: {e}")))?
                    .map_err(HookFailure::Unavailable)?;
            }
            let input = serde_json::to_vec(&claude::stdin(&event))
                .map_err(|e| HookFailure::Unavailable(format!("cannot encode the event: {e}")))?;
            let ended = run::run(&launch, input).await?;
            claude::reply(event.event, &ended)
        })
    }
}

/// The command hooks of `settings`, in order (system, user, workspace; each file's order),
/// and those that cannot run with why.
pub fn load(settings: &HooksSettings, host: &Host<'_>) -> (Vec<Arc<dyn Hook>>, Vec<HookProblem>) {
    let mut hooks: Vec<Arc<dyn Hook>> = Vec::new();
    let mut problems = Vec::new();
    let mut names = BTreeSet::new();
    let mut workspace_pins: Option<Result<Arc<Pins>, String>> = None;
    for setting in &settings.command {
        let name = unique_name(setting, &mut names);
        let (spec, unusable) = spec(setting, name);
        if let Some(reason) = unusable {
            problems.push(HookProblem { spec, reason });
            continue;
        }
        if setting.name.is_some() && spec.name != setting.name() {
            let reason = format!("another hook is already named {:?}: give this one its own `name`", setting.name());
            problems.push(HookProblem { spec, reason });
            continue;
        }
        let pins = match setting.scope {
            HookScope::Workspace => {
                // Checked once for all the workspace's hooks: the scripts are hashed once.
                let pins = workspace_pins
                    .get_or_insert_with(|| workspace_pins_of(host).and_then(|pins| pins.check().map(|()| pins)))
                    .clone();
                match pins {
                    Ok(pins) => Some(pins),
                    Err(reason) => {
                        problems.push(HookProblem { spec, reason });
                        continue;
                    }
                }
            }
            HookScope::System | HookScope::User => None,
        };
        match launch(setting, host) {
            Ok(launch) => hooks.push(Arc::new(CommandHook { spec, launch: Arc::new(launch), pins })),
            Err(reason) => problems.push(HookProblem { spec, reason }),
        }
    }
    (hooks, problems)
}

/// The hook's name, made unique among `taken` when it was derived (`check`, `check-2`); a
/// name set twice keeps its spelling and is refused by the caller.
fn unique_name(setting: &CommandHookSettings, taken: &mut BTreeSet<String>) -> String {
    let base = setting.name();
    let mut name = base.clone();
    if setting.name.is_some() {
        if !taken.insert(name.clone()) {
            return format!("{base}-duplicate");
        }
        return name;
    }
    let mut n = 2;
    while !taken.insert(name.clone()) {
        name = format!("{base}-{n}");
        n += 1;
    }
    name
}

/// The spec of a hook, and why its settings cannot be used when they cannot.
fn spec(setting: &CommandHookSettings, name: String) -> (HookSpec, Option<String>) {
    let command = setting.command.clone().unwrap_or_default();
    let mut grants = vec!["read the workspace and the commands' folders".to_string()];
    grants.extend(setting.writes.iter().map(|folder| format!("write ./{}", folder.trim_start_matches("./"))));
    if setting.network {
        grants.push("network".into());
    }
    let mut spec = HookSpec {
        name,
        kind: HookKind::Command,
        scope: setting.scope,
        origin: setting.origin.display().to_string(),
        events: setting.event_names(),
        tools: None,
        timeout: Duration::from_secs(setting.timeout_secs()),
        memory: setting.memory_mib() << 20,
        on_error: setting.on_error.into(),
        grants,
        digest: airlock_files::content_hash(command.as_bytes()),
    };
    if let Err(reason) = setting.check() {
        return (spec, Some(reason));
    }
    match claude::tools_regex(setting.tools.as_deref()) {
        Ok(tools) => spec.tools = tools,
        Err(e) => return (spec, Some(format!("`tools` is not a valid regular expression: {e}"))),
    }
    (spec, None)
}

/// The pins of the workspace's hook scripts, checked against the files as they are now.
fn workspace_pins_of(host: &Host<'_>) -> Result<Arc<Pins>, String> {
    let store = TrustStore::load(host.trust_file).map_err(|e| e.to_string())?;
    let pinned = store
        .pinned_hooks(host.workspace)
        .cloned()
        .ok_or_else(|| "this folder is not trusted (review it, then run `airlock trust`)".to_string())?;
    Ok(Arc::new(Pins { workspace: host.workspace.to_path_buf(), pinned }))
}

/// How `setting` is started: `/bin/sh -c` in the workspace, under the command sandbox with
/// no write grant but its own `writes`.
fn launch(setting: &CommandHookSettings, host: &Host<'_>) -> Result<run::Launch, String> {
    let command = setting.command.clone().unwrap_or_default();
    let mut read_write = Vec::new();
    for folder in &setting.writes {
        let joined = host.workspace.join(folder);
        let resolved = joined
            .canonicalize()
            .ok()
            .filter(|dir| dir.starts_with(host.workspace) && dir.is_dir())
            .ok_or_else(|| format!("`writes = [{folder:?}]` is not a folder of the workspace"))?;
        if host.protected.iter().any(|p| resolved.starts_with(p) || p.starts_with(&resolved)) {
            return Err(format!("`writes = [{folder:?}]` holds airlock's own folder, which no hook may write"));
        }
        read_write.push(resolved);
    }
    let view = &host.view;
    let mut read_only = vec![host.workspace.to_path_buf()];
    read_only.extend(view.read.iter().cloned());
    // Package caches are for reading here: a hook writes only what its `writes` names.
    read_only.extend(view.write.iter().cloned());
    let workspace = host.workspace.to_string_lossy().into_owned();
    let kib = setting.memory_mib() << 10;
    // The shell caps its own address space, which the command inherits.
    let script = format!(
        "ulimit -v {kib} || {{ echo 'airlock: cannot cap the hook'\"'\"'s memory' >&2; exit 125; }}\n{command}"
    );
    let spec = Spec {
        argv: vec!["/bin/sh".into(), "-c".into(), script],
        cwd: host.workspace.to_path_buf(),
        env: vec![("CLAUDE_PROJECT_DIR".into(), workspace.clone()), ("AIRLOCK_WORKSPACE".into(), workspace)],
        read_write,
        read_only,
        hidden: view.hidden.clone(),
        network: setting.network,
        view: view.view,
    };
    let base = Base { path: view.path.clone(), home: view.home.clone(), vars: view.env.clone() };
    let request = Request {
        spec,
        base: Some(base),
        host_env: Vec::new(),
        stdin: None,
        timeout: Duration::from_secs(setting.timeout_secs()),
        background_log: None,
    };
    Ok(run::Launch { request, helper: host.helper.to_path_buf() })
}

#[cfg(test)]
#[path = "mod_tests.rs"]
mod tests;
