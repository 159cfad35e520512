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
#[path = "request_tests.rs"]
mod tests;
