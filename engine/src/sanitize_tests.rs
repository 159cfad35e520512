//! Unit tests of `sanitize.rs`.

use super::*;

/// No raw control, bidi or invisible character, except the ones `allowed`.
fn assert_clean(text: &str, allowed: &[char]) {
    for c in text.chars() {
        assert!(!is_hidden(c) || allowed.contains(&c), "raw {c:?} in {text:?}");
    }
}

#[test]
fn escape_sequences_are_made_visible_not_sent() {
    for attack in ["\x1b[2J\x1b[H", "\x1b]0;title\x07", "\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\", "\x1bP+q\x1b\\"]
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
    assert_eq!(block_bounded("a\nb\nc", 2), "a\nb\n… (1 more line not shown)\n");
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
