//! The request encoders as they were before bodies were written straight from the history:
//! each builds a `serde_json::Value` tree. Kept as the reference the byte-for-byte tests of
//! [`super::encoding`] compare the wires against.

use serde_json::{Map, Value, json};

use crate::{Message, ModelRequest, Part, Role, ToolDeclaration};

const GENERATED_ID_PREFIX: &str = "gemini-call-";

pub fn openai(model: &str, request: &ModelRequest<'_>) -> Value {
    let mut messages = Vec::new();
    if let Some(system) = request.system.filter(|s| !s.is_empty()) {
        messages.push(json!({ "role": "system", "content": system }));
    }
    for message in request.messages {
        openai_message(&mut messages, message);
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    body.insert("messages".into(), Value::Array(messages));
    body.insert("stream".into(), json!(true));
    body.insert("stream_options".into(), json!({ "include_usage": true }));
    if !request.tools.is_empty() {
        let tools: Vec<Value> = request
            .tools
            .iter()
            .map(|t| {
                json!({
                    "type": "function",
                    "function": { "name": t.name, "description": t.description, "parameters": t.parameters },
                })
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    Value::Object(body)
}

/// One neutral message becomes one or more chat messages: function responses become
/// `tool` messages, which must directly follow the assistant message that made the calls,
/// so they come before any text of the same user turn.
fn openai_message(out: &mut Vec<Value>, message: &Message) {
    let texts: Vec<&str> = message
        .parts
        .iter()
        .filter_map(|p| match p {
            Part::Text { text } if !text.is_empty() => Some(text.as_str()),
            _ => None,
        })
        .collect();
    match message.role {
        Role::Model => {
            let calls: Vec<Value> = message
                .parts
                .iter()
                .filter_map(|p| match p {
                    Part::FunctionCall(call) => Some(json!({
                        "id": call.id,
                        "type": "function",
                        "function": { "name": call.name, "arguments": call.arguments },
                    })),
                    _ => None,
                })
                .collect();
            if texts.is_empty() && calls.is_empty() {
                return;
            }
            let content = if texts.is_empty() { Value::Null } else { json!(texts.join("\n")) };
            let mut assistant = json!({ "role": "assistant", "content": content });
            if let (false, Value::Object(map)) = (calls.is_empty(), &mut assistant) {
                map.insert("tool_calls".into(), Value::Array(calls));
            }
            out.push(assistant);
        }
        Role::User => {
            for part in &message.parts {
                if let Part::FunctionResponse(response) = part {
                    let content = if response.is_error {
                        format!("Error: {}", response.content)
                    } else {
                        response.content.clone()
                    };
                    out.push(json!({ "role": "tool", "tool_call_id": response.id, "content": content }));
                }
            }
            if !texts.is_empty() {
                out.push(json!({ "role": "user", "content": texts.join("\n") }));
            }
        }
    }
}

pub fn gemini(request: &ModelRequest<'_>) -> Value {
    let mut body = Map::new();
    body.insert("contents".into(), Value::Array(contents(request.messages)));
    if let Some(system) = request.system.filter(|s| !s.is_empty()) {
        body.insert("systemInstruction".into(), json!({ "parts": [{ "text": system }] }));
    }
    if !request.tools.is_empty() {
        let declarations: Vec<Value> = request
            .tools
            .iter()
            .map(|t| {
                let mut declaration = json!({ "name": t.name, "description": t.description });
                if !t.parameters.is_null() {
                    declaration["parametersJsonSchema"] = parameters_schema(&t.parameters);
                }
                declaration
            })
            .collect();
        body.insert("tools".into(), json!([{ "functionDeclarations": declarations }]));
    }
    Value::Object(body)
}

/// The schema as Gemini's `parametersJsonSchema` takes it: as written, but for a root
/// `$schema`, which says which draft the schema follows and which some Gemini endpoints
/// refuse as an unknown field.
fn parameters_schema(schema: &Value) -> Value {
    let mut schema = schema.clone();
    if let Value::Object(map) = &mut schema {
        map.remove("$schema");
    }
    schema
}

/// Consecutive messages of one role become one content: Gemini wants every response to
/// one model turn's calls in a single `user` content, however the history split them.
fn contents(messages: &[Message]) -> Vec<Value> {
    let mut merged: Vec<(Role, Vec<Value>)> = Vec::new();
    for message in messages {
        let parts: Vec<Value> = message.parts.iter().filter_map(part).collect();
        if parts.is_empty() {
            continue;
        }
        match merged.last_mut() {
            Some((role, existing)) if *role == message.role => existing.extend(parts),
            _ => merged.push((message.role, parts)),
        }
    }
    merged
        .into_iter()
        .map(|(role, parts)| {
            let role = match role {
                Role::User => "user",
                Role::Model => "model",
            };
            json!({ "role": role, "parts": parts })
        })
        .collect()
}

fn part(part: &Part) -> Option<Value> {
    match part {
        // The reference predates media; the wires' media are checked by their own tests.
        Part::Media(_) => None,
        Part::Text { text } if text.is_empty() => None,
        Part::Text { text } => Some(json!({ "text": text })),
        Part::FunctionCall(call) => {
            // Gemini takes arguments as an object; arguments the model got wrong were
            // already answered with an error, so an empty object stands in for them.
            let args = match serde_json::from_str::<Value>(&call.arguments) {
                Ok(args @ Value::Object(_)) => args,
                _ => json!({}),
            };
            let mut function_call = json!({ "name": call.name, "args": args });
            echo_id(&mut function_call, &call.id);
            let mut part = json!({ "functionCall": function_call });
            if let Some(signature) = &call.signature {
                part["thoughtSignature"] = Value::String(signature.clone());
            }
            Some(part)
        }
        Part::FunctionResponse(response) => {
            let key = if response.is_error { "error" } else { "output" };
            let mut function_response = json!({ "name": response.name, "response": { key: response.content } });
            echo_id(&mut function_response, &response.id);
            Some(json!({ "functionResponse": function_response }))
        }
    }
}

fn echo_id(object: &mut Value, id: &str) {
    if let Value::Object(map) = object
        && !id.starts_with(GENERATED_ID_PREFIX)
    {
        map.insert("id".into(), Value::String(id.to_owned()));
    }
}

pub fn anthropic(model: &str, max_tokens: u32, request: &ModelRequest<'_>) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    body.insert("max_tokens".into(), json!(max_tokens));
    body.insert("stream".into(), json!(true));
    if let Some(system) = request.system.filter(|s| !s.is_empty()) {
        body.insert("system".into(), json!(system));
    }
    body.insert("messages".into(), Value::Array(anthropic_messages(request.messages)));
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

fn anthropic_messages(messages: &[Message]) -> Vec<Value> {
    let mut turns: Vec<Turn> = Vec::new();
    for message in messages {
        let mut results = Vec::new();
        let mut blocks = Vec::new();
        for part in &message.parts {
            match part {
                Part::Text { text } if text.is_empty() => {}
                Part::Media(_) => {}
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
