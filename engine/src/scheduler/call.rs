//! One call's path through the states: [`Scheduler::validate`](super::validation) takes it
//! through `validating` (or to a terminal state), [`Scheduler::approve`](super::approval) on
//! to `scheduled`, [`Scheduler::execute`] from `executing` to the end. Here: what an
//! approved call carries, the instances it gets, and its execution.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use tokio::sync::mpsc;

use super::bound::{BoundEdit, Scratch};
use super::finish::{Ending, fault_error, finish_metered, finish_with};
use super::groups::Reach;
use super::{CompletedCall, Scheduler, grant, output};
use crate::cancel::Cancellation;
use crate::capability::net::{self, NetRule};
use crate::capability::{CallLimits, Effective, Phase, Preopen};
use crate::contract::{ContentPart, ErrorKind, ToolError, ToolOutput};
use crate::events::{CallStatus, CallUpdate, Event, EventSink};
use crate::registry::RegisteredTool;
use crate::runtime::{ApprovedLine, Gate, Instance, Parked, ProcessAccess, Sandbox, UsageMeter};
use airlock_model::FunctionCall;
use airlock_sandbox::explain::Blocked;

/// The outcome of the steps before execution.
pub(super) enum Approved {
    /// Approved and waiting for its turn.
    Ready(Ready),
    /// Finished early (unknown tool, bad arguments, refused, ...).
    Done(CompletedCall),
    /// The user cancelled this call, and with it the batch.
    CancelBatch(CompletedCall),
}

/// A call that passed validation and approval.
pub(super) struct Ready {
    pub call: FunctionCall,
    pub tool: Arc<RegisteredTool>,
    pub args: String,
    pub started: Instant,
    /// The plugin's one-line description of the call.
    pub description: String,
    /// What the execution may write.
    pub writes: Writes,
    pub access: Access,
    /// The user edited the proposal before approving it.
    pub modified: bool,
    /// The command line an exec confirmation showed, and its folder, once approved: the one
    /// line a tool granted `*` may start in this call.
    pub approved_line: Option<ApprovedLine>,
    /// The call's check instance, kept for its execution ([`Scheduler::keep_for_execution`]).
    pub kept: Option<Parked>,
}

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
    /// The folders the execution under `writes` gets: the same choice as [`Sandboxing`]
    /// makes in [`Scheduler::execute`], so the dialog shows what the instance will hold.
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

impl Ready {
    pub fn cancel(self, reason: &str, events: &EventSink) -> CompletedCall {
        let error = Err(ToolError::new(ErrorKind::Cancelled, reason));
        finish_metered(&self.call, self.started, error, events, Some(&self.access.meter))
    }

    /// What the execution may write, for grouping.
    pub fn reach(&self) -> Reach {
        if self.tool.info.kind.is_read_only() {
            return Reach::ReadOnly;
        }
        match &self.writes {
            // A file with other hard links is also a file elsewhere: its tree says nothing.
            Writes::Edit(target) if hard_linked(&target.file) => Reach::Unknown,
            Writes::Bound(bound) if hard_linked(&bound.target.file) => Reach::Unknown,
            Writes::Edit(_) | Writes::Bound(_) | Writes::Nothing => {
                Reach::Trees(self.access.writable(&self.tool.info, &self.writes))
            }
            Writes::Grant => Reach::Unknown,
        }
    }
}

/// Whether `file` has more than one name (hard links), so another path may write it.
fn hard_linked(file: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::symlink_metadata(file).is_ok_and(|m| m.is_file() && m.nlink() > 1)
    }
    #[cfg(not(unix))]
    {
        let _ = file;
        false
    }
}

impl Scheduler {
    pub(super) async fn execute(&self, ready: Ready, events: &EventSink, cancel: &Cancellation) -> CompletedCall {
        if cancel.is_cancelled() {
            return ready.cancel("the run was cancelled before this call started", events);
        }
        let Ready { call, tool, args, started, description, writes, access, modified, approved_line, kept } = ready;
        events.send(Event::ToolCall(Box::new(CallUpdate::new(&call.id, &call.name, CallStatus::Executing))));
        if !access.effective.processes.is_empty() {
            self.warn_without_view(events);
        }
        // The card's time starts here: a call waits for every approval of its batch first.
        let executing = Instant::now();
        // WASI has no chmod, so a plugin's atomic rewrite resets the file's mode: keep it —
        // through a handle on the folder, never by a path the plugin could re-point.
        let kept_mode = match &writes {
            Writes::Edit(target) if !access.writable(&tool.info, &writes).is_empty() => KeptMode::read(target),
            _ => None,
        };
        let (live, forwarding) = match tool.info.streams_output {
            true => {
                let (sender, forwarding) = output::forward_live(&call.id, events);
                (Some(sender), Some(forwarding))
            }
            false => (None, None),
        };
        let run = Run { tool: &tool, call: &call, args: &args, writes: &writes, cancel, live, events, approved_line };
        let mut scratch = match scratch_for(&writes).await {
            Ok(scratch) => scratch,
            Err(error) => return finish_metered(&call, started, Err(error), events, Some(&access.meter)),
        };
        let mut outcome = self.run_once(&run, &access, kept, scratch.as_ref()).await;
        // A failure for want of what the plugin requested and nobody granted: the person may
        // grant it on the spot, and the call runs once more with it (in a fresh copy).
        if outcome.result.is_err()
            && !cancel.is_cancelled()
            && let Some(widened) = self.offer_grant(&run, &access, &outcome.denied).await
        {
            scratch = match scratch_for(&writes).await {
                Ok(fresh) => fresh,
                Err(error) => return finish_metered(&call, started, Err(error), events, Some(&access.meter)),
            };
            outcome = self.run_once(&run, &widened, None, scratch.as_ref()).await;
        }
        // A command the OS sandbox blocked: the person may let it run again with exactly the
        // access it lacked.
        if !outcome.blocked.is_empty()
            && !cancel.is_cancelled()
            && let Some(widened) = self.offer_sandbox_access(&run, &access, &outcome.blocked).await
        {
            scratch = match scratch_for(&writes).await {
                Ok(fresh) => fresh,
                Err(error) => return finish_metered(&call, started, Err(error), events, Some(&access.meter)),
            };
            outcome = self.run_once(&run, &widened, None, scratch.as_ref()).await;
        }
        let lines = grant::blocked_lines(&tool.plugin.info.name, &outcome.blocked);
        let result = explain_blocked(outcome.result, &lines);
        // The live-output sender goes with the run: the forwarder drains once it is gone.
        drop(run);
        // The instance is gone: its last live output goes out before the call's end.
        let live = match forwarding {
            Some(forwarding) => forwarding.drained().await,
            None => None,
        };
        let result = result.map(|mut output| {
            if modified {
                output.llm_content.push(ContentPart::Text {
                    text: "[the user edited the proposed content before it was applied]".into(),
                });
            }
            output
        });
        if let (Ok(_), Some(kept)) = (&result, kept_mode) {
            kept.restore();
        }
        let result = match (&writes, scratch) {
            (Writes::Bound(bound), Some(scratch)) => self.settle(bound, scratch, result, &tool, events).await,
            (_, _) => result,
        };
        let ending = Ending {
            started: Some(started),
            executing: Some(executing),
            meter: Some(&access.meter),
            description: Some(description),
            live,
        };
        finish_with(&call, result, events, ending)
    }

    /// Takes a bound edit's approved file out of its scratch copy, off the async workers,
    /// and tells the person what was discarded.
    async fn settle(
        &self,
        bound: &BoundEdit,
        scratch: Scratch,
        result: Result<ToolOutput, ToolError>,
        tool: &RegisteredTool,
        events: &EventSink,
    ) -> Result<ToolOutput, ToolError> {
        let (bound, workspace, name) = (bound.clone(), self.workspace.clone(), tool.info.name.clone());
        let settled = tokio::task::spawn_blocking(move || bound.settle(&scratch, result, &name, &workspace)).await;
        match settled {
            Ok(settled) => {
                if let Some(message) = settled.warning {
                    events.send(Event::Warning { message });
                }
                settled.result
            }
            Err(error) => Err(ToolError::new(ErrorKind::Execution, format!("the edit could not be applied: {error}"))),
        }
    }

    /// One execution of `run` under `access`, in the call's `kept` check instance when it
    /// is still there, else in a fresh one (a bound edit's in its `scratch` copy).
    pub(super) async fn run_once(
        &self,
        run: &Run<'_>,
        access: &Access,
        kept: Option<Parked>,
        scratch: Option<&Scratch>,
    ) -> Outcome {
        let Run { tool, call, args, writes, cancel, live, events, approved_line } = run;
        let instance = match kept.and_then(Parked::resume) {
            Some(instance) => Ok(instance),
            None => {
                let processes = self.process_access(tool, access, writes, approved_line.clone());
                let sandboxing = execution(writes, scratch.map(Scratch::root));
                self.instance(tool, call, access, sandboxing, cancel, live.clone(), processes).await
            }
        };
        match instance {
            Ok(mut instance) => {
                let result = match instance.execute(&tool.info.name, args).await {
                    Ok(Ok(output)) => {
                        Ok(output::cap(output, access.limits.output, self.outputs.as_deref(), &call.id).await)
                    }
                    Ok(Err(error)) => Err(error),
                    Err(fault) => Err(fault_error(tool, fault)),
                };
                let denied = self.warn_network_denials(tool, &instance, events);
                Outcome { result, denied, blocked: instance.sandbox_blocked() }
            }
            Err(error) => Outcome { result: Err(error), denied: Vec::new(), blocked: Vec::new() },
        }
    }

    /// A fresh instance of `tool` for one phase of `call`, holding what `access` gives that
    /// phase; its calls may start the children `processes` allows (executions only).
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn instance(
        &self,
        tool: &RegisteredTool,
        call: &FunctionCall,
        access: &Access,
        sandboxing: impl Into<Sandboxing<'_>>,
        cancel: &Cancellation,
        live_output: Option<mpsc::UnboundedSender<String>>,
        processes: Option<ProcessAccess>,
    ) -> Result<Instance, ToolError> {
        let component = tool.plugin.component(&self.runtime).await.map_err(|e| {
            ToolError::new(ErrorKind::PluginFault, format!("the plugin {} cannot be loaded: {e}", tool.plugin.label()))
        })?;
        let sandbox = self.sandbox(tool, call, access, sandboxing.into(), cancel, live_output, processes);
        let label: Arc<str> = tool.plugin.info.name.as_str().into();
        self.runtime.instantiate(&component, label, &sandbox).await.map_err(|fault| fault_error(tool, fault))
    }

    /// Keeps `checked`, the instance a call passed its checks in, for the call's execution
    /// when the execution's sandbox would hold exactly what the checks' holds (a read-only
    /// tool with no network, environment, programs or live output): then the execution can
    /// learn or do nothing the checks could not, and the call instantiates once. Else, or
    /// when the instance faulted, it is dropped.
    pub(super) fn keep_for_execution(
        &self,
        checked: Instance,
        tool: &RegisteredTool,
        call: &FunctionCall,
        access: &Access,
        writes: &Writes,
        cancel: &Cancellation,
    ) -> Option<Parked> {
        // A bound edit executes in a scratch copy made when it runs.
        if tool.info.streams_output
            || matches!(writes, Writes::Bound(_))
            || self.process_access(tool, access, writes, None).is_some()
        {
            return None;
        }
        let check = self.sandbox(tool, call, access, Sandboxing::Phase(Phase::Check), cancel, None, None);
        let execute = self.sandbox(tool, call, access, execution(writes, None), cancel, None, None);
        if !check.holds_the_same(&execute) {
            return None;
        }
        self.runtime.park(checked)
    }

    /// What an instance of `tool` gets for one phase of `call`.
    #[allow(clippy::too_many_arguments)]
    fn sandbox(
        &self,
        tool: &RegisteredTool,
        call: &FunctionCall,
        access: &Access,
        sandboxing: Sandboxing<'_>,
        cancel: &Cancellation,
        live_output: Option<mpsc::UnboundedSender<String>>,
        processes: Option<ProcessAccess>,
    ) -> Sandbox {
        let (preopens, phase): (Vec<Preopen>, Phase) = match sandboxing {
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
    fn process_access(
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

    /// Says once per session, before the first call that may start programs, that they run
    /// without the read-only view when this machine does not allow it (never a silent
    /// downgrade; a user who turned the view off in `[commands]` knows).
    fn warn_without_view(&self, events: &EventSink) {
        if !self.command_view().view {
            return;
        }
        let Err(reason) = airlock_sandbox::view_support(Path::new(airlock_process::SELF_EXE)) else { return };
        if self.first_warning("commands-without-view".into()) {
            events.send(Event::Warning {
                message: format!(
                    "commands run without the read-only view of the system ({reason}): outside the workspace \
                     they can still change file modes, times and extended attributes, secrets are kept out by \
                     Landlock alone, and what they leave running may outlive airlock"
                ),
            });
        }
    }

    /// Tells the user, once per tool and session, which requests were not granted and the
    /// command that would grant them.
    pub(super) fn warn_missing(&self, tool: &RegisteredTool, effective: &Effective, events: &EventSink) {
        if effective.missing.is_empty() || !self.first_warning(format!("missing:{}", tool.info.name)) {
            return;
        }
        let plugin = &tool.plugin.info.name;
        events.send(Event::Warning {
            message: format!(
                "`{}` (plugin {plugin}) runs without {} it asked for; {}",
                tool.info.name,
                if effective.missing.len() == 1 { "a capability" } else { "capabilities" },
                self.policy.grant_hint(&tool.plugin, &tool.info, effective, "it")
            ),
        });
    }

    /// Warns of each refused destination once; returns the refused destinations a grant
    /// could allow (each within what the plugin requested).
    fn warn_network_denials(&self, tool: &RegisteredTool, instance: &Instance, events: &EventSink) -> Vec<NetRule> {
        let plugin = &tool.plugin.info.name;
        let mut grantable = Vec::new();
        for denial in instance.network_denials() {
            let requested: Vec<NetRule> =
                tool.info.capabilities.network.iter().filter_map(|r| NetRule::parse(r).ok()).collect();
            if let Some(rule) = &denial.grant
                && !net::intersect(&requested, std::slice::from_ref(rule)).is_empty()
                && !grantable.contains(rule)
            {
                grantable.push(rule.clone());
            }
            if !self.first_warning(format!("net:{plugin}:{}", denial.url)) {
                continue;
            }
            let requested: Vec<NetRule> =
                tool.info.capabilities.network.iter().filter_map(|r| NetRule::parse(r).ok()).collect();
            let hint = match &denial.grant {
                Some(rule) if !net::intersect(&requested, std::slice::from_ref(rule)).is_empty() => {
                    format!(
                        "; to allow it: airlock plugins grant {plugin} {}",
                        crate::sanitize::grant_flag("--net", &rule.to_string())
                    )
                }
                Some(_) => "; the plugin did not request it, so no grant can allow it".to_string(),
                None => String::new(),
            };
            events.send(Event::Warning {
                message: format!("plugin {plugin} was denied {}: {}{hint}", denial.url, denial.reason),
            });
        }
        grantable
    }
}

/// What one execution of a call came to.
pub(super) struct Outcome {
    pub result: Result<ToolOutput, ToolError>,
    /// The refused network destinations a grant could allow (within what its plugin requested).
    pub denied: Vec<NetRule>,
    /// What the OS sandbox blocked its programs from.
    pub blocked: Vec<Blocked>,
}

/// `result` with `lines` (what the sandbox blocked) added where the model and the person
/// read it: after the output, or after the error's message.
fn explain_blocked(result: Result<ToolOutput, ToolError>, lines: &[String]) -> Result<ToolOutput, ToolError> {
    if lines.is_empty() {
        return result;
    }
    let text = lines.join("\n");
    match result {
        Ok(mut output) => {
            output.llm_content.push(ContentPart::Text { text });
            Ok(output)
        }
        Err(mut error) => {
            error.message = format!("{}\n{text}", error.message);
            Err(error)
        }
    }
}

/// One call's execution, as often as it runs (once, or again with a grant).
pub(super) struct Run<'a> {
    pub tool: &'a RegisteredTool,
    pub call: &'a FunctionCall,
    pub args: &'a str,
    pub writes: &'a Writes,
    pub cancel: &'a Cancellation,
    pub live: Option<mpsc::UnboundedSender<String>>,
    pub events: &'a EventSink,
    /// The command line approved for this call, and its folder.
    pub approved_line: Option<ApprovedLine>,
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
fn execution<'a>(writes: &'a Writes, scratch: Option<&'a Path>) -> Sandboxing<'a> {
    match (writes, scratch) {
        (Writes::Grant, _) => Sandboxing::Phase(Phase::Execute),
        (Writes::Edit(target), _) => Sandboxing::Edit(Some(&target.dir)),
        (Writes::Bound(bound), Some(scratch)) => Sandboxing::Bound { dir: &bound.target.dir, scratch },
        (Writes::Bound(_) | Writes::Nothing, _) => Sandboxing::Edit(None),
    }
}

/// A fresh scratch copy for a bound edit's execution (made off the async workers); `None`
/// for other calls.
async fn scratch_for(writes: &Writes) -> Result<Option<Scratch>, ToolError> {
    let Writes::Bound(bound) = writes else { return Ok(None) };
    let bound = bound.clone();
    let copied = tokio::task::spawn_blocking(move || bound.scratch()).await;
    match copied {
        Ok(Ok(scratch)) => Ok(Some(scratch)),
        Ok(Err(error)) => Err(ToolError::new(
            ErrorKind::Execution,
            format!("airlock could not prepare the edit (copying the file's folder): {error}"),
        )),
        Err(error) => Err(ToolError::new(ErrorKind::Execution, format!("airlock could not prepare the edit: {error}"))),
    }
}

impl From<Phase> for Sandboxing<'_> {
    fn from(phase: Phase) -> Self {
        Self::Phase(phase)
    }
}

/// A file's mode before an edit, to put back after the plugin's rewrite reset it. Held
/// through a handle on the file's folder, opened without following links, so the file
/// changed afterwards is the one in that folder — never one a link or a planted hard link
/// leads to.
struct KeptMode {
    dir: airlock_files::DirHandle,
    name: std::ffi::OsString,
    mode: u32,
}

impl KeptMode {
    fn read(target: &EditTarget) -> Option<Self> {
        if target.file.parent() != Some(target.dir.as_path()) {
            return None;
        }
        let dir = airlock_files::open_dir(&target.dir).ok()?;
        let name = target.file.file_name()?.to_os_string();
        let stat = dir.stat_entry(&name).ok()?;
        let regular = rustix::fs::FileType::from_raw_mode(stat.st_mode) == rustix::fs::FileType::RegularFile;
        (regular && stat.st_nlink == 1).then(|| Self { dir, name, mode: stat.st_mode & 0o777 })
    }

    fn restore(self) {
        // A file with another name elsewhere (a hard link) is not ours to change.
        let Ok((file, stat)) = self.dir.open_regular(&self.name) else { return };
        if stat.st_nlink != 1 || stat.st_mode & 0o777 == self.mode {
            return;
        }
        if let Err(error) = rustix::fs::fchmod(&file, rustix::fs::Mode::from_raw_mode(self.mode)) {
            tracing::warn!("cannot restore the permissions of {:?}: {error}", self.name);
        }
    }
}
