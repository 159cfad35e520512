//! What a call's instances hold: the folders, network, environment and limits its access
//! gives each phase ([`Sandboxing`]), what an approved call may write ([`Writes`]), the
//! programs an execution may start, and the instances built from them. The check phases
//! hold no network and no environment; an execution holds what its approval showed, and a
//! person asked sees exactly that ([`Access::held`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio::sync::mpsc;

use super::Scheduler;
use super::bound::BoundEdit;
use super::finish::fault_error;
use crate::cancel::Cancellation;
use crate::capability::net::NetRule;
use crate::capability::{CallLimits, Effective, Phase, Preopen};
use crate::contract::{ErrorKind, ToolError};
use crate::registry::RegisteredTool;
use crate::runtime::{ApprovedLine, Gate, Instance, Parked, ProcessAccess, Sandbox, UsageMeter};
use airlock_model::FunctionCall;

/// What an approved call may write while it executes.
pub(super) enum Writes {
    /// What its grant allows (calls whose confirmation is not an edit: the person was shown
    /// that grant).
    Grant,
    /// A built-in's edit: the folder of the file its confirmation showed, nothing else.
    Edit(EditTarget),
    /// A third-party plugin's edit: the file its confirmation showed, to the content shown,
    /// written by the host ([`super::bound`]); the rest of what the call writes is discarded.
    Bound(Box<BoundEdit>),
    /// An edit of a file that cannot be resolved or that no grant lets it write: nothing.
    Nothing,
}

/// The file an edit confirmation names, resolved.
#[derive(Debug, Clone)]
pub(super) struct EditTarget {
    /// The file, canonical (links followed).
    pub file: PathBuf,
    /// Its folder — or, for a file in folders still to be made, the deepest one that exists:
    /// the only folder the approved execution may write in (if its grant covers it).
    pub dir: PathBuf,
}

impl EditTarget {
    /// Resolves the path of an edit confirmation (workspace-relative or absolute).
    pub(super) fn resolve(workspace: &Path, raw: &str) -> Option<Self> {
        if raw.is_empty() {
            return None;
        }
        let file = airlock_files::canonical_lenient(&workspace.join(raw));
        let mut dir = file.parent()?.to_path_buf();
        while !dir.is_dir() {
            dir = dir.parent()?.to_path_buf();
        }
        Some(Self { file, dir })
    }
}

/// What a call's instances get: its capabilities and limits.
pub(super) struct Access {
    pub effective: Effective,
    pub limits: CallLimits,
    /// What the call's instances used, added up over all of them (its cost).
    pub meter: Arc<UsageMeter>,
}

/// Bytes of an HTTP response body a guest may read per request.
const HTTP_RESPONSE_CAP: usize = 10 << 20;

impl Access {
    /// The folders the execution under `writes` gets: the same choice as [`execution`]
    /// makes for the instance, so the dialog shows what the instance will hold.
    pub fn execute_preopens(&self, tool: &crate::contract::ToolInfo, writes: &Writes) -> Vec<Preopen> {
        match writes {
            Writes::Grant => self.effective.preopens(tool, Phase::Execute),
            Writes::Edit(target) => self.effective.edit_preopens(tool, &target.dir),
            // Its scratch copy exists only while it runs; the real folders stay read-only.
            Writes::Bound(_) | Writes::Nothing => self.effective.preopens(tool, Phase::Check),
        }
    }

    /// Everything the execution's sandbox will hold, for the person asked to allow it:
    /// folders, network rules, the environment names granted, and the limits.
    pub fn held(&self, tool: &crate::contract::ToolInfo, writes: &Writes) -> crate::capability::Held {
        let mut folders: Vec<crate::capability::HeldFolder> = self
            .execute_preopens(tool, writes)
            .into_iter()
            .map(|p| crate::capability::HeldFolder { path: p.host, writable: p.writable })
            .collect();
        if let Writes::Bound(bound) = writes {
            folders.push(crate::capability::HeldFolder { path: bound.target.file.clone(), writable: true });
        }
        crate::capability::Held {
            folders,
            network: self.effective.network.iter().map(ToString::to_string).collect(),
            env: self.effective.env.clone(),
            memory_bytes: self.limits.memory as u64,
            timeout_secs: self.limits.deadline.as_secs(),
            output_bytes: self.limits.output as u64,
            commands: (!self.effective.processes.is_empty())
                .then(|| commands_sandbox(self.effective.network.iter().any(NetRule::is_every_host))),
        }
    }

    /// The folders an execution under `writes` could write in.
    pub fn writable(&self, tool: &crate::contract::ToolInfo, writes: &Writes) -> Vec<PathBuf> {
        match writes {
            Writes::Grant => self.effective.writable(tool).into_iter().map(Path::to_path_buf).collect(),
            Writes::Edit(target) => self
                .effective
                .edit_preopens(tool, &target.dir)
                .into_iter()
                .filter(|p| p.writable)
                .map(|p| p.host)
                .collect(),
            Writes::Bound(bound) => vec![bound.target.file.clone()],
            Writes::Nothing => Vec::new(),
        }
    }
}

/// The OS sandbox of the programs a call starts, in one line for the person asked — never a
/// silent downgrade: a kernel without Landlock, or a machine without the namespace view, is
/// named.
pub(super) fn commands_sandbox(network: bool) -> String {
    let view = airlock_sandbox::view_support(Path::new(airlock_process::SELF_EXE));
    commands_sandbox_under(airlock_sandbox::support(), view.as_ref().map(|_| ()).map_err(String::as_str), network)
}

/// [`commands_sandbox`] on a machine that enforces what `support` and `view` say.
pub(super) fn commands_sandbox_under(
    support: airlock_sandbox::Support,
    view: Result<(), &str>,
    network: bool,
) -> String {
    let network = if network { "with the network" } else { "no network" };
    let seccomp = if support.seccomp { " + seccomp" } else { " (no seccomp)" };
    let view = match view {
        Ok(()) => "in a read-only view of the system with your secrets hidden, ".to_owned(),
        Err(reason) => format!("WITHOUT the read-only view of the system ({reason}), "),
    };
    match support.landlock_abi {
        Some(abi) => format!("programs it starts run {view}under Landlock ABI {abi}{seccomp}, {network}"),
        None => format!(
            "programs it starts run {view}WITHOUT a file-system sandbox (this kernel has no Landlock){seccomp}, {network}"
        ),
    }
}

impl Scheduler {
    /// A fresh instance for one phase of `of`'s call, holding what its access gives that
    /// phase and what `holds` adds.
    pub(super) async fn instance(
        &self,
        of: InstanceOf<'_>,
        holds: impl Into<Holds<'_>>,
    ) -> Result<Instance, ToolError> {
        let tool = of.tool;
        let component = tool.plugin.component(&self.runtime).await.map_err(|e| {
            ToolError::new(ErrorKind::PluginFault, format!("the plugin {} cannot be loaded: {e}", tool.plugin.label()))
        })?;
        let sandbox = self.sandbox(of, holds.into());
        let label: Arc<str> = tool.plugin.info.name.as_str().into();
        self.runtime.instantiate(&component, label, &sandbox).await.map_err(|fault| fault_error(tool, fault))
    }

    /// Keeps `checked`, the instance a call passed its checks in, for the call's execution
    /// when the execution's sandbox would hold exactly what the checks' holds (a read-only
    /// tool with no network, environment, programs or live output): then the execution can
    /// learn or do nothing the checks could not, and the call instantiates once. Else, or
    /// when the instance faulted, it is dropped.
    pub(super) fn keep_for_execution(&self, checked: Instance, of: InstanceOf<'_>, writes: &Writes) -> Option<Parked> {
        // A bound edit executes in a scratch copy made when it runs.
        if of.tool.info.streams_output
            || matches!(writes, Writes::Bound(_))
            || self.process_access(of.tool, of.access, writes, None).is_some()
        {
            return None;
        }
        let check = self.sandbox(of, Phase::Check.into());
        let execute = self.sandbox(of, execution(writes, None).into());
        if !check.holds_the_same(&execute) {
            return None;
        }
        self.runtime.park(checked)
    }

    /// What an instance of `of`'s call gets for one phase: its access for that phase, and
    /// what `holds` adds.
    fn sandbox(&self, of: InstanceOf<'_>, holds: Holds<'_>) -> Sandbox {
        let InstanceOf { tool, call, access, cancel } = of;
        let Holds { folders, live_output, processes } = holds;
        let (preopens, phase): (Vec<Preopen>, Phase) = match folders {
            Sandboxing::Phase(phase) => (access.effective.preopens(&tool.info, phase), phase),
            Sandboxing::Edit(Some(dir)) => (access.effective.edit_preopens(&tool.info, dir), Phase::Execute),
            Sandboxing::Edit(None) => (access.effective.preopens(&tool.info, Phase::Check), Phase::Execute),
            Sandboxing::Bound { dir, scratch } => {
                (access.effective.bound_preopens(&tool.info, dir, scratch), Phase::Execute)
            }
        };
        // The check phases (validate, describe-call, confirm, modify-args) run before anyone
        // approved anything: no network and no environment, so they cannot send or use what
        // they read.
        let (network, env) = match phase {
            Phase::Check => (Vec::new(), Vec::new()),
            Phase::Execute => (
                access.effective.network.clone(),
                access
                    .effective
                    .env
                    .iter()
                    .filter_map(|name| {
                        let provided = access.effective.provided_env.iter().find(|(n, _)| n == name);
                        match provided {
                            Some((_, value)) => Some((name.clone(), value.clone())),
                            None if access.effective.provided_env.is_empty() => {
                                Some((name.clone(), std::env::var(name).ok()?))
                            }
                            None => None,
                        }
                    })
                    .collect(),
            ),
        };
        Sandbox {
            preopens,
            memory_limit: access.limits.memory,
            deadline: access.limits.deadline,
            workspace_root: self.workspace.to_string_lossy().into_owned(),
            call_id: call.id.clone(),
            cancel: cancel.flag(),
            live_output,
            network,
            env,
            http_response_cap: HTTP_RESPONSE_CAP,
            meter: access.meter.clone(),
            processes,
        }
    }

    /// What an executing call's children may get, when its tool was granted `processes`:
    /// the gate (its prefixes, the approved line, the deny rules) and the OS sandbox built
    /// from the same grant as the instance's — its writable folders, its read-only folders,
    /// the network only with a grant of every host.
    pub(super) fn process_access(
        &self,
        tool: &RegisteredTool,
        access: &Access,
        writes: &Writes,
        approved_line: Option<ApprovedLine>,
    ) -> Option<ProcessAccess> {
        if access.effective.processes.is_empty() {
            return None;
        }
        let preopens = access.execute_preopens(&tool.info, writes);
        let read_write: Vec<PathBuf> = preopens.iter().filter(|p| p.writable).map(|p| p.host.clone()).collect();
        let read_only: Vec<PathBuf> = preopens.iter().filter(|p| !p.writable).map(|p| p.host.clone()).collect();
        Some(ProcessAccess {
            gate: Gate {
                prefixes: access.effective.processes.clone(),
                approved: approved_line,
                denied: self.policy.denied_commands(&tool.info.name),
            },
            read_write,
            read_only,
            network: access.effective.network.iter().any(NetRule::is_every_host),
            env_names: access.effective.env.clone(),
            view: self.command_view(),
            workspace: self.workspace.clone(),
            log_dir: self.outputs.clone(),
        })
    }
}

/// Which preopens an instance gets.
pub(super) enum Sandboxing<'a> {
    /// The tool's grant, read-only unless executing.
    Phase(Phase),
    /// An approved edit's execution: writable in this folder only (if the grant covers it),
    /// or nowhere.
    Edit(Option<&'a Path>),
    /// A bound edit's execution: the scratch copy writable at the path of the folder `dir`,
    /// everything else read-only.
    Bound { dir: &'a Path, scratch: &'a Path },
}

/// The preopens of an execution under `writes`, given a bound edit's `scratch` copy (a
/// bound edit without one writes nowhere).
pub(super) fn execution<'a>(writes: &'a Writes, scratch: Option<&'a Path>) -> Sandboxing<'a> {
    match (writes, scratch) {
        (Writes::Grant, _) => Sandboxing::Phase(Phase::Execute),
        (Writes::Edit(target), _) => Sandboxing::Edit(Some(&target.dir)),
        (Writes::Bound(bound), Some(scratch)) => Sandboxing::Bound { dir: &bound.target.dir, scratch },
        (Writes::Bound(_) | Writes::Nothing, _) => Sandboxing::Edit(None),
    }
}

impl From<Phase> for Sandboxing<'_> {
    fn from(phase: Phase) -> Self {
        Self::Phase(phase)
    }
}

/// The call an instance is for: its tool, the call itself, the access it runs with, and
/// what cancels it.
#[derive(Clone, Copy)]
pub(super) struct InstanceOf<'a> {
    pub tool: &'a RegisteredTool,
    pub call: &'a FunctionCall,
    pub access: &'a Access,
    pub cancel: &'a Cancellation,
}

/// What one instance holds besides its call's access: the folders of its phase and, for an
/// execution, the channel its live output goes to and the programs it may start.
pub(super) struct Holds<'a> {
    pub folders: Sandboxing<'a>,
    pub live_output: Option<mpsc::UnboundedSender<String>>,
    pub processes: Option<ProcessAccess>,
}

impl<'a> From<Sandboxing<'a>> for Holds<'a> {
    fn from(folders: Sandboxing<'a>) -> Self {
        Self { folders, live_output: None, processes: None }
    }
}

impl From<Phase> for Holds<'_> {
    fn from(phase: Phase) -> Self {
        Sandboxing::Phase(phase).into()
    }
}
