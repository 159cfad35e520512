//! Retention: what a collection removes and keeps, and that what it keeps still restores.

use std::time::Duration;

use airlock_checkpoint::{CheckpointId, Retention};

use super::{fixture, state, write};

/// Incompressible bytes, different per seed.
fn noise(seed: u64, len: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(len);
    let mut counter = 0u64;
    while out.len() < len {
        out.extend_from_slice(blake3::hash(&[seed.to_le_bytes(), counter.to_le_bytes()].concat()).as_bytes());
        counter += 1;
    }
    out.truncate(len);
    out
}

const FOREVER: Duration = Duration::from_secs(3600 * 24 * 365);

#[test]
fn gc_removes_old_checkpoints_but_keeps_those_named_and_their_objects() {
    let f = fixture();
    let mut ids: Vec<CheckpointId> = Vec::new();
    let mut states = Vec::new();
    for round in 0..4u64 {
        write(&f.ws.join("data.bin"), noise(round, 50_000));
        write(&f.ws.join(format!("file{round}.txt")), format!("round {round}\n"));
        states.push(state(&f.ws));
        ids.push(f.checkpoint("before").id);
    }
    let before = f.store.usage().unwrap();
    let report = f.store.gc(&Retention { max_bytes: u64::MAX, max_age: Duration::ZERO }, &ids[1..2]).unwrap();
    assert_eq!(report.checkpoints_removed, 3);
    assert!(report.bytes_freed > 100_000, "{report:?}");
    assert_eq!(report.bytes_kept, f.store.usage().unwrap());
    assert!(f.store.usage().unwrap() < before);
    let left: Vec<CheckpointId> = f.store.list().unwrap().into_iter().map(|c| c.id).collect();
    assert_eq!(left, vec![ids[1].clone()]);
    assert!(f.store.get(&ids[0]).is_err());
    // What is kept restores whole.
    f.rewind_to(&ids[1]);
    assert_eq!(state(&f.ws), states[1]);
}

#[test]
fn gc_over_the_size_cap_drops_the_oldest_first_and_the_rest_restores() {
    let f = fixture();
    let mut ids = Vec::new();
    let mut states = Vec::new();
    for round in 0..6u64 {
        write(&f.ws.join("data.bin"), noise(round, 100_000));
        states.push(state(&f.ws));
        ids.push(f.checkpoint("before").id);
    }
    let young = Retention { max_bytes: 350_000, max_age: FOREVER };
    let report = f.store.gc(&young, &ids[0..1]).unwrap();
    // The first is kept (named), then the newest that fit: two more.
    let left: Vec<CheckpointId> = f.store.list().unwrap().into_iter().map(|c| c.id).collect();
    assert_eq!(left, vec![ids[0].clone(), ids[4].clone(), ids[5].clone()]);
    assert_eq!(report.checkpoints_removed, 3);
    assert!(f.store.usage().unwrap() <= 350_000);
    for (i, id) in [(0, &ids[0]), (4, &ids[4]), (5, &ids[5])] {
        f.rewind_to(id);
        assert_eq!(state(&f.ws), states[i], "checkpoint {i}");
    }
}

#[test]
fn gc_sweeps_objects_that_no_record_names() {
    let f = fixture();
    write(&f.ws.join("kept.txt"), "kept");
    let kept = f.checkpoint("before").id;
    write(&f.ws.join("orphan.bin"), noise(9, 80_000));
    let orphaned = f.checkpoint("before").id;
    // A checkpoint killed before its record was written leaves objects no record names.
    std::fs::remove_file(f.store.path().join("refs").join(&orphaned.0)).unwrap();
    let before = f.store.usage().unwrap();
    let report = f.store.gc(&Retention { max_bytes: u64::MAX, max_age: FOREVER }, &[]).unwrap();
    assert_eq!(report.checkpoints_removed, 0);
    assert!(before - f.store.usage().unwrap() > 70_000);
    assert!(f.store.entry(&kept, &f.ws.join("kept.txt")).unwrap().is_some());
    // The stat index was dropped with the objects: the next checkpoint stores the file again.
    let again = f.checkpoint("after");
    let entry = f.store.entry(&again.id, &f.ws.join("orphan.bin")).unwrap().unwrap();
    assert_eq!(f.store.read(&entry).unwrap(), noise(9, 80_000));
}

/// Writes `bytes` as a record under the name a record of those bytes has.
fn plant_record(f: &super::Fixture, bytes: &[u8]) -> String {
    let id = blake3::hash(bytes).to_hex().to_string();
    std::fs::write(f.store.path().join("refs").join(&id), bytes).unwrap();
    id
}

#[test]
fn gc_stops_at_a_record_of_a_newer_version_and_keeps_its_objects() {
    let f = fixture();
    write(&f.ws.join("data.bin"), noise(3, 80_000));
    let old = f.checkpoint("before").id;
    // A newer airlock wrote a record naming these objects; this one reads it as its own.
    let refs = f.store.path().join("refs");
    let text = std::fs::read_to_string(refs.join(&old.0)).unwrap();
    assert!(text.contains("\"version\":1"), "{text}");
    let newer = plant_record(&f, text.replace("\"version\":1", "\"version\":2").as_bytes());
    std::fs::remove_file(refs.join(&old.0)).unwrap();
    let before = f.store.usage().unwrap();
    let everything = Retention { max_bytes: 0, max_age: Duration::ZERO };
    let error = f.store.gc(&everything, &[]).unwrap_err();
    assert!(matches!(error, airlock_checkpoint::CheckpointError::Newer { version: 2, .. }), "{error}");
    assert!(error.to_string().contains(&newer), "{error}");
    assert_eq!(f.store.usage().unwrap(), before, "the collection removed something");
    assert!(refs.join(&newer).exists());
    assert!(f.store.get(&CheckpointId(newer)).is_err(), "a newer record is not read as this version's");
}

#[test]
fn gc_stops_at_a_record_it_cannot_parse_and_removes_nothing() {
    let f = fixture();
    write(&f.ws.join("data.bin"), noise(4, 80_000));
    let kept = f.checkpoint("before").id;
    write(&f.ws.join("data.bin"), noise(5, 80_000));
    let hidden = f.checkpoint("before").id;
    // The second record's file cannot be parsed now (a torn copy, a disk error): it still
    // names its objects for all the collection knows.
    let refs = f.store.path().join("refs");
    std::fs::remove_file(refs.join(&hidden.0)).unwrap();
    let torn = plant_record(&f, b"{\"version\":1,\"created\":");
    let before = f.store.usage().unwrap();
    let error = f.store.gc(&Retention { max_bytes: u64::MAX, max_age: FOREVER }, &[]).unwrap_err();
    assert!(error.to_string().contains(&torn), "{error}");
    assert_eq!(f.store.usage().unwrap(), before, "the collection removed something");
    // The listing skips it and goes on.
    let listed: Vec<CheckpointId> = f.store.list().unwrap().into_iter().map(|c| c.id).collect();
    assert_eq!(listed, vec![kept]);
}
