use serde_json::json;

use super::*;

fn tool(name: &str, description: &str, schema: serde_json::Value) -> ServerTool {
    ServerTool {
        name: name.into(),
        title: None,
        description: description.into(),
        input_schema: schema,
        read_only_hint: false,
    }
}

fn object() -> serde_json::Value {
    json!({"type": "object", "properties": {"path": {"type": "string"}}})
}

#[test]
fn a_good_tool_is_offered_under_its_servers_name() {
    let (offered, skipped) = check_tools("fs", &[tool("read_file", "Reads a file.", object())], |_| true);
    assert!(skipped.is_empty(), "{skipped:?}");
    assert_eq!(offered[0].name, "fs__read_file");
    assert_eq!(offered[0].tool, "read_file");
    assert_eq!(offered[0].description, "Reads a file.");
}

#[test]
fn hostile_self_descriptions_are_skipped_and_the_rest_stay() {
    // A schema nested past the depth limit, and one with too many nodes.
    let mut deep = json!({"type": "string"});
    for _ in 0..100 {
        deep = json!({"type": "object", "properties": {"a": deep}});
    }
    let wide: serde_json::Map<String, serde_json::Value> =
        (0..20_000).map(|i| (format!("p{i}"), json!({"type": "string"}))).collect();
    let tools = [
        tool("ok", "Fine.", object()),
        tool("bad name!", "x", object()),
        tool(&"n".repeat(70), "x", object()),
        tool("huge", &"d".repeat(MAX_DESCRIPTION + 1), object()),
        tool("deep", "x", deep),
        tool("wide", "x", json!({"type": "object", "properties": wide})),
        tool("not_object", "x", json!({"type": "string"})),
        tool("invalid", "x", json!({"type": "object", "minLength": "five"})),
        tool("ok", "Twice.", object()),
    ];
    let (offered, skipped) = check_tools("srv", &tools, |_| true);
    assert_eq!(offered.iter().map(|o| o.name.as_str()).collect::<Vec<_>>(), ["srv__ok"]);
    let reasons: Vec<(&str, &str)> = skipped.iter().map(|s| (s.tool.as_str(), s.reason.as_str())).collect();
    assert_eq!(reasons.len(), 8, "{reasons:?}");
    for (tool, expected) in [
        ("bad name!", "not one a model can call"),
        ("huge", "description has"),
        ("deep", "deep"),
        ("wide", "schema"),
        ("not_object", "\"type\": \"object\""),
        ("invalid", "not a valid JSON Schema"),
        ("ok", "declares it twice"),
    ] {
        let (_, reason) = reasons.iter().find(|(t, _)| *t == tool).unwrap_or_else(|| panic!("{tool} not skipped"));
        assert!(reason.contains(expected), "{tool}: {reason}");
    }
}

#[test]
fn escapes_and_control_characters_never_reach_the_model_or_the_terminal() {
    let description = "Reads\u{1b}[2J a file\u{7}.\u{202e}evil\u{200b}\nSecond line.";
    let (offered, _) = check_tools("fs", &[tool("read", description, object())], |_| true);
    assert_eq!(offered[0].description, "Reads[2J a file.evil\nSecond line.");
    let hostile = tool("x\u{1b}[31m", "d", object());
    let (_, skipped) = check_tools("fs", &[hostile], |_| true);
    assert!(!skipped[0].tool.contains('\u{1b}'), "{:?}", skipped[0].tool);
}

#[test]
fn include_and_exclude_choose_what_is_checked() {
    let tools = [tool("a", "A.", object()), tool("b", "B.", object())];
    let (offered, skipped) = check_tools("s", &tools, |name| name == "b");
    assert_eq!(offered.iter().map(|o| o.name.as_str()).collect::<Vec<_>>(), ["s__b"]);
    assert!(skipped.is_empty());
}
