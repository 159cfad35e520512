//! Turns Gemini's stream chunks (each a whole `GenerateContentResponse`) into
//! [`ModelEvent`]s: text, thoughts and complete calls as they come; the usage and the
//! end once the body ended. The end is a `finishReason` classified as a [`Stop`], or a
//! prompt's `blockReason` ([`Stop::Blocked`]); `MALFORMED_FUNCTION_CALL` and
//! `UNEXPECTED_TOOL_CALL` are a retryable [`ModelError::MalformedCall`] instead, and a body
//! that ends with neither reason was cut ([`ModelError::Truncated`]).

use serde::Deserialize;
use serde_json::Value;

use super::super::{FunctionCall, ModelError, ModelEvent, Stop, Usage, generated_call_id};
use super::GENERATED_ID_PREFIX;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Chunk {
    candidates: Option<Vec<Candidate>>,
    usage_metadata: Option<UsageMetadata>,
    prompt_feedback: Option<PromptFeedback>,
    error: Option<Value>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Candidate {
    content: Option<Content>,
    finish_reason: Option<String>,
    /// What went wrong, for some reasons (the malformed call's text, for one).
    finish_message: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Content {
    parts: Option<Vec<WirePart>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct WirePart {
    text: Option<String>,
    thought: Option<bool>,
    function_call: Option<WireCall>,
    thought_signature: Option<String>,
}

#[derive(Debug, Deserialize)]
struct WireCall {
    id: Option<String>,
    name: String,
    args: Option<Value>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct UsageMetadata {
    prompt_token_count: Option<u64>,
    candidates_token_count: Option<u64>,
    thoughts_token_count: Option<u64>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PromptFeedback {
    block_reason: Option<String>,
}

/// Turns response chunks into events; remembers what only counts once the body ended.
#[derive(Debug, Default)]
pub(super) struct Decoder {
    finish_reason: Option<String>,
    finish_message: Option<String>,
    block_reason: Option<String>,
    usage: Option<Usage>,
}

impl Decoder {
    pub(super) fn chunk(
        &mut self,
        chunk: Chunk,
        on_event: &mut (dyn FnMut(ModelEvent) + Send),
    ) -> Result<(), ModelError> {
        if let Some(error) = chunk.error {
            return Err(stream_error(&error));
        }
        if let Some(usage) = chunk.usage_metadata {
            self.usage = Some(Usage {
                input_tokens: usage.prompt_token_count.unwrap_or(0),
                output_tokens: usage.candidates_token_count.unwrap_or(0) + usage.thoughts_token_count.unwrap_or(0),
            });
        }
        if let Some(reason) = chunk.prompt_feedback.and_then(|f| f.block_reason) {
            self.block_reason = Some(reason);
        }
        // airlock asks for one candidate.
        let Some(candidate) = chunk.candidates.and_then(|c| c.into_iter().next()) else {
            return Ok(());
        };
        for part in candidate.content.and_then(|c| c.parts).unwrap_or_default() {
            if let Some(call) = part.function_call {
                on_event(ModelEvent::FunctionCall(function_call(call, part.thought_signature)));
            } else if let Some(text) = part.text.filter(|t| !t.is_empty()) {
                on_event(if part.thought == Some(true) {
                    ModelEvent::Thought(text)
                } else {
                    ModelEvent::TextDelta(text)
                });
            }
        }
        if let Some(reason) = candidate.finish_reason {
            self.finish_reason = Some(reason);
            self.finish_message = candidate.finish_message;
        }
        Ok(())
    }

    pub(super) fn finish(self, on_event: &mut (dyn FnMut(ModelEvent) + Send)) -> Result<(), ModelError> {
        let (reason, stop) = match (self.finish_reason, self.block_reason) {
            (Some(reason), _) if MALFORMED_CALL.contains(&reason.as_str()) => {
                let detail = self.finish_message.map(|m| shortened(&m));
                return Err(ModelError::MalformedCall { reason, detail });
            }
            (Some(reason), _) => {
                let stop = stop_of(&reason);
                (reason, stop)
            }
            // A blocked prompt gets no candidate at all, only the reason.
            (None, Some(block)) => (format!("prompt blocked: {block}"), Stop::Blocked),
            (None, None) => return Err(ModelError::Truncated),
        };
        if let Some(usage) = self.usage {
            on_event(ModelEvent::Usage(usage));
        }
        on_event(ModelEvent::Finished { reason, stop });
        Ok(())
    }
}

/// The finish reasons of a function call Gemini could not parse, or one naming a tool it
/// was not offered: asking again usually gets it right.
const MALFORMED_CALL: [&str; 2] = ["MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL"];

/// What a `finishReason` means. `OTHER`, `FINISH_REASON_UNSPECIFIED` and reasons newer
/// than this list are [`Stop::Unknown`].
fn stop_of(reason: &str) -> Stop {
    match reason {
        "STOP" => Stop::Normal,
        "MAX_TOKENS" => Stop::MaxTokens,
        "SAFETY"
        | "RECITATION"
        | "LANGUAGE"
        | "BLOCKLIST"
        | "PROHIBITED_CONTENT"
        | "SPII"
        | "IMAGE_SAFETY"
        | "IMAGE_PROHIBITED_CONTENT"
        | "IMAGE_RECITATION" => Stop::Blocked,
        _ => Stop::Unknown,
    }
}

/// The first line of `message`, at most 200 characters: a malformed call's message
/// quotes the whole call.
fn shortened(message: &str) -> String {
    let line = message.lines().next().unwrap_or_default();
    let mut short: String = line.chars().take(200).collect();
    if short.len() < line.len() {
        short.push('…');
    }
    short
}

fn function_call(call: WireCall, signature: Option<String>) -> FunctionCall {
    let id = call.id.filter(|id| !id.is_empty()).unwrap_or_else(|| generated_call_id(GENERATED_ID_PREFIX));
    let arguments = match call.args {
        None | Some(Value::Null) => "{}".to_owned(),
        // Some proxies pass the arguments on as JSON text: keep it as the model wrote it.
        Some(Value::String(text)) if text.trim().is_empty() => "{}".to_owned(),
        Some(Value::String(text)) => text,
        Some(args) => args.to_string(),
    };
    FunctionCall { id, name: call.name, arguments, signature: signature.filter(|s| !s.is_empty()) }
}

/// An error the API reported inside the stream, after answering 200.
fn stream_error(error: &Value) -> ModelError {
    let status = error["code"].as_u64().and_then(|c| u16::try_from(c).ok()).unwrap_or(500);
    let body = error["message"].as_str().map_or_else(|| error.to_string(), str::to_owned);
    ModelError::Http { status, body, retry_after: None }
}

#[cfg(test)]
#[path = "decode_tests.rs"]
mod tests;
