//! Unit tests of `atomic.rs`.

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

#[test]
fn write_new_never_replaces_and_write_once_keeps_the_first_file() {
    let dir = tempfile::tempdir().unwrap();
    let name = |attempt: u32| if attempt == 0 { "out.txt".to_string() } else { format!("out-{attempt}.txt") };
    let first = super::write_new(dir.path(), b"one", name).unwrap();
    let second = super::write_new(dir.path(), b"two", name).unwrap();
    assert_eq!((first.file_name().unwrap(), second.file_name().unwrap()), ("out.txt".as_ref(), "out-1.txt".as_ref()));
    assert_eq!(std::fs::read(&first).unwrap(), b"one");
    let key = dir.path().join("key");
    super::write_once(&key, b"first", || false).unwrap();
    let kept = super::write_once(&key, b"second", || false).unwrap_err();
    assert_eq!(kept.kind(), std::io::ErrorKind::AlreadyExists);
    assert_eq!(std::fs::read(&key).unwrap(), b"first");
    super::write_once(&key, b"third", || true).unwrap();
    assert_eq!(std::fs::read(&key).unwrap(), b"third");
    let mode = std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&key).unwrap().permissions());
    assert_eq!(mode & 0o777, 0o600);
    // No temporary file is left behind.
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names.len(), 3, "{names:?}");
}
