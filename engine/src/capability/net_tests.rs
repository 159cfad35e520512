//! Unit tests of `net.rs`: network rules, how they parse and print and what they match.

use super::*;

fn rule(text: &str) -> NetRule {
    NetRule::parse(text).unwrap()
}

fn rules(texts: &[&str]) -> Vec<NetRule> {
    texts.iter().map(|t| rule(t)).collect()
}

fn texts(rules: &[NetRule]) -> Vec<String> {
    rules.iter().map(ToString::to_string).collect()
}

#[test]
fn parses_and_prints_canonical_rules() {
    for (written, canonical) in [
        ("https://api.example.com", "https://api.example.com"),
        ("HTTPS://API.Example.COM", "https://api.example.com"),
        ("https://api.example.com/", "https://api.example.com"),
        ("https://api.example.com.", "https://api.example.com"),
        ("https://api.example.com:443", "https://api.example.com"),
        ("http://api.example.com:80", "http://api.example.com"),
        ("http://api.example.com:443", "http://api.example.com:443"),
        ("https://*.example.com:8443", "https://*.example.com:8443"),
        ("https://*", "https://*"),
        ("http://*:8080", "http://*:8080"),
        ("http://*:*", "http://*:*"),
        ("https://api.example.com:*", "https://api.example.com:*"),
        ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
        ("http://[::1]", "http://[::1]"),
        ("http://[0:0:0:0:0:0:0:1]:8080", "http://[::1]:8080"),
        ("  https://localhost  ", "https://localhost"),
    ] {
        assert_eq!(rule(written).to_string(), canonical, "{written}");
    }
    assert_eq!(rule("https://a.example.com"), rule("https://A.example.com:443"));
    assert_eq!("https://x.org".parse::<NetRule>().unwrap(), rule("https://x.org"));
    assert_eq!(serde_json::to_string(&rule("https://*.x.org:8443")).unwrap(), r#""https://*.x.org:8443""#);
}

#[test]
fn rejects_bad_rules_saying_what_is_wrong() {
    for (written, expected) in [
        ("", "cannot be empty"),
        ("api.example.com", "no scheme: write `https://api.example.com`"),
        ("ftp://example.com", "only `http` and `https`"),
        ("tcp://example.com:22", "only `http` and `https`"),
        ("https://example.com/v1", "path, query or fragment (`/v1`)"),
        ("https://example.com?key=1", "path, query or fragment"),
        ("https://example.com#top", "path, query or fragment"),
        ("https://user:pw@example.com", "user name"),
        ("https://*.com", "top-level domain"),
        ("https://a.*.example.com", "only as the whole first label"),
        ("https://*example.com", "only as the whole first label"),
        ("https://*.*.example.com", "only once"),
        ("https://*.127.0.0.1", "not an IP address"),
        ("https://example.com:", "is not a port"),
        ("https://example.com:0", "is not a port"),
        ("https://example.com:65536", "is not a port"),
        ("https://example.com:https", "is not a port"),
        ("https://", "host is missing"),
        ("https://:8080", "host is missing"),
        ("http://::1", "in brackets"),
        ("http://[::1", "no closing"),
        ("http://[::1]x", "unexpected"),
        ("http://[nope]", "not an IPv6 address"),
        ("http://127.1", "not an IPv4 address"),
        ("http://256.0.0.1", "not an IPv4 address"),
        ("http://bad host", "is not a host name"),
        ("http://a..b", "is not a host name"),
        ("http://bücher.de", "ASCII form"),
    ] {
        let error = NetRule::parse(written).unwrap_err();
        assert!(error.contains(expected), "{written:?}: {error}");
    }
}

#[test]
fn exact_hosts_match_scheme_host_and_port() {
    let granted = rules(&["https://api.example.com", "http://127.0.0.1:8080", "http://[::1]:9000"]);
    assert!(allows(&granted, "https", "api.example.com", None));
    assert!(allows(&granted, "https", "API.example.com.", Some(443)));
    assert!(allows(&granted, "HTTPS", "api.example.com", Some(443)));
    assert!(allows(&granted, "http", "127.0.0.1", Some(8080)));
    assert!(allows(&granted, "http", "[::1]", Some(9000)));
    assert!(allows(&granted, "http", "[0::1]", Some(9000)));

    assert!(!allows(&granted, "http", "api.example.com", None), "http instead of https");
    assert!(!allows(&granted, "https", "api.example.com", Some(8443)), "other port");
    assert!(!allows(&granted, "https", "example.com", None), "other host");
    assert!(!allows(&granted, "https", "evil-api.example.com", None));
    assert!(!allows(&granted, "https", "api.example.com.evil.org", None));
    assert!(!allows(&granted, "http", "127.0.0.1", None), "default port is not 8080");
    assert!(!allows(&granted, "http", "localhost", Some(8080)), "names are not resolved");
    assert!(!allows(&granted, "http", "2130706433", Some(8080)), "127.0.0.1 spelt as a number");
    assert!(!allows(&granted, "http", "127.1", Some(8080)));
    assert!(!allows(&granted, "http", "::1", Some(9000)), "IPv6 without brackets");
    assert!(!allows(&granted, "ftp", "api.example.com", None));
    assert!(!allows(&granted, "https", "", None));
    assert!(!allows(&[], "https", "api.example.com", None), "no rules, no network");
}

#[test]
fn wildcards_match_subdomains_at_any_depth_but_not_the_apex() {
    let granted = rules(&["https://*.example.com"]);
    assert!(allows(&granted, "https", "a.example.com", None));
    assert!(allows(&granted, "https", "a.b.c.example.com", None));
    assert!(allows(&granted, "https", "A.Example.Com", None));
    assert!(!allows(&granted, "https", "example.com", None), "the apex needs its own rule");
    assert!(!allows(&granted, "https", "badexample.com", None));
    assert!(!allows(&granted, "https", "example.com.evil.org", None));
    assert!(!allows(&granted, "https", "a.example.com", Some(8443)));
    assert!(!allows(&granted, "http", "a.example.com", None));
}

#[test]
fn covers_orders_rules_by_what_they_allow() {
    assert!(rule("https://*.example.com").covers(&rule("https://*.api.example.com")));
    assert!(rule("https://*.example.com").covers(&rule("https://*.example.com")));
    assert!(rule("https://*.example.com").covers(&rule("https://x.example.com")));
    assert!(!rule("https://*.api.example.com").covers(&rule("https://*.example.com")));
    assert!(!rule("https://x.example.com").covers(&rule("https://*.example.com")));
    assert!(!rule("https://*.example.com").covers(&rule("https://example.com")));
    assert!(!rule("https://*.example.com").covers(&rule("https://*.example.com:8443")));
}

#[test]
fn intersect_keeps_what_is_both_requested_and_granted() {
    let cases: &[(&[&str], &[&str], &[&str])] = &[
        // Nothing granted, nothing requested.
        (&["https://api.example.com"], &[], &[]),
        (&[], &["https://api.example.com"], &[]),
        // Same rule on both sides.
        (&["https://api.example.com"], &["https://api.example.com"], &["https://api.example.com"]),
        // A requested exact host under a granted wildcard stays exact.
        (&["https://api.example.com"], &["https://*.example.com"], &["https://api.example.com"]),
        // A request broader than the grant is narrowed to the grant.
        (&["https://*.example.com"], &["https://api.example.com"], &["https://api.example.com"]),
        (&["https://*.example.com"], &["https://*.eu.example.com"], &["https://*.eu.example.com"]),
        // A narrower requested wildcard is kept.
        (&["https://*.eu.example.com"], &["https://*.example.com"], &["https://*.eu.example.com"]),
        // Scheme, port and host must all agree.
        (&["http://api.example.com"], &["https://api.example.com"], &[]),
        (&["https://api.example.com:8443"], &["https://api.example.com"], &[]),
        (&["https://example.com"], &["https://*.example.com"], &[]),
        (&["https://other.org"], &["https://*.example.com"], &[]),
        // Several of each; covered results are folded, order follows the requests.
        (
            &["https://a.example.com", "https://*.example.com", "http://localhost:8080", "https://x.org"],
            &["https://*.example.com", "http://localhost:8080"],
            &["https://*.example.com", "http://localhost:8080"],
        ),
        (
            &["https://*.example.com"],
            &["https://a.example.com", "https://b.example.com"],
            &["https://a.example.com", "https://b.example.com"],
        ),
    ];
    for (requested, granted, expected) in cases {
        let met = intersect(&rules(requested), &rules(granted));
        assert_eq!(texts(&met), *expected, "{requested:?} ∩ {granted:?}");
        for rule in &met {
            assert!(rules(granted).iter().any(|g| g.covers(rule)), "{rule} is not granted");
            assert!(rules(requested).iter().any(|r| r.covers(rule)), "{rule} was not requested");
        }
    }
}

#[test]
fn a_request_is_its_own_exact_rule() {
    let request = NetRule::for_request("https", "API.example.com", None).unwrap();
    assert_eq!(request.to_string(), "https://api.example.com");
    assert_eq!(NetRule::for_request("http", "[::1]", Some(8080)).unwrap().to_string(), "http://[::1]:8080");
    assert!(NetRule::for_request("http", "bad host", None).is_none());
    assert!(NetRule::for_request("http", "[::1", None).is_none());
    assert!(NetRule::for_request("gopher", "example.com", None).is_none());
}

#[test]
fn a_request_port_is_read_once_and_strictly() {
    let granted = rules(&["http://127.0.0.1", "http://127.0.0.1:8080", "https://[::1]:8443"]);
    let allowed = |authority: &str| {
        NetRule::for_authority("http", authority).is_ok_and(|request| granted.iter().any(|g| g.covers(&request)))
    };
    assert!(allowed("127.0.0.1"));
    assert!(allowed("127.0.0.1:80"));
    assert!(allowed("127.0.0.1:8080"));
    // Each of these reads as "no port", so port 80, to `http::Uri::port_u16`; the connector
    // would try something else entirely.
    for authority in [
        "127.0.0.1:",
        "127.0.0.1:83618",
        "127.0.0.1:65616",                           // 80 + 2^16
        &format!("127.0.0.1:{}", 80u64 + (1 << 32)), // 80 + 2^32
        "127.0.0.1:+80",
        "127.0.0.1:0",
        "127.0.0.1:-80",
        "127.0.0.1:8080:80",
        "127.0.0.1:0x50",
        "127.0.0.1:000080",
        "127.0.0.1: 80",
    ] {
        let refused = NetRule::for_authority("http", authority).unwrap_err();
        assert!(!allowed(authority), "{authority} was allowed");
        assert!(refused.contains("port") || refused.contains("host"), "{authority}: {refused}");
    }
    assert!(NetRule::for_authority("https", "[::1]:8443").is_ok_and(|r| granted.iter().any(|g| g.covers(&r))));
    assert!(NetRule::for_authority("https", "[::1]:").is_err());
    assert!(NetRule::for_authority("https", "[::1]:70000").is_err());
    assert!(NetRule::for_authority("http", "user@127.0.0.1").unwrap_err().contains("user name"));
    assert!(NetRule::for_authority("ftp", "127.0.0.1").is_err());
}

#[test]
fn rules_take_ports_as_strictly_as_requests() {
    for written in ["http://127.0.0.1:+80", "http://127.0.0.1:", "http://127.0.0.1:83618", "http://127.0.0.1:0080x"] {
        let error = NetRule::parse(written).unwrap_err();
        assert!(error.contains("port") || error.contains("host"), "{written}: {error}");
    }
}

#[test]
fn star_covers_every_host_of_its_scheme_and_port_but_nothing_covers_it() {
    let any = rule("https://*");
    for covered in ["https://example.com", "https://*.example.com", "https://93.184.216.34", "https://[2606:2800::1]"] {
        assert!(any.covers(&rule(covered)), "{covered}");
    }
    for other in ["http://example.com", "https://example.com:8443", "http://*"] {
        assert!(!any.covers(&rule(other)), "{other}");
    }
    assert!(!rule("https://*.example.com").covers(&any));
    let every_port = rule("https://*:*");
    for covered in ["https://example.com:8443", "https://127.0.0.1:1", "https://*", "https://*.x.org:*"] {
        assert!(every_port.covers(&rule(covered)), "{covered}");
    }
    assert!(!every_port.covers(&rule("http://example.com")));
    assert!(!any.covers(&every_port));
    assert_eq!(
        texts(&intersect(std::slice::from_ref(&every_port), &rules(&["https://127.0.0.1:8443"]))),
        ["https://127.0.0.1:8443"]
    );
    // Beside the wildcard, a rule that names a private address stays: it reaches what the
    // wildcard never does. A public one is covered and goes.
    let granted = rules(&["https://*:*", "https://127.0.0.1:8443", "https://localhost", "https://1.1.1.1"]);
    assert_eq!(
        texts(&intersect(&[every_port], &granted)),
        ["https://*:*", "https://127.0.0.1:8443", "https://localhost"]
    );
    assert!(!rule("https://example.com").covers(&any));
    // Asked for every host, granted one: the one.
    assert_eq!(
        texts(&intersect(std::slice::from_ref(&any), &rules(&["https://api.example.com"]))),
        ["https://api.example.com"]
    );
    assert_eq!(texts(&intersect(&rules(&["https://api.example.com"]), &[any])), ["https://api.example.com"]);
}

#[test]
fn public_addresses_are_told_from_the_rest() {
    for private in [
        "0.0.0.0",
        "10.1.2.3",
        "127.0.0.1",
        "127.255.0.9",
        "100.64.0.1",
        "169.254.169.254",
        "172.16.0.1",
        "172.31.255.255",
        "192.168.1.1",
        "192.0.2.7",
        "198.18.0.1",
        "224.0.0.1",
        "240.0.0.1",
        "255.255.255.255",
        "::",
        "::1",
        "::ffff:127.0.0.1",
        "::ffff:169.254.169.254",
        "::127.0.0.1",
        "64:ff9b::a9fe:a9fe",
        "2002:7f00:1::",
        "fc00::1",
        "fd12:3456::1",
        "fe80::1",
        "fec0::1",
        "ff02::1",
        "2001:db8::1",
        "2001::1",
    ] {
        assert!(!is_public(private.parse().unwrap()), "{private} taken for public");
    }
    for public in [
        "1.1.1.1",
        "93.184.216.34",
        "172.32.0.1",
        "100.128.0.1",
        "2606:4700::1111",
        "::ffff:1.1.1.1",
        "64:ff9b::101:101",
    ] {
        assert!(is_public(public.parse().unwrap()), "{public} taken for private");
    }
}

#[test]
fn only_an_ip_literal_or_localhost_names_a_private_address() {
    let loopback: std::net::IpAddr = "127.0.0.1".parse().unwrap();
    assert!(rule("http://127.0.0.1:8080").names_address(loopback));
    assert!(rule("http://127.0.0.1:8080").names_address("::ffff:127.0.0.1".parse().unwrap()));
    assert!(!rule("http://127.0.0.2").names_address(loopback));
    assert!(rule("http://localhost").names_address(loopback));
    assert!(rule("http://localhost").names_address("::1".parse().unwrap()));
    assert!(!rule("http://localhost").names_address("10.0.0.1".parse().unwrap()));
    for name in ["http://intranet.example.com", "http://*.example.com", "http://*"] {
        assert!(!rule(name).names_address(loopback), "{name}");
    }
}

#[test]
fn link_local_addresses_are_told_apart_for_the_metadata_service() {
    for ip in ["169.254.169.254", "::ffff:169.254.169.254", "fe80::1", "fd00:ec2::254"] {
        assert!(is_link_local(ip.parse().unwrap()), "{ip}");
    }
    for ip in ["127.0.0.1", "10.0.0.1", "1.1.1.1"] {
        assert!(!is_link_local(ip.parse().unwrap()), "{ip}");
    }
}
