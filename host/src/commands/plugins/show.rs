//! `airlock plugins list` and `show`: what each plugin requests, what the policy grants it
//! ([`airlock_engine::policy::Policy::grant`], the same answer the runtime uses — a built-in's
//! default lists included and marked `(default)`), and what each tool gets.

use std::io::Write;

use super::{Context, find};
use crate::commands::CommandError;
use crate::commands::json;
use airlock_engine::capability::diff::Requests;
use airlock_engine::capability::{Grant, kinds};
use airlock_engine::contract::Access;
use airlock_engine::paths::Paths;
use airlock_engine::policy::Granted;
use airlock_engine::policy::file::Parts;
use airlock_engine::registry::lock::{Entry, Lock, WorkspaceRecords};
use airlock_engine::registry::{Origin, Plugin};
use airlock_engine::sanitize::line;

/// A one-line summary of a grant.
pub fn describe_grant(grant: &Grant) -> String {
    describe(grant, Parts::default())
}

/// A one-line summary of what a plugin is granted, the built-in's default lists marked.
pub fn describe_granted(granted: &Granted<'_>) -> String {
    describe(&granted.grant, granted.defaults)
}

fn describe(grant: &Grant, defaults: Parts) -> String {
    if grant.is_empty() {
        return "nothing".into();
    }
    let mark = |default: bool| if default { " (default)" } else { "" };
    let mut parts: Vec<String> =
        grant.files.iter().map(|f| format!("{}{}", line(&f.to_text()), mark(defaults.files))).collect();
    parts.extend(grant.network.iter().map(|n| format!("{}{}", line(&n.to_string()), mark(defaults.network))));
    parts.extend(grant.env.iter().map(|v| format!("env {}{}", line(v), mark(defaults.env))));
    parts.extend(grant.processes.iter().map(|p| format!("process `{}`{}", line(p), mark(defaults.processes))));
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

/// Where a plugin's grant comes from, for `show`.
fn granted_by(plugin: &Plugin, granted: &Granted<'_>) -> String {
    let file = granted.file.map(|p| p.display().to_string());
    match (plugin.source.origin, file) {
        (Origin::Builtin, None) if plugin.info.name == airlock_engine::capability::search::PLUGIN => {
            "its built-in default: the search API of [tools.web_search] in config.toml".into()
        }
        (Origin::Builtin, None) if plugin.info.name == airlock_engine::policy::SHELL_PLUGIN => {
            "its built-in default: what it requests but the network and folders of your home, which only \
             a grant of yours gives its commands"
                .into()
        }
        (Origin::Builtin, None) => "its built-in default: what it requests".into(),
        (Origin::Builtin, Some(file)) if !granted.defaults.is_empty() => {
            format!("{file}; (default) marks what the built-in requests, kept until its table sets that list")
        }
        (_, Some(file)) => file,
        (_, None) => "nothing may grant it".into(),
    }
}

/// What `plugin` offers and requests: its tools, or, for a hook component, when it runs (its
/// one entry holds the hook's requests and is never offered to the model).
pub(super) fn write_tools(plugin: &Plugin, schemas: bool, out: &mut impl Write) -> std::io::Result<()> {
    for tool in &plugin.info.tools {
        match &plugin.hook {
            Some(hook) => {
                let events: Vec<&str> = hook.events.iter().map(|event| event.as_str()).collect();
                let tools = hook.tools.as_deref().map_or("every tool".to_string(), line);
                writeln!(out, "  hook, runs at {} (tools: {tools}); never offered to the model", events.join(", "))?;
            }
            None => {
                let (name, kind, display) = (line(&tool.name), tool.kind.as_str(), line(&tool.display_name));
                writeln!(out, "  tool {name} ({kind}) — {display}")?;
            }
        }
        let caps = &tool.capabilities;
        let mut requests: Vec<String> = caps
            .files
            .iter()
            .map(|f| {
                let access = if f.access == Access::ReadWrite { "write" } else { "read" };
                let request = format!("{access} {}", airlock_engine::sanitize::shell_word(&line(&f.path)));
                // Shown as asked, and said what it can be: a read-only kind never writes.
                if f.access == Access::ReadWrite && !kinds::writes_files(tool.kind) {
                    format!("{request} (never given: `{}` tools only read, so at most read)", tool.kind.as_str())
                } else {
                    request
                }
            })
            .collect();
        requests.extend(caps.network.iter().map(|n| format!("net {}", line(n))));
        requests.extend(caps.env.iter().map(|e| format!("env {}", line(e))));
        requests.extend(caps.processes.iter().map(|p| format!("process `{}`", line(p))));
        writeln!(out, "    requests: {}", if requests.is_empty() { "nothing".into() } else { requests.join(", ") })?;
        if schemas && plugin.hook.is_none() {
            let schema = airlock_engine::sanitize::line_bounded(
                &tool.parameters.to_string(),
                airlock_engine::registry::MAX_SCHEMA,
            );
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

pub(super) fn list(context: &Context<'_>, json: bool, out: &mut impl Write) -> Result<(), CommandError> {
    let plugins = context.registry.plugins();
    if json {
        let plugins = plugins.iter().map(|p| plugin_json(context, p)).collect();
        json::write_pretty(out, &json::PluginList { plugins, problems: &context.registry.problems })?;
        return Ok(());
    }
    for plugin in plugins {
        writeln!(out, "{}", header(plugin))?;
        if let Some(pin) = super::fetch::oci_pin(context, plugin) {
            writeln!(out, "  from: {}", super::fetch::describe_pin(&pin))?;
        }
        let tools: Vec<&str> = plugin.info.tools.iter().map(|t| t.name.as_str()).collect();
        writeln!(out, "  tools: {}", line(&tools.join(", ")))?;
        writeln!(out, "  granted: {}", describe_granted(&context.policy.grant(plugin)))?;
        if let Some(signature) = lock_entry(plugin, context.paths).and_then(|e| e.signature) {
            writeln!(out, "  signed by: {}", line(&signature.signer))?;
        }
    }
    for problem in &context.registry.problems {
        writeln!(out, "problem: {}: {}", line(&problem.path), line(&problem.reason))?;
    }
    Ok(())
}

fn plugin_json<'a>(context: &Context<'_>, plugin: &'a Plugin) -> json::PluginView<'a> {
    let granted = context.policy.grant(plugin);
    let tools = plugin
        .info
        .tools
        .iter()
        .map(|tool| {
            let effective = context.policy.effective(plugin, tool);
            json::ToolAccess {
                gets: json::Gets {
                    env: effective.env,
                    files: effective
                        .files
                        .into_iter()
                        .map(|(path, access)| json::FileAccess { access, path })
                        .collect(),
                    network: effective.network.iter().map(ToString::to_string).collect(),
                    processes: effective.processes,
                },
                kind: tool.kind,
                missing: effective.missing,
                name: &tool.name,
                requests: &tool.capabilities,
            }
        })
        .collect();
    let granted_by = match (plugin.source.origin, granted.file) {
        (_, Some(file)) => file.display().to_string(),
        (Origin::Builtin, None) => "built-in default".into(),
        (_, None) => "nothing".into(),
    };
    json::PluginView {
        defaults: granted.defaults.keys(),
        file: plugin.source.display(),
        granted: granted.grant,
        granted_by,
        name: &plugin.info.name,
        oci: super::fetch::oci_pin(context, plugin),
        origin: plugin.source.origin,
        tools,
        version: &plugin.info.version,
    }
}

pub(super) fn show(context: &Context<'_>, name: &str, json: bool, out: &mut impl Write) -> Result<(), CommandError> {
    let plugin = find(context, name)?;
    if json {
        json::write_pretty(out, &plugin_json(context, plugin))?;
        return Ok(());
    }
    let granted = context.policy.grant(plugin);
    writeln!(out, "{}", header(plugin))?;
    if let Some(pin) = super::fetch::oci_pin(context, plugin) {
        writeln!(out, "from {}", super::fetch::describe_pin(&pin))?;
    }
    writeln!(out, "granted ({}): {}", line(&granted_by(plugin, &granted)), describe_granted(&granted))?;
    write_signature(plugin, context.paths, out)?;
    write_tools(plugin, false, out)?;
    write_gets(context, plugin, None, out)?;
    Ok(())
}

/// What each tool of `plugin` gets under the policy, and the grant command for the rest.
/// `record`, when given, stands for the grant's record of approved requests (one written
/// after the policy was loaded).
pub(super) fn write_gets(
    context: &Context<'_>,
    plugin: &std::sync::Arc<Plugin>,
    record: Option<&Requests>,
    out: &mut impl Write,
) -> std::io::Result<()> {
    for tool in &plugin.info.tools {
        let effective = match record {
            Some(record) => context.policy.effective_recorded(plugin, tool, Some(record)),
            None => context.policy.effective(plugin, tool),
        };
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
        gets.extend(effective.processes.iter().map(|p| match p.as_str() {
            "*" => "process `*` (the command line approved for each call)".to_string(),
            prefix => format!("process `{}`", line(prefix)),
        }));
        let gets = if gets.is_empty() { "nothing".into() } else { gets.join(", ") };
        writeln!(out, "  {} gets: {gets}", line(&tool.name))?;
        if !effective.missing.is_empty() || !effective.unapproved.is_empty() {
            // The hint's values are quoted shell words (capability::effective).
            writeln!(out, "    {}", line(&context.policy.grant_hint(plugin, tool, &effective, "the rest")))?;
        }
    }
    Ok(())
}

/// The `plugins.lock` entry of an installed plugin's file, if it has one.
fn lock_entry(plugin: &Plugin, paths: &Paths) -> Option<Entry> {
    if plugin.source.origin == Origin::Builtin {
        return None;
    }
    let dir = plugin.source.path.parent()?;
    let lock = Lock::read(dir).ok()?;
    let lock = if plugin.source.origin == Origin::Workspace {
        // A workspace lock's signatures are the repository's word: only the user's records count.
        lock.vouched(dir, WorkspaceRecords::read(&paths.home).ok().as_ref())
    } else {
        lock
    };
    lock.entry(&plugin.source.file_name()).cloned()
}

/// Who signed the plugin and what was verified when it was installed (its lock entry). A
/// signature says who published it, not that it is safe: the grants above decide what it does.
fn write_signature(plugin: &Plugin, paths: &Paths, out: &mut impl Write) -> std::io::Result<()> {
    if plugin.source.origin == Origin::Builtin {
        return Ok(());
    }
    match lock_entry(plugin, paths) {
        Some(Entry { signature: Some(signature), .. }) => {
            writeln!(out, "signed by: {}", line(&signature.signer))?;
            writeln!(out, "verified: {} (when it was installed)", line(&signature.verified))
        }
        Some(_) if plugin.source.origin == Origin::Workspace => writeln!(
            out,
            "signed: no (no signature verified for you by `airlock plugins install --in-workspace`; \
             the workspace's own plugins.lock is not taken as proof)"
        ),
        Some(_) => writeln!(out, "signed: no (installed without a signature)"),
        None => writeln!(out, "signed: no (not installed with `airlock plugins install`)"),
    }
}

/// A plugin's first line: name, version, origin and file.
fn header(plugin: &Plugin) -> String {
    format!(
        "{} {} [{}] {}",
        line(&plugin.info.name),
        line(&plugin.info.version),
        origin_name(plugin.source.origin),
        line(&plugin.source.display())
    )
}
