//! Unit tests of `leftovers.rs`.

use std::ffi::OsStr;
use std::os::unix::fs::symlink;

use super::*;

#[test]
fn only_airlocks_own_temporary_naming_counts() {
    for name in [".a.txt.airlock-1f.tmp", ".x.airlock-0123456789abcdef.tmp", "..install.airlock-ff.tmp"] {
        assert!(is_temp_name(name.as_bytes()), "{name}");
    }
    for name in
        ["a.txt", ".a.txt.tmp", ".airlock-1f.tmp", "a.txt.airlock-1f.tmp", ".a.airlock-xyz.tmp", ".a.airlock-.tmp"]
    {
        assert!(!is_temp_name(name.as_bytes()), "{name}");
    }
}

fn temp_in(dir: &Path, name: &str, contents: &str) -> TempFile {
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    TempFile::of(&File::open(&path).unwrap()).unwrap()
}

#[test]
fn a_noted_file_is_removed_only_while_it_is_the_same_file() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let kept = temp_in(&root, ".a.airlock-1.tmp", "partial");
    assert_eq!(kept.path, root.join(".a.airlock-1.tmp"));
    assert!(kept.remove());
    assert!(!root.join(".a.airlock-1.tmp").exists());
    // Another file under the same name since (renamed over it): left alone.
    let noted = temp_in(&root, ".b.airlock-2.tmp", "old");
    std::fs::write(root.join("other"), "someone else's").unwrap();
    std::fs::rename(root.join("other"), root.join(".b.airlock-2.tmp")).unwrap();
    assert!(!noted.remove());
    assert_eq!(std::fs::read_to_string(root.join(".b.airlock-2.tmp")).unwrap(), "someone else's");
    // A folder on its path swapped for a link: nothing is removed through it.
    std::fs::create_dir(root.join("sub")).unwrap();
    let deep = temp_in(&root.join("sub"), ".c.airlock-3.tmp", "x");
    std::fs::rename(root.join("sub"), root.join("sub_moved")).unwrap();
    symlink(root.join("sub_moved"), root.join("sub")).unwrap();
    assert!(!deep.remove());
    assert!(root.join("sub_moved/.c.airlock-3.tmp").exists());
    // A file not of airlock's naming is never noted.
    std::fs::write(root.join("plain.txt"), "x").unwrap();
    assert_eq!(TempFile::of(&File::open(root.join("plain.txt")).unwrap()), None);
}

#[test]
fn a_calls_files_go_with_it_and_a_dead_processs_journal_is_swept() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    {
        let mut temps = CallTemps::default();
        temps.add(temp_in(&root, ".a.airlock-1.tmp", "partial"));
        temps.add(temp_in(&root, ".b.airlock-2.tmp", "partial"));
        std::fs::rename(root.join(".b.airlock-2.tmp"), root.join("b")).unwrap();
    }
    assert!(!root.join(".a.airlock-1.tmp").exists(), "the call's leftover went with it");
    assert_eq!(std::fs::read_to_string(root.join("b")).unwrap(), "partial", "a file moved into place stays");

    // A journal no process holds, listing a file still there and one gone.
    let journals = root.join("home").join(JOURNAL_DIR);
    std::fs::create_dir_all(&journals).unwrap();
    let left = temp_in(&root, ".c.airlock-3.tmp", "cut short");
    let gone = TempFile { path: root.join(".d.airlock-4.tmp"), dev: left.dev, ino: 1 };
    let text = [left.line(), gone.line(), b"garbage\n".to_vec()].concat();
    std::fs::write(journals.join("1-dead.journal"), text).unwrap();
    // A journal held by a live process (this one) is not touched.
    let live = temp_in(&root, ".e.airlock-5.tmp", "mid-write");
    let held = File::create(journals.join("2-live.journal")).unwrap();
    rustix::fs::flock(&held, FlockOperation::LockExclusive).unwrap();
    std::fs::write(journals.join("2-live.journal"), live.line()).unwrap();
    assert_eq!(sweep(&journals), 1);
    assert!(!root.join(".c.airlock-3.tmp").exists());
    assert!(root.join(".e.airlock-5.tmp").exists(), "a live process's file was removed");
    let names: Vec<_> = std::fs::read_dir(&journals).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, [OsStr::new("2-live.journal")]);
    drop(held);
    assert_eq!(sweep(&journals), 1, "once its process is gone, the journal is swept too");
    assert!(!root.join(".e.airlock-5.tmp").exists());
}
