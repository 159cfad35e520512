//! Starting a session: loading the tools (runtime, plugin registry, policy bound to the
//! loaded plugins), then the model client, the agent and the session recorder, and sending
//! every start-up event in the order front ends expect: `init`, plugin problems, policy
//! notices and warnings, recording problems, cut context files, then the resume notice.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{Output, Outputs, questions::Questions};
use crate::agent::{self, Agent, context_files};
use crate::capability::search::SearchEndpoint;
use crate::capability::{CallLimits, Roots};
use crate::events::{Event, EventSink};
use crate::paths::Paths;
use crate::policy::{ApprovalMode, Policy, PolicyError};
use crate::registry::{PluginDirs, Registry};
use crate::runtime::{Announce, Runtime, RuntimeError};
use crate::scheduler::Scheduler;
use crate::session::{self, SessionError};
use airlock_model::{ModelClient, ModelError, ProviderConfig};

/// Why a session (or its tools) could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// A policy or trust file is unreadable or invalid.
    #[error(transparent)]
    Policy(#[from] PolicyError),
    /// The component runtime could not start (compile cache, engine).
    #[error(transparent)]
    Runtime(#[from] RuntimeError),
    /// The model client could not be built from the provider settings.
    #[error(transparent)]
    Client(#[from] ModelError),
    /// The session to resume could not be found or read.
    #[error(transparent)]
    Resume(#[from] SessionError),
}

/// The tools of a workspace: the component runtime, the loaded plugins and the policy,
/// bound to them. The `tools` and `plugins` commands use them without a session.
#[derive(Debug, Clone)]
pub struct Tools {
    pub runtime: Arc<Runtime>,
    pub registry: Arc<Registry>,
    pub policy: Arc<Policy>,
    /// What the plugin folders held just before they were loaded: the hot-reload watch
    /// starts from it, so a file that lands while the tools load (or before the watch's
    /// first look) is still a change.
    pub(crate) folders: super::reload::Snapshot,
}

impl Tools {
    /// Loads the policy, the runtime and the plugins of `workspace` (absolute and canonical),
    /// then binds the policy's names to the loaded plugins. `announce` is told of each
    /// component compiled (a new plugin's first load).
    pub async fn load(
        paths: &Paths,
        workspace: &Path,
        mode: ApprovalMode,
        search: Option<SearchEndpoint>,
        announce: Option<Announce>,
    ) -> Result<Self, StartError> {
        let runtime = Arc::new(Runtime::with_key(paths.cache.clone(), &paths.cache_key())?);
        // For this load only: a later reload runs under a front end that has the terminal.
        runtime.announce_compiles(announce);
        let tools = Self::load_with(runtime, paths, workspace, mode, search).await;
        if let Ok(tools) = &tools {
            tools.runtime.announce_compiles(None);
        }
        tools
    }

    /// [`Tools::load`] on an existing runtime (a reload: the components of one session are
    /// compiled by one engine).
    pub async fn load_with(
        runtime: Arc<Runtime>,
        paths: &Paths,
        workspace: &Path,
        mode: ApprovalMode,
        search: Option<SearchEndpoint>,
    ) -> Result<Self, StartError> {
        let folders = super::reload::snapshot(&super::reload::dirs(paths, workspace));
        let roots = Roots { workspace: workspace.to_path_buf(), home: user_home(), memory: memory_dir(paths) };
        let mut policy = Policy::load(paths, roots, mode)?;
        policy.set_search(search);
        let required = |workspace: bool| {
            let signatures = policy.signatures(workspace);
            signatures.require_signed.then_some(signatures.origin)
        };
        let dirs = PluginDirs {
            user: paths.plugins.clone(),
            workspace: workspace.join(".airlock").join("plugins"),
            user_requires_signed: required(false),
            workspace_requires_signed: required(true),
            home: Some(paths.home.clone()),
        };
        let registry = Arc::new(Registry::load(&runtime, &dirs).await);
        // The policy's names (grant tables, rule tools) mean plugins and tools: resolved now.
        policy.bind(&registry)?;
        Ok(Self { runtime, registry, policy: Arc::new(policy), folders })
    }
}

/// airlock's memory folder, made (private to the user) when missing, canonical; `None`
/// when it cannot be made or is not a folder.
fn memory_dir(paths: &Paths) -> Option<PathBuf> {
    let dir = paths.memory_dir();
    if !dir.exists() {
        let mut builder = std::fs::DirBuilder::new();
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        if let Err(error) = builder.create(&dir) {
            tracing::warn!("cannot make {}: {error}", dir.display());
            return None;
        }
    }
    let canonical = dir.canonicalize().ok()?;
    // A link planted in place of the folder would carry writes elsewhere.
    (canonical == dir && canonical.is_dir()).then_some(canonical)
}

/// The user's home folder, for `~/` paths in grants.
fn user_home() -> Option<PathBuf> {
    std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from).and_then(|h| h.canonicalize().ok())
}

/// Everything a session needs besides its tools.
#[derive(Debug, Clone)]
pub struct Settings {
    pub paths: Paths,
    /// The workspace, absolute and canonical (as [`Tools::load`] got it).
    pub workspace: PathBuf,
    /// The folder airlock was started in, for AIRLOCK.md files between it and the workspace.
    pub cwd: Option<PathBuf>,
    /// The model's provider; `None` starts a session without a model (`airlock mcp serve`):
    /// it runs calls ([`super::Session::call`]), every model request fails with
    /// [`airlock_model::ModelError::NoModel`], and it records no session file (there is no
    /// conversation to resume), though outputs cut for a caller are still kept whole, in
    /// `sessions/<id>.outputs/`.
    pub provider: Option<ProviderConfig>,
    /// Most model responses per user turn.
    pub max_turns: u32,
    pub loop_detection: bool,
    /// Default limits of a call, before grants.
    pub limits: CallLimits,
    /// Continue a recorded session: `latest`, an id or the start of one.
    pub resume: Option<String>,
    /// `[commands]` of `config.toml`.
    pub commands: airlock_sandbox::folders::Settings,
    /// The JSON Schema the final answer must follow (`--output-schema`): named in the
    /// system prompt and sent in each request's structured-output field.
    pub output_schema: Option<serde_json::Value>,
    /// `[media]` of `config.toml`.
    pub media: crate::media::MediaLimits,
    /// `[context]` and `[skills]` of `config.toml`.
    pub prompts: PromptSettings,
    /// `[hooks]` of the settings (a workspace's only when it is trusted).
    pub hooks: crate::config::hooks::HooksSettings,
    /// `[audit] enabled`: each recorded session keeps an audit trail ([`crate::audit`]).
    pub audit: bool,
    /// `[checkpoints]`: what is snapshotted before calls that write ([`crate::checkpoints`]).
    pub checkpoints: crate::config::CheckpointSettings,
}

/// Which context files are read and whether skills are offered.
#[derive(Debug, Clone)]
pub struct PromptSettings {
    /// The context files' names (`[context] file_names`).
    pub context_file_names: Vec<String>,
    /// `[skills] enabled`.
    pub skills: bool,
}

impl Default for PromptSettings {
    fn default() -> Self {
        Self {
            context_file_names: crate::config::DEFAULT_FILE_NAMES.iter().map(|n| (*n).to_owned()).collect(),
            skills: true,
        }
    }
}

/// The provider and model an [`Info`] names for a session started without a model.
pub const NO_MODEL: &str = "none";

/// What identifies a session to its front end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Info {
    pub id: String,
    pub provider: String,
    pub model: String,
    pub workspace: String,
    /// The model's context window in tokens (for "context left").
    pub context_window: u64,
}

/// The engine's parts once started.
pub(super) struct Started {
    pub agent: Agent,
    pub questions: Arc<Questions>,
    pub policy: Arc<Policy>,
    pub registry: Arc<Registry>,
    pub runtime: Arc<Runtime>,
    pub events: EventSink,
    pub info: Info,
    pub paths: Paths,
    pub provider: Option<ProviderConfig>,
    /// The custom commands found at start.
    pub commands: Arc<crate::prompts::commands::Commands>,
    /// Whether recorded sessions keep an audit trail.
    pub audit: bool,
}

/// The `init` event of the session `info` names.
pub(super) fn init(info: &Info, registry: &Registry) -> Event {
    Event::Init {
        session_id: info.id.clone(),
        provider: info.provider.clone(),
        model: info.model.clone(),
        workspace: info.workspace.clone(),
        tools: registry.tools().iter().map(|t| t.info.name.clone()).collect(),
    }
}

/// Builds the session and sends its start-up events to `out`.
pub(super) fn build(settings: Settings, tools: Tools, out: &Outputs) -> Result<Started, StartError> {
    let Settings {
        paths,
        workspace,
        cwd,
        provider,
        max_turns,
        loop_detection,
        limits,
        resume,
        commands,
        output_schema,
        media,
        prompts,
        hooks,
        audit,
        checkpoints,
    } = settings;
    let folders = context_files::folders(&paths.home, &workspace, cwd.as_deref());
    let context = context_files::load(&paths.home, &workspace, &folders, &prompts.context_file_names);
    let mut system = agent::system_prompt(&workspace, &context);
    if let Some(schema) = &output_schema {
        system.push_str(&agent::output_schema_section(schema));
    }
    let custom = Arc::new(crate::prompts::commands::load(&paths.home, &workspace));
    let skills = match prompts.skills {
        true => crate::prompts::skills::load(&paths.home, &workspace),
        false => crate::prompts::skills::Skills::default(),
    };
    system.push_str(&crate::prompts::skills::section(&skills));
    let workspace_text = workspace.display().to_string();
    let (provider_name, model, context_window) = match &provider {
        Some(p) => (p.name.clone(), p.model.clone(), p.context_window_tokens),
        None => (NO_MODEL.to_owned(), NO_MODEL.to_owned(), 0),
    };
    let accepted = provider.as_ref().map(|p| p.media.clone()).unwrap_or_default();
    let media = crate::media::MediaSettings { limits: media, accepted };
    let agent_settings = agent::Settings { max_turns, loop_detection, context_window, media };
    let client = provider.clone().map(ModelClient::new).transpose()?;
    let questions = Questions::new(out.clone());
    let Tools { runtime, registry, policy, .. } = tools;
    let mut scheduler = Scheduler::new(runtime.clone(), registry.clone(), policy.clone(), questions.clone(), limits);
    // The MCP servers start in the background: the first prompt does not wait for them.
    let mcp_out = out.clone();
    let mcp_events = EventSink::to(move |event| {
        mcp_out.send(Output::Event(event));
    });
    scheduler.set_mcp(crate::mcp::Hub::for_session(&paths, &workspace, &commands, mcp_events));
    scheduler.set_command_settings(commands);
    scheduler.set_skills(skills.list.iter().map(|s| (s.name.clone(), s.dir.clone())).collect());
    // A session with a model checkpoints what its calls write; the store opens when first
    // needed. A session without one (`airlock mcp serve`) has no conversation to rewind.
    if provider.is_some() {
        scheduler.set_checkpoints(Arc::new(crate::checkpoints::Checkpointer::new(
            &paths.home,
            &workspace,
            &checkpoints,
        )));
    }
    let (hooks, hook_problems) = session_hooks(&hooks, &workspace, &paths, &policy, &scheduler, &runtime, &registry);
    let mut agent = Agent::new(client, scheduler, system, agent_settings);
    agent.set_hooks(hooks);
    agent.set_output_schema(output_schema);
    let run_info = session::RunInfo { workspace: &workspace_text, provider: &provider_name, model: &model };
    let (recorded, recording_problem) = match &provider {
        // Nothing to record or resume: outputs cut for the caller are still kept whole.
        None => (None, None),
        Some(_) => match session::open(&paths.home, resume.as_deref(), run_info) {
            Ok(opened) => (Some(opened), None),
            Err(e) if resume.is_some() => return Err(e.into()),
            Err(e) => (None, Some(format!("{e}; this session is not recorded"))),
        },
    };

    // A store over its caps is collected in the background: the first prompt never waits.
    if provider.is_some() {
        let session = recorded.as_ref().map(|o| o.recorder.path().to_path_buf());
        crate::rewind::retention::at_start(&paths.home, &workspace, &checkpoints, session);
    }
    let sink = out.clone();
    let events = EventSink::to(move |event| {
        sink.send(Output::Event(event));
    });
    let info = Info {
        id: recorded.as_ref().map_or_else(session::new_id, |o| o.recorder.id().to_owned()),
        provider: provider_name,
        model,
        workspace: workspace_text,
        context_window,
    };
    if provider.is_none() {
        agent.scheduler_mut().keep_outputs_in(session::dir(&paths.home).join(format!("{}.outputs", info.id)));
    }
    events.send(init(&info, &registry));
    for problem in &registry.problems {
        events.send(Event::PluginProblem(problem.clone()));
    }
    for problem in &hook_problems {
        events.send(Event::PluginProblem(crate::hooks::load::problem(problem)));
    }
    for notice in policy.notices.iter().chain(&policy.plugin_notices(&registry)).chain(&policy.warnings) {
        events.send(Event::Warning { message: notice.clone() });
    }
    if let Some(message) = unsandboxed_commands(&registry, &policy) {
        events.send(Event::Warning { message });
    }
    for message in recording_problem.into_iter().chain(recorded.iter().flat_map(|o| o.warnings.clone())) {
        events.send(Event::Warning { message });
    }
    for file in context.iter().filter(|f| f.cut.is_some()) {
        let cut = file.cut.as_deref().unwrap_or_default();
        events.send(Event::Warning { message: format!("{}: {cut}", file.path.display()) });
    }
    if !custom.problems.is_empty() {
        let count = custom.problems.len();
        let message = format!("{count} custom command file(s) left out; `airlock commands list` says why");
        events.send(Event::Warning { message });
    }
    if !skills.problems.is_empty() {
        let count = skills.problems.len();
        events.send(Event::Warning { message: format!("{count} skill(s) left out; `airlock skills list` says why") });
    }
    if let Some(mut opened) = recorded {
        if let Some(message) = opened.notice.take() {
            events.send(Event::Notice { message });
        }
        let replay = super::Replay::of(&mut opened);
        agent.record_to(opened.recorder);
        if audit {
            agent.open_audit(crate::audit::start::of(&paths, &workspace, &policy, &registry, opened.resumed), &events);
        }
        if opened.resumed {
            agent.resume(opened.history, &events);
            agent.continue_prompts(opened.prompts);
            out.send(Output::Replay(replay));
            agent.restore_todos(opened.todos, &events);
        }
    }
    Ok(Started { agent, questions, policy, registry, runtime, events, info, paths, provider, commands: custom, audit })
}

/// The session's hooks ([`crate::hooks::load`]), and those not run.
fn session_hooks(
    settings: &crate::config::hooks::HooksSettings,
    workspace: &std::path::Path,
    paths: &Paths,
    policy: &Policy,
    scheduler: &Scheduler,
    runtime: &Arc<Runtime>,
    registry: &Registry,
) -> (Arc<crate::hooks::Hooks>, Vec<crate::hooks::command::HookProblem>) {
    let trust_file = paths.trust_file();
    let sources = crate::hooks::load::Sources {
        settings,
        workspace,
        protected: policy.protected_folders(),
        trust_file: &trust_file,
        view: &|| scheduler.command_view(),
        runtime,
        registry,
        policy,
    };
    let (hooks, problems) = crate::hooks::load::load(&sources);
    (Arc::new(crate::hooks::Hooks::new(hooks, workspace.display().to_string())), problems)
}

/// Said once at start, when a tool offered this session can start programs and this kernel
/// cannot confine them: never a silent downgrade.
fn unsandboxed_commands(registry: &Registry, policy: &Policy) -> Option<String> {
    let tools: Vec<&str> = registry
        .tools()
        .iter()
        .filter(|tool| !tool.info.capabilities.processes.is_empty() && policy.offers(&tool.info))
        .map(|tool| tool.info.name.as_str())
        .collect();
    unsandboxed_warning(airlock_sandbox::support(), &tools)
}

/// The warning for `tools` that start programs under what `support` says this kernel enforces;
/// none when Landlock confines them.
pub(super) fn unsandboxed_warning(support: airlock_sandbox::Support, tools: &[&str]) -> Option<String> {
    if support.landlock_abi.is_some() || tools.is_empty() {
        return None;
    }
    Some(format!(
        "this kernel has no Landlock: programs that {} start run WITHOUT a file-system sandbox \
         (they can write wherever your user can){}",
        tools.join(", "),
        if support.seccomp { "; seccomp still keeps them off the network" } else { "" }
    ))
}
