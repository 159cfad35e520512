//! Unit tests of `describe.rs`.

use super::*;
use crate::contract::{Access, FileRequest, Kind, ToolInfo};
use serde_json::json;

fn plugin(tool: ToolInfo) -> PluginInfo {
    PluginInfo { name: "demo".into(), version: "1.0.0".into(), tools: vec![tool] }
}

fn tool(name: &str, parameters: serde_json::Value) -> ToolInfo {
    ToolInfo {
        name: name.into(),
        display_name: "Demo".into(),
        description: "Does things.".into(),
        parameters,
        kind: Kind::Read,
        streams_output: false,
        parallel_safe: true,
        capabilities: Capabilities::default(),
    }
}

#[test]
fn accepts_a_well_formed_description() {
    let info = plugin(tool("demo_tool", json!({"type": "object", "properties": {"a": {"type": "string"}}})));
    assert_eq!(check(&info), Ok(()));
}

#[test]
fn rejects_bad_tool_names() {
    for name in ["Demo", "1abc", "a-b", "", "with space", &"x".repeat(64)] {
        let err = check(&plugin(tool(name, json!({"type": "object"})))).unwrap_err();
        assert!(err.contains("is invalid"), "{name}: {err}");
    }
}

#[test]
fn rejects_schemas_that_are_not_objects_or_not_schemas() {
    let err = check(&plugin(tool("t", json!("text")))).unwrap_err();
    assert!(err.contains("not a JSON object"), "{err}");
    let err = check(&plugin(tool("t", json!({"type": "string"})))).unwrap_err();
    assert!(err.contains("\"type\": \"object\""), "{err}");
    let err = check(&plugin(tool("t", json!({"type": "object", "properties": {"a": {"type": 5}}})))).unwrap_err();
    assert!(err.contains("not a valid JSON Schema"), "{err}");
}

#[test]
fn rejects_duplicate_tools_and_empty_plugins() {
    let mut info = plugin(tool("t", json!({"type": "object"})));
    info.tools.push(info.tools[0].clone());
    assert!(check(&info).unwrap_err().contains("declared twice"));
    info.tools.clear();
    assert!(check(&info).unwrap_err().contains("no tools"));
}

#[test]
fn a_schema_bomb_is_refused_at_load_with_a_clear_message() {
    let mut defs = serde_json::Map::new();
    defs.insert("d0".into(), json!({"type": "string"}));
    for level in 1..=48 {
        let previous = json!({"$ref": format!("#/$defs/d{}", level - 1)});
        defs.insert(format!("d{level}"), json!({"allOf": [previous, previous]}));
    }
    let bomb = json!({"type": "object", "$defs": defs, "properties": {"x": {"$ref": "#/$defs/d48"}}});
    let err = check(&plugin(tool("bomb", bomb))).unwrap_err();
    assert!(err.starts_with("tool `bomb`: the parameter schema"), "{err}");
    let remote = json!({"type": "object", "properties": {"x": {"$ref": "https://127.0.0.1:1/s.json"}}});
    assert!(check(&plugin(tool("remote", remote))).unwrap_err().contains("never fetches"));
}

#[test]
fn what_one_plugin_declares_is_bounded_in_total() {
    let mut info = plugin(tool("t0", json!({"type": "object"})));
    info.tools[0].description = "d".repeat(MAX_DESCRIPTION);
    for i in 1..20 {
        let mut t = info.tools[0].clone();
        t.name = format!("t{i}");
        info.tools.push(t);
    }
    assert!(declared_bytes(&info) > MAX_DECLARED);
    let err = check(&info).unwrap_err();
    assert!(err.contains("at most 262144 are allowed"), "{err}");
    info.tools.truncate(10);
    assert_eq!(check(&info), Ok(()));
    assert!(declared_bytes(&info) >= 10 * MAX_DESCRIPTION);
}

#[test]
fn requests_that_cannot_be_shown_or_pasted_are_refused() {
    for path in ["docs\n✓ read_file", "a\x1b[2Jb", "x\ry", "evil\u{202e}txt", "zero\u{200b}width", "nul\0"] {
        let mut t = tool("t", json!({"type": "object"}));
        t.capabilities.files.push(FileRequest { path: path.into(), access: Access::Read });
        let err = check(&plugin(t)).unwrap_err();
        assert!(err.contains("control, bidi or invisible"), "{path:?}: {err}");
    }
    for rule in ["not a url", "ftp://example.com", "https://", "https://a.com\n--net https://*"] {
        let mut t = tool("t", json!({"type": "object"}));
        t.capabilities.network.push(rule.into());
        assert!(check(&plugin(t)).is_err(), "{rule:?} was accepted");
    }
    // A folder named like flags is a path: accepted, and quoted wherever it is shown.
    let mut t = tool("t", json!({"type": "object"}));
    t.capabilities.files.push(FileRequest { path: "docs --write ~".into(), access: Access::Read });
    t.capabilities.network.push("https://api.example.com".into());
    assert_eq!(check(&plugin(t)), Ok(()));
}

#[test]
fn rejects_file_requests_that_escape() {
    for path in ["/etc", "../x", "~/../../etc", "a/../../b", ""] {
        let mut t = tool("t", json!({"type": "object"}));
        t.capabilities.files.push(FileRequest { path: path.into(), access: Access::Read });
        assert!(check(&plugin(t)).is_err(), "{path} was accepted");
    }
}
