//! Turns the Messages API's stream events into [`ModelEvent`]s.
//!
//! `message_start` brings the input token count; each content block opens with
//! `content_block_start` (`text`, `tool_use` with its id and name, `thinking`), grows with
//! `content_block_delta` (`text_delta`, `input_json_delta` pieces of the call's arguments,
//! `thinking_delta`) and closes with `content_block_stop`, when a call is passed on with
//! its assembled argument text (`{}` when there was none). `message_delta` brings the stop
//! reason (classified as a [`Stop`]) and the cumulative output count; `message_stop`
//! completes the response. An
//! `error` event is a failure reported after the 200; unknown events and block types
//! (`ping`, `signature_delta`, server tools) are skipped.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use super::super::{FunctionCall, ModelError, ModelEvent, Stop, Usage};

#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(super) enum StreamEvent {
    MessageStart {
        message: StartedMessage,
    },
    ContentBlockStart {
        index: usize,
        content_block: Block,
    },
    ContentBlockDelta {
        index: usize,
        delta: Delta,
    },
    ContentBlockStop {
        index: usize,
    },
    MessageDelta {
        delta: MessageDelta,
        usage: Option<WireUsage>,
    },
    MessageStop,
    Error {
        error: WireError,
    },
    #[serde(other)]
    Other,
}

#[derive(Debug, Deserialize)]
pub(super) struct StartedMessage {
    usage: Option<WireUsage>,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(super) enum Block {
    Text {
        #[serde(default)]
        text: String,
    },
    ToolUse {
        id: String,
        name: String,
        input: Option<Value>,
    },
    Thinking {
        #[serde(default)]
        thinking: String,
    },
    #[serde(other)]
    Other,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "type")]
pub(super) enum Delta {
    #[serde(rename = "text_delta")]
    Text { text: String },
    #[serde(rename = "input_json_delta")]
    InputJson { partial_json: String },
    #[serde(rename = "thinking_delta")]
    Thinking { thinking: String },
    #[serde(other)]
    Other,
}

#[derive(Debug, Deserialize)]
pub(super) struct MessageDelta {
    stop_reason: Option<String>,
}

#[derive(Debug, Deserialize)]
pub(super) struct WireUsage {
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
    cache_creation_input_tokens: Option<u64>,
    cache_read_input_tokens: Option<u64>,
}

impl WireUsage {
    /// All input tokens: fresh, written to the cache and read from it.
    fn input(&self) -> Option<u64> {
        let parts = [self.input_tokens, self.cache_creation_input_tokens, self.cache_read_input_tokens];
        parts.iter().any(Option::is_some).then(|| parts.iter().flatten().sum())
    }
}

#[derive(Debug, Deserialize)]
pub(super) struct WireError {
    #[serde(rename = "type")]
    kind: Option<String>,
    message: Option<String>,
}

/// A `tool_use` block being assembled.
#[derive(Debug)]
struct PendingCall {
    id: String,
    name: String,
    /// The input given whole in `content_block_start` (normally `{}`).
    start_input: Option<Value>,
    json: String,
}

/// What the decoder remembers between events.
#[derive(Debug, Default)]
pub(super) struct Decoder {
    calls: BTreeMap<usize, PendingCall>,
    usage: Usage,
    stop_reason: Option<String>,
}

impl Decoder {
    /// Handles one event; `Ok(true)` once the response is complete.
    pub fn event(
        &mut self,
        event: StreamEvent,
        on_event: &mut (dyn FnMut(ModelEvent) + Send),
    ) -> Result<bool, ModelError> {
        match event {
            StreamEvent::MessageStart { message } => {
                if let Some(usage) = message.usage {
                    self.usage.input_tokens = usage.input().unwrap_or(0);
                    self.usage.output_tokens = usage.output_tokens.unwrap_or(0);
                }
            }
            StreamEvent::ContentBlockStart { index, content_block } => match content_block {
                Block::Text { text } if !text.is_empty() => on_event(ModelEvent::TextDelta(text)),
                Block::Thinking { thinking } if !thinking.is_empty() => on_event(ModelEvent::Thought(thinking)),
                Block::ToolUse { id, name, input } => {
                    self.calls.insert(index, PendingCall { id, name, start_input: input, json: String::new() });
                }
                Block::Text { .. } | Block::Thinking { .. } | Block::Other => {}
            },
            StreamEvent::ContentBlockDelta { index, delta } => match delta {
                Delta::Text { text } if !text.is_empty() => on_event(ModelEvent::TextDelta(text)),
                Delta::Thinking { thinking } if !thinking.is_empty() => on_event(ModelEvent::Thought(thinking)),
                Delta::InputJson { partial_json } => {
                    if let Some(call) = self.calls.get_mut(&index) {
                        call.json.push_str(&partial_json);
                    }
                }
                Delta::Text { .. } | Delta::Thinking { .. } | Delta::Other => {}
            },
            StreamEvent::ContentBlockStop { index } => {
                if let Some(call) = self.calls.remove(&index) {
                    on_event(ModelEvent::FunctionCall(finished_call(call)));
                }
            }
            StreamEvent::MessageDelta { delta, usage } => {
                if let Some(reason) = delta.stop_reason {
                    self.stop_reason = Some(reason);
                }
                if let Some(usage) = usage {
                    if let Some(input) = usage.input() {
                        self.usage.input_tokens = input;
                    }
                    if let Some(output) = usage.output_tokens {
                        self.usage.output_tokens = output;
                    }
                }
            }
            StreamEvent::MessageStop => {
                self.finish(on_event);
                return Ok(true);
            }
            StreamEvent::Error { error } => return Err(stream_error(error)),
            StreamEvent::Other => {}
        }
        Ok(false)
    }

    /// Whether the stop reason arrived: a body that ends after it lost only the
    /// `message_stop`, and counts as complete.
    pub fn stopped(&self) -> bool {
        self.stop_reason.is_some()
    }

    /// Passes on calls whose block never closed, the usage and the end.
    pub fn finish(&mut self, on_event: &mut (dyn FnMut(ModelEvent) + Send)) {
        for call in std::mem::take(&mut self.calls).into_values() {
            on_event(ModelEvent::FunctionCall(finished_call(call)));
        }
        if self.usage != Usage::default() {
            on_event(ModelEvent::Usage(self.usage));
        }
        let reason = self.stop_reason.take().unwrap_or_else(|| "end_turn".to_owned());
        let stop = stop_of(&reason);
        on_event(ModelEvent::Finished { reason, stop });
    }
}

/// What a `stop_reason` means. `model_context_window_exceeded` cuts the answer as
/// `max_tokens` does, only at the context window.
fn stop_of(reason: &str) -> Stop {
    match reason {
        "end_turn" | "tool_use" | "stop_sequence" => Stop::Normal,
        "max_tokens" | "model_context_window_exceeded" => Stop::MaxTokens,
        "refusal" => Stop::Blocked,
        "pause_turn" => Stop::Paused,
        _ => Stop::Unknown,
    }
}

fn finished_call(call: PendingCall) -> FunctionCall {
    let arguments = if !call.json.trim().is_empty() {
        call.json
    } else {
        match call.start_input {
            Some(input @ Value::Object(_)) if input.as_object().is_some_and(|o| !o.is_empty()) => input.to_string(),
            _ => "{}".to_owned(),
        }
    };
    FunctionCall { id: call.id, name: call.name, arguments, signature: None }
}

/// An error the API reported inside the stream, with the status its type stands for.
fn stream_error(error: WireError) -> ModelError {
    let status = match error.kind.as_deref() {
        Some("invalid_request_error") => 400,
        Some("authentication_error") => 401,
        Some("permission_error") => 403,
        Some("not_found_error") => 404,
        Some("request_too_large") => 413,
        Some("rate_limit_error") => 429,
        Some("timeout_error") => 504,
        Some("overloaded_error") => 529,
        _ => 500,
    };
    let body = match (error.message, error.kind) {
        (Some(message), _) => message,
        (None, Some(kind)) => kind,
        (None, None) => "an error without a message".to_owned(),
    };
    ModelError::Http { status, body, retry_after: None }
}

#[cfg(test)]
#[path = "decode_tests.rs"]
mod tests;
