//! The walk that takes a checkpoint of one root: folders are listed and entered through
//! handles that follow no link, each folder becomes a tree (bottom up), each file's content
//! an object, read only when the stat index does not already know it.
//!
//! Invariants:
//! - Nothing is written in the workspace, and nothing is opened but folders (`O_PATH`,
//!   `O_NOFOLLOW`) and regular files (`O_NOFOLLOW | O_NONBLOCK`, type checked through the
//!   handle): a FIFO, socket or device is never opened, a link never followed.
//! - Whatever lies under the root and is not in the trees is in `left_out` with a reason
//!   (ignored, a `.git` folder, airlock's own files, over a cap, unreadable, not a regular
//!   file): a rewind must never take a path that was simply not looked at for one that did
//!   not exist.
//! - Objects are stored before the tree that names them.
//! - The root folder's subfolders may be walked on other threads ([`Walk::walk_ahead`]); the
//!   caps are counted across threads, and what is left out is said in the order of a walk
//!   on one thread.

use std::collections::{HashMap, HashSet};
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use airlock_files::{DirHandle, FileError, open_dir, open_dir_in, read_bounded};
use rustix::fs::FileType;

use crate::ignores::Ignores;
use crate::index::{Index, Stat};
use crate::objects::{Hash, Objects};
use crate::record::Node;
use crate::tree::{Kind, Tree, TreeEntry};
use crate::{CheckpointError, Settings};

/// What every thread of one checkpoint's walk shares.
pub(crate) struct Shared<'a> {
    pub objects: &'a Objects,
    pub index: &'a Index,
    pub settings: &'a Settings,
    pub workspace: &'a Path,
    /// Files held so far, against `max_files`.
    pub files: AtomicU64,
    /// Bytes of new content stored so far, against `max_new_bytes`.
    pub new_bytes: AtomicU64,
}

/// One thread's part of a checkpoint's walk.
pub(crate) struct Walk<'a> {
    pub shared: &'a Shared<'a>,
    /// Objects known to be in the store (trees mostly), so an unchanged folder costs no stat.
    pub known: HashSet<Hash>,
    /// Files hashed, for the stat index once the walk is over.
    pub inserts: Vec<(PathBuf, Stat, Hash)>,
    pub left_out: Vec<(PathBuf, String)>,
    /// Folders other threads walked ahead, taken when this walk reaches them.
    ahead: HashMap<PathBuf, Subtree>,
}

/// A folder walked ahead: its tree (or why it has none) and what it left out.
struct Subtree {
    result: Result<Hash, WalkError>,
    left_out: Vec<(PathBuf, String)>,
}

/// Most threads a walk uses.
const MAX_THREADS: usize = 4;

/// A size as a cap is said: `16 MiB`, or bytes when it is not whole MiB.
fn mib(bytes: u64) -> String {
    if bytes.is_multiple_of(1 << 20) { format!("{} MiB", bytes >> 20) } else { format!("{bytes} bytes") }
}

fn kind_name(kind: FileType) -> &'static str {
    match kind {
        FileType::Fifo => "a FIFO",
        FileType::Socket => "a socket",
        FileType::CharacterDevice => "a character device",
        FileType::BlockDevice => "a block device",
        _ => "a special file",
    }
}

impl<'a> Walk<'a> {
    pub(crate) fn new(shared: &'a Shared<'a>, known: HashSet<Hash>) -> Self {
        Self { shared, known, inserts: Vec::new(), left_out: Vec::new(), ahead: HashMap::new() }
    }

    fn leave(&mut self, path: PathBuf, reason: impl Into<String>) {
        self.left_out.push((path, reason.into()));
    }

    /// Whether `path` lies under a folder never snapshotted.
    fn never(&self, path: &Path) -> bool {
        self.shared.settings.never.iter().any(|never| path.starts_with(never))
    }

    /// Whether the folder `path`, whose parent is not under one, is a folder never
    /// snapshotted (a comparison of bytes: [`Path::starts_with`] per entry costs a good part
    /// of an unchanged checkpoint).
    fn never_folder(&self, path: &Path) -> bool {
        self.shared.settings.never.iter().any(|never| never.as_os_str().as_bytes() == path.as_os_str().as_bytes())
    }

    /// What the checkpoint holds at the root `path` (absolute, normalised).
    pub(crate) fn root(&mut self, path: &Path) -> Result<Node, CheckpointError> {
        if self.never(path) {
            self.leave(path.to_path_buf(), "airlock's own files");
            return Ok(Node::LeftOut);
        }
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            // `/` itself.
            let dir = open_dir(path).map_err(|e| walk_error(path, e))?;
            let mut ignores = Ignores::default();
            return match self.folder(&dir, path, &mut ignores) {
                Ok(hash) => Ok(Node::Tree(hash)),
                Err(WalkError::Unreadable(reason)) => {
                    self.leave(path.to_path_buf(), reason);
                    Ok(Node::LeftOut)
                }
                Err(WalkError::Store(e)) => Err(e),
            };
        };
        let parent_dir = match open_dir(parent) {
            Ok(dir) => dir,
            Err(FileError::NotFound) => return Ok(Node::Absent),
            Err(FileError::Link) => {
                self.leave(path.to_path_buf(), "a folder on its path is a symbolic link");
                return Ok(Node::LeftOut);
            }
            Err(e) => {
                self.leave(path.to_path_buf(), format!("cannot be read: {e}"));
                return Ok(Node::LeftOut);
            }
        };
        let stat = match parent_dir.stat_entry(name) {
            Ok(stat) => stat,
            Err(FileError::NotFound) => return Ok(Node::Absent),
            Err(e) => {
                self.leave(path.to_path_buf(), format!("cannot be read: {e}"));
                return Ok(Node::LeftOut);
            }
        };
        if name == ".git" {
            self.leave(path.to_path_buf(), "the .git folder");
            return Ok(Node::LeftOut);
        }
        match FileType::from_raw_mode(stat.st_mode) {
            FileType::Directory => {
                let dir = match open_dir_in(&parent_dir, Path::new(name)) {
                    Ok(dir) => dir,
                    Err(e) => {
                        self.leave(path.to_path_buf(), format!("cannot be read: {e}"));
                        return Ok(Node::LeftOut);
                    }
                };
                let mut ignores = Ignores::above(path, self.shared.workspace);
                self.walk_ahead(&dir, path, &ignores);
                match self.folder(&dir, path, &mut ignores) {
                    Ok(hash) => Ok(Node::Tree(hash)),
                    Err(WalkError::Unreadable(reason)) => {
                        self.leave(path.to_path_buf(), reason);
                        Ok(Node::LeftOut)
                    }
                    Err(WalkError::Store(e)) => Err(e),
                }
            }
            _ => match self.entry(&parent_dir, name, path, &stat)? {
                Some(entry) => Ok(entry.entry().map_or(Node::LeftOut, Node::Entry)),
                None if self.left_out.last().is_some_and(|(p, _)| p == path) => Ok(Node::LeftOut),
                None => Ok(Node::Absent),
            },
        }
    }

    /// The tree of the folder `path` (open as `dir`), every object it names stored.
    fn folder(&mut self, dir: &DirHandle, path: &Path, ignores: &mut Ignores) -> Result<Hash, WalkError> {
        let mut names = dir.entries().map_err(|e| WalkError::Unreadable(format!("cannot be read: {e}")))?;
        names.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
        let pushed = names.iter().any(|n| n == ".gitignore") && ignores.enter(dir, path);
        let result = self.entries(dir, path, &names, ignores);
        if pushed {
            ignores.pop();
        }
        let tree = result?;
        let bytes = tree.encode();
        let hash = blake3::hash(&bytes);
        if !self.known.contains(&hash) {
            self.shared.objects.put_hashed(&hash, &bytes)?;
            self.known.insert(hash);
        }
        Ok(hash)
    }

    fn entries(
        &mut self,
        dir: &DirHandle,
        path: &Path,
        names: &[std::ffi::OsString],
        ignores: &mut Ignores,
    ) -> Result<Tree, WalkError> {
        let mut tree = Tree::default();
        for name in names {
            let child = path.join(name);
            if name == ".git" {
                self.leave(child, "the .git folder");
                continue;
            }
            let stat = match dir.stat_entry(name) {
                Ok(stat) => stat,
                Err(FileError::NotFound) => continue,
                Err(e) => {
                    self.leave(child, format!("cannot be read: {e}"));
                    continue;
                }
            };
            let kind = FileType::from_raw_mode(stat.st_mode);
            if kind == FileType::Directory && self.never_folder(&child) {
                self.leave(child, "airlock's own files");
                continue;
            }
            if ignores.ignored(&child, kind == FileType::Directory) {
                self.leave(child, "ignored by .gitignore");
                continue;
            }
            if kind != FileType::Directory {
                if let Some(entry) = self.entry(dir, name, &child, &stat)? {
                    tree.entries.push(entry);
                }
                continue;
            }
            let result = match self.ahead.remove(&child) {
                Some(subtree) => {
                    self.left_out.extend(subtree.left_out);
                    subtree.result
                }
                None => match open_dir_in(dir, Path::new(name)) {
                    Ok(sub) => self.folder(&sub, &child, ignores),
                    Err(FileError::NotFound) => continue,
                    Err(e) => Err(WalkError::Unreadable(format!("cannot be read: {e}"))),
                },
            };
            match result {
                Ok(hash) => tree.entries.push(TreeEntry {
                    name: name.clone(),
                    kind: Kind::Dir,
                    mode: stat.st_mode & 0o7777,
                    size: 0,
                    hash,
                }),
                Err(WalkError::Unreadable(reason)) => self.leave(child, reason),
                Err(WalkError::Store(e)) => return Err(WalkError::Store(e)),
            }
        }
        tree.sort();
        Ok(tree)
    }

    /// The entry of the file or link `name` of `dir` (at `path`), its content stored; `None`
    /// when it is left out (said) or gone.
    fn entry(
        &mut self,
        dir: &DirHandle,
        name: &OsStr,
        path: &Path,
        stat: &rustix::fs::Stat,
    ) -> Result<Option<TreeEntry>, CheckpointError> {
        let kind = FileType::from_raw_mode(stat.st_mode);
        if kind != FileType::RegularFile && kind != FileType::Symlink {
            self.leave(path.to_path_buf(), format!("{}, not a regular file", kind_name(kind)));
            return Ok(None);
        }
        let size = u64::try_from(stat.st_size).unwrap_or(0);
        if kind == FileType::RegularFile && size > self.shared.settings.max_file_bytes {
            self.leave(path.to_path_buf(), format!("over {}", mib(self.shared.settings.max_file_bytes)));
            return Ok(None);
        }
        let max_files = self.shared.settings.max_files as u64;
        if self
            .shared
            .files
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| (n < max_files).then_some(n + 1))
            .is_err()
        {
            self.leave(path.to_path_buf(), format!("over the limit of {max_files} files per checkpoint"));
            return Ok(None);
        }
        let held = self.content(dir, name, path, stat, kind, size);
        if !matches!(held, Ok(Some(_))) {
            self.shared.files.fetch_sub(1, Ordering::SeqCst);
        }
        held
    }

    /// The entry of the file or link `name`, counted against `max_files` already.
    fn content(
        &mut self,
        dir: &DirHandle,
        name: &OsStr,
        path: &Path,
        stat: &rustix::fs::Stat,
        kind: FileType,
        size: u64,
    ) -> Result<Option<TreeEntry>, CheckpointError> {
        let mode = stat.st_mode & 0o7777;
        let known = Stat::of(stat);
        if let Some(hash) = self.shared.index.lookup(path, &known) {
            let kind = if kind == FileType::Symlink { Kind::Symlink } else { Kind::File };
            return Ok(Some(TreeEntry { name: name.to_os_string(), kind, mode, size, hash }));
        }
        let (content, stat, kind) = if kind == FileType::Symlink {
            match rustix::fs::readlinkat(dir, name, Vec::new()) {
                Ok(target) => (target.into_bytes(), *stat, Kind::Symlink),
                Err(rustix::io::Errno::NOENT) => return Ok(None),
                Err(e) => {
                    self.leave(path.to_path_buf(), format!("cannot be read: {e}"));
                    return Ok(None);
                }
            }
        } else {
            let read = dir.open_regular(name).and_then(|(file, stat)| {
                let bytes = read_bounded(file, stat, self.shared.settings.max_file_bytes)?;
                Ok((bytes, stat))
            });
            match read {
                Ok((bytes, stat)) => (bytes, stat, Kind::File),
                Err(FileError::NotFound) => return Ok(None),
                Err(FileError::TooLarge { .. }) => {
                    self.leave(path.to_path_buf(), format!("over {}", mib(self.shared.settings.max_file_bytes)));
                    return Ok(None);
                }
                Err(FileError::NotRegular(what)) => {
                    self.leave(path.to_path_buf(), format!("a {what}, not a regular file"));
                    return Ok(None);
                }
                Err(e) => {
                    self.leave(path.to_path_buf(), format!("cannot be read: {e}"));
                    return Ok(None);
                }
            }
        };
        let hash = blake3::hash(&content);
        if !self.shared.objects.has(&hash) {
            let (length, max) = (content.len() as u64, self.shared.settings.max_new_bytes);
            let room = |n: u64| n.checked_add(length).filter(|total| *total <= max);
            if self.shared.new_bytes.fetch_update(Ordering::SeqCst, Ordering::SeqCst, room).is_err() {
                self.leave(
                    path.to_path_buf(),
                    format!(
                        "over the limit of {} of new content per checkpoint",
                        mib(self.shared.settings.max_new_bytes)
                    ),
                );
                return Ok(None);
            }
            self.shared.objects.put_hashed(&hash, &content)?;
        }
        self.inserts.push((path.to_path_buf(), Stat::of(&stat), hash));
        let mode = stat.st_mode & 0o7777;
        Ok(Some(TreeEntry { name: name.to_os_string(), kind, mode, size: content.len() as u64, hash }))
    }
}

impl Walk<'_> {
    /// Walks the folders of the root folder `path` (open as `dir`) on other threads, for
    /// [`Walk::entries`] to take as it reaches them: an unchanged checkpoint is mostly
    /// `stat` calls, which spread over cores. Only folders the walk will enter are walked
    /// ahead (the same `.git`, never-list and ignore checks), so what they leave out is said
    /// once, in the order a walk on one thread would say it.
    fn walk_ahead(&mut self, dir: &DirHandle, path: &Path, ignores: &Ignores) {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(MAX_THREADS);
        if threads < 2 {
            return;
        }
        let Ok(names) = dir.entries() else { return };
        let mut ignores = ignores.clone();
        if names.iter().any(|n| n == ".gitignore") {
            ignores.enter(dir, path);
        }
        let tasks: Vec<(PathBuf, &OsStr)> = names
            .iter()
            .filter(|name| *name != ".git")
            .filter(|name| {
                dir.stat_entry(name).is_ok_and(|s| FileType::from_raw_mode(s.st_mode) == FileType::Directory)
            })
            .map(|name| (path.join(name), name.as_os_str()))
            .filter(|(child, _)| !self.never_folder(child) && !ignores.ignored(child, true))
            .collect();
        if tasks.len() < 2 {
            return;
        }
        let next = AtomicUsize::new(0);
        let shared = self.shared;
        let known = &self.known;
        let parts: Vec<Part> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads.min(tasks.len()))
                .map(|_| {
                    scope.spawn(|| {
                        let mut walk = Walk::new(shared, known.clone());
                        let mut done = Vec::new();
                        while let Some((child, name)) = tasks.get(next.fetch_add(1, Ordering::SeqCst)) {
                            let Ok(sub) = open_dir_in(dir, Path::new(name)) else { continue };
                            let result = walk.folder(&sub, child, &mut ignores.clone());
                            done.push((
                                child.clone(),
                                Subtree { result, left_out: std::mem::take(&mut walk.left_out) },
                            ));
                        }
                        Part { done, known: walk.known, inserts: walk.inserts }
                    })
                })
                .collect();
            // A worker that panicked leaves its folders to this thread's walk.
            workers.into_iter().filter_map(|worker| worker.join().ok()).collect()
        });
        for part in parts {
            self.ahead.extend(part.done);
            self.known.extend(part.known);
            self.inserts.extend(part.inserts);
        }
    }
}

/// What one worker of [`Walk::walk_ahead`] did.
struct Part {
    done: Vec<(PathBuf, Subtree)>,
    known: HashSet<Hash>,
    inserts: Vec<(PathBuf, Stat, Hash)>,
}

/// Why a folder has no tree: it could not be listed (left out, said), or the store failed.
enum WalkError {
    Unreadable(String),
    Store(CheckpointError),
}

impl From<CheckpointError> for WalkError {
    fn from(error: CheckpointError) -> Self {
        Self::Store(error)
    }
}

fn walk_error(path: &Path, error: FileError) -> CheckpointError {
    CheckpointError::Store { path: path.to_path_buf(), reason: format!("cannot read the root: {error}") }
}
