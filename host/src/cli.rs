//! The command line: flags, subcommands, and wiring the engine to a front end. Exit codes
//! are documented on [`ExitCode`] and in the README.

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use clap::{Parser, Subcommand, ValueEnum};

use crate::agent::{self, Agent};
use crate::cancel::Cancellation;
use crate::config::{self, Paths};
use crate::events::EventSink;
use crate::frontends::headless::{self, OutputFormat};
use crate::frontends::tools_list;
use crate::model::{ModelClient, ProviderConfig, ProviderKind};
use crate::policy::{ApprovalMode, RefuseAll};
use crate::registry::{PluginDirs, Registry};
use crate::runtime::Runtime;
use crate::scheduler::Scheduler;

/// Process exit codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum ExitCode {
    /// The model finished its answer.
    Success = 0,
    /// The model API failed (unreachable, HTTP error, malformed stream) or another error.
    Failure = 1,
    /// The model API refused the credentials.
    Auth = 41,
    /// No prompt was given, or the input was unusable.
    Input = 42,
    /// The settings are invalid (config file, flags, workspace).
    Config = 52,
    /// The model was still calling tools after `--max-turns` turns.
    TurnLimit = 53,
    /// The run was cancelled (Ctrl-C, SIGTERM).
    Cancelled = 130,
}

/// airlock: an AI agent for the terminal whose tools are sandboxed WebAssembly components.
#[derive(Debug, Parser)]
#[command(name = "airlock", version, about, args_conflicts_with_subcommands = true)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// The prompt (read from standard input when absent and stdin is not a terminal).
    #[arg(short, long)]
    prompt: Option<String>,
    /// The model to use.
    #[arg(short, long)]
    model: Option<String>,
    /// The model API's wire format.
    #[arg(long, value_enum)]
    provider: Option<ProviderKind>,
    /// The model API's base URL (e.g. http://127.0.0.1:11434/v1 for Ollama).
    #[arg(long)]
    base_url: Option<String>,
    /// The project folder tools work in.
    #[arg(long, value_name = "DIR")]
    workspace: Option<PathBuf>,
    /// Which calls run without asking; headless runs refuse any call that would ask.
    #[arg(long, value_enum)]
    approval_mode: Option<ApprovalMode>,
    /// How results are printed.
    #[arg(short, long, value_enum, default_value_t = OutputFormat::Text)]
    output_format: OutputFormat,
    /// Most model turns for one prompt.
    #[arg(long)]
    max_turns: Option<u32>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Inspect the tools airlock offers the model.
    Tools {
        #[command(subcommand)]
        command: ToolsCommand,
    },
}

#[derive(Debug, Subcommand)]
enum ToolsCommand {
    /// Print every tool with its plugin file, kind and schema.
    List {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// Where a failure is reported and how the process exits.
struct Fatal {
    code: ExitCode,
    message: String,
}

impl Fatal {
    fn new(code: ExitCode, message: impl std::fmt::Display) -> Self {
        Self { code, message: message.to_string() }
    }
}

/// Runs the command line and returns the exit code.
pub async fn run(cli: Cli) -> u8 {
    match run_inner(cli).await {
        Ok(code) => code as u8,
        Err(fatal) => {
            let _ = writeln!(std::io::stderr(), "airlock: {}", fatal.message);
            fatal.code as u8
        }
    }
}

async fn run_inner(cli: Cli) -> Result<ExitCode, Fatal> {
    let paths = Paths::from_env().map_err(|e| Fatal::new(ExitCode::Config, e))?;
    let file = config::load(&paths.config_file()).map_err(|e| Fatal::new(ExitCode::Config, e))?;
    init_logging(&paths);
    let workspace = workspace_root(cli.workspace.as_deref())?;

    let runtime = Arc::new(Runtime::new(paths.cache.clone()).map_err(|e| Fatal::new(ExitCode::Failure, e))?);
    let dirs = PluginDirs { user: paths.plugins.clone(), workspace: workspace.join(".airlock").join("plugins") };
    let registry = Arc::new(Registry::load(&runtime, &dirs).await);

    if let Some(Command::Tools { command: ToolsCommand::List { json } }) = cli.command {
        let mut stdout = std::io::stdout().lock();
        let written =
            if json { tools_list::json(&registry, &mut stdout) } else { tools_list::text(&registry, &mut stdout) };
        written.map_err(|e| Fatal::new(ExitCode::Failure, format!("cannot write: {e}")))?;
        return Ok(ExitCode::Success);
    }

    let prompt = read_prompt(cli.prompt)?;
    let kind = cli.provider.or(file.provider).unwrap_or(ProviderKind::Gemini);
    let base_url = cli.base_url.or(file.base_url).unwrap_or_else(|| kind.default_base_url().to_string());
    let model = cli.model.or(file.model).unwrap_or_else(|| kind.default_model().to_string());
    let api_key = std::env::var(kind.key_variable()).ok().filter(|k| !k.is_empty());
    if api_key.is_none() && base_url == kind.default_base_url() {
        return Err(Fatal::new(
            ExitCode::Auth,
            format!("set {} to use {base_url}, or pass --base-url for a local server", kind.key_variable()),
        ));
    }
    let mode = cli.approval_mode.or(file.approval_mode).unwrap_or(ApprovalMode::Default);
    let max_turns = cli.max_turns.or(file.max_turns).unwrap_or(100);
    if max_turns == 0 {
        return Err(Fatal::new(ExitCode::Config, "--max-turns must be at least 1"));
    }
    let provider = ProviderConfig {
        kind,
        base_url: base_url.trim_end_matches('/').to_string(),
        model: model.clone(),
        api_key,
        idle_timeout: Duration::from_secs(120),
    };
    let client = ModelClient::new(provider).map_err(|e| Fatal::new(ExitCode::Failure, e))?;
    let scheduler = Scheduler::new(
        runtime,
        registry.clone(),
        workspace.clone(),
        mode,
        Arc::new(RefuseAll { mode }),
        file.tools.limits(),
    );
    let mut agent = Agent::new(client, scheduler, agent::system_prompt(&workspace), max_turns);

    let cancel = Cancellation::default();
    spawn_signal_handler(cancel.clone());
    let (events, receiver) = EventSink::new();
    let session = headless::Session {
        id: session_id(),
        provider: format!("{kind:?}").to_lowercase(),
        model,
        workspace: workspace.display().to_string(),
    };
    let printer = tokio::spawn(headless::print_events(cli.output_format, receiver));
    headless::announce(&session, &registry, &events);
    let report = agent.run(&prompt, &events, &cancel).await;
    drop(events);
    let printed = printer.await.unwrap_or_default();
    let code = headless::finish(cli.output_format, &session, &report, printed);
    Ok(code)
}

/// The workspace as an absolute, symlink-free path (the guest sees it under the same path).
fn workspace_root(flag: Option<&Path>) -> Result<PathBuf, Fatal> {
    let dir = match flag {
        Some(dir) => dir.to_path_buf(),
        None => std::env::current_dir().map_err(|e| Fatal::new(ExitCode::Config, format!("no current folder: {e}")))?,
    };
    let root =
        dir.canonicalize().map_err(|e| Fatal::new(ExitCode::Config, format!("workspace {}: {e}", dir.display())))?;
    if !root.is_dir() {
        return Err(Fatal::new(ExitCode::Config, format!("workspace {} is not a folder", root.display())));
    }
    Ok(root)
}

fn read_prompt(flag: Option<String>) -> Result<String, Fatal> {
    let mut prompt = flag.unwrap_or_default();
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        let mut piped = String::new();
        // A closed or unreadable stdin just adds nothing.
        let _ = stdin.lock().read_to_string(&mut piped);
        if !piped.trim().is_empty() {
            if !prompt.is_empty() {
                prompt.push_str("\n\n");
            }
            prompt.push_str(piped.trim_end());
        }
    }
    if prompt.trim().is_empty() {
        return Err(Fatal::new(ExitCode::Input, "no prompt: pass -p \"...\" or pipe one on standard input"));
    }
    Ok(prompt)
}

fn session_id() -> String {
    use rand::Rng;
    let bytes: [u8; 8] = rand::rng().random();
    hex::encode(bytes)
}

/// Ctrl-C and SIGTERM cancel the run: running calls stop at their next epoch tick, the
/// model stream is dropped, and the process exits with 130 after reporting.
fn spawn_signal_handler(cancel: Cancellation) {
    tokio::spawn(async move {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            let Ok(mut terminate) = signal(SignalKind::terminate()) else {
                let _ = tokio::signal::ctrl_c().await;
                cancel.cancel();
                return;
            };
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = terminate.recv() => {}
            }
        }
        #[cfg(not(unix))]
        let _ = tokio::signal::ctrl_c().await;
        cancel.cancel();
    });
}

/// Logs go to `$AIRLOCK_HOME/logs/airlock.log` (never the terminal); `AIRLOCK_LOG` sets
/// the filter (default `warn,airlock=info`).
fn init_logging(paths: &Paths) {
    let filter = std::env::var("AIRLOCK_LOG").unwrap_or_else(|_| "warn,airlock=info".into());
    if filter == "off" {
        return;
    }
    if std::fs::create_dir_all(&paths.logs).is_err() {
        return;
    }
    let Ok(file) = std::fs::OpenOptions::new().create(true).append(true).open(paths.logs.join("airlock.log")) else {
        return;
    };
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
        .with_writer(std::sync::Mutex::new(file))
        .with_ansi(false)
        .try_init();
}

impl ValueEnum for OutputFormat {
    fn value_variants<'a>() -> &'a [Self] {
        &[Self::Text, Self::Json, Self::StreamJson]
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(match self {
            Self::Text => "text",
            Self::Json => "json",
            Self::StreamJson => "stream-json",
        }))
    }
}
