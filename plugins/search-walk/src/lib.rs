//! The walk `grep_search` and `glob` share: every file below a folder, in the order and with
//! the ignore rules of `ignore::WalkBuilder` as the tools set it up before (one thread, each
//! folder's entries sorted by name and a folder's contents right after it, `.gitignore` and
//! `.ignore` files at every level of the walk, `.git/info/exclude` of a folder holding a
//! `.git` folder, hidden files shown, `.git` never entered, links never followed into
//! folders), at a fraction of its host calls.
//!
//! Why not `WalkBuilder`: it reads folders through `std::fs::read_dir`, which on
//! wasm32-wasip2 is wasi-libc's `readdir`, and that asks the host for every entry's inode
//! (`metadata-hash-at`: a path lookup and a `statx` per entry). This walk reads each folder
//! through `wasi:filesystem` directly ([`sys`]): the listing gives each entry's type, a
//! subfolder is opened through its parent's descriptor by one name, and a file is opened and
//! read the same way. Only links take the path route, so that a link is resolved as before:
//! anywhere inside the folders the instance holds.
//!
//! Like `WalkBuilder` on wasm32-wasip2, ignore files above the walk's root are not read
//! (it finds them through `canonicalize`, which WASI does not have), and errors (a folder that
//! cannot be read, an ignore file that does not parse) skip what they concern, never the walk.

mod ignores;
mod sys;

use std::path::{Path, PathBuf};
use std::rc::Rc;

use ignores::Levels;
pub use sys::Reader;
use sys::{Dir, Kind};

/// A file the walk found: a regular file, or a link to one.
pub struct Found {
    /// Its path: the walk's root joined with the names below it.
    pub path: PathBuf,
    place: Place,
}

/// How to reach a found file again.
enum Place {
    /// A regular file: by its name in its folder's open descriptor.
    InDir { dir: Rc<Dir>, name: String },
    /// A link, or the walk's root itself: by its path, resolved as `std::fs` resolves it.
    ByPath,
}

impl Found {
    /// Opens the file for reading; `limit` refuses (an error) a file larger than that.
    pub fn open(&self, limit: u64) -> std::io::Result<Reader> {
        match &self.place {
            Place::InDir { dir, name } => dir.open_file(name, limit),
            Place::ByPath => Reader::open_path(&self.path, limit),
        }
    }

    /// When the file (a link itself, not what it points to) was last changed.
    pub fn modified(&self) -> Option<std::time::SystemTime> {
        match &self.place {
            Place::InDir { dir, name } => dir.modified(name),
            Place::ByPath => std::fs::symlink_metadata(&self.path).and_then(|m| m.modified()).ok(),
        }
    }
}

/// Walks below `root`, calling `visit` for every file not ignored, in name order, a folder's
/// files right where the folder sorts. `enter` is asked for every folder below the root
/// (with its path) before the walk goes in. A `root` that is a file is visited alone.
pub fn walk(root: &Path, enter: &mut dyn FnMut(&Path) -> bool, visit: &mut dyn FnMut(Found)) {
    match std::fs::metadata(root) {
        Ok(meta) if meta.is_dir() => {}
        Ok(meta) if meta.is_file() => return visit(Found { path: root.to_path_buf(), place: Place::ByPath }),
        _ => return,
    }
    let Ok(dir) = Dir::open_path(root) else {
        return;
    };
    let mut levels = Levels::default();
    folder(root, Rc::new(dir), &mut levels, enter, visit);
}

/// Walks one folder: its ignore files apply to it and everything below it.
fn folder(
    path: &Path,
    dir: Rc<Dir>,
    levels: &mut Levels,
    enter: &mut dyn FnMut(&Path) -> bool,
    visit: &mut dyn FnMut(Found),
) {
    let Ok(mut entries) = dir.entries() else {
        return;
    };
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    let has = |name: &str| entries.binary_search_by(|(n, _)| n.as_str().cmp(name)).ok().map(|i| entries[i].1);
    let git_dir = has(".git") == Some(Kind::Dir);
    levels.push(path, has(".ignore").is_some(), has(".gitignore").is_some(), git_dir);
    for (name, kind) in &entries {
        if name == ".git" {
            continue;
        }
        let child = path.join(name);
        match kind {
            Kind::Dir => {
                if levels.ignored(&child, true) || !enter(&child) {
                    continue;
                }
                if let Ok(sub) = dir.open_dir(name) {
                    folder(&child, Rc::new(sub), levels, enter, visit);
                }
            }
            Kind::File => {
                if !levels.ignored(&child, false) {
                    visit(Found { path: child, place: Place::InDir { dir: Rc::clone(&dir), name: name.clone() } });
                }
            }
            // A link is matched as a file (it is not followed), and counts when it leads to one.
            Kind::Link => {
                if !levels.ignored(&child, false) && child.is_file() {
                    visit(Found { path: child, place: Place::ByPath });
                }
            }
            Kind::Other => {}
        }
    }
    levels.pop();
}

#[cfg(test)]
mod tests;
