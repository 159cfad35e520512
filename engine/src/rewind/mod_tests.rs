use std::path::{Path, PathBuf};

use super::*;

#[test]
fn paths_inside_the_workspace_are_shown_relative_and_sanitised() {
    let workspace = Path::new("/w/project");
    assert_eq!(shown_path(workspace, Path::new("/w/project/src/main.rs")), "src/main.rs");
    assert_eq!(shown_path(workspace, Path::new("/elsewhere/x")), "/elsewhere/x");
    assert_eq!(shown_path(workspace, workspace), "/w/project");
    let shown = shown_path(workspace, Path::new("/w/project/a\u{1b}[31mred"));
    assert!(!shown.contains('\u{1b}'), "{shown:?}");
}

#[test]
fn the_union_of_roots_has_no_repeats_and_keeps_file_roots() {
    let roots = union([PathBuf::from("/w/b"), PathBuf::from("/w"), PathBuf::from("/w/b"), PathBuf::from("/w/a.txt")]);
    assert_eq!(roots, [PathBuf::from("/w"), PathBuf::from("/w/a.txt"), PathBuf::from("/w/b")]);
}

#[test]
fn a_removed_checkpoint_reads_as_removed() {
    let error =
        RewindError::from(airlock_checkpoint::CheckpointError::Unknown(airlock_checkpoint::CheckpointId("abc".into())));
    assert!(matches!(&error, RewindError::Removed(id) if id == "abc"));
    assert!(error.to_string().contains("was removed"), "{error}");
}

#[test]
fn a_session_file_a_recorder_holds_cannot_be_locked_for_a_rewind() {
    let dir = tempfile::tempdir().unwrap();
    let header = crate::session::Header::new(
        "abc".into(),
        "2026-11-28T12:00:00.000Z".into(),
        "/w".into(),
        "p".into(),
        "m".into(),
    );
    let recorder = crate::session::Recorder::create(dir.path(), &header).unwrap();
    let path = recorder.path().to_path_buf();
    let busy = crate::session::exclusive(&path, "abc").unwrap_err();
    assert!(busy.to_string().contains("in use by a running airlock"), "{busy}");
    drop(recorder);
    let lock = crate::session::exclusive(&path, "abc").unwrap();
    // While `airlock rewind` holds it, a recorder still opens (a lock is no reason to stop
    // recording), and the rewind keeps its lock.
    let appended = crate::session::Recorder::append(&path, "abc", 0, crate::session::Tokens::default()).unwrap();
    drop(appended);
    drop(lock);
}
