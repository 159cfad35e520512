use std::path::{Path, PathBuf};
use std::time::Duration;

use super::*;
use airlock_checkpoint::{Label, Settings};

/// A session file of `id` in `home`'s sessions folder, as a recorder writes its header.
fn session_file(home: &Path, id: &str) -> PathBuf {
    let dir = session::dir(home);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("2026-11-28T12-00-00.000Z-{id}.jsonl"));
    let header = format!(
        r#"{{"type":"session","version":1,"id":"{id}","started":"2026-11-28T12:00:00.000Z","workspace":"/w","provider":"p","model":"m"}}"#
    );
    std::fs::write(&path, format!("{header}\n")).unwrap();
    path
}

/// A checkpoint of a folder holding a file of 64 KiB, labelled with `session`.
fn checkpoint(store: &Store, workspace: &Path, session: &str) -> CheckpointId {
    let folder = workspace.join(session);
    std::fs::create_dir_all(&folder).unwrap();
    let body: String = (0..64 * 1024).map(|i| char::from(b'a' + ((i * 7 + session.len()) % 26) as u8)).collect();
    std::fs::write(folder.join("data.txt"), format!("{session}{body}")).unwrap();
    let label = Label { session: session.into(), prompt: 1, call: Some("c1".into()), why: "before".into() };
    store.checkpoint(&[folder], label).unwrap().id
}

#[test]
fn a_running_sessions_and_young_checkpoints_survive_a_collection_over_the_cap() {
    let (home, workspace) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let store = Store::open(home.path(), workspace.path(), Settings::default()).unwrap();
    let old = checkpoint(&store, workspace.path(), "ended");
    let live = checkpoint(&store, workspace.path(), "running");
    session_file(home.path(), "ended");
    let running = std::fs::File::open(session_file(home.path(), "running")).unwrap();
    // A recorder's lock: the session still runs.
    running.try_lock_shared().unwrap();
    let tiny = Retention { max_bytes: 1, max_age: Duration::from_secs(86_400) };

    // Every checkpoint is younger than the grace period: nothing goes.
    let keep = protected(home.path(), &store, None, GRACE).unwrap();
    assert!(keep.contains(&old) && keep.contains(&live), "{keep:?}");
    assert_eq!(store.gc(&tiny, &keep).unwrap().checkpoints_removed, 0);

    // Past the grace period, the running session's checkpoints still stay.
    let keep = protected(home.path(), &store, None, Duration::ZERO).unwrap();
    assert_eq!(keep, [live.clone()]);
    assert_eq!(store.gc(&tiny, &keep).unwrap().checkpoints_removed, 1);
    assert!(store.get(&live).is_ok());
    assert!(store.get(&old).is_err(), "the ended session's checkpoint goes");

    // Once it ends (its lock released), they are no longer protected.
    drop(running);
    assert!(protected(home.path(), &store, None, Duration::ZERO).unwrap().is_empty());
}
