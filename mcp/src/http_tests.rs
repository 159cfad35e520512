use super::*;

#[test]
fn a_refusal_is_named_by_its_status_and_a_port_is_not_a_status() {
    let refused = handshake_failure("Transport error: HTTP 401 Unauthorized: ");
    assert!(refused.contains("refused the credentials") && refused.contains("bearer_token_env"), "{refused}");
    assert!(handshake_failure("Auth required").contains("HTTP 401"));
    assert!(handshake_failure("Insufficient scope").contains("HTTP 403"));
    let unreachable = handshake_failure("error sending request for url (http://127.0.0.1:40123/mcp)");
    assert!(unreachable.starts_with("the handshake failed:"), "{unreachable}");
}

#[test]
fn only_plain_http_to_another_machine_is_in_clear() {
    for url in ["http://example.com/mcp", "http://10.0.0.5:80/mcp", "not a url"] {
        assert!(in_clear(url), "{url}");
    }
    for url in ["https://example.com/mcp", "http://127.0.0.1:9/mcp", "http://LOCALHOST/mcp", "http://[::1]/mcp"] {
        assert!(!in_clear(url), "{url}");
    }
}

#[test]
fn the_token_and_header_values_are_never_printed() {
    let launch = HttpLaunch {
        url: "https://example.com/mcp".into(),
        headers: vec![("X-Key".into(), "header-secret".into())],
        bearer_token: Some("token-secret".into()),
        startup_timeout: Duration::from_secs(1),
        max_message: 1,
    };
    let shown = format!("{launch:?}");
    assert!(shown.contains("X-Key") && !shown.contains("secret"), "{shown}");
}
