//! `airlock mcp list` and `show`: each configured server started once, the way a session
//! starts it (its sandbox, its grant, its checks), to say whether it starts, which tools it
//! would offer as `NAME__tool` and which it skips and why, beside where it is configured and
//! what it may do. All servers are started at once, so one that hangs costs its start-up
//! timeout once, not once per server.
//!
//! Invariant: every string a server or a config file supplied is printed through
//! [`line`] (one line, escapes and hidden characters shown, never obeyed).

use std::io::Write;

use super::{Context, configured, find};
use crate::commands::CommandError;
use crate::commands::json::{self, McpServerList, McpServerView, McpSkipped, McpTool};
use airlock_engine::mcp::{self, ConfiguredServer, Probe, ProbeState};
use airlock_engine::sanitize::line;

/// Every configured server, started at once, with what starting it found.
pub async fn probe_all(context: &Context<'_>) -> Result<Vec<(ConfiguredServer, Probe)>, CommandError> {
    let servers = configured(context)?;
    let probes = futures_util::future::join_all(
        servers.iter().map(|s| mcp::probe(context.paths, context.workspace, s, &context.helper)),
    )
    .await;
    Ok(servers.into_iter().zip(probes).collect())
}

pub(super) async fn list(context: &Context<'_>, as_json: bool, out: &mut impl Write) -> Result<(), CommandError> {
    let probed = probe_all(context).await?;
    let views: Vec<McpServerView> = probed.iter().map(|(s, p)| view(s, p)).collect();
    if as_json {
        json::write_pretty(out, &McpServerList { servers: views })?;
        return Ok(());
    }
    if views.is_empty() {
        writeln!(out, "no MCP servers: add one with `airlock mcp add NAME -- COMMAND ARGS…`")?;
    }
    for (index, view) in views.iter().enumerate() {
        if index > 0 {
            writeln!(out)?;
        }
        write_server(view, false, out)?;
    }
    Ok(())
}

pub(super) async fn show(
    context: &Context<'_>,
    name: &str,
    as_json: bool,
    out: &mut impl Write,
) -> Result<(), CommandError> {
    let server = find(context, name)?;
    let probe = mcp::probe(context.paths, context.workspace, &server, &context.helper).await;
    let view = view(&server, &probe);
    if as_json {
        json::write_pretty(out, &view)?;
        return Ok(());
    }
    write_server(&view, true, out)?;
    Ok(())
}

fn view(server: &ConfiguredServer, probe: &Probe) -> McpServerView {
    let (state, error) = match &probe.state {
        ProbeState::Started => ("started", None),
        ProbeState::Disabled => ("disabled", None),
        ProbeState::Failed(reason) => ("failed", Some(reason.clone())),
    };
    let command =
        server.config.command.as_ref().map(|c| std::iter::once(c).chain(&server.config.args).cloned().collect());
    McpServerView {
        command,
        config_file: server.config_file.clone(),
        error,
        grant: server.grant.clone(),
        grant_file: server.grant_file.clone(),
        marker: server.marker(),
        name: server.name.clone(),
        scope: server.scope,
        skipped: probe.skipped.iter().map(|s| McpSkipped { reason: s.reason.clone(), tool: s.tool.clone() }).collect(),
        state,
        tools: probe
            .offered
            .iter()
            .map(|t| McpTool { description: t.description.clone(), name: t.name.clone(), tool: t.tool.clone() })
            .collect(),
        url: server.config.url.clone(),
        warnings: probe.warnings.clone(),
    }
}

/// One server in text; `detail` adds each tool's description.
fn write_server(view: &McpServerView, detail: bool, out: &mut impl Write) -> std::io::Result<()> {
    let scope = match view.scope {
        mcp::Scope::User => "user",
        mcp::Scope::Workspace => "workspace",
    };
    writeln!(
        out,
        "{}  {}  ({scope}: {})",
        line(&view.name),
        view.state,
        line(&view.config_file.display().to_string())
    )?;
    if let Some(error) = &view.error {
        writeln!(out, "  error: {}", line(error))?;
    }
    if let Some(command) = &view.command {
        let words: Vec<String> = command.iter().map(|w| airlock_engine::sanitize::shell_word(w)).collect();
        writeln!(out, "  runs: {}", line(&words.join(" ")))?;
    }
    if let Some(url) = &view.url {
        writeln!(out, "  url: {}", line(url))?;
    }
    if view.url.is_some() {
        // A remote service: no sandbox of this machine holds it, so no grant is shown as if one did.
        writeln!(out, "  remote: it runs on its own machine, not in airlock's sandbox; no grant applies")?;
    } else {
        writeln!(
            out,
            "  sandboxed: {}  (grant in {})",
            view.grant.describe(),
            line(&view.grant_file.display().to_string())
        )?;
    }
    if view.state == "started" {
        let names: Vec<String> = view.tools.iter().map(|t| line(&t.name)).collect();
        let listed = if names.is_empty() { "none".to_string() } else { names.join(", ") };
        writeln!(out, "  tools ({}): {listed}", names.len())?;
    }
    if detail {
        for tool in &view.tools {
            let first = tool.description.lines().next().unwrap_or_default();
            writeln!(out, "    {}: {}", line(&tool.name), line(first))?;
        }
    }
    for skipped in &view.skipped {
        writeln!(out, "  skipped: {} ({})", line(&skipped.tool), line(&skipped.reason))?;
    }
    for warning in &view.warnings {
        writeln!(out, "  warning: {}", line(warning))?;
    }
    Ok(())
}
