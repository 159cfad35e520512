use std::path::Path;

use super::{Entry, FILE_NAME, Lock, SignatureRecord, Witnessed, WorkspaceRecords, check};

fn entry(sha256: &str) -> Entry {
    Entry {
        name: "csv-query".into(),
        version: "0.1.0".into(),
        source: "/src/csv_query.wasm".into(),
        sha256: sha256.into(),
        installed_at: 1,
        oci: None,
        signature: None,
    }
}

#[test]
fn a_file_loads_only_with_the_digest_it_was_installed_with() {
    let mut lock = Lock::default();
    lock.plugins.insert("csv-query.wasm".into(), entry("ab12"));
    assert_eq!(check(&lock, Path::new("/p/csv-query.wasm"), "ab12"), None);
    assert_eq!(check(&lock, Path::new("/p/csv-query.wasm"), "AB12"), None, "hex case does not matter");
    let refused = check(&lock, Path::new("/p/csv-query.wasm"), "ff00").unwrap_or_default();
    assert!(refused.contains("not loaded") && refused.contains("ff00") && refused.contains("ab12"), "{refused}");
    assert!(refused.contains("airlock plugins remove csv-query"), "{refused}");
    // A file dropped in by hand has no entry.
    assert_eq!(check(&lock, Path::new("/p/other.wasm"), "ff00"), None);
}

#[test]
fn the_lock_round_trips_and_an_empty_lock_removes_its_file() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let handle = airlock_files::open_user_dir(dir.path()).unwrap_or_else(|e| panic!("{e}"));
    assert!(Lock::read(dir.path()).is_ok_and(|l| l.plugins.is_empty()), "a missing lock is empty");
    let mut lock = Lock::default();
    lock.plugins.insert("csv-query.wasm".into(), entry("ab12"));
    lock.write_in(&handle).unwrap_or_else(|e| panic!("{e}"));
    let text = std::fs::read_to_string(dir.path().join(FILE_NAME)).unwrap_or_default();
    assert!(text.starts_with("# Written by `airlock plugins install`"), "{text}");
    let read = Lock::read_in(&handle, dir.path()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(read.entry("csv-query.wasm"), Some(&entry("ab12")));
    Lock::default().write_in(&handle).unwrap_or_else(|e| panic!("{e}"));
    assert!(!dir.path().join(FILE_NAME).exists());
    // Only the folder's own entries: no temporary file stays.
    assert_eq!(std::fs::read_dir(dir.path()).map(Iterator::count).unwrap_or(99), 0);
}

#[test]
fn a_damaged_lock_is_an_error_that_names_it() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(dir.path().join(FILE_NAME), "[plugins.\"x.wasm\"]\nname = 3\n").unwrap_or_else(|e| panic!("{e}"));
    let error = Lock::read(dir.path()).err().unwrap_or_default();
    assert!(error.contains(FILE_NAME), "{error}");
}

#[test]
fn a_workspace_locks_signatures_count_only_as_the_users_records_vouch() {
    let record = SignatureRecord { signer: "key a".into(), verified: "cosign".into() };
    let entry = |sha256: &str| Entry {
        name: "p".into(),
        version: "1".into(),
        source: "x".into(),
        sha256: sha256.into(),
        installed_at: 0,
        oci: None,
        signature: Some(record.clone()),
    };
    let dir = Path::new("/w/.airlock/plugins");
    let lock = |sha256: &str| Lock { plugins: [("p.wasm".to_owned(), entry(sha256))].into() };
    assert!(lock("aa").vouched(dir, None).plugins["p.wasm"].signature.is_none());
    let mut records = WorkspaceRecords::default();
    records.set(dir, "p.wasm", Some(Witnessed { sha256: "aa".into(), signature: record.clone() }));
    assert_eq!(lock("aa").vouched(dir, Some(&records)).plugins["p.wasm"].signature, Some(record.clone()));
    assert!(lock("bb").vouched(dir, Some(&records)).plugins["p.wasm"].signature.is_none());
    assert!(lock("aa").vouched(Path::new("/other"), Some(&records)).plugins["p.wasm"].signature.is_none());
}
