//! The checks an MCP server's tool passes before it is offered to the model, as a plugin's
//! self-description is checked ([`crate::registry`]): its name (as `NAME__tool`, within what
//! model APIs take), its description (size; control characters, terminal escapes, bidi and
//! invisible characters removed), its input schema (size, depth, node count: schema bombs;
//! a valid JSON Schema of an object). A tool that fails is skipped with the reason; the
//! server's other tools stay. What one server may declare in all is bounded too.

use airlock_mcp::ServerTool;

use crate::registry::{MAX_DECLARED, MAX_DESCRIPTION, check_schema};
use crate::sanitize;

/// Most tools offered from one server.
pub const MAX_SERVER_TOOLS: usize = 128;
pub use crate::policy::mcp_grant::MAX_OFFERED_NAME;

/// A server's tool as the model is offered it.
#[derive(Debug, Clone, PartialEq)]
pub struct OfferedTool {
    /// `NAME__tool`.
    pub name: String,
    /// The server's own name of the tool.
    pub tool: String,
    pub description: String,
    pub parameters: serde_json::Value,
}

/// A tool that was not offered, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedTool {
    /// The server's name of it (sanitised for display).
    pub tool: String,
    pub reason: String,
}

/// Checks every tool of server `server`: the ones offered, in the server's order, and the
/// ones skipped with their reasons. `wanted` says which the user's config keeps.
pub fn check_tools(
    server: &str,
    tools: &[ServerTool],
    wanted: impl Fn(&str) -> bool,
) -> (Vec<OfferedTool>, Vec<SkippedTool>) {
    let mut offered: Vec<OfferedTool> = Vec::new();
    let mut skipped = Vec::new();
    let mut declared = 0usize;
    for tool in tools {
        let skip = |reason: String| SkippedTool { tool: sanitize::line(&tool.name), reason };
        if !wanted(&tool.name) {
            continue;
        }
        let checked = check_tool(server, tool).and_then(|checked| {
            if offered.iter().any(|o| o.name == checked.name) {
                return Err("the server declares it twice".to_owned());
            }
            if offered.len() >= MAX_SERVER_TOOLS {
                return Err(format!("the server offers more than {MAX_SERVER_TOOLS} tools"));
            }
            let size = checked.description.len() + checked.parameters.to_string().len();
            if declared + size > MAX_DECLARED {
                return Err(format!("the server's tools declare more than {} KiB in all", MAX_DECLARED / 1024));
            }
            declared += size;
            Ok(checked)
        });
        match checked {
            Ok(checked) => offered.push(checked),
            Err(reason) => skipped.push(skip(reason)),
        }
    }
    (offered, skipped)
}

/// One tool's checks.
pub fn check_tool(server: &str, tool: &ServerTool) -> Result<OfferedTool, String> {
    let name = format!("{server}__{}", tool.name);
    let valid = !tool.name.is_empty()
        && tool.name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        && name.len() <= MAX_OFFERED_NAME;
    if !valid {
        return Err(format!(
            "its name is not one a model can call: `{server}__<name>` must have at most {MAX_OFFERED_NAME} of \
             A-Z, a-z, 0-9, '_' or '-'"
        ));
    }
    if tool.description.len() > MAX_DESCRIPTION {
        return Err(format!(
            "its description has {} bytes; at most {MAX_DESCRIPTION} are allowed",
            tool.description.len()
        ));
    }
    let description: String = tool
        .description
        .chars()
        .filter(|c| *c == '\n' || !sanitize::is_hidden(*c))
        .collect::<String>()
        .trim()
        .to_owned();
    let description = if description.is_empty() {
        let title = tool.title.as_deref().map(sanitize::line).unwrap_or_default();
        if title.is_empty() { format!("The tool {} of the MCP server {server}.", tool.name) } else { title }
    } else {
        description
    };
    check_schema(&name, &tool.input_schema)?;
    Ok(OfferedTool { name, tool: tool.name.clone(), description, parameters: tool.input_schema.clone() })
}

#[cfg(test)]
#[path = "checks_tests.rs"]
mod tests;
