use super::{expected_digest, is_url};

#[test]
fn a_digest_is_64_hex_digits_in_either_case_with_an_optional_prefix() {
    let hex = "ab".repeat(32);
    assert_eq!(expected_digest(&hex).ok(), Some(hex.clone()));
    assert_eq!(expected_digest(&format!(" sha256:{} ", hex.to_uppercase())).ok(), Some(hex.clone()));
    for bad in ["", "abc", &"zz".repeat(32), &"ab".repeat(33)] {
        assert!(expected_digest(bad).is_err_and(|e| e.is_usage()), "{bad:?} was accepted");
    }
}

#[test]
fn only_http_and_https_are_urls() {
    assert!(is_url("https://example.com/x.wasm") && is_url("http://127.0.0.1:8000/x.wasm"));
    assert!(!is_url("x.wasm") && !is_url("./https/x.wasm") && !is_url("file:///x.wasm"));
}
