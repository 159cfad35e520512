//! Signed plugins from OCI registries (issue 30), against a real registry (skipped with a
//! message where `docker-registry` is not installed): `plugins publish --key` stores a cosign
//! signature beside the artifact, and `install` under `require_signed` takes the artifact only
//! when a stored signature names its manifest and verifies with a trusted key; otherwise the
//! refusal names what failed and nothing is written.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use airlock_tests::registry::Registry;
use airlock_tests::{Session, fixtures};

use crate::session;

fn plugins(s: &Session, args: &[&str]) -> airlock_tests::Finished {
    let mut command = s.bare_command();
    command.arg("plugins").args(args);
    Session::run(command)
}

fn folder(s: &Session) -> PathBuf {
    s.airlock_home().join("plugins")
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A new key pair: (private PEM, public PEM, fingerprint).
fn key_pair() -> (String, String, String) {
    let (private, public) = airlock_signing::generate_key_pem().unwrap();
    let fingerprint = airlock_signing::PublicKey::from_pem(&public).unwrap().fingerprint().to_string();
    (private, public, fingerprint)
}

/// The user's policy: signatures required, trusting `public` as `keys/NAME.pub`.
fn require_signed_trusting(s: &Session, name: &str, public: &str) {
    write(&s.airlock_home().join(format!("keys/{name}.pub")), public);
    write(
        &s.airlock_home().join("policy.toml"),
        &format!("[signatures]\nrequire_signed = true\nkeys = [\"keys/{name}.pub\"]\n"),
    );
}

/// Publishes `component` to `reference`, signed with `key` when given; the manifest digest.
fn publish(s: &Session, component: &str, reference: &str, key: Option<&str>) -> String {
    let mut args = vec!["publish", component, reference];
    let key_path = s.airlock_home().join("publisher/cosign.key");
    let key_text = key_path.display().to_string();
    if let Some(key) = key {
        write(&key_path, key);
        args.extend(["--key", &key_text]);
    }
    let published = plugins(s, &args);
    assert_eq!(published.code, Some(0), "{}{}", published.stdout, published.stderr);
    published.stdout.lines().find_map(|l| l.trim().strip_prefix("manifest ")).unwrap().to_string()
}

fn nothing_installed(s: &Session) {
    assert!(!folder(s).join("echo_tools.wasm").exists(), "a refused plugin was written");
    assert!(!folder(s).join("plugins.lock").exists(), "a refused plugin was recorded");
}

#[test]
fn a_plugin_published_with_a_key_installs_under_require_signed_and_show_names_the_signer() {
    let Some(registry) = Registry::start() else { return };
    let s = session();
    let (private, public, fingerprint) = key_pair();
    let tagged = format!("oci://{}/tools/echo:v1", registry.host());
    let key_path = s.airlock_home().join("publisher/cosign.key");
    write(&key_path, &private);
    let published = plugins(&s, &["publish", fixtures::ECHO_TOOLS, &tagged, "--key", &key_path.display().to_string()]);
    assert_eq!(published.code, Some(0), "{}{}", published.stdout, published.stderr);
    assert!(published.stdout.contains(&format!("signed   by key {fingerprint}")), "{}", published.stdout);
    let manifest = published.stdout.lines().find_map(|l| l.trim().strip_prefix("manifest ")).unwrap().to_string();

    require_signed_trusting(&s, "acme", &public);
    let done = plugins(&s, &["install", &tagged]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let shown = plugins(&s, &["show", "echo_tools"]);
    assert_eq!(shown.code, Some(0), "{}", shown.stderr);
    assert!(shown.stdout.contains(&format!("signed by: key keys/acme.pub ({fingerprint})")), "{}", shown.stdout);
    assert!(shown.stdout.contains(&format!("naming manifest {manifest}")), "{}", shown.stdout);

    // Without require_signed, a verifying signature in the registry is still recorded.
    let relaxed = session();
    write(&relaxed.airlock_home().join("keys/acme.pub"), &public);
    write(&relaxed.airlock_home().join("policy.toml"), "[signatures]\nkeys = [\"keys/acme.pub\"]\n");
    assert_eq!(plugins(&relaxed, &["install", &tagged]).code, Some(0));
    let shown = plugins(&relaxed, &["show", "echo_tools"]);
    assert!(shown.stdout.contains(&format!("signed by: key keys/acme.pub ({fingerprint})")), "{}", shown.stdout);
}

#[test]
fn publish_with_a_key_it_cannot_read_pushes_nothing() {
    let Some(registry) = Registry::start() else { return };
    let s = session();
    let key_path = s.airlock_home().join("publisher/cosign.key");
    write(&key_path, "-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n");
    let tagged = format!("oci://{}/tools/echo:v1", registry.host());
    let refused = plugins(&s, &["publish", fixtures::ECHO_TOOLS, &tagged, "--key", &key_path.display().to_string()]);
    assert_ne!(refused.code, Some(0));
    assert!(
        refused.stderr.contains("cannot read the private key") && refused.stderr.contains("nothing was published"),
        "{}",
        refused.stderr
    );
    let tags = registry.request("GET", "/v2/tools/echo/tags/list", &[], &[]).unwrap();
    assert_eq!(tags.status, 404, "something was pushed: {}", tags.body_text());
}

#[test]
fn a_signed_artifact_is_refused_under_a_policy_trusting_another_key_and_an_unsigned_one_too() {
    let Some(registry) = Registry::start() else { return };
    let s = session();
    let (private, _, _) = key_pair();
    let (_, other_public, other_fingerprint) = key_pair();
    let signed = format!("oci://{}/tools/echo:signed", registry.host());
    publish(&s, fixtures::ECHO_TOOLS, &signed, Some(&private));
    // Another repository: the same bytes in this one would be the same (signed) manifest.
    let unsigned = format!("oci://{}/tools/unsigned:v1", registry.host());
    let unsigned_manifest = publish(&s, fixtures::ECHO_TOOLS, &unsigned, None);

    // Without require_signed and with no key trusted, both install unsigned (nothing checked).
    let free = session();
    assert_eq!(plugins(&free, &["install", &signed]).code, Some(0));

    require_signed_trusting(&s, "other", &other_public);
    let refused = plugins(&s, &["install", &signed]);
    assert_ne!(refused.code, Some(0));
    assert!(
        refused.stderr.contains("signature 1:")
            && refused.stderr.contains("does not verify")
            && refused.stderr.contains(&format!("keys/other.pub {other_fingerprint}"))
            && refused.stderr.contains("nothing was installed"),
        "{}",
        refused.stderr
    );
    nothing_installed(&s);

    let refused = plugins(&s, &["install", &unsigned]);
    assert_ne!(refused.code, Some(0));
    assert!(
        refused.stderr.contains("no signature")
            && refused.stderr.contains(&airlock_oci::signature_tag(&unsigned_manifest)),
        "{}",
        refused.stderr
    );
    nothing_installed(&s);
}

#[test]
fn a_signature_whose_payload_names_another_manifest_is_refused_naming_both_digests() {
    let Some(registry) = Registry::start() else { return };
    let s = session();
    let (private, public, _) = key_pair();
    let tagged = format!("oci://{}/tools/echo:v1", registry.host());
    let manifest = publish(&s, fixtures::ECHO_TOOLS, &tagged, None);
    let elsewhere = format!("oci://{}/tools/echo:probe", registry.host());
    let other = publish(&s, fixtures::FS_PROBE, &elsewhere, None);
    assert_ne!(manifest, other);

    // A trusted key's valid signature, over a payload naming the other manifest, stored
    // beside this one (a signature copied from another artifact).
    let reference = airlock_oci::Reference::parse(&tagged).unwrap();
    let payload = airlock_oci::simple_signing_payload(&reference, &other);
    let signature = airlock_signing::sign_payload(&payload, &private, b"").unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let client = airlock_oci::Client::new(&reference).unwrap();
        client.push_cosign_signature(&reference, &manifest, &payload, &signature).await.unwrap();
    });

    require_signed_trusting(&s, "acme", &public);
    let refused = plugins(&s, &["install", &tagged]);
    assert_ne!(refused.code, Some(0));
    assert!(
        refused.stderr.contains(&format!("the signature is for sha-256 {} (a manifest)", &other[7..]))
            && refused.stderr.contains(&format!("manifest's {}", &manifest[7..])),
        "{}",
        refused.stderr
    );
    nothing_installed(&s);
}
