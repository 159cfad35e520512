//! Unit tests of `store.rs`.

use super::*;

#[test]
fn reads_ids_from_file_names() {
    let name = file_name("2025-03-09T14:05:07.042Z", "ab12");
    assert_eq!(name, "2025-03-09T14-05-07.042Z-ab12.jsonl");
    assert_eq!(id_of(Path::new(&name)), Some("ab12"));
    assert_eq!(id_of(Path::new("notes.txt")), None);
    assert_eq!(id_of(Path::new("x-.jsonl")), None);
    assert_eq!(id_of(Path::new("2025-03-09T14-05-07.042Z-ab12.audit.jsonl")), None);
}

#[test]
fn excerpts_are_one_short_line() {
    assert_eq!(excerpt("fix\n  the   bug"), "fix the bug");
    let long = "é".repeat(100);
    assert_eq!(excerpt(&long), format!("{}…", "é".repeat(EXCERPT_CHARS)));
}
