//! Unit tests of `request.rs`.

use super::super::super::test_support::{parsed, sample_history, sample_tools};
use super::super::super::{FunctionCall, FunctionResponse};
use super::*;

#[test]
fn carries_system_tools_and_history_with_tool_blocks() {
    let history = sample_history();
    let tools = sample_tools();
    let body = parsed(body(
        "claude-x",
        1234,
        &ModelRequest { system: Some("be brief"), messages: &history, tools: &tools, cache: None, output_schema: None },
    ));
    let expected = json!({
        "model": "claude-x",
        "max_tokens": 1234,
        "stream": true,
        "system": "be brief",
        "messages": [
            { "role": "user", "content": [{ "type": "text", "text": "read two files" }] },
            { "role": "assistant", "content": [
                { "type": "text", "text": "Reading them." },
                { "type": "tool_use", "id": "call-a", "name": "read_file", "input": { "path": "a.txt" } },
                { "type": "tool_use", "id": "gemini-call-1000", "name": "read_file", "input": {} },
            ] },
            { "role": "user", "content": [
                { "type": "tool_result", "tool_use_id": "call-a", "content": "alpha" },
                { "type": "tool_result", "tool_use_id": "gemini-call-1000", "content": "no such file: b.txt",
                  "is_error": true },
            ] },
        ],
        "tools": [{
            "name": "read_file",
            "description": "Reads a file",
            "input_schema": { "type": "object", "properties": { "path": { "type": "string" } } },
        }],
    });
    assert_eq!(body, expected);
}

#[test]
fn merges_turns_puts_results_first_and_drops_empty_parts() {
    let response = |id: &str, content: &str| {
        Part::FunctionResponse(FunctionResponse {
            id: id.into(),
            name: "glob".into(),
            content: content.into(),
            is_error: false,
            media: Vec::new(),
        })
    };
    let call = |id: &str| {
        Part::FunctionCall(FunctionCall { id: id.into(), name: "glob".into(), arguments: "".into(), signature: None })
    };
    let history = vec![
        Message { role: Role::Model, parts: vec![Part::Text { text: String::new() }, call("call.1"), call("b")] },
        Message { role: Role::User, parts: vec![Part::Text { text: "and also".into() }, response("call.1", "x")] },
        Message { role: Role::User, parts: vec![] },
        Message { role: Role::User, parts: vec![response("b", "")] },
    ];
    let body = parsed(body(
        "m",
        1,
        &ModelRequest { system: Some(""), messages: &history, tools: &[], cache: None, output_schema: None },
    ));
    assert_eq!(body.get("system"), None);
    assert_eq!(body.get("tools"), None);
    assert_eq!(
        body["messages"],
        json!([
            { "role": "assistant", "content": [
                { "type": "tool_use", "id": "call_1", "name": "glob", "input": {} },
                { "type": "tool_use", "id": "b", "name": "glob", "input": {} },
            ] },
            { "role": "user", "content": [
                { "type": "tool_result", "tool_use_id": "call_1", "content": "x" },
                { "type": "tool_result", "tool_use_id": "b" },
                { "type": "text", "text": "and also" },
            ] },
        ])
    );
}

#[test]
fn a_tool_without_parameters_gets_an_empty_object_schema() {
    let tools = [ToolDeclaration { name: "now".into(), description: "d".into(), parameters: Value::Null }];
    let body = parsed(body(
        "m",
        1,
        &ModelRequest { system: None, messages: &[], tools: &tools, cache: None, output_schema: None },
    ));
    assert_eq!(body["tools"][0]["input_schema"], json!({ "type": "object", "properties": {} }));
}

#[test]
fn media_go_as_image_and_document_blocks_inside_the_tool_result() {
    let history = super::super::super::test_support::media_history();
    let body = parsed(body(
        "m",
        10,
        &ModelRequest { system: None, messages: &history, tools: &[], cache: None, output_schema: None },
    ));
    let image = |mime: &str, data: &str| json!({ "type": "image", "source": { "type": "base64", "media_type": mime, "data": data } });
    assert_eq!(body["messages"][0]["content"], json!([{ "type": "text", "text": "look" }, image("image/gif", "R0lG")]));
    let lost = "[image/png \"lost.png\", 0 bytes, not shown to the model: its bytes were not kept]";
    assert_eq!(
        body["messages"][2]["content"],
        json!([{
            "type": "tool_result",
            "tool_use_id": "call-a",
            "content": [
                { "type": "text", "text": "two files" },
                image("image/png", "UE5H"),
                { "type": "document", "source": { "type": "base64", "media_type": "application/pdf", "data": "JVBERg==" } },
                { "type": "text", "text": lost },
            ],
        }])
    );
}
