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

use bytes::Bytes;
use futures_util::Stream;
use serde_json::{Map, Value, json};

use super::http::post_sse;
use super::sse::SseStream;
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
    let events = post_sse(builder, &url, &request_body(&request), config).await?;
    decode(events, on_event).await
}

/// Turns the events of an answer's body into [`ModelEvent`]s.
pub(super) async fn decode<S, E>(
    mut events: SseStream<S>,
    on_event: &mut (dyn FnMut(ModelEvent) + Send),
) -> Result<(), ModelError>
where
    S: Stream<Item = Result<Bytes, E>> + Unpin,
{
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
#[path = "mod_tests.rs"]
mod tests;
