//! A hostile command may swap folders and files for links between a checkpoint and the
//! user's rewind: the restore must never write, create or delete through a link.

use std::os::unix::fs::symlink;

use airlock_checkpoint::{CheckpointError, Entry, EntryKind, Restore};

use super::{fixture, state, write};

/// A folder outside the workspace standing for `~/.ssh`.
fn outside(f: &super::Fixture) -> std::path::PathBuf {
    let ssh = f.home.parent().unwrap().join("dot-ssh");
    write(&ssh.join("authorized_keys"), "ssh-ed25519 AAAA user\n");
    ssh
}

#[test]
fn restore_refuses_to_write_through_a_parent_folder_swapped_for_a_link() {
    let f = fixture();
    let ssh = outside(&f);
    write(&f.ws.join("keys/authorized_keys"), "project key\n");
    let a = f.checkpoint("before");
    let entry = f.store.entry(&a.id, &f.ws.join("keys/authorized_keys")).unwrap();
    std::fs::remove_dir_all(f.ws.join("keys")).unwrap();
    symlink(&ssh, f.ws.join("keys")).unwrap();
    let outside_before = state(&ssh);
    let error = f.store.restore(&[Restore { path: f.ws.join("keys/authorized_keys"), to: entry }]).unwrap_err();
    assert!(matches!(error, CheckpointError::Restore { .. }), "{error}");
    assert!(error.to_string().contains("symbolic link"), "{error}");
    // A deletion through the swapped folder is refused as well.
    let error = f.store.restore(&[Restore { path: f.ws.join("keys/authorized_keys"), to: None }]).unwrap_err();
    assert!(error.to_string().contains("symbolic link"), "{error}");
    assert_eq!(state(&ssh), outside_before);
}

#[test]
fn restore_refuses_to_make_missing_folders_under_a_link() {
    let f = fixture();
    let ssh = outside(&f);
    write(&f.ws.join("a/b/c.txt"), "c\n");
    let a = f.checkpoint("before");
    let entry = f.store.entry(&a.id, &f.ws.join("a/b/c.txt")).unwrap();
    std::fs::remove_dir_all(f.ws.join("a")).unwrap();
    symlink(&ssh, f.ws.join("a")).unwrap();
    let outside_before = state(&ssh);
    let error = f.store.restore(&[Restore { path: f.ws.join("a/b/c.txt"), to: entry }]).unwrap_err();
    assert!(error.to_string().contains("symbolic link"), "{error}");
    assert_eq!(state(&ssh), outside_before, "a folder was made outside the workspace");
}

#[test]
fn restore_replaces_a_file_swapped_for_a_link_and_leaves_its_target_alone() {
    let f = fixture();
    let ssh = outside(&f);
    write(&f.ws.join("config.toml"), "mine\n");
    let a = f.checkpoint("before");
    std::fs::remove_file(f.ws.join("config.toml")).unwrap();
    symlink(ssh.join("authorized_keys"), f.ws.join("config.toml")).unwrap();
    let outside_before = state(&ssh);
    f.rewind_to(&a.id);
    let meta = std::fs::symlink_metadata(f.ws.join("config.toml")).unwrap();
    assert!(meta.is_file(), "the link is replaced by the file");
    assert_eq!(std::fs::read(f.ws.join("config.toml")).unwrap(), b"mine\n");
    assert_eq!(state(&ssh), outside_before);
}

#[test]
fn deleting_a_file_swapped_for_a_link_removes_the_link_only() {
    let f = fixture();
    let ssh = outside(&f);
    let a = f.checkpoint("before");
    symlink(ssh.join("authorized_keys"), f.ws.join("made.txt")).unwrap();
    let done = f.rewind_to(&a.id);
    assert_eq!(done.deleted, 1);
    assert!(std::fs::symlink_metadata(f.ws.join("made.txt")).is_err());
    assert_eq!(std::fs::read(ssh.join("authorized_keys")).unwrap(), b"ssh-ed25519 AAAA user\n");
}

#[test]
fn a_deletion_never_empties_a_folder() {
    let f = fixture();
    let a = f.checkpoint("before");
    write(&f.ws.join("made.txt"), "x");
    let b = f.checkpoint("after");
    let change = f.store.changes(&a.id, &b.id).unwrap().remove(0);
    // Someone made `made.txt` a folder with work in it since.
    std::fs::remove_file(f.ws.join("made.txt")).unwrap();
    write(&f.ws.join("made.txt/work.rs"), "work");
    let done = f.store.restore(&[Restore { path: change.path.clone(), to: None }]).unwrap();
    assert_eq!((done.deleted, done.folders_left), (0, vec![change.path]));
    assert_eq!(std::fs::read(f.ws.join("made.txt/work.rs")).unwrap(), b"work");
}

#[test]
fn checkpoints_do_not_follow_links_out_of_their_roots() {
    let f = fixture();
    let ssh = outside(&f);
    symlink(&ssh, f.ws.join("ssh")).unwrap();
    let a = f.checkpoint("before");
    assert_eq!(a.files, 1, "the link itself, not what it leads to");
    let link = f.store.entry(&a.id, &f.ws.join("ssh")).unwrap().unwrap();
    assert_eq!(link.kind, EntryKind::Symlink);
    assert_eq!(f.store.entry(&a.id, &f.ws.join("ssh/authorized_keys")).unwrap(), None);
    // A root reached through a link is left out rather than followed.
    let through = f.store.checkpoint(&[f.ws.join("ssh/authorized_keys")], super::label("before")).unwrap();
    assert_eq!(through.files, 0);
    assert_eq!(through.left_out[0].reason, "a folder on its path is a symbolic link");
}

#[test]
fn entries_naming_paths_instead_of_hashes_are_refused() {
    let f = fixture();
    let hostile = Entry { kind: EntryKind::File, hash: "../../../../etc/passwd".into(), mode: 0o644, size: 1 };
    assert!(f.store.read(&hostile).is_err());
    let error = f.store.restore(&[Restore { path: f.ws.join("x"), to: Some(hostile) }]).unwrap_err();
    assert!(matches!(error, CheckpointError::Damaged { .. }), "{error}");
    assert!(!f.ws.join("x").exists());
    let relative = f.store.restore(&[Restore { path: "relative/x".into(), to: None }]).unwrap_err();
    assert!(matches!(relative, CheckpointError::Restore { .. }));
}

#[test]
fn restore_refuses_git_folders_and_airlocks_own_files_before_writing_anything() {
    let f = fixture();
    write(&f.ws.join("a.txt"), "a\n");
    write(&f.ws.join(".git/config"), "[core]\n");
    let a = f.checkpoint("before");
    let entry = f.store.entry(&a.id, &f.ws.join("a.txt")).unwrap();
    for target in [f.ws.join(".git/config"), f.ws.join("sub/.git/hooks/pre-commit"), f.home.join("policy.toml")] {
        let files = [
            Restore { path: f.ws.join("first.txt"), to: entry.clone() },
            Restore { path: target.clone(), to: entry.clone() },
        ];
        let error = f.store.restore(&files).unwrap_err();
        assert!(error.to_string().contains("never writes"), "{error}");
        assert!(!f.ws.join("first.txt").exists(), "a file was written before the refusal");
    }
    assert_eq!(std::fs::read(f.ws.join(".git/config")).unwrap(), b"[core]\n");
    assert!(!f.home.join("policy.toml").exists());
}

#[test]
fn a_restore_that_would_fail_on_a_later_file_fails_before_the_first_write() {
    let f = fixture();
    let ssh = outside(&f);
    write(&f.ws.join("a.txt"), "original\n");
    write(&f.ws.join("zz/keys/authorized_keys"), "project key\n");
    write(&f.ws.join("zz/busy"), "a file\n");
    write(&f.ws.join("zz/plain"), "a file\n");
    let a = f.checkpoint("before");
    let at = |name: &str| f.store.entry(&a.id, &f.ws.join(name)).unwrap();
    write(&f.ws.join("a.txt"), "changed\n");
    write(&f.ws.join("zz/made.txt"), "made by the call\n");
    // Late in the order, each of these cannot be restored.
    std::fs::remove_dir_all(f.ws.join("zz/keys")).unwrap();
    symlink(&ssh, f.ws.join("zz/keys")).unwrap();
    std::fs::remove_file(f.ws.join("zz/busy")).unwrap();
    write(&f.ws.join("zz/busy/work.rs"), "work\n");
    let outside_before = state(&ssh);
    let late = [
        (Restore { path: f.ws.join("zz/keys/authorized_keys"), to: at("zz/keys/authorized_keys") }, "symbolic link"),
        (Restore { path: f.ws.join("zz/busy"), to: at("zz/busy") }, "not empty"),
        (Restore { path: f.ws.join("zz/plain/sub/new.txt"), to: at("a.txt") }, "not a folder"),
        (Restore { path: f.ws.join("zz/keys/gone"), to: None }, "symbolic link"),
    ];
    for (step, said) in late {
        let files = [
            Restore { path: f.ws.join("a.txt"), to: at("a.txt") },
            Restore { path: f.ws.join("zz/made.txt"), to: None },
            step,
        ];
        // Without the later file's problem, the first ones would restore.
        let error = f.store.restore(&files).unwrap_err();
        assert!(error.to_string().contains(said), "{error}");
        assert_eq!(std::fs::read(f.ws.join("a.txt")).unwrap(), b"changed\n", "written before the refusal");
        assert!(f.ws.join("zz/made.txt").is_file(), "deleted before the refusal");
    }
    assert_eq!(state(&ssh), outside_before);
    // A file in the way that this restore deletes first is no obstacle.
    let files = [
        Restore { path: f.ws.join("zz/plain/sub/new.txt"), to: at("a.txt") },
        Restore { path: f.ws.join("zz/plain"), to: None },
    ];
    f.store.restore(&files).unwrap();
    assert_eq!(std::fs::read(f.ws.join("zz/plain/sub/new.txt")).unwrap(), b"original\n");
}

#[test]
fn a_restore_needing_content_the_store_lost_fails_before_the_first_write() {
    let f = fixture();
    write(&f.ws.join("a.txt"), "original\n");
    write(&f.ws.join("b/c.txt"), "other\n");
    let a = f.checkpoint("before");
    let at = |name: &str| f.store.entry(&a.id, &f.ws.join(name)).unwrap().unwrap();
    write(&f.ws.join("a.txt"), "changed\n");
    let mut lost = at("b/c.txt");
    lost.hash = "0".repeat(64);
    let files = [
        Restore { path: f.ws.join("a.txt"), to: Some(at("a.txt")) },
        Restore { path: f.ws.join("b/c.txt"), to: Some(lost) },
    ];
    let error = f.store.restore(&files).unwrap_err();
    assert!(matches!(error, CheckpointError::Damaged { .. }), "{error}");
    assert_eq!(std::fs::read(f.ws.join("a.txt")).unwrap(), b"changed\n");
}
