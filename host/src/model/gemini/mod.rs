//! The Gemini API: `POST {base}/v1beta/models/{model}:streamGenerateContent?alt=sse`.
//!
//! Each SSE event is a whole `GenerateContentResponse`; function calls arrive complete,
//! with their arguments as a JSON object. Older API versions give calls no id, so calls
//! without one get a generated `gemini-call-<n>` id, which is never sent back (Gemini
//! matches responses by name and order); a real id is echoed in the `functionResponse`.
//! A response is complete once a candidate carried a `finishReason` (or the prompt a
//! `blockReason`) and the body ended; [`decode`] says what each reason means.
//!
//! Thinking models put an opaque `thoughtSignature` next to a `functionCall`; it is kept
//! in [`FunctionCall::signature`] and sent back beside the call, since Gemini 3 rejects a
//! history whose calls lack it. (Signatures on text parts are optional and not kept.)
//! Tool schemas go out as `parametersJsonSchema`, which takes JSON Schema as it is,
//! rather than `parameters`, an OpenAPI subset that rejects many valid schemas.

mod decode;

use serde_json::{Map, Value, json};

use super::http::post_sse;
use super::{Message, ModelError, ModelEvent, ModelRequest, Part, ProviderConfig, Role};
use decode::Decoder;

/// The prefix of the ids airlock makes up for calls that came without one.
const GENERATED_ID_PREFIX: &str = "gemini-call-";

pub(super) async fn stream(
    client: &reqwest::Client,
    config: &ProviderConfig,
    request: ModelRequest<'_>,
    on_event: &mut (dyn FnMut(ModelEvent) + Send),
) -> Result<(), ModelError> {
    let url = endpoint(config);
    let mut builder = client.post(&url);
    if let Some(key) = &config.api_key {
        builder = builder.header("x-goog-api-key", key);
    }
    let mut events = post_sse(builder, &url, &request_body(&request), config).await?;
    let mut decoder = Decoder::default();
    while let Some(event) = events.next().await? {
        if event.is_done() {
            break;
        }
        decoder.chunk(event.json()?, on_event)?;
    }
    decoder.finish(on_event)
}

fn endpoint(config: &ProviderConfig) -> String {
    let model = config.model.strip_prefix("models/").unwrap_or(&config.model);
    format!("{}/v1beta/models/{model}:streamGenerateContent?alt=sse", config.base_url.trim_end_matches('/'))
}

fn request_body(request: &ModelRequest<'_>) -> Value {
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

#[cfg(test)]
mod tests {
    use airlock_tests::{MockModel, Turn, Wire, call, declared_tools, function_responses};

    use super::super::test_support::{calls_of, config, sample_history, sample_tools, stream_all, text_of};
    use super::super::{FunctionCall, FunctionResponse, ProviderKind, ToolDeclaration};
    use super::*;

    #[test]
    fn request_body_carries_history_system_and_tools() {
        let history = sample_history();
        let tools = sample_tools();
        let body = request_body(&ModelRequest { system: Some("be brief"), messages: &history, tools: &tools });
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
        let body = request_body(&ModelRequest { system: None, messages: &[], tools: &tools });
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
        let body = request_body(&ModelRequest { system: None, messages: &history, tools: &[] });
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
            })
        };
        let history = vec![
            Message { role: Role::User, parts: vec![response("one")] },
            Message { role: Role::User, parts: vec![] },
            Message { role: Role::User, parts: vec![response("two")] },
        ];
        let body = request_body(&ModelRequest { system: None, messages: &history, tools: &[] });
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
    async fn streams_a_text_answer_from_the_mock() {
        let mock = MockModel::start(Wire::Gemini);
        mock.push_turn(Turn::text("Hello from the mock"));
        let history = sample_history();
        let tools = sample_tools();
        let request = ModelRequest { system: Some("sys"), messages: &history, tools: &tools };
        let (events, result) = stream_all(config(ProviderKind::Gemini, &mock.base_url()), request).await;
        assert!(result.is_ok(), "{result:?}");
        assert_eq!(text_of(&events), "Hello from the mock");
        assert!(events.iter().filter(|e| matches!(e, ModelEvent::TextDelta(_))).count() >= 2);
        assert!(matches!(events.last(), Some(ModelEvent::Finished { reason, .. }) if reason == "STOP"));
        assert!(events.iter().any(|e| matches!(e, ModelEvent::Usage(_))));

        let recorded = mock.recorded();
        assert_eq!(recorded.len(), 1);
        assert_eq!(recorded[0].path, "/v1beta/models/test-model:streamGenerateContent?alt=sse");
        assert_eq!(recorded[0].header("x-goog-api-key"), Some("test-key"));
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
        let mock = MockModel::start(Wire::Gemini);
        mock.push_turn(Turn::text_and_calls(
            "Looking.",
            vec![call("read_file", json!({ "path": "a.txt" })), call("glob", json!({ "pattern": "**/*.rs" }))],
        ));
        mock.push_turn(Turn::call_with_raw_args("read_file", "{not json"));
        let history = sample_history();
        let request = ModelRequest { system: None, messages: &history, tools: &[] };
        let config = config(ProviderKind::Gemini, &mock.base_url());

        let (events, result) = stream_all(config.clone(), request).await;
        assert!(result.is_ok(), "{result:?}");
        let calls: Vec<FunctionCall> = calls_of(&events).into_iter().cloned().collect();
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].name, "read_file");
        assert_eq!(serde_json::from_str::<Value>(&calls[0].arguments).ok(), Some(json!({ "path": "a.txt" })));
        assert_eq!(calls[1].name, "glob");
        assert_ne!(calls[0].id, calls[1].id);

        let (events, result) = stream_all(config, request).await;
        assert!(result.is_ok(), "{result:?}");
        assert!(events.iter().any(|e| matches!(e, ModelEvent::FunctionCall(c) if c.arguments == "{not json")));
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

        let (events, result) =
            stream_all(config.clone(), ModelRequest { system: None, messages: &history, tools: &[] }).await;
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
                })
            })
            .collect();
        history.push(Message { role: Role::Model, parts: calls.into_iter().map(Part::FunctionCall).collect() });
        history.push(Message { role: Role::User, parts: responses });

        let (_, result) = stream_all(config, ModelRequest { system: None, messages: &history, tools: &[] }).await;
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
}
