//! The workspace's files for `@` completion: walked with the `ignore` crate (the rules of
//! `.gitignore`, `.ignore` and git's excludes; `.git` itself skipped), relative paths, at
//! most a limit of them, matched fuzzily.

use std::path::Path;

#[derive(Debug, Clone, Default)]
pub struct FileIndex {
    files: Vec<String>,
    truncated: bool,
}

impl FileIndex {
    /// Walks `workspace` for at most `limit` files.
    pub fn build(workspace: &Path, limit: usize) -> FileIndex {
        let mut files = Vec::new();
        let mut truncated = false;
        let walker = ignore::WalkBuilder::new(workspace).hidden(false).require_git(false).build();
        for entry in walker.flatten() {
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                continue;
            }
            let Ok(relative) = entry.path().strip_prefix(workspace) else { continue };
            if relative.components().any(|c| c.as_os_str() == ".git") {
                continue;
            }
            if files.len() == limit {
                truncated = true;
                break;
            }
            files.push(relative.to_string_lossy().into_owned());
        }
        files.sort();
        FileIndex { files, truncated }
    }

    /// An index of these paths (tests, and hosts that list files themselves).
    pub fn from_paths(files: Vec<String>) -> FileIndex {
        FileIndex { files, truncated: false }
    }

    /// Whether the walk stopped at its limit.
    pub fn truncated(&self) -> bool {
        self.truncated
    }

    pub fn contains(&self, path: &str) -> bool {
        self.files.iter().any(|f| f == path)
    }

    /// The `n` best fuzzy matches of `query`: its chars in order, case-insensitive; runs of
    /// consecutive chars, matches at the start of a segment and in the file name score
    /// higher; shorter paths break ties.
    pub fn matches(&self, query: &str, n: usize) -> Vec<String> {
        let mut scored: Vec<(i64, &String)> =
            self.files.iter().filter_map(|f| score(query, f).map(|s| (s, f))).collect();
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.len().cmp(&b.1.len())).then(a.1.cmp(b.1)));
        scored.into_iter().take(n).map(|(_, f)| f.clone()).collect()
    }
}

fn score(query: &str, path: &str) -> Option<i64> {
    let name_start = path.rfind('/').map_or(0, |i| i + 1);
    let mut score = 0i64;
    let mut last: Option<usize> = None;
    let mut from = 0;
    let lower: Vec<char> = path.chars().map(|c| c.to_ascii_lowercase()).collect();
    let bytes: Vec<usize> = path.char_indices().map(|(i, _)| i).collect();
    for q in query.chars().map(|c| c.to_ascii_lowercase()) {
        let found = (from..lower.len()).find(|&i| lower[i] == q)?;
        score += 1;
        if last.is_some_and(|l| l + 1 == found) {
            score += 5;
        }
        if found == 0 || matches!(lower[found - 1], '/' | '_' | '-' | '.') {
            score += 3;
        }
        if bytes[found] >= name_start {
            score += 2;
        }
        last = Some(found);
        from = found + 1;
    }
    Some(score)
}
