//! `airlock plugins list | inspect FILE | check FILE | install PATH|URL | remove NAME |
//! grant NAME … | revoke NAME … | show NAME | new NAME --lang LANG`.
//!
//! A plugin may be named by any name it goes by — its own (`word-count`), one of its tools
//! (`word_count`), its file (`word_count.wasm`, with or without `.wasm`) — and the command
//! says which plugin that is; a name of several plugins is refused, listing them
//! ([`airlock_engine::registry::names`]). Grants are written to the policy file that governs the
//! plugin ([`change`]); what is shown is what the policy says the plugin gets ([`show`]).
//!
//! A bad command line (an unknown plugin, `grant` with nothing to grant) is
//! [`CommandError::Usage`] (exit 2). The text outputs show what a plugin wrote about itself
//! and what a workspace's policy grants: every such field goes through [`airlock_engine::sanitize`];
//! the `--json` outputs are data.

mod change;
mod diff;
mod fetch;
mod index;
mod index_git;
mod lifecycle;
pub mod new;
pub mod publish;
pub mod search;
mod show;
mod signed;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Subcommand;

use super::CommandError;
use crate::commands::json;
use airlock_engine::capability::net::NetRule;
use airlock_engine::capability::{self, FileGrant, Grant};
use airlock_engine::contract::Access;
use airlock_engine::paths::Paths;
use airlock_engine::policy::rules::RuleSource;
use airlock_engine::policy::{Policy, file, workspace_policy_path};
use airlock_engine::registry::{Origin, Plugin, Registry, names};
use airlock_engine::runtime::Runtime;
use airlock_engine::sanitize::{grant_flag, line};
pub use show::describe_grant;

#[derive(Debug, Subcommand)]
pub enum PluginsCommand {
    /// List the plugins with their origin, tools, requests and what they get.
    List {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Show what a component file requests, its tools and their schemas, before you install it.
    Inspect {
        /// The component file (`.wasm`).
        file: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Check a component against the contract without installing it: it loads, describes
    /// itself, its names and schemas are valid; and what it requests.
    Check {
        /// The component file (`.wasm`).
        file: PathBuf,
    },
    /// Install a plugin from a file, an https URL or an OCI registry (`oci://HOST/REPO:TAG`,
    /// `oci://HOST/REPO@sha256:…`) into your plugin folder (checked first, its source and
    /// digests recorded in plugins.lock). Installing over an installed plugin shows what the
    /// new version requests beyond the old; those new requests get nothing until approved.
    Install(InstallArgs),
    /// Fetch a newer version of an installed plugin from where it was installed from, showing
    /// first what it requests beyond the installed one (new requests get nothing until approved).
    Update {
        /// The plugin: its name, one of its tools, or its file name.
        name: String,
        /// Approve what the new version requests beyond the old one.
        #[arg(long)]
        approve: bool,
    },
    /// Approve a plugin's current requests: what it requested beyond the version its grant was
    /// given for starts to get what the grant covers.
    Approve {
        /// The plugin: its name, one of its tools, or its file name.
        name: String,
    },
    /// Push a component to an OCI registry as a WebAssembly artifact: `airlock plugins publish
    /// tool.wasm oci://HOST/REPO:TAG`.
    Publish(publish::PublishArgs),
    /// Search the configured plugin index; each result shows what the plugin requests.
    Search(search::SearchArgs),
    /// Remove an installed plugin: its file, its lock entry and its grant.
    Remove {
        /// The plugin: its name, one of its tools, or its file name.
        name: String,
        /// Keep what it is granted (by default the grant goes too, so that no later plugin
        /// of the same name inherits it).
        #[arg(long)]
        keep_grant: bool,
    },
    /// Start a new plugin project that builds as written: `airlock plugins new weather --lang python`.
    New(new::NewArgs),
    /// Grant a plugin capabilities; it gets them only where it also requests them.
    Grant {
        /// The plugin: its name, one of its tools, or its file name.
        name: String,
        #[command(flatten)]
        flags: GrantFlags,
    },
    /// Take capabilities back (`--all`: the whole grant).
    Revoke {
        /// The plugin: its name, one of its tools, or its file name.
        name: String,
        /// Take back the whole grant (a built-in falls back to its default).
        #[arg(long)]
        all: bool,
        #[command(flatten)]
        flags: GrantFlags,
    },
    /// Show what a plugin requests, what is granted (and where), and what each tool gets.
    Show {
        /// The plugin: its name, one of its tools, or its file name.
        name: String,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// `airlock plugins install`.
#[derive(Debug, clap::Args)]
pub struct InstallArgs {
    /// A `.wasm` file, an `https://` URL, or `oci://HOST/REPO:TAG` / `oci://HOST/REPO@sha256:DIGEST`.
    pub source: String,
    /// The sha-256 the file must have (64 hex digits); nothing is installed otherwise.
    #[arg(long, value_name = "HEX")]
    pub sha256: Option<String>,
    /// Install into the workspace's `.airlock/plugins/` instead of `$AIRLOCK_HOME/plugins/`.
    #[arg(long)]
    pub in_workspace: bool,
    /// A cosign signature of the file (`cosign sign-blob --key`, base64), checked against the
    /// folder's trusted keys.
    #[arg(long, value_name = "FILE")]
    pub signature: Option<PathBuf>,
    /// A Sigstore bundle of the file (`cosign sign-blob --bundle`), checked against the
    /// folder's trusted keys or identities.
    #[arg(long, value_name = "FILE")]
    pub bundle: Option<PathBuf>,
    /// Approve what the new version requests beyond the installed one.
    #[arg(long)]
    pub approve: bool,
}

/// Capabilities named on the command line.
#[derive(Debug, Default, clap::Args)]
pub struct GrantFlags {
    /// A folder to read: `.`, `src`, `~/notes`.
    #[arg(long = "read", value_name = "PATH")]
    read: Vec<String>,
    /// A folder to read and write.
    #[arg(long = "write", value_name = "PATH")]
    write: Vec<String>,
    /// A network destination: `https://api.example.com`, `https://*.example.com:8443`.
    #[arg(long = "net", value_name = "URL")]
    net: Vec<String>,
    /// An environment variable.
    #[arg(long = "env", value_name = "NAME")]
    env: Vec<String>,
    /// A command prefix the plugin may run.
    #[arg(long = "process", value_name = "PREFIX")]
    process: Vec<String>,
    /// Memory cap in MiB (1 to 4096).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=capability::MAX_MEMORY_MB))]
    memory_mb: Option<u64>,
    /// Wall-clock deadline of one call, in seconds (1 to 86400).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=capability::MAX_TIMEOUT_SECS))]
    timeout_secs: Option<u64>,
    /// Most bytes of output sent to the model (1 to 16777216).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=capability::MAX_OUTPUT_BYTES))]
    max_output_bytes: Option<u64>,
}

/// The flags `grant` and `revoke` take, for the message when none is given.
const FLAGS: &str = "--read PATH, --write PATH, --net URL, --env NAME, --process PREFIX, --memory-mb N, \
                     --timeout-secs N, --max-output-bytes N";

impl GrantFlags {
    /// The lists as policy-file entries, checked.
    fn entries(&self) -> Result<Vec<(&'static str, Vec<String>)>, CommandError> {
        let usage = |e: String| CommandError::Usage(e);
        let mut files = Vec::new();
        for path in &self.read {
            files.push(FileGrant::parse(&format!("{path}:read")).map_err(usage)?.to_text());
        }
        for path in &self.write {
            files.push(FileGrant::parse(&format!("{path}:read-write")).map_err(usage)?.to_text());
        }
        let mut network = Vec::new();
        for rule in &self.net {
            network.push(NetRule::parse(rule).map_err(usage)?.to_string());
        }
        for name in &self.env {
            if !file::is_env_name(name) {
                return Err(usage(format!("{name:?} is not an environment variable name")));
            }
        }
        for prefix in &self.process {
            if prefix.trim().is_empty() {
                return Err(usage("--process needs a command prefix, e.g. `git status`".into()));
            }
        }
        let processes = self.process.iter().map(|p| p.trim().to_string()).collect();
        Ok(vec![("files", files), ("network", network), ("env", self.env.clone()), ("processes", processes)])
    }

    fn numbers(&self) -> [(&'static str, Option<u64>); 3] {
        [
            ("memory_mb", self.memory_mb),
            ("timeout_secs", self.timeout_secs),
            ("max_output_bytes", self.max_output_bytes),
        ]
    }

    fn is_empty(&self) -> bool {
        self.read.is_empty()
            && self.write.is_empty()
            && self.net.is_empty()
            && self.env.is_empty()
            && self.process.is_empty()
            && self.numbers().iter().all(|(_, n)| n.is_none())
    }
}

/// What the commands need.
pub struct Context<'a> {
    pub paths: &'a Paths,
    pub runtime: &'a Runtime,
    pub registry: &'a Registry,
    pub policy: &'a Policy,
}

pub async fn run(context: &Context<'_>, command: PluginsCommand) -> Result<(), CommandError> {
    let mut out = std::io::stdout().lock();
    {
        let mut err = std::io::stderr().lock();
        for warning in &context.policy.warnings {
            writeln!(err, "warning: {}", line(warning))?;
        }
    }
    match command {
        PluginsCommand::List { json } => show::list(context, json, &mut out),
        PluginsCommand::Inspect { file, json } => inspect(context, &file, json, &mut out).await,
        PluginsCommand::Check { file } => lifecycle::check(context, &file, &mut out).await,
        PluginsCommand::Install(args) => lifecycle::install(context, &args, &mut out).await,
        PluginsCommand::Update { name, approve } => diff::update(context, &name, approve, &mut out).await,
        PluginsCommand::Approve { name } => diff::approve(context, &name, &mut out),
        PluginsCommand::Publish(args) => publish::run(context, &args, &mut out).await,
        // cli.rs runs it first, before any plugin loads, with `[plugins] index`; here only
        // `--index` can name one.
        PluginsCommand::Search(args) => search::run(context.paths, None, &args, &mut out).await,
        PluginsCommand::Remove { name, keep_grant } => lifecycle::remove(context, &name, keep_grant, &mut out),
        // Handled before any plugin is loaded (cli.rs): it needs no runtime.
        PluginsCommand::New(args) => new::run(&args, &context.policy.roots().workspace, &mut out),
        PluginsCommand::Grant { name, flags } => change::change(context, &name, &flags, false),
        PluginsCommand::Revoke { name, all, flags } => {
            if all {
                if !flags.is_empty() {
                    return Err(CommandError::Usage("--all takes back everything: give it alone".into()));
                }
                return change::revoke_all(context, &name);
            }
            change::change(context, &name, &flags, true)
        }
        PluginsCommand::Show { name, json } => show::show(context, &name, json, &mut out),
    }
}

async fn inspect(context: &Context<'_>, file: &Path, json: bool, out: &mut impl Write) -> Result<(), CommandError> {
    let plugin = Registry::inspect(context.runtime, file)
        .await
        .map_err(|p| CommandError::Unloadable(format!("{}: {}", p.path, p.reason)))?;
    if json {
        json::write_pretty(out, &json::Inspected { file, plugin: &plugin.info })?;
        return Ok(());
    }
    writeln!(
        out,
        "{} {} ({})",
        line(&plugin.info.name),
        line(&plugin.info.version),
        line(&file.display().to_string())
    )?;
    show::write_tools(&plugin, true, out)?;
    write_request_hint(&plugin, "once installed, it gets nothing until you run", out)?;
    Ok(())
}

/// The command that grants what `plugin` requests, after `lead`; or that it needs none.
fn write_request_hint(plugin: &Plugin, lead: &str, out: &mut impl Write) -> std::io::Result<()> {
    // What the tools can be given: a read-only kind's write request is suggested as a read.
    let usable: Vec<_> = plugin.info.tools.iter().map(capability::kinds::usable).collect();
    let mut requested = Grant::requested_by(&usable);
    // A variable no plugin may be given is never suggested (the grant would be refused).
    requested.env.retain(|var| airlock_engine::policy::reserved_variable(var).is_none());
    let flags = grant_flags(&requested);
    if flags.is_empty() {
        return writeln!(out, "it requests nothing, so it needs no grant");
    }
    // Each flag's value is shell-quoted (request paths with hidden characters are refused at
    // load, so quoting is all a pasted command needs).
    let command = format!(
        "airlock plugins grant {} {}",
        airlock_engine::sanitize::shell_word(&plugin.info.name),
        flags.join(" ")
    );
    writeln!(out, "{lead}: {}", line(&command))
}

/// The `airlock plugins grant` flags that grant `grant`, each value shell-quoted.
fn grant_flags(grant: &Grant) -> Vec<String> {
    let writes = |path: &str| grant.files.iter().any(|f| f.path == path && f.access == Access::ReadWrite);
    let mut flags: Vec<String> = grant
        .files
        .iter()
        .filter(|f| f.access == Access::ReadWrite || !writes(&f.path))
        .map(|f| grant_flag(if f.access == Access::ReadWrite { "--write" } else { "--read" }, &f.path))
        .collect();
    flags.extend(grant.network.iter().map(|n| grant_flag("--net", &n.to_string())));
    flags.extend(grant.env.iter().map(|e| grant_flag("--env", e)));
    flags.extend(grant.processes.iter().map(|p| grant_flag("--process", p)));
    flags
}

/// The plugin `name` names; when it is another name than the plugin's own, says (on
/// stderr) which plugin that is.
fn find<'a>(context: &Context<'a>, name: &str) -> Result<&'a Arc<Plugin>, CommandError> {
    match context.registry.find_plugin(name) {
        Ok(found) => {
            if let Some(note) = found.note(name) {
                writeln!(std::io::stderr(), "note: {}", line(&note))?;
            }
            // A plugin's own name wins, but a person may have meant another plugin's tool of
            // that name (a workspace plugin named like one of your tools): say so.
            let others: Vec<_> =
                context.registry.plugins().into_iter().filter(|p| !Arc::ptr_eq(p, found.plugin)).collect();
            if let Ok(other) = names::find(&others, name) {
                writeln!(
                    std::io::stderr(),
                    "note: `{}` is plugin {}; {}: for that one, give its own name `{}`",
                    line(name),
                    line(&found.plugin.label()),
                    line(&other.note(name).unwrap_or_default()),
                    line(&other.plugin.info.name)
                )?;
            }
            Ok(found.plugin)
        }
        Err(error) => {
            let known: Vec<&str> = context.registry.plugins().iter().map(|p| p.info.name.as_str()).collect();
            Err(CommandError::Usage(format!("{}; the plugins are: {}", error.describe(name), known.join(", "))))
        }
    }
}

fn policy_path(context: &Context<'_>, plugin: &Plugin) -> PathBuf {
    match plugin.source.origin {
        Origin::Workspace => workspace_policy_path(&context.policy.roots().workspace),
        Origin::Builtin | Origin::User => context.paths.policy_file(),
    }
}

/// An editor on the plugin's policy file; a workspace's is read without following links.
fn editor(
    context: &Context<'_>,
    plugin: &Plugin,
    path: &Path,
) -> Result<airlock_engine::policy::edit::Editor, CommandError> {
    Ok(match plugin.source.origin {
        Origin::Workspace => airlock_engine::policy::edit::Editor::open_workspace(&context.policy.roots().workspace)?,
        Origin::Builtin | Origin::User => airlock_engine::policy::edit::Editor::open(path)?,
    })
}

fn source(plugin: &Plugin) -> RuleSource {
    if plugin.source.origin == Origin::Workspace { RuleSource::Workspace } else { RuleSource::User }
}
