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
