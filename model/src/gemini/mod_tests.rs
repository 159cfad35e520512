//! Unit tests of `gemini/mod.rs`.

use airlock_tests::{MockModel, Turn, Wire, call};
use serde_json::json;

use super::super::test_support::{calls_of, config, parsed, sample_history, sample_tools, stream_all};
use super::super::{FunctionCall, FunctionResponse, ProviderKind, ToolDeclaration};
use super::*;

#[test]
fn request_body_carries_history_system_and_tools() {
    let history = sample_history();
    let tools = sample_tools();
    let body = parsed(request_body(&ModelRequest {
        system: Some("be brief"),
        messages: &history,
        tools: &tools,
        cache: None,
        output_schema: None,
    }));
    let expected = json!({
        "contents": [
            { "role": "user", "parts": [{ "text": "read two files" }] },
            { "role": "model", "parts": [
                { "text": "Reading them." },
                {
                    "functionCall": { "id": "call-a", "name": "read_file", "args": { "path": "a.txt" } },
                    "thoughtSignature": "sig-a",
                },
                { "functionCall": { "name": "read_file", "args": {} } },
            ] },
            { "role": "user", "parts": [
                { "functionResponse": { "id": "call-a", "name": "read_file", "response": { "output": "alpha" } } },
                { "functionResponse": { "name": "read_file", "response": { "error": "no such file: b.txt" } } },
            ] },
        ],
        "systemInstruction": { "parts": [{ "text": "be brief" }] },
        "tools": [{ "functionDeclarations": [{
            "name": "read_file",
            "description": "Reads a file",
            "parametersJsonSchema": { "type": "object", "properties": { "path": { "type": "string" } } },
        }] }],
    });
    assert_eq!(body, expected);
}

#[test]
fn tool_schemas_go_out_as_json_schema_without_the_draft_marker() {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "mode": { "anyOf": [{ "type": "string" }, { "type": "null" }] },
            "limit": { "type": ["integer", "null"], "minimum": 1 },
            "filter": { "$ref": "#/$defs/filter" },
        },
        "required": ["mode"],
        "additionalProperties": false,
        "$defs": { "filter": { "type": "object", "properties": { "glob": { "type": "string" } } } },
    });
    let tools = vec![
        ToolDeclaration { name: "plugin_tool".into(), description: "d".into(), parameters: schema.clone() },
        ToolDeclaration { name: "no_params".into(), description: "d".into(), parameters: Value::Null },
    ];
    let body = parsed(request_body(&ModelRequest {
        system: None,
        messages: &[],
        tools: &tools,
        cache: None,
        output_schema: None,
    }));
    let declarations = &body["tools"][0]["functionDeclarations"];
    let mut expected = schema;
    if let Value::Object(map) = &mut expected {
        map.remove("$schema");
    }
    assert_eq!(declarations[0]["parametersJsonSchema"], expected);
    assert_eq!(declarations[0].get("parameters"), None);
    assert_eq!(declarations[1], json!({ "name": "no_params", "description": "d" }));
}

#[test]
fn request_body_omits_empty_tools_and_system() {
    let history = vec![Message { role: Role::User, parts: vec![Part::Text { text: "hi".into() }] }];
    let body = parsed(request_body(&ModelRequest {
        system: None,
        messages: &history,
        tools: &[],
        cache: None,
        output_schema: None,
    }));
    assert_eq!(body, json!({ "contents": [{ "role": "user", "parts": [{ "text": "hi" }] }] }));
}

#[test]
fn responses_split_over_messages_go_in_one_user_content() {
    let response = |id: &str| {
        Part::FunctionResponse(FunctionResponse {
            id: id.into(),
            name: "glob".into(),
            content: id.into(),
            is_error: false,
            media: Vec::new(),
        })
    };
    let history = vec![
        Message { role: Role::User, parts: vec![response("one")] },
        Message { role: Role::User, parts: vec![] },
        Message { role: Role::User, parts: vec![response("two")] },
    ];
    let body = parsed(request_body(&ModelRequest {
        system: None,
        messages: &history,
        tools: &[],
        cache: None,
        output_schema: None,
    }));
    let contents = body["contents"].as_array().cloned().unwrap_or_default();
    assert_eq!(contents.len(), 1);
    assert_eq!(contents[0]["parts"].as_array().map(Vec::len), Some(2));
}

#[test]
fn endpoint_joins_base_and_model() {
    let mut config = config(ProviderKind::Gemini, "http://h:1/");
    config.model = "models/gemini-x".into();
    assert_eq!(endpoint(&config), "http://h:1/v1beta/models/gemini-x:streamGenerateContent?alt=sse");
}

#[tokio::test]
async fn a_streamed_signature_is_sent_back_beside_its_call() {
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::calls(vec![
        call("read_file", json!({ "path": "a.txt" })).with_signature("opaque/sig=="),
        call("glob", json!({ "pattern": "*" })),
    ]));
    mock.push_turn(Turn::text("done"));
    let config = config(ProviderKind::Gemini, &mock.base_url());
    let mut history = vec![Message { role: Role::User, parts: vec![Part::Text { text: "go".into() }] }];

    let (events, result) = stream_all(
        config.clone(),
        ModelRequest { system: None, messages: &history, tools: &[], cache: None, output_schema: None },
    )
    .await;
    assert!(result.is_ok(), "{result:?}");
    let calls: Vec<FunctionCall> = calls_of(&events).into_iter().cloned().collect();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0].signature.as_deref(), Some("opaque/sig=="));
    assert_eq!(calls[1].signature, None);
    let responses = calls
        .iter()
        .map(|c| {
            Part::FunctionResponse(FunctionResponse {
                id: c.id.clone(),
                name: c.name.clone(),
                content: "ok".into(),
                is_error: false,
                media: Vec::new(),
            })
        })
        .collect();
    history.push(Message { role: Role::Model, parts: calls.into_iter().map(Part::FunctionCall).collect() });
    history.push(Message { role: Role::User, parts: responses });

    let (_, result) = stream_all(
        config,
        ModelRequest { system: None, messages: &history, tools: &[], cache: None, output_schema: None },
    )
    .await;
    assert!(result.is_ok(), "{result:?}");
    let requests = mock.requests();
    assert_eq!(requests.len(), 2);
    let model_parts = &requests[1]["contents"][1]["parts"];
    assert_eq!(requests[1]["contents"][1]["role"], "model");
    assert_eq!(model_parts[0]["functionCall"]["name"], "read_file");
    assert_eq!(model_parts[0]["thoughtSignature"], "opaque/sig==");
    assert_eq!(model_parts[1]["functionCall"]["name"], "glob");
    assert_eq!(model_parts[1].get("thoughtSignature"), None);
}

#[test]
fn media_go_as_inline_data_parts_beside_the_function_response() {
    let history = super::super::test_support::media_history();
    let request = ModelRequest { system: None, messages: &history, tools: &[], cache: None, output_schema: None };
    let body = parsed(request_body(&request));
    assert_eq!(
        body["contents"][0]["parts"],
        json!([{ "text": "look" }, { "inlineData": { "mimeType": "image/gif", "data": "R0lG" } }])
    );
    let lost = "[image/png \"lost.png\", 0 bytes, not shown to the model: its bytes were not kept]";
    assert_eq!(
        body["contents"][2]["parts"],
        json!([
            { "functionResponse": { "id": "call-a", "name": "read_file", "response": { "output": "two files" } } },
            { "inlineData": { "mimeType": "image/png", "data": "UE5H" } },
            { "inlineData": { "mimeType": "application/pdf", "data": "JVBERg==" } },
            { "text": lost },
        ])
    );
}

#[test]
fn the_encode_cache_gives_the_same_media_body_twice() {
    let mut history = crate::History::new(super::super::test_support::media_history());
    let first = request_body(&history.request(None, &[]));
    let again = request_body(&history.request(None, &[]));
    assert_eq!(first, again);
    history.push(Message { role: Role::Model, parts: vec![Part::Text { text: "seen".into() }] });
    let longer = parsed(request_body(&history.request(None, &[])));
    assert_eq!(longer["contents"][2], parsed(first)["contents"][2], "the cached media message is unchanged");
}
