use std::io::Read;

use super::*;

#[test]
fn log_stops_at_its_limit_with_one_note() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("child.log");
    let mut log = Log::with_limit(create_log(&path).expect("log"), 10);
    log.append(b"12345678");
    log.append(b"abcdef");
    log.append(b"more and more");
    let mut text = String::new();
    std::fs::File::open(&path).expect("open").read_to_string(&mut text).expect("read");
    assert_eq!(text, "12345678ab\n[airlock: log truncated at 10 bytes]\n");
}

#[test]
fn log_is_new_private_and_never_through_a_link() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("child.log");
    create_log(&path).expect("a new log");
    assert_eq!(std::fs::metadata(&path).expect("log").permissions().mode() & 0o777, 0o600);
    assert!(create_log(&path).is_err(), "an existing log was reopened");
    let victim = dir.path().join("victim");
    std::fs::write(&victim, "keep").expect("victim");
    let link = dir.path().join("link.log");
    std::os::unix::fs::symlink(&victim, &link).expect("link");
    assert!(create_log(&link).is_err(), "a log was opened through a link");
    let dangling = dir.path().join("dangling.log");
    std::os::unix::fs::symlink(dir.path().join("created-through-link"), &dangling).expect("link");
    assert!(create_log(&dangling).is_err());
    assert!(!dir.path().join("created-through-link").exists());
    assert_eq!(std::fs::read_to_string(&victim).expect("victim"), "keep");
}
