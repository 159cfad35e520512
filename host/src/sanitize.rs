//! The one sanitiser for untrusted text shown to a person on a terminal: whatever a plugin,
//! the model or a repository wrote (names, descriptions, errors, confirmations, paths, load
//! problems, `AIRLOCK.md`) passes through here before it reaches stdout or stderr as text.
//! JSON outputs (`-o json`, `-o stream-json`, `--json`) are data, not terminal text: JSON
//! escaping already covers control characters there, so they are not passed through here.
//!
//! # Contract
//!
//! - [`line`] returns one line: it contains no character for which [`is_hidden`] holds —
//!   no C0 control (so no newline, carriage return, tab or ESC, hence no escape sequence),
//!   no DEL, no C1 control, no bidi control (U+061C, U+200E/F, U+202A–U+202E,
//!   U+2066–U+2069), and no zero-width or invisible character (U+200B–U+200D, U+2060–U+2064,
//!   U+FEFF, soft hyphen, variation selectors, tag characters, line/paragraph separators,
//!   …). Each such character is *made visible* instead of dropped, as `\n`, `\r`, `\t`,
//!   `\x1b` (other ASCII controls) or `\u{202e}` (the rest), so a reader sees that it was
//!   there. The result has at most [`MAX_LINE_CHARS`] characters of the original, then `…`.
//! - [`block`] is for multi-line text (diffs, `--show-context`): newlines are kept (a
//!   `\r\n` pair counts as one newline), tabs are kept, every line is cleaned and bounded as
//!   by [`line`], and at most [`MAX_BLOCK_LINES`] lines are shown, then one line saying how
//!   many were left out.
//! - [`stream`] is for the model's answer as it streams: control characters (C0 but newline
//!   and tab, DEL, C1) and bidi controls are made visible; zero-width joiners and variation
//!   selectors are kept because emoji and scripts need them in prose. Not bounded (the caller
//!   prints deltas).
//! - [`shell_word`] quotes one argument of a command printed for a person to paste: it is
//!   returned as is only when made of characters no POSIX shell treats specially
//!   (`A-Za-z0-9` and `_-./:,=+@%`), else single-quoted with `'` written as `'\''`; the
//!   shell then hands airlock exactly the original string as one argument. [`grant_flag`]
//!   builds `--flag VALUE` for a suggested `airlock plugins grant` command, using
//!   `--flag=VALUE` when the value starts with `-` so it can never be read as a flag.
//!
//! Printing a sanitised string must be the last step: code that adds its own text around it
//! adds only trusted text.

use std::fmt::Write as _;

/// Most characters of one line shown; the rest is replaced by `…`.
pub const MAX_LINE_CHARS: usize = 1000;
/// Most lines of a block shown.
pub const MAX_BLOCK_LINES: usize = 2000;

/// Whether `c` can move the cursor, change the terminal's state, reorder the text around it
/// or hide itself: such a character is never printed raw.
pub fn is_hidden(c: char) -> bool {
    c.is_control() || is_bidi(c) || is_invisible(c)
}

/// Bidi formatting characters (Trojan Source, CVE-2021-42574).
fn is_bidi(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Characters that take no room or look like nothing: they hide text or make two names look
/// alike.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{115F}'
            | '\u{1160}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200D}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{2060}'..='\u{2064}'
            | '\u{206A}'..='\u{206F}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{FFF9}'..='\u{FFFB}'
            | '\u{E0000}'..='\u{E007F}'
            | '\u{E0100}'..='\u{E01EF}'
    )
}

/// Writes `c` made visible.
fn escape(c: char, out: &mut String) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if (c as u32) < 0x80 => {
            let _ = write!(out, "\\x{:02x}", c as u32);
        }
        c => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
}

/// `text` as one safe, bounded line (see the module's contract).
pub fn line(text: &str) -> String {
    line_bounded(text, MAX_LINE_CHARS)
}

/// [`line`] with its own bound, for a field a person reviews whole (a parameter schema).
pub fn line_bounded(text: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max_chars * 2));
    for (count, c) in text.chars().enumerate() {
        if count == max_chars {
            out.push('…');
            break;
        }
        if is_hidden(c) { escape(c, &mut out) } else { out.push(c) }
    }
    out
}

/// `text` as safe lines: newlines and tabs kept, each line bounded, the line count bounded.
pub fn block(text: &str) -> String {
    block_bounded(text, MAX_BLOCK_LINES)
}

/// [`block`] with its own bound on the number of lines.
pub fn block_bounded(text: &str, max_lines: usize) -> String {
    let mut out = String::with_capacity(text.len().min(1 << 20));
    let mut lines = text.split('\n');
    let ends_with_newline = text.ends_with('\n');
    let total = text.split('\n').count() - usize::from(ends_with_newline);
    for (index, raw) in lines.by_ref().enumerate() {
        if index == total {
            break;
        }
        if index == max_lines {
            let _ = writeln!(out, "… ({} more lines not shown)", total - max_lines);
            return out;
        }
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        // Tabs are layout, not control, in a block: clean the pieces between them.
        let cleaned: Vec<String> = raw.split('\t').map(line).collect();
        out.push_str(&cleaned.join("\t"));
        if index + 1 < total || ends_with_newline {
            out.push('\n');
        }
    }
    out
}

/// The model's streamed answer made safe for a terminal (see the module's contract).
pub fn stream(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c != '\n' && c != '\t' && (c.is_control() || is_bidi(c)) { escape(c, &mut out) } else { out.push(c) }
    }
    out
}

/// One argument of a printed shell command, quoted when needed (see the module's contract).
pub fn shell_word(arg: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-./:,=+@%".contains(c);
    if !arg.is_empty() && arg.chars().all(plain) {
        return arg.to_string();
    }
    format!("'{}'", arg.replace('\'', r"'\''"))
}

/// `--flag VALUE` for a printed command, `VALUE` quoted; `--flag=VALUE` when the value
/// starts with `-`.
pub fn grant_flag(flag: &str, value: &str) -> String {
    let word = shell_word(value);
    if value.starts_with('-') { format!("{flag}={word}") } else { format!("{flag} {word}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No raw control, bidi or invisible character, except the ones `allowed`.
    fn assert_clean(text: &str, allowed: &[char]) {
        for c in text.chars() {
            assert!(!is_hidden(c) || allowed.contains(&c), "raw {c:?} in {text:?}");
        }
    }

    #[test]
    fn escape_sequences_are_made_visible_not_sent() {
        for attack in
            ["\x1b[2J\x1b[H", "\x1b]0;title\x07", "\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\", "\x1bP+q\x1b\\"]
        {
            let shown = line(attack);
            assert_clean(&shown, &[]);
            assert!(shown.contains("\\x1b"), "{shown}");
        }
        assert_eq!(line("a\x1b[31mred"), "a\\x1b[31mred");
    }

    #[test]
    fn c1_controls_and_del_are_made_visible() {
        // U+009B is the 8-bit CSI: some terminals act on it like ESC [.
        let shown = line("a\u{9b}31mb\u{85}c\u{7f}d\u{90}");
        assert_eq!(shown, "a\\u{9b}31mb\\u{85}c\\x7fd\\u{90}");
        assert_clean(&shown, &[]);
    }

    #[test]
    fn a_newline_or_carriage_return_cannot_forge_a_line() {
        let forged = "oops\r✓ read_file · secrets (1.0 ms)\n✓ read_file · README.md (0.3 ms)";
        let shown = line(forged);
        assert!(!shown.contains('\n') && !shown.contains('\r'), "{shown}");
        assert!(shown.contains("\\r✓ read_file") && shown.contains("\\n✓ read_file"), "{shown}");
        assert_eq!(line("a\tb"), "a\\tb");
    }

    #[test]
    fn bidi_controls_are_made_visible() {
        for c in ['\u{202A}', '\u{202B}', '\u{202C}', '\u{202D}', '\u{202E}', '\u{2066}', '\u{2067}', '\u{2068}'] {
            let shown = line(&format!("name{c}gpj.exe"));
            assert_clean(&shown, &[]);
            assert!(shown.contains(&format!("\\u{{{:x}}}", c as u32)), "{shown}");
        }
        for c in ['\u{2069}', '\u{200E}', '\u{200F}', '\u{061C}'] {
            assert_clean(&line(&c.to_string()), &[]);
            assert_clean(&stream(&c.to_string()), &[]);
        }
        assert_eq!(line("read\u{202e}elif"), "read\\u{202e}elif");
    }

    #[test]
    fn zero_width_and_invisible_characters_are_made_visible() {
        let lookalike = "read\u{200b}_file\u{200c}\u{200d}\u{2060}\u{feff}\u{ad}\u{fe0f}\u{e0041}";
        let shown = line(lookalike);
        assert_clean(&shown, &[]);
        assert!(shown.starts_with("read\\u{200b}_file\\u{200c}\\u{200d}\\u{2060}\\u{feff}"), "{shown}");
        // Prose keeps joiners (emoji families), but never controls or bidi.
        assert_eq!(stream("👨\u{200d}👩 ok\n"), "👨\u{200d}👩 ok\n");
        assert_eq!(stream("a\x1b[2Jb\u{202e}c\r\n"), "a\\x1b[2Jb\\u{202e}c\\r\n");
    }

    #[test]
    fn long_lines_are_cut_with_a_mark() {
        let shown = line(&"é".repeat(5000));
        assert_eq!(shown.chars().count(), MAX_LINE_CHARS + 1);
        assert!(shown.ends_with('…'));
        assert_eq!(line("short"), "short");
        assert_eq!(line_bounded("abcdef", 3), "abc…");
        // The cut counts the original's characters: escapes cannot be used to grow a line
        // past a few times the bound.
        assert!(line(&"\x1b".repeat(100_000)).len() <= MAX_LINE_CHARS * 4 + 3);
    }

    #[test]
    fn blocks_keep_lines_and_tabs_but_clean_each_line() {
        let text = "fn main() {\r\n\tlet x = 1; // \u{202e} } \u{2066}\n\x1b[1A\x1b[2K✓ forged\n";
        let shown = block(text);
        assert_clean(&shown, &['\n', '\t']);
        assert_eq!(shown.lines().count(), 3, "{shown}");
        assert!(shown.starts_with("fn main() {\n\tlet x = 1;"), "{shown}");
        assert!(shown.ends_with("\\x1b[1A\\x1b[2K✓ forged\n"), "{shown}");
        assert_eq!(block("no newline at the end"), "no newline at the end");
        assert_eq!(block(""), "");
    }

    #[test]
    fn blocks_are_bounded_in_lines_and_line_length() {
        let many = "x\n".repeat(MAX_BLOCK_LINES + 500);
        let shown = block(&many);
        assert_eq!(shown.lines().count(), MAX_BLOCK_LINES + 1);
        assert!(shown.ends_with("… (500 more lines not shown)\n"), "{}", &shown[shown.len() - 60..]);
        let wide = format!("{}\nend\n", "y".repeat(10_000));
        let shown = block(&wide);
        assert!(shown.lines().next().is_some_and(|l| l.chars().count() == MAX_LINE_CHARS + 1));
        assert!(shown.ends_with("end\n"));
        assert_eq!(block_bounded("a\nb\nc", 2), "a\nb\n… (1 more lines not shown)\n");
    }

    #[test]
    fn shell_words_are_quoted_unless_plain() {
        assert_eq!(shell_word("src/deep"), "src/deep");
        assert_eq!(shell_word("http://127.0.0.1:8080"), "http://127.0.0.1:8080");
        assert_eq!(shell_word("docs --write ~"), "'docs --write ~'");
        assert_eq!(shell_word("~/notes"), "'~/notes'");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(shell_word("$(rm -rf ~)"), "'$(rm -rf ~)'");
        assert_eq!(shell_word("a;b|c&d`e`"), "'a;b|c&d`e`'");
        assert_eq!(shell_word("https://*.example.com"), "'https://*.example.com'");
        assert_eq!(shell_word(""), "''");
        assert_eq!(shell_word("a\nb"), "'a\nb'");
    }

    #[test]
    fn a_grant_flag_is_one_argument_and_never_a_flag() {
        assert_eq!(grant_flag("--read", "docs --write ~"), "--read 'docs --write ~'");
        assert_eq!(grant_flag("--read", "--write"), "--read=--write");
        assert_eq!(grant_flag("--write", "-x y"), "--write='-x y'");
        assert_eq!(grant_flag("--net", "http://127.0.0.1"), "--net http://127.0.0.1");
    }
}
