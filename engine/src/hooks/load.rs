//! The one gathering point of a session's hooks: every kind loaded from its settings and
//! folders ([`load`]), with the hooks that are not run and why. The engine's start and
//! `airlock hooks list` both call it, so what the list shows is what a session runs.
//!
//! Invariant: nothing is started or read for a kind that has no hook configured (a session
//! without hooks pays nothing here).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::command::{self, HookProblem};
use super::{Hook, HookSpec};
use crate::config::hooks::HooksSettings;
use crate::registry::LoadProblem;
use airlock_sandbox::folders::CommandView;

/// What loading hooks needs.
pub struct Sources<'a> {
    /// `[hooks]` of the settings, every layer's (a workspace's only when trusted).
    pub settings: &'a HooksSettings,
    /// The canonical workspace.
    pub workspace: &'a Path,
    /// airlock's own folders, never writable by a hook.
    pub protected: &'a [PathBuf],
    /// `trust.toml`, for the pins of a workspace's hook files.
    pub trust_file: &'a Path,
    /// What commands see besides their folders, read only when a command hook is set.
    pub view: &'a dyn Fn() -> Arc<CommandView>,
    /// The component runtime, the loaded plugins (hook components among them) and the
    /// policy that grants them.
    pub runtime: &'a Arc<crate::runtime::Runtime>,
    pub registry: &'a crate::registry::Registry,
    pub policy: &'a crate::policy::Policy,
}

/// Every hook that runs, in no particular order ([`super::Hooks::new`] orders them), and
/// every one that does not, with why.
pub fn load(sources: &Sources<'_>) -> (Vec<Arc<dyn Hook>>, Vec<HookProblem>) {
    let mut hooks: Vec<Arc<dyn Hook>> = Vec::new();
    let mut problems = Vec::new();
    if !sources.settings.command.is_empty() {
        let host = command::Host {
            workspace: sources.workspace,
            view: (sources.view)(),
            protected: sources.protected,
            // The sandbox helper: airlock's own binary.
            helper: Path::new(airlock_process::SELF_EXE),
            trust_file: sources.trust_file,
        };
        let (loaded, not_run) = command::load(sources.settings, &host);
        hooks.extend(loaded);
        problems.extend(not_run);
    }
    if !sources.registry.hooks().is_empty() || !sources.settings.component.is_empty() {
        let (loaded, not_run) =
            super::component::load(sources.runtime, sources.registry, sources.policy, &sources.settings.component);
        hooks.extend(loaded);
        problems.extend(not_run);
    }
    (hooks, problems)
}

/// A hook that is not run, as a plugin problem is told to front ends.
pub fn problem(problem: &HookProblem) -> LoadProblem {
    let HookProblem { spec: HookSpec { name, origin, .. }, reason } = problem;
    LoadProblem { path: origin.clone(), reason: format!("hook `{name}` is not run: {reason}") }
}
