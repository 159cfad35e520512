//! Checkpoint, change files every way a tool can, then `changes` and `restore` exactly.

use std::collections::BTreeSet;
use std::os::unix::fs::symlink;
use std::path::PathBuf;

use airlock_checkpoint::{Change, EntryKind, Restore};

use super::{chmod, fixture, inode, state, write};

#[test]
fn changes_and_restore_undo_every_kind_of_change_and_touch_nothing_else() {
    let f = fixture();
    let ws = &f.ws;
    write(&ws.join("modify.txt"), "one\ntwo\nthree\n");
    write(&ws.join("delete.txt"), "gone soon\n");
    write(&ws.join("run.sh"), "#!/bin/sh\n");
    chmod(&ws.join("run.sh"), 0o644);
    write(&ws.join("sub/deep/nested.rs"), "fn main() {}\n");
    write(&ws.join("unrelated.txt"), "leave me\n");
    write(&ws.join("private.key"), "secret\n");
    chmod(&ws.join("private.key"), 0o600);
    symlink("modify.txt", ws.join("link")).unwrap();
    let before_state = state(ws);
    let unrelated_inode = inode(&ws.join("unrelated.txt"));
    let a = f.checkpoint("before");
    assert_eq!(a.files, 7);
    assert!(a.left_out.is_empty(), "{:?}", a.left_out);

    write(&ws.join("modify.txt"), "one\n2\nthree\nfour\n");
    std::fs::remove_file(ws.join("delete.txt")).unwrap();
    chmod(&ws.join("run.sh"), 0o755);
    write(&ws.join("created.txt"), "new\n");
    write(&ws.join("newdir/inner.txt"), "new too\n");
    write(&ws.join("sub/deep/nested.rs"), "fn main() { println!(); }\n");
    std::fs::remove_file(ws.join("link")).unwrap();
    symlink("/etc/passwd", ws.join("link")).unwrap();
    symlink("unrelated.txt", ws.join("new-link")).unwrap();
    let b = f.checkpoint("after");

    let changes = f.store.changes(&a.id, &b.id).unwrap();
    let paths: Vec<PathBuf> = changes.iter().map(|c| c.path.strip_prefix(ws).unwrap().to_path_buf()).collect();
    let expected: Vec<PathBuf> = [
        "created.txt",
        "delete.txt",
        "link",
        "modify.txt",
        "new-link",
        "newdir/inner.txt",
        "run.sh",
        "sub/deep/nested.rs",
    ]
    .iter()
    .map(PathBuf::from)
    .collect();
    assert_eq!(paths, expected);
    let by = |name: &str| -> &Change { changes.iter().find(|c| c.path == ws.join(name)).unwrap() };
    assert!(by("created.txt").before.is_none() && by("created.txt").after.is_some());
    assert!(by("delete.txt").before.is_some() && by("delete.txt").after.is_none());
    let run = by("run.sh");
    assert_eq!((run.before.as_ref().unwrap().mode, run.after.as_ref().unwrap().mode), (0o644, 0o755));
    assert_eq!(run.before.as_ref().unwrap().hash, run.after.as_ref().unwrap().hash);
    assert_eq!(by("link").before.as_ref().unwrap().kind, EntryKind::Symlink);
    assert_eq!(f.store.read(by("link").after.as_ref().unwrap()).unwrap(), b"/etc/passwd");
    assert_eq!(f.store.read(by("modify.txt").before.as_ref().unwrap()).unwrap(), b"one\ntwo\nthree\n");

    let counts = f.store.line_counts(by("modify.txt")).unwrap();
    assert_eq!((counts.added, counts.removed, counts.binary), (2, 1, false));
    let counts = f.store.line_counts(by("created.txt")).unwrap();
    assert_eq!((counts.added, counts.removed), (1, 0));

    let files: Vec<Restore> = changes.iter().map(|c| Restore { path: c.path.clone(), to: c.before.clone() }).collect();
    let done = f.store.restore(&files).unwrap();
    assert_eq!((done.written, done.deleted), (5, 3));
    let mut after_state = state(ws);
    // A folder a restore emptied stays (a restore removes only the folders it is given).
    assert_eq!(after_state.remove(&PathBuf::from("newdir")), Some(super::Seen::Dir { mode: 0o755 & !umask() }));
    assert_eq!(after_state, before_state);
    assert_eq!(inode(&ws.join("unrelated.txt")), unrelated_inode, "an unrelated file was rewritten");
    let c = f.checkpoint("again");
    assert!(f.store.changes(&a.id, &c.id).unwrap().is_empty());
    assert_eq!(f.store.list().unwrap().len(), 3);
}

fn umask() -> u32 {
    let dir = tempfile::tempdir().unwrap();
    let probe = dir.path().join("probe");
    std::fs::create_dir(&probe).unwrap();
    use std::os::unix::fs::MetadataExt;
    0o777 & !std::fs::metadata(&probe).unwrap().mode()
}

#[test]
fn a_root_that_did_not_exist_is_restored_by_deleting_what_is_there() {
    let f = fixture();
    let file = f.ws.join("later.txt");
    let folder = f.ws.join("later-dir");
    let roots = vec![file.clone(), folder.clone()];
    let a = f.store.checkpoint(&roots, super::label("before")).unwrap();
    assert_eq!(a.files, 0);
    assert!(f.store.covers(&a.id, &file).unwrap());
    write(&file, "made by the call\n");
    write(&folder.join("x.txt"), "x\n");
    let b = f.store.checkpoint(&roots, super::label("after")).unwrap();
    let changes = f.store.changes(&a.id, &b.id).unwrap();
    assert_eq!(changes.iter().map(|c| c.path.clone()).collect::<Vec<_>>(), vec![folder.join("x.txt"), file.clone()]);
    let files: Vec<Restore> = changes.into_iter().map(|c| Restore { path: c.path, to: c.before }).collect();
    assert_eq!(f.store.restore(&files).unwrap().deleted, 2);
    assert!(!file.exists() && !folder.join("x.txt").exists());
}

#[test]
fn entry_and_covers_answer_per_path() {
    let f = fixture();
    write(&f.ws.join("a/b.txt"), "b\n");
    write(&f.ws.join("c.txt"), "c\n");
    let only_a = f.store.checkpoint(&[f.ws.join("a")], super::label("before")).unwrap();
    let entry = f.store.entry(&only_a.id, &f.ws.join("a/b.txt")).unwrap().unwrap();
    assert_eq!(f.store.read(&entry).unwrap(), b"b\n");
    assert_eq!(f.store.entry(&only_a.id, &f.ws.join("a/missing.txt")).unwrap(), None);
    assert!(f.store.covers(&only_a.id, &f.ws.join("a/missing.txt")).unwrap());
    assert!(!f.store.covers(&only_a.id, &f.ws.join("c.txt")).unwrap());
    assert_eq!(f.store.entry(&only_a.id, &f.ws.join("c.txt")).unwrap(), None);
    // A checkpoint of the whole workspace against one of `a` only: changes stay under `a`.
    write(&f.ws.join("c.txt"), "changed\n");
    write(&f.ws.join("a/b.txt"), "changed\n");
    let all = f.checkpoint("after");
    let changes = f.store.changes(&only_a.id, &all.id).unwrap();
    assert_eq!(changes.iter().map(|c| c.path.clone()).collect::<Vec<_>>(), vec![f.ws.join("a/b.txt")]);
    let reverse = f.store.changes(&all.id, &only_a.id).unwrap();
    assert_eq!(reverse.iter().map(|c| c.path.clone()).collect::<Vec<_>>(), vec![f.ws.join("a/b.txt")]);
    let got = f.store.get(&all.id).unwrap();
    assert_eq!(got.roots, vec![f.ws.clone()]);
    assert_eq!(got.label.why, "after");
    assert!(f.store.get(&airlock_checkpoint::CheckpointId("../../etc/passwd".into())).is_err());
}

#[test]
fn binary_and_large_files_count_as_binary() {
    let f = fixture();
    write(&f.ws.join("blob.bin"), [0u8, 1, 2, 3]);
    write(&f.ws.join("big.txt"), "x\n".repeat(600_000));
    let a = f.checkpoint("before");
    write(&f.ws.join("blob.bin"), [0u8, 1, 2, 4]);
    write(&f.ws.join("big.txt"), "y\n".repeat(600_000));
    let b = f.checkpoint("after");
    for change in f.store.changes(&a.id, &b.id).unwrap() {
        assert!(f.store.line_counts(&change).unwrap().binary, "{}", change.path.display());
    }
}

#[test]
fn restoring_a_checkpoint_twice_changes_nothing_the_second_time() {
    let f = fixture();
    write(&f.ws.join("a.txt"), "a\n");
    let a = f.checkpoint("before");
    write(&f.ws.join("a.txt"), "b\n");
    f.rewind_to(&a.id);
    assert_eq!(std::fs::read(f.ws.join("a.txt")).unwrap(), b"a\n");
    let seen: BTreeSet<_> = state(&f.ws).into_keys().collect();
    let again = f.rewind_to(&a.id);
    assert_eq!((again.written, again.deleted), (0, 0));
    assert_eq!(state(&f.ws).into_keys().collect::<BTreeSet<_>>(), seen);
}

#[test]
fn a_file_that_became_a_folder_and_a_folder_that_became_a_file_restore() {
    let f = fixture();
    let ws = &f.ws;
    write(&ws.join("config"), "key = 1\n");
    write(&ws.join("pkg/lib.rs"), "pub fn f() {}\n");
    let before = state(ws);
    let a = f.checkpoint("before");
    // `rm config && mkdir config && touch config/x`, and `rm -r pkg && echo > pkg`.
    std::fs::remove_file(ws.join("config")).unwrap();
    write(&ws.join("config/x"), "");
    write(&ws.join("config/deeper/y"), "y\n");
    std::fs::remove_dir_all(ws.join("pkg")).unwrap();
    write(&ws.join("pkg"), "now a file\n");
    let b = f.checkpoint("after");
    // The planner's restores in path order (`config` sorts before `config/x`), with the
    // folders the call made named after their files, to be removed once empty.
    let mut files: Vec<Restore> =
        f.store.changes(&a.id, &b.id).unwrap().into_iter().map(|c| Restore { path: c.path, to: c.before }).collect();
    files.push(Restore { path: ws.join("config/deeper"), to: None });
    files.sort_by(|x, y| x.path.cmp(&y.path));
    let done = f.store.restore(&files).unwrap();
    assert_eq!((done.written, done.deleted), (2, 4), "{done:?}");
    assert!(done.folders_left.is_empty(), "{done:?}");
    assert_eq!(state(ws), before);
}

#[test]
fn a_folder_the_call_made_is_removed_only_when_empty() {
    let f = fixture();
    let ws = &f.ws;
    let a = f.checkpoint("before");
    // `mkdir -p newpkg/src && write newpkg/src/a.rs`; the user adds notes/ meanwhile.
    write(&ws.join("newpkg/src/a.rs"), "fn a() {}\n");
    write(&ws.join("notes/todo.md"), "mine\n");
    let b = f.checkpoint("after");
    let mut files: Vec<Restore> = f
        .store
        .changes(&a.id, &b.id)
        .unwrap()
        .into_iter()
        .filter(|c| c.path.starts_with(ws.join("newpkg")))
        .map(|c| Restore { path: c.path, to: c.before })
        .collect();
    for folder in ["newpkg", "newpkg/src", "notes"] {
        files.insert(0, Restore { path: ws.join(folder), to: None });
    }
    let done = f.store.restore(&files).unwrap();
    assert_eq!(done.deleted, 3, "{done:?}");
    assert_eq!(done.folders_left, vec![ws.join("notes")]);
    assert!(!ws.join("newpkg").exists());
    assert_eq!(std::fs::read(ws.join("notes/todo.md")).unwrap(), b"mine\n");
}
