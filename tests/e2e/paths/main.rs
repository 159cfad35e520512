//! Paths the host itself reads and writes (issue 23 item 1 and 7, issue 24 items 8 and 10),
//! through the real binary: a command of the workspace racing airlock's own writes with
//! rename-exchanges ([`races`]), downloads that redirect ([`redirects`]), the workspace by
//! the user's spelling of it ([`aliases`]), and what a `kill -9` mid-write leaves
//! ([`leftovers`]).

mod aliases;
mod leftovers;
mod races;
mod redirects;

use std::path::{Path, PathBuf};

use airlock_tests::Session;

use crate::session;

/// `airlock ARGS` with no model.
fn airlock(s: &Session, args: &[&str]) -> airlock_tests::Finished {
    let mut command = s.bare_command();
    command.args(args);
    Session::run(command)
}

/// Every name under `dir` (recursively, links not followed), relative to it, sorted.
fn names_below(dir: &Path) -> Vec<String> {
    fn walk(dir: &Path, base: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            out.push(path.strip_prefix(base).unwrap_or(&path).display().to_string());
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                walk(&path, base, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// The files under `dir` that look like temporary files (`*.tmp`, airlock's or tempfile's).
fn temporary_files(dir: &Path) -> Vec<String> {
    names_below(dir).into_iter().filter(|n| n.ends_with(".tmp") || n.contains(".airlock-")).collect()
}

/// A folder that may be created under the test's temporary folder.
fn scratch() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = dir.path().canonicalize().unwrap_or_else(|e| panic!("{e}"));
    (dir, path)
}
