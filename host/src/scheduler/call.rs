//! One call's path through the states: [`Scheduler::prepare`] takes it through
//! `validating` (or to a terminal state), [`Scheduler::approve`](super::approval) on to
//! `scheduled`, [`Scheduler::execute`] from `executing` to the end.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use tokio::sync::mpsc;

use super::groups::Reach;
use super::{CallLimits, CompletedCall, Scheduler, output};
use crate::cancel::Cancellation;
use crate::capability::net::{self, NetRule};
use crate::capability::{Effective, Phase};
use crate::contract::{Confirmation, ContentPart, ErrorKind, ToolError, ToolOutput};
use crate::events::{CallStatus, CallUpdate, Event, EventSink};
use crate::model::FunctionCall;
use crate::policy::Verdict;
use crate::policy::rules::CallFacts;
use crate::registry::{ArgsProblem, RegisteredTool};
use crate::runtime::{CallFault, Instance, Preopen, Sandbox};

/// The outcome of validation: a call to approve, or one that already ended.
pub(super) enum Checked {
    Pending(Box<Pending>),
    Done(Box<CompletedCall>),
}

/// A call that passed validation and waits for its verdict (and perhaps the user).
pub(super) struct Pending {
    pub call: FunctionCall,
    pub tool: Arc<RegisteredTool>,
    pub args: String,
    pub started: Instant,
    pub writes: Writes,
    pub access: Access,
    pub description: String,
    pub confirmation: Option<Confirmation>,
    /// The path the call touches, for rules.
    pub path: Option<String>,
    /// The command of an exec confirmation, for rules.
    pub command: Option<String>,
}

/// The outcome of the steps before execution.
pub(super) enum Prepared {
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
    /// What the execution may write.
    pub writes: Writes,
    pub access: Access,
    /// The user edited the proposal before approving it.
    pub modified: bool,
}

/// What an approved call may write while it executes.
pub(super) enum Writes {
    /// What its grant allows (calls whose confirmation is not an edit: the person was shown
    /// that grant).
    Grant,
    /// An edit: the folder of the file its confirmation showed, nothing else.
    Edit(EditTarget),
    /// An edit of a file that cannot be resolved: nothing.
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
    fn resolve(workspace: &Path, raw: &str) -> Option<Self> {
        if raw.is_empty() {
            return None;
        }
        let file = crate::files::canonical_lenient(&workspace.join(raw));
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
}

/// Bytes of an HTTP response body a guest may read per request.
const HTTP_RESPONSE_CAP: usize = 10 << 20;

impl Access {
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
            Writes::Nothing => Vec::new(),
        }
    }
}

impl Ready {
    pub fn cancel(self, reason: &str, events: &EventSink) -> CompletedCall {
        finish(&self.call, self.started, Err(ToolError::new(ErrorKind::Cancelled, reason)), events)
    }

    /// What the execution may write, for grouping.
    pub fn reach(&self) -> Reach {
        if self.tool.info.kind.is_read_only() {
            return Reach::ReadOnly;
        }
        match &self.writes {
            // A file with other hard links is also a file elsewhere: its tree says nothing.
            Writes::Edit(target) if hard_linked(&target.file) => Reach::Unknown,
            Writes::Edit(_) | Writes::Nothing => Reach::Trees(self.access.writable(&self.tool.info, &self.writes)),
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

impl Pending {
    pub fn cancel(self, reason: &str, events: &EventSink) -> CompletedCall {
        finish(&self.call, self.started, Err(ToolError::new(ErrorKind::Cancelled, reason)), events)
    }
}

impl Scheduler {
    pub(super) async fn prepare(&self, call: &FunctionCall, events: &EventSink, cancel: &Cancellation) -> Checked {
        let started = Instant::now();
        let parsed = parse_args(&call.arguments);
        let mut update = CallUpdate::new(&call.id, &call.name, CallStatus::Validating);
        update.args = Some(parsed.clone().unwrap_or_else(|_| serde_json::Value::String(call.arguments.clone())));
        events.send(Event::ToolCall(Box::new(update)));
        let fail = |error: ToolError| Checked::Done(Box::new(finish(call, started, Err(error), events)));

        let Some(tool) = self.registry.get(&call.name).cloned() else {
            return fail(self.unknown_tool(&call.name));
        };
        if !self.policy.offers(&tool.info) {
            let verdict =
                self.policy.verdict(&tool.info, &CallFacts { tool: &call.name, ..CallFacts::default() }, None);
            let message = match verdict {
                Verdict::Deny(message) => message,
                _ => format!("`{}` is not available in this session", call.name),
            };
            return fail(ToolError::new(ErrorKind::PolicyDenied, message));
        }
        let args = match parsed {
            Ok(args) => args,
            Err(reason) => return fail(ToolError::new(ErrorKind::InvalidParams, reason)),
        };
        if let Err(error) = check_schema(&tool, &args).await {
            return fail(error);
        }
        let args = args.to_string();
        if cancel.is_cancelled() {
            return fail(cancelled());
        }
        let (effective, limits) = self.policy.access(&tool.plugin, &tool.info, self.limits);
        let access = Access { effective, limits };
        self.warn_missing(&tool, &access.effective, events);
        let (description, confirmation) = match self.check(&tool, call, &args, &access, cancel).await {
            Ok(checked) => checked,
            Err(error) => return fail(error),
        };

        let writes = match &confirmation {
            Some(Confirmation::Edit { path, .. }) => {
                EditTarget::resolve(&self.workspace, path).map_or(Writes::Nothing, Writes::Edit)
            }
            _ => Writes::Grant,
        };
        let path = touched_path(confirmation.as_ref(), &args, &self.workspace, tool.info.kind.is_read_only());
        let command = match &confirmation {
            Some(Confirmation::Exec { command, .. }) => Some(command.clone()),
            _ => None,
        };
        Checked::Pending(Box::new(Pending {
            call: call.clone(),
            tool,
            args,
            started,
            writes,
            access,
            description,
            confirmation,
            path,
            command,
        }))
    }

    /// validate, describe-call and confirm, in one read-only instance.
    async fn check(
        &self,
        tool: &RegisteredTool,
        call: &FunctionCall,
        args: &str,
        access: &Access,
        cancel: &Cancellation,
    ) -> Result<(String, Option<Confirmation>), ToolError> {
        let mut instance = self.instance(tool, call, access, Phase::Check, cancel, None).await?;
        let name = &tool.info.name;
        instance.validate(name, args).await.map_err(|f| fault_error(tool, f))??;
        let description = one_line(&instance.describe_call(name, args).await.map_err(|f| fault_error(tool, f))?);
        let confirmation = instance.confirm(name, args).await.map_err(|f| fault_error(tool, f))??;
        Ok((description, confirmation))
    }

    /// Rebuilds the arguments of an edit the user changed, and checks them again.
    pub(super) async fn modify(
        &self,
        tool: &Arc<RegisteredTool>,
        call: &FunctionCall,
        args: &str,
        proposed: &str,
        access: &Access,
        cancel: &Cancellation,
    ) -> Result<String, ToolError> {
        let mut instance = self.instance(tool, call, access, Phase::Check, cancel, None).await?;
        let name = &tool.info.name;
        let new_args = instance.modify_args(name, args, proposed).await.map_err(|f| fault_error(tool, f))??;
        let parsed = parse_args(&new_args).map_err(|reason| {
            ToolError::new(ErrorKind::PluginFault, format!("`{name}` rebuilt unusable arguments: {reason}"))
        })?;
        check_schema(tool, &parsed).await?;
        let new_args = parsed.to_string();
        instance.validate(name, &new_args).await.map_err(|f| fault_error(tool, f))??;
        Ok(new_args)
    }

    pub(super) async fn execute(&self, ready: Ready, events: &EventSink, cancel: &Cancellation) -> CompletedCall {
        if cancel.is_cancelled() {
            return ready.cancel("the run was cancelled before this call started", events);
        }
        let Ready { call, tool, args, started, writes, access, modified } = ready;
        events.send(Event::ToolCall(Box::new(CallUpdate::new(&call.id, &call.name, CallStatus::Executing))));
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
        let sandboxing = match &writes {
            Writes::Grant => Sandboxing::Phase(Phase::Execute),
            Writes::Edit(target) => Sandboxing::Edit(Some(&target.dir)),
            Writes::Nothing => Sandboxing::Edit(None),
        };
        let result = match self.instance(&tool, &call, &access, sandboxing, cancel, live).await {
            Ok(mut instance) => {
                let result = match instance.execute(&tool.info.name, &args).await {
                    Ok(Ok(output)) => {
                        Ok(output::cap(output, access.limits.output, self.outputs.as_deref(), &call.id).await)
                    }
                    Ok(Err(error)) => Err(error),
                    Err(fault) => Err(fault_error(&tool, fault)),
                };
                self.warn_network_denials(&tool, &instance, events);
                result
            }
            Err(error) => Err(error),
        };
        // The instance is gone: its last live output goes out before the call's end.
        if let Some(forwarding) = forwarding {
            forwarding.drained().await;
        }
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
        finish(&call, started, result, events)
    }

    async fn instance(
        &self,
        tool: &RegisteredTool,
        call: &FunctionCall,
        access: &Access,
        sandboxing: impl Into<Sandboxing<'_>>,
        cancel: &Cancellation,
        live_output: Option<mpsc::UnboundedSender<String>>,
    ) -> Result<Instance, ToolError> {
        let component = tool.plugin.component(&self.runtime).map_err(|e| {
            ToolError::new(ErrorKind::PluginFault, format!("the plugin {} cannot be loaded: {e}", tool.plugin.label()))
        })?;
        let (preopens, phase): (Vec<Preopen>, Phase) = match sandboxing.into() {
            Sandboxing::Phase(phase) => (access.effective.preopens(&tool.info, phase), phase),
            Sandboxing::Edit(Some(dir)) => (access.effective.edit_preopens(&tool.info, dir), Phase::Execute),
            Sandboxing::Edit(None) => (access.effective.preopens(&tool.info, Phase::Check), Phase::Execute),
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
                    .filter_map(|name| Some((name.clone(), std::env::var(name).ok()?)))
                    .collect(),
            ),
        };
        let sandbox = Sandbox {
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
        };
        let label: Arc<str> = tool.plugin.info.name.as_str().into();
        self.runtime.instantiate(&component, label, &sandbox).await.map_err(|fault| fault_error(tool, fault))
    }

    /// Tells the user, once per tool and session, which requests were not granted and the
    /// command that would grant them.
    fn warn_missing(&self, tool: &RegisteredTool, effective: &Effective, events: &EventSink) {
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

    fn warn_network_denials(&self, tool: &RegisteredTool, instance: &Instance, events: &EventSink) {
        let plugin = &tool.plugin.info.name;
        for denial in instance.network_denials() {
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
    }

    fn unknown_tool(&self, name: &str) -> ToolError {
        let available: Vec<&str> = self
            .registry
            .tools()
            .iter()
            .filter(|t| self.policy.offers(&t.info))
            .map(|t| t.info.name.as_str())
            .collect();
        let hint = match self.registry.suggest(name) {
            Some(suggestion) => format!(" Did you mean `{suggestion}`?"),
            None => String::new(),
        };
        ToolError::new(
            ErrorKind::ToolNotFound,
            format!("there is no tool named `{name}`.{hint} Available tools: {}.", available.join(", ")),
        )
    }
}

/// Longest argument validation of one call. Load-time bounds keep schemas cheap; this is the
/// backstop, and it keeps validation off the async runtime.
const ARGS_DEADLINE: std::time::Duration = std::time::Duration::from_secs(2);

/// Checks arguments against the tool's JSON Schema, off the runtime and within [`ARGS_DEADLINE`].
async fn check_schema(tool: &Arc<RegisteredTool>, args: &serde_json::Value) -> Result<(), ToolError> {
    tool.check_args_within(args, ARGS_DEADLINE).await.map_err(|problem| match problem {
        ArgsProblem::Invalid(problems) => ToolError::new(
            ErrorKind::InvalidParams,
            format!("the arguments of `{}` do not match its schema: {problems}", tool.info.name),
        ),
        ArgsProblem::Unusable(reason) => {
            ToolError::new(ErrorKind::PluginFault, format!("`{}` cannot check its arguments: {reason}", tool.info.name))
        }
    })
}

/// The path a call touches, for rules: the edit's file, else — for a read-only tool — a
/// `file_path`, `dir_path` or `path` argument. A mutating call that shows no edit touches no
/// path a rule could name: its arguments say nothing about what it will write, so only a
/// rule for the whole tool can approve it. Canonical — links followed, so
/// `docs/sym -> ../src` makes `docs/sym/x` the path `src/x` that a `docs/**` rule does not
/// match — and workspace-relative when inside the workspace.
fn touched_path(confirmation: Option<&Confirmation>, args: &str, workspace: &Path, read_only: bool) -> Option<String> {
    let raw = match confirmation {
        Some(Confirmation::Edit { path, .. }) => path.clone(),
        _ if !read_only => return None,
        _ => {
            let args: serde_json::Value = serde_json::from_str(args).ok()?;
            ["file_path", "dir_path", "path"].iter().find_map(|key| args.get(*key)?.as_str().map(str::to_string))?
        }
    };
    let canonical = crate::files::canonical_lenient(&workspace.join(&raw));
    Some(match canonical.strip_prefix(workspace) {
        Ok(relative) if relative.as_os_str().is_empty() => ".".to_string(),
        Ok(relative) => relative.to_string_lossy().into_owned(),
        Err(_) => canonical.to_string_lossy().into_owned(),
    })
}

/// Which preopens an instance gets.
enum Sandboxing<'a> {
    /// The tool's grant, read-only unless executing.
    Phase(Phase),
    /// An approved edit's execution: writable in this folder only (if the grant covers it),
    /// or nowhere.
    Edit(Option<&'a Path>),
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
    dir: crate::files::DirHandle,
    name: std::ffi::OsString,
    mode: u32,
}

impl KeptMode {
    fn read(target: &EditTarget) -> Option<Self> {
        if target.file.parent() != Some(target.dir.as_path()) {
            return None;
        }
        let dir = crate::files::open_dir(&target.dir).ok()?;
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

/// Parses the model's arguments: a JSON object (an empty string counts as `{}`).
fn parse_args(text: &str) -> Result<serde_json::Value, String> {
    if text.trim().is_empty() {
        return Ok(serde_json::Value::Object(serde_json::Map::new()));
    }
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(value @ serde_json::Value::Object(_)) => Ok(value),
        Ok(_) => Err("the arguments must be a JSON object".into()),
        Err(error) => Err(format!("the arguments are not valid JSON ({error}); send a JSON object")),
    }
}

pub(super) fn cancelled() -> ToolError {
    ToolError::new(ErrorKind::Cancelled, "the run was cancelled")
}

/// The error the model gets when a guest did not return normally.
fn fault_error(tool: &RegisteredTool, fault: CallFault) -> ToolError {
    let kind = match fault {
        CallFault::Timeout(_) | CallFault::Queued { .. } => ErrorKind::Timeout,
        CallFault::Cancelled => ErrorKind::Cancelled,
        CallFault::MemoryExhausted(_) | CallFault::Trap(_) | CallFault::Exited(_) | CallFault::Instantiate(_) => {
            ErrorKind::PluginFault
        }
    };
    tracing::warn!(tool = tool.info.name, plugin = tool.plugin.label(), "{fault}");
    ToolError::new(kind, format!("`{}` failed: {fault}", tool.info.name))
}

/// Emits the terminal event and builds the completed call.
pub(super) fn finish(
    call: &FunctionCall,
    started: Instant,
    result: Result<ToolOutput, ToolError>,
    events: &EventSink,
) -> CompletedCall {
    let status = match &result {
        Ok(_) => CallStatus::Success,
        Err(error) if error.kind == ErrorKind::Cancelled => CallStatus::Cancelled,
        Err(_) => CallStatus::Error,
    };
    let duration = started.elapsed();
    let mut update = CallUpdate::new(&call.id, &call.name, status);
    update.duration = Some(duration);
    match &result {
        Ok(output) => {
            update.output = Some(output.llm_text());
            update.display = output.display.clone();
        }
        Err(error) => update.error = Some(error.clone()),
    }
    events.send(Event::ToolCall(Box::new(update)));
    CompletedCall { call: call.clone(), status, result, duration }
}

fn one_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default().trim();
    crate::runtime::truncate_chars(line, 200).to_string()
}

#[cfg(test)]
#[path = "call_tests.rs"]
mod tests;
