//! Unit tests of `http.rs`.

use super::*;

fn gate(rules: &[&str]) -> HttpGate {
    let rules = rules.iter().map(|r| NetRule::parse(r).unwrap()).collect();
    HttpGate::new(rules, Instant::now() + Duration::from_secs(5), 10, Default::default())
}

fn check(gate: &HttpGate, url: &str) -> Result<(), NetDenial> {
    gate.check(&url.parse::<http::Uri>().unwrap()).map(|_| ())
}

#[test]
fn denials_name_the_rule_that_would_allow_the_request() {
    let gate = gate(&["https://api.example.com"]);
    assert!(check(&gate, "https://api.example.com/v1?key=secret").is_ok());
    let denial = check(&gate, "http://api.example.com:8080/v1?key=secret").unwrap_err();
    assert_eq!(denial.url, "http://api.example.com:8080/v1");
    assert_eq!(denial.reason, DenialReason::NotGranted);
    assert_eq!(denial.grant.unwrap().to_string(), "http://api.example.com:8080");
}

#[test]
fn user_names_in_urls_are_refused_even_for_granted_hosts() {
    let gate = gate(&["https://api.example.com"]);
    let denial = check(&gate, "https://me@api.example.com/").unwrap_err();
    assert!(denial.grant.is_none());
    assert!(denial.reason.to_string().contains("user name"));
}

#[test]
fn guest_timeouts_are_bounded_by_the_deadline() {
    let gate = gate(&[]);
    let asked = RequestOptions {
        connect_timeout: Some(Duration::from_secs(1)),
        first_byte_timeout: Some(Duration::from_secs(600)),
        between_bytes_timeout: None,
    };
    let bounded = gate.bounded(Some(asked), Duration::from_secs(3));
    assert_eq!(bounded.connect_timeout, Some(Duration::from_secs(1)));
    assert_eq!(bounded.first_byte_timeout, Some(Duration::from_secs(3)));
    assert_eq!(bounded.between_bytes_timeout, Some(Duration::from_secs(3)));
}

#[tokio::test]
async fn bodies_yield_up_to_the_cap_then_fail() {
    let gate = gate(&[]);
    let guard = BodyGuard {
        cap: gate.response_cap,
        deadline: tokio::time::Instant::now() + Duration::from_secs(5),
        denials: gate.denials.clone(),
        url: "http://x/".into(),
    };
    let chunks: Vec<Result<Frame<Bytes>, HttpError>> =
        vec![Ok(Frame::data(Bytes::from_static(b"1234567"))), Ok(Frame::data(Bytes::from_static(b"89abc")))];
    let inner = http_body_util::StreamBody::new(futures_util::stream::iter(chunks)).boxed_unsync();
    let mut body = guard.wrap(inner);
    let mut read = Vec::new();
    let error = loop {
        match body.frame().await {
            Some(Ok(frame)) => read.extend_from_slice(&frame.into_data().unwrap()),
            Some(Err(error)) => break error,
            None => panic!("the body ended without an error"),
        }
    };
    assert_eq!(read, b"123456789a");
    assert!(matches!(error, HttpError::HttpResponseBodySize(Some(10))), "{error}");
    let denials = gate.denials();
    assert_eq!(denials.len(), 1);
    assert_eq!(denials[0].reason, DenialReason::ResponseTooLarge { cap: 10 });
}
