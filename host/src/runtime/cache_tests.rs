//! Unit tests of `cache.rs`.

use super::write_atomically;

/// A repository can plant links named like the temporary files of its own
/// `.airlock/policy.toml` (process ids are small in containers); `airlock plugins
/// grant` writing that policy must never write through them.
#[cfg(unix)]
#[test]
fn planted_links_named_like_temporary_files_are_never_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("bashrc");
    std::fs::write(&victim, "original\n").unwrap();
    let airlock = dir.path().join("repo/.airlock");
    std::fs::create_dir_all(&airlock).unwrap();
    let pid = std::process::id();
    for guessed_pid in [pid, 1, 2, 7, 42] {
        for n in 0..16 {
            let name = airlock.join(format!(".policy.toml.{guessed_pid}.{n}.tmp"));
            std::os::unix::fs::symlink(&victim, name).unwrap();
        }
    }
    for round in 0..4 {
        write_atomically(&airlock.join("policy.toml"), format!("round = {round}\n").as_bytes()).unwrap();
    }
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "original\n");
    assert_eq!(std::fs::read_to_string(airlock.join("policy.toml")).unwrap(), "round = 3\n");
    assert!(std::fs::symlink_metadata(airlock.join("policy.toml")).unwrap().file_type().is_file());
}
