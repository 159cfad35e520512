use super::expected_digest;
use crate::commands::plugins::fetch::{fetchable, is_url};

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

/// Every hop of a download, the first and each redirect, is held to one rule: `https`, or
/// plain `http` to this machine's loopback only (an https page that redirects to http, a
/// local page that redirects to a plain-http host, a name that merely starts like localhost).
#[test]
fn a_download_hop_is_https_or_plain_http_to_loopback() {
    for ok in [
        "https://example.com/x.wasm",
        "https://10.0.0.1/x.wasm",
        "http://127.0.0.1:8000/x.wasm",
        "http://127.9.9.9/x.wasm",
        "http://[::1]:80/x.wasm",
        "http://localhost/x.wasm",
        "http://LOCALHOST:1/x.wasm",
    ] {
        assert!(fetchable(&reqwest::Url::parse(ok).unwrap_or_else(|e| panic!("{e}"))), "{ok} was refused");
    }
    for refused in [
        "http://example.com/x.wasm",
        "http://10.0.0.1/x.wasm",
        "http://0.0.0.0/x.wasm",
        "http://localhost.example.com/x.wasm",
        "http://127.0.0.1.nip.io/x.wasm",
        "http://[::ffff:127.0.0.1]/x.wasm",
        "ftp://127.0.0.1/x.wasm",
        "file:///x.wasm",
    ] {
        assert!(!fetchable(&reqwest::Url::parse(refused).unwrap_or_else(|e| panic!("{e}"))), "{refused} was accepted");
    }
}
