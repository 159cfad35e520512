//! `airlock acp`: airlock as an Agent Client Protocol agent on stdio, for editors. This
//! command starts one engine session per ACP session (the first over the tools already
//! loaded, the next ones over tools loaded anew, so each has its own policy state and
//! "always" answers) and hands the connection to the ACP front end
//! (`airlock_frontends::acp`). The workspace is the current folder or `--workspace`; the
//! model is the one `airlock -p` would use (flags, then `config.toml`).
//!
//! Invariant: nothing but the protocol reaches stdout; a problem at start is said on stderr
//! before the connection opens, and later ones go to the log and to the client.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use airlock_engine::capability::search::SearchEndpoint;
use airlock_engine::config;
use airlock_engine::engine::{self, Tools};
use airlock_engine::paths::Paths;
use airlock_engine::policy::ApprovalMode;
use airlock_frontends::ExitCode;
use airlock_frontends::acp::{self, StartSession};

/// What every session of the agent shares.
pub struct Context {
    pub paths: Paths,
    pub workspace: PathBuf,
    pub mode: ApprovalMode,
    pub search: Option<SearchEndpoint>,
    /// What every session starts with (no `cwd`, no session to resume).
    settings: engine::Settings,
    /// OpenTelemetry export, when on: every session is observed.
    telemetry: Option<Arc<airlock_telemetry::Telemetry>>,
}

impl Context {
    /// The context of `airlock acp` started with these settings: the model as flags and
    /// `config.toml` name it, or why it cannot be used.
    pub fn new(
        paths: Paths,
        workspace: PathBuf,
        file: config::FileConfig,
        flags: config::ProviderFlags,
        mode: ApprovalMode,
        max_turns: Option<u32>,
    ) -> Result<Self, config::ConfigError> {
        let provider = config::resolve_provider(&file, &paths.config_file(), flags, &|name| std::env::var(name).ok())?;
        let settings = engine::Settings {
            paths: paths.clone(),
            workspace: workspace.clone(),
            cwd: None,
            provider: Some(provider),
            max_turns: max_turns.or(file.max_turns).unwrap_or(100),
            loop_detection: file.loop_detection.unwrap_or(true),
            limits: file.tools.limits(),
            resume: None,
            commands: file.commands.clone(),
            prompts: engine::PromptSettings {
                context_file_names: file.context.file_names(),
                skills: file.skills.enabled(),
            },
            audit: file.audit.enabled(),
            checkpoints: file.checkpoints.clone(),
            // A session's answers are the editor's to read; `--output-schema` is for
            // headless runs.
            output_schema: None,
            media: file.media.clone(),
            hooks: file.hooks.clone(),
        };
        let telemetry = crate::telemetry::start(&file.telemetry);
        Ok(Self { search: file.tools.search().ok().flatten(), paths, workspace, mode, settings, telemetry })
    }
}

/// Serves ACP on stdio until the client closes stdin.
pub async fn run(context: Context, tools: Tools) -> ExitCode {
    let options =
        acp::Options { workspace: context.workspace.clone(), mode: airlock_door::edge::wire_mode(context.mode) };
    let runtime = tools.runtime.clone();
    let first = Arc::new(Mutex::new(Some(tools)));
    let telemetry = context.telemetry.clone();
    let context = Arc::new(context);
    let start: acp::Start = Arc::new(move |request: StartSession| {
        let (context, runtime, first) = (context.clone(), runtime.clone(), first.clone());
        Box::pin(async move {
            if let Some(id) = &request.resume {
                recorded_here(&context, id)?;
            }
            let loaded = first.lock().unwrap_or_else(PoisonError::into_inner).take();
            let tools = match loaded {
                Some(tools) => tools,
                None => {
                    Tools::load_with(runtime, &context.paths, &context.workspace, context.mode, context.search.clone())
                        .await
                        .map_err(|e| e.to_string())?
                }
            };
            start(&context, tools, request)
        })
    });
    let code = acp::serve_stdio(start, options).await;
    crate::telemetry::finish(telemetry).await;
    code
}

/// Checks that session `id` (exactly, not the start of one) was recorded for this workspace:
/// an editor loads the sessions it was given, never another project's conversation.
fn recorded_here(context: &Context, id: &str) -> Result<(), String> {
    let dir = airlock_engine::session::dir(&context.paths.home);
    let sessions = airlock_engine::session::list(&dir).map_err(|e| e.to_string())?;
    let workspace = context.workspace.display().to_string();
    match sessions.iter().find(|s| s.id == id) {
        Some(found) if found.workspace == workspace => Ok(()),
        Some(_) => Err(format!("session {id} was recorded for another workspace")),
        None => Err(format!("no session {id} is recorded (see `airlock sessions list`)")),
    }
}

/// An engine session over `tools` for one ACP session.
fn start(
    context: &Context,
    tools: Tools,
    request: StartSession,
) -> Result<(airlock_door::Session, tokio::sync::mpsc::UnboundedReceiver<airlock_door::Output>), String> {
    let template = &context.settings;
    let settings = engine::Settings {
        paths: template.paths.clone(),
        workspace: template.workspace.clone(),
        cwd: Some(request.cwd),
        provider: template.provider.clone(),
        max_turns: template.max_turns,
        loop_detection: template.loop_detection,
        limits: template.limits,
        resume: request.resume,
        commands: template.commands.clone(),
        prompts: template.prompts.clone(),
        audit: template.audit,
        checkpoints: template.checkpoints.clone(),
        output_schema: None,
        media: template.media.clone(),
        hooks: template.hooks.clone(),
    };
    let (session, outputs) = engine::Session::start(settings, tools).map_err(|e| e.to_string())?;
    Ok(crate::telemetry::observe(context.telemetry.as_deref(), session, outputs))
}
