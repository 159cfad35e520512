//! The network and environment of a sandbox, enforced on real components: the `net_probe`,
//! `socket_probe` and `env_peek` fixtures against a real HTTP server and TCP listener on
//! 127.0.0.1.

use std::time::{Duration, Instant};

use airlock_tests::fixtures;
use airlock_tests::http_server::{CountingListener, WebServer};

use super::super::*;
use crate::contract::ToolError;

async fn load(runtime: &Runtime, path: &str) -> LoadedComponent {
    let bytes = std::fs::read(path).unwrap();
    runtime.load(&airlock_files::content_hash(&bytes), || Ok(bytes.clone())).unwrap().0
}

fn sandbox(rules: &[String]) -> Sandbox {
    let mut sandbox = Sandbox::empty(64 << 20, Duration::from_secs(20));
    sandbox.network = rules.iter().map(|r| NetRule::parse(r).unwrap()).collect();
    sandbox
}

/// Runs one tool call; returns the guest's answer and the denials the call recorded.
async fn call(
    sandbox: &Sandbox,
    fixture: &str,
    tool: &str,
    args: serde_json::Value,
) -> (Result<String, String>, Vec<NetDenial>) {
    let runtime = crate::testing::runtime();
    let component = load(&runtime, fixture).await;
    let mut instance = runtime.instantiate(&component, Arc::from("test"), sandbox).await.unwrap();
    let answer = match instance.execute(tool, &args.to_string()).await.unwrap() {
        Ok(output) => Ok(output.llm_text()),
        Err(ToolError { message, .. }) => Err(message),
    };
    (answer, instance.network_denials())
}

async fn fetch(sandbox: &Sandbox, url: &str) -> (Result<String, String>, Vec<NetDenial>) {
    call(sandbox, fixtures::NET_PROBE, "fetch", serde_json::json!({ "url": url })).await
}

fn denied(answer: &Result<String, String>) -> bool {
    matches!(answer, Err(message) if message.contains("HttpRequestDenied"))
}

fn grant_of(denial: &NetDenial) -> String {
    denial.grant.as_ref().map(ToString::to_string).unwrap_or_default()
}

#[tokio::test]
async fn without_a_grant_no_request_leaves_the_sandbox() {
    let server = WebServer::start();
    let (answer, denials) = fetch(&sandbox(&[]), &server.url("/hello")).await;
    assert!(denied(&answer), "{answer:?}");
    assert!(server.requests().is_empty(), "the server was reached: {:?}", server.requests());
    assert_eq!(denials.len(), 1);
    assert_eq!(denials[0].url, server.url("/hello"));
    assert_eq!(denials[0].reason, DenialReason::NotGranted);
    assert_eq!(grant_of(&denials[0]), format!("http://127.0.0.1:{}", server.port()));
}

#[tokio::test]
async fn a_granted_destination_is_reached() {
    let server = WebServer::start();
    let (answer, denials) =
        fetch(&sandbox(&[format!("http://127.0.0.1:{}", server.port())]), &server.url("/hello")).await;
    assert_eq!(answer.unwrap(), "status=200 bytes=5 redirects=0");
    assert_eq!(server.requests(), ["/hello"]);
    assert!(denials.is_empty(), "{denials:?}");
}

#[tokio::test]
async fn other_ports_hosts_and_schemes_are_denied() {
    let granted = WebServer::start();
    let other = WebServer::start();
    let port = granted.port();
    let cases = [
        // The granted host on another port.
        (format!("http://127.0.0.1:{port}"), other.url("/hello"), format!("http://127.0.0.1:{}", other.port())),
        // https granted, http used.
        (format!("https://127.0.0.1:{port}"), granted.url("/hello"), format!("http://127.0.0.1:{port}")),
        // A name and the address it resolves to are different hosts, both ways.
        (format!("http://localhost:{port}"), granted.url("/hello"), format!("http://127.0.0.1:{port}")),
        (
            format!("http://127.0.0.1:{port}"),
            format!("http://localhost:{port}/hello"),
            format!("http://localhost:{port}"),
        ),
    ];
    for (rule, url, needed) in cases {
        let (answer, denials) = fetch(&sandbox(std::slice::from_ref(&rule)), &url).await;
        assert!(denied(&answer), "{rule} let {url} through: {answer:?}");
        assert_eq!(denials.iter().map(grant_of).collect::<Vec<_>>(), [needed], "{rule} / {url}");
    }
    assert!(granted.requests().is_empty(), "{:?}", granted.requests());
    assert!(other.requests().is_empty(), "{:?}", other.requests());
}

#[tokio::test]
async fn ports_the_connector_would_read_differently_are_refused() {
    let server = WebServer::start();
    let port = server.port();
    // The default port is granted too: a port the gate cannot read must not fall back to it.
    let sandbox = sandbox(&["http://127.0.0.1".into(), format!("http://127.0.0.1:{port}")]);
    for authority in [
        format!("127.0.0.1:{}", u32::from(port) + 65_536),
        format!("127.0.0.1:{}", u64::from(port) + (1 << 32)),
        "127.0.0.1:83618".to_string(),
        "127.0.0.1:".to_string(),
        format!("127.0.0.1:+{port}"),
        format!("127.0.0.1:0{port}0"),
    ] {
        let url = format!("http://{authority}/hello");
        let (answer, denials) = fetch(&sandbox, &url).await;
        assert!(denied(&answer), "{url}: {answer:?}");
        assert_eq!(denials.len(), 1, "{url}: {denials:?}");
        assert!(denials[0].reason.to_string().contains("port"), "{url}: {}", denials[0].reason);
        assert!(denials[0].grant.is_none(), "no grant can allow {url}");
    }
    assert!(server.requests().is_empty(), "the server was reached: {:?}", server.requests());
    let (answer, _) = fetch(&sandbox, &format!("http://127.0.0.1:{port}/hello")).await;
    assert_eq!(answer.unwrap(), "status=200 bytes=5 redirects=0");
}

#[tokio::test]
async fn every_redirect_hop_is_checked_again() {
    let granted = WebServer::start();
    let elsewhere = WebServer::start();
    let rules = [format!("http://127.0.0.1:{}", granted.port())];

    let inside = granted.url(&format!("/redirect?to={}", granted.url("/hello")));
    let (answer, _) = fetch(&sandbox(&rules), &inside).await;
    assert_eq!(answer.unwrap(), "status=200 bytes=5 redirects=1");

    let outside = granted.url(&format!("/redirect?to={}", elsewhere.url("/hello")));
    let (answer, denials) = fetch(&sandbox(&rules), &outside).await;
    assert!(denied(&answer), "{answer:?}");
    assert_eq!(denials.len(), 1);
    assert_eq!(denials[0].url, elsewhere.url("/hello"));
    assert!(elsewhere.requests().is_empty(), "the redirect target was reached: {:?}", elsewhere.requests());
    let first_hops: Vec<String> = granted.requests().into_iter().filter(|r| r.starts_with("/redirect")).collect();
    assert_eq!(first_hops.len(), 2);
}

#[tokio::test]
async fn response_bodies_are_capped() {
    let server = WebServer::start();
    let mut sandbox = sandbox(&[format!("http://127.0.0.1:{}", server.port())]);
    sandbox.http_response_cap = 1 << 20;

    let (answer, denials) = fetch(&sandbox, &server.url(&format!("/bytes/{}", 1 << 20))).await;
    assert_eq!(answer.unwrap(), format!("status=200 bytes={} redirects=0", 1 << 20));
    assert!(denials.is_empty(), "{denials:?}");

    let (answer, denials) = fetch(&sandbox, &server.url(&format!("/bytes/{}", 3 << 20))).await;
    let message = answer.unwrap_err();
    assert!(message.contains(&format!("failed after {} bytes", 1 << 20)), "{message}");
    assert!(message.contains("size exceeds limit"), "{message}");
    assert_eq!(denials.len(), 1);
    assert_eq!(denials[0].reason, DenialReason::ResponseTooLarge { cap: 1 << 20 });
    assert!(denials[0].grant.is_none());
}

#[tokio::test]
async fn a_slow_server_cannot_hold_a_call_past_its_deadline() {
    let server = WebServer::start();
    let mut sandbox = sandbox(&[format!("http://127.0.0.1:{}", server.port())]);
    sandbox.deadline = Duration::from_millis(500);
    let runtime = crate::testing::runtime();
    let component = load(&runtime, fixtures::NET_PROBE).await;
    let mut instance = runtime.instantiate(&component, Arc::from("test"), &sandbox).await.unwrap();
    let started = Instant::now();
    let args = serde_json::json!({ "url": server.url("/slow/30000") }).to_string();
    let result = instance.execute("fetch", &args).await;
    assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
    match result {
        Err(CallFault::Timeout(_)) => {}
        Ok(Err(error)) => assert!(error.message.contains("Timeout"), "{}", error.message),
        other => panic!("the call should have timed out: {other:?}"),
    }
}

#[tokio::test]
async fn raw_sockets_and_name_lookup_are_denied_even_with_an_http_grant() {
    let listener = CountingListener::start();
    let sandbox = sandbox(&[format!("http://127.0.0.1:{}", listener.addr().port())]);
    let args = serde_json::json!({ "addr": listener.addr().to_string() });
    let (answer, _) = call(&sandbox, fixtures::SOCKET_PROBE, "connect", args).await;
    let answer = answer.unwrap();
    let lines: Vec<&str> = answer.lines().collect();
    assert_eq!(lines.len(), 3, "{answer}");
    for (line, attempt) in lines.iter().zip(["tcp: error:", "udp: error:", "lookup: error:"]) {
        assert!(line.starts_with(attempt), "{answer}");
    }
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(listener.accepted(), 0);
}

#[tokio::test]
async fn the_guest_sees_exactly_the_sandbox_environment() {
    assert!(std::env::vars().next().is_some(), "the test process has an environment to leak");
    let mut with_env = sandbox(&[]);
    with_env.env = vec![("ALLOWED".into(), "1".into())];
    let (answer, _) = call(&with_env, fixtures::ENV_PEEK, "peek_env", serde_json::json!({})).await;
    assert_eq!(answer.unwrap(), r#"[("ALLOWED", "1")]"#);
    let (answer, _) = call(&sandbox(&[]), fixtures::ENV_PEEK, "peek_env", serde_json::json!({})).await;
    assert_eq!(answer.unwrap(), "[]");
}

#[test]
fn sandbox_debug_output_hides_environment_values() {
    let mut sandbox = sandbox(&[]);
    sandbox.env = vec![("OPENAI_API_KEY".into(), "sk-secret".into())];
    let shown = format!("{sandbox:?}");
    assert!(shown.contains("OPENAI_API_KEY"), "{shown}");
    assert!(!shown.contains("sk-secret"), "{shown}");
}

fn prohibited(answer: &Result<String, String>) -> bool {
    matches!(answer, Err(message) if message.contains("DestinationIpProhibited"))
}

#[tokio::test]
async fn a_name_or_a_wildcard_never_reaches_a_private_address() {
    let server = WebServer::start();
    let port = server.port();
    let any = format!("http://*:{port}");
    // `*` allows every host, at public addresses: localhost resolves to loopback, and the
    // loopback literal is not public either. Nothing reaches the server.
    for url in [format!("http://localhost:{port}/hello"), server.url("/hello")] {
        let (answer, denials) = fetch(&sandbox(std::slice::from_ref(&any)), &url).await;
        assert!(prohibited(&answer), "{url}: {answer:?}");
        assert_eq!(denials.len(), 1, "{url}: {denials:?}");
        assert!(matches!(denials[0].reason, DenialReason::PrivateAddress { .. }), "{:?}", denials[0].reason);
        assert!(denials[0].reason.to_string().contains("not a public address"), "{}", denials[0].reason);
    }
    assert!(server.requests().is_empty(), "a wildcard reached loopback: {:?}", server.requests());
    // The refusal names the grant that would reach it: the destination itself.
    let (_, denials) = fetch(&sandbox(std::slice::from_ref(&any)), &format!("http://localhost:{port}/x")).await;
    assert_eq!(grant_of(&denials[0]), format!("http://localhost:{port}"));

    // Named explicitly, each reaches the server; the other stays refused.
    let named = sandbox(&[any.clone(), format!("http://localhost:{port}")]);
    let (answer, _) = fetch(&named, &format!("http://localhost:{port}/hello")).await;
    assert_eq!(answer.unwrap(), "status=200 bytes=5 redirects=0");
    let (answer, _) = fetch(&named, &server.url("/hello")).await;
    assert!(prohibited(&answer), "{answer:?}");
    let literal = sandbox(&[any, format!("http://127.0.0.1:{port}")]);
    let (answer, _) = fetch(&literal, &server.url("/hello")).await;
    assert_eq!(answer.unwrap(), "status=200 bytes=5 redirects=0");
}

#[tokio::test]
async fn a_redirect_to_a_private_or_metadata_address_is_refused_before_connecting() {
    let server = WebServer::start();
    let port = server.port();
    // The page itself is granted by address; everything else only as a public host.
    let rules = [format!("http://127.0.0.1:{port}"), "http://*".to_string(), format!("http://*:{port}")];
    for target in [
        "http://169.254.169.254/latest/meta-data/iam/security-credentials/".to_string(),
        "http://[::ffff:169.254.169.254]/latest/meta-data/".to_string(),
        "http://10.0.0.1/admin".to_string(),
        "http://[::1]/".to_string(),
        format!("http://localhost:{port}/hello"),
    ] {
        let started = Instant::now();
        let url = server.url(&format!("/redirect?to={target}"));
        let (answer, denials) = fetch(&sandbox(&rules), &url).await;
        assert!(prohibited(&answer), "{target}: {answer:?}");
        assert!(
            denials.iter().any(|d| matches!(d.reason, DenialReason::PrivateAddress { .. })),
            "{target}: {denials:?}"
        );
        // Refused by the check, not by a connection that timed out.
        assert!(started.elapsed() < Duration::from_secs(5), "{target} took {:?}", started.elapsed());
    }
    assert!(server.requests().iter().all(|r| r.starts_with("/redirect")), "{:?}", server.requests());
}
