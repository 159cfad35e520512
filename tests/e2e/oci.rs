//! Plugins from OCI registries (issue 30), against a real registry (Debian's `docker-registry`,
//! started on 127.0.0.1 by [`airlock_tests::registry`]; skipped with a message where it is not
//! installed): `plugins publish` then `install` by tag and by digest, a tag moved after the
//! lock, a blob whose bytes do not match its digest, an artifact over the size cap (refused
//! before its blob is requested), a `.sig` manifest over the signature cap, bad references, an
//! unreachable registry, a container image.

use std::io::Read as _;
use std::path::PathBuf;

use airlock_tests::registry::{Registry, sha256_digest};
use airlock_tests::{Session, fixtures};

use crate::session;

/// The exit code of a management command that fails (a bad command line is 2).
const REFUSED: Option<i32> = Some(52);

/// `airlock plugins ARGS` with no model.
fn plugins(s: &Session, args: &[&str]) -> airlock_tests::Finished {
    let mut command = s.bare_command();
    command.arg("plugins").args(args);
    Session::run(command)
}

fn folder(s: &Session) -> PathBuf {
    s.airlock_home().join("plugins")
}

fn lock_text(s: &Session) -> String {
    std::fs::read_to_string(folder(s).join("plugins.lock")).unwrap_or_default()
}

fn read(path: &str) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Publishes `component` to `reference`; returns the manifest digest it printed.
fn publish(s: &Session, component: &str, reference: &str) -> String {
    let published = plugins(s, &["publish", component, reference]);
    assert_eq!(published.code, Some(0), "{}{}", published.stdout, published.stderr);
    let manifest = published
        .stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix("manifest "))
        .unwrap_or_else(|| panic!("no manifest line: {}", published.stdout))
        .to_string();
    let component_digest = sha256_digest(&read(component));
    assert!(published.stdout.contains(&format!("sha-256  {}", &component_digest[7..])), "{}", published.stdout);
    manifest
}

#[test]
fn a_published_component_installs_by_tag_and_by_digest_with_its_digests_in_the_lock() {
    let Some(registry) = Registry::start() else { return };
    let s = session();
    let tagged = format!("oci://{}/tools/echo:v1", registry.host());
    let manifest = publish(&s, fixtures::ECHO_TOOLS, &tagged);
    let pasted = format!("oci://{}/tools/echo:v1@{manifest}", registry.host());
    let published = plugins(&s, &["publish", fixtures::ECHO_TOOLS, &tagged]);
    assert!(
        published.stdout.contains(&format!("install it with: airlock plugins install {pasted}")),
        "{}",
        published.stdout
    );
    // The registry holds the CNCF Wasm layout: one application/wasm layer, the wasm config.
    let stored = registry
        .request(
            "GET",
            &format!("/v2/tools/echo/manifests/{manifest}"),
            &[("Accept", airlock_oci::MANIFEST_MEDIA_TYPE)],
            &[],
        )
        .unwrap();
    let body: serde_json::Value = serde_json::from_slice(&stored.body).unwrap();
    assert_eq!(body["config"]["mediaType"], "application/vnd.wasm.config.v0+json", "{body}");
    assert_eq!(body["layers"].as_array().map(Vec::len), Some(1), "{body}");
    assert_eq!(body["layers"][0]["mediaType"], "application/wasm");
    let component_digest = sha256_digest(&read(fixtures::ECHO_TOOLS));
    assert_eq!(body["layers"][0]["digest"], component_digest.as_str());
    let config = registry
        .request("GET", &format!("/v2/tools/echo/blobs/{}", body["config"]["digest"].as_str().unwrap()), &[], &[])
        .unwrap();
    let config: serde_json::Value = serde_json::from_slice(&config.body).unwrap();
    assert_eq!((config["architecture"].as_str(), config["os"].as_str()), (Some("wasm"), Some("wasip2")), "{config}");
    assert_eq!(config["layerDigests"][0], component_digest.as_str());

    let installed = plugins(&s, &["install", &tagged]);
    assert_eq!(installed.code, Some(0), "{}", installed.stderr);
    assert_eq!(std::fs::read(folder(&s).join("echo_tools.wasm")).ok(), Some(read(fixtures::ECHO_TOOLS)));
    let lock = lock_text(&s);
    assert!(lock.contains(&format!("source = \"{tagged}\"")), "{lock}");
    assert!(lock.contains(&format!("sha256 = \"{}\"", &component_digest[7..])), "{lock}");
    assert!(lock.contains(&format!("reference = \"{}/tools/echo:v1\"", registry.host())), "{lock}");
    assert!(lock.contains(&format!("manifest_digest = \"{manifest}\"")), "{lock}");
    let shown = plugins(&s, &["show", "echo_tools"]);
    assert!(shown.stdout.contains(&format!("from {tagged} (manifest {manifest})")), "{}", shown.stdout);
    let listed = plugins(&s, &["list", "--json"]);
    let listed: serde_json::Value = serde_json::from_str(&listed.stdout).unwrap();
    let entry = listed["plugins"].as_array().unwrap().iter().find(|p| p["name"] == "echo_tools").cloned().unwrap();
    assert_eq!(entry["oci"]["manifest_digest"], manifest.as_str(), "{entry}");
    // Installing the same tag again (it has not moved) is a reinstall.
    assert_eq!(plugins(&s, &["install", &tagged]).code, Some(0));

    assert_eq!(plugins(&s, &["remove", "echo_tools"]).code, Some(0));
    let by_digest = format!("oci://{}/tools/echo@{manifest}", registry.host());
    let installed = plugins(&s, &["install", &by_digest]);
    assert_eq!(installed.code, Some(0), "{}", installed.stderr);
    assert_eq!(std::fs::read(folder(&s).join("echo_tools.wasm")).ok(), Some(read(fixtures::ECHO_TOOLS)));
    let lock = lock_text(&s);
    assert!(lock.contains(&format!("reference = \"{}/tools/echo@{manifest}\"", registry.host())), "{lock}");
    // A digest the repository does not hold: refused, nothing installed.
    assert_eq!(plugins(&s, &["remove", "echo_tools"]).code, Some(0));
    let other = format!("oci://{}/tools/echo@sha256:{}", registry.host(), "0".repeat(64));
    let refused = plugins(&s, &["install", &other]);
    assert_eq!(refused.code, REFUSED, "{}", refused.stderr);
    assert!(refused.stderr.contains("not found in the registry"), "{}", refused.stderr);
    assert!(!folder(&s).join("echo_tools.wasm").exists());
}

#[test]
fn a_tag_moved_after_the_lock_is_refused_naming_both_digests_and_nothing_changes() {
    let Some(registry) = Registry::start() else { return };
    let s = session();
    let tagged = format!("oci://{}/tools/probe:stable", registry.host());
    let old = publish(&s, fixtures::ECHO_TOOLS, &tagged);
    assert_eq!(plugins(&s, &["install", &tagged]).code, Some(0));
    let lock_before = lock_text(&s);
    // Someone pushes another component over the tag.
    let new = publish(&s, fixtures::FS_PROBE, &tagged);
    assert_ne!(old, new);
    let refused = plugins(&s, &["install", &tagged]);
    assert_eq!(refused.code, REFUSED, "{}", refused.stderr);
    for expected in
        [old.as_str(), new.as_str(), "the tag moved", "airlock plugins update echo_tools", "nothing was installed"]
    {
        assert!(refused.stderr.contains(expected), "{expected}: {}", refused.stderr);
    }
    assert_eq!(lock_text(&s), lock_before);
    assert_eq!(std::fs::read(folder(&s).join("echo_tools.wasm")).ok(), Some(read(fixtures::ECHO_TOOLS)));
    assert!(!folder(&s).join("fs_probe.wasm").exists());
    // Pinned to the new digest, it is a deliberate choice: installed.
    let pinned = format!("oci://{}/tools/probe@{new}", registry.host());
    let taken = plugins(&s, &["install", &pinned]);
    assert_eq!(taken.code, Some(0), "{}", taken.stderr);
    assert_eq!(std::fs::read(folder(&s).join("fs_probe.wasm")).ok(), Some(read(fixtures::FS_PROBE)));
}

#[test]
fn a_blob_whose_bytes_do_not_match_its_digest_is_refused_and_nothing_is_written() {
    let Some(registry) = Registry::start() else { return };
    let s = session();
    let tagged = format!("oci://{}/tools/echo:v1", registry.host());
    publish(&s, fixtures::ECHO_TOOLS, &tagged);
    let digest = sha256_digest(&read(fixtures::ECHO_TOOLS));
    // The stored bytes change, their length does not: only the digest tells.
    let blob = registry.blob_file(&digest);
    let mut bytes = std::fs::read(&blob).unwrap_or_else(|e| panic!("{}: {e}", blob.display()));
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0xff;
    std::fs::write(&blob, &bytes).unwrap();
    let refused = plugins(&s, &["install", &tagged]);
    assert_eq!(refused.code, REFUSED, "{}", refused.stderr);
    assert!(refused.stderr.contains("do not match its digest"), "{}", refused.stderr);
    assert!(refused.stderr.contains(&digest), "{}", refused.stderr);
    assert!(!folder(&s).join("echo_tools.wasm").exists());
    assert_eq!(lock_text(&s), "");
    let leftovers: Vec<_> =
        std::fs::read_dir(folder(&s)).map(|d| d.flatten().map(|e| e.file_name()).collect()).unwrap_or_default();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// A stream of `len` zero bytes.
fn zeros(len: u64) -> impl std::io::Read {
    std::io::repeat(0).take(len)
}

#[test]
fn an_artifact_over_the_cap_is_refused_before_its_blob_is_requested() {
    let Some(registry) = Registry::start() else { return };
    let s = session();
    // A real blob one byte over the cap: the registry checks size and digest on upload, so
    // the manifest declares its true size.
    let len = airlock_engine::registry::MAX_PLUGIN_BYTES + 1;
    let digest = {
        use sha2::Digest as _;
        let mut hasher = sha2::Sha256::new();
        std::io::copy(&mut zeros(len), &mut hasher).unwrap();
        format!("sha256:{:x}", hasher.finalize())
    };
    registry.push_blob("tools/big", &digest, len, &mut zeros(len)).unwrap();
    let config = br#"{"architecture":"wasm","os":"wasip2","layerDigests":[]}"#;
    let config_digest = registry.push_blob_bytes("tools/big", config).unwrap();
    let manifest = serde_json::json!({
        "schemaVersion": 2,
        "mediaType": airlock_oci::MANIFEST_MEDIA_TYPE,
        "config": { "mediaType": airlock_oci::WASM_CONFIG_MEDIA_TYPE, "digest": config_digest, "size": config.len() },
        "layers": [{ "mediaType": "application/wasm", "digest": digest, "size": len }],
    });
    registry
        .put_manifest("tools/big", "v1", airlock_oci::MANIFEST_MEDIA_TYPE, manifest.to_string().as_bytes())
        .unwrap();
    let refused = plugins(&s, &["install", &format!("oci://{}/tools/big:v1", registry.host())]);
    assert_eq!(refused.code, REFUSED, "{}", refused.stderr);
    assert!(refused.stderr.contains(&format!("{len} bytes")), "{}", refused.stderr);
    assert!(refused.stderr.contains("refused before downloading it"), "{}", refused.stderr);
    // The registry's access log: the manifest was fetched, the blob never.
    let log = registry.log();
    assert!(log.contains("GET /v2/tools/big/manifests/v1"), "{log}");
    assert!(!log.contains(&format!("GET /v2/tools/big/blobs/{digest}")), "{log}");
    assert!(!folder(&s).join("big.wasm").exists());
}

#[test]
fn bad_references_an_unreachable_registry_and_a_container_image_get_clear_errors() {
    let Some(registry) = Registry::start() else { return };
    let s = session();
    for (reference, why) in [
        ("oci://ghcr.io/acme/wc", "no tag or digest"),
        ("oci://alpine:3", "names no repository"),
        ("oci://alpine/wc:3", "registry's host"),
        ("oci://ghcr.io/acme/wc@sha256:1234", "64 lower-case hex"),
    ] {
        let refused = plugins(&s, &["install", reference]);
        assert_eq!(refused.code, Some(2), "{reference}: {}", refused.stderr);
        assert!(refused.stderr.contains(why), "{reference}: {}", refused.stderr);
    }
    // Nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).unwrap();
    let unreachable = plugins(&s, &["install", &format!("oci://127.0.0.1:{port}/tools/echo:v1")]);
    assert_eq!(unreachable.code, REFUSED, "{}", unreachable.stderr);
    assert!(unreachable.stderr.contains(&format!("127.0.0.1:{port}")), "{}", unreachable.stderr);
    assert!(unreachable.stderr.to_lowercase().contains("connect"), "{}", unreachable.stderr);
    let missing = plugins(&s, &["install", &format!("oci://{}/tools/none:v1", registry.host())]);
    assert_eq!(missing.code, REFUSED);
    assert!(missing.stderr.contains("not found in the registry"), "{}", missing.stderr);

    // A container image: an image config and a tar layer.
    let layer = registry.push_blob_bytes("library/app", b"not a tar, not wasm").unwrap();
    let config = br#"{"architecture":"amd64","os":"linux","rootfs":{"type":"layers","diff_ids":[]}}"#;
    let config_digest = registry.push_blob_bytes("library/app", config).unwrap();
    let manifest = serde_json::json!({
        "schemaVersion": 2,
        "mediaType": airlock_oci::MANIFEST_MEDIA_TYPE,
        "config": { "mediaType": "application/vnd.oci.image.config.v1+json", "digest": config_digest, "size": config.len() },
        "layers": [{ "mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", "digest": layer, "size": 19 }],
    });
    registry
        .put_manifest("library/app", "latest", airlock_oci::MANIFEST_MEDIA_TYPE, manifest.to_string().as_bytes())
        .unwrap();
    let image = plugins(&s, &["install", &format!("oci://{}/library/app:latest", registry.host())]);
    assert_eq!(image.code, REFUSED, "{}", image.stderr);
    assert!(image.stderr.contains("not a WebAssembly component artifact"), "{}", image.stderr);
    assert!(image.stderr.contains("application/vnd.oci.image.config.v1+json"), "{}", image.stderr);
    assert!(
        !registry.log().contains(&format!("GET /v2/library/app/blobs/{layer}")),
        "the layer of an image is never fetched"
    );

    // Publishing: a reference without a tag, and a file that is not a component.
    let untagged = plugins(
        &s,
        &["publish", fixtures::ECHO_TOOLS, &format!("oci://{}/tools/echo@sha256:{}", registry.host(), "0".repeat(64))],
    );
    assert_eq!(untagged.code, Some(2), "{}", untagged.stderr);
    assert!(untagged.stderr.contains("publish takes a tag"), "{}", untagged.stderr);
    let junk = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(junk.path(), b"\0asm junk").unwrap();
    let refused = plugins(
        &s,
        &["publish", &junk.path().display().to_string(), &format!("oci://{}/tools/junk:v1", registry.host())],
    );
    assert_eq!(refused.code, REFUSED, "{}", refused.stderr);
    assert!(refused.stderr.contains("nothing was published"), "{}", refused.stderr);
    let tags = registry.request("GET", "/v2/tools/junk/tags/list", &[], &[]).unwrap();
    assert_eq!(tags.status, 404, "nothing was pushed: {}", tags.body_text());
}

#[test]
fn cosign_signatures_are_stored_under_the_sig_tag_and_read_back() {
    let Some(registry) = Registry::start() else { return };
    let s = session();
    let tagged = format!("oci://{}/tools/echo:v1", registry.host());
    let manifest = publish(&s, fixtures::ECHO_TOOLS, &tagged);
    let reference = airlock_oci::Reference::parse(&tagged).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let client = airlock_oci::Client::new(&reference).unwrap();
        assert_eq!(client.cosign_signatures(&reference, &manifest).await.unwrap(), Vec::new());
        let payload = airlock_oci::simple_signing_payload(&reference, &manifest);
        client.push_cosign_signature(&reference, &manifest, &payload, "c2lnbmF0dXJlLTE=").await.unwrap();
        client.push_cosign_signature(&reference, &manifest, &payload, "c2lnbmF0dXJlLTI=").await.unwrap();
        let found = client.cosign_signatures(&reference, &manifest).await.unwrap();
        let signatures: Vec<&str> = found.iter().map(|f| f.signature.as_str()).collect();
        assert_eq!(signatures, ["c2lnbmF0dXJlLTE=", "c2lnbmF0dXJlLTI="]);
        assert!(found.iter().all(|f| f.payload == payload && f.certificate.is_none()));
        let named: serde_json::Value = serde_json::from_slice(&found[0].payload).unwrap();
        assert_eq!(named["critical"]["image"]["docker-manifest-digest"], manifest.as_str());
    });
    let tag = airlock_oci::signature_tag(&manifest);
    assert_eq!(tag, format!("sha256-{}.sig", &manifest[7..]));
    let stored = registry
        .request(
            "GET",
            &format!("/v2/tools/echo/manifests/{tag}"),
            &[("Accept", airlock_oci::MANIFEST_MEDIA_TYPE)],
            &[],
        )
        .unwrap();
    assert_eq!(stored.status, 200, "{}", stored.body_text());
    assert!(stored.body_text().contains(airlock_oci::SIMPLE_SIGNING_MEDIA_TYPE));
    // The plugin still installs by its tag (the .sig tag is beside it, not over it).
    assert_eq!(plugins(&s, &["install", &tagged]).code, Some(0));
}

#[test]
fn a_signature_manifest_of_more_than_the_cap_is_refused() {
    let Some(registry) = Registry::start() else { return };
    let s = session();
    let tagged = format!("oci://{}/tools/echo:v1", registry.host());
    let manifest = publish(&s, fixtures::ECHO_TOOLS, &tagged);
    let reference = airlock_oci::Reference::parse(&tagged).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let client = airlock_oci::Client::new(&reference).unwrap();
    let payload = airlock_oci::simple_signing_payload(&reference, &manifest);
    runtime.block_on(client.push_cosign_signature(&reference, &manifest, &payload, "c2lnbmF0dXJl")).unwrap();
    // The registry's .sig manifest, its one layer listed once more than the cap allows.
    let path = format!("/v2/tools/echo/manifests/{}", airlock_oci::signature_tag(&manifest));
    let accept = [("Accept", airlock_oci::MANIFEST_MEDIA_TYPE)];
    let stored = registry.request("GET", &path, &accept, &[]).unwrap();
    assert_eq!(stored.status, 200, "{}", stored.body_text());
    let mut sig: serde_json::Value = serde_json::from_str(&stored.body_text()).unwrap();
    let layer = sig["layers"][0].clone();
    let layers: Vec<serde_json::Value> = (0..=airlock_oci::MAX_SIGNATURES)
        .map(|i| {
            let mut layer = layer.clone();
            layer["annotations"]["dev.cosignproject.cosign/signature"] = format!("c2ln{i:04}").into();
            layer
        })
        .collect();
    sig["layers"] = layers.into();
    let body = serde_json::to_vec(&sig).unwrap();
    let put = registry.request("PUT", &path, &[("Content-Type", airlock_oci::MANIFEST_MEDIA_TYPE)], &body).unwrap();
    assert_eq!(put.status, 201, "{}", put.body_text());
    let refused = runtime.block_on(client.cosign_signatures(&reference, &manifest)).unwrap_err().to_string();
    assert!(refused.contains(&format!("more than the {} signatures", airlock_oci::MAX_SIGNATURES)), "{refused}");
    // Nor is one more added to it.
    let adding = runtime.block_on(client.push_cosign_signature(&reference, &manifest, &payload, "bW9yZQ=="));
    assert!(adding.is_err(), "a signature was added past the cap");
}
