//! The SSE bodies of a scripted answer on each wire, as the real APIs stream them: text in
//! several pieces, calls (OpenAI and Anthropic arguments in fragments), the finish marker
//! and usage. An unfinished answer stops after the text, leaving the finish out, so the
//! caller can cut the stream there.

use serde_json::{Value, json};

use super::{Args, MockCall};

/// What every generator needs besides the text and calls.
pub(super) struct Answer<'a> {
    pub text: &'a str,
    pub calls: &'a [MockCall],
    pub usage: (u64, u64),
    /// The 1-based number of the request, for response ids.
    pub request_number: usize,
    /// The number the first generated call id gets.
    pub first_call_id: u64,
    /// Whether the answer ends (finish reason, usage, end marker) or is left open.
    pub finished: bool,
}

/// `text` in up to `pieces` pieces of about equal length, cut at character boundaries.
pub(super) fn split(text: &str, pieces: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    if chars.is_empty() {
        return Vec::new();
    }
    let size = chars.len().div_ceil(pieces.max(1));
    chars.chunks(size).map(|c| c.iter().collect()).collect()
}

fn arguments_text(call: &MockCall) -> String {
    match &call.args {
        Args::Json(args) => args.to_string(),
        Args::Raw(raw) => raw.clone(),
    }
}

pub(super) fn gemini(answer: &Answer<'_>) -> Vec<String> {
    let (input, output) = answer.usage;
    let mut parts: Vec<Vec<Value>> = split(answer.text, 3).into_iter().map(|t| vec![json!({ "text": t })]).collect();
    let call_parts = answer.calls.iter().map(|c| {
        let args = match &c.args {
            Args::Json(args) => args.clone(),
            Args::Raw(raw) => Value::String(raw.clone()),
        };
        let mut function_call = json!({ "name": c.name, "args": args });
        if let (Some(id), Value::Object(map)) = (&c.id, &mut function_call) {
            map.insert("id".into(), Value::String(id.clone()));
        }
        let mut part = json!({ "functionCall": function_call });
        if let Some(signature) = &c.signature {
            part["thoughtSignature"] = Value::String(signature.clone());
        }
        part
    });
    match parts.last_mut() {
        Some(last) => last.extend(call_parts),
        None => parts.push(call_parts.collect()),
    }
    parts.retain(|p| !p.is_empty() || answer.finished);
    let count = parts.len();
    parts
        .into_iter()
        .enumerate()
        .map(|(i, parts)| {
            let mut candidate = json!({ "content": { "role": "model", "parts": parts }, "index": 0 });
            let mut chunk = json!({ "modelVersion": "mock" });
            if i + 1 == count && answer.finished {
                candidate["finishReason"] = json!("STOP");
                chunk["usageMetadata"] = json!({
                    "promptTokenCount": input,
                    "candidatesTokenCount": output,
                    "totalTokenCount": input + output,
                });
            }
            chunk["candidates"] = json!([candidate]);
            format!("data: {chunk}\r\n\r\n")
        })
        .collect()
}

pub(super) fn openai(answer: &Answer<'_>) -> Vec<String> {
    let (input, output) = answer.usage;
    let id = format!("chatcmpl-mock-{}", answer.request_number);
    let chunk = |delta: Value, finish: Value| {
        let chunk = json!({
            "id": id, "object": "chat.completion.chunk", "created": 1_700_000_000, "model": "mock",
            "choices": [{ "index": 0, "delta": delta, "finish_reason": finish }],
        });
        format!("data: {chunk}\n\n")
    };
    let mut chunks = vec![chunk(json!({ "role": "assistant", "content": "" }), Value::Null)];
    for piece in split(answer.text, 3) {
        chunks.push(chunk(json!({ "content": piece }), Value::Null));
    }
    for (index, (call, number)) in answer.calls.iter().zip(answer.first_call_id..).enumerate() {
        let call_id = call.id.clone().unwrap_or_else(|| format!("call_{number}"));
        chunks.push(chunk(
            json!({ "tool_calls": [{
                "index": index, "id": call_id, "type": "function",
                "function": { "name": call.name, "arguments": "" },
            }] }),
            Value::Null,
        ));
        for fragment in split(&arguments_text(call), 3) {
            chunks.push(chunk(
                json!({ "tool_calls": [{ "index": index, "function": { "arguments": fragment } }] }),
                Value::Null,
            ));
        }
    }
    if !answer.finished {
        return chunks;
    }
    let finish = if answer.calls.is_empty() { "stop" } else { "tool_calls" };
    chunks.push(chunk(json!({}), json!(finish)));
    let usage = json!({
        "id": id, "object": "chat.completion.chunk", "created": 1_700_000_000, "model": "mock", "choices": [],
        "usage": { "prompt_tokens": input, "completion_tokens": output, "total_tokens": input + output },
    });
    chunks.push(format!("data: {usage}\n\n"));
    chunks.push("data: [DONE]\n\n".to_owned());
    chunks
}

pub(super) fn anthropic(answer: &Answer<'_>) -> Vec<String> {
    let (input, output) = answer.usage;
    let event = |data: Value| format!("event: {}\ndata: {data}\n\n", data["type"].as_str().unwrap_or_default());
    let mut chunks = vec![
        event(json!({ "type": "message_start", "message": {
            "id": format!("msg_mock_{}", answer.request_number), "type": "message", "role": "assistant",
            "model": "mock", "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": { "input_tokens": input, "output_tokens": 1 },
        } })),
        event(json!({ "type": "ping" })),
    ];
    let mut index = 0;
    if !answer.text.is_empty() {
        chunks.push(event(json!({
            "type": "content_block_start", "index": index, "content_block": { "type": "text", "text": "" },
        })));
        for piece in split(answer.text, 3) {
            chunks.push(event(json!({
                "type": "content_block_delta", "index": index, "delta": { "type": "text_delta", "text": piece },
            })));
        }
        if !answer.finished {
            return chunks;
        }
        chunks.push(event(json!({ "type": "content_block_stop", "index": index })));
        index += 1;
    }
    if !answer.finished {
        return chunks;
    }
    for (call, number) in answer.calls.iter().zip(answer.first_call_id..) {
        let id = call.id.clone().unwrap_or_else(|| format!("toolu_mock_{number}"));
        chunks.push(event(json!({
            "type": "content_block_start", "index": index,
            "content_block": { "type": "tool_use", "id": id, "name": call.name, "input": {} },
        })));
        for fragment in split(&arguments_text(call), 3) {
            chunks.push(event(json!({
                "type": "content_block_delta", "index": index,
                "delta": { "type": "input_json_delta", "partial_json": fragment },
            })));
        }
        chunks.push(event(json!({ "type": "content_block_stop", "index": index })));
        index += 1;
    }
    let stop = if answer.calls.is_empty() { "end_turn" } else { "tool_use" };
    chunks.push(event(json!({
        "type": "message_delta",
        "delta": { "stop_reason": stop, "stop_sequence": null },
        "usage": { "output_tokens": output },
    })));
    chunks.push(event(json!({ "type": "message_stop" })));
    chunks
}

#[cfg(test)]
mod tests {
    use super::super::call;
    use super::*;

    fn answer<'a>(text: &'a str, calls: &'a [MockCall], finished: bool) -> Answer<'a> {
        Answer { text, calls, usage: (7, 3), request_number: 1, first_call_id: 5, finished }
    }

    fn data(chunk: &str) -> Value {
        let data = chunk.lines().find_map(|l| l.strip_prefix("data: ")).unwrap_or_default();
        serde_json::from_str(data).unwrap_or_default()
    }

    #[test]
    fn splits_text_into_pieces_at_char_boundaries() {
        assert_eq!(split("héllo🦀", 3), ["hé", "ll", "o🦀"]);
        assert_eq!(split("abcdefg", 3), ["abc", "def", "g"]);
        assert_eq!(split("a", 3), ["a"]);
        assert!(split("", 3).is_empty());
    }

    #[test]
    fn gemini_chunks_carry_text_calls_finish_and_usage() {
        let calls = [call("glob", json!({ "pattern": "*" })).with_signature("sig"), call("ls", json!({}))];
        let chunks = gemini(&answer("hello", &calls, true));
        assert!(chunks.len() >= 2);
        let last = data(&chunks[chunks.len() - 1]);
        assert_eq!(last["candidates"][0]["finishReason"], "STOP");
        assert_eq!(last["usageMetadata"]["promptTokenCount"], 7);
        let parts = &last["candidates"][0]["content"]["parts"];
        assert_eq!(parts[1]["functionCall"]["name"], "glob");
        assert_eq!(parts[1]["thoughtSignature"], "sig");
        assert_eq!(parts[2].get("thoughtSignature"), None);
        let open = gemini(&answer("hello", &[], false));
        assert!(open.iter().all(|c| !c.contains("finishReason")), "{open:?}");
        assert!(gemini(&answer("", &[], false)).is_empty());
    }

    #[test]
    fn openai_chunks_fragment_arguments_and_end_with_done() {
        let chunks = openai(&answer("", &[call("glob", json!({ "pattern": "*.rs" }))], true));
        assert_eq!(chunks.last().map(String::as_str), Some("data: [DONE]\n\n"));
        let fragments: String = chunks
            .iter()
            .filter_map(|c| {
                data(c)["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"].as_str().map(str::to_owned)
            })
            .collect();
        assert_eq!(fragments, r#"{"pattern":"*.rs"}"#);
        assert!(chunks.iter().any(|c| c.contains("\"id\":\"call_5\"")));
        assert!(chunks.iter().any(|c| c.contains("\"finish_reason\":\"tool_calls\"")));
        let open = openai(&answer("partial", &[], false));
        assert!(open.iter().all(|c| !c.contains("[DONE]") && !c.contains("\"finish_reason\":\"")), "{open:?}");
    }

    #[test]
    fn anthropic_events_open_blocks_stream_json_and_stop() {
        let calls = [call("glob", json!({ "pattern": "*.rs" }))];
        let chunks = anthropic(&answer("hi there", &calls, true));
        let events: Vec<Value> = chunks.iter().map(|c| data(c)).collect();
        let types: Vec<&str> = events.iter().filter_map(|e| e["type"].as_str()).collect();
        assert_eq!(types.first(), Some(&"message_start"));
        assert_eq!(types[types.len() - 2..], ["message_delta", "message_stop"]);
        assert!(chunks.iter().all(|c| c.starts_with("event: ") && c.ends_with("\n\n")));
        let start = events.iter().find(|e| e["content_block"]["type"] == "tool_use").cloned().unwrap_or_default();
        assert_eq!((start["index"].as_u64(), start["content_block"]["id"].as_str()), (Some(1), Some("toolu_mock_5")));
        let json: String =
            events.iter().filter_map(|e| e["delta"]["partial_json"].as_str()).collect::<Vec<_>>().concat();
        assert_eq!(json, r#"{"pattern":"*.rs"}"#);
        assert_eq!(events[events.len() - 2]["delta"]["stop_reason"], "tool_use");
        assert_eq!(events[events.len() - 2]["usage"]["output_tokens"], 3);
        let open = anthropic(&answer("partial", &[], false));
        assert!(open.iter().all(|c| !c.contains("message_stop") && !c.contains("content_block_stop")), "{open:?}");
    }
}
