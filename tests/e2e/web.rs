//! The web tools of issue 12 through the real binary: the scripted mock model calls them,
//! a real HTTP server on 127.0.0.1 answers, and the host's network rules decide what is
//! reached — by default only public addresses, so the local server only through a grant
//! that names its address.

use std::path::Path;
use std::time::{Duration, Instant};

use airlock_tests::http_server::WebServer;
use airlock_tests::{Finished, MockModel, Session, Turn, Wire, call, function_responses};
use serde_json::json;

fn session() -> Session {
    Session::new(env!("CARGO_BIN_EXE_airlock"), &Path::new(env!("CARGO_TARGET_TMPDIR")).join("airlock-cache"))
}

/// Writes the user's `policy.toml`.
fn policy(s: &Session, text: &str) {
    std::fs::create_dir_all(s.airlock_home()).unwrap_or_else(|e| panic!("mkdir $AIRLOCK_HOME: {e}"));
    std::fs::write(s.airlock_home().join("policy.toml"), text).unwrap_or_else(|e| panic!("write policy.toml: {e}"));
}

/// Grants `web_fetch` the local server's address beside what it requests (every host at a
/// public address), as `airlock plugins grant web-fetch --net http://127.0.0.1:PORT` writes.
fn grant_server(s: &Session, server: &WebServer) {
    let rules = format!("\"https://*:*\", \"http://*:*\", \"http://127.0.0.1:{}\"", server.port());
    policy(s, &format!("[grants.web-fetch]\nnetwork = [{rules}]\n"));
}

/// One headless run in which the model fetches each of `urls` (in one batch), then answers
/// `done`; the run and what the model was sent back, in call order.
fn fetch(s: &Session, urls: &[String], mode: &str) -> (Finished, Vec<String>) {
    let mock = MockModel::start(Wire::OpenAi);
    let calls = urls.iter().map(|url| call("web_fetch", json!({ "url": url, "prompt": "what is on it" }))).collect();
    mock.push_turn(Turn::calls(calls));
    mock.push_turn(Turn::text("done"));
    let done = s.airlock(&mock, &["-p", "read the page", "--approval-mode", mode]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let requests = mock.requests();
    let sent = function_responses(&requests[1]).into_iter().map(|(_, text)| text).collect();
    (done, sent)
}

#[test]
fn a_granted_page_comes_back_as_markdown() {
    let s = session();
    let server = WebServer::start();
    grant_server(&s, &server);
    let (done, sent) = fetch(&s, &[server.url("/page.html")], "yolo");
    let text = &sent[0];
    let port = server.port();
    for expected in [
        &format!("URL: http://127.0.0.1:{port}/page.html"),
        "Title: Airlock & the web",
        "# Fetching pages",
        "A **bold** claim with *emphasis* and `inline_code()`.",
        "- first item",
        &format!("- second item with [the guide](http://127.0.0.1:{port}/docs/guide.html)"),
        "```\nfn main() {\n    println!(\"hi\");\n}\n```",
        "name | value",
        "x | 1 < 2",
        "Café — done…",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}\n{}", done.stderr);
    }
    for hidden in ["SCRIPT-TEXT", "color: red", "a comment", "<p>", "&amp;"] {
        assert!(!text.contains(hidden), "{hidden:?} leaked into:\n{text}");
    }
    assert_eq!(server.requests(), ["/page.html"]);
}

#[test]
fn by_default_no_private_address_is_reached_by_address_or_by_name() {
    let s = session();
    let server = WebServer::start();
    let port = server.port();
    let started = Instant::now();
    let urls = [
        server.url("/page.html"),
        format!("http://localhost:{port}/page.html"),
        "http://169.254.169.254/latest/meta-data/".to_string(),
        "http://[::1]:9/".to_string(),
        "http://10.0.0.1/".to_string(),
    ];
    let (done, sent) = fetch(&s, &urls, "yolo");
    for (url, text) in urls.iter().zip(&sent) {
        assert!(text.contains("not public"), "{url} was not refused as private: {text}\n{}", done.stderr);
    }
    assert!(server.requests().is_empty(), "the local server was reached: {:?}", server.requests());
    // Refused by the check, not by connections that timed out.
    assert!(started.elapsed() < Duration::from_secs(20), "{:?}", started.elapsed());
    // The user is told, with the grant that would reach an address.
    assert!(done.stderr.contains("not a public address"), "{}", done.stderr);
    assert!(
        done.stderr.contains(&format!("airlock plugins grant web-fetch --net http://127.0.0.1:{port}")),
        "{}",
        done.stderr
    );
}

#[test]
fn every_redirect_is_checked_again_and_one_to_a_private_address_is_refused() {
    let s = session();
    let server = WebServer::start();
    grant_server(&s, &server);
    let port = server.port();
    let urls = [
        server.url("/redirect?to=/page.html"),
        server.url(&format!("/redirect?to=http://localhost:{port}/page.html")),
        server.url("/redirect?to=http://169.254.169.254/latest/meta-data/"),
        server.url("/redirect?to=http://127.0.0.2:9/"),
    ];
    let (done, sent) = fetch(&s, &urls, "yolo");
    assert!(sent[0].contains("(after 1 redirect)") && sent[0].contains("# Fetching pages"), "{}", sent[0]);
    assert!(sent[1].contains("not public"), "{}\n{}", sent[1], done.stderr);
    assert!(sent[2].contains("not public"), "{}", sent[2]);
    assert!(sent[3].contains("denied") || sent[3].contains("not public"), "{}", sent[3]);
    let pages = server.requests().into_iter().filter(|r| r == "/page.html").count();
    assert_eq!(pages, 1, "only the same-origin redirect reached the page: {:?}", server.requests());
}

#[test]
fn a_50_mb_page_is_capped() {
    let s = session();
    let server = WebServer::start();
    grant_server(&s, &server);
    let (done, sent) = fetch(&s, &[server.url(&format!("/html/{}", 50 << 20))], "yolo");
    let text = &sent[0];
    assert!(
        text.contains("only the first 2.0 MiB of the page were read"),
        "{}\n{}",
        &text[..text.len().min(400)],
        done.stderr
    );
    assert!(text.contains("the text was cut at 100000 characters"), "{}", &text[..400]);
    assert!(text.chars().count() < 101_000, "{} characters", text.chars().count());
}

#[test]
fn without_approval_nothing_is_fetched_and_the_model_is_told() {
    let s = session();
    let server = WebServer::start();
    grant_server(&s, &server);
    let (done, sent) = fetch(&s, &[server.url("/page.html")], "default");
    assert!(server.requests().is_empty(), "{:?}", server.requests());
    assert!(!sent[0].contains("Fetching pages"), "{}", sent[0]);
    assert!(
        sent[0].to_lowercase().contains("approv") || sent[0].to_lowercase().contains("refused"),
        "{}\n{}",
        sent[0],
        done.stderr
    );
}

#[test]
fn a_bad_url_is_invalid_params_before_any_request() {
    let s = session();
    let (_, sent) =
        fetch(&s, &["file:///etc/passwd".into(), "example.com/x".into(), "http://user@example.com/".into()], "yolo");
    assert!(sent[0].contains("only http:// and https://"), "{}", sent[0]);
    assert!(sent[1].contains("not an absolute URL"), "{}", sent[1]);
    assert!(sent[2].contains("user name"), "{}", sent[2]);
}
