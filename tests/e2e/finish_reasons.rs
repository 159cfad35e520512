//! The real `airlock` binary against answers that end for every reason the three wires
//! know, scripted as raw SSE on the mock model: an answer is never silently empty. A
//! malformed function call is asked for again (bounded); a blocked or refused answer ends
//! the run with `status: "blocked"`; an answer cut at the token limit keeps its text with a
//! warning, or fails when nothing usable came; an unknown reason warns or fails; a paused
//! turn is continued; a cut stream is retried while nothing of it was shown. Every failure
//! in `-o json` is also one `airlock:` line on stderr.

use airlock_tests::{Finished, MockModel, Session, Turn, Wire};
use serde_json::{Value, json};

use crate::session;

/// Runs `airlock -o json -p hi` and parses its one JSON line.
fn run_json(s: &Session, mock: &MockModel) -> (Finished, Value) {
    let done = s.airlock(mock, &["-o", "json", "-p", "hi"]);
    let value = serde_json::from_str(done.stdout.trim()).unwrap_or(Value::Null);
    (done, value)
}

fn gemini_chunk(chunk: &Value) -> String {
    format!("data: {chunk}\r\n\r\n")
}

/// A Gemini answer: `text` (if any) and the finish reason, in one chunk.
fn gemini(text: &str, reason: &str) -> String {
    let parts = if text.is_empty() { json!([]) } else { json!([{ "text": text }]) };
    gemini_chunk(&json!({
        "candidates": [{ "content": { "role": "model", "parts": parts }, "finishReason": reason, "index": 0 }],
        "usageMetadata": { "promptTokenCount": 10, "candidatesTokenCount": 2 },
    }))
}

fn openai_chunk(delta: &Value, finish: &Value) -> String {
    let chunk = json!({ "object": "chat.completion.chunk", "choices": [{ "index": 0, "delta": delta, "finish_reason": finish }] });
    format!("data: {chunk}\n\n")
}

/// An OpenAI answer: `text` (if any), then the finish reason, then `[DONE]`.
fn openai(text: &str, reason: &str) -> String {
    let mut sse = openai_chunk(&json!({ "role": "assistant", "content": "" }), &Value::Null);
    if !text.is_empty() {
        sse.push_str(&openai_chunk(&json!({ "content": text }), &Value::Null));
    }
    sse.push_str(&openai_chunk(&json!({}), &json!(reason)));
    sse + "data: [DONE]\n\n"
}

fn anthropic_event(data: &Value) -> String {
    format!("event: {}\ndata: {data}\n\n", data["type"].as_str().unwrap_or_default())
}

fn anthropic_start() -> String {
    anthropic_event(&json!({ "type": "message_start", "message": {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "mock", "content": [],
        "usage": { "input_tokens": 10, "output_tokens": 1 },
    } }))
}

/// The end of an Anthropic answer: the stop reason and `message_stop`.
fn anthropic_stop(reason: &str) -> String {
    anthropic_event(
        &json!({ "type": "message_delta", "delta": { "stop_reason": reason }, "usage": { "output_tokens": 2 } }),
    ) + &anthropic_event(&json!({ "type": "message_stop" }))
}

/// An Anthropic answer: `text` (if any) in one block, then the stop reason.
fn anthropic(text: &str, reason: &str) -> String {
    let mut sse = anthropic_start();
    if !text.is_empty() {
        sse.push_str(&anthropic_event(
            &json!({ "type": "content_block_start", "index": 0, "content_block": { "type": "text", "text": "" } }),
        ));
        sse.push_str(&anthropic_event(
            &json!({ "type": "content_block_delta", "index": 0, "delta": { "type": "text_delta", "text": text } }),
        ));
        sse.push_str(&anthropic_event(&json!({ "type": "content_block_stop", "index": 0 })));
    }
    sse + &anthropic_stop(reason)
}

/// What a run must end with.
#[derive(Debug, Clone, Copy)]
enum Expect {
    /// Exit 0, the text kept, a warning naming the reason.
    Warned,
    /// Exit 1 with this JSON status and error type.
    Failed { status: &'static str, kind: &'static str },
}

const BLOCKED: Expect = Expect::Failed { status: "blocked", kind: "blocked" };
const CUT: Expect = Expect::Failed { status: "error", kind: "max_tokens" };
const EMPTY: Expect = Expect::Failed { status: "error", kind: "empty_answer" };

/// One scripted answer: the wire, the reason the failure must name, the SSE, the text it
/// carries, and what the run must end with.
struct Case {
    wire: Wire,
    reason: &'static str,
    sse: String,
    text: &'static str,
    expect: Expect,
}

fn cases() -> Vec<Case> {
    let case = |wire, reason, sse: String, text, expect| Case { wire, reason, sse, text, expect };
    let mut cases = Vec::new();
    for reason in ["SAFETY", "RECITATION", "PROHIBITED_CONTENT", "BLOCKLIST", "SPII", "IMAGE_SAFETY"] {
        cases.push(case(Wire::Gemini, reason, gemini("Partial ans", reason), "Partial ans", BLOCKED));
    }
    let prompt_blocked = gemini_chunk(&json!({ "promptFeedback": { "blockReason": "PROHIBITED_CONTENT" } }));
    cases.extend([
        case(Wire::Gemini, "prompt blocked: PROHIBITED_CONTENT", prompt_blocked, "", BLOCKED),
        case(Wire::Gemini, "MAX_TOKENS", gemini("The answer is lo", "MAX_TOKENS"), "The answer is lo", Expect::Warned),
        case(Wire::Gemini, "MAX_TOKENS", gemini("", "MAX_TOKENS"), "", CUT),
        case(Wire::Gemini, "OTHER", gemini("Some text", "OTHER"), "Some text", Expect::Warned),
        case(Wire::Gemini, "OTHER", gemini("", "OTHER"), "", EMPTY),
        case(Wire::Gemini, "FINISH_REASON_UNSPECIFIED", gemini("", "FINISH_REASON_UNSPECIFIED"), "", EMPTY),
        case(Wire::Gemini, "BRAND_NEW_REASON", gemini("Text", "BRAND_NEW_REASON"), "Text", Expect::Warned),
        case(Wire::Gemini, "STOP", gemini("", "STOP"), "", EMPTY),
        case(Wire::OpenAi, "length", openai("The answer is lo", "length"), "The answer is lo", Expect::Warned),
        case(Wire::OpenAi, "length", openai("", "length"), "", CUT),
        case(Wire::OpenAi, "content_filter", openai("Partial", "content_filter"), "Partial", BLOCKED),
        case(Wire::OpenAi, "brand_new_reason", openai("Text", "brand_new_reason"), "Text", Expect::Warned),
        case(Wire::OpenAi, "brand_new_reason", openai("", "brand_new_reason"), "", EMPTY),
        case(
            Wire::Anthropic,
            "max_tokens",
            anthropic("The answer is lo", "max_tokens"),
            "The answer is lo",
            Expect::Warned,
        ),
        case(Wire::Anthropic, "refusal", anthropic("", "refusal"), "", BLOCKED),
        case(Wire::Anthropic, "brand_new_reason", anthropic("Text", "brand_new_reason"), "Text", Expect::Warned),
        case(Wire::Anthropic, "brand_new_reason", anthropic("", "brand_new_reason"), "", EMPTY),
    ]);
    // A tool call cut at the token limit: its arguments stop mid-way, and it must not run.
    let openai_cut_call = openai_chunk(&json!({ "role": "assistant", "content": "" }), &Value::Null)
        + &openai_chunk(
            &json!({ "tool_calls": [{ "index": 0, "id": "call_1", "type": "function",
                "function": { "name": "write_file", "arguments": "{\"path\":\"notes.txt\",\"content\":\"ha" } }] }),
            &Value::Null,
        )
        + &openai_chunk(&json!({}), &json!("length"))
        + "data: [DONE]\n\n";
    let anthropic_cut_call = anthropic_start()
        + &anthropic_event(&json!({ "type": "content_block_start", "index": 0,
            "content_block": { "type": "tool_use", "id": "toolu_1", "name": "write_file", "input": {} } }))
        + &anthropic_event(&json!({ "type": "content_block_delta", "index": 0,
            "delta": { "type": "input_json_delta", "partial_json": "{\"path\":\"notes.txt\",\"content\":\"ha" } }))
        + &anthropic_stop("max_tokens");
    cases.extend([
        case(Wire::OpenAi, "length", openai_cut_call, "", CUT),
        case(Wire::Anthropic, "max_tokens", anthropic_cut_call, "", CUT),
    ]);
    cases
}

#[test]
fn every_unusual_finish_reason_ends_with_a_warning_or_an_error_naming_it() {
    let mut failures = Vec::new();
    for case in cases() {
        let label = format!("{:?} {} (text {:?})", case.wire, case.reason, case.text);
        let s = session();
        let mock = MockModel::start(case.wire);
        mock.push_turn(Turn::raw_sse(case.sse));
        let (done, json) = run_json(&s, &mock);
        let mut problems = Vec::new();
        if mock.requests().len() != 1 {
            problems.push(format!("{} requests, expected 1 (no retry)", mock.requests().len()));
        }
        if json["response"] != case.text {
            problems.push(format!("response {}, expected {:?}", json["response"], case.text));
        }
        if s.read("notes.txt").is_some() {
            problems.push("a cut tool call ran".to_owned());
        }
        match case.expect {
            Expect::Warned => {
                let warned = json["warnings"]
                    .as_array()
                    .is_some_and(|w| w.iter().any(|w| w.as_str().is_some_and(|w| w.contains(case.reason))));
                if done.code != Some(0) || json["status"] != "success" || !warned {
                    problems.push(format!("expected exit 0, success and a warning naming the reason; got {done:?}"));
                }
            }
            Expect::Failed { status, kind } => {
                let line = done.stderr.lines().find(|l| l.starts_with("airlock: ")).unwrap_or_default();
                let message = json["error"]["message"].as_str().unwrap_or_default();
                if done.code != Some(1)
                    || json["status"] != status
                    || json["error"]["type"] != kind
                    || !line.contains(case.reason)
                    || !message.contains(case.reason)
                {
                    problems.push(format!(
                        "expected exit 1, status {status}, error type {kind}, the reason on stderr and in the \
                         error; got {done:?}"
                    ));
                }
            }
        }
        if !problems.is_empty() {
            failures.push(format!("{label}: {}", problems.join("; ")));
        }
    }
    assert!(failures.is_empty(), "{} case(s) failed:\n{}", failures.len(), failures.join("\n"));
}

const MALFORMED: &str = "MALFORMED_FUNCTION_CALL";

fn malformed_call() -> String {
    gemini_chunk(&json!({ "candidates": [{
        "finishReason": MALFORMED,
        "finishMessage": "Malformed function call: print(default_api.read_file(path=notes.txt",
        "index": 0,
    }] }))
}

#[test]
fn a_malformed_function_call_is_asked_again_and_the_retry_answers() {
    let s = session();
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::raw_sse(malformed_call()));
    mock.push_turn(Turn::text("Fixed answer."));
    let done = s.airlock(&mock, &["-p", "hi"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(done.stdout, "Fixed answer.\n");
    assert!(done.stderr.contains("retrying (1/2)") && done.stderr.contains(MALFORMED), "{}", done.stderr);
    let requests = mock.requests();
    assert_eq!(requests.len(), 2, "the model was asked again");
    assert_eq!(requests[1]["contents"], requests[0]["contents"], "the same conversation, asked again");
}

#[test]
fn a_persisting_malformed_function_call_gives_up_after_three_requests() {
    let s = session();
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::raw_sse(malformed_call()).forever());
    let (done, json) = run_json(&s, &mock);
    assert_eq!(done.code, Some(1), "{}", done.stderr);
    assert_eq!(mock.requests().len(), 3);
    assert_eq!((json["status"].as_str(), json["response"].as_str()), (Some("error"), Some("")));
    let line = done.stderr.lines().find(|l| l.starts_with("airlock: ")).unwrap_or_default();
    assert!(line.contains("gave up after 3 attempts") && line.contains(MALFORMED), "{}", done.stderr);
}

#[test]
fn an_anthropic_stream_cut_right_after_message_start_is_retried() {
    let s = session();
    let mock = MockModel::start(Wire::Anthropic);
    mock.push_turn(Turn::raw_sse(anthropic_start() + &anthropic_event(&json!({ "type": "ping" }))));
    mock.push_turn(Turn::text("Whole answer."));
    let done = s.airlock(&mock, &["-p", "hi"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(done.stdout, "Whole answer.\n");
    assert!(done.stderr.contains("retrying (1/4)"), "{}", done.stderr);
    assert_eq!(mock.requests().len(), 2);
}

#[test]
fn an_openai_stream_without_a_finish_reason_is_cut_retried_before_output_and_an_error_after() {
    let s = session();
    let mock = MockModel::start(Wire::OpenAi);
    let no_finish =
        |text: &str| openai_chunk(&json!({ "role": "assistant", "content": text }), &Value::Null) + "data: [DONE]\n\n";
    mock.push_turn(Turn::raw_sse(no_finish("")));
    mock.push_turn(Turn::text("Whole answer."));
    let done = s.airlock(&mock, &["-p", "hi"]);
    assert_eq!((done.code, done.stdout.as_str()), (Some(0), "Whole answer.\n"), "{}", done.stderr);
    assert_eq!(mock.requests().len(), 2);

    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::raw_sse(no_finish("Half an ans")));
    mock.push_turn(Turn::text("never asked"));
    let done = s.airlock(&mock, &["-p", "hi"]);
    assert_eq!(done.code, Some(1), "{}", done.stderr);
    assert_eq!(done.stdout, "Half an ans\n");
    assert!(done.stderr.contains("ended before the response was complete") && done.stderr.contains("did not retry"));
    assert_eq!(mock.requests().len(), 1);
}

#[test]
fn a_paused_anthropic_turn_is_sent_again_and_the_model_goes_on() {
    let s = session();
    let mock = MockModel::start(Wire::Anthropic);
    mock.push_turn(Turn::raw_sse(anthropic("Working on it.", "pause_turn")));
    mock.push_turn(Turn::text("Done now."));
    let (done, json) = run_json(&s, &mock);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(json["status"], "success");
    assert_eq!(json["response"], "Working on it.\nDone now.");
    let requests = mock.requests();
    assert_eq!(requests.len(), 2);
    let last = requests[1]["messages"].as_array().and_then(|m| m.last()).cloned().unwrap_or_default();
    assert_eq!(last["role"], "assistant", "the paused answer goes back as the last message: {last}");
    assert!(last.to_string().contains("Working on it."), "{last}");
}

#[test]
fn a_provider_that_keeps_pausing_with_nothing_ends_the_run_saying_so() {
    let s = session();
    let mock = MockModel::start(Wire::Anthropic);
    for _ in 0..5 {
        mock.push_turn(Turn::raw_sse(anthropic("", "pause_turn")));
    }
    let (done, json) = run_json(&s, &mock);
    assert_eq!(done.code, Some(1), "{}", done.stderr);
    assert_eq!(json["error"]["type"], "empty_answer", "{json}");
    assert!(done.stderr.contains("paused 3 times in a row"), "{}", done.stderr);
    assert_eq!(mock.requests().len(), 3, "no request after the third empty pause");
}

#[test]
fn a_failed_json_run_prints_its_error_on_stderr_too() {
    let s = session();
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::status(400, "{\"error\":{\"message\":\"bad request\\u001b[31m\"}}"));
    for format in ["json", "stream-json"] {
        let done = s.airlock(&mock, &["-o", format, "-p", "hi"]);
        assert_eq!(done.code, Some(1), "{format}: {}", done.stderr);
        let lines: Vec<&str> = done.stderr.lines().filter(|l| l.starts_with("airlock: ")).collect();
        assert_eq!(lines.len(), 1, "{format}: {}", done.stderr);
        assert!(lines[0].contains("HTTP 400") && lines[0].contains("bad request"), "{format}: {}", lines[0]);
        assert!(!done.stderr.contains('\u{1b}'), "{format}: the line is sanitised: {:?}", done.stderr);
        let last = done.stdout.lines().last().unwrap_or_default();
        assert!(last.contains("\"status\":\"error\""), "{format}: {last}");
        mock.push_turn(Turn::status(400, "{\"error\":{\"message\":\"bad request\\u001b[31m\"}}"));
    }
}
