//! Issue 27's prompts: context files by name (`AGENTS.md`, `[context] file_names`), custom
//! commands in Claude Code's format run with `airlock -p "/NAME ARGS"`, and skills whose
//! body reaches the model only once it activates one. The real binary against the scripted
//! mock model; what the model got is read from its request log.

mod commands;
mod context;

use serde_json::Value;

/// The system prompt of a request, on any wire.
fn system_of(body: &Value) -> String {
    let text = if body.get("systemInstruction").is_some() {
        &body["systemInstruction"]["parts"][0]["text"]
    } else if body["messages"][0]["role"] == "system" {
        &body["messages"][0]["content"]
    } else {
        &body["system"]
    };
    text.as_str().unwrap_or_default().to_owned()
}

/// The whole request as text, system prompt included (JSON-escaped).
fn body_text(body: &Value) -> String {
    body.to_string()
}
