//! `airlock tools list`: every tool with its plugin file, kind and schema, and every plugin
//! that could not be loaded. The text listing passes every plugin-written field through
//! [`crate::sanitize`]; the JSON listing is data.

use std::io::{self, Write};

use serde_json::json;

use crate::registry::Registry;
use crate::sanitize::line;

/// Human-readable listing.
pub fn text(registry: &Registry, out: &mut impl Write) -> io::Result<()> {
    for tool in registry.tools() {
        let info = &tool.info;
        writeln!(out, "{} ({}) — {}", line(&info.name), info.kind.as_str(), line(&info.display_name))?;
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
        let schema = crate::sanitize::line_bounded(&info.parameters.to_string(), crate::registry::MAX_SCHEMA);
        writeln!(out, "  parameters: {schema}")?;
    }
    for problem in &registry.problems {
        writeln!(out, "problem: {}: {}", line(&problem.path), line(&problem.reason))?;
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
