//! A unified diff of an edit confirmation, for the terminal. The path and both contents come
//! from a plugin, so the diff is returned already passed through [`sanitize::block`]: escape
//! sequences, bidi controls and invisible characters in the file are shown, not obeyed, and
//! a huge diff is cut (saying how many lines were left out).

use std::time::Duration;

use similar::TextDiff;

use airlock_protocol::shown as sanitize;

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
#[path = "diff_tests.rs"]
mod tests;
