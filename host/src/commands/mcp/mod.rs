//! `airlock mcp list | show NAME | add NAME … -- COMMAND ARGS… | remove NAME | grant NAME … |
//! revoke NAME …`: the MCP servers airlock starts as tool sources, and what each may do.
//!
//! `list` and `show` start each server the way a session would (in its sandbox, under its
//! grant: [`airlock_engine::mcp::probe`]) to say whether it starts and which tools it would
//! offer; `add` and `remove` edit the `[mcp_servers.NAME]` tables of a `config.toml`
//! ([`config_edit`]), keeping its comments; `grant` and `revoke` edit the server's
//! `[mcp_servers.NAME]` table in the policy file of its scope ([`grant`]), as `airlock plugins
//! grant` edits a plugin's.
//!
//! A bad command line (an unknown server, a name taken, `grant` with nothing to grant) is
//! [`CommandError::Usage`] (exit 2). Text outputs quote what servers say about themselves
//! and what config files hold: every such field goes through [`airlock_engine::sanitize`];
//! the `--json` outputs are data.

pub mod config_edit;
mod grant;
mod show;

pub use show::probe_all;

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Subcommand;

use super::CommandError;
use airlock_engine::mcp::{self, ConfiguredServer};
use airlock_engine::paths::Paths;
use airlock_engine::sanitize::line;
use config_edit::{ConfigEditor, NewServer};

#[derive(Debug, Subcommand)]
pub enum McpCommand {
    /// List the MCP servers: where each is configured, whether it starts, the tools it
    /// offers and skips, and what it may do (its grant).
    List {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Show one MCP server: its command or URL, state, every tool with its description, and
    /// its grant.
    Show {
        /// The server's name (its `[mcp_servers.NAME]` table).
        name: String,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Add an MCP server to config.toml: `airlock mcp add files -- npx -y
    /// @modelcontextprotocol/server-filesystem .` (it may read the workspace and nothing
    /// else until you grant it more).
    Add(AddArgs),
    /// Remove an MCP server from config.toml, and its grant.
    Remove {
        /// The server's name.
        name: String,
        /// Keep what it is granted (by default the grant goes too, so that no later server
        /// of the same name inherits it).
        #[arg(long)]
        keep_grant: bool,
    },
    /// Let an MCP server read or write a folder, see a variable or reach the network.
    Grant {
        /// The server's name.
        name: String,
        #[command(flatten)]
        flags: McpGrantFlags,
    },
    /// Take back what an MCP server was granted (`--all`: everything).
    Revoke {
        /// The server's name.
        name: String,
        /// Take back the whole grant (it may read the workspace and nothing else).
        #[arg(long)]
        all: bool,
        #[command(flatten)]
        flags: McpGrantFlags,
    },
}

/// `airlock mcp add`.
#[derive(Debug, clap::Args)]
pub struct AddArgs {
    /// The server's name: 1-32 of a-z, 0-9, '_' or '-' (its tools become `NAME__tool`).
    name: String,
    /// A variable of your environment the server needs (it sees it once granted with
    /// `airlock mcp grant NAME --env VAR`). Repeatable.
    #[arg(long = "env", value_name = "VAR")]
    env: Vec<String>,
    /// A streamable-HTTP server's endpoint, instead of a command.
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    url: Option<String>,
    /// An HTTP header sent to a `--url` server: `--header X-Team=infra`. Repeatable.
    #[arg(long = "header", value_name = "NAME=VALUE", requires = "url")]
    headers: Vec<String>,
    /// The variable holding a `--url` server's bearer token.
    #[arg(long, value_name = "VAR", requires = "url")]
    bearer_token_env: Option<String>,
    /// Add it to this workspace's `.airlock/config.toml` (used once the folder is trusted)
    /// instead of your own config.toml.
    #[arg(long)]
    in_workspace: bool,
    /// The program and its arguments, after `--`.
    #[arg(last = true, value_name = "COMMAND")]
    command: Vec<String>,
}

/// What `grant` and `revoke` name.
#[derive(Debug, Default, clap::Args)]
pub struct McpGrantFlags {
    /// A folder it may read besides the workspace: `~/notes`, `/opt/data`. Repeatable.
    #[arg(long = "read", value_name = "PATH")]
    read: Vec<String>,
    /// A folder it may read and write: `.` (the workspace), `out`. Repeatable.
    #[arg(long = "write", value_name = "PATH")]
    write: Vec<String>,
    /// A variable of your environment it may see (it gets it if it also asks for it).
    #[arg(long = "env", value_name = "NAME")]
    env: Vec<String>,
    /// It may reach the network.
    #[arg(long)]
    network: bool,
}

/// The flags `grant` and `revoke` take, for the message when none is given.
const FLAGS: &str = "--read PATH, --write PATH, --env NAME, --network";

/// What the commands need.
pub struct Context<'a> {
    pub paths: &'a Paths,
    pub workspace: &'a Path,
    /// The `airlock` executable, which a server's sandbox runs as its helper.
    pub helper: PathBuf,
}

pub async fn run(context: &Context<'_>, command: &McpCommand) -> Result<(), CommandError> {
    let mut out = std::io::stdout().lock();
    match command {
        McpCommand::List { json } => show::list(context, *json, &mut out).await,
        McpCommand::Show { name, json } => show::show(context, name, *json, &mut out).await,
        McpCommand::Add(args) => add(context, args, &mut out),
        McpCommand::Remove { name, keep_grant } => remove(context, name, *keep_grant, &mut out),
        McpCommand::Grant { name, flags } => grant::change(context, name, flags, false, &mut out),
        McpCommand::Revoke { name, all, flags } => {
            if *all {
                if flags.has_any() {
                    return Err(CommandError::Usage("--all takes back everything: give it alone".into()));
                }
                return grant::revoke_all(context, name, &mut out);
            }
            grant::change(context, name, flags, true, &mut out)
        }
    }
}

/// Every configured server; notices about the ones left out go to stderr.
fn configured(context: &Context<'_>) -> Result<Vec<ConfiguredServer>, CommandError> {
    let found = mcp::servers(context.paths, context.workspace).map_err(|e| CommandError::Config(e.to_string()))?;
    let mut err = std::io::stderr().lock();
    for notice in &found.notices {
        writeln!(err, "note: {}", line(notice))?;
    }
    Ok(found.servers)
}

/// The configured server `name`, or a usage error listing the ones there are.
fn find(context: &Context<'_>, name: &str) -> Result<ConfiguredServer, CommandError> {
    let servers = configured(context)?;
    let known: Vec<String> = servers.iter().map(|s| s.name.clone()).collect();
    servers.into_iter().find(|s| s.name == name).ok_or_else(|| {
        let known = if known.is_empty() { "none (add one with `airlock mcp add`)".into() } else { known.join(", ") };
        CommandError::Usage(format!("no MCP server is named {:?}; the servers are: {known}", line(name)))
    })
}

fn add(context: &Context<'_>, args: &AddArgs, out: &mut impl Write) -> Result<(), CommandError> {
    if !mcp::config::is_server_name(&args.name) {
        return Err(CommandError::Usage(format!(
            "{:?} cannot name a server: use 1-32 of a-z, 0-9, '_' or '-', without \"__\"",
            line(&args.name)
        )));
    }
    let server = new_server(args)?;
    let config = mcp::ServerConfig {
        command: server.command.clone(),
        args: server.args.clone(),
        env: server.env.clone(),
        url: server.url.clone(),
        headers: server.headers.iter().cloned().collect(),
        bearer_token_env: server.bearer_token_env.clone(),
        ..mcp::ServerConfig::default()
    };
    config.check(&args.name).map_err(CommandError::Usage)?;
    let mut editor = if args.in_workspace {
        ConfigEditor::open_workspace(context.workspace)
    } else {
        ConfigEditor::open(&context.paths.config_file())
    }
    .map_err(|e| CommandError::Config(e.to_string()))?;
    if !editor.add(&args.name, &server) {
        return Err(CommandError::Usage(format!(
            "{} already has an MCP server named {}: remove it first (`airlock mcp remove {}`)",
            editor.path().display(),
            args.name,
            args.name
        )));
    }
    let path = editor.path().to_path_buf();
    editor.save().map_err(|e| CommandError::Config(e.to_string()))?;
    writeln!(out, "added the MCP server {} to {}", args.name, line(&path.display().to_string()))?;
    if server.url.is_some() {
        writeln!(out, "  remote: it runs on its own machine, not in airlock's sandbox; no grant applies")?;
    } else {
        writeln!(out, "  sandboxed: {}", mcp::McpGrant::default().describe())?;
        writeln!(
            out,
            "  to let it do more: airlock mcp grant {} --read PATH | --write PATH | --env VAR | --network",
            args.name
        )?;
    }
    if args.in_workspace {
        writeln!(out, "  a workspace's servers start once the folder is trusted: `airlock trust`")?;
    }
    Ok(())
}

/// The table `add` writes, from its arguments.
fn new_server(args: &AddArgs) -> Result<NewServer, CommandError> {
    let mut headers = Vec::new();
    for header in &args.headers {
        let Some((key, value)) = header.split_once('=') else {
            return Err(CommandError::Usage(format!("--header {:?}: give it as NAME=VALUE", line(header))));
        };
        headers.push((key.trim().to_string(), value.to_string()));
    }
    let (command, rest) = match args.command.split_first() {
        Some((command, rest)) => (Some(command.clone()), rest.to_vec()),
        None if args.url.is_some() => (None, Vec::new()),
        None => {
            return Err(CommandError::Usage(
                "give the server's command after `--` (airlock mcp add NAME -- COMMAND ARGS…) or its --url".into(),
            ));
        }
    };
    Ok(NewServer {
        command,
        args: rest,
        env: args.env.clone(),
        url: args.url.clone(),
        headers,
        bearer_token_env: args.bearer_token_env.clone(),
    })
}

fn remove(context: &Context<'_>, name: &str, keep_grant: bool, out: &mut impl Write) -> Result<(), CommandError> {
    let server = find(context, name)?;
    let mut editor = match server.scope {
        mcp::Scope::User => ConfigEditor::open(&server.config_file),
        mcp::Scope::Workspace => ConfigEditor::open_workspace(context.workspace),
    }
    .map_err(|e| CommandError::Config(e.to_string()))?;
    editor.remove(name);
    editor.save().map_err(|e| CommandError::Config(e.to_string()))?;
    writeln!(out, "removed the MCP server {name} from {}", line(&server.config_file.display().to_string()))?;
    if !keep_grant && server.grant != mcp::McpGrant::default() {
        grant::revoke_server(context, &server, out)?;
    }
    Ok(())
}
