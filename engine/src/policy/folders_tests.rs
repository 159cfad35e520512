//! Unit tests of `folders.rs`: what may be added to a session, and how it is read.

use std::path::PathBuf;

use super::*;
use crate::capability::Roots;
use crate::policy::ApprovalMode;
use crate::policy::file::PolicyFile;

/// A policy whose workspace, home and airlock home are folders of one temporary folder.
fn policy() -> (tempfile::TempDir, PathBuf, Policy) {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let root = dir.path().canonicalize().unwrap_or_else(|e| panic!("{e}"));
    for folder in ["home/.airlock/memory", "work/src", "outside/lib"] {
        std::fs::create_dir_all(root.join(folder)).unwrap_or_else(|e| panic!("{e}"));
    }
    std::fs::write(root.join("outside/file.txt"), "x").unwrap_or_else(|e| panic!("{e}"));
    let roots = Roots { workspace: root.join("work"), home: Some(root.join("home")), memory: None };
    let mut policy = Policy::new(ApprovalMode::Default, roots, PolicyFile::default());
    policy.protected = vec![root.join("home/.airlock")];
    (dir, root, policy)
}

#[test]
fn a_folder_is_added_canonical_with_the_access_asked_for() {
    let (_dir, root, policy) = policy();
    let added = policy.add_folder(&format!("{}/outside/lib/../lib", root.display())).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(added, AddedFolder { path: root.join("outside/lib"), access: Access::Read });
    // Added again read-write, the folder is listed once, with the new access.
    let text = format!("{}:read-write", root.join("outside/lib").display());
    assert_eq!(policy.add_folder(&text).map(|a| a.access), Ok(Access::ReadWrite));
    assert_eq!(policy.added_folders(), vec![AddedFolder { path: root.join("outside/lib"), access: Access::ReadWrite }]);
    // `~` is the user's home.
    std::fs::create_dir_all(root.join("home/notes")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(policy.add_folder("~/notes:read").map(|a| a.path), Ok(root.join("home/notes")));
}

#[test]
fn what_cannot_be_added_is_refused_with_the_reason() {
    let (_dir, root, policy) = policy();
    let at = |path: &str| root.join(path).display().to_string();
    for (text, says) in [
        (at("outside/missing"), "does not exist"),
        (at("outside/file.txt"), "is not a folder"),
        (at("work/src"), "inside the workspace"),
        (at("work"), "inside the workspace"),
        (at("home/.airlock/memory"), "lies inside"),
        (at("home/.airlock"), "is airlock's own folder"),
        (at("home"), "holds"),
        (root.display().to_string(), "holds"),
        (format!("{}:rw", at("outside/lib")), "read-write"),
        (format!("{}:writable", at("outside/lib")), "read-write"),
        (format!("{}\u{202e}", at("outside/lib")), "invisible"),
        (String::new(), "name a folder"),
    ] {
        match policy.add_folder(&text) {
            Ok(added) => panic!("{text:?} was added: {added:?}"),
            Err(reason) => assert!(reason.contains(says), "{text:?}: {reason}"),
        }
    }
    assert!(policy.added_folders().is_empty());
}

#[test]
fn a_folder_whose_name_holds_a_colon_is_named_with_its_mode() {
    let (_dir, root, policy) = policy();
    let odd = root.join("outside/a:b");
    std::fs::create_dir_all(&odd).unwrap_or_else(|e| panic!("{e}"));
    assert!(policy.add_folder(&odd.display().to_string()).is_err(), "`b` read as a mode was accepted");
    assert_eq!(policy.add_folder(&format!("{}:read", odd.display())).map(|a| a.path), Ok(odd.clone()));
    let nested = odd.join("c");
    std::fs::create_dir_all(&nested).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(policy.add_folder(&nested.display().to_string()).map(|a| a.path), Ok(nested));
}

#[test]
fn added_folders_survive_a_reload_of_the_policy() {
    let (_dir, root, old) = policy();
    let lib = root.join("outside/lib");
    old.add_folder(&format!("{}:read-write", lib.display())).unwrap_or_else(|e| panic!("{e}"));
    let (_other, _, reloaded) = policy();
    reloaded.carry_session_from(&old, &|_| false, &|_| false);
    assert_eq!(reloaded.added_folders(), vec![AddedFolder { path: lib, access: Access::ReadWrite }]);
}
