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
mod tests {
    use super::*;

    /// Runs events through a decoder the way the stream does.
    fn decode(events: &[&str]) -> (Vec<ModelEvent>, Result<bool, ModelError>) {
        let mut out = Vec::new();
        let mut on_event = |e| out.push(e);
        let mut decoder = Decoder::default();
        let mut done = Ok(false);
        for event in events {
            let parsed = serde_json::from_str(event).map_err(|e| ModelError::MalformedStream(e.to_string()));
            done = parsed.and_then(|e| decoder.event(e, &mut on_event));
            if !matches!(done, Ok(false)) {
                break;
            }
        }
        (out, done)
    }

    #[test]
    fn decodes_text_thinking_calls_and_usage() {
        let (events, done) = decode(&[
            r#"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],
                "model":"claude","stop_reason":null,"usage":{"input_tokens":20,"cache_read_input_tokens":5,"output_tokens":1}}}"#,
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hmm"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"c2ln"}}"#,
            r#"{"type":"content_block_stop","index":0}"#,
            r#"{"type":"ping"}"#,
            r#"{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Sure"}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"."}}"#,
            r#"{"type":"content_block_stop","index":1}"#,
            r#"{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_a","name":"read_file","input":{}}}"#,
            r#"{"type":"content_block_start","index":3,"content_block":{"type":"tool_use","id":"toolu_b","name":"list","input":{}}}"#,
            r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}}"#,
            r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"path\": \"a"}}"#,
            r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":".txt\"}"}}"#,
            r#"{"type":"content_block_stop","index":2}"#,
            r#"{"type":"content_block_stop","index":3}"#,
            r#"{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":42}}"#,
            r#"{"type":"message_stop"}"#,
        ]);
        assert!(matches!(done, Ok(true)), "{done:?}");
        let call = |id: &str, name: &str, arguments: &str| {
            ModelEvent::FunctionCall(FunctionCall {
                id: id.into(),
                name: name.into(),
                arguments: arguments.into(),
                signature: None,
            })
        };
        assert_eq!(
            events,
            [
                ModelEvent::Thought("hmm".into()),
                ModelEvent::TextDelta("Sure".into()),
                ModelEvent::TextDelta(".".into()),
                call("toolu_a", "read_file", r#"{"path": "a.txt"}"#),
                call("toolu_b", "list", "{}"),
                ModelEvent::Usage(Usage { input_tokens: 25, output_tokens: 42 }),
                ModelEvent::Finished { reason: "tool_use".into(), stop: Stop::Normal },
            ]
        );
    }

    #[test]
    fn raw_argument_text_passes_through_unparsed() {
        let (events, done) = decode(&[
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"grep","input":{}}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{not json"}}"#,
            r#"{"type":"content_block_stop","index":0}"#,
            r#"{"type":"message_stop"}"#,
        ]);
        assert!(matches!(done, Ok(true)));
        assert!(matches!(&events[0], ModelEvent::FunctionCall(c) if c.arguments == "{not json"));
        assert_eq!(events.last(), Some(&ModelEvent::Finished { reason: "end_turn".into(), stop: Stop::Normal }));
    }

    #[test]
    fn error_events_become_http_errors_with_their_status() {
        let (_, done) = decode(&[r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#]);
        assert!(matches!(done, Err(ModelError::Http { status: 529, body, .. }) if body == "Overloaded"));
        let (_, done) = decode(&[r#"{"type":"error","error":{"type":"rate_limit_error"}}"#]);
        assert!(matches!(done, Err(ModelError::Http { status: 429, body, .. }) if body == "rate_limit_error"));
    }

    #[test]
    fn unknown_events_and_blocks_are_skipped() {
        let (events, done) = decode(&[
            r#"{"type":"brand_new_event","data":1}"#,
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"server_tool_use","id":"s","name":"web"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{}"}}"#,
            r#"{"type":"content_block_stop","index":0}"#,
        ]);
        assert!(matches!(done, Ok(false)));
        assert!(events.is_empty(), "{events:?}");
    }

    #[test]
    fn stop_reasons_say_what_they_mean() {
        for (reason, stop) in [
            ("end_turn", Stop::Normal),
            ("tool_use", Stop::Normal),
            ("stop_sequence", Stop::Normal),
            ("max_tokens", Stop::MaxTokens),
            ("refusal", Stop::Blocked),
            ("pause_turn", Stop::Paused),
            ("brand_new_reason", Stop::Unknown),
        ] {
            let delta = format!(r#"{{"type":"message_delta","delta":{{"stop_reason":"{reason}"}}}}"#);
            let (events, done) = decode(&[&delta, r#"{"type":"message_stop"}"#]);
            assert!(matches!(done, Ok(true)), "{reason}");
            assert_eq!(events.last(), Some(&ModelEvent::Finished { reason: reason.into(), stop }), "{reason}");
        }
    }

    #[test]
    fn a_tool_call_cut_at_the_token_limit_is_passed_on_with_the_limit() {
        let (events, done) = decode(&[
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"write_file","input":{}}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"path\":\"a"}}"#,
            r#"{"type":"message_delta","delta":{"stop_reason":"max_tokens"}}"#,
            r#"{"type":"message_stop"}"#,
        ]);
        assert!(matches!(done, Ok(true)));
        assert!(matches!(&events[0], ModelEvent::FunctionCall(c) if c.arguments == r#"{"path":"a"#));
        assert_eq!(events.last(), Some(&ModelEvent::Finished { reason: "max_tokens".into(), stop: Stop::MaxTokens }));
    }
}
