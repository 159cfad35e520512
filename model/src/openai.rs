//! OpenAI-compatible chat completions: `POST {base}/chat/completions` with `stream: true`
//! (OpenAI, Ollama, vLLM, llama.cpp, LM Studio, OpenRouter, ...).
//!
//! Tool calls stream in fragments keyed by `index`: the first fragment of a call usually
//! brings its id and name, later ones pieces of the argument text. Calls are assembled per
//! index and passed on, in index order, once a `finish_reason` arrives. A response is
//! complete at `[DONE]` or when the body ends, and only if a `finish_reason` came: a
//! stream without one was cut, whatever its end looked like. Usage comes in its own chunk
//! with no choices.
//!
//! A `tool` message takes only text, so the images and PDFs of a turn's calls (and a
//! user's attachments) go in the `user` message that follows its tool results: images as
//! `image_url` parts with a data URL, PDFs as `file` parts with `file_data`.

use std::collections::BTreeMap;

use bytes::Bytes;
use futures_util::Stream;
use serde::Deserialize;
use serde_json::Value;

use super::history::{Fragments, with_fragments};
use super::http::post_sse;
use super::json;
use super::sse::SseStream;
use super::structured;
use super::{
    FunctionCall, Media, MediaKind, Message, ModelError, ModelEvent, ModelRequest, Part, ProviderConfig, ProviderKind,
    Role, Stop, Usage, generated_call_id,
};

pub(super) async fn stream(
    client: &reqwest::Client,
    config: &ProviderConfig,
    body: Vec<u8>,
    on_event: &mut (dyn FnMut(ModelEvent) + Send),
) -> Result<(), ModelError> {
    let url = format!("{}/chat/completions", config.base_url.trim_end_matches('/'));
    let mut builder = client.post(&url);
    if let Some(key) = &config.api_key {
        builder = builder.bearer_auth(key);
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

/// The body, written straight from the history: the system prompt, each message's chat
/// messages (from the request's cache when it has them), the tools.
pub(super) fn request_body(model: &str, request: &ModelRequest<'_>) -> Vec<u8> {
    let mut out = Vec::with_capacity(4096);
    out.extend_from_slice(b"{\"messages\":[");
    let mut first = true;
    if let Some(system) = request.system.filter(|s| !s.is_empty()) {
        let mut item = Vec::new();
        chat_message(&mut item, "system", Some(system));
        item.push(b'}');
        json::push_items(&mut out, &mut first, &item);
    }
    with_fragments(request.cache, ProviderKind::Openai, request.messages, encode_message, |entries| {
        let size: usize = entries.iter().map(|e| e.first.len() + 1).sum();
        out.reserve(size);
        for entry in entries {
            json::push_items(&mut out, &mut first, &entry.first);
        }
    });
    out.extend_from_slice(b"],\"model\":");
    json::string(&mut out, model);
    if let Some(schema) = request.output_schema {
        structured::openai_field(&mut out, schema);
    }
    out.extend_from_slice(b",\"stream\":true,\"stream_options\":{\"include_usage\":true}");
    if !request.tools.is_empty() {
        out.extend_from_slice(b",\"tools\":[");
        for (i, tool) in request.tools.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(b"{\"function\":{\"description\":");
            json::string(&mut out, &tool.description);
            out.extend_from_slice(b",\"name\":");
            json::string(&mut out, &tool.name);
            out.extend_from_slice(b",\"parameters\":");
            json::value(&mut out, &tool.parameters);
            out.extend_from_slice(b"},\"type\":\"function\"}");
        }
        out.push(b']');
    }
    out.push(b'}');
    out
}

/// Writes `{"content":...,"role":role` (unclosed, so the caller may add fields after
/// `role`, which sort last); `None` content is `null`.
fn chat_message(out: &mut Vec<u8>, role: &str, content: Option<&str>) {
    out.extend_from_slice(b"{\"content\":");
    match content {
        Some(content) => json::string(out, content),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"role\":\"");
    out.extend_from_slice(role.as_bytes());
    out.push(b'"');
}

/// One neutral message becomes zero or more chat messages: function responses become
/// `tool` messages, which must directly follow the assistant message that made the calls,
/// so they come before any text of the same user turn.
fn encode_message(message: &Message) -> Fragments {
    let mut fragments = Fragments::new(message.role);
    let out = &mut fragments.first;
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
            let calls: Vec<&FunctionCall> = message
                .parts
                .iter()
                .filter_map(|p| match p {
                    Part::FunctionCall(call) => Some(call),
                    _ => None,
                })
                .collect();
            if texts.is_empty() && calls.is_empty() {
                return fragments;
            }
            let content = (!texts.is_empty()).then(|| texts.join("\n"));
            chat_message(out, "assistant", content.as_deref());
            if !calls.is_empty() {
                out.extend_from_slice(b",\"tool_calls\":[");
                for (i, call) in calls.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    out.extend_from_slice(b"{\"function\":{\"arguments\":");
                    json::string(out, &call.arguments);
                    out.extend_from_slice(b",\"name\":");
                    json::string(out, &call.name);
                    out.extend_from_slice(b"},\"id\":");
                    json::string(out, &call.id);
                    out.extend_from_slice(b",\"type\":\"function\"}");
                }
                out.push(b']');
            }
            out.push(b'}');
        }
        Role::User => {
            for part in &message.parts {
                if let Part::FunctionResponse(response) = part {
                    json::next_item(out);
                    if response.is_error {
                        chat_message(out, "tool", Some(&format!("Error: {}", response.content)));
                    } else {
                        chat_message(out, "tool", Some(&response.content));
                    }
                    out.extend_from_slice(b",\"tool_call_id\":");
                    json::string(out, &response.id);
                    out.push(b'}');
                }
            }
            let has_media = message.parts.iter().any(|p| match p {
                Part::FunctionResponse(response) => !response.media.is_empty(),
                Part::Media(_) => true,
                _ => false,
            });
            if has_media {
                json::next_item(out);
                user_with_media(out, message, &texts);
            } else if !texts.is_empty() {
                json::next_item(out);
                chat_message(out, "user", Some(&texts.join("\n")));
                out.push(b'}');
            }
        }
    }
    fragments
}

/// A `user` message whose content is a list: a `tool` message takes no images, so a call's
/// media come here, after the tool results, each call's introduced by a text part naming
/// it; then the message's texts and attachments.
fn user_with_media(out: &mut Vec<u8>, message: &Message, texts: &[&str]) {
    let mut parts = Vec::new();
    for part in &message.parts {
        if let Part::FunctionResponse(response) = part
            && !response.media.is_empty()
        {
            text_part(&mut parts, &format!("What the call {} ({}) returned:", response.id, response.name));
            for media in &response.media {
                media_part(&mut parts, media);
            }
        }
    }
    if !texts.is_empty() {
        text_part(&mut parts, &texts.join("\n"));
    }
    for part in &message.parts {
        if let Part::Media(media) = part {
            media_part(&mut parts, media);
        }
    }
    out.extend_from_slice(b"{\"content\":[");
    out.extend_from_slice(&parts);
    out.extend_from_slice(b"],\"role\":\"user\"}");
}

fn text_part(out: &mut Vec<u8>, text: &str) {
    json::next_item(out);
    out.extend_from_slice(b"{\"text\":");
    json::string(out, text);
    out.extend_from_slice(b",\"type\":\"text\"}");
}

/// An `image_url` part with a data URL, a `file` part with `file_data` for a PDF (chat
/// completions takes PDFs only that way), or a text part standing in.
fn media_part(out: &mut Vec<u8>, media: &Media) {
    let kind = match media.sendable() {
        Ok(kind) => kind,
        Err(why) => return text_part(out, &media.stand_in(why)),
    };
    let prefix = format!("data:{};base64,", media.mime_type);
    json::next_item(out);
    match kind {
        MediaKind::Image => {
            out.extend_from_slice(b"{\"image_url\":{\"url\":");
            media.write_base64(out, &prefix);
            out.extend_from_slice(b"},\"type\":\"image_url\"}");
        }
        MediaKind::Pdf => {
            out.extend_from_slice(b"{\"file\":{\"file_data\":");
            media.write_base64(out, &prefix);
            out.extend_from_slice(b",\"filename\":");
            json::string(out, media.name.as_deref().unwrap_or("document.pdf"));
            out.extend_from_slice(b"},\"type\":\"file\"}");
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
#[path = "openai_tests.rs"]
mod tests;
