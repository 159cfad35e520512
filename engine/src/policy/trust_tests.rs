//! Unit tests of `trust.rs`.

use super::*;

#[test]
fn trust_is_pinned_to_the_policy_hash() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trust.toml");
    let mut store = TrustStore::load(&path).unwrap();
    let ws = Path::new("/work/project");
    assert_eq!(store.status(ws, "abc"), TrustStatus::Untrusted);
    let plugins = BTreeMap::from([("x.wasm".to_string(), "123".to_string())]);
    store.trust(ws, "abc", plugins.clone());
    store.save().unwrap();
    let mut store = TrustStore::load(&path).unwrap();
    assert_eq!(store.status(ws, "abc"), TrustStatus::Trusted);
    assert_eq!(store.pinned_plugins(ws), Some(&plugins));
    store.repin_policy(ws, "abd");
    assert_eq!(store.status(ws, "abd"), TrustStatus::Trusted);
    assert_eq!(store.pinned_plugins(ws), Some(&plugins), "re-pinning the policy keeps the plugin pins");
    store.repin_policy(ws, "abc");
    assert_eq!(store.status(ws, "def"), TrustStatus::Changed);
    assert_eq!(store.status(Path::new("/work/other"), "abc"), TrustStatus::Untrusted);
}

#[test]
fn a_trust_file_from_before_plugin_pins_pins_no_plugin() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trust.toml");
    std::fs::write(&path, "[[folder]]\npath = \"/work/project\"\npolicy_sha256 = \"abc\"\n").unwrap();
    let store = TrustStore::load(&path).unwrap();
    assert_eq!(store.status(Path::new("/work/project"), "abc"), TrustStatus::Trusted);
    assert!(store.pinned_plugins(Path::new("/work/project")).unwrap().is_empty());
}

#[test]
fn a_trust_file_that_is_a_fifo_or_endless_is_an_error_not_a_hang() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("trust.toml");
    rustix::fs::mkfifoat(rustix::fs::CWD, &fifo, rustix::fs::Mode::from_raw_mode(0o600)).unwrap();
    assert!(matches!(TrustStore::load(&fifo), Err(PolicyError::Read { .. })));
    let link = dir.path().join("zero.toml");
    std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
    assert!(matches!(TrustStore::load(&link), Err(PolicyError::Read { .. })));
    let big = dir.path().join("big.toml");
    std::fs::File::create(&big).unwrap().set_len(2 << 30).unwrap();
    assert!(matches!(TrustStore::load(&big), Err(PolicyError::Read { .. })));
}

#[test]
fn hook_scripts_are_pinned_and_kept_across_a_save() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trust.toml");
    let mut store = TrustStore::load(&path).unwrap();
    let ws = Path::new("/work/project");
    let hooks = BTreeMap::from([("check.sh".to_string(), "9f".to_string())]);
    store.pin_hooks(ws, hooks.clone());
    assert_eq!(store.pinned_hooks(ws), None, "an untrusted folder pins nothing");
    store.trust(ws, "abc", BTreeMap::new());
    store.pin_hooks(ws, hooks.clone());
    store.save().unwrap();
    let store = TrustStore::load(&path).unwrap();
    assert_eq!(store.pinned_hooks(ws), Some(&hooks));
}
