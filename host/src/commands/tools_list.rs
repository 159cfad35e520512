//! `airlock tools list`: every tool with its plugin file, kind and schema, every plugin
//! that could not be loaded, and the tools of the MCP servers (each server started once to
//! list them, as `airlock mcp list` does), marked with their server and its grant. The text
//! listing passes every plugin- or server-written field through [`airlock_engine::sanitize`];
//! the JSON listing is data.

use std::io::{self, Write};

use super::json;
use airlock_engine::mcp::{ConfiguredServer, Probe};
use airlock_engine::registry::Registry;
use airlock_engine::sanitize::line;

/// Human-readable listing.
pub fn text(
    registry: &Registry,
    policy: &airlock_engine::policy::Policy,
    servers: &[(ConfiguredServer, Probe)],
    out: &mut impl Write,
) -> io::Result<()> {
    for tool in registry.tools() {
        let info = &tool.info;
        writeln!(out, "{} ({}) — {}", line(&info.name), info.kind.as_str(), line(&info.display_name))?;
        if info.name == airlock_engine::policy::WEB_SEARCH_TOOL && policy.search().is_none() {
            writeln!(out, "  not offered to the model: {}", NOT_CONFIGURED)?;
        }
        writeln!(
            out,
            "  plugin: {} {} · {}",
            line(&tool.plugin.info.name),
            line(&tool.plugin.info.version),
            line(&tool.plugin.source.display())
        )?;
        let description = info.description.lines().next().unwrap_or_default();
        writeln!(out, "  {}", line(description))?;
        // The schema is reviewed whole: bounded only by the size a schema may have.
        let schema =
            airlock_engine::sanitize::line_bounded(&info.parameters.to_string(), airlock_engine::registry::MAX_SCHEMA);
        writeln!(out, "  parameters: {schema}")?;
    }
    for (server, probe) in servers {
        for tool in &probe.offered {
            writeln!(out, "{} (execute) — {}", line(&tool.name), line(&tool.tool))?;
            writeln!(out, "  {}", line(&server.marker()))?;
            writeln!(out, "  {}", line(tool.description.lines().next().unwrap_or_default()))?;
            let schema = airlock_engine::sanitize::line_bounded(
                &tool.parameters.to_string(),
                airlock_engine::registry::MAX_SCHEMA,
            );
            writeln!(out, "  parameters: {schema}")?;
        }
    }
    for problem in &registry.problems {
        writeln!(out, "problem: {}: {}", line(&problem.path), line(&problem.reason))?;
    }
    for (server, probe) in servers {
        if let airlock_engine::mcp::ProbeState::Failed(reason) = &probe.state {
            writeln!(out, "problem: MCP server {}: {}", line(&server.name), line(reason))?;
        }
    }
    Ok(())
}

/// Why `web_search` is not offered, and what to do.
pub const NOT_CONFIGURED: &str = "no search API is configured; add [tools.web_search] to config.toml \
    (provider = \"brave\" | \"tavily\" | \"searxng\", url, key_env)";

/// One JSON object: [`json::ToolList`].
pub fn json(registry: &Registry, servers: &[(ConfiguredServer, Probe)], out: &mut impl Write) -> io::Result<()> {
    let tools = registry
        .tools()
        .iter()
        .map(|tool| json::ToolEntry {
            capabilities: &tool.info.capabilities,
            description: &tool.info.description,
            display_name: &tool.info.display_name,
            kind: tool.info.kind,
            name: &tool.info.name,
            parallel_safe: tool.info.parallel_safe,
            parameters: &tool.info.parameters,
            plugin: json::PluginRef {
                file: tool.plugin.source.display(),
                name: &tool.plugin.info.name,
                origin: tool.plugin.source.origin,
                version: &tool.plugin.info.version,
            },
            streams_output: tool.info.streams_output,
        })
        .collect();
    let mcp_tools = servers
        .iter()
        .flat_map(|(server, probe)| {
            probe.offered.iter().map(move |tool| json::McpToolEntry {
                description: &tool.description,
                marker: server.marker(),
                name: &tool.name,
                parameters: &tool.parameters,
                server: &server.name,
                tool: &tool.tool,
            })
        })
        .collect();
    json::write_pretty(out, &json::ToolList { mcp_tools, problems: &registry.problems, tools })
}
