//! The URL checks web_fetch adds to the `url` crate, and what the crate now does that the
//! hand-written parser did not (international names, `..` in a redirect, fragments).

use super::*;

fn parse(text: &str) -> Url {
    Url::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

#[test]
fn an_international_host_name_is_sent_in_its_ascii_form() {
    let url = parse("https://Bücher.example/straße?q=ü");
    assert_eq!(url.authority(), "xn--bcher-kva.example");
    assert_eq!(url.path_and_query(), "/stra%C3%9Fe?q=%C3%BC");
    assert_eq!(url.to_string(), "https://xn--bcher-kva.example/stra%C3%9Fe?q=%C3%BC");
}

#[test]
fn a_redirect_resolves_as_a_browser_resolves_it() {
    let page = parse("https://example.com:8443/a/b/c.html?x=1#frag");
    assert_eq!(page.to_string(), "https://example.com:8443/a/b/c.html?x=1");
    for (location, expected) in [
        ("../d/./e.html", "https://example.com:8443/a/d/e.html"),
        ("?y=2", "https://example.com:8443/a/b/c.html?y=2"),
        ("//other.example/p", "https://other.example/p"),
        ("/root#part", "https://example.com:8443/root"),
        ("HTTP://EXAMPLE.org:80/", "http://example.org/"),
        ("/../../x", "https://example.com:8443/x"),
    ] {
        assert_eq!(page.join(location).map(|u| u.to_string()), Ok(expected.to_string()), "{location}");
    }
    assert_eq!(page.authority(), "example.com:8443");
}

#[test]
fn what_web_fetch_refuses_is_refused_with_a_reason() {
    for (text, reason) in [
        ("example.com/page", "not an absolute URL"),
        ("ftp://example.com/f", "only http:// and https://"),
        ("https://user:pw@example.com/", "user name or password"),
        ("https://exa mple.com/", "percent-encode"),
        ("http://", "empty host"),
        ("https://[::1/", "not a valid URL"),
    ] {
        match Url::parse(text) {
            Ok(url) => panic!("{text} parsed as {url}"),
            Err(e) => assert!(e.contains(reason), "{text}: {e}"),
        }
    }
    let page = parse("https://example.com/");
    assert!(page.join("mailto:someone@example.com").is_err());
    assert!(page.join("file:///etc/passwd").is_err());
}

#[test]
fn an_ipv6_host_keeps_its_brackets() {
    let url = parse("http://[::1]:8080/x");
    assert_eq!(url.authority(), "[::1]:8080");
}

#[test]
fn a_github_blob_is_fetched_raw() {
    let url = parse("https://github.com/owner/repo/blob/main/src/lib.rs?plain=1").raw_github();
    assert_eq!(url.to_string(), "https://raw.githubusercontent.com/owner/repo/main/src/lib.rs?plain=1");
    let tree = parse("https://github.com/owner/repo/tree/main").raw_github();
    assert_eq!(tree.to_string(), "https://github.com/owner/repo/tree/main");
}
