//! Checks a plugin's self-description before any of its tools is offered to the model. A
//! description is untrusted input: names, sizes and schemas are all verified, and the first
//! problem found is reported with what to fix.
//!
//! Invariants: a plugin's tools declare at most [`MAX_DECLARED`] bytes of descriptions and
//! schemas in total (they are sent with every model request); every schema's expanded cost is
//! bounded and it refers to nothing outside itself ([`schema`]); a requested path contains no
//! control, bidi or invisible character (so it can be shown and pasted as one argument), and
//! a network request parses as a rule.

mod schema;

use std::collections::HashSet;

use crate::capability::net::NetRule;
use crate::contract::{Capabilities, HookInfo, Kind, PluginInfo, ToolInfo};
use crate::sanitize;

/// Most tools one component may declare.
pub const MAX_TOOLS: usize = 64;
/// Largest accepted description of a tool, in bytes.
pub const MAX_DESCRIPTION: usize = 16 * 1024;
/// Largest accepted parameter schema, in bytes of JSON.
pub const MAX_SCHEMA: usize = 64 * 1024;
/// Most bytes of descriptions and schemas one plugin may declare over all its tools.
pub const MAX_DECLARED: usize = 256 * 1024;

/// The bytes a plugin's tools add to every model request: descriptions and schemas.
pub fn declared_bytes(info: &PluginInfo) -> usize {
    info.tools
        .iter()
        .map(|tool| {
            let schema = serde_json::to_vec(&tool.parameters).map_or(usize::MAX, |json| json.len());
            tool.description.len().saturating_add(tool.display_name.len()).saturating_add(schema)
        })
        .fold(0, usize::saturating_add)
}

/// Returns the first problem with a self-description, if any.
pub fn check(info: &PluginInfo) -> Result<(), String> {
    if !is_name(&info.name, true) {
        return Err(format!(
            "plugin name {:?} is invalid: use 1-63 lowercase letters, digits, '_' or '-', starting with a letter",
            excerpt(&info.name)
        ));
    }
    if info.version.is_empty() || info.version.len() > 64 {
        return Err(format!("plugin version {:?} is invalid: give a semver version", excerpt(&info.version)));
    }
    if info.tools.is_empty() {
        return Err("the plugin declares no tools".into());
    }
    if info.tools.len() > MAX_TOOLS {
        return Err(format!("the plugin declares {} tools; at most {MAX_TOOLS} are allowed", info.tools.len()));
    }
    let mut seen = HashSet::new();
    for tool in &info.tools {
        let name = &tool.name;
        if !is_name(name, false) {
            return Err(format!("tool name {:?} is invalid: it must match ^[a-z][a-z0-9_]{{0,62}}$", excerpt(name)));
        }
        if !seen.insert(name.as_str()) {
            return Err(format!("tool `{name}` is declared twice"));
        }
        if tool.display_name.trim().is_empty() || tool.display_name.len() > 64 {
            return Err(format!("tool `{name}`: the display name must have 1-64 bytes"));
        }
        if tool.description.trim().is_empty() || tool.description.len() > MAX_DESCRIPTION {
            return Err(format!("tool `{name}`: the description must have 1-{MAX_DESCRIPTION} bytes"));
        }
        check_schema(name, &tool.parameters)?;
        check_capabilities(name, &tool.capabilities)?;
    }
    let declared = declared_bytes(info);
    if declared > MAX_DECLARED {
        return Err(format!(
            "the plugin's tools declare {declared} bytes of descriptions and schemas; at most {MAX_DECLARED} are allowed"
        ));
    }
    Ok(())
}

/// Longest tool-name pattern a hook may declare, in bytes.
pub const MAX_HOOK_PATTERN: usize = 1024;
/// Most compiled size of a hook's tool-name pattern (regex's own measure).
const HOOK_PATTERN_SIZE: usize = 1 << 20;

/// Returns the first problem with a hook's self-description, if any.
pub fn check_hook(info: &HookInfo) -> Result<(), String> {
    if !is_name(&info.name, true) {
        return Err(format!(
            "hook name {:?} is invalid: use 1-63 lowercase letters, digits, '_' or '-', starting with a letter",
            excerpt(&info.name)
        ));
    }
    if info.version.is_empty() || info.version.len() > 64 {
        return Err(format!("hook version {:?} is invalid: give a semver version", excerpt(&info.version)));
    }
    if info.events.is_empty() {
        return Err("the hook runs at no event: list at least one in `events`".into());
    }
    if let Some(pattern) = &info.tools {
        hook_pattern(pattern)?;
    }
    check_capabilities(&info.name, &info.capabilities)
}

/// The regular expression a hook's `tools` pattern stands for: anchored, so a tool's name
/// must match it whole, and bounded in size.
pub fn hook_pattern(pattern: &str) -> Result<regex::Regex, String> {
    if pattern.len() > MAX_HOOK_PATTERN {
        return Err(format!(
            "the hook's tool pattern has {} bytes; at most {MAX_HOOK_PATTERN} are allowed",
            pattern.len()
        ));
    }
    regex::RegexBuilder::new(&format!("^(?:{pattern})$"))
        .size_limit(HOOK_PATTERN_SIZE)
        .build()
        .map_err(|e| format!("the hook's tool pattern {:?} is not a regular expression: {e}", excerpt(pattern)))
}

/// The plugin entry of a hook: its name and version, and one tool that is never offered to
/// the model, holding the hook's requests, so grants, `plugins show` and the policy's checks
/// treat a hook as the plugin it is.
pub fn hook_plugin_info(hook: &HookInfo) -> PluginInfo {
    let tool = ToolInfo {
        name: hook.name.replace('-', "_"),
        display_name: hook.name.clone(),
        description: format!("The component hook `{}` (never offered to the model).", hook.name),
        parameters: serde_json::json!({"type": "object"}),
        kind: Kind::Other,
        streams_output: false,
        parallel_safe: true,
        capabilities: hook.capabilities.clone(),
    };
    PluginInfo { name: hook.name.clone(), version: hook.version.clone(), tools: vec![tool] }
}

pub(crate) fn check_schema(tool: &str, schema: &serde_json::Value) -> Result<(), String> {
    let serde_json::Value::Object(object) = schema else {
        return Err(format!("tool `{tool}`: `parameters` is not a JSON object"));
    };
    if object.get("type").and_then(|t| t.as_str()) != Some("object") {
        return Err(format!("tool `{tool}`: the parameter schema must have \"type\": \"object\" at its top level"));
    }
    let size = schema.to_string().len();
    if size > MAX_SCHEMA {
        return Err(format!("tool `{tool}`: the parameter schema has {size} bytes; at most {MAX_SCHEMA} are allowed"));
    }
    schema::check(schema).map_err(|e| format!("tool `{tool}`: {e}"))?;
    jsonschema::validator_for(schema)
        .map(|_| ())
        .map_err(|e| format!("tool `{tool}`: the parameter schema is not a valid JSON Schema: {e}"))
}

fn check_capabilities(tool: &str, caps: &Capabilities) -> Result<(), String> {
    let count = caps.files.len() + caps.network.len() + caps.env.len() + caps.processes.len();
    if count > 256 {
        return Err(format!("tool `{tool}` requests {count} capabilities; at most 256 are allowed"));
    }
    for file in &caps.files {
        let path = file.path.as_str();
        let relative = path.strip_prefix("~/").unwrap_or(path);
        if path.chars().any(sanitize::is_hidden) {
            return Err(format!(
                "tool `{tool}` requests files at {:?}: a path may not contain control, bidi or invisible characters",
                excerpt(path)
            ));
        }
        if path.is_empty() || path.len() > 4096 || relative.starts_with('/') || path.contains('\0') {
            return Err(format!(
                "tool `{tool}` requests files at {:?}: use `.`, a workspace-relative path or `~/...`",
                excerpt(path)
            ));
        }
        if relative.split('/').any(|segment| segment == "..") {
            return Err(format!("tool `{tool}` requests files at {:?}: `..` is not allowed", excerpt(path)));
        }
    }
    for var in &caps.env {
        let valid = !var.is_empty()
            && var.len() <= 256
            && var.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !var.starts_with(|c: char| c.is_ascii_digit());
        if !valid {
            return Err(format!(
                "tool `{tool}` requests environment variable {:?}, which is not a valid name",
                excerpt(var)
            ));
        }
    }
    for rule in caps.network.iter().chain(&caps.processes) {
        if rule.trim().is_empty() || rule.len() > 1024 {
            return Err(format!("tool `{tool}` has an empty or oversized network or process request"));
        }
        if rule.chars().any(sanitize::is_hidden) {
            return Err(format!(
                "tool `{tool}` requests {:?}: a request may not contain control, bidi or invisible characters",
                excerpt(rule)
            ));
        }
    }
    for rule in &caps.network {
        if let Err(reason) = NetRule::parse(rule) {
            return Err(format!(
                "tool `{tool}` requests network access {:?}, which is not a rule: {reason}",
                excerpt(rule)
            ));
        }
    }
    Ok(())
}

/// Whether `name` can be a tool's name (`^[a-z][a-z0-9_]{0,62}$`).
pub fn is_tool_name(name: &str) -> bool {
    is_name(name, false)
}

/// `^[a-z][a-z0-9_]{0,62}$`, with `-` also allowed for plugin names.
fn is_name(name: &str, allow_dash: bool) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some('a'..='z'))
        && name.len() <= 63
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || (allow_dash && c == '-'))
}

/// The start of an untrusted string, safe to quote in a message.
fn excerpt(text: &str) -> String {
    let mut out: String = text.chars().take(40).collect();
    if out.len() < text.len() {
        out.push('…');
    }
    out
}

#[cfg(test)]
#[path = "describe_tests.rs"]
mod tests;
