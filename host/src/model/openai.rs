//! OpenAI-compatible chat completions: `POST {base}/chat/completions` with `stream: true`
//! (OpenAI, Ollama, vLLM, llama.cpp, LM Studio, OpenRouter, ...).
//!
//! Tool calls stream in fragments keyed by `index`: the first fragment of a call usually
//! brings its id and name, later ones pieces of the argument text. Calls are assembled per
//! index and passed on, in index order, once a `finish_reason` arrives. A response is
//! complete at `[DONE]` or when the body ends, and only if a `finish_reason` came: a
//! stream without one was cut, whatever its end looked like. Usage comes in its own chunk
//! with no choices.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::http::post_sse;
use super::{
    FunctionCall, Message, ModelError, ModelEvent, ModelRequest, Part, ProviderConfig, Role, Stop, Usage,
    generated_call_id,
};

pub(super) async fn stream(
    client: &reqwest::Client,
    config: &ProviderConfig,
    request: ModelRequest<'_>,
    on_event: &mut (dyn FnMut(ModelEvent) + Send),
) -> Result<(), ModelError> {
    let url = format!("{}/chat/completions", config.base_url.trim_end_matches('/'));
    let mut builder = client.post(&url);
    if let Some(key) = &config.api_key {
        builder = builder.bearer_auth(key);
    }
    let mut events = post_sse(builder, &url, &request_body(&config.model, &request), config).await?;
    let mut decoder = Decoder::default();
    while let Some(event) = events.next().await? {
        if event.is_done() {
            break;
        }
        decoder.chunk(event.json()?, on_event)?;
    }
    decoder.finish(on_event)
}

fn request_body(model: &str, request: &ModelRequest<'_>) -> Value {
    let mut messages = Vec::new();
    if let Some(system) = request.system.filter(|s| !s.is_empty()) {
        messages.push(json!({ "role": "system", "content": system }));
    }
    for message in request.messages {
        push_message(&mut messages, message);
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
fn push_message(out: &mut Vec<Value>, message: &Message) {
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

#[derive(Debug, Deserialize)]
struct Chunk {
    choices: Option<Vec<Choice>>,
    usage: Option<WireUsage>,
    error: Option<Value>,
}

#[derive(Debug, Deserialize)]
struct Choice {
    delta: Option<Delta>,
    finish_reason: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Delta {
    content: Option<String>,
    reasoning_content: Option<String>,
    reasoning: Option<String>,
    tool_calls: Option<Vec<ToolCallDelta>>,
}

#[derive(Debug, Deserialize)]
struct ToolCallDelta {
    index: Option<usize>,
    id: Option<String>,
    function: Option<FunctionDelta>,
}

#[derive(Debug, Deserialize)]
struct FunctionDelta {
    name: Option<String>,
    /// Text by the spec; a few servers send an object.
    arguments: Option<Value>,
}

#[derive(Debug, Deserialize)]
struct WireUsage {
    prompt_tokens: Option<u64>,
    completion_tokens: Option<u64>,
}

/// A call being assembled from fragments.
#[derive(Debug, Default)]
struct PendingCall {
    id: Option<String>,
    name: String,
    arguments: String,
}

#[derive(Debug, Default)]
struct Decoder {
    calls: BTreeMap<usize, PendingCall>,
    /// The index the last fragment went to, for servers that leave `index` out.
    last_index: Option<usize>,
    finish_reason: Option<String>,
    usage: Option<Usage>,
}

impl Decoder {
    fn chunk(&mut self, chunk: Chunk, on_event: &mut (dyn FnMut(ModelEvent) + Send)) -> Result<(), ModelError> {
        if let Some(error) = chunk.error {
            return Err(stream_error(&error));
        }
        if let Some(usage) = chunk.usage {
            self.usage = Some(Usage {
                input_tokens: usage.prompt_tokens.unwrap_or(0),
                output_tokens: usage.completion_tokens.unwrap_or(0),
            });
        }
        // airlock asks for one choice.
        let Some(choice) = chunk.choices.and_then(|c| c.into_iter().next()) else {
            return Ok(());
        };
        if let Some(delta) = choice.delta {
            for thought in [delta.reasoning_content, delta.reasoning].into_iter().flatten() {
                if !thought.is_empty() {
                    on_event(ModelEvent::Thought(thought));
                }
            }
            if let Some(text) = delta.content.filter(|t| !t.is_empty()) {
                on_event(ModelEvent::TextDelta(text));
            }
            for fragment in delta.tool_calls.into_iter().flatten() {
                self.add_fragment(fragment);
            }
        }
        if let Some(reason) = choice.finish_reason {
            self.flush_calls(on_event);
            self.finish_reason = Some(reason);
        }
        Ok(())
    }

    fn add_fragment(&mut self, fragment: ToolCallDelta) {
        let index = match fragment.index {
            Some(index) => index,
            // Without an index, a new id starts a new call; anything else continues the last.
            None => match (&fragment.id, self.last_index) {
                (Some(id), Some(last)) if self.calls.get(&last).is_some_and(|c| c.id.as_ref() == Some(id)) => last,
                (None, Some(last)) => last,
                _ => self.calls.keys().next_back().map_or(0, |k| k + 1),
            },
        };
        self.last_index = Some(index);
        let call = self.calls.entry(index).or_default();
        if let Some(id) = fragment.id.filter(|id| !id.is_empty()) {
            call.id.get_or_insert(id);
        }
        let Some(function) = fragment.function else {
            return;
        };
        // Names normally come whole in one fragment; some servers repeat them in every
        // fragment, which must not double them.
        if let Some(name) = function.name.filter(|n| !n.is_empty() && *n != call.name) {
            call.name.push_str(&name);
        }
        match function.arguments {
            Some(Value::String(piece)) => call.arguments.push_str(&piece),
            None | Some(Value::Null) => {}
            Some(whole) => call.arguments = whole.to_string(),
        }
    }

    fn flush_calls(&mut self, on_event: &mut (dyn FnMut(ModelEvent) + Send)) {
        self.last_index = None;
        for call in std::mem::take(&mut self.calls).into_values() {
            let arguments = if call.arguments.trim().is_empty() { "{}".to_owned() } else { call.arguments };
            on_event(ModelEvent::FunctionCall(FunctionCall {
                id: call.id.unwrap_or_else(|| generated_call_id("call-")),
                name: call.name,
                arguments,
                signature: None,
            }));
        }
    }

    /// Ends the response: a stream that never said why it stopped was cut.
    fn finish(self, on_event: &mut (dyn FnMut(ModelEvent) + Send)) -> Result<(), ModelError> {
        let Some(reason) = self.finish_reason else {
            return Err(ModelError::Truncated);
        };
        if let Some(usage) = self.usage {
            on_event(ModelEvent::Usage(usage));
        }
        let stop = stop_of(&reason);
        on_event(ModelEvent::Finished { reason, stop });
        Ok(())
    }
}

/// What a `finish_reason` means. Besides OpenAI's words, a few compatible servers end a
/// whole answer with `eos`, `eos_token` or `stop_sequence`.
fn stop_of(reason: &str) -> Stop {
    match reason {
        "stop" | "tool_calls" | "function_call" | "eos" | "eos_token" | "stop_sequence" => Stop::Normal,
        "length" => Stop::MaxTokens,
        "content_filter" => Stop::Blocked,
        _ => Stop::Unknown,
    }
}

/// An error a server reported inside the stream, after answering 200 (OpenRouter, vLLM).
fn stream_error(error: &Value) -> ModelError {
    let status = error["code"].as_u64().and_then(|c| u16::try_from(c).ok()).unwrap_or(500);
    let body = error["message"].as_str().or(error.as_str()).map_or_else(|| error.to_string(), str::to_owned);
    ModelError::Http { status, body, retry_after: None }
}

#[cfg(test)]
mod tests {
    use airlock_tests::{MockModel, Turn, Wire, call, declared_tools, function_responses};

    use super::super::ProviderKind;
    use super::super::test_support::{calls_of, config, sample_history, sample_tools, stream_all, text_of};
    use super::*;

    /// Runs chunks through a decoder the way [`stream`] does.
    fn decode(chunks: &[&str]) -> (Vec<ModelEvent>, Result<(), ModelError>) {
        let mut events = Vec::new();
        let mut on_event = |e| events.push(e);
        let mut decoder = Decoder::default();
        for chunk in chunks {
            let parsed = serde_json::from_str(chunk).map_err(|e| ModelError::MalformedStream(e.to_string()));
            if let Err(e) = parsed.and_then(|c| decoder.chunk(c, &mut on_event)) {
                return (events, Err(e));
            }
        }
        let result = decoder.finish(&mut on_event);
        (events, result)
    }

    #[test]
    fn request_body_carries_history_system_and_tools() {
        let history = sample_history();
        let tools = sample_tools();
        let body = request_body("m", &ModelRequest { system: Some("be brief"), messages: &history, tools: &tools });
        let expected = json!({
            "model": "m",
            "messages": [
                { "role": "system", "content": "be brief" },
                { "role": "user", "content": "read two files" },
                { "role": "assistant", "content": "Reading them.", "tool_calls": [
                    { "id": "call-a", "type": "function",
                      "function": { "name": "read_file", "arguments": "{\"path\":\"a.txt\"}" } },
                    { "id": "gemini-call-1000", "type": "function",
                      "function": { "name": "read_file", "arguments": "{\"path\": \"b.txt\"" } },
                ] },
                { "role": "tool", "tool_call_id": "call-a", "content": "alpha" },
                { "role": "tool", "tool_call_id": "gemini-call-1000", "content": "Error: no such file: b.txt" },
            ],
            "stream": true,
            "stream_options": { "include_usage": true },
            "tools": [{ "type": "function", "function": {
                "name": "read_file",
                "description": "Reads a file",
                "parameters": { "type": "object", "properties": { "path": { "type": "string" } } },
            } }],
        });
        assert_eq!(body, expected);
    }

    #[test]
    fn request_body_omits_empty_tools_and_puts_tool_messages_before_user_text() {
        let history = vec![
            Message {
                role: Role::Model,
                parts: vec![Part::FunctionCall(FunctionCall {
                    id: "c".into(),
                    name: "glob".into(),
                    arguments: "{}".into(),
                    signature: None,
                })],
            },
            Message {
                role: Role::User,
                parts: vec![
                    Part::Text { text: "also this".into() },
                    Part::FunctionResponse(super::super::FunctionResponse {
                        id: "c".into(),
                        name: "glob".into(),
                        content: "x".into(),
                        is_error: false,
                    }),
                ],
            },
        ];
        let body = request_body("m", &ModelRequest { system: None, messages: &history, tools: &[] });
        assert!(body.get("tools").is_none());
        assert_eq!(
            body["messages"],
            json!([
                { "role": "assistant", "content": null, "tool_calls": [
                    { "id": "c", "type": "function", "function": { "name": "glob", "arguments": "{}" } },
                ] },
                { "role": "tool", "tool_call_id": "c", "content": "x" },
                { "role": "user", "content": "also this" },
            ])
        );
    }

    #[test]
    fn assembles_parallel_calls_from_interleaved_fragments() {
        let (events, result) = decode(&[
            r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":"","reasoning_content":"hmm"}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"Sure."}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"read_file","arguments":""}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"b","type":"function","function":{"name":"glob","arguments":"{\"pat"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"path\":"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"tern\":\"*\"}"}},{"index":0,"function":{"arguments":"\"a\"}"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":2,"function":{"name":"list_directory"}}]},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":null}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":4,"total_tokens":13}}"#,
        ]);
        assert!(result.is_ok(), "{result:?}");
        assert_eq!(events[..2], [ModelEvent::Thought("hmm".into()), ModelEvent::TextDelta("Sure.".into())]);
        let calls = calls_of(&events);
        assert_eq!(calls.len(), 3);
        assert_eq!((calls[0].id.as_str(), calls[0].name.as_str()), ("a", "read_file"));
        assert_eq!(calls[0].arguments, r#"{"path":"a"}"#);
        assert_eq!((calls[1].id.as_str(), calls[1].arguments.as_str()), ("b", r#"{"pattern":"*"}"#));
        assert_eq!(calls[2].name, "list_directory");
        assert_eq!(calls[2].arguments, "{}");
        assert!(calls[2].id.starts_with("call-"));
        assert_eq!(
            events[events.len() - 2..],
            [
                ModelEvent::Usage(Usage { input_tokens: 9, output_tokens: 4 }),
                ModelEvent::Finished { reason: "tool_calls".into(), stop: Stop::Normal },
            ]
        );
    }

    #[test]
    fn tolerates_missing_indexes_repeated_names_and_object_arguments() {
        let (events, result) = decode(&[
            r#"{"choices":[{"delta":{"tool_calls":[{"id":"x","function":{"name":"glob","arguments":"{\"a\""}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"id":"x","function":{"name":"glob","arguments":":1}"}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"id":"y","function":{"name":"grep","arguments":{"q":"z"}}}]}}]}"#,
            r#"{"choices":[{"delta":{},"finish_reason":"stop"}]}"#,
        ]);
        assert!(result.is_ok(), "{result:?}");
        let calls = calls_of(&events);
        assert_eq!(calls.len(), 2);
        assert_eq!((calls[0].name.as_str(), calls[0].arguments.as_str()), ("glob", r#"{"a":1}"#));
        assert_eq!((calls[1].name.as_str(), calls[1].arguments.as_str()), ("grep", r#"{"q":"z"}"#));
        assert!(matches!(events.last(), Some(ModelEvent::Finished { reason, .. }) if reason == "stop"));
    }

    #[test]
    fn a_stream_without_a_finish_reason_is_cut_even_when_it_says_done() {
        let (events, result) = decode(&[r#"{"choices":[{"index":0,"delta":{"content":"half"}}]}"#]);
        assert_eq!(events, [ModelEvent::TextDelta("half".into())]);
        assert!(matches!(result, Err(ModelError::Truncated)));
        let (events, result) = decode(&[
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"glob"}}]}}]}"#,
        ]);
        assert!(events.is_empty(), "a call of a cut stream is never passed on: {events:?}");
        assert!(matches!(result, Err(ModelError::Truncated)));
    }

    #[tokio::test]
    async fn done_without_a_finish_reason_is_a_cut_stream_and_retried() {
        let mock = MockModel::start(Wire::OpenAi);
        mock.push_turn(Turn::raw_sse(
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"}}]}\n\ndata: [DONE]\n\n",
        ));
        mock.push_turn(Turn::text("whole"));
        let history = sample_history();
        let request = ModelRequest { system: None, messages: &history, tools: &[] };
        let (events, result) = stream_all(config(ProviderKind::Openai, &mock.base_url()), request).await;
        assert!(result.is_ok(), "{result:?}");
        assert_eq!(mock.requests().len(), 2);
        assert_eq!(text_of(&events), "whole");
    }

    #[test]
    fn finish_reasons_say_what_they_mean() {
        for (reason, stop) in [
            ("stop", Stop::Normal),
            ("tool_calls", Stop::Normal),
            ("length", Stop::MaxTokens),
            ("content_filter", Stop::Blocked),
            ("something_new", Stop::Unknown),
        ] {
            let finish =
                format!(r#"{{"choices":[{{"index":0,"delta":{{"content":"x"}},"finish_reason":"{reason}"}}]}}"#);
            let (events, result) = decode(&[&finish]);
            assert!(result.is_ok(), "{reason}: {result:?}");
            assert_eq!(events.last(), Some(&ModelEvent::Finished { reason: reason.into(), stop }), "{reason}");
        }
    }

    #[test]
    fn an_error_inside_the_stream_is_reported() {
        let (_, result) = decode(&[r#"{"error":{"message":"upstream overloaded","code":502}}"#]);
        assert!(matches!(result, Err(ModelError::Http { status: 502, body, .. }) if body == "upstream overloaded"));
    }

    #[tokio::test]
    async fn streams_a_text_answer_from_the_mock() {
        let mock = MockModel::start(Wire::OpenAi);
        mock.push_turn(Turn::text("Hello from the mock").with_usage(42, 7));
        let history = sample_history();
        let tools = sample_tools();
        let request = ModelRequest { system: Some("sys"), messages: &history, tools: &tools };
        let (events, result) = stream_all(config(ProviderKind::Openai, &mock.base_url()), request).await;
        assert!(result.is_ok(), "{result:?}");
        assert_eq!(text_of(&events), "Hello from the mock");
        assert_eq!(
            events[events.len() - 2..],
            [
                ModelEvent::Usage(Usage { input_tokens: 42, output_tokens: 7 }),
                ModelEvent::Finished { reason: "stop".into(), stop: Stop::Normal },
            ]
        );

        let recorded = mock.recorded();
        assert_eq!(recorded.len(), 1);
        assert_eq!(recorded[0].path, "/v1/chat/completions");
        assert_eq!(recorded[0].header("authorization"), Some("Bearer test-key"));
        assert_eq!(recorded[0].body["model"], "test-model");
        assert_eq!(declared_tools(&recorded[0].body), ["read_file"]);
        assert_eq!(
            function_responses(&recorded[0].body),
            [
                ("read_file".to_owned(), "alpha".to_owned()),
                ("read_file".to_owned(), "Error: no such file: b.txt".to_owned()),
            ]
        );
    }

    #[tokio::test]
    async fn streams_parallel_calls_and_raw_arguments_from_the_mock() {
        let mock = MockModel::start(Wire::OpenAi);
        mock.push_turn(Turn::text_and_calls(
            "Looking.",
            vec![
                call("read_file", json!({ "path": "a.txt" })),
                call("glob", json!({ "pattern": "**/*.rs" })),
                call("read_file", json!({ "path": "b.txt" })).with_id("fixed-id"),
            ],
        ));
        mock.push_turn(Turn::call_with_raw_args("read_file", "{not json"));
        let history = sample_history();
        let request = ModelRequest { system: None, messages: &history, tools: &[] };
        let config = config(ProviderKind::Openai, &mock.base_url());

        let (events, result) = stream_all(config.clone(), request).await;
        assert!(result.is_ok(), "{result:?}");
        let calls = calls_of(&events);
        assert_eq!(calls.len(), 3);
        assert_eq!(serde_json::from_str::<Value>(&calls[0].arguments).ok(), Some(json!({ "path": "a.txt" })));
        assert_eq!(serde_json::from_str::<Value>(&calls[1].arguments).ok(), Some(json!({ "pattern": "**/*.rs" })));
        assert_eq!(calls[2].id, "fixed-id");
        assert_ne!(calls[0].id, calls[1].id);
        assert!(matches!(events.last(), Some(ModelEvent::Finished { reason, .. }) if reason == "tool_calls"));

        let (events, result) = stream_all(config, request).await;
        assert!(result.is_ok(), "{result:?}");
        assert!(events.iter().any(|e| matches!(e, ModelEvent::FunctionCall(c) if c.arguments == "{not json")));
    }
}
