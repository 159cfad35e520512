//! Network targets for the sandbox tests, on 127.0.0.1: a small HTTP server ([`WebServer`])
//! that records every request it receives, and a raw TCP listener ([`CountingListener`])
//! that counts the connections it accepts. Both run on threads of their own, so sync and
//! async tests can use them, and stop when dropped.

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use tokio::sync::oneshot;

/// An HTML page with what a converter must handle: a title, headings, a list, a relative
/// link, emphasis, code, a table, entities, and a script and a style that are not text.
pub const PAGE_HTML: &str = r#"<!DOCTYPE html>
<html><head><title>Airlock &amp; the  web</title><style>body { color: red }</style>
<script>var secret = "SCRIPT-TEXT";</script></head>
<body><nav><a href="/">Home</a></nav>
<h1>Fetching pages</h1>
<p>A <strong>bold</strong> claim with <em>emphasis</em> and <code>inline_code()</code>.</p>
<ul><li>first item</li><li>second item with <a href="/docs/guide.html">the guide</a></li></ul>
<pre><code>fn main() {
    println!("hi");
}</code></pre>
<table><tr><th>name</th><th>value</th></tr><tr><td>x</td><td>1 &lt; 2</td></tr></table>
<!-- a comment that is not text -->
<p>Caf&eacute; &#8212; done&hellip;</p>
</body></html>
"#;

/// The API key the search routes accept.
pub const SEARCH_KEY: &str = "test-search-key";

/// An HTTP/1.1 server with these routes:
///
/// - `/hello`: 200, body `hello`;
/// - `/bytes/<n>`: 200, a body of `n` bytes (`x`), sent in 64 KiB chunks;
/// - `/slow/<ms>`: 200, body `late`, after waiting `ms` milliseconds;
/// - `/redirect?to=<url>`: 302 to `<url>` (taken as is, not percent-decoded);
/// - `/page.html`: 200, `text/html`, [`PAGE_HTML`];
/// - `/html/<n>`: 200, `text/html`, a page of about `n` bytes, sent in 64 KiB chunks;
/// - `/searx/search?q=…&format=json`: a SearXNG answer ([`SEARCH_KEY`] not needed);
/// - `/brave/res/v1/web/search?q=…`: a Brave answer, 401 without the header
///   `x-subscription-token: SEARCH_KEY`;
/// - `POST /tavily`: a Tavily answer, 401 without `authorization: Bearer SEARCH_KEY`;
///
/// anything else is 404. Every request's path and query is recorded, in order.
pub struct WebServer {
    addr: SocketAddr,
    requests: Arc<Mutex<Vec<String>>>,
    shutdown: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for WebServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebServer").field("addr", &self.addr).finish_non_exhaustive()
    }
}

impl WebServer {
    /// Starts a server on a free port of 127.0.0.1; panics when it cannot.
    pub fn start() -> WebServer {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap_or_else(|e| panic!("web server: cannot build a runtime: {e}"));
        let std_listener = TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("web server: cannot bind: {e}"));
        let addr = std_listener.local_addr().unwrap_or_else(|e| panic!("web server: no local address: {e}"));
        std_listener.set_nonblocking(true).unwrap_or_else(|e| panic!("web server: cannot set non-blocking: {e}"));
        let listener = {
            let _context = runtime.enter();
            tokio::net::TcpListener::from_std(std_listener)
                .unwrap_or_else(|e| panic!("web server: cannot register the listener: {e}"))
        };
        let requests = Arc::new(Mutex::new(Vec::new()));
        let app = Router::new().fallback(handle).with_state(Arc::clone(&requests));
        let (shutdown, stop) = oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("web-server".into())
            .spawn(move || {
                runtime.block_on(async move {
                    tokio::select! {
                        _ = axum::serve(listener, app).into_future() => {}
                        _ = stop => {}
                    }
                });
            })
            .unwrap_or_else(|e| panic!("web server: cannot start its thread: {e}"));
        WebServer { addr, requests, shutdown: Some(shutdown), thread: Some(thread) }
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// `http://127.0.0.1:<port><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// The path and query of every request received so far.
    pub fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }
}

impl Drop for WebServer {
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
    State(requests): State<Arc<Mutex<Vec<String>>>>,
    headers: axum::http::HeaderMap,
    uri: Uri,
    body: axum::body::Bytes,
) -> Response {
    let target = uri.path_and_query().map_or_else(|| uri.path().to_string(), |p| p.as_str().to_string());
    requests.lock().unwrap_or_else(PoisonError::into_inner).push(target);
    let path = uri.path();
    if let Some(answer) = search(path, uri.query().unwrap_or_default(), &headers, &body) {
        return answer;
    }
    if path == "/hello" {
        return "hello".into_response();
    }
    if let Some(size) = path.strip_prefix("/bytes/").and_then(|n| n.parse::<usize>().ok()) {
        let chunks = (0..size).step_by(64 << 10).map(move |start| {
            Ok::<_, std::convert::Infallible>(axum::body::Bytes::from(vec![b'x'; (size - start).min(64 << 10)]))
        });
        return axum::body::Body::from_stream(futures_util::stream::iter(chunks)).into_response();
    }
    if let Some(millis) = path.strip_prefix("/slow/").and_then(|n| n.parse::<u64>().ok()) {
        tokio::time::sleep(std::time::Duration::from_millis(millis)).await;
        return "late".into_response();
    }
    if path == "/page.html" {
        return ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], PAGE_HTML).into_response();
    }
    if let Some(size) = path.strip_prefix("/html/").and_then(|n| n.parse::<usize>().ok()) {
        let chunks = (0..size).step_by(64 << 10).map(move |start| {
            let mut chunk = b"<p>".to_vec();
            chunk.resize((size - start).clamp(4, 64 << 10) - 4, b'w');
            chunk.extend_from_slice(b"</p>");
            Ok::<_, std::convert::Infallible>(axum::body::Bytes::from(chunk))
        });
        let body = axum::body::Body::from_stream(futures_util::stream::iter(chunks));
        return ([(header::CONTENT_TYPE, "text/html")], body).into_response();
    }
    if path == "/redirect"
        && let Some(to) = uri.query().and_then(|q| q.strip_prefix("to="))
    {
        return (StatusCode::FOUND, [(header::LOCATION, to.to_string())]).into_response();
    }
    StatusCode::NOT_FOUND.into_response()
}

/// The search API routes: each answers with the query it was sent in its first result's
/// snippet, so a test sees the query arrived whole.
fn search(path: &str, query: &str, headers: &axum::http::HeaderMap, body: &[u8]) -> Option<Response> {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or_default().to_string();
    let param = |name: &str| {
        query.split('&').find_map(|pair| pair.strip_prefix(&format!("{name}="))).map(decode).unwrap_or_default()
    };
    let json =
        |value: serde_json::Value| ([(header::CONTENT_TYPE, "application/json")], value.to_string()).into_response();
    let unauthorized = || Some((StatusCode::UNAUTHORIZED, "bad key").into_response());
    match path {
        "/searx/search" => Some(json(serde_json::json!({ "results": [
            { "title": "Rust <b>and</b> WASM", "url": "https://example.org/a", "content": format!("about {}", param("q")) },
            { "title": "Second", "url": "https://example.org/b", "content": "second   snippet" },
            { "title": "Not a link", "url": "javascript:alert(1)", "content": "dropped" },
        ] }))),
        "/brave/res/v1/web/search" => {
            if header("x-subscription-token") != SEARCH_KEY {
                return unauthorized();
            }
            Some(json(serde_json::json!({ "web": { "results": [
                { "title": "Brave <strong>hit</strong>", "url": "https://brave.example/x", "description": format!("{} &amp; more", param("q")) },
            ] } })))
        }
        "/tavily" => {
            if header("authorization") != format!("Bearer {SEARCH_KEY}") {
                return unauthorized();
            }
            let sent: serde_json::Value = serde_json::from_slice(body).unwrap_or_default();
            Some(json(serde_json::json!({ "results": [
                { "title": "Tavily hit", "url": "https://tavily.example/y", "content": format!("asked {}", sent["query"]) },
            ] })))
        }
        _ => None,
    }
}

/// A percent-encoded query parameter, decoded (`+` is a space).
fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok().and_then(|h| u8::from_str_radix(h, 16).ok());
                match hex {
                    Some(byte) => {
                        out.push(byte);
                        i += 3;
                        continue;
                    }
                    None => out.push(b'%'),
                }
            }
            b'+' => out.push(b' '),
            byte => out.push(byte),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A TCP listener on a free port of 127.0.0.1 that accepts and counts connections.
pub struct CountingListener {
    addr: SocketAddr,
    accepted: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for CountingListener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CountingListener").field("addr", &self.addr).finish_non_exhaustive()
    }
}

impl CountingListener {
    /// Starts listening; panics when it cannot.
    pub fn start() -> CountingListener {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("listener: cannot bind: {e}"));
        let addr = listener.local_addr().unwrap_or_else(|e| panic!("listener: no local address: {e}"));
        let accepted = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (count, stopped) = (Arc::clone(&accepted), Arc::clone(&stop));
        let thread = std::thread::Builder::new()
            .name("counting-listener".into())
            .spawn(move || {
                for connection in listener.incoming() {
                    if stopped.load(Ordering::SeqCst) {
                        break;
                    }
                    if connection.is_ok() {
                        count.fetch_add(1, Ordering::SeqCst);
                    }
                }
            })
            .unwrap_or_else(|e| panic!("listener: cannot start its thread: {e}"));
        CountingListener { addr, accepted, stop, thread: Some(thread) }
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Connections accepted so far.
    pub fn accepted(&self) -> usize {
        self.accepted.load(Ordering::SeqCst)
    }
}

impl Drop for CountingListener {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the blocking accept; this connection is not counted.
        let _ = TcpStream::connect(self.addr);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
