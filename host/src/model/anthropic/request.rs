//! The request body of the Messages API: `model`, `max_tokens`, `stream`, `system`,
//! `messages` and `tools`.
//!
//! Messages must alternate between `user` and `assistant`, so consecutive messages of one
//! role are merged and empty ones dropped. A user turn puts every `tool_result` first,
//! before any text, as the API requires of the message after `tool_use` blocks. Tool use
//! ids may only hold `[A-Za-z0-9_-]`; ids other providers made (a resumed session) are
//! mapped into that alphabet the same way for the call and its result.

use serde_json::{Map, Value, json};

use super::super::{Message, ModelRequest, Part, Role, ToolDeclaration};

pub(super) fn body(model: &str, max_tokens: u32, request: &ModelRequest<'_>) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    body.insert("max_tokens".into(), json!(max_tokens));
    body.insert("stream".into(), json!(true));
    if let Some(system) = request.system.filter(|s| !s.is_empty()) {
        body.insert("system".into(), json!(system));
    }
    body.insert("messages".into(), Value::Array(messages(request.messages)));
    if !request.tools.is_empty() {
        body.insert("tools".into(), Value::Array(request.tools.iter().map(tool).collect()));
    }
    Value::Object(body)
}

fn tool(tool: &ToolDeclaration) -> Value {
    // `input_schema` is required and must describe an object.
    let schema = match &tool.parameters {
        schema @ Value::Object(_) => schema.clone(),
        _ => json!({ "type": "object", "properties": {} }),
    };
    json!({ "name": tool.name, "description": tool.description, "input_schema": schema })
}

/// The blocks of one role's turn, tool results kept apart so they can go first.
struct Turn {
    role: Role,
    results: Vec<Value>,
    blocks: Vec<Value>,
}

fn messages(messages: &[Message]) -> Vec<Value> {
    let mut turns: Vec<Turn> = Vec::new();
    for message in messages {
        let mut results = Vec::new();
        let mut blocks = Vec::new();
        for part in &message.parts {
            match part {
                Part::Text { text } if text.is_empty() => {}
                Part::Text { text } => blocks.push(json!({ "type": "text", "text": text })),
                Part::FunctionCall(call) => {
                    // The API takes the input as an object; arguments the model got wrong were
                    // already answered with an error, so an empty object stands in for them.
                    let input = match serde_json::from_str::<Value>(&call.arguments) {
                        Ok(input @ Value::Object(_)) => input,
                        _ => json!({}),
                    };
                    blocks.push(
                        json!({ "type": "tool_use", "id": tool_use_id(&call.id), "name": call.name, "input": input }),
                    );
                }
                Part::FunctionResponse(response) => {
                    let mut result = json!({ "type": "tool_result", "tool_use_id": tool_use_id(&response.id) });
                    if let Value::Object(map) = &mut result {
                        // Empty content is left out rather than sent as an empty text.
                        if !response.content.is_empty() {
                            map.insert("content".into(), json!(response.content));
                        }
                        if response.is_error {
                            map.insert("is_error".into(), json!(true));
                        }
                    }
                    results.push(result);
                }
            }
        }
        if results.is_empty() && blocks.is_empty() {
            continue;
        }
        match turns.last_mut() {
            Some(turn) if turn.role == message.role => {
                turn.results.extend(results);
                turn.blocks.extend(blocks);
            }
            _ => turns.push(Turn { role: message.role, results, blocks }),
        }
    }
    turns
        .into_iter()
        .map(|turn| {
            let role = match turn.role {
                Role::User => "user",
                Role::Model => "assistant",
            };
            let mut content = turn.results;
            content.extend(turn.blocks);
            json!({ "role": role, "content": content })
        })
        .collect()
}

/// `id` with every character outside `[A-Za-z0-9_-]` replaced by `_`.
fn tool_use_id(id: &str) -> String {
    id.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect()
}

#[cfg(test)]
mod tests {
    use super::super::super::test_support::{sample_history, sample_tools};
    use super::super::super::{FunctionCall, FunctionResponse};
    use super::*;

    #[test]
    fn carries_system_tools_and_history_with_tool_blocks() {
        let history = sample_history();
        let tools = sample_tools();
        let body =
            body("claude-x", 1234, &ModelRequest { system: Some("be brief"), messages: &history, tools: &tools });
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
            })
        };
        let call = |id: &str| {
            Part::FunctionCall(FunctionCall {
                id: id.into(),
                name: "glob".into(),
                arguments: "".into(),
                signature: None,
            })
        };
        let history = vec![
            Message { role: Role::Model, parts: vec![Part::Text { text: String::new() }, call("call.1"), call("b")] },
            Message { role: Role::User, parts: vec![Part::Text { text: "and also".into() }, response("call.1", "x")] },
            Message { role: Role::User, parts: vec![] },
            Message { role: Role::User, parts: vec![response("b", "")] },
        ];
        let body = body("m", 1, &ModelRequest { system: Some(""), messages: &history, tools: &[] });
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
        let body = body("m", 1, &ModelRequest { system: None, messages: &[], tools: &tools });
        assert_eq!(body["tools"][0]["input_schema"], json!({ "type": "object", "properties": {} }));
    }
}
