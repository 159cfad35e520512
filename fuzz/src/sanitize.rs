//! The one sanitiser for untrusted text on a terminal, and the quoting of words in the
//! commands airlock prints for a person to paste.
//!
//! Checks, against the module's contract written out here on its own (not through
//! `is_hidden`): `line` holds no control, bidi or invisible character and is bounded;
//! `block` holds none but newlines and tabs, and is bounded in lines; `stream` holds no
//! control but newlines and tabs, and no bidi control. A word quoted by `shell_word` (or
//! `grant_flag`) reads back, through the gate's own reader of bash, as that very word.

use airlock_engine::sanitize::{self, MAX_BLOCK_LINES, MAX_LINE_CHARS};
use airlock_shell::{self as shell, Word};

/// The most characters one character becomes once made visible (`\u{e007f}`).
const ESCAPED_CHARS: usize = 9;

pub fn run(data: &[u8]) {
    let text = String::from_utf8_lossy(data);

    let line = sanitize::line(&text);
    if let Some(c) = line.chars().find(|&c| hidden(c) || sanitize::is_hidden(c)) {
        panic!("line() let {c:?} through");
    }
    assert!(line.chars().count() <= MAX_LINE_CHARS * ESCAPED_CHARS + 1, "line() is not bounded");

    let block = sanitize::block(&text);
    if let Some(c) = block.chars().find(|&c| c != '\n' && c != '\t' && (hidden(c) || sanitize::is_hidden(c))) {
        panic!("block() let {c:?} through");
    }
    assert!(block.split('\n').count() <= MAX_BLOCK_LINES + 2, "block() is not bounded");

    let stream = sanitize::stream(&text);
    if let Some(c) = stream.chars().find(|&c| c != '\n' && c != '\t' && (c.is_control() || bidi(c))) {
        panic!("stream() let {c:?} through");
    }

    read_back(&sanitize::shell_word(&text), std::slice::from_ref(&text.to_string()));
    let flag = sanitize::grant_flag("--files", &text);
    if text.starts_with('-') {
        read_back(&flag, &[format!("--files={text}")]);
    } else {
        read_back(&flag, &["--files".to_string(), text.to_string()]);
    }
}

/// Checks that `echo {quoted}` reads as `echo` and then the words `expected`.
fn read_back(quoted: &str, expected: &[String]) {
    let Ok(line) = shell::parse(&format!("echo {quoted}")) else { return };
    let words = line.commands.first().map(|c| c.words.clone()).unwrap_or_default();
    assert_eq!(words.len(), expected.len() + 1, "{quoted} reads back as other words: {words:?}");
    for (word, expected) in words[1..].iter().zip(expected) {
        match word {
            // A word holding `$(`, `${` or a backtick is dynamic by design (builtins evaluate it).
            Word::Dynamic(_) => {}
            Word::Literal(read) => assert_eq!(read, expected, "{quoted} reads back as {read:?}"),
        }
    }
}

/// The characters the contract says `line` never returns, listed from the contract.
fn hidden(c: char) -> bool {
    c.is_control()
        || bidi(c)
        || matches!(
            c,
            '\u{00AD}'
                | '\u{200B}'..='\u{200D}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{2060}'..='\u{2064}'
                | '\u{FEFF}'
                | '\u{FE00}'..='\u{FE0F}'
                | '\u{E0000}'..='\u{E007F}'
                | '\u{E0100}'..='\u{E01EF}'
        )
}

/// The bidi controls the contract names.
fn bidi(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}
