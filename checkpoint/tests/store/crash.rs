//! Kill -9 at random moments of checkpoints, restores and collections: every workspace file
//! stays whole (one version or the other) and the store opens and answers for every record.
//!
//! The parent test re-runs this test binary as a child (`child_checkpoint_restore_loop`,
//! selected by name and by `AIRLOCK_CK_CHILD`), which loops restoring two versions of a tree
//! and checkpointing them, and kills it.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use airlock_checkpoint::{Restore, Retention, Settings, Store};

use super::label;

const CHILD: &str = "AIRLOCK_CK_CHILD";
const KILLS: u32 = 60;

/// A file's content: its payload, then a line with the payload's blake3, so a half-written
/// file is seen.
fn content(version: &str, index: usize) -> Vec<u8> {
    let line = format!("{version} file {index} ");
    let payload = line.repeat(1 + (index * 397) % 4000).into_bytes();
    let mut out = payload.clone();
    out.extend_from_slice(format!("\n#{}\n", blake3::hash(&payload).to_hex()).as_bytes());
    out
}

fn whole(bytes: &[u8]) -> bool {
    let Some(at) = bytes.windows(2).rposition(|w| w == b"\n#") else { return false };
    let (payload, sum) = (&bytes[..at], &bytes[at + 2..]);
    sum.strip_suffix(b"\n") == Some(blake3::hash(payload).to_hex().as_bytes())
}

/// Version A: files 0..40; version B: files 10..50 with other content and modes.
fn write_version(ws: &Path, version: &str) {
    let (range, mode) = if version == "A" { (0..40, 0o644) } else { (10..50, 0o755) };
    for i in 0..50 {
        let path = ws.join(format!("d{}/f{i}", i % 5));
        if range.contains(&i) {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, content(version, i)).unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        } else if path.exists() {
            std::fs::remove_file(&path).unwrap();
        }
    }
}

fn open(root: &Path) -> Store {
    Store::open(&root.join("home"), &root.join("ws"), Settings::default()).unwrap()
}

#[test]
fn child_checkpoint_restore_loop() {
    let Some(root) = std::env::var_os(CHILD).map(PathBuf::from) else { return };
    let store = open(&root);
    let ws = root.join("ws");
    let list = store.list().unwrap();
    let a = list.iter().find(|c| c.label.why == "A").unwrap().id.clone();
    let b = list.iter().find(|c| c.label.why == "B").unwrap().id.clone();
    let changes = store.changes(&a, &b).unwrap();
    let to_b: Vec<Restore> = changes.iter().map(|c| Restore { path: c.path.clone(), to: c.after.clone() }).collect();
    let to_a: Vec<Restore> = changes.iter().map(|c| Restore { path: c.path.clone(), to: c.before.clone() }).collect();
    std::fs::write(root.join("started"), "").unwrap();
    for round in 0.. {
        store.restore(&to_b).unwrap();
        store.checkpoint(std::slice::from_ref(&ws), label("loop")).unwrap();
        store.restore(&to_a).unwrap();
        store.checkpoint(std::slice::from_ref(&ws), label("loop")).unwrap();
        if round % 5 == 4 {
            store.gc(&Retention { max_bytes: u64::MAX, max_age: Duration::ZERO }, &[a.clone(), b.clone()]).unwrap();
        }
    }
}

#[test]
fn kill_nine_during_checkpoint_restore_and_gc_leaves_files_whole_and_the_store_readable() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let ws = root.join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    {
        let store = open(&root);
        write_version(&ws, "A");
        store.checkpoint(std::slice::from_ref(&ws), label("A")).unwrap();
        write_version(&ws, "B");
        store.checkpoint(std::slice::from_ref(&ws), label("B")).unwrap();
        write_version(&ws, "A");
    }
    let mut in_flight = 0;
    for kill in 0..KILLS {
        let _ = std::fs::remove_file(root.join("started"));
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "crash::child_checkpoint_restore_loop", "--nocapture", "--test-threads=1"])
            .env(CHILD, &root)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let begun = Instant::now();
        while !root.join("started").exists() {
            assert!(begun.elapsed() < Duration::from_secs(60), "the child never started");
            assert!(child.try_wait().unwrap().is_none(), "the child stopped on its own");
            std::thread::sleep(Duration::from_millis(1));
        }
        let seed = blake3::hash(&[u64::from(kill).to_le_bytes(), nanos().to_le_bytes()].concat());
        let wait = u64::from_le_bytes(seed.as_bytes()[..8].try_into().unwrap()) % 150;
        std::thread::sleep(Duration::from_millis(wait));
        child.kill().unwrap();
        child.wait().unwrap();
        if journal_exists(&root) {
            in_flight += 1;
        }
        check(&root, kill);
    }
    assert!(in_flight > 0, "no kill landed during a restore");
}

fn nanos() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64
}

fn journal_exists(root: &Path) -> bool {
    let store = airlock_checkpoint::store_dir(&root.join("home"), &root.join("ws"));
    store.join("journal").exists()
}

/// Every file whole and of version A or B; the store opens, removes the restore's
/// temporary files, and answers for every record.
fn check(root: &Path, kill: u32) {
    let ws = root.join("ws");
    for i in 0..50 {
        let path = ws.join(format!("d{}/f{i}", i % 5));
        let Ok(bytes) = std::fs::read(&path) else { continue };
        assert!(whole(&bytes), "kill {kill}: {} is not whole", path.display());
        assert!(bytes == content("A", i) || bytes == content("B", i), "kill {kill}: {} is neither", path.display());
    }
    let store = open(root);
    for d in 0..5 {
        for entry in std::fs::read_dir(ws.join(format!("d{d}"))).unwrap() {
            let name = entry.unwrap().file_name();
            assert!(!name.to_string_lossy().contains(".airlock-"), "kill {kill}: {name:?} was left behind");
        }
    }
    let list = store.list().unwrap();
    let a = list.iter().find(|c| c.label.why == "A").unwrap().id.clone();
    for checkpoint in &list {
        store.get(&checkpoint.id).unwrap();
        for change in store.changes(&a, &checkpoint.id).unwrap() {
            if let Some(entry) = &change.after {
                assert!(whole(&store.read(entry).unwrap()), "kill {kill}: a stored file is not whole");
            }
        }
    }
}

#[test]
fn two_sessions_and_a_collection_in_one_workspace_take_turns() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let ws = root.join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let first = open(&root);
    write_version(&ws, "A");
    let a = first.checkpoint(std::slice::from_ref(&ws), label("A")).unwrap().id;
    write_version(&ws, "B");
    let b = first.checkpoint(std::slice::from_ref(&ws), label("B")).unwrap().id;
    let changes = first.changes(&a, &b).unwrap();
    let to_a: Vec<Restore> = changes.iter().map(|c| Restore { path: c.path.clone(), to: c.before.clone() }).collect();
    let to_b: Vec<Restore> = changes.iter().map(|c| Restore { path: c.path.clone(), to: c.after.clone() }).collect();
    std::thread::scope(|scope| {
        for (n, target) in [(0, &to_a), (1, &to_b)] {
            let (root, ws, keep) = (&root, &ws, [a.clone(), b.clone()]);
            scope.spawn(move || {
                let store = open(root);
                for round in 0..20 {
                    store.restore(target).unwrap();
                    store.checkpoint(std::slice::from_ref(ws), label("loop")).unwrap();
                    if round % 7 == n {
                        store.gc(&Retention { max_bytes: u64::MAX, max_age: Duration::ZERO }, &keep).unwrap();
                    }
                }
            });
        }
    });
    check(&root, 0);
    // Each session's restores were whole: the tree is all A or all B.
    let after = open(&root).checkpoint(std::slice::from_ref(&ws), label("end")).unwrap().id;
    let now = open(&root);
    assert!(now.changes(&a, &after).unwrap().is_empty() || now.changes(&b, &after).unwrap().is_empty());
}
