//! A unified diff of an edit confirmation, for the terminal.

use similar::TextDiff;

/// `original` → `proposed` as a unified diff with three lines of context.
pub fn unified(path: &str, original: &str, proposed: &str) -> String {
    TextDiff::from_lines(original, proposed)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn shows_removed_and_added_lines() {
        let diff = super::unified("x.txt", "one\ntwo\n", "one\n2\n");
        assert!(diff.contains("-two\n") && diff.contains("+2\n"), "{diff}");
        assert!(diff.contains("a/x.txt"), "{diff}");
    }
}
