//! A unified diff of an edit confirmation, for the terminal. The path and both contents come
//! from a plugin, so the diff is returned already passed through [`sanitize::block`]: escape
//! sequences, bidi controls and invisible characters in the file are shown, not obeyed, and
//! a huge diff is cut (saying how many lines were left out).

use similar::TextDiff;

use crate::sanitize;

/// `original` → `proposed` as a unified diff with three lines of context, safe to print.
pub fn unified(path: &str, original: &str, proposed: &str) -> String {
    let path = sanitize::line(path);
    let diff = TextDiff::from_lines(original, proposed)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string();
    sanitize::block(&diff)
}

#[cfg(test)]
mod tests {
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
