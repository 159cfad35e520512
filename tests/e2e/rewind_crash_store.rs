//! Kill -9 inside the store itself: the loops of `rewind_crash` kill the real binary, where a
//! checkpoint or a restore is a small part of a run; here a child process does nothing but
//! checkpoint or restore through `airlock-checkpoint`, so every kill lands in the store's
//! code (writing objects, trees, the record, the temp files of a restore, their renames).
//!
//! The child is this test binary run again on the ignored test [`store_child`], told its job
//! through `AIRLOCK_CRASH_CHILD`. Seeds as in `rewind_crash` (`AIRLOCK_TEST_SEED`).

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use airlock_checkpoint::{CheckpointId, Label, Restore, Settings, Store};
use airlock_tests::trees::{Rng, check, checked, seed_from_env, text};
use serde_json::{Value, json};

use super::rewind_crash::{checked_files, files_under, kill_after, kills, store_reads_back, versions};
use super::session;

const CHILD: &str = "AIRLOCK_CRASH_CHILD";

/// Files the restore loop puts back.
const FILES: usize = 400;

fn label(why: &str) -> Label {
    Label { session: "crash".into(), prompt: 1, call: Some("c".into()), why: why.into() }
}

/// The child: checkpoints or restores as `AIRLOCK_CRASH_CHILD` says, until killed or done.
/// Does nothing when run without it (it is ignored, so only on purpose).
#[test]
#[ignore = "run by the loops below in a child process they kill"]
fn store_child() {
    let Ok(job) = std::env::var(CHILD) else { return };
    let job: Value = serde_json::from_str(&job).unwrap();
    let (home, workspace) =
        (PathBuf::from(job["home"].as_str().unwrap()), PathBuf::from(job["workspace"].as_str().unwrap()));
    let store = Store::open(&home, &workspace, Settings::default()).unwrap();
    match job["do"].as_str() {
        Some("checkpoint") => {
            let mut rng = Rng::new(job["seed"].as_u64().unwrap());
            for round in 0..4 {
                let folder = workspace.join(format!("new/{}-{round}", job["run"]));
                std::fs::create_dir_all(&folder).unwrap();
                for i in 0..50 {
                    let size = rng.log_size(200, 20_000);
                    let temp = folder.join(".t");
                    std::fs::write(&temp, checked(round, &text(&mut rng, size))).unwrap();
                    std::fs::rename(&temp, folder.join(format!("g{i:02}"))).unwrap();
                }
                store.checkpoint(std::slice::from_ref(&workspace), label("after")).unwrap();
            }
        }
        Some("restore") => {
            let id = CheckpointId(job["id"].as_str().unwrap().into());
            let plan: Vec<Restore> = files_under(&workspace.join("files"))
                .into_iter()
                .map(|f| {
                    let path = workspace.join("files").join(f);
                    Restore { to: store.entry(&id, &path).unwrap(), path }
                })
                .collect();
            store.restore(&plan).unwrap();
        }
        other => panic!("no such job: {other:?}"),
    }
}

/// This test binary, on [`store_child`], with `job`.
fn child(job: &Value) -> Command {
    let mut command = Command::new(std::env::current_exe().unwrap_or_else(|e| panic!("this test binary: {e}")));
    command
        .args(["rewind_crash_store::store_child", "--exact", "--ignored", "--test-threads", "1"])
        .env(CHILD, job.to_string());
    command
}

/// Runs the child to its end, failing with what it printed.
fn child_to_end(job: &Value, context: &str) -> Duration {
    let started = Instant::now();
    let out = child(job).output().unwrap_or_else(|e| panic!("{context}: the child: {e}"));
    assert!(out.status.success(), "{context}: the child failed: {}", String::from_utf8_lossy(&out.stdout));
    started.elapsed()
}

/// Kills a child that checkpoints a 1,000-file workspace while new files land in it (half
/// the runs with the store removed first, so the checkpoint writes every object afresh).
#[test]
fn kill_9_inside_a_checkpoint_leaves_a_store_that_opens_and_reads_back() {
    let seed = seed_from_env();
    let mut rng = Rng::new(seed);
    let s = session();
    let tree = checked_files(&s.workspace.join("src"), 1_000, 0, &mut rng);
    let originals: Vec<Vec<u8>> = tree.iter().map(|p| std::fs::read(p).unwrap_or_default()).collect();
    let job = |run: usize| json!({"do": "checkpoint", "home": s.airlock_home(), "workspace": s.workspace, "run": run, "seed": seed ^ run as u64});
    let store_dir = airlock_checkpoint::store_dir(&s.airlock_home(), &s.workspace);
    let mut cold = child_to_end(&job(0), &format!("seed {seed}, the whole run"));
    let _ = std::fs::remove_dir_all(&store_dir);
    for run in 1..=kills() {
        if run % 2 == 0 {
            let _ = std::fs::remove_dir_all(&store_dir);
        }
        let _ = std::fs::remove_dir_all(s.workspace.join("new"));
        let at = Duration::from_millis(rng.range(0, cold.as_millis() as u64 + 1));
        let context = format!("seed {seed}, run {run} killed at {} ms of {} ms", at.as_millis(), cold.as_millis());
        if let Some(ran) = kill_after(child(&job(run)), at) {
            cold = cold.min(ran);
        }
        store_reads_back(&s, &context);
        for (path, original) in tree.iter().zip(&originals) {
            let now = std::fs::read(path).unwrap();
            assert!(now == *original, "{context}: {} changed: {:?}", path.display(), check(&now));
        }
        // A later checkpoint over what the killed one left works and holds the tree.
        let store = Store::open(&s.airlock_home(), &s.workspace, Settings::default()).unwrap();
        let after = store.checkpoint(std::slice::from_ref(&s.workspace), label("next")).unwrap();
        let entry = store.entry(&after.id, &tree[0]).unwrap().unwrap_or_else(|| panic!("{context}: no entry"));
        assert_eq!(store.read(&entry).unwrap(), originals[0], "{context}");
    }
}

/// Kills a child restoring 400 files from version 2 to version 1 (fewer than the binary's
/// loop: each kill here is followed by a whole restore, and the unoptimised test build of the
/// store takes about 3 ms a file).
#[test]
fn kill_9_inside_a_restore_leaves_every_file_one_version_and_no_temp_file() {
    let seed = seed_from_env();
    let mut rng = Rng::new(seed);
    let s = session();
    let files = checked_files(&s.workspace.join("files"), FILES, 1, &mut rng);
    let store = Store::open(&s.airlock_home(), &s.workspace, Settings::default()).unwrap();
    let one = store.checkpoint(std::slice::from_ref(&s.workspace), label("before")).unwrap();
    let two: Vec<Vec<u8>> = files.iter().map(|_| checked(2, &text(&mut rng, 4_000))).collect();
    let set_two = || {
        for (path, body) in files.iter().zip(&two) {
            std::fs::write(path, body).unwrap();
        }
    };
    set_two();
    store.checkpoint(std::slice::from_ref(&s.workspace), label("after")).unwrap();
    drop(store);
    let expected: Vec<PathBuf> = files_under(&s.workspace);
    let job = json!({"do": "restore", "home": s.airlock_home(), "workspace": s.workspace, "id": one.id.0});
    let mut whole = child_to_end(&job, &format!("seed {seed}, the whole restore"));
    assert!(versions(&s.workspace.join("files"), "the whole restore").iter().all(|&v| v == 1));
    for run in 1..=kills() {
        set_two();
        let at = Duration::from_millis(rng.range(0, whole.as_millis() as u64 + 1));
        let context = format!("seed {seed}, restore {run} killed at {} ms of {} ms", at.as_millis(), whole.as_millis());
        if let Some(ran) = kill_after(child(&job), at) {
            whole = whole.min(ran);
        }
        let found = versions(&s.workspace.join("files"), &context);
        assert!(found.len() == FILES && found.iter().all(|&v| v == 1 || v == 2), "{context}: {found:?}");
        store_reads_back(&s, &context);
        let left: Vec<PathBuf> = files_under(&s.workspace).into_iter().filter(|f| !expected.contains(f)).collect();
        assert!(left.is_empty(), "{context}: stray files after the store opened: {left:?}");
        child_to_end(&job, &context);
        assert!(versions(&s.workspace.join("files"), &context).iter().all(|&v| v == 1), "{context}");
    }
}
