use serde_json::{Value, json};

use super::*;
use crate::{Message, ModelRequest, Part, ProviderConfig, ProviderKind, Role, ToolDeclaration};

fn closed_object() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": { "type": "string" },
            "tags": { "type": "array", "items": { "$ref": "#/$defs/tag" } }
        },
        "required": ["name", "tags"],
        "additionalProperties": false,
        "$defs": {
            "tag": {
                "type": "object",
                "properties": { "label": { "type": "string", "enum": ["a", "b"] } },
                "required": ["label"],
                "additionalProperties": false
            }
        }
    })
}

#[test]
fn a_closed_object_fits_strict_decoding() {
    assert!(fits_strict(&closed_object()));
}

#[test]
fn schemas_outside_the_subset_do_not_fit() {
    let mut optional = closed_object();
    optional["required"] = json!(["name"]);
    let mut open = closed_object();
    if let Some(tag) = open["$defs"]["tag"].as_object_mut() {
        tag.remove("additionalProperties");
    }
    let mut bounded = closed_object();
    bounded["properties"]["name"]["maxLength"] = json!(10);
    let mut remote = closed_object();
    remote["properties"]["name"] = json!({ "$ref": "https://example.com/name.json" });
    for (what, schema) in [
        ("a property left out of required", optional),
        ("an object without additionalProperties: false", open),
        ("maxLength", bounded),
        ("a remote $ref", remote),
        ("a root that is not an object", json!({ "type": "array", "items": { "type": "string" } })),
        ("not an object at all", json!(true)),
    ] {
        assert!(!fits_strict(&schema), "{what} should not fit");
    }
}

#[test]
fn recursive_schemas_do_not_fit() {
    let mut to_root = closed_object();
    to_root["properties"]["tags"]["items"] = json!({ "$ref": "#" });
    let mut through_defs = closed_object();
    through_defs["$defs"]["tag"]["properties"]["child"] = json!({ "$ref": "#/$defs/node" });
    through_defs["$defs"]["tag"]["required"] = json!(["label", "child"]);
    through_defs["$defs"]["node"] = json!({
        "type": "object",
        "properties": { "tag": { "$ref": "#/$defs/tag" } },
        "required": ["tag"],
        "additionalProperties": false
    });
    assert!(!fits_strict(&to_root));
    assert!(!fits_strict(&through_defs));
}

#[test]
fn enum_values_that_look_like_keywords_are_data() {
    let schema = json!({
        "type": "object",
        "properties": { "op": { "enum": [{ "minimum": 1 }, "not"] } },
        "required": ["op"],
        "additionalProperties": false
    });
    assert!(fits_strict(&schema));
}

#[test]
fn gemini_takes_the_schema_beside_functions_from_gemini_3_on() {
    assert!(gemini_takes("gemini-2.5-flash", false));
    assert!(!gemini_takes("gemini-2.5-flash", true));
    assert!(!gemini_takes("test-model", true));
    assert!(gemini_takes("gemini-3-flash-preview", true));
    assert!(gemini_takes("models/gemini-3.1-pro-preview", true));
    assert!(gemini_takes("gemini-10-ultra", true));
}

fn body(kind: ProviderKind, model: &str, schema: &Value, tools: &[ToolDeclaration]) -> Value {
    let config = ProviderConfig::new(kind, "http://127.0.0.1:1", model);
    let messages = [Message { role: Role::User, parts: vec![Part::Text { text: "hi".into() }] }];
    let request =
        ModelRequest { system: Some("s"), messages: &messages, tools, cache: None, output_schema: Some(schema) };
    serde_json::from_slice(&crate::client::request_body(&config, &request)).unwrap_or_else(|e| panic!("{e}"))
}

fn a_tool() -> Vec<ToolDeclaration> {
    vec![ToolDeclaration { name: "t".into(), description: "d".into(), parameters: json!({ "type": "object" }) }]
}

#[test]
fn openai_sends_response_format_strict_only_when_the_schema_fits() {
    let closed = closed_object();
    let sent = body(ProviderKind::Openai, "m", &closed, &a_tool());
    assert_eq!(
        sent["response_format"],
        json!({ "type": "json_schema", "json_schema": { "name": SCHEMA_NAME, "schema": closed, "strict": true } })
    );
    let loose = json!({ "type": "object", "properties": { "n": { "type": "integer", "minimum": 0 } } });
    let sent = body(ProviderKind::Openai, "m", &loose, &[]);
    assert_eq!(sent["response_format"]["json_schema"]["strict"], json!(false));
    assert_eq!(sent["response_format"]["json_schema"]["schema"], loose);
}

#[test]
fn anthropic_sends_output_config_only_for_a_schema_its_decoding_takes() {
    let closed = closed_object();
    let sent = body(ProviderKind::Anthropic, "m", &closed, &a_tool());
    assert_eq!(sent["output_config"], json!({ "format": { "type": "json_schema", "schema": closed } }));
    let loose = json!({ "type": "object" });
    assert!(body(ProviderKind::Anthropic, "m", &loose, &[]).get("output_config").is_none());
}

#[test]
fn gemini_sends_generation_config_without_tools_or_from_gemini_3() {
    let schema = json!({ "$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object" });
    let expected = json!({ "responseMimeType": "application/json", "responseJsonSchema": { "type": "object" } });
    assert_eq!(body(ProviderKind::Gemini, "gemini-2.5-flash", &schema, &[])["generationConfig"], expected);
    assert!(body(ProviderKind::Gemini, "gemini-2.5-flash", &schema, &a_tool()).get("generationConfig").is_none());
    assert_eq!(body(ProviderKind::Gemini, "gemini-3-flash-preview", &schema, &a_tool())["generationConfig"], expected);
}
