//! Unit tests of `scratch.rs`: what the copy holds, and what a call changed in it.

use std::os::unix::fs::{PermissionsExt, symlink};

use super::*;

/// A folder with a file to edit, a sibling, a subfolder with a file, and two links.
fn folder() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join("sub/deep")).unwrap();
    std::fs::write(root.join("notes.md"), "a typo\n").unwrap();
    std::fs::write(root.join("other.md"), "other\n").unwrap();
    std::fs::set_permissions(root.join("other.md"), std::fs::Permissions::from_mode(0o640)).unwrap();
    std::fs::write(root.join("sub/inner.md"), "inner\n").unwrap();
    symlink("notes.md", root.join("alias.md")).unwrap();
    symlink("/etc/passwd", root.join("out")).unwrap();
    (dir, root)
}

#[test]
fn the_copy_holds_files_links_and_empty_folders_and_changes_nothing_real() {
    let (_dir, real) = folder();
    let scratch = Scratch::copy_of(&real, OsStr::new("notes.md")).unwrap();
    let root = scratch.root();
    assert!(!root.starts_with(&real), "the copy lies outside the folder");
    assert_eq!(std::fs::metadata(root).unwrap().permissions().mode() & 0o777, 0o700);
    assert_eq!(std::fs::read_to_string(root.join("notes.md")).unwrap(), "a typo\n");
    assert_eq!(std::fs::metadata(root.join("other.md")).unwrap().permissions().mode() & 0o777, 0o640);
    assert_eq!(std::fs::read_link(root.join("alias.md")).unwrap(), Path::new("notes.md"));
    assert_eq!(std::fs::read_link(root.join("out")).unwrap(), Path::new("/etc/passwd"));
    assert!(root.join("sub").is_dir() && std::fs::read_dir(root.join("sub")).unwrap().next().is_none());
    assert!(scratch.changes(Path::new("notes.md")).is_empty());

    std::fs::write(root.join("notes.md"), "no typo\n").unwrap();
    std::fs::write(root.join("sub/evil"), "x").unwrap();
    assert_eq!(std::fs::read_to_string(real.join("notes.md")).unwrap(), "a typo\n");
    assert!(!real.join("sub/evil").exists());
    let path = scratch.root().to_path_buf();
    drop(scratch);
    assert!(!path.exists(), "the copy is removed with the scratch");
}

#[test]
fn every_change_but_the_confirmed_file_is_named() {
    let (_dir, real) = folder();
    let scratch = Scratch::copy_of(&real, OsStr::new("notes.md")).unwrap();
    let root = scratch.root();
    std::fs::write(root.join("notes.md"), "no typo\n").unwrap();
    std::fs::write(root.join("other.md"), "changed\n").unwrap();
    std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
    std::fs::write(root.join(".git/hooks/pre-commit"), "#!/bin/sh\n").unwrap();
    std::fs::write(root.join("sub/inner.md"), "planted\n").unwrap();
    std::fs::remove_file(root.join("alias.md")).unwrap();
    symlink("other.md", root.join("alias.md")).unwrap();
    std::fs::rename(root.join("out"), root.join("moved")).unwrap();
    let changes = scratch.changes(Path::new("notes.md"));
    assert_eq!(
        changes.named,
        [
            "created .git/",
            "created .git/hooks/",
            "created .git/hooks/pre-commit",
            "changed alias.md",
            "created moved",
            "changed other.md",
            "created sub/inner.md",
            "deleted out",
        ],
    );
    assert_eq!((changes.more, changes.cut), (0, false));
}

#[test]
fn new_folders_on_the_way_to_a_new_file_are_not_reported_but_what_else_they_hold_is() {
    let (_dir, real) = folder();
    let scratch = Scratch::copy_of(&real, OsStr::new("new")).unwrap();
    std::fs::create_dir_all(scratch.root().join("new/dir")).unwrap();
    std::fs::write(scratch.root().join("new/dir/file.md"), "new\n").unwrap();
    assert!(scratch.changes(Path::new("new/dir/file.md")).is_empty());
    std::fs::write(scratch.root().join("new/beside.md"), "x").unwrap();
    assert_eq!(scratch.changes(Path::new("new/dir/file.md")).named, ["created new/beside.md"]);
}

#[test]
fn reading_the_result_follows_no_link() {
    let (_dir, real) = folder();
    let scratch = Scratch::copy_of(&real, OsStr::new("notes.md")).unwrap();
    assert_eq!(scratch.read(Path::new("notes.md"), 100).unwrap().as_deref(), Some(&b"a typo\n"[..]));
    assert!(matches!(scratch.read(Path::new("alias.md"), 100), Err(FileError::Link)));
    assert!(matches!(scratch.read(Path::new("sub"), 100), Err(FileError::NotRegular(_))));
    assert!(matches!(scratch.read(Path::new("notes.md"), 3), Err(FileError::TooLarge { .. })));
    assert_eq!(scratch.read(Path::new("gone.md"), 100).unwrap(), None);
}

#[test]
fn the_confirmed_file_is_copied_first_and_the_copy_is_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().canonicalize().unwrap();
    for index in 0..MAX_COPIED_ENTRIES + 10 {
        std::fs::write(real.join(format!("f{index:05}")), "x").unwrap();
    }
    std::fs::write(real.join("zzz-last.md"), "the file\n").unwrap();
    let scratch = Scratch::copy_of(&real, OsStr::new("zzz-last.md")).unwrap();
    assert_eq!(std::fs::read_to_string(scratch.root().join("zzz-last.md")).unwrap(), "the file\n");
    assert_eq!(std::fs::read_dir(scratch.root()).unwrap().count(), MAX_COPIED_ENTRIES);
}
