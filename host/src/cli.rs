//! The command line: flags and subcommands, then picking what runs — a management command,
//! or an engine session driven by the headless front end. Exit codes are documented on
//! [`ExitCode`] and in the README.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Parser, Subcommand};

use crate::commands;
use crate::commands::{sessions_list, show_context, tools_list};
use airlock_engine::agent::{self, context_files};
use airlock_engine::config;
use airlock_engine::engine::{self, StartError, Tools};
use airlock_engine::paths::Paths;
use airlock_engine::policy::ApprovalMode;
use airlock_engine::session;
use airlock_frontends::headless::OutputFormat;
use airlock_frontends::{ExitCode, exec, tui};
use prompt::{read_prompt, wants_ui};

mod prompt;

/// airlock: an AI agent for the terminal whose tools are sandboxed WebAssembly components.
#[derive(Debug, Parser)]
#[command(name = "airlock", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// The prompt; `-` reads it from standard input. Without -p, the prompt is read from
    /// standard input when that is not a terminal. With -p TEXT, standard input is not read
    /// (add --stdin to append it).
    #[arg(short, long)]
    prompt: Option<String>,
    /// Open the interactive UI and send this first prompt (without -p on a terminal,
    /// `airlock` opens the UI with no prompt).
    #[arg(short = 'i', long = "prompt-interactive", value_name = "PROMPT", conflicts_with_all = ["prompt", "ask", "stdin", "show_context"])]
    interactive: Option<String>,
    /// Attach an image or a PDF to the prompt (repeatable; any file you name); `@path` in
    /// the prompt attaches one of the workspace.
    #[arg(long, value_name = "PATH")]
    image: Vec<PathBuf>,
    /// Append standard input, read to its end, to the -p prompt (e.g. `git diff | airlock
    /// -p "Review this" --stdin`).
    #[arg(long, requires = "prompt", conflicts_with = "ask")]
    stdin: bool,
    /// The model to use (also after `acp`).
    #[arg(short, long, global = true)]
    model: Option<String>,
    /// The model provider: gemini, openai, anthropic, or a [providers.NAME] table of config.toml
    /// (also after `acp`).
    #[arg(long, value_name = "NAME", global = true)]
    provider: Option<String>,
    /// The model API's base URL (e.g. http://127.0.0.1:11434/v1 for Ollama; also after `acp`).
    #[arg(long, value_name = "URL", value_parser = parse_base_url, global = true)]
    base_url: Option<String>,
    /// The project folder tools work in.
    #[arg(long, value_name = "DIR", global = true)]
    workspace: Option<PathBuf>,
    /// Which calls run without asking; headless runs refuse any call that would ask.
    #[arg(long, value_enum)]
    approval_mode: Option<ApprovalMode>,
    /// How results are printed.
    #[arg(short, long, value_enum, default_value_t = OutputFormat::Text)]
    output_format: OutputFormat,
    /// Most model turns for one prompt (at least 1; default 100).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    max_turns: Option<u32>,
    /// Ask before calls that need approval: the confirmation is shown on stderr and the
    /// answer read from stdin (give the prompt with -p). Without it, such calls are refused.
    #[arg(long)]
    ask: bool,
    /// Continue a recorded session: `latest` (the default: this workspace's most recently
    /// used one), a session id, or the start of one (see `airlock sessions list`).
    #[arg(long, value_name = "ID", num_args = 0..=1, default_missing_value = "latest")]
    resume: Option<String>,
    /// Print the AIRLOCK.md context files found and the assembled system prompt, and exit.
    #[arg(long)]
    show_context: bool,
    /// Apply `[profiles.NAME]` of the system or user config.toml over the files.
    #[arg(long, value_name = "NAME", global = true)]
    profile: Option<String>,
    /// Let the built-in tools read a folder outside the workspace for this session;
    /// `DIR:read-write` lets them write there too, each write asked about. Repeatable.
    #[arg(long = "add-dir", value_name = "DIR")]
    add_dir: Vec<String>,
    /// Headless: the final answer must be JSON valid against this JSON Schema file; it is
    /// printed alone on stdout, and an answer that is not valid exits 55.
    #[arg(long, value_name = "FILE", conflicts_with = "interactive")]
    output_schema: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Inspect the tools airlock offers the model.
    Tools {
        #[command(subcommand)]
        command: ToolsCommand,
    },
    /// Inspect plugins and manage what they are granted.
    Plugins {
        #[command(subcommand)]
        command: commands::plugins::PluginsCommand,
    },
    /// Let this workspace's .airlock/policy.toml grant its plugins (pinned to its content).
    Trust(commands::trust::TrustArgs),
    /// Inspect recorded sessions (continue one with --resume).
    Sessions {
        #[command(subcommand)]
        command: SessionsCommand,
    },
    /// Undo what a recorded session changed: list its prompts with the files each changed
    /// (--list), rewind the files and the conversation to before prompt N (--to N), undo one
    /// call (--call ID) or the last rewind (--undo); --gc applies the checkpoints' retention.
    Rewind(commands::rewind::RewindArgs),
    /// A session's tamper-evident audit trail: `verify` its chain, `show` it.
    Audit {
        #[command(subcommand)]
        command: commands::audit::AuditCommand,
    },
    /// The Model Context Protocol: airlock's tools for other agents (`serve`), and the MCP
    /// servers airlock starts as tool sources, with what each may do.
    Mcp {
        #[command(subcommand)]
        command: McpCommand,
    },
    /// Serve the Agent Client Protocol on stdio, for editors (Zed, JetBrains, Neovim).
    Acp,
    /// Custom commands: prompts kept as files, run as `/NAME` (`list`).
    Commands {
        #[command(subcommand)]
        command: commands::prompts::CommandsCommand,
    },
    /// Skills: instructions the model activates when a task calls for them (`list`).
    Skills {
        #[command(subcommand)]
        command: commands::prompts::SkillsCommand,
    },
    /// Hooks: programs and components run at moments of a session (`list`).
    Hooks {
        #[command(subcommand)]
        command: commands::hooks::HooksCommand,
    },
    /// The effective settings and where each came from.
    Config {
        #[command(subcommand)]
        command: commands::config_show::ConfigCommand,
    },
    /// Print a shell completion script: `airlock completions bash > ~/.local/share/bash-completion/completions/airlock`.
    Completions(commands::completions::CompletionsArgs),
    /// Print the manual page (roff), generated from the same definitions as `--help`.
    Man(commands::completions::ManArgs),
}

#[derive(Debug, Subcommand)]
enum McpCommand {
    /// Offer airlock's sandboxed tools to an MCP client, over stdio (or --http).
    Serve(commands::mcp_serve::ServeArgs),
    /// `list`, `show`, `add`, `remove`, `grant`, `revoke`.
    #[command(flatten)]
    Manage(commands::mcp::McpCommand),
}

#[derive(Debug, Subcommand)]
enum SessionsCommand {
    /// Print the recorded sessions, most recently used first.
    List {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
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

/// `--base-url`: an http(s) URL; anything else is a bad command line (exit 2).
fn parse_base_url(text: &str) -> Result<String, String> {
    config::check_base_url(text).map(|()| text.trim().to_owned())
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

    fn config(message: impl std::fmt::Display) -> Self {
        Self::new(ExitCode::Config, message)
    }

    /// A management command's failure: a bad command line exits 2, anything else 52.
    fn command(error: commands::CommandError) -> Self {
        Self::new(if error.is_usage() { ExitCode::Usage } else { ExitCode::Config }, error)
    }
}

/// Runs the command line and returns the exit code.
pub async fn run(cli: Cli) -> u8 {
    match run_inner(cli).await {
        Ok(code) => code as u8,
        Err(fatal) => {
            // Messages quote plugin names, paths and files: shown, never obeyed.
            let _ =
                writeln!(std::io::stderr(), "airlock: {}", airlock_engine::sanitize::block(fatal.message.trim_end()));
            fatal.code as u8
        }
    }
}

async fn run_inner(cli: Cli) -> Result<ExitCode, Fatal> {
    // Generated from the command line's own definitions: nothing is read or loaded first.
    match &cli.command {
        Some(Command::Completions(args)) => {
            return command_done(commands::completions::completions(args, &mut std::io::stdout().lock()));
        }
        Some(Command::Man(args)) => {
            return command_done(commands::completions::man(args, &mut std::io::stdout().lock()));
        }
        _ => {}
    }
    let mut paths = Paths::from_env().map_err(|e| Fatal::new(ExitCode::Config, e))?;
    paths.profile = cli.profile.clone();
    let workspace = workspace_root(cli.workspace.as_deref())?;
    let mut cli = cli;
    let settings = layered_settings(&paths, &workspace, &mut cli)?;
    if let Some(Command::Config { command }) = &cli.command {
        return written(commands::config_show::run(&settings, command, &mut std::io::stdout().lock()));
    }
    let mode_locked = settings.is_locked("approval_mode");
    let file = settings.config;
    init_logging(&paths);
    // Temporary files that writes of a killed airlock left behind go first.
    airlock_files::leftovers::start(&paths.home);
    let cwd = std::env::current_dir().ok().and_then(|d| d.canonicalize().ok());

    if let Some(Command::Trust(args)) = &cli.command {
        return command_done(commands::trust::run(&paths, &workspace, args).await);
    }
    if let Some(Command::Plugins { command: commands::plugins::PluginsCommand::New(args) }) = &cli.command {
        return command_done(commands::plugins::new::run(args, &workspace, &mut std::io::stdout().lock()));
    }
    if let Some(Command::Plugins { command: commands::plugins::PluginsCommand::Search(args) }) = &cli.command {
        let index = file.plugins.index.as_deref();
        return command_done(commands::plugins::search::run(&paths, index, args, &mut std::io::stdout().lock()).await);
    }
    if let Some(Command::Sessions { command: SessionsCommand::List { json } }) = &cli.command {
        return list_sessions(&paths, *json);
    }
    if let Some(Command::Rewind(args)) = &cli.command {
        return rewind(&paths, &workspace, &file.checkpoints, args);
    }
    if let Some(Command::Audit { command }) = &cli.command {
        let mut stdout = std::io::stdout().lock();
        return match commands::audit::run(&paths.home, &workspace, command, &mut stdout) {
            Ok(true) => Ok(ExitCode::Success),
            Ok(false) => Ok(ExitCode::Failure),
            Err(e) => command_done(Err(e)),
        };
    }
    if let Some(Command::Commands { command }) = &cli.command {
        return written(commands::prompts::commands(&paths.home, &workspace, command, &mut std::io::stdout().lock()));
    }
    if let Some(Command::Skills { command }) = &cli.command {
        let enabled = file.skills.enabled();
        let mut stdout = std::io::stdout().lock();
        return written(commands::prompts::skills(&paths.home, &workspace, enabled, command, &mut stdout));
    }
    if let Some(Command::Mcp { command: McpCommand::Manage(command) }) = &cli.command {
        let helper = PathBuf::from(airlock_process::SELF_EXE);
        let context = commands::mcp::Context { paths: &paths, workspace: &workspace, helper };
        return command_done(commands::mcp::run(&context, command).await);
    }
    if cli.show_context {
        let folders = context_files::folders(&paths.home, &workspace, cwd.as_deref());
        let names = file.context.file_names();
        let context = context_files::load(&paths.home, &workspace, &folders, &names);
        let system = agent::system_prompt(&workspace, &context);
        let candidates = context_files::candidates(&paths.home, &folders, &names);
        return written(show_context::print(&candidates, &context, &system, &mut std::io::stdout().lock()));
    }
    // Checked before the tools load, which can take seconds: a bad schema file fails at once.
    let schema = match (&cli.command, cli.output_schema.as_deref()) {
        (None, Some(path)) => commands::output_schema::load(path, wants_ui(&cli)?)
            .map(Some)
            .map_err(|message| Fatal::new(ExitCode::Usage, message))?,
        _ => None,
    };
    let mode = match &cli.command {
        // A locked mode binds `mcp serve` too.
        Some(Command::Mcp { command: McpCommand::Serve(_) }) if mode_locked => {
            file.approval_mode.unwrap_or(ApprovalMode::Default)
        }
        Some(Command::Mcp { command: McpCommand::Serve(args) }) => args.approval_mode,
        _ => cli.approval_mode.or(file.approval_mode).unwrap_or(ApprovalMode::Default),
    };
    // Checked when the file was read.
    let search = file.tools.search().ok().flatten();
    // A component compiled on load (a new plugin, or a built-in whose precompiled code does
    // not fit this machine) is said on stderr: it can take seconds. The plugins commands say
    // it their own way.
    let announce: Option<airlock_engine::engine::Announce> = match cli.command {
        Some(Command::Plugins { .. }) => None,
        _ => Some(std::sync::Arc::new(|line: &str| {
            let _ = writeln!(std::io::stderr(), "airlock: {}", airlock_engine::sanitize::line(line));
        })),
    };
    let tools = Tools::load(&paths, &workspace, mode, search, announce).await.map_err(start_failed)?;
    tools.runtime.alias_workspace(airlock_engine::paths::WorkspaceAliases::of(&workspace, cli.workspace.as_deref()));

    match cli.command {
        Some(Command::Tools { command: ToolsCommand::List { json } }) => {
            let helper = PathBuf::from(airlock_process::SELF_EXE);
            let context = commands::mcp::Context { paths: &paths, workspace: &workspace, helper };
            let servers = commands::mcp::probe_all(&context).await.map_err(Fatal::command)?;
            let mut stdout = std::io::stdout().lock();
            let registry = &tools.registry;
            let written_list = if json {
                tools_list::json(registry, &servers, &mut stdout)
            } else {
                tools_list::text(registry, &tools.policy, &servers, &mut stdout)
            };
            return written(written_list);
        }
        Some(Command::Hooks { command }) => {
            let context = commands::hooks::Context {
                paths: &paths,
                workspace: &workspace,
                settings: &file.hooks,
                runtime: &tools.runtime,
                registry: &tools.registry,
                policy: &tools.policy,
            };
            return written(commands::hooks::run(&context, &command, &mut std::io::stdout().lock()));
        }
        Some(Command::Plugins { command }) => {
            let context = commands::plugins::Context {
                paths: &paths,
                runtime: &tools.runtime,
                registry: &tools.registry,
                policy: &tools.policy,
            };
            return command_done(commands::plugins::run(&context, command).await);
        }
        Some(Command::Mcp { command: McpCommand::Serve(args) }) => {
            let context = commands::mcp_serve::Context {
                paths,
                workspace,
                cwd,
                search: file.tools.search().ok().flatten(),
                limits: file.tools.limits(),
                commands: file.commands,
                telemetry: crate::telemetry::start(&file.telemetry),
            };
            return commands::mcp_serve::run(context, tools, args).await.map_err(|e| match e {
                commands::mcp_serve::ServeError::Usage(message) => Fatal::new(ExitCode::Usage, message),
                commands::mcp_serve::ServeError::Start(message) => Fatal::new(ExitCode::Failure, message),
            });
        }
        Some(Command::Acp) => {
            let flags = config::ProviderFlags { provider: cli.provider, model: cli.model, base_url: cli.base_url };
            let context = commands::acp::Context::new(paths, workspace, file, flags, mode, cli.max_turns)
                .map_err(provider_failed)?;
            return Ok(commands::acp::run(context, tools).await);
        }
        Some(
            Command::Trust(_)
            | Command::Sessions { .. }
            | Command::Rewind(_)
            | Command::Audit { .. }
            | Command::Commands { .. }
            | Command::Skills { .. }
            | Command::Config { .. }
            | Command::Completions(_)
            | Command::Man(_)
            | Command::Mcp { command: McpCommand::Manage(_) },
        )
        | None => {}
    }

    for folder in &cli.add_dir {
        tools
            .policy
            .add_folder(folder)
            .map_err(|reason| Fatal::new(ExitCode::Usage, format!("--add-dir: {reason}")))?;
    }
    let interactive = wants_ui(&cli)?;
    let prompt = if interactive { String::new() } else { read_prompt(cli.prompt, cli.stdin, cli.ask)? };
    let flags = config::ProviderFlags { provider: cli.provider, model: cli.model, base_url: cli.base_url };
    let provider = config::resolve_provider(&file, &paths.config_file(), flags, &|name| std::env::var(name).ok())
        .map_err(provider_failed)?;
    if interactive && cli.interactive.is_none() && !cli.image.is_empty() {
        return Err(Fatal::new(ExitCode::Usage, "--image goes with a prompt: -p PROMPT or -i PROMPT"));
    }
    let attachments = if interactive { "" } else { prompt.as_str() };
    let attachments = airlock_frontends::attachments::for_prompt(&workspace, attachments, &cli.image, &mut |notice| {
        let _ = writeln!(std::io::stderr(), "airlock: {}", airlock_engine::sanitize::line(&notice));
    })
    .map_err(|why| Fatal::new(ExitCode::Usage, why))?;
    let home = paths.home.clone();
    let telemetry = crate::telemetry::start(&file.telemetry);
    let settings = engine::Settings {
        paths,
        workspace,
        cwd,
        provider: Some(provider),
        max_turns: cli.max_turns.or(file.max_turns).unwrap_or(100),
        loop_detection: file.loop_detection.unwrap_or(true),
        limits: file.tools.limits(),
        resume: cli.resume,
        commands: file.commands,
        output_schema: schema.as_ref().map(|s| s.value().clone()),
        media: file.media,
        prompts: engine::PromptSettings {
            context_file_names: file.context.file_names(),
            skills: file.skills.enabled(),
        },
        hooks: file.hooks,
        audit: file.audit.enabled(),
        checkpoints: file.checkpoints.clone(),
    };
    let (session, outputs) = engine::Session::start(settings, tools).map_err(start_failed)?;
    let (session, outputs) = crate::telemetry::observe(telemetry.as_deref(), session, outputs);
    let mode = airlock_door::edge::wire_mode(mode);
    let code = if interactive {
        let options = tui::Options { prompt: cli.interactive, mode, home, attachments };
        tui::run(session, outputs, options).await
    } else {
        let options = exec::Options { format: cli.output_format, ask: cli.ask, mode, schema, attachments };
        exec::run(session, outputs, prompt, options).await
    };
    crate::telemetry::finish(telemetry).await;
    // Commands left running in the background end with airlock, and the user is told which.
    let running = airlock_process::background();
    let stopped = airlock_process::stop_background();
    if stopped > 0 {
        let plural = if stopped == 1 { "" } else { "s" };
        let mut message = format!("airlock: stopped {stopped} background command{plural}");
        for (pid, command, log) in running.iter().take(16) {
            let line = airlock_engine::sanitize::line(command);
            message.push_str(&format!("\n  pid {pid}: {line} (its output: {})", log.display()));
        }
        let _ = writeln!(std::io::stderr(), "{message}");
    }
    Ok(code)
}

/// The settings of every layer, with the flags a locked key refuses taken out of `cli`;
/// what was refused is said once, here.
fn layered_settings(paths: &Paths, workspace: &Path, cli: &mut Cli) -> Result<config::Settings, Fatal> {
    let mut settings = config::load_settings(paths, Some(workspace)).map_err(|e| match e {
        config::ConfigError::UnknownProfile { .. } => Fatal::new(ExitCode::Usage, e),
        _ => Fatal::config(e),
    })?;
    let text = |value: &String| config::Value::String(value.clone());
    let mode = |mode: &ApprovalMode| config::Value::String(mode.as_str().to_string());
    // A flag also stands for the provider table's key it overrides.
    cli.approval_mode = settings.flag(&["approval_mode"], "--approval-mode", cli.approval_mode, mode);
    let turns = |n: &u32| config::Value::Integer((*n).into());
    cli.max_turns = settings.flag(&["max_turns"], "--max-turns", cli.max_turns, turns);
    cli.model = settings.flag(&["model", "providers.*.model"], "--model", cli.model.take(), text);
    cli.provider = settings.flag(&["provider"], "--provider", cli.provider.take(), text);
    cli.base_url = settings.flag(&["base_url", "providers.*.base_url"], "--base-url", cli.base_url.take(), text);
    let mut stderr = std::io::stderr().lock();
    for warning in settings.warnings.iter().chain(&settings.notices()) {
        let _ = writeln!(stderr, "airlock: {}", airlock_engine::sanitize::line(warning));
    }
    Ok(settings)
}

/// A model provider that cannot be used: no API key (53), or wrong settings (52).
fn provider_failed(error: config::ConfigError) -> Fatal {
    match error {
        config::ConfigError::MissingKey(_) => Fatal::new(ExitCode::Auth, error),
        _ => Fatal::new(ExitCode::Config, error),
    }
}

/// A session that could not start: the runtime or the model client failed (1), or the
/// settings are wrong (52).
fn start_failed(error: StartError) -> Fatal {
    let code = match error {
        StartError::Runtime(_) | StartError::Client(_) => ExitCode::Failure,
        StartError::Policy(_) | StartError::Resume(_) => ExitCode::Config,
    };
    Fatal::new(code, error)
}

/// The end of a listing on stdout. A reader that closed the pipe early (`airlock tools
/// list | head -1`) is a normal end for a command-line tool, not an error.
fn written(result: std::io::Result<()>) -> Result<ExitCode, Fatal> {
    match result {
        Ok(()) => Ok(ExitCode::Success),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(ExitCode::Success),
        Err(e) => Err(Fatal::new(ExitCode::Failure, format!("cannot write: {e}"))),
    }
}

/// The end of a management command: a closed stdout is a normal end, a wrong command line
/// exits 2, anything else is a settings problem.
fn command_done(result: Result<(), commands::CommandError>) -> Result<ExitCode, Fatal> {
    match result {
        Ok(()) => Ok(ExitCode::Success),
        Err(commands::CommandError::Output(e)) => written(Err(e)),
        Err(e) => Err(Fatal::command(e)),
    }
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

/// `airlock sessions list`.
fn list_sessions(paths: &Paths, json: bool) -> Result<ExitCode, Fatal> {
    let sessions = session::list(&session::dir(&paths.home)).map_err(Fatal::config)?;
    let space = sessions_list::space(&paths.home, &sessions);
    let mut stdout = std::io::stdout().lock();
    written(if json {
        sessions_list::json(&sessions, &space, &mut stdout)
    } else {
        sessions_list::text(&sessions, &space, &mut stdout)
    })
}

/// `airlock rewind`: exit 2 when files changed outside airlock were kept.
fn rewind(
    paths: &Paths,
    workspace: &Path,
    settings: &config::CheckpointSettings,
    args: &commands::rewind::RewindArgs,
) -> Result<ExitCode, Fatal> {
    let store = settings
        .enabled()
        .then(|| airlock_checkpoint::Store::open(&paths.home, workspace, settings.store_settings(&paths.home)))
        .transpose()
        .map_err(|e| Fatal::new(ExitCode::Config, e))?;
    let context =
        commands::rewind::Checkpoints { home: &paths.home, workspace, store, retention: settings.retention() };
    match commands::rewind::run(&context, args, &mut std::io::stdout().lock()) {
        Ok(commands::rewind::Outcome::Done) => Ok(ExitCode::Success),
        Ok(commands::rewind::Outcome::Kept) => Ok(ExitCode::Usage),
        Err(e) => command_done(Err(e)),
    }
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

#[cfg(test)]
#[path = "cli_tests.rs"]
mod tests;
