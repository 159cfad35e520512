use super::*;

fn headers(pairs: &[(header::HeaderName, &str)]) -> HeaderMap {
    let mut map = HeaderMap::new();
    for (name, value) in pairs {
        map.insert(name.clone(), value.parse().unwrap());
    }
    map
}

const TOKEN: &str = "s3cret-token-value";

#[test]
fn loopback_hosts_and_origins_pass_and_others_do_not() {
    for host in ["127.0.0.1", "127.0.0.1:8080", "localhost:1", "LOCALHOST", "[::1]:9", "[::1]", "127.1.2.3:80"] {
        assert!(is_loopback_host(authority_host(host)), "{host}");
    }
    for host in ["evil.com", "evil.com:80", "10.0.0.1:80", "0.0.0.0", "localhost.evil.com", "[::2]:80", ""] {
        assert!(!is_loopback_host(authority_host(host)), "{host}");
    }
    for origin in ["http://127.0.0.1:3000", "https://localhost", "http://[::1]:8080", "http://localhost:1"] {
        assert!(loopback_origin(origin), "{origin}");
    }
    for origin in [
        "http://evil.com",
        "null",
        "file://",
        "http://localhost.evil.com",
        "http://127.0.0.1@evil.com",
        "ftp://127.0.0.1",
        "http://127.0.0.1/x",
    ] {
        assert!(!loopback_origin(origin), "{origin}");
    }
}

#[test]
fn a_request_needs_a_loopback_host_a_loopback_origin_if_any_and_the_token() {
    let bearer = format!("Bearer {TOKEN}");
    let ok = headers(&[(header::HOST, "127.0.0.1:1"), (header::AUTHORIZATION, &bearer)]);
    assert_eq!(refusal(&ok, TOKEN), None);
    let with_origin = headers(&[
        (header::HOST, "127.0.0.1:1"),
        (header::AUTHORIZATION, &bearer),
        (header::ORIGIN, "http://localhost:5"),
    ]);
    assert_eq!(refusal(&with_origin, TOKEN), None);

    let status = |h: &HeaderMap| refusal(h, TOKEN).map(|(status, _)| status);
    assert_eq!(status(&headers(&[(header::HOST, "127.0.0.1:1")])), Some(StatusCode::UNAUTHORIZED));
    let wrong = headers(&[(header::HOST, "127.0.0.1:1"), (header::AUTHORIZATION, "Bearer s3cret-token-valuf")]);
    assert_eq!(status(&wrong), Some(StatusCode::UNAUTHORIZED));
    let prefix = headers(&[(header::HOST, "127.0.0.1:1"), (header::AUTHORIZATION, "Bearer s3cret")]);
    assert_eq!(status(&prefix), Some(StatusCode::UNAUTHORIZED));
    let basic = headers(&[(header::HOST, "127.0.0.1:1"), (header::AUTHORIZATION, &format!("Basic {TOKEN}"))]);
    assert_eq!(status(&basic), Some(StatusCode::UNAUTHORIZED));
    let foreign = headers(&[
        (header::HOST, "127.0.0.1:1"),
        (header::AUTHORIZATION, &bearer),
        (header::ORIGIN, "http://evil.com"),
    ]);
    assert_eq!(status(&foreign), Some(StatusCode::FORBIDDEN));
    let rebound = headers(&[(header::HOST, "evil.com"), (header::AUTHORIZATION, &bearer)]);
    assert_eq!(status(&rebound), Some(StatusCode::FORBIDDEN));
    let no_host = headers(&[(header::AUTHORIZATION, &bearer)]);
    assert_eq!(status(&no_host), Some(StatusCode::FORBIDDEN));
}
