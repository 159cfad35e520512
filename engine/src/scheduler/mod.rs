//! The tool scheduler: one state machine per call (DESIGN.md §1), run over a batch — all
//! the calls of one model response.
//!
//! ```text
//! validating ─► awaiting_approval ─► scheduled ─► executing ─► success | error | cancelled
//! ```
//!
//! Validation ([`validation`]: registry lookup, JSON-Schema check, the plugin's `validate`,
//! `describe-call` and `confirm`) runs for all calls at once; approval then runs call by call
//! in the order the model gave ([`approval`]), and execution ([`call`]) starts only when no
//! call is still awaiting approval. Calls then run in that order, in groups ([`groups`]):
//! consecutive parallel-safe calls run together unless two of them may write one file, and
//! any other call runs alone. What each instance of a call holds, in each phase, is built in
//! [`sandboxing`]. One call's failure never touches its siblings, every state change is an
//! [`Event`], and every call ends in a terminal state with a response for the model, also
//! when cancelled.

mod approval;
mod audited;
mod bound;
mod call;
mod checkpointed;
mod finish;
mod grant;
mod groups;
mod hooked;
mod mcp;
mod output;
mod sandboxing;
mod validation;

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use std::future::Future;

use futures_util::future::join_all;

use crate::cancel::Cancellation;
use crate::capability::CallLimits;
use crate::contract::{ContentPart, ErrorKind, ToolError, ToolOutput};
use crate::events::{CallStatus, EventSink};
use crate::policy::{Approver, Policy};
use crate::registry::Registry;
use crate::runtime::Runtime;
use airlock_model::{FunctionCall, FunctionResponse, Media};
use airlock_sandbox::folders::{self, CommandView, HostEnv};
use call::{Approved, Prepared};
use validation::Validated;

/// A finished call.
#[derive(Debug, Clone)]
pub struct CompletedCall {
    pub call: FunctionCall,
    /// `success`, `error` or `cancelled`.
    pub status: CallStatus,
    pub result: Result<ToolOutput, ToolError>,
    pub duration: Duration,
    /// What it cost (as its terminal event said).
    pub cost: crate::events::CallCost,
    /// The time of its execution, when it executed.
    pub run: Option<Duration>,
    /// How the commands it ran ended and what they used, when it ran any.
    pub command: Option<crate::events::CommandRun>,
    /// What a person reads of it (a resumed session draws its card from this).
    pub shown: crate::events::Shown,
    /// The plugin's one-line description of the call, when it was approved.
    pub description: Option<String>,
    /// Who let it run or refused it (`None` when it ended before anyone decided).
    pub approval: crate::audit::Approval,
    /// What hooks did to the call (`before_tool` and `after_tool`), in their order.
    pub hooks: Vec<crate::hooks::HookNote>,
    /// The checkpoints taken around it, when it held write access ([`crate::checkpoints`]).
    pub checkpoint: Option<crate::checkpoints::CallCheckpoint>,
}

impl CompletedCall {
    /// What the model is told.
    pub fn response(&self) -> FunctionResponse {
        let (content, is_error) = match &self.result {
            Ok(output) => (output.llm_text(), false),
            Err(error) => (format!("{}: {}", error.kind.as_str(), error.message), true),
        };
        // The media's bytes are shared, not copied; the agent makes them ready to send.
        let media = match &self.result {
            Ok(output) => output
                .llm_content
                .iter()
                .filter_map(|part| match part {
                    ContentPart::Media { mime_type, data, .. } => {
                        Some(Media::new(mime_type.clone(), None, data.clone()))
                    }
                    _ => None,
                })
                .collect(),
            Err(_) => Vec::new(),
        };
        FunctionResponse { id: self.call.id.clone(), name: self.call.name.clone(), content, is_error, media }
    }
}

/// Runs batches of tool calls. Cloning is cheap: the parts are shared.
#[derive(Clone)]
pub struct Scheduler {
    runtime: Arc<Runtime>,
    registry: Arc<Registry>,
    workspace: PathBuf,
    policy: Arc<Policy>,
    approver: Arc<dyn Approver>,
    limits: CallLimits,
    /// Warnings already given this session (each is given once).
    warned: Arc<Mutex<HashSet<String>>>,
    /// Where output cut for the model is saved whole (the session's outputs folder).
    outputs: Option<PathBuf>,
    /// What commands see besides their call's folders: the user's `[commands]` settings,
    /// and the view read from them and the environment when the first command starts.
    commands: Arc<folders::Settings>,
    command_view: Arc<OnceLock<Arc<CommandView>>>,
    /// The session's MCP servers, whose tools are a second kind of tool ([`mcp`]).
    mcp: Option<Arc<crate::mcp::Hub>>,
    /// The skills offered (name to folder); without any, `activate_skill` is not offered.
    skills: Arc<std::collections::BTreeMap<String, PathBuf>>,
    /// The session's hooks; `None` when there are none, so a call builds no hook event.
    hooks: Option<Arc<crate::hooks::Hooks>>,
    /// The session's audit trail, when it keeps one.
    audit: crate::audit::Slot,
    /// The session's checkpoints ([`checkpointed`]); `None` in a session without them.
    checkpoints: Option<Arc<crate::checkpoints::Checkpointer>>,
}

impl std::fmt::Debug for Scheduler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scheduler").field("policy", &self.policy).field("limits", &self.limits).finish_non_exhaustive()
    }
}

impl Scheduler {
    pub fn new(
        runtime: Arc<Runtime>,
        registry: Arc<Registry>,
        policy: Arc<Policy>,
        approver: Arc<dyn Approver>,
        limits: CallLimits,
    ) -> Self {
        let workspace = policy.roots().workspace.clone();
        Self {
            runtime,
            registry,
            workspace,
            policy,
            approver,
            limits,
            warned: Arc::default(),
            outputs: None,
            commands: Arc::default(),
            command_view: Arc::default(),
            mcp: None,
            skills: Arc::default(),
            hooks: None,
            audit: crate::audit::Slot::default(),
            checkpoints: None,
        }
    }

    /// Takes checkpoints with `checkpoints` before and after each call that holds write
    /// access, from now on.
    pub fn set_checkpoints(&mut self, checkpoints: Arc<crate::checkpoints::Checkpointer>) {
        self.checkpoints = Some(checkpoints);
    }

    /// The session's checkpoints, when it takes them.
    pub fn checkpoints(&self) -> Option<&Arc<crate::checkpoints::Checkpointer>> {
        self.checkpoints.as_ref()
    }

    /// The session's audit trail, shared with whoever records besides the calls.
    pub fn audit(&self) -> &crate::audit::Slot {
        &self.audit
    }

    /// A new call's audit context: the trail, nothing known yet.
    fn witness(&self) -> audited::Witness {
        audited::Witness { trail: self.audit.get(), ..audited::Witness::default() }
    }

    /// The skills the model may activate (`[skills]` on and some found): each name with its
    /// folder, which the read tools may read once the skill is activated.
    pub fn set_skills(&mut self, skills: std::collections::BTreeMap<String, PathBuf>) {
        self.skills = Arc::new(skills);
    }

    /// Whether the built-in `tool` is offered beside the policy's say: `activate_skill` only
    /// while there are skills to activate.
    pub fn offers_builtin(&self, tool: &crate::registry::RegisteredTool) -> bool {
        !(tool.plugin.source.origin == crate::registry::Origin::Builtin
            && tool.info.name == crate::prompts::skills::TOOL
            && self.skills.is_empty())
    }

    /// After `activate_skill` succeeded: the session's read tools may read that skill's
    /// folder, as a folder added with `--add-dir DIR` (read only). The folder is the host's
    /// own record of the skill, never a path the component gave.
    fn activated(&self, tool: &crate::registry::RegisteredTool, args: &str, events: &EventSink) {
        if tool.plugin.source.origin != crate::registry::Origin::Builtin
            || tool.info.name != crate::prompts::skills::TOOL
        {
            return;
        }
        let args: serde_json::Value = serde_json::from_str(args).unwrap_or_default();
        let Some(dir) = args.get("name").and_then(|n| n.as_str()).and_then(|name| self.skills.get(name)) else {
            return;
        };
        if dir.starts_with(&self.workspace) || self.policy.added_folders().iter().any(|f| f.path == *dir) {
            return;
        }
        if let Err(reason) = self.policy.add_skill_folder(dir) {
            events.send(crate::events::Event::Warning {
                message: format!("the skill's folder cannot be read by the tools: {reason}"),
            });
        }
    }

    /// Offers the tools of the MCP servers of `hub` from now on (each once it is ready).
    pub fn set_mcp(&mut self, hub: Arc<crate::mcp::Hub>) {
        self.mcp = Some(hub);
    }

    /// The tools of the ready MCP servers the model is offered now: under the policy, and
    /// never one whose name a built-in or plugin owns (that clash is warned of once).
    pub fn mcp_declarations(&self) -> Vec<crate::mcp::OfferedTool> {
        let Some(hub) = &self.mcp else { return Vec::new() };
        let mut offered = Vec::new();
        for (live, tool) in hub.offered() {
            if self.registry.get(&tool.name).is_some() {
                hub.warn_clash(&live, &tool);
                continue;
            }
            if self.policy.offers(&mcp::policy_info(&tool.name)) {
                offered.push(tool);
            }
        }
        offered
    }

    /// Says once for each MCP server still starting that its tools come later.
    pub fn notice_mcp_starting(&self) {
        if let Some(hub) = &self.mcp {
            hub.notice_starting();
        }
    }

    /// What commands may see besides their call's folders (`[commands]` of `config.toml`).
    pub fn set_command_settings(&mut self, settings: folders::Settings) {
        self.commands = Arc::new(settings);
        self.command_view = Arc::default();
    }

    /// The session's [`CommandView`], read once (from airlock's environment, the settings and
    /// airlock's own folders, which it hides).
    pub fn command_view(&self) -> Arc<CommandView> {
        Arc::clone(self.command_view.get_or_init(|| {
            let protected = self.policy.protected_folders();
            Arc::new(CommandView::detect(&HostEnv::current(), &self.commands, protected, &self.workspace))
        }))
    }

    /// Saves every output cut for the model whole in `dir` (created when first needed).
    /// Runs calls with the tools of `registry` under `policy` from now on.
    pub fn set_tools(&mut self, registry: Arc<Registry>, policy: Arc<Policy>) {
        self.registry = registry;
        self.policy = policy;
    }

    pub fn keep_outputs_in(&mut self, dir: PathBuf) {
        self.outputs = Some(dir);
    }

    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// True the first time `key` is seen this session.
    fn first_warning(&self, key: String) -> bool {
        self.warned.lock().unwrap_or_else(PoisonError::into_inner).insert(key)
    }

    /// Whether `key` was seen ([`Scheduler::first_warning`]) this session.
    fn seen(&self, key: &str) -> bool {
        self.warned.lock().unwrap_or_else(PoisonError::into_inner).contains(key)
    }

    fn approver(&self) -> &dyn Approver {
        &*self.approver
    }

    fn limits(&self) -> CallLimits {
        self.limits
    }

    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// Whether the tool called `name` is a built-in's.
    pub fn is_builtin(&self, name: &str) -> bool {
        self.registry.get(name).is_some_and(|tool| tool.plugin.source.origin == crate::registry::Origin::Builtin)
    }

    /// Runs one batch to completion and returns one completed call per request, in order.
    /// Each call runs on its own task, so calls of one group really run in parallel.
    pub async fn run_batch(
        &self,
        calls: &[FunctionCall],
        events: &EventSink,
        cancel: &Cancellation,
    ) -> Vec<CompletedCall> {
        // Each call is validated on its own task, in any order; its cards appear in the
        // model's order.
        for call in calls {
            Self::validating(call, events);
        }
        let validated = on_tasks(calls.iter().cloned().map(|call| {
            let (this, events, cancel) = (self.clone(), events.clone(), cancel.clone());
            async move { this.validate(&call, &events, &cancel).await }
        }))
        .await;
        let (mut slots, runnable) = self.approve_in_order(validated, events, cancel).await;
        let groups = groups::groups(runnable.into_iter().map(|(index, ready)| {
            let (parallel, reach) = match &ready {
                Runnable::Plugin(ready) => (ready.tool.info.parallel_safe, ready.reach()),
                Runnable::Mcp(_) => (false, groups::Reach::Unknown),
            };
            ((index, ready), parallel, reach)
        }));
        for group in groups {
            let indexes: Vec<usize> = group.iter().map(|(index, _)| *index).collect();
            let results = on_tasks(group.into_iter().map(|(_, ready)| {
                let (this, events, cancel) = (self.clone(), events.clone(), cancel.clone());
                async move {
                    match ready {
                        Runnable::Plugin(ready) => this.execute(*ready, &events, &cancel).await,
                        Runnable::Mcp(mcp) => this.execute_mcp(*mcp, &events, &cancel).await,
                    }
                }
            }))
            .await;
            for (index, done) in indexes.into_iter().zip(results) {
                slots[index] = done;
            }
        }
        let mut done: Vec<CompletedCall> = slots
            .into_iter()
            .zip(calls)
            .map(|(slot, call)| {
                slot.unwrap_or_else(|| {
                    let error = ToolError::new(ErrorKind::Execution, "the call failed inside airlock; see the log");
                    CompletedCall {
                        call: call.clone(),
                        status: CallStatus::Error,
                        result: Err(error),
                        duration: Duration::ZERO,
                        cost: crate::events::CallCost::default(),
                        run: None,
                        command: None,
                        shown: crate::events::Shown::new(None, "the call failed inside airlock; see the log"),
                        description: None,
                        approval: crate::audit::Approval::None,
                        hooks: Vec::new(),
                        checkpoint: None,
                    }
                })
            })
            .collect();
        self.after_tools(&mut done, events).await;
        done
    }

    /// Approvals one at a time, in the model's order. A user who cancels one approval
    /// cancels the batch: the calls after it are not asked about, and the calls already
    /// approved are cancelled. Returns a slot per call (filled when the call already
    /// ended) and the approved calls with their index.
    async fn approve_in_order(
        &self,
        validated: Vec<Option<Validated>>,
        events: &EventSink,
        cancel: &Cancellation,
    ) -> (Vec<Option<CompletedCall>>, Vec<(usize, Runnable)>) {
        const BATCH_CANCELLED: &str = "the user cancelled another call of this batch";
        let mut slots: Vec<Option<CompletedCall>> = Vec::with_capacity(validated.len());
        let mut runnable = Vec::new();
        let mut batch_cancelled = false;
        for (index, item) in validated.into_iter().enumerate() {
            let Some(item) = item else {
                slots.push(None);
                continue;
            };
            if batch_cancelled {
                slots.push(Some(match item {
                    Validated::Done(done) => *done,
                    Validated::Pending(pending) => pending.cancel(BATCH_CANCELLED, events),
                    Validated::Mcp(mcp) => mcp.cancel(BATCH_CANCELLED, events),
                }));
                continue;
            }
            let (this, events, cancel) = (self.clone(), events.clone(), cancel.clone());
            let approved = on_tasks(std::iter::once(async move { this.approve(item, &events, &cancel).await }))
                .await
                .pop()
                .flatten();
            match approved {
                Some(Approved::Done(done)) => slots.push(Some(done)),
                Some(Approved::CancelBatch(done)) => {
                    batch_cancelled = true;
                    slots.push(Some(done));
                }
                Some(Approved::Ready(ready)) => {
                    slots.push(None);
                    runnable.push((index, Runnable::Plugin(ready)));
                }
                Some(Approved::ReadyMcp(mcp)) => {
                    slots.push(None);
                    runnable.push((index, Runnable::Mcp(mcp)));
                }
                None => slots.push(None),
            }
        }
        if batch_cancelled {
            for (index, ready) in runnable.drain(..) {
                slots[index] = Some(match ready {
                    Runnable::Plugin(ready) => ready.cancel(BATCH_CANCELLED, events),
                    Runnable::Mcp(mcp) => mcp.cancel(BATCH_CANCELLED, events),
                });
            }
        }
        (slots, runnable)
    }
}

/// An approved call waiting for its turn: a component's, or an MCP server's.
enum Runnable {
    Plugin(Box<Prepared>),
    Mcp(Box<mcp::McpCall>),
}

/// Runs each future on its own task and returns their outputs in order; a task that
/// panicked yields `None` (and is logged).
async fn on_tasks<T: Send + 'static>(
    futures: impl Iterator<Item = impl Future<Output = T> + Send + 'static>,
) -> Vec<Option<T>> {
    let handles: Vec<_> = futures.map(tokio::spawn).collect();
    join_all(handles)
        .await
        .into_iter()
        .map(|joined| joined.map_err(|e| tracing::error!("a tool call task failed: {e}")).ok())
        .collect()
}

#[cfg(test)]
#[path = "mod_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "cards_tests.rs"]
mod cards_tests;
