//! The session's tools as MCP tools: name, description, input schema, and the annotations
//! their kind implies. Annotations are hints for the client's user interface, never a
//! guarantee (the MCP specification says so too): what a call may do is decided by the
//! session's policy and grants, whatever a client believes.

use std::sync::Arc;

use airlock_protocol::ServedTool;
use rmcp::model::{JsonObject, Tool, ToolAnnotations};

/// `tool` as MCP lists it.
pub(super) fn tool(tool: &ServedTool) -> Tool {
    let schema: JsonObject = match &tool.input_schema {
        serde_json::Value::Object(object) => object.clone(),
        // The registry only loads object schemas; an empty object schema keeps the listing valid.
        _ => JsonObject::from_iter([("type".to_owned(), serde_json::Value::from("object"))]),
    };
    let mut annotations = annotations(&tool.kind, tool.network);
    if !tool.title.is_empty() {
        annotations.title = Some(tool.title.to_string());
    }
    Tool::new(tool.name.clone(), tool.description.to_string(), Arc::new(schema)).with_annotations(annotations)
}

/// The hints a tool of `kind` gets: read-only kinds are read-only, edits, deletes and moves
/// destructive, a web search or fetch open-world, a command both destructive and open-world.
pub(super) fn annotations(kind: &str, network: bool) -> ToolAnnotations {
    let hints = ToolAnnotations::new();
    match kind {
        "read" | "think" => hints.read_only(true).destructive(false).open_world(false),
        "search" => hints.read_only(true).destructive(false).open_world(network),
        "fetch" => hints.read_only(true).destructive(false).open_world(true),
        "edit" | "delete" | "move" => hints.read_only(false).destructive(true).open_world(network),
        "execute" => hints.read_only(false).destructive(true).open_world(true),
        // `other`: no claim either way (MCP then assumes the worst).
        _ => hints,
    }
}
