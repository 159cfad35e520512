//! Reading what a request body of any of the three wire formats sent the model: the tool
//! results of its latest turn and the tools it declared.

use serde_json::Value;

/// The function responses of the latest turn in a request body of any wire format, as
/// `(tool name, content)`: the last Gemini content holding `functionResponse` parts, the
/// last Anthropic message holding `tool_result` blocks, or the last run of OpenAI `tool`
/// messages. Names come from the matching call (the call id stands in when none
/// matches). Errors read `Error: <message>` on every wire.
pub fn function_responses(request: &Value) -> Vec<(String, String)> {
    if let Some(contents) = request["contents"].as_array() {
        return contents.iter().rev().map(gemini_responses).find(|r| !r.is_empty()).unwrap_or_default();
    }
    let Some(messages) = request["messages"].as_array() else {
        return Vec::new();
    };
    let is_anthropic = messages.iter().any(|m| m["content"].is_array() && !tool_results(m).is_empty());
    if is_anthropic {
        return anthropic_responses(messages);
    }
    openai_responses(messages)
}

fn gemini_responses(content: &Value) -> Vec<(String, String)> {
    content["parts"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|part| part.get("functionResponse"))
        .map(|r| {
            let name = r["name"].as_str().unwrap_or_default().to_owned();
            let content = match (r["response"].get("output"), r["response"].get("error")) {
                (Some(output), _) => text_of(output),
                (None, Some(error)) => format!("Error: {}", text_of(error)),
                (None, None) => text_of(&r["response"]),
            };
            (name, content)
        })
        .collect()
}

fn tool_results(message: &Value) -> Vec<&Value> {
    message["content"].as_array().into_iter().flatten().filter(|b| b["type"] == "tool_result").collect()
}

fn anthropic_responses(messages: &[Value]) -> Vec<(String, String)> {
    let Some(last) = messages.iter().rev().map(tool_results).find(|r| !r.is_empty()) else {
        return Vec::new();
    };
    let name_of = |id: &str| {
        messages
            .iter()
            .filter_map(|m| m["content"].as_array())
            .flatten()
            .find(|b| b["type"] == "tool_use" && b["id"] == id)
            .and_then(|b| b["name"].as_str())
            .map(str::to_owned)
    };
    last.into_iter()
        .map(|block| {
            let id = block["tool_use_id"].as_str().unwrap_or_default();
            let content = block.get("content").map(text_of).unwrap_or_default();
            let content = if block["is_error"] == true { format!("Error: {content}") } else { content };
            (name_of(id).unwrap_or_else(|| id.to_owned()), content)
        })
        .collect()
}

fn openai_responses(messages: &[Value]) -> Vec<(String, String)> {
    let is_tool = |m: &Value| m["role"] == "tool";
    let Some(last) = messages.iter().rposition(is_tool) else {
        return Vec::new();
    };
    let first = messages[..last].iter().rposition(|m| !is_tool(m)).map_or(0, |i| i + 1);
    let name_of = |id: &str| {
        messages
            .iter()
            .filter_map(|m| m["tool_calls"].as_array())
            .flatten()
            .find(|c| c["id"] == id)
            .and_then(|c| c["function"]["name"].as_str())
            .map(str::to_owned)
    };
    messages[first..=last]
        .iter()
        .map(|m| {
            let id = m["tool_call_id"].as_str().unwrap_or_default();
            (name_of(id).unwrap_or_else(|| id.to_owned()), text_of(&m["content"]))
        })
        .collect()
}

/// The names of the tools a request body of any wire format declares, in order.
pub fn declared_tools(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|tool| match tool.get("functionDeclarations").and_then(Value::as_array) {
            Some(declarations) => declarations.iter().map(|d| &d["name"]).collect::<Vec<_>>(),
            None if tool.get("function").is_some() => vec![&tool["function"]["name"]],
            None => vec![&tool["name"]],
        })
        .filter_map(|name| name.as_str().map(str::to_owned))
        .collect()
}

/// Text content as a model reads it: a string as is, text blocks (OpenAI content parts,
/// Anthropic text blocks) joined, any other JSON as JSON text.
fn text_of(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Array(parts) if parts.iter().all(|p| p["text"].is_string()) => {
            parts.iter().filter_map(|p| p["text"].as_str()).collect()
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn expected() -> [(String, String); 2] {
        [("a".to_owned(), "ok".to_owned()), ("b".to_owned(), "Error: bad".to_owned())]
    }

    #[test]
    fn extracts_function_responses_from_every_wire() {
        let gemini = json!({ "contents": [
            { "role": "user", "parts": [{ "text": "go" }] },
            { "role": "model", "parts": [{ "functionCall": { "name": "a", "args": {} } }] },
            { "role": "user", "parts": [
                { "functionResponse": { "name": "a", "response": { "output": "ok" } } },
                { "functionResponse": { "name": "b", "response": { "error": "bad" } } },
            ] },
        ] });
        let openai = json!({ "messages": [
            { "role": "user", "content": "go" },
            { "role": "assistant", "content": null, "tool_calls": [
                { "id": "c1", "type": "function", "function": { "name": "a", "arguments": "{}" } },
                { "id": "c2", "type": "function", "function": { "name": "b", "arguments": "{}" } },
            ] },
            { "role": "tool", "tool_call_id": "c1", "content": "ok" },
            { "role": "tool", "tool_call_id": "c2", "content": "Error: bad" },
        ] });
        let anthropic = json!({ "messages": [
            { "role": "user", "content": [{ "type": "text", "text": "go" }] },
            { "role": "assistant", "content": [
                { "type": "tool_use", "id": "t1", "name": "a", "input": {} },
                { "type": "tool_use", "id": "t2", "name": "b", "input": {} },
            ] },
            { "role": "user", "content": [
                { "type": "tool_result", "tool_use_id": "t1", "content": [{ "type": "text", "text": "ok" }] },
                { "type": "tool_result", "tool_use_id": "t2", "content": "bad", "is_error": true },
            ] },
        ] });
        for body in [gemini, openai, anthropic] {
            assert_eq!(function_responses(&body), expected());
        }
        assert!(function_responses(&json!({ "messages": [{ "role": "user", "content": "x" }] })).is_empty());
        assert!(function_responses(&json!({ "messages": [{ "role": "user", "content": [] }] })).is_empty());
    }

    #[test]
    fn lists_declared_tools_from_every_wire() {
        let gemini = json!({ "tools": [{ "functionDeclarations": [{ "name": "a" }, { "name": "b" }] }] });
        let openai = json!({ "tools": [
            { "type": "function", "function": { "name": "a" } },
            { "type": "function", "function": { "name": "b" } },
        ] });
        let anthropic = json!({ "tools": [
            { "name": "a", "input_schema": { "type": "object" } },
            { "name": "b", "input_schema": { "type": "object" } },
        ] });
        for body in [gemini, openai, anthropic] {
            assert_eq!(declared_tools(&body), ["a", "b"]);
        }
        assert!(declared_tools(&json!({ "contents": [] })).is_empty());
    }
}
