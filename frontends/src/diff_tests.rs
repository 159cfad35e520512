//! Unit tests of `diff.rs`.

#[test]
fn an_absolute_path_is_not_given_a_doubled_slash() {
    let diff = super::unified("/w/notes.txt", "a\n", "b\n");
    assert!(diff.starts_with("--- /w/notes.txt\n+++ /w/notes.txt\n"), "{diff}");
    let diff = super::unified("src/x.rs", "a\n", "b\n");
    assert!(diff.starts_with("--- a/src/x.rs\n+++ b/src/x.rs\n"), "{diff}");
}

#[test]
fn megabytes_of_lines_that_all_differ_still_give_a_diff_at_once() {
    let original: String = (0..100_000).map(|i| format!("a{i}\n")).collect();
    let proposed: String = (0..100_000).map(|i| format!("b{i}\n")).collect();
    let diff = super::unified("x.txt", &original, &proposed);
    assert!(diff.contains("-a0\n") && diff.contains("more lines not shown"), "{}", &diff[..200]);
}

#[test]
fn shows_removed_and_added_lines() {
    let diff = super::unified("x.txt", "one\ntwo\n", "one\n2\n");
    assert!(diff.contains("-two\n") && diff.contains("+2\n"), "{diff}");
    assert!(diff.contains("a/x.txt"), "{diff}");
}

#[test]
fn hostile_content_and_paths_are_shown_not_obeyed() {
    let original = "let ok = true;\n";
    let proposed = "let ok = true; // \u{202e} }\u{2066} \x1b[1A\x1b[2K\nfine\r\x1b[31m\n";
    let diff = super::unified("a\x1b]0;pwned\x07\nb.rs", original, proposed);
    for c in diff.chars() {
        assert!(c == '\n' || !airlock_protocol::shown::is_hidden(c), "raw {c:?} in {diff}");
    }
    assert!(diff.contains("a/a\\x1b]0;pwned\\x07\\nb.rs"), "{diff}");
    assert!(
        diff.contains("\\u{202e}")
            && diff.contains("\\x1b[1A")
            && diff.contains("fine\\r")
            && diff.contains("\\x1b[31m"),
        "{diff}"
    );
}
