//! The ignore files of the folders the walk is in, deepest last, matched the way
//! `ignore::WalkBuilder` matches them with `require_git(false)`: for a path, the deepest
//! `.ignore` with a say decides; failing that the deepest `.gitignore` with a say; failing
//! that the deepest `.git/info/exclude`. A say is an ignore or a whitelist (`!pattern`).
//! Each file is parsed by `ignore`'s own gitignore matcher, rooted at its folder.

use std::path::Path;

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

/// One folder's ignore files; `None` where it has none.
struct Level {
    ignore: Option<Gitignore>,
    gitignore: Option<Gitignore>,
    exclude: Option<Gitignore>,
}

/// The levels from the walk's root down to the folder being walked.
#[derive(Default)]
pub struct Levels {
    levels: Vec<Level>,
}

impl Levels {
    /// Enters the folder `dir`, which holds the files named where the flags say.
    pub fn push(&mut self, dir: &Path, has_ignore: bool, has_gitignore: bool, has_git_dir: bool) {
        let parse = |file: &Path| {
            let mut builder = GitignoreBuilder::new(dir);
            // An unreadable or partly invalid file keeps the rules that did parse, as the walk
            // of the `ignore` crate does.
            let _ = builder.add(file);
            builder.build().ok().filter(|matcher| !matcher.is_empty())
        };
        let level = Level {
            ignore: has_ignore.then(|| parse(&dir.join(".ignore"))).flatten(),
            gitignore: has_gitignore.then(|| parse(&dir.join(".gitignore"))).flatten(),
            exclude: has_git_dir.then(|| parse(&dir.join(".git/info/exclude"))).flatten(),
        };
        self.levels.push(level);
    }

    /// Leaves the folder entered last.
    pub fn pop(&mut self) {
        self.levels.pop();
    }

    /// Whether `path` (in the folder entered last) is ignored.
    pub fn ignored(&self, path: &Path, is_dir: bool) -> bool {
        let deepest = |pick: fn(&Level) -> Option<&Gitignore>| {
            self.levels
                .iter()
                .rev()
                .filter_map(pick)
                .map(|matcher| matcher.matched(path, is_dir))
                .find(|m| !m.is_none())
                .unwrap_or(Match::None)
        };
        let decided =
            [deepest(|l| l.ignore.as_ref()), deepest(|l| l.gitignore.as_ref()), deepest(|l| l.exclude.as_ref())]
                .into_iter()
                .find(|m| !m.is_none());
        decided.is_some_and(|m| m.is_ignore())
    }
}
