//! `airlock plugins list | inspect FILE | grant NAME … | revoke NAME … | show NAME`.
//!
//! Grants are written to the policy file that governs the plugin: the user's for built-in
//! and user-folder plugins, the workspace's for workspace plugins (re-pinning the folder's
//! trust when it was trusted, since the user made the change). A grant only ever takes
//! effect within what the plugin requests.
//!
//! The text outputs show what a plugin wrote about itself (names, versions, requests) and
//! what a workspace's policy grants: every such field goes through [`crate::sanitize`]; the
//! `--json` outputs are data.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use clap::Subcommand;
use serde_json::json;

use super::CommandError;
use crate::capability::net::NetRule;
use crate::capability::{self, FileGrant, Grant};
use crate::config::Paths;
use crate::contract::{Access, PluginInfo};
use crate::policy::rules::RuleSource;
use crate::policy::trust::{TrustStatus, TrustStore};
use crate::policy::{Policy, file, workspace_policy_hash, workspace_policy_path};
use crate::registry::{Origin, Plugin, Registry};
use crate::runtime::Runtime;
use crate::sanitize::line;

#[derive(Debug, Subcommand)]
pub enum PluginsCommand {
    /// List the plugins with their origin, tools, requests and what they get.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Show what a component file requests, its tools and their schemas, before you install it.
    Inspect {
        file: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Grant a plugin capabilities; it gets them only where it also requests them.
    Grant {
        name: String,
        #[command(flatten)]
        flags: GrantFlags,
    },
    /// Take capabilities back (`--all`: the whole grant).
    Revoke {
        name: String,
        #[arg(long)]
        all: bool,
        #[command(flatten)]
        flags: GrantFlags,
    },
    /// Show what a plugin requests, what is granted (and where), and what each tool gets.
    Show {
        name: String,
        #[arg(long)]
        json: bool,
    },
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
    /// Memory cap in MiB.
    #[arg(long)]
    memory_mb: Option<u64>,
    /// Wall-clock deadline of one call, in seconds.
    #[arg(long)]
    timeout_secs: Option<u64>,
    /// Most bytes of output sent to the model.
    #[arg(long)]
    max_output_bytes: Option<u64>,
}

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
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return Err(usage(format!("{name:?} is not an environment variable name")));
            }
        }
        Ok(vec![("files", files), ("network", network), ("env", self.env.clone()), ("processes", self.process.clone())])
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
    match command {
        PluginsCommand::List { json } => list(context, json, &mut out),
        PluginsCommand::Inspect { file, json } => {
            let plugin = Registry::inspect(context.runtime, &file)
                .await
                .map_err(|p| CommandError::Usage(format!("{}: {}", p.path, p.reason)))?;
            if json {
                serde_json::to_writer_pretty(&mut out, &json!({ "file": file, "plugin": plugin.info }))
                    .map_err(std::io::Error::other)?;
                writeln!(out)?;
            } else {
                writeln!(
                    out,
                    "{} {} ({})",
                    line(&plugin.info.name),
                    line(&plugin.info.version),
                    line(&file.display().to_string())
                )?;
                write_tools(&plugin.info, true, &mut out)?;
                writeln!(out, "grants nothing until you run: airlock plugins grant {} …", line(&plugin.info.name))?;
            }
            Ok(())
        }
        PluginsCommand::Grant { name, flags } => change(context, &name, &flags, false),
        PluginsCommand::Revoke { name, all, flags } => {
            if all {
                let plugin = find(context.registry, &name)?;
                let path = policy_path(context, plugin);
                let mut editor = editor(context, plugin, &path)?;
                editor.remove_grant(&name);
                editor.save(source(plugin))?;
                repin(context, plugin)?;
                writeln!(out, "revoked everything granted to {name} in {}", path.display())?;
                if plugin.source.origin == Origin::Builtin {
                    writeln!(out, "(built-in plugins fall back to their default grant: what they request)")?;
                }
                return Ok(());
            }
            change(context, &name, &flags, true)
        }
        PluginsCommand::Show { name, json } => show(context, &name, json, &mut out),
    }
}

fn find<'a>(registry: &'a Registry, name: &str) -> Result<&'a Arc<Plugin>, CommandError> {
    registry.plugins().into_iter().find(|p| p.info.name == name).ok_or_else(|| {
        let known: Vec<&str> = registry.plugins().iter().map(|p| p.info.name.as_str()).collect();
        CommandError::Usage(format!("no plugin named `{name}`; the plugins are: {}", known.join(", ")))
    })
}

fn policy_path(context: &Context<'_>, plugin: &Plugin) -> PathBuf {
    match plugin.source.origin {
        Origin::Workspace => workspace_policy_path(&context.policy.roots().workspace),
        Origin::Builtin | Origin::User => context.paths.policy_file(),
    }
}

/// An editor on the plugin's policy file; a workspace's is read without following links.
fn editor(context: &Context<'_>, plugin: &Plugin, path: &std::path::Path) -> Result<file::Editor, CommandError> {
    Ok(match plugin.source.origin {
        Origin::Workspace => file::Editor::open_workspace(&context.policy.roots().workspace)?,
        Origin::Builtin | Origin::User => file::Editor::open(path)?,
    })
}

fn source(plugin: &Plugin) -> RuleSource {
    if plugin.source.origin == Origin::Workspace { RuleSource::Workspace } else { RuleSource::User }
}

/// Adds (or with `revoke` removes) the flags' capabilities in the plugin's policy file.
fn change(context: &Context<'_>, name: &str, flags: &GrantFlags, revoke: bool) -> Result<(), CommandError> {
    if flags.is_empty() {
        return Err(CommandError::Usage(
            "name what to change: --read, --write, --net, --env, --process, --memory-mb, …".into(),
        ));
    }
    let plugin = find(context.registry, name)?;
    let path = policy_path(context, plugin);
    let (current, from) = context.policy.grant(plugin);
    let mut editor = editor(context, plugin, &path)?;
    // A built-in without a grant of its own has its default: write it out before narrowing.
    if revoke && from.is_none() && plugin.source.origin == Origin::Builtin {
        let files: Vec<String> = current.files.iter().map(FileGrant::to_text).collect();
        editor.add_to_list(name, "files", &files);
        editor.add_to_list(name, "network", &current.network.iter().map(ToString::to_string).collect::<Vec<_>>());
        editor.add_to_list(name, "env", &current.env);
        editor.add_to_list(name, "processes", &current.processes);
    }
    for (key, values) in flags.entries()? {
        if values.is_empty() {
            continue;
        }
        if revoke {
            // `--read src` also takes back `src:read-write`.
            let mut values = values;
            if key == "files" {
                let extra: Vec<String> =
                    values.iter().filter_map(|v| v.strip_suffix(":read").map(|p| format!("{p}:read-write"))).collect();
                values.extend(extra);
            }
            editor.remove_from_list(name, key, &values);
        } else {
            editor.add_to_list(name, key, &values);
        }
    }
    for (key, value) in flags.numbers() {
        if value.is_some() {
            editor.set_number(name, key, if revoke { None } else { value });
        }
    }
    let written = editor.save(source(plugin))?;
    repin(context, plugin)?;
    let mut out = std::io::stdout().lock();
    let grant = written.grants.get(name).cloned().unwrap_or_default();
    writeln!(out, "{} {name} in {}", if revoke { "updated the grant of" } else { "granted" }, path.display())?;
    writeln!(out, "  now granted: {}", describe_grant(&grant))?;
    let requested = Grant::requested_by(&plugin.info.tools);
    if !revoke {
        for (flag, value) in not_requested(&flags_as_grant(flags)?, &requested) {
            writeln!(out, "  note: {name} does not request {flag} {value}; that grant has no effect")?;
        }
    }
    if plugin.source.origin == Origin::Workspace && context.policy_trust()? != TrustStatus::Trusted {
        writeln!(out, "  this workspace is not trusted: the grant takes effect after `airlock trust`")?;
    } else if plugin.source.origin == Origin::Workspace && !context.policy.is_pinned(plugin) {
        writeln!(
            out,
            "  {} is not pinned by this folder's trust: the grant takes effect after `airlock trust`",
            crate::sanitize::line(&plugin.source.display())
        )?;
    }
    Ok(())
}

impl Context<'_> {
    fn policy_trust(&self) -> Result<TrustStatus, CommandError> {
        let store = TrustStore::load(&self.paths.trust_file())?;
        let workspace = &self.policy.roots().workspace;
        Ok(store.status(workspace, &workspace_policy_hash(workspace)?))
    }
}

/// After the user changed a trusted workspace's policy through airlock, keep it trusted
/// (its plugin pins stay as they were: the user reviewed a grant, not new code).
fn repin(context: &Context<'_>, plugin: &Plugin) -> Result<(), CommandError> {
    if plugin.source.origin != Origin::Workspace {
        return Ok(());
    }
    let workspace = &context.policy.roots().workspace;
    let mut store = TrustStore::load(&context.paths.trust_file())?;
    if store.folders().any(|f| f == workspace) && context.policy.workspace_trusted() {
        store.repin_policy(workspace, &workspace_policy_hash(workspace)?);
        store.save()?;
    }
    Ok(())
}

fn flags_as_grant(flags: &GrantFlags) -> Result<Grant, CommandError> {
    let mut grant = Grant::default();
    for (key, values) in flags.entries()? {
        for value in values {
            match key {
                "files" => grant.files.push(FileGrant::parse(&value).map_err(CommandError::Usage)?),
                "network" => grant.network.push(NetRule::parse(&value).map_err(CommandError::Usage)?),
                "env" => grant.env.push(value),
                _ => grant.processes.push(value),
            }
        }
    }
    Ok(grant)
}

/// Parts of `grant` that no request of the plugin asks for, as (flag, value).
fn not_requested(grant: &Grant, requested: &Grant) -> Vec<(&'static str, String)> {
    let mut extra = Vec::new();
    for file in &grant.files {
        let asked = requested.files.iter().any(|r| {
            let (a, b) = (r.path.trim_end_matches('/'), file.path.trim_end_matches('/'));
            a == b || a == "." || b == "." || a.starts_with(&format!("{b}/")) || b.starts_with(&format!("{a}/"))
        });
        if !asked {
            extra.push((if file.access == Access::ReadWrite { "--write" } else { "--read" }, file.path.clone()));
        }
    }
    for rule in &grant.network {
        if capability::net::intersect(&requested.network, std::slice::from_ref(rule)).is_empty() {
            extra.push(("--net", rule.to_string()));
        }
    }
    for var in grant.env.iter().filter(|v| !requested.env.contains(v)) {
        extra.push(("--env", var.clone()));
    }
    extra
}

/// A one-line summary of a grant.
pub fn describe_grant(grant: &Grant) -> String {
    if grant.is_empty() {
        return "nothing".into();
    }
    let mut parts: Vec<String> = grant.files.iter().map(|f| line(&f.to_text())).collect();
    parts.extend(grant.network.iter().map(|n| line(&n.to_string())));
    parts.extend(grant.env.iter().map(|v| format!("env {}", line(v))));
    parts.extend(grant.processes.iter().map(|p| format!("process `{}`", line(p))));
    if let Some(mb) = grant.memory_mb {
        parts.push(format!("memory {mb} MiB"));
    }
    if let Some(secs) = grant.timeout_secs {
        parts.push(format!("timeout {secs} s"));
    }
    if let Some(bytes) = grant.max_output_bytes {
        parts.push(format!("output {bytes} B"));
    }
    parts.join(", ")
}

fn write_tools(info: &PluginInfo, schemas: bool, out: &mut impl Write) -> std::io::Result<()> {
    for tool in &info.tools {
        writeln!(out, "  tool {} ({}) — {}", line(&tool.name), tool.kind.as_str(), line(&tool.display_name))?;
        let caps = &tool.capabilities;
        let mut requests: Vec<String> = caps
            .files
            .iter()
            .map(|f| {
                let access = if f.access == Access::ReadWrite { "write" } else { "read" };
                format!("{access} {}", crate::sanitize::shell_word(&line(&f.path)))
            })
            .collect();
        requests.extend(caps.network.iter().map(|n| format!("net {}", line(n))));
        requests.extend(caps.env.iter().map(|e| format!("env {}", line(e))));
        requests.extend(caps.processes.iter().map(|p| format!("process `{}`", line(p))));
        writeln!(out, "    requests: {}", if requests.is_empty() { "nothing".into() } else { requests.join(", ") })?;
        if schemas {
            let schema = crate::sanitize::line_bounded(&tool.parameters.to_string(), crate::registry::MAX_SCHEMA);
            writeln!(out, "    parameters: {schema}")?;
        }
    }
    Ok(())
}

fn origin_name(origin: Origin) -> &'static str {
    match origin {
        Origin::Builtin => "built-in",
        Origin::User => "user",
        Origin::Workspace => "workspace",
    }
}

fn list(context: &Context<'_>, json: bool, out: &mut impl Write) -> Result<(), CommandError> {
    let plugins = context.registry.plugins();
    if json {
        let value: Vec<_> = plugins.iter().map(|p| plugin_json(context, p)).collect();
        let value = json!({ "plugins": value, "problems": context.registry.problems });
        serde_json::to_writer_pretty(&mut *out, &value).map_err(std::io::Error::other)?;
        writeln!(out)?;
        return Ok(());
    }
    for plugin in plugins {
        let (grant, _) = context.policy.grant(plugin);
        writeln!(
            out,
            "{} {} [{}] {}",
            line(&plugin.info.name),
            line(&plugin.info.version),
            origin_name(plugin.source.origin),
            line(&plugin.source.display())
        )?;
        let tools: Vec<&str> = plugin.info.tools.iter().map(|t| t.name.as_str()).collect();
        writeln!(out, "  tools: {}", line(&tools.join(", ")))?;
        writeln!(out, "  granted: {}", describe_grant(&grant))?;
    }
    for problem in &context.registry.problems {
        writeln!(out, "problem: {}: {}", line(&problem.path), line(&problem.reason))?;
    }
    Ok(())
}

fn plugin_json(context: &Context<'_>, plugin: &Plugin) -> serde_json::Value {
    let (grant, from) = context.policy.grant(plugin);
    let tools: Vec<_> = plugin
        .info
        .tools
        .iter()
        .map(|tool| {
            let effective = context.policy.effective(plugin, tool);
            json!({
                "name": tool.name,
                "kind": tool.kind,
                "requests": tool.capabilities,
                "gets": {
                    "files": effective.files.iter().map(|(p, a)| json!({"path": p, "access": a})).collect::<Vec<_>>(),
                    "network": effective.network.iter().map(ToString::to_string).collect::<Vec<_>>(),
                    "env": effective.env,
                    "processes": effective.processes,
                },
                "missing": effective.missing,
            })
        })
        .collect();
    json!({
        "name": plugin.info.name,
        "version": plugin.info.version,
        "origin": plugin.source.origin,
        "file": plugin.source.display(),
        "granted": grant,
        "granted_by": from.map(|p| p.display().to_string()).unwrap_or_else(|| "built-in default".into()),
        "tools": tools,
    })
}

fn show(context: &Context<'_>, name: &str, json: bool, out: &mut impl Write) -> Result<(), CommandError> {
    let plugin = find(context.registry, name)?;
    if json {
        serde_json::to_writer_pretty(&mut *out, &plugin_json(context, plugin)).map_err(std::io::Error::other)?;
        writeln!(out)?;
        return Ok(());
    }
    let (grant, from) = context.policy.grant(plugin);
    writeln!(
        out,
        "{} {} [{}] {}",
        line(&plugin.info.name),
        line(&plugin.info.version),
        origin_name(plugin.source.origin),
        line(&plugin.source.display())
    )?;
    let from = from.map(|p| p.display().to_string()).unwrap_or_else(|| "its built-in default".into());
    writeln!(out, "granted ({}): {}", line(&from), describe_grant(&grant))?;
    write_tools(&plugin.info, false, out)?;
    for tool in &plugin.info.tools {
        let effective = context.policy.effective(plugin, tool);
        let mut gets: Vec<String> = effective
            .files
            .iter()
            .map(|(p, a)| {
                let access = if *a == Access::ReadWrite { "write" } else { "read" };
                format!("{access} {}", line(&p.display().to_string()))
            })
            .collect();
        gets.extend(effective.network.iter().map(|n| format!("net {}", line(&n.to_string()))));
        gets.extend(effective.env.iter().map(|e| format!("env {}", line(e))));
        let gets = if gets.is_empty() { "nothing".into() } else { gets.join(", ") };
        writeln!(out, "  {} gets: {gets}", line(&tool.name))?;
        if !effective.missing.is_empty() {
            // Each entry is already a quoted shell word (capability::effective).
            let rest = line(&effective.missing.join(" "));
            writeln!(out, "    to grant the rest: airlock plugins grant {} {rest}", line(name))?;
        }
    }
    Ok(())
}
