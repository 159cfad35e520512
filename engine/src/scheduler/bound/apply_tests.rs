//! Unit tests of `apply.rs`: the host's write of an approved file.

use std::os::unix::fs::{MetadataExt, PermissionsExt, symlink};
use std::path::PathBuf;

use super::*;

fn folder() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join("ws")).unwrap();
    std::fs::create_dir_all(root.join("outside")).unwrap();
    std::fs::write(root.join("outside/secret"), "secret").unwrap();
    (dir, root.join("ws"), root.join("outside"))
}

#[test]
fn replaces_the_file_keeping_its_mode_and_leaves_no_temporary_file() {
    let (_dir, ws, _) = folder();
    std::fs::write(ws.join("run.sh"), "old").unwrap();
    std::fs::set_permissions(ws.join("run.sh"), std::fs::Permissions::from_mode(0o750)).unwrap();
    write(&ws, Path::new("run.sh"), b"new").unwrap();
    assert_eq!(std::fs::read_to_string(ws.join("run.sh")).unwrap(), "new");
    assert_eq!(std::fs::metadata(ws.join("run.sh")).unwrap().permissions().mode() & 0o777, 0o750);
    assert_eq!(std::fs::read_dir(&ws).unwrap().count(), 1);
    assert_eq!(read_current(&ws, Path::new("run.sh"), 10).unwrap().as_deref(), Some(&b"new"[..]));
    assert_eq!(read_current(&ws, Path::new("none/x"), 10).unwrap(), None);
}

#[test]
fn makes_missing_folders_for_a_new_file() {
    let (_dir, ws, _) = folder();
    write(&ws, Path::new("a/b/new.md"), b"hello").unwrap();
    assert_eq!(std::fs::read_to_string(ws.join("a/b/new.md")).unwrap(), "hello");
}

#[test]
fn a_file_with_other_names_stays_one_file() {
    let (_dir, ws, _) = folder();
    std::fs::write(ws.join("a.txt"), "old").unwrap();
    std::fs::hard_link(ws.join("a.txt"), ws.join("b.txt")).unwrap();
    write(&ws, Path::new("a.txt"), b"new").unwrap();
    assert_eq!(std::fs::read_to_string(ws.join("b.txt")).unwrap(), "new");
    assert_eq!(std::fs::metadata(ws.join("a.txt")).unwrap().nlink(), 2);
}

#[test]
fn a_link_at_the_file_or_on_its_way_is_never_written_through() {
    let (_dir, ws, outside) = folder();
    symlink(outside.join("secret"), ws.join("file")).unwrap();
    symlink(&outside, ws.join("dir")).unwrap();
    assert!(matches!(write(&ws, Path::new("file"), b"pwned"), Err(FileError::Link)));
    assert!(matches!(write(&ws, Path::new("dir/secret"), b"pwned"), Err(FileError::Link)));
    assert!(write(&ws, Path::new("../outside/secret"), b"pwned").is_err());
    assert_eq!(std::fs::read_to_string(outside.join("secret")).unwrap(), "secret");
    // The folder itself swapped for a link: its path holds one now.
    let moved = ws.with_file_name("ws-real");
    std::fs::rename(&ws, &moved).unwrap();
    symlink(&outside, &ws).unwrap();
    assert!(matches!(write(&ws, Path::new("secret"), b"pwned"), Err(FileError::Link)));
    assert_eq!(std::fs::read_to_string(outside.join("secret")).unwrap(), "secret");
}
