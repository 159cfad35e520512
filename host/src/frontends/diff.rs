//! A unified diff of an edit confirmation, for the terminal. The path and both contents come
//! from a plugin, so the diff is returned already passed through [`sanitize::block`]: escape
//! sequences, bidi controls and invisible characters in the file are shown, not obeyed, and
//! a huge diff is cut (saying how many lines were left out).

use std::time::Duration;

use similar::TextDiff;

use crate::sanitize;

/// The longest a diff is searched for before a coarser one is shown.
const DIFF_DEADLINE: Duration = Duration::from_millis(500);

/// `original` → `proposed` as a unified diff with three lines of context, safe to print.
pub fn unified(path: &str, original: &str, proposed: &str) -> String {
    let path = sanitize::line(path);
    // Both contents may be megabytes of lines that all differ, which a plain diff takes
    // minutes over; past the deadline `similar` settles for a coarser diff.
    let diff = TextDiff::configure()
        .timeout(DIFF_DEADLINE)
        .diff_lines(original, proposed)
        .unified_diff()
        .context_radius(3)
        .header(&side("a", &path), &side("b", &path))
        .to_string();
    sanitize::block(&diff)
}

/// A header name as git writes it: `a/src/x.rs` for a relative path; an absolute path as it
/// is (`a//tmp/x` would read as a path relative to the workspace).
fn side(prefix: &str, path: &str) -> String {
    if path.starts_with('/') { path.to_string() } else { format!("{prefix}/{path}") }
}

#[cfg(test)]
mod tests {
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
            assert!(c == '\n' || !crate::sanitize::is_hidden(c), "raw {c:?} in {diff}");
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
}
