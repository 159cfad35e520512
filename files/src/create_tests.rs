//! Unit tests of `create.rs`: changes made through a folder's handle land in that folder,
//! whatever is swapped in on its path meanwhile.

use std::ffi::OsStr;
use std::os::unix::fs::symlink;
use std::path::Path;

use super::*;
use crate::open_dir;

fn tree() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join("ws/.airlock")).unwrap();
    std::fs::create_dir_all(root.join("home")).unwrap();
    std::fs::write(root.join("home/policy.toml"), "mine\n").unwrap();
    (dir, root)
}

#[test]
fn a_folder_swapped_for_a_link_after_it_was_opened_receives_the_changes() {
    let (_dir, root) = tree();
    let airlock = open_dir(&root.join("ws/.airlock")).unwrap();
    // A command moves the folder away and plants a link to the home in its place.
    std::fs::rename(root.join("ws/.airlock"), root.join("ws/moved")).unwrap();
    symlink(root.join("home"), root.join("ws/.airlock")).unwrap();
    airlock.write_new_file(OsStr::new("new.txt"), b"x", 0o644).unwrap();
    let plugins = airlock.create_dir(OsStr::new("plugins"), 0o755).unwrap();
    plugins.write_new_file(OsStr::new("a.wasm"), b"a", 0o644).unwrap();
    plugins.rename(OsStr::new("a.wasm"), &airlock, OsStr::new("b.wasm"), false).unwrap();
    airlock.remove_file(OsStr::new("b.wasm")).unwrap();
    assert!(root.join("ws/moved/new.txt").is_file() && root.join("ws/moved/plugins").is_dir());
    let home: Vec<_> = std::fs::read_dir(root.join("home")).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(home, ["policy.toml"], "nothing reached the home");
    assert_eq!(std::fs::read_to_string(root.join("home/policy.toml")).unwrap(), "mine\n");
}

#[test]
fn links_are_never_followed_when_creating_removing_or_renaming() {
    let (_dir, root) = tree();
    let ws = open_dir(&root.join("ws")).unwrap();
    symlink(root.join("home"), root.join("ws/linked")).unwrap();
    symlink(root.join("home/policy.toml"), root.join("ws/file_link")).unwrap();
    // A link where a folder is expected is refused, whatever it points to.
    assert!(matches!(ws.create_dir(OsStr::new("linked"), 0o755).unwrap_err(), FileError::Link));
    assert!(matches!(create_dir_in(&ws, Path::new("linked/x"), 0o755).unwrap_err(), FileError::Link));
    // A new file is never created through a link of that name.
    assert!(ws.write_new_file(OsStr::new("file_link"), b"evil", 0o644).is_err());
    // Removing a link removes the link, never its target.
    ws.remove_file(OsStr::new("file_link")).unwrap();
    assert_eq!(std::fs::read_to_string(root.join("home/policy.toml")).unwrap(), "mine\n");
    // Renaming without replacing keeps what is there; a folder is no file.
    std::fs::write(root.join("ws/a"), "a").unwrap();
    std::fs::write(root.join("ws/b"), "b").unwrap();
    assert!(ws.rename(OsStr::new("a"), &ws, OsStr::new("b"), false).is_err());
    assert_eq!(std::fs::read_to_string(root.join("ws/b")).unwrap(), "b");
    assert!(matches!(ws.remove_file(OsStr::new(".airlock")).unwrap_err(), FileError::NotRegular("folder")));
    for bad in ["..", ".", "a/b", ""] {
        assert!(matches!(ws.create_dir(OsStr::new(bad), 0o755).unwrap_err(), FileError::BadPath), "{bad}");
    }
}

#[test]
fn a_tree_is_removed_without_following_the_links_inside_it() {
    let (_dir, root) = tree();
    std::fs::create_dir_all(root.join("ws/staged/a/b")).unwrap();
    std::fs::write(root.join("ws/staged/a/b/f"), "f").unwrap();
    symlink(root.join("home"), root.join("ws/staged/a/home_link")).unwrap();
    let ws = open_dir(&root.join("ws")).unwrap();
    ws.remove_tree(OsStr::new("staged")).unwrap();
    assert!(!root.join("ws/staged").exists());
    assert_eq!(std::fs::read_to_string(root.join("home/policy.toml")).unwrap(), "mine\n");
    // A mode set on a new file is exact, whatever the umask.
    ws.write_new_file(OsStr::new("run.sh"), b"#!/bin/sh\n", 0o755).unwrap();
    let mode =
        std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(root.join("ws/run.sh")).unwrap().permissions());
    assert_eq!(mode & 0o777, 0o755);
}
