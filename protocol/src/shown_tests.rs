//! Unit tests of `shown.rs`. The sanitiser's own attack tests run in the host
//! (`host/src/sanitize_tests.rs`), which re-exports it; these pin what [`Shown`] adds.

use super::*;

/// Every character the sanitiser must never let through raw, one of each family.
const ATTACKS: &str = "a\u{1b}[2J\u{1b}]52;c;ZXZpbA==\u{7}b\u{9b}31m\u{85}\u{7f}\u{202e}gpj.exe\u{2066}\u{2069}\u{200b}\u{feff}\u{ad}\u{e0041}\r";

fn assert_clean(text: &str, allowed: &[char]) {
    for c in text.chars() {
        assert!(!is_hidden(c) || allowed.contains(&c), "raw {c:?} in {text:?}");
    }
}

#[test]
fn a_shown_built_any_way_holds_no_hidden_character() {
    assert_clean(&Shown::line(ATTACKS), &[]);
    assert_clean(&Shown::from(ATTACKS), &[]);
    assert_clean(&Shown::from(ATTACKS.to_string()), &[]);
    assert_clean(&Shown::line_bounded(ATTACKS, 5), &[]);
    let block = Shown::block(&format!("{ATTACKS}\n\t{ATTACKS}\n"));
    assert_clean(&block, &['\n', '\t']);
    assert_eq!(block.lines().count(), 2, "{block}");
    assert_clean(&Shown::block_bounded(ATTACKS, 1), &[]);
}

#[test]
fn reading_a_shown_from_json_sanitises_it() {
    let json = serde_json::to_string(ATTACKS).unwrap();
    let shown: Shown = serde_json::from_str(&json).unwrap();
    assert_clean(&shown, &['\n', '\t']);
    assert!(shown.starts_with("a\\x1b[2J\\x1b]52;c;ZXZpbA==\\x07b\\u{9b}31m"), "{shown}");
    assert!(shown.contains("\\u{202e}gpj.exe\\u{2066}\\u{2069}"), "{shown}");
    // A line break survives as a line break, never as a carriage return.
    let shown: Shown = serde_json::from_str("\"one\\r\\ntwo\\rthree\"").unwrap();
    assert_eq!(shown.as_str(), "one\ntwo\\rthree");
}

#[test]
fn a_shown_serialises_as_the_plain_string_and_reads_back_unchanged() {
    let shown = Shown::block("ok \u{1b}[31m\nnext\u{202e}");
    let json = serde_json::to_string(&shown).unwrap();
    assert_eq!(json, "\"ok \\\\x1b[31m\\nnext\\\\u{202e}\"");
    let back: Shown = serde_json::from_str(&json).unwrap();
    assert_eq!(back, shown);
}

#[test]
fn sanitising_twice_changes_nothing() {
    for text in [ATTACKS, "plain", "tabs\tand\nlines\r\n"] {
        assert_eq!(line(&line(text)), line(text));
        assert_eq!(block(&block(text)), block(text));
        assert_eq!(stream(&stream(text)), stream(text));
    }
    let many = "x\n".repeat(MAX_BLOCK_LINES);
    assert_eq!(block(&block(&many)), block(&many));
    // A line that escapes made longer than the bound reads back whole from JSON.
    let long = Shown::line(&"é\u{1b}".repeat(3000));
    let back: Shown = serde_json::from_str(&serde_json::to_string(&long).unwrap()).unwrap();
    assert_eq!(back, long);
}

#[test]
fn the_ui_clean_gaps_are_closed() {
    // The composer's own cleaner let the bidi override and isolates through: each is made
    // visible here.
    for c in
        ['\u{202a}', '\u{202b}', '\u{202c}', '\u{202d}', '\u{202e}', '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}']
    {
        let shown = Shown::line(&format!("x{c}y"));
        assert_eq!(shown.as_str(), format!("x\\u{{{:x}}}y", c as u32));
    }
}
