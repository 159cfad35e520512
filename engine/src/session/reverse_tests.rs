//! Unit tests of `reverse.rs`.

use std::io::Write;

use super::*;

fn lines_of(content: &[u8]) -> Vec<Vec<u8>> {
    let mut file = tempfile::tempfile().unwrap();
    file.write_all(content).unwrap();
    let mut reader = ReverseLines::new(file).unwrap();
    let mut lines = Vec::new();
    while let Some(line) = reader.next_line().unwrap() {
        lines.push(line);
    }
    lines
}

#[test]
fn yields_lines_last_first_skipping_empty_ones() {
    assert_eq!(lines_of(b"a\nbb\n\nccc\n"), [b"ccc".to_vec(), b"bb".to_vec(), b"a".to_vec()]);
    assert_eq!(lines_of(b"a\nno newline"), [b"no newline".to_vec(), b"a".to_vec()]);
    assert!(lines_of(b"").is_empty());
}

#[test]
fn assembles_lines_longer_than_a_block() {
    let long = vec![b'x'; BLOCK * 3 + 17];
    let mut content = b"first\n".to_vec();
    content.extend(&long);
    content.extend(b"\nlast\n");
    assert_eq!(lines_of(&content), [b"last".to_vec(), long, b"first".to_vec()]);
}
