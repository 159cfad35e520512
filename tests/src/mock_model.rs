//! A scripted model server for end-to-end tests: it speaks the Gemini or the OpenAI
//! streaming wire format on 127.0.0.1, answers each request with the next scripted
//! [`Turn`], and records every request so a test can assert on what the model was sent.
//!
//! The server runs on a thread of its own with its own runtime, so plain `#[test]`s that
//! spawn the `airlock` binary can use it as well as `#[tokio::test]`s. It stops when the
//! [`MockModel`] is dropped. An empty script answers [`NO_MORE_TURNS`] as plain text, so a
//! test that asks once too often fails on its output instead of hanging.

use std::collections::VecDeque;
use std::future::IntoFuture;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use tokio::sync::oneshot;

/// What the mock answers once the script is used up.
pub const NO_MORE_TURNS: &str = "mock: no more scripted turns";

/// Which provider the mock imitates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    /// `POST /v1beta/models/{model}:streamGenerateContent?alt=sse`.
    Gemini,
    /// `POST /v1/chat/completions` with `stream: true`.
    OpenAi,
}

/// A function call in a scripted answer.
#[derive(Debug, Clone)]
pub struct MockCall {
    name: String,
    args: Args,
    id: Option<String>,
    signature: Option<String>,
}

#[derive(Debug, Clone)]
enum Args {
    Json(Value),
    /// Sent as it is: on the OpenAI wire as the `arguments` text, on the Gemini wire as a
    /// JSON string in place of the `args` object.
    Raw(String),
}

/// A call of tool `name` with `args` (normally a JSON object).
pub fn call(name: &str, args: Value) -> MockCall {
    MockCall { name: name.to_owned(), args: Args::Json(args), id: None, signature: None }
}

impl MockCall {
    /// Gives the call this id. Without one, OpenAI calls get `call_<n>` and Gemini calls
    /// none (as older Gemini API versions do).
    pub fn with_id(mut self, id: &str) -> Self {
        self.id = Some(id.to_owned());
        self
    }

    /// Gives the call a thought signature: on the Gemini wire a `thoughtSignature` beside
    /// the `functionCall`, as thinking models send it; the OpenAI wire has no such thing.
    pub fn with_signature(mut self, signature: &str) -> Self {
        self.signature = Some(signature.to_owned());
        self
    }
}

/// One scripted answer.
#[derive(Debug, Clone)]
pub struct Turn {
    kind: TurnKind,
    usage: (u64, u64),
}

#[derive(Debug, Clone)]
enum TurnKind {
    Answer { text: String, calls: Vec<MockCall> },
    RawSse(String),
    Status(u16, String),
    Stall,
}

impl Turn {
    fn new(kind: TurnKind) -> Self {
        Self { kind, usage: (100, 10) }
    }

    /// A plain text answer, streamed over at least two chunks when it has two characters.
    pub fn text(text: impl Into<String>) -> Self {
        Self::new(TurnKind::Answer { text: text.into(), calls: Vec::new() })
    }

    /// Function calls, all in one response (parallel calls).
    pub fn calls(calls: Vec<MockCall>) -> Self {
        Self::new(TurnKind::Answer { text: String::new(), calls })
    }

    /// Text followed by function calls in one response.
    pub fn text_and_calls(text: impl Into<String>, calls: Vec<MockCall>) -> Self {
        Self::new(TurnKind::Answer { text: text.into(), calls })
    }

    /// One call whose arguments are `raw`, typically text that is not JSON.
    pub fn call_with_raw_args(name: &str, raw: &str) -> Self {
        Self::calls(vec![MockCall {
            name: name.to_owned(),
            args: Args::Raw(raw.to_owned()),
            id: None,
            signature: None,
        }])
    }

    /// A 200 `text/event-stream` response whose body is exactly `sse`.
    pub fn raw_sse(sse: impl Into<String>) -> Self {
        Self::new(TurnKind::RawSse(sse.into()))
    }

    /// A response with this status and body (JSON bodies are labelled as JSON).
    pub fn status(status: u16, body: impl Into<String>) -> Self {
        Self::new(TurnKind::Status(status, body.into()))
    }

    /// A 200 event stream that sends one comment and then nothing, ever.
    pub fn stall() -> Self {
        Self::new(TurnKind::Stall)
    }

    /// The token counts the answer reports (default: 100 in, 10 out).
    pub fn with_usage(mut self, input_tokens: u64, output_tokens: u64) -> Self {
        self.usage = (input_tokens, output_tokens);
        self
    }
}

/// One request the mock received.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    pub method: String,
    /// The path with its query, as sent.
    pub path: String,
    /// Header names in lower case, in the order received.
    pub headers: Vec<(String, String)>,
    /// The parsed JSON body; a body that is not JSON is kept as a JSON string.
    pub body: Value,
}

impl RecordedRequest {
    /// The first value of header `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

struct Shared {
    wire: Wire,
    state: Mutex<ScriptState>,
}

#[derive(Default)]
struct ScriptState {
    turns: VecDeque<Turn>,
    requests: Vec<RecordedRequest>,
    next_call_id: u64,
}

impl Shared {
    fn state(&self) -> MutexGuard<'_, ScriptState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The running mock server. Dropping it stops the server.
pub struct MockModel {
    wire: Wire,
    addr: SocketAddr,
    shared: Arc<Shared>,
    shutdown: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for MockModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MockModel").field("wire", &self.wire).field("addr", &self.addr).finish_non_exhaustive()
    }
}

impl MockModel {
    /// Starts a server on a free port of 127.0.0.1. Panics when it cannot (a test
    /// without its model server cannot run anyway).
    pub fn start(wire: Wire) -> MockModel {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap_or_else(|e| panic!("mock model: cannot build a runtime: {e}"));
        let std_listener = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap_or_else(|e| panic!("mock model: cannot bind 127.0.0.1: {e}"));
        let addr = std_listener.local_addr().unwrap_or_else(|e| panic!("mock model: no local address: {e}"));
        std_listener
            .set_nonblocking(true)
            .unwrap_or_else(|e| panic!("mock model: cannot make the listener non-blocking: {e}"));
        let listener = {
            let _context = runtime.enter();
            tokio::net::TcpListener::from_std(std_listener)
                .unwrap_or_else(|e| panic!("mock model: cannot register the listener: {e}"))
        };
        let shared = Arc::new(Shared { wire, state: Mutex::new(ScriptState::default()) });
        let app = Router::new().fallback(handle).with_state(Arc::clone(&shared));
        let (shutdown, stop) = oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("mock-model".into())
            .spawn(move || {
                runtime.block_on(async move {
                    tokio::select! {
                        _ = axum::serve(listener, app).into_future() => {}
                        _ = stop => {}
                    }
                });
            })
            .unwrap_or_else(|e| panic!("mock model: cannot start its thread: {e}"));
        MockModel { wire, addr, shared, shutdown: Some(shutdown), thread: Some(thread) }
    }

    /// What to pass as `--base-url`: `http://127.0.0.1:P` for Gemini, `http://127.0.0.1:P/v1`
    /// for OpenAI.
    pub fn base_url(&self) -> String {
        match self.wire {
            Wire::Gemini => format!("http://{}", self.addr),
            Wire::OpenAi => format!("http://{}/v1", self.addr),
        }
    }

    pub fn wire(&self) -> Wire {
        self.wire
    }

    /// Queues the answer to a later request; requests take turns in the order pushed.
    pub fn push_turn(&self, turn: Turn) {
        self.shared.state().turns.push_back(turn);
    }

    /// How many scripted turns no request has taken yet.
    pub fn pending_turns(&self) -> usize {
        self.shared.state().turns.len()
    }

    /// The bodies of every request received so far, in order.
    pub fn requests(&self) -> Vec<Value> {
        self.shared.state().requests.iter().map(|r| r.body.clone()).collect()
    }

    /// The body of the latest request.
    pub fn last_request(&self) -> Option<Value> {
        self.shared.state().requests.last().map(|r| r.body.clone())
    }

    /// Every request received so far with its path and headers.
    pub fn recorded(&self) -> Vec<RecordedRequest> {
        self.shared.state().requests.clone()
    }
}

impl Drop for MockModel {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

async fn handle(
    State(shared): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let path = uri.path_and_query().map_or_else(|| uri.path().to_owned(), |p| p.as_str().to_owned());
    let parsed =
        serde_json::from_slice(&body).unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&body).into_owned()));
    let recorded = RecordedRequest {
        method: method.to_string(),
        path: path.clone(),
        headers: headers
            .iter()
            .map(|(n, v)| (n.as_str().to_owned(), String::from_utf8_lossy(v.as_bytes()).into_owned()))
            .collect(),
        body: parsed,
    };
    let (turn, first_call_id, request_number) = {
        let mut state = shared.state();
        state.requests.push(recorded);
        let request_number = state.requests.len();
        if let Some(problem) = route_problem(shared.wire, &method, &path) {
            return status_response(404, &json!({ "error": { "code": 404, "message": problem } }).to_string());
        }
        let turn = state.turns.pop_front().unwrap_or_else(|| Turn::text(NO_MORE_TURNS));
        let first_call_id = state.next_call_id;
        if let TurnKind::Answer { calls, .. } = &turn.kind {
            state.next_call_id += calls.len() as u64;
        }
        (turn, first_call_id, request_number)
    };
    match turn.kind {
        TurnKind::Status(status, body) => status_response(status, &body),
        TurnKind::RawSse(sse) => sse_response(vec![sse], false),
        TurnKind::Stall => sse_response(vec![": the mock stalls here\n\n".to_owned()], true),
        TurnKind::Answer { text, calls } => {
            let chunks = match shared.wire {
                Wire::Gemini => gemini_chunks(&text, &calls, turn.usage),
                Wire::OpenAi => openai_chunks(&text, &calls, turn.usage, request_number, first_call_id),
            };
            sse_response(chunks, false)
        }
    }
}

/// Why a request does not reach the imitated endpoint, if it does not.
fn route_problem(wire: Wire, method: &Method, path: &str) -> Option<String> {
    let ok = method == Method::POST
        && match wire {
            Wire::Gemini => {
                path.starts_with("/v1beta/models/")
                    && path.contains(":streamGenerateContent?")
                    && path.contains("alt=sse")
            }
            Wire::OpenAi => path == "/v1/chat/completions",
        };
    (!ok).then(|| format!("mock model ({wire:?}): no endpoint for {method} {path}"))
}

fn status_response(status: u16, body: &str) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let content_type =
        if serde_json::from_str::<Value>(body).is_ok() { "application/json" } else { "text/plain; charset=utf-8" };
    (status, [(header::CONTENT_TYPE, content_type)], body.to_owned()).into_response()
}

fn sse_response(chunks: Vec<String>, then_stall: bool) -> Response {
    let chunks = futures_util::stream::iter(chunks.into_iter().map(|c| Ok::<_, std::io::Error>(Bytes::from(c))));
    let body = if then_stall {
        Body::from_stream(futures_util::StreamExt::chain(chunks, futures_util::stream::pending()))
    } else {
        Body::from_stream(chunks)
    };
    (StatusCode::OK, [(header::CONTENT_TYPE, "text/event-stream"), (header::CACHE_CONTROL, "no-cache")], body)
        .into_response()
}

/// `text` in up to `pieces` pieces of about equal length, cut at character boundaries.
fn split(text: &str, pieces: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    if chars.is_empty() {
        return Vec::new();
    }
    let size = chars.len().div_ceil(pieces.max(1));
    chars.chunks(size).map(|c| c.iter().collect()).collect()
}

fn gemini_chunks(text: &str, calls: &[MockCall], (input, output): (u64, u64)) -> Vec<String> {
    let mut parts: Vec<Vec<Value>> = split(text, 3).into_iter().map(|t| vec![json!({ "text": t })]).collect();
    let call_parts = calls.iter().map(|c| {
        let args = match &c.args {
            Args::Json(args) => args.clone(),
            Args::Raw(raw) => Value::String(raw.clone()),
        };
        let mut function_call = json!({ "name": c.name, "args": args });
        if let (Some(id), Value::Object(map)) = (&c.id, &mut function_call) {
            map.insert("id".into(), Value::String(id.clone()));
        }
        let mut part = json!({ "functionCall": function_call });
        if let Some(signature) = &c.signature {
            part["thoughtSignature"] = Value::String(signature.clone());
        }
        part
    });
    match parts.last_mut() {
        Some(last) => last.extend(call_parts),
        None => parts.push(call_parts.collect()),
    }
    let count = parts.len();
    parts
        .into_iter()
        .enumerate()
        .map(|(i, parts)| {
            let mut candidate = json!({ "content": { "role": "model", "parts": parts }, "index": 0 });
            let mut chunk = json!({ "modelVersion": "mock" });
            if i + 1 == count {
                candidate["finishReason"] = json!("STOP");
                chunk["usageMetadata"] = json!({
                    "promptTokenCount": input,
                    "candidatesTokenCount": output,
                    "totalTokenCount": input + output,
                });
            }
            chunk["candidates"] = json!([candidate]);
            format!("data: {chunk}\r\n\r\n")
        })
        .collect()
}

fn openai_chunks(
    text: &str,
    calls: &[MockCall],
    (input, output): (u64, u64),
    request_number: usize,
    first_call_id: u64,
) -> Vec<String> {
    let id = format!("chatcmpl-mock-{request_number}");
    let chunk = |delta: Value, finish: Value| {
        let chunk = json!({
            "id": id, "object": "chat.completion.chunk", "created": 1_700_000_000, "model": "mock",
            "choices": [{ "index": 0, "delta": delta, "finish_reason": finish }],
        });
        format!("data: {chunk}\n\n")
    };
    let mut chunks = vec![chunk(json!({ "role": "assistant", "content": "" }), Value::Null)];
    for piece in split(text, 3) {
        chunks.push(chunk(json!({ "content": piece }), Value::Null));
    }
    for (index, (call, number)) in calls.iter().zip(first_call_id..).enumerate() {
        let call_id = call.id.clone().unwrap_or_else(|| format!("call_{number}"));
        chunks.push(chunk(
            json!({ "tool_calls": [{
                "index": index, "id": call_id, "type": "function",
                "function": { "name": call.name, "arguments": "" },
            }] }),
            Value::Null,
        ));
        let arguments = match &call.args {
            Args::Json(args) => args.to_string(),
            Args::Raw(raw) => raw.clone(),
        };
        for fragment in split(&arguments, 3) {
            chunks.push(chunk(
                json!({ "tool_calls": [{ "index": index, "function": { "arguments": fragment } }] }),
                Value::Null,
            ));
        }
    }
    let finish = if calls.is_empty() { "stop" } else { "tool_calls" };
    chunks.push(chunk(json!({}), json!(finish)));
    let usage = json!({
        "id": id, "object": "chat.completion.chunk", "created": 1_700_000_000, "model": "mock", "choices": [],
        "usage": { "prompt_tokens": input, "completion_tokens": output, "total_tokens": input + output },
    });
    chunks.push(format!("data: {usage}\n\n"));
    chunks.push("data: [DONE]\n\n".to_owned());
    chunks
}

/// The function responses of the latest turn in a request body of either wire format, as
/// `(tool name, content)`: the last Gemini content holding `functionResponse` parts, or the
/// last run of OpenAI `tool` messages (named through the assistant's `tool_calls`; the
/// call id stands in when no call matches). Errors read `Error: <message>` on both wires.
pub fn function_responses(request: &Value) -> Vec<(String, String)> {
    if let Some(contents) = request["contents"].as_array() {
        let responses = |content: &Value| -> Vec<(String, String)> {
            content["parts"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|part| part.get("functionResponse"))
                .map(|r| {
                    let name = r["name"].as_str().unwrap_or_default().to_owned();
                    let content = match (r["response"].get("output"), r["response"].get("error")) {
                        (Some(output), _) => text_of(output),
                        (None, Some(error)) => format!("Error: {}", text_of(error)),
                        (None, None) => text_of(&r["response"]),
                    };
                    (name, content)
                })
                .collect()
        };
        return contents.iter().rev().map(responses).find(|r| !r.is_empty()).unwrap_or_default();
    }
    let Some(messages) = request["messages"].as_array() else {
        return Vec::new();
    };
    let is_tool = |m: &Value| m["role"] == "tool";
    let Some(last) = messages.iter().rposition(is_tool) else {
        return Vec::new();
    };
    let first = messages[..last].iter().rposition(|m| !is_tool(m)).map_or(0, |i| i + 1);
    let name_of = |id: &str| {
        messages
            .iter()
            .filter_map(|m| m["tool_calls"].as_array())
            .flatten()
            .find(|c| c["id"] == id)
            .and_then(|c| c["function"]["name"].as_str())
            .map(str::to_owned)
    };
    messages[first..=last]
        .iter()
        .map(|m| {
            let id = m["tool_call_id"].as_str().unwrap_or_default();
            (name_of(id).unwrap_or_else(|| id.to_owned()), text_of(&m["content"]))
        })
        .collect()
}

/// The names of the tools a request body of either wire format declares, in order.
pub fn declared_tools(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|tool| match tool.get("functionDeclarations").and_then(Value::as_array) {
            Some(declarations) => declarations.iter().map(|d| &d["name"]).collect::<Vec<_>>(),
            None => vec![&tool["function"]["name"]],
        })
        .filter_map(|name| name.as_str().map(str::to_owned))
        .collect()
}

/// Text content as a model reads it: a string as is, OpenAI content parts joined, any
/// other JSON as JSON text.
fn text_of(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Array(parts) if parts.iter().all(|p| p["text"].is_string()) => {
            parts.iter().filter_map(|p| p["text"].as_str()).collect()
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_text_into_pieces_at_char_boundaries() {
        assert_eq!(split("héllo🦀", 3), ["hé", "ll", "o🦀"]);
        assert_eq!(split("abcdefg", 3), ["abc", "def", "g"]);
        assert_eq!(split("a", 3), ["a"]);
        assert!(split("", 3).is_empty());
    }

    #[test]
    fn gemini_chunks_carry_text_calls_finish_and_usage() {
        let calls = [call("glob", json!({ "pattern": "*" })).with_signature("sig"), call("ls", json!({}))];
        let chunks = gemini_chunks("hello", &calls, (7, 3));
        assert!(chunks.len() >= 2);
        let last: Value =
            serde_json::from_str(chunks[chunks.len() - 1].trim_start_matches("data: ").trim()).unwrap_or_default();
        assert_eq!(last["candidates"][0]["finishReason"], "STOP");
        assert_eq!(last["usageMetadata"]["promptTokenCount"], 7);
        let parts = &last["candidates"][0]["content"]["parts"];
        assert_eq!(parts[1]["functionCall"]["name"], "glob");
        assert_eq!(parts[1]["thoughtSignature"], "sig");
        assert_eq!(parts[2].get("thoughtSignature"), None);
    }

    #[test]
    fn openai_chunks_fragment_arguments_and_end_with_done() {
        let chunks = openai_chunks("", &[call("glob", json!({ "pattern": "*.rs" }))], (1, 2), 1, 5);
        assert_eq!(chunks.last().map(String::as_str), Some("data: [DONE]\n\n"));
        let fragments: String = chunks
            .iter()
            .filter_map(|c| serde_json::from_str::<Value>(c.trim_start_matches("data: ").trim()).ok())
            .filter_map(|c| {
                c["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"].as_str().map(str::to_owned)
            })
            .collect();
        assert_eq!(fragments, r#"{"pattern":"*.rs"}"#);
        assert!(chunks.iter().any(|c| c.contains("\"id\":\"call_5\"")));
        assert!(chunks.iter().any(|c| c.contains("\"finish_reason\":\"tool_calls\"")));
    }

    #[test]
    fn extracts_function_responses_from_both_wires() {
        let gemini = json!({ "contents": [
            { "role": "user", "parts": [{ "text": "go" }] },
            { "role": "model", "parts": [{ "functionCall": { "name": "a", "args": {} } }] },
            { "role": "user", "parts": [
                { "functionResponse": { "name": "a", "response": { "output": "ok" } } },
                { "functionResponse": { "name": "b", "response": { "error": "bad" } } },
            ] },
        ] });
        let expected = [("a".to_owned(), "ok".to_owned()), ("b".to_owned(), "Error: bad".to_owned())];
        assert_eq!(function_responses(&gemini), expected);
        let openai = json!({ "messages": [
            { "role": "user", "content": "go" },
            { "role": "assistant", "content": null, "tool_calls": [
                { "id": "c1", "type": "function", "function": { "name": "a", "arguments": "{}" } },
                { "id": "c2", "type": "function", "function": { "name": "b", "arguments": "{}" } },
            ] },
            { "role": "tool", "tool_call_id": "c1", "content": "ok" },
            { "role": "tool", "tool_call_id": "c2", "content": "Error: bad" },
        ] });
        assert_eq!(function_responses(&openai), expected);
        assert!(function_responses(&json!({ "messages": [{ "role": "user", "content": "x" }] })).is_empty());
    }

    #[test]
    fn lists_declared_tools_from_both_wires() {
        let gemini = json!({ "tools": [{ "functionDeclarations": [{ "name": "a" }, { "name": "b" }] }] });
        let openai = json!({ "tools": [
            { "type": "function", "function": { "name": "a" } },
            { "type": "function", "function": { "name": "b" } },
        ] });
        assert_eq!(declared_tools(&gemini), ["a", "b"]);
        assert_eq!(declared_tools(&openai), ["a", "b"]);
        assert!(declared_tools(&json!({ "contents": [] })).is_empty());
    }

    #[test]
    fn serves_scripted_turns_then_a_clear_fallback() {
        let mock = MockModel::start(Wire::OpenAi);
        mock.push_turn(Turn::status(418, "teapot"));
        assert_eq!(mock.pending_turns(), 1);
        let (status, body) = post(&mock, "/v1/chat/completions", "{\"messages\":[]}");
        assert_eq!((status, body.as_str()), (418, "teapot"));
        let (status, body) = post(&mock, "/v1/chat/completions", "{}");
        assert_eq!(status, 200);
        assert!(body.contains("\"content\":\"mock: no m") && body.ends_with("data: [DONE]\n\n"), "{body}");
        let (status, _) = post(&mock, "/v1/wrong", "{}");
        assert_eq!(status, 404);
        assert_eq!(mock.requests().len(), 3);
        assert_eq!(mock.requests()[0], json!({ "messages": [] }));
        assert_eq!(mock.recorded()[2].path, "/v1/wrong");
        assert_eq!(mock.recorded()[0].header("Content-Type"), Some("application/json"));
    }

    /// A minimal blocking HTTP/1.0 client, enough to poke the mock without a client crate.
    fn post(mock: &MockModel, path: &str, body: &str) -> (u16, String) {
        use std::io::{Read, Write};
        let Ok(mut stream) = std::net::TcpStream::connect(mock.addr) else {
            return (0, String::new());
        };
        let request = format!(
            "POST {path} HTTP/1.0\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            mock.addr,
            body.len()
        );
        let mut response = String::new();
        if stream.write_all(request.as_bytes()).is_err() || stream.read_to_string(&mut response).is_err() {
            return (0, String::new());
        }
        let status = response.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
        let body = response.split_once("\r\n\r\n").map(|(_, b)| b.to_owned()).unwrap_or_default();
        (status, body)
    }
}
