//! The ignore rules a checkpoint's walk follows, as git does: each folder's `.gitignore`
//! (a deeper file wins over a shallower one, the last matching line of a file wins, `!`
//! re-includes), the `.gitignore` files of the folders above a root up to the repository's
//! top (or the workspace's), and the top's `.git/info/exclude` (weakest). Patterns are
//! matched by the `ignore` crate's gitignore matcher.
//!
//! Invariant: ignore files are read through handles that follow no link and never block
//! (a `.gitignore` that is a link or a FIFO is not read), at most 1 MiB each.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use airlock_files::{DirHandle, open_dir, open_dir_in, read_bounded};
use ignore::gitignore::{Gitignore, GitignoreBuilder};

/// Largest ignore file read.
const MAX_IGNORE_BYTES: u64 = 1 << 20;

/// The matchers in force, weakest first.
#[derive(Debug, Default, Clone)]
pub(crate) struct Ignores {
    stack: Vec<Gitignore>,
}

impl Ignores {
    /// The rules in force above the folder `root` (not its own `.gitignore`, which the walk
    /// adds when it enters it), up to the repository's top or `workspace`.
    pub(crate) fn above(root: &Path, workspace: &Path) -> Self {
        let mut chain = Vec::new();
        let mut top = None;
        for dir in root.ancestors() {
            let Ok(handle) = open_dir(dir) else { break };
            let has_git = handle.stat_entry(OsStr::new(".git")).is_ok();
            if dir != root {
                chain.push((dir.to_path_buf(), handle));
            }
            if has_git {
                top = Some(dir.to_path_buf());
                break;
            }
            if dir == workspace {
                break;
            }
        }
        let mut ignores = Self::default();
        if let Some(top) = top
            && let Ok(info) = open_dir(&top).and_then(|h| open_dir_in(&h, Path::new(".git/info")))
            && let Some(matcher) = matcher(&info, OsStr::new("exclude"), &top)
        {
            ignores.stack.push(matcher);
        }
        for (dir, handle) in chain.iter().rev() {
            if let Some(matcher) = matcher(handle, OsStr::new(".gitignore"), dir) {
                ignores.stack.push(matcher);
            }
        }
        ignores
    }

    /// Adds the `.gitignore` of the folder `path` (open as `dir`); whether there was one to
    /// add (then [`Ignores::pop`] when leaving the folder).
    pub(crate) fn enter(&mut self, dir: &DirHandle, path: &Path) -> bool {
        match matcher(dir, OsStr::new(".gitignore"), path) {
            Some(matcher) => {
                self.stack.push(matcher);
                true
            }
            None => false,
        }
    }

    pub(crate) fn pop(&mut self) {
        self.stack.pop();
    }

    /// Whether `path` (a folder when `is_dir`) is ignored.
    pub(crate) fn ignored(&self, path: &Path, is_dir: bool) -> bool {
        for matcher in self.stack.iter().rev() {
            let found = matcher.matched(path, is_dir);
            if found.is_ignore() {
                return true;
            }
            if found.is_whitelist() {
                return false;
            }
        }
        false
    }
}

/// The matcher of the ignore file `name` of `dir` (at `root`), when it is a regular file
/// with at least one rule.
fn matcher(dir: &DirHandle, name: &OsStr, root: &Path) -> Option<Gitignore> {
    let (file, stat) = dir.open_regular(name).ok()?;
    let bytes = read_bounded(file, stat, MAX_IGNORE_BYTES).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let mut builder = GitignoreBuilder::new(root);
    let from: Option<PathBuf> = Some(root.join(name));
    for line in text.lines() {
        // A bad pattern is skipped, as git skips it.
        let _ = builder.add_line(from.clone(), line);
    }
    builder.build().ok().filter(|m| m.num_ignores() + m.num_whitelists() > 0)
}
