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
mod tests {
    use super::super::super::test_support::calls_of;
    use super::*;

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
    fn decodes_text_thoughts_calls_and_usage() {
        let (events, result) = decode(&[
            r#"{"candidates":[{"content":{"role":"model","parts":[{"text":"pondering","thought":true}]}}]}"#,
            r#"{"candidates":[{"content":{"role":"model","parts":[{"text":"Hel"}]}}]}"#,
            r#"{"candidates":[{"content":{"role":"model","parts":[{"text":"lo"},
                {"functionCall":{"name":"glob","args":{"pattern":"*.rs"}},"thoughtSignature":"c2lnLTE="},
                {"functionCall":{"id":"kept","name":"grep","args":"{not json"}},
                {"functionCall":{"name":"list"}}]},"finishReason":"STOP"}],
              "usageMetadata":{"promptTokenCount":12,"candidatesTokenCount":5,"thoughtsTokenCount":2}}"#,
        ]);
        assert!(result.is_ok(), "{result:?}");
        assert_eq!(
            events[..3],
            [
                ModelEvent::Thought("pondering".into()),
                ModelEvent::TextDelta("Hel".into()),
                ModelEvent::TextDelta("lo".into()),
            ]
        );
        let calls = calls_of(&events);
        assert_eq!(calls.len(), 3);
        assert!(calls[0].id.starts_with(GENERATED_ID_PREFIX));
        assert_eq!(calls[0].arguments, r#"{"pattern":"*.rs"}"#);
        assert_eq!((calls[1].id.as_str(), calls[1].arguments.as_str()), ("kept", "{not json"));
        assert_eq!(calls[2].arguments, "{}");
        assert_ne!(calls[0].id, calls[2].id);
        assert_eq!(calls[0].signature.as_deref(), Some("c2lnLTE="));
        assert_eq!((calls[1].signature.as_ref(), calls[2].signature.as_ref()), (None, None));
        assert_eq!(
            events[events.len() - 2..],
            [
                ModelEvent::Usage(Usage { input_tokens: 12, output_tokens: 7 }),
                ModelEvent::Finished { reason: "STOP".into(), stop: Stop::Normal },
            ]
        );
    }

    #[test]
    fn a_stream_without_finish_reason_is_truncated() {
        let (events, result) = decode(&[r#"{"candidates":[{"content":{"parts":[{"text":"half"}]}}]}"#]);
        assert_eq!(events, [ModelEvent::TextDelta("half".into())]);
        assert!(matches!(result, Err(ModelError::Truncated)));
    }

    #[test]
    fn a_blocked_prompt_finishes_blocked_naming_the_block_reason() {
        let (events, result) = decode(&[r#"{"promptFeedback":{"blockReason":"PROHIBITED_CONTENT"}}"#]);
        assert!(result.is_ok());
        let reason = "prompt blocked: PROHIBITED_CONTENT".into();
        assert_eq!(events, [ModelEvent::Finished { reason, stop: Stop::Blocked }]);
    }

    #[test]
    fn finish_reasons_say_what_they_mean() {
        for (reason, stop) in [
            ("STOP", Stop::Normal),
            ("MAX_TOKENS", Stop::MaxTokens),
            ("SAFETY", Stop::Blocked),
            ("RECITATION", Stop::Blocked),
            ("PROHIBITED_CONTENT", Stop::Blocked),
            ("BLOCKLIST", Stop::Blocked),
            ("SPII", Stop::Blocked),
            ("IMAGE_SAFETY", Stop::Blocked),
            ("OTHER", Stop::Unknown),
            ("FINISH_REASON_UNSPECIFIED", Stop::Unknown),
            ("SOMETHING_NEW", Stop::Unknown),
        ] {
            let chunk =
                format!(r#"{{"candidates":[{{"content":{{"parts":[{{"text":"x"}}]}},"finishReason":"{reason}"}}]}}"#);
            let (events, result) = decode(&[&chunk]);
            assert!(result.is_ok(), "{reason}: {result:?}");
            assert_eq!(events.last(), Some(&ModelEvent::Finished { reason: reason.into(), stop }), "{reason}");
        }
    }

    #[test]
    fn a_malformed_function_call_is_a_retryable_error_quoting_the_first_line() {
        let long = "x".repeat(500);
        let chunk = format!(
            r#"{{"candidates":[{{"finishReason":"MALFORMED_FUNCTION_CALL","finishMessage":"Malformed function call: print(default_api.glob({long}\nsecond line"}}]}}"#
        );
        let (events, result) = decode(&[&chunk]);
        assert!(events.is_empty(), "{events:?}");
        match result {
            Err(error @ ModelError::MalformedCall { .. }) => {
                assert!(error.is_retryable());
                let message = error.to_string();
                assert!(message.contains("MALFORMED_FUNCTION_CALL: Malformed function call: print("), "{message}");
                assert!(message.ends_with("…)") && !message.contains("second line"), "{message}");
            }
            other => panic!("expected a malformed call, got {other:?}"),
        }
        let (_, result) = decode(&[r#"{"candidates":[{"finishReason":"UNEXPECTED_TOOL_CALL"}]}"#]);
        assert!(
            matches!(result, Err(ModelError::MalformedCall { reason, detail: None }) if reason == "UNEXPECTED_TOOL_CALL")
        );
    }

    #[test]
    fn an_error_inside_the_stream_is_reported() {
        let (_, result) = decode(&[r#"{"error":{"code":503,"message":"overloaded","status":"UNAVAILABLE"}}"#]);
        assert!(matches!(result, Err(ModelError::Http { status: 503, body, .. }) if body == "overloaded"));
    }
}
