//! Signed plugins (issue 30): under `[signatures] require_signed` a plugin installs only with
//! a signature or bundle that verifies with a key or identity the policy trusts, and a refusal
//! names what failed before anything is written; a folder that requires signatures loads only
//! what was installed signed; `plugins show` and `list` name the signer.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use airlock_signing::test_ca::{TestSigstore, key_bundle};
use airlock_tests::{Session, fixtures};

use crate::session;

const ISSUER: &str = "https://token.actions.githubusercontent.com";
const SUBJECT: &str = "https://github.com/acme/tools/.github/workflows/release.yml@refs/heads/main";

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

/// A key pair whose public half the user's policy trusts (as `keys/acme.pub`), with
/// `require_signed` as given; the private key's PEM.
fn trusting_a_key(s: &Session, require_signed: bool) -> String {
    let (private, public) = airlock_signing::generate_key_pem().unwrap();
    write(&s.airlock_home().join("keys/acme.pub"), &public);
    write(
        &s.airlock_home().join("policy.toml"),
        &format!("[signatures]\nrequire_signed = {require_signed}\nkeys = [\"keys/acme.pub\"]\n"),
    );
    private
}

/// `bytes`' cosign signature with `key`, in a file of the session's temporary folder.
fn signature_file(s: &Session, name: &str, bytes: &[u8], key: &str) -> String {
    let path = s.airlock_home().join(name);
    write(&path, &airlock_signing::sign_blob(bytes, key, b"").unwrap());
    path.display().to_string()
}

fn nothing_installed(s: &Session) {
    assert!(!folder(s).join("fs_probe.wasm").exists(), "a refused plugin was written");
    assert!(!folder(s).join("plugins.lock").exists(), "a refused plugin was recorded");
}

#[test]
fn a_plugin_signed_with_a_trusted_key_installs_under_require_signed_and_show_names_the_signer() {
    let s = session();
    let key = trusting_a_key(&s, true);
    let bytes = std::fs::read(fixtures::FS_PROBE).unwrap();
    let signature = signature_file(&s, "fs_probe.sig", &bytes, &key);
    let done = plugins(&s, &["install", fixtures::FS_PROBE, "--signature", &signature]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let lock = std::fs::read_to_string(folder(&s).join("plugins.lock")).unwrap();
    assert!(lock.contains("[plugins.\"fs_probe.wasm\".signature]") && lock.contains("keys/acme.pub"), "{lock}");

    let shown = plugins(&s, &["show", "fs_probe"]);
    assert_eq!(shown.code, Some(0), "{}", shown.stderr);
    assert!(shown.stdout.contains("signed by: key keys/acme.pub (sha256:"), "{}", shown.stdout);
    let digest = airlock_signing::sha256_hex(&bytes);
    assert!(shown.stdout.contains("verified: cosign signature by key sha256:"), "{}", shown.stdout);
    assert!(shown.stdout.contains(&digest), "{}", shown.stdout);
    let listed = plugins(&s, &["list"]);
    assert!(listed.stdout.contains("fs_probe 0.1.0") && listed.stdout.contains("signed by: key keys/acme.pub"));
}

#[test]
fn unsigned_unknown_key_and_another_files_signature_are_refused_naming_what_failed() {
    let s = session();
    let key = trusting_a_key(&s, true);
    let bytes = std::fs::read(fixtures::FS_PROBE).unwrap();
    let digest = airlock_signing::sha256_hex(&bytes);

    let unsigned = plugins(&s, &["install", fixtures::FS_PROBE]);
    assert_ne!(unsigned.code, Some(0));
    assert!(
        unsigned.stderr.contains("no signature") && unsigned.stderr.contains("require_signed"),
        "{}",
        unsigned.stderr
    );
    assert!(unsigned.stderr.contains("nothing was installed"), "{}", unsigned.stderr);
    nothing_installed(&s);

    let (stranger, _) = airlock_signing::generate_key_pem().unwrap();
    let signature = signature_file(&s, "stranger.sig", &bytes, &stranger);
    let unknown = plugins(&s, &["install", fixtures::FS_PROBE, "--signature", &signature]);
    assert_ne!(unknown.code, Some(0));
    assert!(
        unknown.stderr.contains("does not verify") && unknown.stderr.contains("keys/acme.pub"),
        "{}",
        unknown.stderr
    );
    nothing_installed(&s);

    // A trusted key's signature of another component.
    let other = std::fs::read(fixtures::ECHO_TOOLS).unwrap();
    let signature = signature_file(&s, "other.sig", &other, &key);
    let elsewhere = plugins(&s, &["install", fixtures::FS_PROBE, "--signature", &signature]);
    assert_ne!(elsewhere.code, Some(0));
    assert!(elsewhere.stderr.contains(&digest) && elsewhere.stderr.contains("does not verify"), "{}", elsewhere.stderr);
    nothing_installed(&s);

    // A bundle names the digest it was made for: the refusal says both.
    let bundle = s.airlock_home().join("other.bundle");
    write(&bundle, &key_bundle(&other, &key));
    let bundled = plugins(&s, &["install", fixtures::FS_PROBE, "--bundle", &bundle.display().to_string()]);
    assert_ne!(bundled.code, Some(0));
    let signed = airlock_signing::sha256_hex(&other);
    assert!(
        bundled.stderr.contains(&format!("the signature is for sha-256 {signed}, not this file's {digest}")),
        "{}",
        bundled.stderr
    );
    nothing_installed(&s);
}

#[test]
fn a_keyless_bundle_from_a_trusted_identity_installs_and_a_tampered_or_foreign_one_is_refused() {
    let s = session();
    let sigstore = TestSigstore::new();
    write(&s.airlock_home().join("sigstore/trusted_root.json"), &sigstore.trusted_root_json());
    write(
        &s.airlock_home().join("policy.toml"),
        &format!(
            "[signatures]\nrequire_signed = true\ntrusted_root = \"sigstore/trusted_root.json\"\n\
             identities = [{{ issuer = \"{ISSUER}\", subject = \"{SUBJECT}\" }}]\n"
        ),
    );
    let bytes = std::fs::read(fixtures::FS_PROBE).unwrap();
    let bundle_path = s.airlock_home().join("fs_probe.bundle");
    let install = |text: &str| {
        write(&bundle_path, text);
        plugins(&s, &["install", fixtures::FS_PROBE, "--bundle", &bundle_path.display().to_string()])
    };

    let foreign = install(&sigstore.bundle(&bytes, ISSUER, "mallory@example.com"));
    assert_ne!(foreign.code, Some(0));
    assert!(
        foreign.stderr.contains("certificate identity mallory@example.com")
            && foreign.stderr.contains("not one the policy trusts"),
        "{}",
        foreign.stderr
    );
    nothing_installed(&s);

    let good = sigstore.bundle(&bytes, ISSUER, SUBJECT);
    let mut tampered: serde_json::Value = serde_json::from_str(&good).unwrap();
    tampered["verificationMaterial"]["tlogEntries"][0]["integratedTime"] = "1".into();
    let refused = install(&tampered.to_string());
    assert_ne!(refused.code, Some(0));
    assert!(
        refused.stderr.contains("bad bundle") && refused.stderr.contains("signed entry timestamp"),
        "{}",
        refused.stderr
    );
    nothing_installed(&s);

    let other_ca = TestSigstore::new().bundle(&bytes, ISSUER, SUBJECT);
    let refused = install(&other_ca);
    assert_ne!(refused.code, Some(0), "a bundle of another Sigstore was accepted");
    nothing_installed(&s);

    let done = install(&good);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let shown = plugins(&s, &["show", "fs_probe"]);
    assert!(shown.stdout.contains(&format!("signed by: {SUBJECT} (issuer {ISSUER})")), "{}", shown.stdout);
    assert!(
        shown.stdout.contains("Sigstore bundle") && shown.stdout.contains("chaining to the trusted root"),
        "{}",
        shown.stdout
    );
}

#[test]
fn a_folder_that_requires_signatures_loads_only_what_was_installed_signed() {
    let s = session();
    // Installed unsigned before the policy required signatures, and one dropped in by hand.
    let done = plugins(&s, &["install", fixtures::FS_PROBE]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    std::fs::copy(fixtures::ECHO_TOOLS, folder(&s).join("echo_tools.wasm")).unwrap();
    assert!(plugins(&s, &["list"]).stdout.contains("fs_probe 0.1.0"));

    let key = trusting_a_key(&s, true);
    let listed = plugins(&s, &["list"]);
    assert!(
        !listed.stdout.contains("fs_probe 0.1.0") && !listed.stdout.contains("echo_tools 0.1.0"),
        "{}",
        listed.stdout
    );
    assert!(
        listed.stdout.contains("requires signed plugins") && listed.stdout.contains("installed without a signature")
    );
    assert!(listed.stdout.contains("has no entry in plugins.lock"), "{}", listed.stdout);
    assert!(listed.stdout.contains("--signature"), "{}", listed.stdout);

    // Installed again with its signature, it loads.
    let bytes = std::fs::read(fixtures::FS_PROBE).unwrap();
    let signature = signature_file(&s, "fs_probe.sig", &bytes, &key);
    let again = plugins(&s, &["install", fixtures::FS_PROBE, "--signature", &signature]);
    assert_eq!(again.code, Some(0), "{}", again.stderr);
    let listed = plugins(&s, &["list"]);
    assert!(
        listed.stdout.contains("fs_probe 0.1.0") && !listed.stdout.contains("echo_tools 0.1.0"),
        "{}",
        listed.stdout
    );
}

#[test]
fn without_require_signed_a_given_signature_is_still_verified_and_recorded() {
    let s = session();
    let key = trusting_a_key(&s, false);
    let bytes = std::fs::read(fixtures::FS_PROBE).unwrap();
    let (stranger, _) = airlock_signing::generate_key_pem().unwrap();
    let bad = signature_file(&s, "bad.sig", &bytes, &stranger);
    let refused = plugins(&s, &["install", fixtures::FS_PROBE, "--signature", &bad]);
    assert_ne!(refused.code, Some(0), "a signature that does not verify was accepted");
    nothing_installed(&s);

    let unsigned = plugins(&s, &["install", fixtures::FS_PROBE]);
    assert_eq!(unsigned.code, Some(0), "{}", unsigned.stderr);
    assert!(plugins(&s, &["show", "fs_probe"]).stdout.contains("signed: no (installed without a signature)"));

    let good = signature_file(&s, "good.sig", &bytes, &key);
    let signed = plugins(&s, &["install", fixtures::FS_PROBE, "--signature", &good]);
    assert_eq!(signed.code, Some(0), "{}", signed.stderr);
    assert!(plugins(&s, &["show", "fs_probe"]).stdout.contains("signed by: key keys/acme.pub"));
}

#[test]
fn replacing_a_signed_plugin_with_an_unsigned_one_warns_naming_the_signer() {
    let s = session();
    let key = trusting_a_key(&s, false);
    let bytes = std::fs::read(fixtures::FS_PROBE).unwrap();
    let good = signature_file(&s, "good.sig", &bytes, &key);
    let signed = plugins(&s, &["install", fixtures::FS_PROBE, "--signature", &good]);
    assert_eq!(signed.code, Some(0), "{}", signed.stderr);
    assert!(!signed.stdout.contains("WARNING"), "{}", signed.stdout);

    let unsigned = plugins(&s, &["install", fixtures::FS_PROBE]);
    assert_eq!(unsigned.code, Some(0), "{}", unsigned.stderr);
    assert!(
        unsigned.stdout.contains("WARNING: fs_probe was signed by key keys/acme.pub")
            && unsigned.stdout.contains("the signer is gone"),
        "{}",
        unsigned.stdout
    );
}

#[test]
fn a_bad_key_in_the_policy_is_an_error_at_its_line() {
    let s = session();
    write(
        &s.airlock_home().join("policy.toml"),
        "[signatures]\nrequire_signed = true\nkeys = [\"keys/missing.pub\"]\n",
    );
    let listed = plugins(&s, &["list"]);
    assert_ne!(listed.code, Some(0));
    assert!(
        listed.stderr.contains("policy.toml:3") && listed.stderr.contains("cannot read the key"),
        "{}",
        listed.stderr
    );
}

#[test]
fn a_signature_written_in_a_workspace_lock_is_never_taken_as_proof() {
    let s = session();
    trusting_a_key(&s, true);
    // A repository commits an unsigned plugin and a lock entry with a made-up signature record.
    let bytes = std::fs::read(fixtures::ECHO_TOOLS).unwrap();
    std::fs::create_dir_all(s.workspace.join(".airlock/plugins")).unwrap();
    std::fs::write(s.workspace.join(".airlock/plugins/echo_tools.wasm"), &bytes).unwrap();
    s.write(
        ".airlock/plugins/plugins.lock",
        &format!(
            "[plugins.\"echo_tools.wasm\"]\nname = \"echo_tools\"\nversion = \"0.1.0\"\nsource = \"x\"\n\
             sha256 = \"{}\"\ninstalled_at = 0\n\n[plugins.\"echo_tools.wasm\".signature]\n\
             signer = \"key keys/acme.pub (sha256:00)\"\nverified = \"cosign signature by key sha256:00\"\n",
            airlock_signing::sha256_hex(&bytes)
        ),
    );
    let listed = plugins(&s, &["list"]);
    assert!(!listed.stdout.contains("echo_tools 0.1.0"), "{}", listed.stdout);
    assert!(listed.stdout.contains("requires signed plugins"), "{}", listed.stdout);
    assert!(listed.stdout.contains("plugins.lock proves nothing"), "{}", listed.stdout);
    // Trusting the workspace pins its files, but does not make the plugin signed.
    let mut trust = s.bare_command();
    trust.arg("trust");
    let trusted = Session::run(trust);
    assert_eq!(trusted.code, Some(0), "{}", trusted.stderr);
    assert!(!plugins(&s, &["list"]).stdout.contains("echo_tools 0.1.0"));

    // Without require_signed it loads, and `show` does not repeat the workspace's claim.
    trusting_a_key(&s, false);
    let shown = plugins(&s, &["show", "echo_tools"]);
    assert_eq!(shown.code, Some(0), "{}", shown.stderr);
    assert!(!shown.stdout.contains("signed by") && shown.stdout.contains("signed: no"), "{}", shown.stdout);
    assert!(!plugins(&s, &["list"]).stdout.contains("signed by"));

    // Installed into the workspace with a signature the user verified, it loads and is shown signed.
    let key = trusting_a_key(&s, true);
    std::fs::remove_dir_all(s.workspace.join(".airlock/plugins")).unwrap();
    let signature = signature_file(&s, "echo.sig", &bytes, &key);
    let done = plugins(&s, &["install", fixtures::ECHO_TOOLS, "--in-workspace", "--signature", &signature]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let shown = plugins(&s, &["show", "echo_tools"]);
    assert_eq!(shown.code, Some(0), "{}", shown.stderr);
    assert!(shown.stdout.contains("signed by: key keys/acme.pub"), "{}", shown.stdout);
}
