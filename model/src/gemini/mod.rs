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
//!
//! Images and PDFs (a call's media, a user's attachments) are `inlineData` parts; a call's
//! media follow its `functionResponse` as sibling parts of the same `user` content.

mod decode;

use bytes::Bytes;
use futures_util::Stream;
use serde_json::Value;

use super::history::{Fragments, with_fragments};
use super::http::post_sse;
use super::json;
use super::sse::SseStream;
use super::structured;
use super::{Media, Message, ModelError, ModelEvent, ModelRequest, Part, ProviderConfig, ProviderKind, Role};
use decode::Decoder;

/// The prefix of the ids airlock makes up for calls that came without one.
const GENERATED_ID_PREFIX: &str = "gemini-call-";

pub(super) async fn stream(
    client: &reqwest::Client,
    config: &ProviderConfig,
    body: Vec<u8>,
    on_event: &mut (dyn FnMut(ModelEvent) + Send),
) -> Result<(), ModelError> {
    let url = endpoint(config);
    let mut builder = client.post(&url);
    if let Some(key) = &config.api_key {
        builder = builder.header("x-goog-api-key", key);
    }
    let events = post_sse(builder, &url, body, config).await?;
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

/// The body, written straight from the history: `contents` (each message's parts from the
/// request's cache when it has them), `systemInstruction`, `tools`.
pub(super) fn request_body(request: &ModelRequest<'_>) -> Vec<u8> {
    let mut out = Vec::with_capacity(4096);
    out.extend_from_slice(b"{\"contents\":[");
    with_fragments(request.cache, ProviderKind::Gemini, request.messages, encode_message, |entries| {
        let size: usize = entries.iter().map(|e| e.first.len() + 32).sum();
        out.reserve(size);
        contents(&mut out, entries);
    });
    out.push(b']');
    if let Some(schema) = request.output_schema {
        structured::gemini_field(&mut out, schema);
    }
    if let Some(system) = request.system.filter(|s| !s.is_empty()) {
        out.extend_from_slice(b",\"systemInstruction\":{\"parts\":[{\"text\":");
        json::string(&mut out, system);
        out.extend_from_slice(b"}]}");
    }
    if !request.tools.is_empty() {
        out.extend_from_slice(b",\"tools\":[{\"functionDeclarations\":[");
        for (i, tool) in request.tools.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(b"{\"description\":");
            json::string(&mut out, &tool.description);
            out.extend_from_slice(b",\"name\":");
            json::string(&mut out, &tool.name);
            if !tool.parameters.is_null() {
                out.extend_from_slice(b",\"parametersJsonSchema\":");
                json::value(&mut out, &parameters_schema(&tool.parameters));
            }
            out.push(b'}');
        }
        out.extend_from_slice(b"]}]");
    }
    out.push(b'}');
    out
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
fn contents(out: &mut Vec<u8>, entries: &[Fragments]) {
    let mut open: Option<Role> = None;
    let mut first_part = true;
    for entry in entries.iter().filter(|e| !e.is_empty()) {
        if open != Some(entry.role) {
            if let Some(role) = open {
                close_content(out, role);
                out.push(b',');
            }
            out.extend_from_slice(b"{\"parts\":[");
            open = Some(entry.role);
            first_part = true;
        }
        json::push_items(out, &mut first_part, &entry.first);
    }
    if let Some(role) = open {
        close_content(out, role);
    }
}

fn close_content(out: &mut Vec<u8>, role: Role) {
    out.extend_from_slice(match role {
        Role::User => b"],\"role\":\"user\"}",
        Role::Model => b"],\"role\":\"model\"}",
    });
}

/// A message's parts, empty texts left out.
fn encode_message(message: &Message) -> Fragments {
    let mut fragments = Fragments::new(message.role);
    for part in &message.parts {
        encode_part(&mut fragments.first, part);
    }
    fragments
}

fn encode_part(out: &mut Vec<u8>, part: &Part) {
    match part {
        Part::Text { text } if text.is_empty() => {}
        Part::Text { text } => {
            json::next_item(out);
            out.extend_from_slice(b"{\"text\":");
            json::string(out, text);
            out.push(b'}');
        }
        Part::FunctionCall(call) => {
            json::next_item(out);
            // Gemini takes arguments as an object; arguments the model got wrong were
            // already answered with an error, so an empty object stands in for them.
            out.extend_from_slice(b"{\"functionCall\":{\"args\":");
            match serde_json::from_str::<Value>(&call.arguments) {
                Ok(args @ Value::Object(_)) => json::value(out, &args),
                _ => out.extend_from_slice(b"{}"),
            }
            echo_id(out, &call.id);
            out.extend_from_slice(b",\"name\":");
            json::string(out, &call.name);
            out.push(b'}');
            if let Some(signature) = &call.signature {
                out.extend_from_slice(b",\"thoughtSignature\":");
                json::string(out, signature);
            }
            out.push(b'}');
        }
        Part::FunctionResponse(response) => {
            json::next_item(out);
            out.extend_from_slice(b"{\"functionResponse\":{");
            if !response.id.starts_with(GENERATED_ID_PREFIX) {
                out.extend_from_slice(b"\"id\":");
                json::string(out, &response.id);
                out.push(b',');
            }
            out.extend_from_slice(b"\"name\":");
            json::string(out, &response.name);
            out.extend_from_slice(if response.is_error {
                b",\"response\":{\"error\":"
            } else {
                b",\"response\":{\"output\":"
            });
            json::string(out, &response.content);
            out.extend_from_slice(b"}}}");
            // Media go as sibling `inlineData` parts after the response: every Gemini model
            // takes those, while media nested in `functionResponse.parts` need Gemini 3.
            for media in &response.media {
                media_part(out, media);
            }
        }
        Part::Media(media) => media_part(out, media),
    }
}

/// `{"inlineData":{"data":…,"mimeType":…}}`, or a text part standing in for media the wire
/// cannot send.
fn media_part(out: &mut Vec<u8>, media: &Media) {
    json::next_item(out);
    match media.sendable() {
        Ok(_) => {
            out.extend_from_slice(b"{\"inlineData\":{\"data\":");
            media.write_base64(out, "");
            out.extend_from_slice(b",\"mimeType\":");
            json::string(out, &media.mime_type);
            out.extend_from_slice(b"}}");
        }
        Err(why) => {
            out.extend_from_slice(b"{\"text\":");
            json::string(out, &media.stand_in(why));
            out.push(b'}');
        }
    }
}

/// Writes `,"id":...` unless the id is one airlock made up.
fn echo_id(out: &mut Vec<u8>, id: &str) {
    if !id.starts_with(GENERATED_ID_PREFIX) {
        out.extend_from_slice(b",\"id\":");
        json::string(out, id);
    }
}

#[cfg(test)]
#[path = "mod_tests.rs"]
mod tests;
