//! `airlock mcp serve --http`: the real binary on 127.0.0.1 and a plain HTTP client speaking
//! streamable HTTP by hand, so every header is the test's: a request without the token gets
//! 401, a foreign `Origin` or `Host` 403, a non-loopback address is refused at start, and
//! two MCP sessions keep their approvals apart.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use super::super::session;
use airlock_tests::Session;

const VERSION: &str = "2025-06-18";

/// A running `airlock mcp serve --http 127.0.0.1:0`: its endpoint and token.
struct Server {
    child: Child,
    url: String,
    token: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(s: &Session) -> Server {
    let mut command = s.bare_command();
    command.args(["mcp", "serve", "--http", "127.0.0.1:0"]).current_dir(&s.workspace).stderr(Stdio::piped());
    let mut child = command.spawn().unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let (mut url, mut token) = (None, None);
    while url.is_none() || token.is_none() {
        let line = lines.next().expect("the server said nothing").unwrap();
        if let Some(rest) = line.strip_prefix("airlock mcp serve: token ") {
            token = Some(rest.to_owned());
        } else if let Some(rest) = line.strip_prefix("airlock mcp serve: ") {
            url = Some(rest.to_owned());
        }
    }
    // Keep reading stderr so the server never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    let (url, token) = (url.unwrap(), token.unwrap());
    assert!(url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"), "{url}");
    assert!(token.len() >= 43 && token.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'), "{token}");
    Server { child, url, token }
}

/// One MCP session over HTTP.
struct Client<'a> {
    server: &'a Server,
    http: reqwest::Client,
    session: Option<String>,
    next: u64,
}

impl<'a> Client<'a> {
    fn new(server: &'a Server) -> Self {
        Self { server, http: reqwest::Client::new(), session: None, next: 0 }
    }

    fn post(&self, body: &Value) -> reqwest::RequestBuilder {
        let mut request = self
            .http
            .post(&self.server.url)
            .bearer_auth(&self.server.token)
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", VERSION)
            .header("content-type", "application/json")
            .body(body.to_string());
        if let Some(session) = &self.session {
            request = request.header("mcp-session-id", session);
        }
        request
    }

    async fn initialize(&mut self, elicitation: bool) {
        let capabilities = if elicitation { json!({ "elicitation": {} }) } else { json!({}) };
        let body = json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": VERSION, "capabilities": capabilities,
            "clientInfo": { "name": "airlock-e2e-http", "version": "1" } } });
        let response = self.post(&body).send().await.unwrap();
        assert_eq!(response.status(), 200);
        self.session = response.headers().get("mcp-session-id").map(|v| v.to_str().unwrap().to_owned());
        assert!(self.session.is_some(), "no session id");
        let mut stream = Events::of(response);
        let answer = stream.next().await.unwrap();
        assert_eq!(answer["result"]["protocolVersion"], VERSION, "{answer}");
        let initialized = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
        assert!(self.post(&initialized).send().await.unwrap().status().is_success());
    }

    /// Calls `tool`; when the server asks its user, answers `choice` (and records that it was
    /// asked). Returns the result and whether it was asked.
    async fn call(&mut self, tool: &str, arguments: Value, choice: &str) -> (Value, bool) {
        self.next += 1;
        let body = json!({ "jsonrpc": "2.0", "id": self.next, "method": "tools/call",
            "params": { "name": tool, "arguments": arguments } });
        let response = self.post(&body).send().await.unwrap();
        assert_eq!(response.status(), 200);
        let mut events = Events::of(response);
        let mut asked = false;
        loop {
            let message = events.next().await.expect("the call's stream ended without its result");
            if message["method"] == "elicitation/create" {
                asked = true;
                let answer = json!({ "jsonrpc": "2.0", "id": message["id"], "result": {
                    "action": "accept", "content": { "decision": choice } } });
                assert!(self.post(&answer).send().await.unwrap().status().is_success());
            } else if message.get("result").is_some() || message.get("error").is_some() {
                return (message, asked);
            }
        }
    }
}

/// The JSON-RPC messages of a server-sent event stream (or of a plain JSON answer).
struct Events {
    response: reqwest::Response,
    buffer: String,
}

impl Events {
    fn of(response: reqwest::Response) -> Self {
        Self { response, buffer: String::new() }
    }

    async fn next(&mut self) -> Option<Value> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let event: String = self.buffer.drain(..end + 2).collect();
                let data: String = event.lines().filter_map(|l| l.strip_prefix("data:")).map(str::trim_start).collect();
                if let Ok(message) = serde_json::from_str(&data) {
                    return Some(message);
                }
                continue;
            }
            let chunk = tokio::time::timeout(Duration::from_secs(90), self.response.chunk()).await.ok()?.ok()??;
            self.buffer.push_str(&String::from_utf8_lossy(&chunk).replace("\r\n", "\n"));
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_without_the_token_or_from_a_foreign_origin_or_host_is_refused() {
    let s = session();
    let server = start(&s);
    let http = reqwest::Client::new();
    let body = json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": VERSION, "capabilities": {}, "clientInfo": { "name": "x", "version": "1" } } });
    let request = || {
        http.post(&server.url)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .body(body.to_string())
    };
    assert_eq!(request().send().await.unwrap().status(), 401);
    assert_eq!(request().bearer_auth("not-the-token").send().await.unwrap().status(), 401);
    let wrong_length = format!("{}x", server.token);
    assert_eq!(request().bearer_auth(wrong_length).send().await.unwrap().status(), 401);
    let foreign = request().bearer_auth(&server.token).header("origin", "http://evil.example").send().await.unwrap();
    assert_eq!(foreign.status(), 403);
    let rebound = request().bearer_auth(&server.token).header("host", "evil.example").send().await.unwrap();
    assert_eq!(rebound.status(), 403);
    let local = request().bearer_auth(&server.token).header("origin", "http://localhost:5173").send().await.unwrap();
    assert_eq!(local.status(), 200);
}

#[test]
fn a_non_loopback_address_is_refused_at_start() {
    let s = session();
    for address in ["0.0.0.0:0", "[::]:0", "192.0.2.1:80"] {
        let mut command = s.bare_command();
        command.args(["mcp", "serve", "--http", address]).current_dir(&s.workspace);
        let finished = Session::run(command);
        assert_eq!(finished.code, Some(2), "{address}: {}", finished.stderr);
        assert!(finished.stderr.contains("loopback only"), "{}", finished.stderr);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_http_sessions_keep_their_approvals_apart() {
    let s = session();
    s.write("shared.txt", "0\n");
    let server = start(&s);
    let mut first = Client::new(&server);
    first.initialize(true).await;
    let mut second = Client::new(&server);
    second.initialize(false).await;

    // The first client's user allows writes of this file for its session.
    let write = |content: &str| json!({ "file_path": "shared.txt", "content": content });
    let (result, asked) = first.call("write_file", write("1\n"), "session").await;
    assert!(asked && result["result"]["isError"] == false, "{result}");
    assert_eq!(s.read("shared.txt").as_deref(), Some("1\n"));
    let (result, asked) = first.call("write_file", write("2\n"), "no").await;
    assert!(!asked && result["result"]["isError"] == false, "asked again, or failed: {result}");
    assert_eq!(s.read("shared.txt").as_deref(), Some("2\n"));

    // The second client's session never got that answer: its call needs approval, which
    // it cannot ask for.
    let (result, asked) = second.call("write_file", write("3\n"), "once").await;
    assert!(!asked && result["result"]["isError"] == true, "{result}");
    assert_eq!(s.read("shared.txt").as_deref(), Some("2\n"));
}
