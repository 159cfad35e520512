//! One call's path through the states: [`Scheduler::validate`](super::validation) takes it
//! through `validating` to a [`Prepared`] call (or to a terminal state),
//! [`Scheduler::approve`](super::approval) on to `scheduled`, [`Scheduler::execute`] from
//! `executing` to the end. Here: what a prepared call carries, and its execution; what its
//! instances hold is [`super::sandboxing`]'s.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use tokio::sync::mpsc;

use super::audited::Witness;
use super::bound::{BoundEdit, Scratch};
use super::checkpointed::{self, Taken};
use super::finish::{Ending, fault_error, finish_metered, finish_with};
use super::groups::Reach;
use super::sandboxing::{Access, EditTarget, Holds, InstanceOf, Writes, execution};
use super::{CompletedCall, Scheduler, grant, output};
use crate::cancel::Cancellation;
use crate::capability::Effective;
use crate::capability::net::{self, NetRule};
use crate::contract::{Confirmation, ContentPart, ErrorKind, ToolError, ToolOutput};
use crate::events::{CallStatus, CallUpdate, Event, EventSink};
use crate::registry::RegisteredTool;
use crate::runtime::{ApprovedLine, Instance, Parked};
use airlock_model::FunctionCall;
use airlock_sandbox::explain::Blocked;

/// The outcome of the steps before execution.
pub(super) enum Approved {
    /// Approved and waiting for its turn.
    Ready(Box<Prepared>),
    /// A call of an MCP server's tool, approved and waiting for its turn.
    ReadyMcp(Box<super::mcp::McpCall>),
    /// Finished early (unknown tool, bad arguments, refused, ...).
    Done(CompletedCall),
    /// The user cancelled this call, and with it the batch.
    CancelBatch(CompletedCall),
}

/// A call that passed validation: what its approval and its execution work with. Approval
/// may change its arguments (a person's edit of the proposal) and sets what it approved.
pub(super) struct Prepared {
    pub call: FunctionCall,
    pub tool: Arc<RegisteredTool>,
    pub args: String,
    /// When it entered `validating`.
    pub started: Instant,
    /// The plugin's one-line description of the call.
    pub description: String,
    /// What the plugin asked the person to confirm, if anything.
    pub confirmation: Option<Confirmation>,
    /// The path the call touches, for rules.
    pub path: Option<String>,
    /// What the execution may write.
    pub writes: Writes,
    pub access: Access,
    /// The call's check instance, kept for its execution when both hold the same sandbox
    /// ([`Scheduler::keep_for_execution`]).
    pub kept: Option<Parked>,
    /// The user edited the proposal before approving it.
    pub modified: bool,
    /// The command line an exec confirmation showed, and its folder, once approved: the one
    /// line a tool granted `*` may start in this call.
    pub approved_line: Option<ApprovedLine>,
    /// What `before_tool` hooks did to the call, for its record.
    pub hooks: Vec<crate::hooks::HookNote>,
    /// What the audit trail records of it; approval sets who decided.
    pub witness: Witness,
}

impl Prepared {
    /// Ends the call with `error`, before it executed.
    pub fn fail(self, error: ToolError, events: &EventSink) -> CompletedCall {
        let mut witness = self.witness;
        witness.set_args(&self.args);
        witness.hooks = self.hooks;
        finish_metered(&self.call, self.started, Err(error), events, Some(&self.access.meter), witness)
    }

    /// Ends the call as cancelled, for `reason`, before it executed.
    pub fn cancel(self, reason: &str, events: &EventSink) -> CompletedCall {
        self.fail(ToolError::new(ErrorKind::Cancelled, reason), events)
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
    pub(super) async fn execute(&self, ready: Prepared, events: &EventSink, cancel: &Cancellation) -> CompletedCall {
        if cancel.is_cancelled() {
            return ready.cancel("the run was cancelled before this call started", events);
        }
        // Approved and about to run: what it may write is checkpointed first.
        let roots = || checkpointed::roots(&ready.tool.info, &ready.access, &ready.writes);
        let mut taken = self.checkpoint_before(&ready.call.id, roots, events).await;
        let done = self.run_prepared(ready, events, cancel, &mut taken).await;
        self.checkpoint_after(taken, done, events).await
    }

    /// Runs an approved call to its end (again with a grant given on the spot), adding to
    /// `taken` what a widened grant lets it write before the run that holds it.
    async fn run_prepared(
        &self,
        ready: Prepared,
        events: &EventSink,
        cancel: &Cancellation,
        taken: &mut Taken,
    ) -> CompletedCall {
        let Prepared {
            call,
            tool,
            args,
            started,
            description,
            writes,
            access,
            modified,
            approved_line,
            kept,
            hooks,
            mut witness,
            ..
        } = ready;
        witness.set_args(&args);
        witness.hooks = hooks;
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
            Err(error) => {
                return finish_metered(&call, started, Err(error), events, Some(&access.meter), witness);
            }
        };
        let mut outcome = self.run_once(&run, &access, kept, scratch.as_ref()).await;
        // A failure for want of what the plugin requested and nobody granted: the person may
        // grant it on the spot, and the call runs once more with it (in a fresh copy).
        if outcome.result.is_err()
            && !cancel.is_cancelled()
            && let Some(widened) = self.offer_grant(&run, &access, &outcome.denied).await
        {
            witness.set_grant(&widened);
            let roots = || checkpointed::roots(&tool.info, &widened, &writes);
            self.checkpoint_more(taken, &call.id, roots, events).await;
            scratch = match scratch_for(&writes).await {
                Ok(fresh) => fresh,
                Err(error) => {
                    return finish_metered(&call, started, Err(error), events, Some(&access.meter), witness);
                }
            };
            outcome = self.run_once(&run, &widened, None, scratch.as_ref()).await;
        }
        // A command the OS sandbox blocked: the person may let it run again with exactly the
        // access it lacked.
        if !outcome.blocked.is_empty()
            && !cancel.is_cancelled()
            && let Some(widened) = self.offer_sandbox_access(&run, &access, &outcome.blocked).await
        {
            witness.set_grant(&widened);
            let roots = || checkpointed::roots(&tool.info, &widened, &writes);
            self.checkpoint_more(taken, &call.id, roots, events).await;
            scratch = match scratch_for(&writes).await {
                Ok(fresh) => fresh,
                Err(error) => {
                    return finish_metered(&call, started, Err(error), events, Some(&access.meter), witness);
                }
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
        if result.is_ok() {
            self.activated(&tool, &args, events);
        }
        let ending = Ending {
            started: Some(started),
            executing: Some(executing),
            meter: Some(&access.meter),
            description: Some(description),
            live,
            witness,
            undoable: taken.undoable(),
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
                let holds = Holds {
                    folders: execution(writes, scratch.map(Scratch::root)),
                    live_output: live.clone(),
                    processes: self.process_access(tool, access, writes, approved_line.clone()),
                };
                self.instance(InstanceOf { tool, call, access, cancel }, holds).await
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
        let lacking = !effective.missing.is_empty() || !effective.unapproved.is_empty();
        if !lacking || !self.first_warning(format!("missing:{}", tool.info.name)) {
            return;
        }
        let plugin = &tool.plugin.info.name;
        events.send(Event::Warning {
            message: format!(
                "`{}` (plugin {plugin}) runs without {} it asked for; {}",
                tool.info.name,
                if effective.missing.len() + effective.unapproved.lines().len() == 1 {
                    "a capability"
                } else {
                    "capabilities"
                },
                self.policy.grant_hint(&tool.plugin, &tool.info, effective, "it")
            ),
        });
    }

    /// Warns of each refused destination once; returns the refused destinations a grant
    /// could allow (each within what the plugin requested).
    fn warn_network_denials(&self, tool: &RegisteredTool, instance: &Instance, events: &EventSink) -> Vec<NetRule> {
        let plugin = &tool.plugin.info.name;
        let mut grantable = Vec::new();
        // The requests its grant's record does not approve: a grant would not reach them.
        let unapproved = self.policy.approved(&tool.plugin).map(|record| record.narrow(&tool.info).1.network);
        for denial in instance.network_denials() {
            let requested: Vec<NetRule> =
                tool.info.capabilities.network.iter().filter_map(|r| NetRule::parse(r).ok()).collect();
            let new_request = denial
                .grant
                .as_ref()
                .and_then(|rule| unapproved.iter().flatten().find(|request| request.covers(rule)).cloned());
            if let Some(request) = new_request {
                if self.first_warning(format!("net:{plugin}:{}", denial.url)) {
                    events.send(Event::Warning {
                        message: format!(
                            "plugin {plugin} was denied {}: it requests {request}, a new request since the version \
                             its grant was given for, and not approved, so it gets nothing even where the grant \
                             covers it; to approve it: airlock plugins approve {}",
                            denial.url,
                            crate::sanitize::shell_word(plugin)
                        ),
                    });
                }
                continue;
            }
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
