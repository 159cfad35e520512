use super::*;

const DIGEST: &str = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

fn entry(reference: &str) -> Entry {
    Entry {
        name: "weather".into(),
        description: "d".into(),
        version: "1.0.0".into(),
        reference: reference.into(),
        digest: DIGEST.into(),
        signer: None,
    }
}

#[test]
fn the_install_line_pins_the_repository_to_the_digest() {
    let pinned = format!("oci://ghcr.io/acme/weather@{DIGEST}");
    assert_eq!(install_reference(&entry("oci://ghcr.io/acme/weather:1.0")).as_deref(), Ok(pinned.as_str()));
    assert_eq!(install_reference(&entry("oci://ghcr.io/acme/weather")).as_deref(), Ok(pinned.as_str()));
    assert_eq!(install_reference(&entry(&pinned)).as_deref(), Ok(pinned.as_str()));
    // A port is not a tag.
    let local = format!("oci://127.0.0.1:5000/weather@{DIGEST}");
    assert_eq!(install_reference(&entry("oci://127.0.0.1:5000/weather:v2")).as_deref(), Ok(local.as_str()));
    let other = format!("oci://ghcr.io/acme/weather@sha256:{}", "f".repeat(64));
    assert!(install_reference(&entry(&other)).is_err(), "a reference pinned to another digest");
    assert!(install_reference(&entry("https://ghcr.io/acme/weather")).is_err());
    assert!(install_reference(&entry("oci://ghcr.io/acme/weather;rm -rf ~")).is_err(), "shell characters");
}

#[test]
fn an_entry_with_broken_fields_breaks_the_index_naming_it() {
    let text = format!(
        r#"{{"plugins": [{{"name": "ok", "description": "", "version": "1", "reference": "oci://h/r:1", "digest": "{DIGEST}", "requests": {{}}}},
        {{"name": "bad", "description": "", "version": "1", "reference": "oci://h/r:1", "digest": "sha256:12", "requests": {{}}}}]}}"#
    );
    let error = parse(text.as_bytes(), "test").map(|_| ()).map_err(|e| e.to_string());
    let error = error.err().unwrap_or_default();
    assert!(error.contains("entry 2 (\"bad\")") && error.contains("digest"), "{error}");
    let missing = r#"{"plugins": [{"name": "x"}]}"#;
    let error = parse(missing.as_bytes(), "test").map(|_| ()).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(error.contains("entry 1 (\"x\")") && error.contains("missing field"), "{error}");
    assert!(parse(b"[]", "test").is_err(), "no plugins list");
    assert!(parse(b"{", "test").is_err(), "not JSON");
}

#[test]
fn an_entry_with_malformed_or_missing_requests_is_skipped_with_a_warning() {
    let make = |name: &str, requests: &str| {
        format!(
            r#"{{"name": "{name}", "description": "", "version": "1", "reference": "oci://h/r:1", "digest": "{DIGEST}"{requests}}}"#
        )
    };
    let text = format!(
        r#"{{"plugins": [{}, {}, {}, {}, {}, {}]}}"#,
        make(
            "fine",
            r#", "requests": {"files": [{"path": ".", "access": "read-write"}], "network": ["https://api.example.com"], "env": ["KEY"]}"#
        ),
        make("none", ""),
        make("unknown-kind", r#", "requests": {"memory": 512}"#),
        make("bad-net", r#", "requests": {"network": ["ftp://x"]}"#),
        make("bad-env", r#", "requests": {"env": ["A B"]}"#),
        make("bad-access", r#", "requests": {"files": [{"path": ".", "access": "everything"}]}"#),
    );
    let index = parse(text.as_bytes(), "test").unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<&str> = index.listed.iter().map(|l| l.entry.name.as_str()).collect();
    assert_eq!(names, ["fine"]);
    assert_eq!(index.warnings.len(), 5, "{:?}", index.warnings);
    for name in ["none", "unknown-kind", "bad-net", "bad-env", "bad-access"] {
        assert!(
            index.warnings.iter().any(|w| w.contains(&format!("({name:?}) skipped"))),
            "{name}: {:?}",
            index.warnings
        );
    }
}

#[test]
fn where_an_index_may_be() {
    assert!(matches!(Where::parse("https://example.com/index.json"), Ok(Where::Web(_))));
    assert!(matches!(Where::parse("http://127.0.0.1:8080/index.json"), Ok(Where::Web(_))));
    assert!(Where::parse("http://example.com/index.json").is_err(), "plain http off this machine");
    assert_eq!(
        Where::parse("git+https://github.com/acme/index").ok(),
        Some(Where::Git("https://github.com/acme/index".into()))
    );
    assert!(matches!(Where::parse("https://github.com/acme/index.git"), Ok(Where::Git(_))));
    assert!(matches!(Where::parse("git+file:///srv/mirror/index.git"), Ok(Where::Git(_))));
    assert!(matches!(Where::parse("/srv/mirror/index.git"), Ok(Where::Git(url)) if url.starts_with("file:///")));
    assert!(matches!(Where::parse("/srv/mirror/index.json"), Ok(Where::File(_))));
    assert!(matches!(Where::parse("file:///srv/mirror/index.json"), Ok(Where::File(_))));
    for refused in
        ["git+ssh://host/repo", "git+http://host/repo", "ssh://host/repo.git", "index.json", "ftp://x/i.json"]
    {
        assert!(Where::parse(refused).is_err(), "{refused}");
    }
}
