//! A plugin's self-description (untrusted: a third-party component returns it from
//! `describe`), and the validation of a call's arguments against the schema it declared.
//!
//! `describe` takes a whole description as JSON. `schema_args` takes a parameter schema
//! and an argument value, both JSON, split at the first NUL byte.
//!
//! Checks: beyond crashing, a schema the load-time checks accept is compiled and used: the
//! time any argument then takes is what the fuzzer's timeout bounds.

use airlock_engine::contract::{Capabilities, Kind, PluginInfo, ToolInfo};
use airlock_engine::registry::{check_args_against, check_description, declared_bytes};

pub fn run(data: &[u8]) {
    let Ok(info) = serde_json::from_slice::<PluginInfo>(data) else { return };
    let _ = declared_bytes(&info);
    if check_description(&info).is_err() {
        return;
    }
    for tool in &info.tools {
        let _ = check_args_against(&tool.parameters, &serde_json::json!({}));
    }
}

pub fn schema_args(data: &[u8]) {
    let (schema, args) = match data.iter().position(|&b| b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &b"{}"[..]),
    };
    let Ok(schema) = serde_json::from_slice::<serde_json::Value>(schema) else { return };
    let Ok(args) = serde_json::from_slice::<serde_json::Value>(args) else { return };
    let info = PluginInfo {
        name: "fuzzed".into(),
        version: "1.0.0".into(),
        tools: vec![ToolInfo {
            name: "fuzzed".into(),
            display_name: "Fuzzed".into(),
            description: "A tool with a fuzzed schema.".into(),
            parameters: schema,
            kind: Kind::Read,
            streams_output: false,
            parallel_safe: true,
            capabilities: Capabilities::default(),
        }],
    };
    if check_description(&info).is_err() {
        return;
    }
    let _ = check_args_against(&info.tools[0].parameters, &args);
}
