//! `airlock tools list`: every tool with its plugin file, kind and schema, and every plugin
//! that could not be loaded.

use std::io::{self, Write};

use serde_json::json;

use crate::registry::Registry;

/// Human-readable listing.
pub fn text(registry: &Registry, out: &mut impl Write) -> io::Result<()> {
    for tool in registry.tools() {
        let info = &tool.info;
        writeln!(out, "{} ({}) — {}", info.name, info.kind.as_str(), info.display_name)?;
        writeln!(
            out,
            "  plugin: {} {} · {}",
            tool.plugin.info.name,
            tool.plugin.info.version,
            tool.plugin.source.display()
        )?;
        let description = info.description.lines().next().unwrap_or_default();
        writeln!(out, "  {description}")?;
        writeln!(out, "  parameters: {}", info.parameters)?;
    }
    for problem in &registry.problems {
        writeln!(out, "problem: {}: {}", problem.path, problem.reason)?;
    }
    Ok(())
}

/// One JSON object: `{"tools": [...], "problems": [...]}`.
pub fn json(registry: &Registry, out: &mut impl Write) -> io::Result<()> {
    let tools: Vec<_> = registry
        .tools()
        .iter()
        .map(|tool| {
            json!({
                "name": tool.info.name,
                "display_name": tool.info.display_name,
                "description": tool.info.description,
                "kind": tool.info.kind,
                "parallel_safe": tool.info.parallel_safe,
                "streams_output": tool.info.streams_output,
                "parameters": tool.info.parameters,
                "capabilities": tool.info.capabilities,
                "plugin": {
                    "name": tool.plugin.info.name,
                    "version": tool.plugin.info.version,
                    "origin": tool.plugin.source.origin,
                    "file": tool.plugin.source.display(),
                },
            })
        })
        .collect();
    let value = json!({ "tools": tools, "problems": registry.problems });
    serde_json::to_writer_pretty(&mut *out, &value)?;
    writeln!(out)
}
