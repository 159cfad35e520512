//! What a checkpoint reads and what it leaves out: ignore rules, `.git`, caps, special files,
//! airlock's own folders.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use airlock_checkpoint::{Checkpoint, Settings};

use super::{chmod, fixture, fixture_with, state, write};

fn reason(checkpoint: &Checkpoint, path: &Path) -> Option<String> {
    checkpoint.left_out.iter().find(|l| l.path == path).map(|l| l.reason.clone())
}

fn held(f: &super::Fixture, checkpoint: &Checkpoint, path: &Path) -> bool {
    f.store.entry(&checkpoint.id, path).unwrap().is_some()
}

#[test]
fn nested_gitignore_files_and_negation_decide_what_is_held() {
    let f = fixture();
    let ws = &f.ws;
    std::fs::create_dir_all(ws.join(".git/info")).unwrap();
    write(&ws.join(".git/info/exclude"), "excluded.txt\n");
    write(&ws.join(".gitignore"), "*.log\n!keep.log\nbuild/\n");
    write(&ws.join("a.log"), "x");
    write(&ws.join("keep.log"), "x");
    write(&ws.join("excluded.txt"), "x");
    write(&ws.join("build/out.o"), "x");
    write(&ws.join("src/.gitignore"), "!debug.log\ngenerated.rs\n");
    write(&ws.join("src/debug.log"), "x");
    write(&ws.join("src/other.log"), "x");
    write(&ws.join("src/generated.rs"), "x");
    write(&ws.join("src/main.rs"), "x");
    let c = f.checkpoint("before");
    let ignored = Some("ignored by .gitignore".to_string());
    for path in ["a.log", "excluded.txt", "build", "src/other.log", "src/generated.rs"] {
        assert_eq!(reason(&c, &ws.join(path)), ignored, "{path}");
        assert!(!f.store.covers(&c.id, &ws.join(path)).unwrap(), "{path}");
    }
    assert_eq!(reason(&c, &ws.join("build/out.o")), None, "an ignored folder is one entry, not one per file");
    for path in ["keep.log", "src/debug.log", "src/main.rs", ".gitignore", "src/.gitignore"] {
        assert!(held(&f, &c, &ws.join(path)), "{path}");
    }
    // A root below the workspace still follows the ignore files above it.
    let src = f.store.checkpoint(&[ws.join("src")], super::label("before")).unwrap();
    assert_eq!(reason(&src, &ws.join("src/other.log")), ignored);
    assert!(held(&f, &src, &ws.join("src/debug.log")));
}

#[test]
fn an_ignored_target_folder_costs_one_entry_and_no_objects() {
    let f = fixture();
    write(&f.ws.join(".gitignore"), "/target\n");
    write(&f.ws.join("src/lib.rs"), "pub fn f() {}\n");
    for i in 0..200 {
        write(&f.ws.join(format!("target/debug/deps/lib{i}.rlib")), vec![i as u8; 64 << 10]);
    }
    let c = f.checkpoint("before");
    assert_eq!(c.left_out.len(), 1);
    assert_eq!(reason(&c, &f.ws.join("target")), Some("ignored by .gitignore".into()));
    assert!(f.store.usage().unwrap() < 64 << 10, "the ignored folder's files were stored");
}

#[test]
fn git_folders_are_never_read_or_written() {
    let f = fixture();
    let ws = &f.ws;
    write(&ws.join(".git/HEAD"), "ref: refs/heads/main\n");
    write(&ws.join(".git/objects/ab/cdef"), "object");
    write(&ws.join("vendor/lib/.git"), "gitdir: ../../.git/modules/lib\n");
    write(&ws.join("vendor/lib/lib.rs"), "x");
    write(&ws.join("main.rs"), "fn main() {}\n");
    // A walk that listed .git would leave this FIFO out by name (and one that opened it
    // would hang); one that read .git/objects would find it unreadable.
    rustix::fs::mknodat(
        rustix::fs::CWD,
        ws.join(".git/fifo"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    chmod(&ws.join(".git/objects"), 0o000);
    let a = f.checkpoint("before");
    chmod(&ws.join(".git/objects"), 0o755);
    assert_eq!(reason(&a, &ws.join(".git")), Some("the .git folder".into()));
    assert_eq!(reason(&a, &ws.join("vendor/lib/.git")), Some("the .git folder".into()));
    assert_eq!(a.left_out.len(), 2, "{:?}", a.left_out);
    assert!(held(&f, &a, &ws.join("vendor/lib/lib.rs")));
    let git_state = state(&ws.join(".git"));
    // A tool rewrites .git; rewinding never puts it back or removes it.
    write(&ws.join(".git/HEAD"), "ref: refs/heads/other\n");
    write(&ws.join("main.rs"), "changed");
    f.rewind_to(&a.id);
    assert_eq!(std::fs::read(ws.join(".git/HEAD")).unwrap(), b"ref: refs/heads/other\n");
    write(&ws.join(".git/HEAD"), "ref: refs/heads/main\n");
    assert_eq!(state(&ws.join(".git")), git_state);
    assert_eq!(std::fs::read(ws.join("main.rs")).unwrap(), b"fn main() {}\n");
    // A root that is a .git folder holds nothing.
    let git = f.store.checkpoint(&[ws.join(".git")], super::label("before")).unwrap();
    assert_eq!(git.files, 0);
    assert!(!f.store.covers(&git.id, &ws.join(".git/HEAD")).unwrap());
}

#[test]
fn caps_leave_files_out_and_say_why() {
    let f = fixture_with(Settings { max_file_bytes: 1000, max_files: 3, max_new_bytes: 2500, never: Vec::new() });
    write(&f.ws.join("big.bin"), vec![1u8; 1001]);
    for name in ["a", "b", "c", "d", "e"] {
        write(&f.ws.join(name), vec![name.as_bytes()[0]; 900]);
    }
    let c = f.checkpoint("before");
    assert_eq!(reason(&c, &f.ws.join("big.bin")).as_deref(), Some("over 1000 bytes"));
    assert!(held(&f, &c, &f.ws.join("a")) && held(&f, &c, &f.ws.join("b")));
    // Two files of new content fit in 2500 bytes, the third does not.
    assert_eq!(
        reason(&c, &f.ws.join("c")).as_deref(),
        Some("over the limit of 2500 bytes of new content per checkpoint")
    );
    assert!(!f.store.covers(&c.id, &f.ws.join("c")).unwrap());
    let c2 = f.checkpoint("again");
    // Now c's content is new again but a and b are known: c fits, then the file cap bites.
    assert!(held(&f, &c2, &f.ws.join("c")));
    assert_eq!(c2.files, 3);
    assert_eq!(reason(&c2, &f.ws.join("e")).as_deref(), Some("over the limit of 3 files per checkpoint"));
    // A rewind never deletes what a checkpoint left out.
    std::fs::remove_file(f.ws.join("a")).unwrap();
    write(&f.ws.join("e"), "changed");
    f.rewind_to(&c2.id);
    assert_eq!(std::fs::read(f.ws.join("a")).unwrap(), vec![b'a'; 900]);
    assert_eq!(std::fs::read(f.ws.join("e")).unwrap(), b"changed");
}

#[test]
fn fifos_sockets_and_unreadable_files_are_left_out_without_hanging() {
    let f = fixture();
    let fifo = f.ws.join("pipe");
    rustix::fs::mknodat(rustix::fs::CWD, &fifo, rustix::fs::FileType::Fifo, rustix::fs::Mode::from_raw_mode(0o600), 0)
        .unwrap();
    let socket = f.ws.join("sock");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    write(&f.ws.join("locked.txt"), "x");
    chmod(&f.ws.join("locked.txt"), 0o000);
    write(&f.ws.join("fine.txt"), "x");
    let c = f.checkpoint("before");
    assert_eq!(reason(&c, &fifo).as_deref(), Some("a FIFO, not a regular file"));
    assert_eq!(reason(&c, &socket).as_deref(), Some("a socket, not a regular file"));
    // (Root reads it anyway.)
    if std::fs::File::open(f.ws.join("locked.txt")).is_err() {
        assert!(reason(&c, &f.ws.join("locked.txt")).unwrap().starts_with("cannot be read"));
    }
    assert!(held(&f, &c, &f.ws.join("fine.txt")));
    // A FIFO named as a root is left out too.
    let root = f.store.checkpoint(std::slice::from_ref(&fifo), super::label("before")).unwrap();
    assert_eq!(reason(&root, &fifo).as_deref(), Some("a FIFO, not a regular file"));
    chmod(&f.ws.join("locked.txt"), 0o644);
}

#[test]
fn airlock_home_and_never_folders_are_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().canonicalize().unwrap();
    let home = ws.join(".airlock-home");
    std::fs::create_dir_all(&home).unwrap();
    write(&ws.join("private/creds"), "x");
    write(&ws.join("code.rs"), "x");
    let settings = Settings { never: vec![home.clone(), ws.join("private")], ..Settings::default() };
    let store = airlock_checkpoint::Store::open(&home, &ws, settings).unwrap();
    let c = store.checkpoint(std::slice::from_ref(&ws), super::label("before")).unwrap();
    let reasons: Vec<(PathBuf, String)> = c.left_out.iter().map(|l| (l.path.clone(), l.reason.clone())).collect();
    assert_eq!(
        reasons,
        vec![(home.clone(), "airlock's own files".into()), (ws.join("private"), "airlock's own files".into())]
    );
    assert_eq!(c.files, 1);
    // The store itself lives under the home, with private modes.
    let mode = std::fs::metadata(store.path()).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700);
}

#[test]
fn folders_walked_on_several_threads_say_everything_once_and_in_order() {
    let f = fixture_with(Settings { max_files: 25, ..Settings::default() });
    write(&f.ws.join(".gitignore"), "*.log\n");
    let mut all = Vec::new();
    for dir in 0..6 {
        for file in 0..6 {
            let path = f.ws.join(format!("d{dir}/f{file}.rs"));
            write(&path, format!("{dir}/{file}"));
            all.push(path);
        }
        write(&f.ws.join(format!("d{dir}/x.log")), "ignored");
    }
    let c = f.checkpoint("before");
    // `.gitignore` and 24 of the 36 files are held; the 12 others are each said.
    assert_eq!(c.files, 25);
    let mut said: Vec<PathBuf> = c.left_out.iter().map(|l| l.path.clone()).collect();
    let sorted = {
        let mut sorted = said.clone();
        sorted.sort();
        sorted
    };
    assert_eq!(said, sorted, "left out in the order of a walk on one thread");
    said.dedup();
    assert_eq!(said.len(), c.left_out.len(), "something was said twice");
    let logs = c.left_out.iter().filter(|l| l.reason == "ignored by .gitignore").count();
    assert_eq!(logs, 6);
    for path in &all {
        let is_held = held(&f, &c, path);
        let is_said = reason(&c, path).is_some_and(|r| r == "over the limit of 25 files per checkpoint");
        assert!(is_held != is_said, "{} is held {is_held} and said {is_said}", path.display());
    }
}
