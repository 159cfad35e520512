//! Unit tests of `signatures.rs`.

use std::path::PathBuf;

use super::*;
use crate::policy::file;
use crate::policy::rules::RuleSource;

fn write(text: &str, public: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("keys")).unwrap();
    std::fs::write(dir.path().join("keys/acme.pub"), public).unwrap();
    let path = dir.path().join("policy.toml");
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

#[test]
fn reads_keys_by_path_and_inline_and_identities() {
    let (_, public) = airlock_signing::generate_key_pem().unwrap();
    let text = format!(
        "[grants.x]\nenv = []\n\n[signatures]\nrequire_signed = true\nkeys = [\"keys/acme.pub\", '''{public}''']\n\
         identities = [{{ issuer = \"https://issuer\", subject = \"me@example.com\" }}]\n"
    );
    let (_dir, path) = write(&text, &public);
    let policy = file::load(&path, RuleSource::User).unwrap();
    let signatures = policy.signatures.unwrap();
    assert!(signatures.require_signed);
    assert_eq!(signatures.trust.keys.len(), 2);
    assert_eq!(signatures.trust.keys[0].name, "keys/acme.pub");
    assert_eq!(signatures.trust.keys[1].name, "inline key 2");
    assert_eq!(signatures.trust.identities[0].subject, "me@example.com");
    assert!(signatures.origin.ends_with(":4"), "{}", signatures.origin);
}

#[test]
fn a_missing_key_a_bad_pem_and_nothing_trusted_are_errors_at_their_line() {
    let (_, public) = airlock_signing::generate_key_pem().unwrap();
    for (text, line, needle) in [
        ("[signatures]\nkeys = [\n  \"keys/none.pub\"]\n", 3, "cannot read the key"),
        ("[signatures]\n\nkeys = [\"-----BEGIN PUBLIC KEY-----\\nAAAA\\n-----END PUBLIC KEY-----\"]\n", 3, "bad key"),
        ("\n[signatures]\nrequire_signed = true\n", 2, "needs `keys` or `identities`"),
        ("[signatures]\nrequire_signed = true\nkeyz = []\n", 3, "keyz"),
        ("[signatures]\nidentities = [{ issuer = \"\", subject = \"x\" }]\n", 2, "issuer and a subject"),
        ("[signatures]\nkeys = [\"keys/acme.pub\"]\ntrusted_root = \"root.json\"\n", 3, "trusted root"),
    ] {
        let (_dir, path) = write(text, &public);
        let error = file::load(&path, RuleSource::User).unwrap_err().to_string();
        assert!(error.contains(&format!("policy.toml:{line}:")) && error.contains(needle), "{text}: {error}");
    }
}

#[test]
fn a_workspace_adds_to_what_the_user_requires_and_cannot_turn_it_off() {
    let (_, public) = airlock_signing::generate_key_pem().unwrap();
    let key = NamedKey { name: "k".into(), key: PublicKey::from_pem(&public).unwrap() };
    let user = Signatures {
        require_signed: true,
        trust: Trust { keys: vec![key.clone()], ..Trust::default() },
        origin: "user".into(),
    };
    let workspace =
        Signatures { require_signed: false, trust: Trust { keys: vec![key], ..Trust::default() }, origin: "ws".into() };
    let combined = combine(Some(&user), Some(&workspace));
    assert!(combined.require_signed);
    assert_eq!(combined.trust.keys.len(), 2);
    assert!(combine(None, Some(&Signatures { require_signed: true, ..workspace.clone() })).require_signed);
    assert!(!combine(None, None).require_signed);
}

#[test]
fn a_workspace_policy_names_keys_only_inline_and_sets_no_trusted_root() {
    let (_, public) = airlock_signing::generate_key_pem().unwrap();
    for (text, line, needle) in [
        ("[signatures]\nkeys = [\n  \"keys/acme.pub\"]\n", 3, "only inline"),
        (
            "[signatures]\nidentities = [{ issuer = \"i\", subject = \"s\" }]\ntrusted_root = \"root.json\"\n",
            3,
            "trusted_root",
        ),
    ] {
        let (_dir, path) = write(text, &public);
        let error = file::load(&path, RuleSource::Workspace).unwrap_err().to_string();
        assert!(error.contains(&format!("policy.toml:{line}:")) && error.contains(needle), "{text}: {error}");
    }
    let (_dir, path) = write(&format!("[signatures]\nkeys = ['''{public}''']\n"), &public);
    assert_eq!(file::load(&path, RuleSource::Workspace).unwrap().signatures.unwrap().trust.keys.len(), 1);
}
