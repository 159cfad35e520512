use super::record::{Body, End, ModeChange};
use super::verify::{heads, verify, walk};
use super::*;

const HEADER: &str =
    r#"{"type":"session","version":1,"id":"ab","started":"x","workspace":"/w","provider":"p","model":"m"}"#;

/// A session file with its header, and a trail of `n` mode records with a head after each.
fn session(n: u64) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::write(&path, format!("{HEADER}\n")).unwrap();
    let trail = Trail::open(&path).unwrap();
    for i in 0..n {
        let head = trail.append(&Body::Mode(ModeChange { mode: format!("m{i}") })).unwrap();
        let line = format!("{{\"type\":\"audit\",\"seq\":{},\"head\":\"{}\"}}\n", head.seq, head.hash);
        let mut file = OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(line.as_bytes()).unwrap();
    }
    (dir, path)
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(trail_path(path)).unwrap().lines().map(str::to_owned).collect()
}

fn rewrite(path: &Path, lines: &[String]) {
    std::fs::write(trail_path(path), lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
}

#[test]
fn a_written_chain_verifies_and_ties_to_the_header() {
    let (_dir, path) = session(4);
    let whole = verify(&path).unwrap().unwrap();
    assert_eq!(whole.records, 4);
    assert_eq!(whole.head.seq, 3);
    assert_eq!(whole.after_head, 0);
    let first: record::Chained = serde_json::from_str(&lines(&path)[0]).unwrap();
    assert_eq!(first.prev, record::digest(HEADER.as_bytes()));
    assert_eq!(first.seq, 0);
}

#[test]
fn keys_come_in_a_fixed_order() {
    let (_dir, path) = session(1);
    let line = &lines(&path)[0];
    assert!(line.starts_with(r#"{"type":"mode","seq":0,"prev":""#), "{line}");
    assert!(line.ends_with(r#","mode":"m0"}"#), "{line}");
}

#[test]
fn the_trail_file_is_private() {
    use std::os::unix::fs::PermissionsExt;
    let (_dir, path) = session(1);
    let mode = std::fs::metadata(trail_path(&path)).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
}

#[test]
fn a_changed_byte_names_that_record() {
    let (_dir, path) = session(4);
    let mut all = lines(&path);
    all[1] = all[1].replace("\"m1\"", "\"m9\"");
    rewrite(&path, &all);
    let broken = verify(&path).unwrap().unwrap_err();
    assert_eq!((broken.line, broken.seq), (2, Some(1)), "{broken}");
    assert!(broken.what.contains("changed"), "{broken}");
}

#[test]
fn a_changed_last_record_is_caught_by_the_head() {
    let (_dir, path) = session(3);
    let mut all = lines(&path);
    all[2] = all[2].replace("\"m2\"", "\"m7\"");
    rewrite(&path, &all);
    let broken = verify(&path).unwrap().unwrap_err();
    assert_eq!((broken.line, broken.seq), (3, Some(2)), "{broken}");
    assert!(broken.what.contains("head"), "{broken}");
}

#[test]
fn a_removed_record_is_a_gap() {
    let (_dir, path) = session(4);
    let mut all = lines(&path);
    all.remove(1);
    rewrite(&path, &all);
    let broken = verify(&path).unwrap().unwrap_err();
    assert_eq!((broken.line, broken.seq), (2, Some(2)), "{broken}");
    assert!(broken.what.contains("gap: seq 1 is missing"), "{broken}");
}

#[test]
fn swapped_records_are_out_of_order() {
    let (_dir, path) = session(4);
    let mut all = lines(&path);
    all.swap(1, 2);
    rewrite(&path, &all);
    let broken = verify(&path).unwrap().unwrap_err();
    assert_eq!((broken.line, broken.seq), (2, Some(2)), "{broken}");
    assert!(broken.what.contains("out of order"), "{broken}");
}

#[test]
fn a_removed_tail_is_caught_by_the_head() {
    let (_dir, path) = session(4);
    let mut all = lines(&path);
    all.pop();
    rewrite(&path, &all);
    let broken = verify(&path).unwrap().unwrap_err();
    assert!(broken.what.contains("tail was removed"), "{broken}");
    assert_eq!(broken.seq, Some(2));
}

#[test]
fn a_missing_head_is_named() {
    let (_dir, path) = session(2);
    std::fs::write(&path, format!("{HEADER}\n")).unwrap();
    let broken = verify(&path).unwrap().unwrap_err();
    assert!(broken.what.contains("no head"), "{broken}");
}

#[test]
fn a_mangled_head_or_a_removed_trail_is_broken_and_a_cut_last_head_is_not() {
    let (_dir, path) = session(2);
    let text = std::fs::read_to_string(&path).unwrap();
    // The last head line cut short by a crash: the heads before it still vouch.
    let cut = text.trim_end().rsplit_once('\n').map(|(before, last)| format!("{before}\n{}", &last[..last.len() / 2]));
    std::fs::write(&path, cut.unwrap()).unwrap();
    assert!(verify(&path).unwrap().is_ok(), "a partial last head is what a crash leaves");
    // A head line mangled in the middle of the file hides what it vouched for.
    std::fs::write(&path, text.replacen(r#""head":""#, r#""head":0,"x":""#, 1)).unwrap();
    let broken = verify(&path).unwrap().unwrap_err();
    assert!(broken.what.contains("does not parse"), "{broken}");
    // A trail removed while the session file holds its heads.
    std::fs::write(&path, &text).unwrap();
    std::fs::remove_file(trail_path(&path)).unwrap();
    let broken = verify(&path).unwrap().unwrap_err();
    assert!(broken.what.contains("trail file was removed"), "{broken}");
}

#[test]
fn another_sessions_trail_does_not_chain() {
    let (_dir, path) = session(2);
    let whole = std::fs::read(trail_path(&path)).unwrap();
    let heads = heads(&path).unwrap().unwrap();
    let broken = walk(b"{\"type\":\"session\",\"id\":\"other\"}", &whole, &heads).unwrap_err();
    assert_eq!((broken.line, broken.seq), (1, Some(0)), "{broken}");
}

#[test]
fn a_resumed_trail_continues_the_chain_and_cuts_a_partial_line() {
    let (_dir, path) = session(2);
    let mut file = OpenOptions::new().append(true).open(trail_path(&path)).unwrap();
    file.write_all(br#"{"type":"mode","seq":2,"pr"#).unwrap();
    // A partial last line is left out of the check, and said.
    assert!(verify(&path).unwrap().unwrap().partial_tail);
    let trail = Trail::open(&path).unwrap();
    assert_eq!(trail.head().map(|h| h.seq), Some(1));
    let head = trail.append(&Body::End(End {})).unwrap();
    assert_eq!(head.seq, 2);
    let mut session = OpenOptions::new().append(true).open(&path).unwrap();
    writeln!(session, "{{\"type\":\"audit\",\"seq\":2,\"head\":\"{}\"}}", head.hash).unwrap();
    let whole = verify(&path).unwrap().unwrap();
    assert_eq!((whole.records, whole.partial_tail), (3, false));
}

#[test]
fn records_after_the_last_head_are_counted() {
    let (_dir, path) = session(2);
    Trail::open(&path).unwrap().append(&Body::End(End {})).unwrap();
    let whole = verify(&path).unwrap().unwrap();
    assert_eq!((whole.records, whole.after_head), (3, 1));
}
