//! A scripted model server for end-to-end tests: it speaks the Gemini, the OpenAI or the
//! Anthropic streaming wire format on 127.0.0.1, answers each request with the next
//! scripted [`Turn`], and records every request so a test can assert on what the model
//! was sent. Besides answers, turns inject faults: error statuses with headers, streams
//! that stall, break off or turn to garbage after some text.
//!
//! The server runs on a thread of its own with its own runtime, so plain `#[test]`s that
//! spawn the `airlock` binary can use it as well as `#[tokio::test]`s. It stops when the
//! [`MockModel`] is dropped. An empty script answers [`NO_MORE_TURNS`] as plain text, so a
//! test that asks once too often fails on its output instead of hanging.

mod inspect;
mod wire;

use std::collections::VecDeque;
use std::future::IntoFuture;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use tokio::sync::oneshot;

pub use inspect::{declared_tools, function_responses};

/// What the mock answers once the script is used up.
pub const NO_MORE_TURNS: &str = "mock: no more scripted turns";

/// Which provider the mock imitates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    /// `POST /v1beta/models/{model}:streamGenerateContent?alt=sse`.
    Gemini,
    /// `POST /v1/chat/completions` with `stream: true`.
    OpenAi,
    /// `POST /v1/messages` with `stream: true`.
    Anthropic,
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
    /// Sent as it is: on the OpenAI wire as the `arguments` text, on the Anthropic wire as
    /// the `partial_json` fragments, on the Gemini wire as a JSON string in place of the
    /// `args` object.
    Raw(String),
}

/// A call of tool `name` with `args` (normally a JSON object).
pub fn call(name: &str, args: Value) -> MockCall {
    MockCall { name: name.to_owned(), args: Args::Json(args), id: None, signature: None }
}

impl MockCall {
    /// Gives the call this id. Without one, OpenAI calls get `call_<n>`, Anthropic calls
    /// `toolu_mock_<n>` and Gemini calls none (as older Gemini API versions do).
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
    /// Answers every later request too, instead of being used up.
    forever: bool,
}

#[derive(Debug, Clone)]
enum TurnKind {
    Answer {
        text: String,
        calls: Vec<MockCall>,
    },
    /// The start of a text answer, then the stream goes wrong as `cut` says.
    Partial {
        text: String,
        cut: Cut,
    },
    RawSse(String),
    Status {
        status: u16,
        headers: Vec<(String, String)>,
        body: String,
    },
    Stall,
}

/// How a partial answer's stream goes wrong.
#[derive(Debug, Clone, Copy)]
enum Cut {
    /// The connection stays open and silent.
    Stall,
    /// The connection is dropped mid-body.
    Abort,
    /// An event whose data is not JSON.
    Garbage,
}

impl Turn {
    fn new(kind: TurnKind) -> Self {
        Self { kind, usage: (100, 10), forever: false }
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
        Self::status_with_headers(status, [], body)
    }

    /// A response with this status, these headers (`retry-after`, ...) and body.
    pub fn status_with_headers<'a>(
        status: u16,
        headers: impl IntoIterator<Item = (&'a str, &'a str)>,
        body: impl Into<String>,
    ) -> Self {
        let headers = headers.into_iter().map(|(n, v)| (n.to_owned(), v.to_owned())).collect();
        Self::new(TurnKind::Status { status, headers, body: body.into() })
    }

    /// A 200 event stream that sends one comment and then nothing, ever.
    pub fn stall() -> Self {
        Self::new(TurnKind::Stall)
    }

    /// A text answer that stops after `text` (its events, not its end) and stays silent.
    /// An empty `text` stalls after the wire's preamble, before any output.
    pub fn stall_after_text(text: impl Into<String>) -> Self {
        Self::new(TurnKind::Partial { text: text.into(), cut: Cut::Stall })
    }

    /// A text answer whose connection drops after `text` (before any output when empty).
    pub fn truncated_after(text: impl Into<String>) -> Self {
        Self::new(TurnKind::Partial { text: text.into(), cut: Cut::Abort })
    }

    /// A text answer whose stream sends an event of garbage after `text`.
    pub fn malformed_after(text: impl Into<String>) -> Self {
        Self::new(TurnKind::Partial { text: text.into(), cut: Cut::Garbage })
    }

    /// Answers this request and every later one the same way (a server error that
    /// persists); turns pushed after it are never reached.
    pub fn forever(mut self) -> Self {
        self.forever = true;
        self
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
        // A history can carry megabytes of tool arguments (a 5 MB `write_file`), as real
        // model APIs accept; axum's default cap is 2 MB.
        let app = Router::new()
            .fallback(handle)
            .layer(axum::extract::DefaultBodyLimit::max(64 << 20))
            .with_state(Arc::clone(&shared));
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

    /// What to pass as `--base-url`: `http://127.0.0.1:P` for Gemini and Anthropic,
    /// `http://127.0.0.1:P/v1` for OpenAI.
    pub fn base_url(&self) -> String {
        match self.wire {
            Wire::Gemini | Wire::Anthropic => format!("http://{}", self.addr),
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
            return status_response(404, &[], &json!({ "error": { "code": 404, "message": problem } }).to_string());
        }
        let turn = match state.turns.front() {
            Some(turn) if turn.forever => turn.clone(),
            _ => state.turns.pop_front().unwrap_or_else(|| Turn::text(NO_MORE_TURNS)),
        };
        let first_call_id = state.next_call_id;
        if let TurnKind::Answer { calls, .. } = &turn.kind {
            state.next_call_id += calls.len() as u64;
        }
        (turn, first_call_id, request_number)
    };
    let answer = |text: &str, calls: &[MockCall], finished: bool| {
        let answer = wire::Answer { text, calls, usage: turn.usage, request_number, first_call_id, finished };
        match shared.wire {
            Wire::Gemini => wire::gemini(&answer),
            Wire::OpenAi => wire::openai(&answer),
            Wire::Anthropic => wire::anthropic(&answer),
        }
    };
    match &turn.kind {
        TurnKind::Status { status, headers, body } => status_response(*status, headers, body),
        TurnKind::RawSse(sse) => sse_response(vec![sse.clone()], End::Close),
        TurnKind::Stall => sse_response(vec![": the mock stalls here\n\n".to_owned()], End::Stall),
        TurnKind::Answer { text, calls } => sse_response(answer(text, calls, true), End::Close),
        TurnKind::Partial { text, cut } => {
            let mut chunks = answer(text, &[], false);
            let end = match cut {
                Cut::Stall => End::Stall,
                Cut::Abort => End::Abort,
                Cut::Garbage => {
                    chunks.push("data: {this is not json\n\n".to_owned());
                    End::Close
                }
            };
            sse_response(chunks, end)
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
            Wire::Anthropic => path == "/v1/messages",
        };
    (!ok).then(|| format!("mock model ({wire:?}): no endpoint for {method} {path}"))
}

fn status_response(status: u16, headers: &[(String, String)], body: &str) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let content_type =
        if serde_json::from_str::<Value>(body).is_ok() { "application/json" } else { "text/plain; charset=utf-8" };
    let mut response = (status, [(header::CONTENT_TYPE, content_type)], body.to_owned()).into_response();
    for (name, value) in headers {
        if let (Ok(name), Ok(value)) =
            (header::HeaderName::from_bytes(name.as_bytes()), header::HeaderValue::from_str(value))
        {
            response.headers_mut().append(name, value);
        }
    }
    response
}

/// How an event stream ends after its chunks.
#[derive(Debug, Clone, Copy)]
enum End {
    Close,
    /// Nothing more, ever, with the connection open.
    Stall,
    /// The connection drops (after a moment, so the chunks before it are flushed).
    Abort,
}

fn sse_response(chunks: Vec<String>, end: End) -> Response {
    use futures_util::StreamExt;
    type Chunk = Result<Bytes, std::io::Error>;
    let chunks = futures_util::stream::iter(chunks.into_iter().map(|c| Ok::<_, std::io::Error>(Bytes::from(c))));
    let body = match end {
        End::Close => Body::from_stream(chunks),
        End::Stall => Body::from_stream(chunks.chain(futures_util::stream::pending::<Chunk>())),
        End::Abort => Body::from_stream(chunks.chain(futures_util::stream::once(async {
            tokio::time::sleep(Duration::from_millis(50)).await;
            Err::<Bytes, _>(std::io::Error::other("mock model: connection cut"))
        }))),
    };
    (StatusCode::OK, [(header::CONTENT_TYPE, "text/event-stream"), (header::CACHE_CONTROL, "no-cache")], body)
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn a_forever_turn_answers_every_request_with_its_headers() {
        let mock = MockModel::start(Wire::Anthropic);
        mock.push_turn(Turn::status_with_headers(429, [("retry-after", "0")], "slow down").forever());
        mock.push_turn(Turn::text("never reached"));
        for _ in 0..3 {
            let response = post_raw(&mock, "/v1/messages", "{}");
            assert!(response.starts_with("HTTP/1.0 429") || response.starts_with("HTTP/1.1 429"), "{response}");
            assert!(response.to_ascii_lowercase().contains("\r\nretry-after: 0\r\n"), "{response}");
            assert!(response.ends_with("slow down"), "{response}");
        }
        assert_eq!(mock.pending_turns(), 2);
        assert_eq!(post(&mock, "/v1/chat/completions", "{}").0, 404);
    }

    #[test]
    fn a_partial_answer_stops_after_its_text() {
        let mock = MockModel::start(Wire::Anthropic);
        mock.push_turn(Turn::malformed_after("part"));
        let (status, body) = post(&mock, "/v1/messages", "{}");
        assert_eq!(status, 200);
        assert!(body.contains("\"text\":\"pa") && body.ends_with("data: {this is not json\n\n"), "{body}");
        assert!(!body.contains("message_stop"), "{body}");
    }

    /// A minimal blocking HTTP/1.0 client, enough to poke the mock without a client crate.
    fn post(mock: &MockModel, path: &str, body: &str) -> (u16, String) {
        let response = post_raw(mock, path, body);
        let status = response.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
        let body = response.split_once("\r\n\r\n").map(|(_, b)| b.to_owned()).unwrap_or_default();
        (status, body)
    }

    /// The whole response, head and body, as text.
    fn post_raw(mock: &MockModel, path: &str, body: &str) -> String {
        use std::io::{Read, Write};
        let Ok(mut stream) = std::net::TcpStream::connect(mock.addr) else {
            return String::new();
        };
        let request = format!(
            "POST {path} HTTP/1.0\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            mock.addr,
            body.len()
        );
        let mut response = String::new();
        if stream.write_all(request.as_bytes()).is_err() || stream.read_to_string(&mut response).is_err() {
            return String::new();
        }
        response
    }
}
