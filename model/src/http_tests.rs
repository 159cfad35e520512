//! Unit tests of `http.rs`.

use super::super::ProviderKind;
use super::*;

fn config(kind: ProviderKind) -> ProviderConfig {
    ProviderConfig::new(kind, kind.default_base_url(), kind.default_model())
}

#[test]
fn extracts_the_provider_message_from_known_error_shapes() {
    let cases = [
        (r#"{"error":{"message":"quota exceeded","code":429}}"#, "quota exceeded"),
        (r#"[{"error":{"message":"model not found","status":"NOT_FOUND"}}]"#, "model not found"),
        (r#"{"error":"model 'x' not found"}"#, "model 'x' not found"),
        (r#"{"detail":"bad request"}"#, "bad request"),
    ];
    for (body, message) in cases {
        assert_eq!(provider_message(body).as_deref(), Some(message), "{body}");
    }
    assert_eq!(provider_message("<html>oops</html>"), None);
}

#[test]
fn maps_statuses_to_errors() {
    let openai = config(ProviderKind::Openai);
    assert!(matches!(
        status_error(401, "", None, &openai),
        ModelError::Auth { status: 401, key_variable: Some(v), .. } if v == "OPENAI_API_KEY"
    ));
    let mut named = config(ProviderKind::Anthropic);
    named.name = "proxy".into();
    named.key_variable = Some("PROXY_KEY".into());
    assert!(matches!(
        status_error(403, "", None, &named),
        ModelError::Auth { status: 403, key_variable: Some(v), provider } if v == "PROXY_KEY" && provider == "proxy"
    ));
    let gemini = config(ProviderKind::Gemini);
    let bad_key = r#"{"error":{"code":400,"message":"API key not valid.","details":[{"reason":"API_KEY_INVALID"}]}}"#;
    assert!(matches!(
        status_error(400, bad_key, None, &gemini),
        ModelError::Auth { status: 400, key_variable: Some(v), .. } if v == "GEMINI_API_KEY"
    ));
    match status_error(503, "", Some(Duration::from_secs(2)), &gemini) {
        ModelError::Http { status: 503, body, retry_after } => {
            assert_eq!(body, "Service Unavailable");
            assert_eq!(retry_after, Some(Duration::from_secs(2)));
        }
        other => panic!("unexpected {other:?}"),
    }
    let overloaded = r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
    assert!(
        matches!(status_error(529, overloaded, None, &named), ModelError::Http { status: 529, body, .. } if body == "Overloaded")
    );
    match status_error(500, &"x".repeat(2000), None, &gemini) {
        ModelError::Http { body, .. } => assert_eq!(body.chars().count(), ERROR_BODY_CHARS + 1),
        other => panic!("unexpected {other:?}"),
    }
}
