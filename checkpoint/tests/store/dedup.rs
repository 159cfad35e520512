//! Deduplication and the stat index: an unchanged tree costs (almost) nothing to keep and
//! is not read again; a damaged index or stray files in the store change no answer.

use std::time::{Duration, SystemTime};

use super::{fixture, write};

/// Bytes this thread has read through `read`-like calls so far (Linux's per-thread I/O
/// accounting), so a test can see whether a checkpoint read a file's content.
fn thread_read_bytes() -> u64 {
    let io = std::fs::read_to_string("/proc/thread-self/io").unwrap();
    io.lines().find_map(|l| l.strip_prefix("rchar: ")).unwrap().trim().parse().unwrap()
}

/// Makes the files' mtimes an hour old, as files not touched during the session are, and
/// waits until their ctimes (now) are past the index's racy window.
fn age(paths: &[std::path::PathBuf]) {
    let old = SystemTime::now() - Duration::from_secs(3600);
    for path in paths {
        std::fs::File::options().write(true).open(path).unwrap().set_modified(old).unwrap();
    }
    std::thread::sleep(Duration::from_millis(50));
}

fn tree(f: &super::Fixture) -> Vec<std::path::PathBuf> {
    let mut paths = Vec::new();
    for dir in 0..10 {
        for file in 0..20 {
            let path = f.ws.join(format!("dir{dir}/sub/file{file}.rs"));
            write(&path, format!("// file {dir}/{file}\n").repeat(40));
            paths.push(path);
        }
    }
    paths
}

#[test]
fn unchanged_files_are_not_read_again() {
    let f = fixture();
    let mut paths = Vec::new();
    for i in 0..8 {
        let path = f.ws.join(format!("big{i}.bin"));
        write(&path, vec![i as u8; 1 << 20]);
        paths.push(path);
    }
    age(&paths);
    f.checkpoint("first");
    let start = thread_read_bytes();
    f.checkpoint("second");
    let unchanged = thread_read_bytes() - start;
    assert!(unchanged < 256 << 10, "an unchanged checkpoint read {unchanged} bytes");
    // The same measure sees a changed file being read.
    write(&paths[3], vec![9u8; 1 << 20]);
    let start = thread_read_bytes();
    f.checkpoint("third");
    let changed = thread_read_bytes() - start;
    assert!(changed >= 1 << 20, "a changed file was not read ({changed} bytes)");
    assert!(changed < 2 << 20, "more than the changed file was read ({changed} bytes)");
}

#[test]
fn a_hundred_checkpoints_of_an_unchanged_tree_add_only_their_records() {
    let f = fixture();
    let paths = tree(&f);
    age(&paths);
    f.checkpoint("first");
    let objects = count_objects(&f);
    let start = f.store.usage().unwrap();
    for _ in 0..100 {
        f.checkpoint("again");
    }
    assert_eq!(count_objects(&f), objects);
    let per = (f.store.usage().unwrap() - start) / 100;
    assert!(per < 1024, "{per} bytes per unchanged checkpoint");
}

#[test]
fn a_hundred_small_edits_add_a_few_kib_each() {
    let f = fixture();
    let paths = tree(&f);
    age(&paths);
    f.checkpoint("first");
    let start = f.store.usage().unwrap();
    for turn in 0..100 {
        let path = &paths[(turn * 7) % paths.len()];
        let mut text = std::fs::read_to_string(path).unwrap();
        text.push_str(&format!("// edit {turn}\n"));
        write(path, text);
        f.checkpoint("after");
    }
    let per = (f.store.usage().unwrap() - start) / 100;
    assert!(per < 4096, "{per} bytes per small edit");
}

fn count_objects(f: &super::Fixture) -> usize {
    std::fs::read_dir(f.store.path().join("objects"))
        .unwrap()
        .map(|d| std::fs::read_dir(d.unwrap().path()).unwrap().count())
        .sum()
}

#[test]
fn a_damaged_index_and_stray_temporary_files_change_no_answer() {
    let f = fixture();
    let paths = tree(&f);
    age(&paths);
    let a = f.checkpoint("first");
    // Same size, content changed, times put back: only a read can tell.
    let victim = &paths[5];
    let old = std::fs::metadata(victim).unwrap().modified().unwrap();
    let text = std::fs::read_to_string(victim).unwrap().replace("file", "FILE");
    write(victim, &text);
    std::fs::File::options().write(true).open(victim).unwrap().set_modified(old).unwrap();
    let index = f.store.path().join("index");
    let mut bytes = std::fs::read(&index).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0xff;
    std::fs::write(&index, bytes).unwrap();
    std::fs::write(f.store.path().join("tmp/12345-0-0"), "half an object").unwrap();
    let store = airlock_checkpoint::Store::open(&f.home, &f.ws, f.store.settings().clone()).unwrap();
    let left: Vec<_> = std::fs::read_dir(f.store.path().join("tmp")).unwrap().map(|e| e.unwrap().path()).collect();
    assert!(left.is_empty(), "open cleans tmp/: {left:?}");
    let b = store.checkpoint(std::slice::from_ref(&f.ws), super::label("after")).unwrap();
    let changes = store.changes(&a.id, &b.id).unwrap();
    assert_eq!(changes.len(), 1);
    assert_eq!(&changes[0].path, victim);
    assert_eq!(store.read(changes[0].after.as_ref().unwrap()).unwrap(), text.as_bytes());
    // A damaged object is an error, never other content.
    let entry = changes[0].before.clone().unwrap();
    let object = f.store.path().join("objects").join(&entry.hash[..2]).join(&entry.hash[2..]);
    std::fs::write(&object, zstd_of(b"something else")).unwrap();
    assert!(store.read(&entry).is_err());
}

fn zstd_of(bytes: &[u8]) -> Vec<u8> {
    zstd::bulk::compress(bytes, 1).unwrap()
}
