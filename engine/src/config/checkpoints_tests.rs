//! Unit tests of `checkpoints.rs`: the defaults, the checks, and a trusted workspace's file
//! refused with a warning (real files in temporary folders).

use super::*;
use crate::config::load_settings;
use crate::paths::Paths;
use crate::policy::trust::TrustStore;

#[test]
fn the_defaults_take_checkpoints_with_the_documented_caps() {
    let settings = CheckpointSettings::default();
    assert!(settings.enabled());
    let home = tempfile::tempdir().unwrap();
    let store = settings.store_settings(home.path());
    assert_eq!(store.max_file_bytes, 16 << 20);
    assert_eq!(store.max_files, 100_000);
    // airlock's own home is never snapshotted nor restored.
    assert_eq!(store.never, [home.path().canonicalize().unwrap()]);
    let retention = settings.retention();
    assert_eq!(retention.max_bytes, 2048 << 20);
    assert_eq!(retention.max_age, Duration::from_secs(30 * 86_400));
    for (key, _) in DEFAULTS {
        assert!(key.starts_with("checkpoints."), "{key}");
    }
}

#[test]
fn the_user_sets_the_caps_and_a_zero_cap_is_an_error() {
    let text = "[checkpoints]\nenabled = false\nmax_file_mib = 2\nmax_files = 10\nmax_size_mib = 5\nmax_age_days = 1\n";
    let config: crate::config::FileConfig = toml::from_str(text).unwrap();
    let settings = &config.checkpoints;
    assert!(!settings.enabled());
    assert_eq!(settings.store_settings(Path::new("/nonexistent")).max_file_bytes, 2 << 20);
    assert_eq!(settings.store_settings(Path::new("/nonexistent")).max_files, 10);
    assert_eq!(settings.retention().max_bytes, 5 << 20);
    assert_eq!(settings.retention().max_age, Duration::from_secs(86_400));
    let zero = CheckpointSettings { max_files: Some(0), ..CheckpointSettings::default() };
    assert!(zero.check().unwrap_err().contains("max_files"));
    assert!(toml::from_str::<crate::config::FileConfig>("[checkpoints]\nevery = 1\n").is_err());
}

#[test]
fn a_user_file_turns_checkpoints_off() {
    let dir = tempfile::tempdir().unwrap();
    let paths = Paths::new(&dir.path().join("home"), None).unwrap();
    std::fs::create_dir_all(&paths.home).unwrap();
    std::fs::write(paths.config_file(), "[checkpoints]\nenabled = false\n").unwrap();
    let settings = load_settings(&paths, None).unwrap();
    assert!(!settings.config.checkpoints.enabled());
    assert!(settings.warnings.is_empty(), "{:?}", settings.warnings);
}

/// SECURITY CP2: a (trusted) workspace's `.airlock/config.toml` cannot switch checkpoints
/// off nor shrink their caps: every key is refused, with a warning naming it.
#[test]
fn a_workspace_file_cannot_switch_checkpoints_off() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let workspace = dir.path().join("workspace");
    std::fs::create_dir_all(workspace.join(".airlock")).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    let paths = Paths::new(&home, None).unwrap();
    let workspace = workspace.canonicalize().unwrap();
    std::fs::write(
        workspace.join(".airlock/config.toml"),
        "max_turns = 3\n[checkpoints]\nenabled = false\nmax_files = 1\n",
    )
    .unwrap();
    let mut store = TrustStore::load(&paths.trust_file()).unwrap();
    let hash = crate::policy::workspace_policy_hash(&workspace).unwrap();
    store.trust(&workspace, &hash, Default::default());
    store.pin_config(&workspace, &crate::config::mcp::workspace_config_hash(&workspace).unwrap());
    store.save().unwrap();
    let settings = load_settings(&paths, Some(&workspace)).unwrap();
    // The file was read (its other keys are used)...
    assert_eq!(settings.config.max_turns, Some(3));
    // ...but not its checkpoints.
    assert!(settings.config.checkpoints.enabled());
    assert_eq!(settings.config.checkpoints, CheckpointSettings::default());
    let warnings = settings.warnings.join("\n");
    assert!(warnings.contains("checkpoints at ") && warnings.contains("undo"), "{warnings}");
}
