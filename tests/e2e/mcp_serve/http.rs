//! The HTTP door's checks, by raw requests (every header exactly as a hostile page or process
//! would send it) and by the SDK: no token or a wrong one → 401; an `Origin` that is not
//! loopback → 403; a `Host` that is not loopback (DNS rebinding) → 403; the same request with
//! the token and loopback names is served. The server binds loopback only.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::time::Duration;

use airlock_tests::Session;

use super::{Http, Server, client};
use crate::session;

/// An `initialize` request, the first thing any client sends.
const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;

/// POSTs [`INITIALIZE`] to `/mcp` of `http` with `Host: host` and `headers`, and returns the
/// response's status code.
fn status(http: &Http, host: &str, headers: &[(&str, &str)]) -> u16 {
    let mut stream = TcpStream::connect(&http.addr).unwrap_or_else(|e| panic!("connect {}: {e}", http.addr));
    stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap_or_else(|e| panic!("{e}"));
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
        INITIALIZE.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(INITIALIZE);
    stream.write_all(request.as_bytes()).unwrap_or_else(|e| panic!("send: {e}"));
    let mut line = String::new();
    BufReader::new(stream).read_line(&mut line).unwrap_or_else(|e| panic!("read the status line: {e}"));
    let code = line.split_whitespace().nth(1).and_then(|c| c.parse().ok());
    code.unwrap_or_else(|| panic!("not an HTTP status line: {line:?}"))
}

#[test]
fn a_request_needs_the_token() {
    let s = session();
    let http = Http::start(&s, &[]);
    assert!(http.token.len() >= 43, "a short token: {:?}", http.token);
    assert!(http.token.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'), "{}", http.token);
    let host = http.addr.clone();
    let bearer = format!("Bearer {}", http.token);
    assert_eq!(status(&http, &host, &[]), 401, "no token");
    assert_eq!(status(&http, &host, &[("Authorization", "Bearer not-the-token")]), 401, "a wrong token");
    let almost = format!("Bearer {}x", http.token);
    assert_eq!(status(&http, &host, &[("Authorization", &almost)]), 401, "the token and more");
    assert_eq!(status(&http, &host, &[("Authorization", &http.token)]), 401, "the token without Bearer");
    assert_eq!(status(&http, &host, &[("Authorization", &bearer)]), 200, "the token");

    // The SDK without the token cannot connect at all (it reports the 401 only as "Server
    // returned an error response").
    let refused = client(&s, &Server::Http(&http, ""), "legacy", &["list"]);
    assert!(refused["error"].as_str().is_some_and(|e| !e.is_empty()) && refused.get("tools").is_none(), "{refused}");
}

#[test]
fn a_foreign_origin_is_refused() {
    let s = session();
    let http = Http::start(&s, &[]);
    let host = http.addr.clone();
    let bearer = format!("Bearer {}", http.token);
    let port = http.addr.rsplit(':').next().unwrap_or_default().to_owned();
    for origin in ["http://evil.example", "https://attacker.test:8443", "http://127.0.0.1.evil.example", "null"] {
        assert_eq!(status(&http, &host, &[("Authorization", &bearer), ("Origin", origin)]), 403, "Origin {origin}");
    }
    // A page served from loopback (the user's own tools) may talk to it.
    for origin in [format!("http://127.0.0.1:{port}"), format!("http://localhost:{port}"), "http://[::1]".to_owned()] {
        assert_eq!(status(&http, &host, &[("Authorization", &bearer), ("Origin", &origin)]), 200, "Origin {origin}");
    }
}

#[test]
fn a_forged_host_is_refused() {
    let s = session();
    let http = Http::start(&s, &[]);
    let bearer = format!("Bearer {}", http.token);
    let port = http.addr.rsplit(':').next().unwrap_or_default().to_owned();
    // A DNS-rebinding page reaches 127.0.0.1 under its own name, which its requests carry.
    for host in [format!("rebind.evil.example:{port}"), "evil.example".to_owned(), format!("127.0.0.1.nip.io:{port}")] {
        assert_eq!(status(&http, &host, &[("Authorization", &bearer)]), 403, "Host {host}");
    }
    assert_eq!(status(&http, &format!("localhost:{port}"), &[("Authorization", &bearer)]), 200, "Host localhost");
}

#[test]
fn the_token_can_come_from_the_environment() {
    let s = session();
    let token = "a-token-the-user-chose-and-keeps-in-AIRLOCK_MCP_TOKEN-0123456789";
    let http = Http::start_with(&s, &[], Some(token));
    let host = http.addr.clone();
    assert_eq!(status(&http, &host, &[("Authorization", &format!("Bearer {token}"))]), 200);
    assert_eq!(status(&http, &host, &[]), 401);
    let listed = client(&s, &Server::Http(&http, token), "legacy", &["list"]);
    assert!(listed["tools"].as_array().is_some_and(|t| !t.is_empty()), "{listed}");
}

/// `airlock mcp serve --http ADDR` exits at once, saying why.
fn refused_bind(s: &Session, addr: &str) -> String {
    let mut command = s.bare_command();
    command.current_dir(&s.workspace).args(["mcp", "serve", "--http", addr]);
    let done = airlock_tests::run_bounded(command, Some(""), Duration::from_secs(60));
    assert_ne!(done.code, Some(0), "{addr} was served: {}", done.stderr);
    done.stderr
}

#[test]
fn a_non_loopback_address_is_refused() {
    let s = session();
    for addr in ["0.0.0.0:0", "[::]:0", "192.0.2.1:8080"] {
        let said = refused_bind(&s, addr);
        assert!(said.contains("loopback"), "{addr}: {said}");
    }
}
